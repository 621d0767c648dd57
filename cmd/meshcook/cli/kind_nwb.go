package cli

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/nwb"
)

// nwbKind reads authored .nwb sources: validate parses them and checks
// every asset rule of nwb.md §1 (refresh --check says whether they are
// canonical); inspect lists the declared assets.
func nwbKind() fileKind {
	return fileKind{
		name: "nwb",
		exts: []string{".nwb"},
		validate: func(path string, b []byte) error {
			_, err := nwb.ParseDocument(b, path, "")
			return err
		},
		inspect: func(w io.Writer, path string, b []byte, mode inspectMode) error {
			doc, err := nwb.ParseDocument(b, path, "")
			if err != nil {
				return err
			}
			type asset struct {
				Name string `json:"name"`
				Kind string `json:"kind"`
				Path string `json:"path"`
			}
			s := struct {
				File   string  `json:"file"`
				Kind   string  `json:"kind"`
				Bunch  string  `json:"bunch,omitempty"`
				Assets []asset `json:"assets"`
			}{File: path, Kind: "nwb", Bunch: doc.Bunch, Assets: []asset{}}
			for _, a := range doc.Assets {
				s.Assets = append(s.Assets, asset{Name: a.Name, Kind: fmt.Sprint(a.Kind), Path: a.Path})
			}
			if mode != inspectSummary {
				return writeJSON(w, s)
			}
			fmt.Fprintf(w, "%s: nwb source, %d assets\n", path, len(s.Assets))
			for _, a := range s.Assets {
				fmt.Fprintf(w, "  %s %s (%s)\n", a.Kind, a.Name, a.Path)
			}
			return nil
		},
	}
}
