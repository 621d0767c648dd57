package cli

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/formats/meshpack"
)

// maxPackBytes bounds a pack's decompressed size when validating or
// inspecting it.
const maxPackBytes = 4 << 30

// meshpackKind reads .smpk/.rmpk baked mesh packs: one zstd frame on disk
// (raw bytes accepted), recognised by extension since the magic sits
// inside the frame.
func meshpackKind() fileKind {
	decode := func(b []byte) (*meshpack.Pack, error) { return meshpack.DecodeLimit(b, maxPackBytes) }
	return fileKind{
		name: "meshpack",
		exts: []string{".smpk", ".rmpk"},
		validate: func(_ string, b []byte) error {
			_, err := decode(b) // Decode validates
			return err
		},
		inspect: func(w io.Writer, path string, b []byte, mode inspectMode) error {
			p, err := decode(b)
			if err != nil {
				return err
			}
			type entry struct {
				Name      string  `json:"name"`
				Vertices  int     `json:"vertices"`
				Triangles int     `json:"triangles"`
				Ranges    int     `json:"ranges"`
				Radius    float32 `json:"radius"`
			}
			s := struct {
				File    string  `json:"file"`
				Kind    string  `json:"kind"`
				Family  string  `json:"family"`
				Entries []entry `json:"entries"`
			}{File: path, Kind: "meshpack", Family: p.Family.String(), Entries: []entry{}}
			for _, e := range p.Entries {
				n := len(e.Static)
				if p.Family == meshpack.Rigged {
					n = len(e.Rigged)
				}
				s.Entries = append(s.Entries, entry{Name: e.Name, Vertices: n, Triangles: len(e.Indices) / 3, Ranges: len(e.Ranges), Radius: e.Bounds.Radius})
			}
			if mode == inspectJSON || mode == inspectDump {
				return writeJSON(w, s)
			}
			fmt.Fprintf(w, "%s: %s mesh pack, %d entries\n", path, s.Family, len(s.Entries))
			for _, e := range s.Entries {
				fmt.Fprintf(w, "  %s: %d vertices, %d triangles, %d ranges, radius %g\n", e.Name, e.Vertices, e.Triangles, e.Ranges, e.Radius)
			}
			return nil
		},
	}
}
