package msh7

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/formats/format"
)

// Format describes MSH7 meshlet payloads (bytes "7HSM": u32 0x4D534837)
// for formats/kinds.
func Format() format.Description {
	return format.Codec(format.Description{Name: "msh7", Magic: []byte{0x37, 0x48, 0x53, 0x4D}},
		Decode, // Decode validates
		func(path string, f *File) format.Summary { return Summarize(path, f) },
		Dump)
}

// Summary is `inspect` of a .msh7.
type Summary struct {
	File          string `json:"file"`
	Kind          string `json:"kind"`
	Skinned       bool   `json:"skinned"`
	Positions     int    `json:"positions"`
	Meshlets      int    `json:"meshlets"`
	Triangles     int    `json:"triangles"`
	LocalVertices int    `json:"localVertices"`
	Cones         int    `json:"cones"`
	RefBytes      int    `json:"refBytes"`
}

// Summarize counts what f holds.
func Summarize(path string, f *File) *Summary {
	st := f.Stats()
	return &Summary{path, "msh7", f.Class == ClassSkinned, len(f.Positions), st.Meshlets, st.Triangles, st.LocalVertices, st.Cones, st.RefBytes}
}

// WriteText prints the human summary.
func (s *Summary) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s: MSH7, skinned %v\n  %d positions, %d meshlets, %d triangles, %d local vertices, %d enabled cones, %d ref bytes\n",
		s.File, s.Skinned, s.Positions, s.Meshlets, s.Triangles, s.LocalVertices, s.Cones, s.RefBytes)
	return err
}
