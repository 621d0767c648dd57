package cli

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/formats/msh7"
)

// msh7Kind reads MSH7 meshlet payloads (magic bytes "7HSM": u32 0x4D534837).
func msh7Kind() fileKind {
	return fileKind{
		name:  "msh7",
		magic: []byte{0x37, 0x48, 0x53, 0x4D},
		validate: func(_ string, b []byte) error {
			_, err := msh7.Decode(b) // Decode validates
			return err
		},
		inspect: func(w io.Writer, path string, b []byte, mode inspectMode) error {
			f, err := msh7.Decode(b)
			if err != nil {
				return err
			}
			if mode == inspectDump {
				return msh7.Dump(w, f)
			}
			st := f.Stats()
			s := struct {
				File          string `json:"file"`
				Kind          string `json:"kind"`
				Skinned       bool   `json:"skinned"`
				Positions     int    `json:"positions"`
				Meshlets      int    `json:"meshlets"`
				Triangles     int    `json:"triangles"`
				LocalVertices int    `json:"localVertices"`
				Cones         int    `json:"cones"`
				RefBytes      int    `json:"refBytes"`
			}{path, "msh7", f.Class == msh7.ClassSkinned, len(f.Positions), st.Meshlets, st.Triangles, st.LocalVertices, st.Cones, st.RefBytes}
			if mode == inspectJSON {
				return writeJSON(w, s)
			}
			fmt.Fprintf(w, "%s: MSH7, skinned %v\n  %d positions, %d meshlets, %d triangles, %d local vertices, %d enabled cones, %d ref bytes\n",
				path, s.Skinned, s.Positions, s.Meshlets, s.Triangles, s.LocalVertices, s.Cones, s.RefBytes)
			return nil
		},
	}
}
