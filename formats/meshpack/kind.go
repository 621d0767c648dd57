package meshpack

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/formats/format"
)

// MaxInspectBytes bounds a pack's decompressed size when validating or
// inspecting it.
const MaxInspectBytes = 4 << 30

// Format describes .smpk/.rmpk baked mesh packs for formats/kinds: one
// zstd frame on disk (raw bytes accepted), recognised by extension since
// the magic sits inside the frame. Its dump is every entry as text (Dump).
func Format() format.Description {
	summarize := func(path string, b []byte) (format.Summary, error) {
		p, err := DecodeLimit(b, MaxInspectBytes)
		if err != nil {
			return nil, err
		}
		return Summarize(path, p), nil
	}
	return format.Description{
		Name:   "meshpack",
		Exts:   []string{".smpk", ".rmpk"},
		Decode: func(b []byte) (any, error) { return DecodeLimit(b, MaxInspectBytes) }, // Decode validates
		Validate: func(_ string, b []byte) error {
			_, err := DecodeLimit(b, MaxInspectBytes)
			return err
		},
		Summarize: summarize,
		Dump: func(w io.Writer, _ string, b []byte) error {
			p, err := DecodeLimit(b, MaxInspectBytes)
			if err != nil {
				return err
			}
			return Dump(w, p)
		},
	}
}

// Summary is `inspect` of a mesh pack.
type Summary struct {
	File    string         `json:"file"`
	Kind    string         `json:"kind"`
	Family  string         `json:"family"`
	Entries []EntrySummary `json:"entries"`
}

// EntrySummary is one entry.
type EntrySummary struct {
	Name      string  `json:"name"`
	Vertices  int     `json:"vertices"`
	Triangles int     `json:"triangles"`
	Ranges    int     `json:"ranges"`
	Radius    float32 `json:"radius"`
}

// Summarize lists p's entries.
func Summarize(path string, p *Pack) *Summary {
	s := &Summary{File: path, Kind: "meshpack", Family: p.Family.String(), Entries: []EntrySummary{}}
	for _, e := range p.Entries {
		n := len(e.Static)
		if p.Family == Rigged {
			n = len(e.Rigged)
		}
		s.Entries = append(s.Entries, EntrySummary{Name: e.Name, Vertices: n, Triangles: len(e.Indices) / 3, Ranges: len(e.Ranges), Radius: e.Bounds.Radius})
	}
	return s
}

// WriteText prints the human summary.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: %s mesh pack, %d entries\n", s.File, s.Family, len(s.Entries))
	for _, e := range s.Entries {
		if _, err := fmt.Fprintf(w, "  %s: %d vertices, %d triangles, %d ranges, radius %g\n", e.Name, e.Vertices, e.Triangles, e.Ranges, e.Radius); err != nil {
			return err
		}
	}
	return nil
}
