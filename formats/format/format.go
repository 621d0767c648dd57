// Package format is what every file kind meshcook reads says about itself:
// its name, how it is recognised, and how it is decoded, validated,
// summarized and dumped. Each format package (formats/hmesh, …) returns
// one Description; formats/kinds lists them all in a fixed order, and the
// cook and the CLI (validate, inspect, version) go through that list.
package format

import (
	"bytes"
	"encoding/json"
	"io"
)

// Description is one file kind.
type Description struct {
	// Name is the kind's stable name: validate and inspect print it, and
	// the cook's outputs carry it.
	Name string
	// Magic, when set, recognises the file by its first bytes. Sniff, when
	// set, recognises it by parsing (a JSON file without fixed leading
	// bytes). Files recognised neither way are matched by Exts (lowercase,
	// with the dot).
	Magic []byte
	Sniff func(b []byte) bool
	Exts  []string
	// Decode parses b with the format's reader and validates it on its
	// own, returning the format's own value (*hmesh.File, …).
	Decode func(b []byte) (any, error)
	// Validate checks the file at path whose bytes are b: Decode, plus the
	// files beside it that it refers to (a clip's skeleton, a world's
	// overflow blobs).
	Validate func(path string, b []byte) error
	// Summarize is what `inspect` prints: a typed value whose JSON field
	// names are a contract (camelCase), and its human text.
	Summarize func(path string, b []byte) (Summary, error)
	// Dump writes every field as stable text (golden files). A kind
	// without a text dump of its own dumps its summary as JSON.
	Dump func(w io.Writer, path string, b []byte) error
}

// Summary is one file's inspect summary. It marshals to JSON with
// camelCase field names, "file" and "kind" first.
type Summary interface {
	// WriteText prints the human summary.
	WriteText(w io.Writer) error
}

// Recognise reports whether b (the bytes of a file named with extension
// ext, lowercase) is of this kind by its magic or by parsing: the first
// pass of detection, before extensions.
func (d Description) Recognise(b []byte) bool {
	switch {
	case d.Magic != nil:
		return bytes.HasPrefix(b, d.Magic)
	case d.Sniff != nil:
		return d.Sniff(b)
	}
	return false
}

// HasExt reports whether ext (lowercase, with the dot) is one of the kind's.
func (d Description) HasExt(ext string) bool {
	for _, e := range d.Exts {
		if e == ext {
			return true
		}
	}
	return false
}

// WriteJSON writes v as indented JSON and a newline, as inspect --json
// and the JSON dumps print it.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// DumpJSON is the Dump of a kind whose summary is its dump.
func DumpJSON(summarize func(path string, b []byte) (Summary, error)) func(w io.Writer, path string, b []byte) error {
	return func(w io.Writer, path string, b []byte) error {
		s, err := summarize(path, b)
		if err != nil {
			return err
		}
		return WriteJSON(w, s)
	}
}

// Codec fills in the Decode, Validate, Summarize and Dump of d for a kind
// whose file is checked on its own: decode parses and validates the bytes,
// summarize and dump work on what it returns.
func Codec[T any](d Description, decode func([]byte) (T, error), summarize func(path string, v T) Summary, dump func(w io.Writer, v T) error) Description {
	d.Decode = func(b []byte) (any, error) { return decode(b) }
	d.Validate = func(_ string, b []byte) error {
		_, err := decode(b)
		return err
	}
	d.Summarize = func(path string, b []byte) (Summary, error) {
		v, err := decode(b)
		if err != nil {
			return nil, err
		}
		return summarize(path, v), nil
	}
	d.Dump = func(w io.Writer, _ string, b []byte) error {
		v, err := decode(b)
		if err != nil {
			return err
		}
		return dump(w, v)
	}
	return d
}
