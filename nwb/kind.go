package nwb

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/formats/format"
)

// Format describes authored .nwb sources for formats/kinds: Validate
// parses them and checks every asset rule of nwb.md §1 (`refresh --check`
// says whether they are canonical); Summarize lists the declared assets.
// Its dump is its summary as JSON.
func Format() format.Description {
	summarize := func(path string, b []byte) (format.Summary, error) {
		doc, err := ParseDocument(b, path, "")
		if err != nil {
			return nil, err
		}
		s := &Summary{File: path, Kind: "nwb", Bunch: doc.Bunch, Assets: []AssetSummary{}}
		for _, a := range doc.Assets {
			s.Assets = append(s.Assets, AssetSummary{Name: a.Name, Kind: fmt.Sprint(a.Kind), Path: a.Path})
		}
		return s, nil
	}
	return format.Description{
		Name:   "nwb",
		Exts:   []string{".nwb"},
		Decode: func(b []byte) (any, error) { return ParseDocument(b, "", "") },
		Validate: func(path string, b []byte) error {
			_, err := ParseDocument(b, path, "")
			return err
		},
		Summarize: summarize,
		Dump:      format.DumpJSON(summarize),
	}
}

// Summary is `inspect` of a .nwb source.
type Summary struct {
	File   string         `json:"file"`
	Kind   string         `json:"kind"`
	Bunch  string         `json:"bunch,omitempty"`
	Assets []AssetSummary `json:"assets"`
}

// AssetSummary is one declared asset.
type AssetSummary struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Path string `json:"path"`
}

// WriteText prints the human summary.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: nwb source, %d assets\n", s.File, len(s.Assets))
	for _, a := range s.Assets {
		if _, err := fmt.Fprintf(w, "  %s %s (%s)\n", a.Kind, a.Name, a.Path); err != nil {
			return err
		}
	}
	return nil
}
