package payload

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/formats/format"
)

// Format describes standalone static mesh payloads (.payload, recognised
// by extension: the static payload has no magic) for formats/kinds.
func Format() format.Description {
	return format.Codec(format.Description{Name: "payload", Exts: []string{".payload"}}, Parse,
		func(path string, m *Static) format.Summary {
			s := &Summary{File: path, Kind: "payload", Vertices: len(m.Vertices), Triangles: len(m.Indices) / 3, LODs: len(m.LODs), lods: m.LODs}
			if h := m.Heightfield; h != nil {
				s.Heightfield = &[2]uint32{h.Rows, h.Cols}
			}
			return s
		},
		Dump)
}

// SkinnedFormat describes skinned mesh payloads (.skmv).
func SkinnedFormat() format.Description {
	return format.Codec(format.Description{Name: "skmv", Magic: []byte(MagicSkinned), Exts: []string{".skmv"}}, DecodeSkinnedWithLODs,
		func(path string, m *Skinned) format.Summary {
			s := &SkinnedSummary{File: path, Kind: "skmv", Vertices: len(m.Vertices), Triangles: len(m.Indices) / 3, Joints: len(m.Joints), LODs: len(m.LODs)}
			if m.Morphs != nil {
				s.MorphTargets = len(m.Morphs.Targets)
			}
			return s
		},
		DumpSkinned)
}

// Summary is `inspect` of a static mesh payload.
type Summary struct {
	File        string     `json:"file"`
	Kind        string     `json:"kind"`
	Vertices    int        `json:"vertices"`
	Triangles   int        `json:"triangles"`
	LODs        int        `json:"lods"`
	Heightfield *[2]uint32 `json:"heightfield,omitempty"` // rows, columns

	lods []LOD
}

// WriteText prints the human summary.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: static mesh payload, %d vertices, %d triangles\n", s.File, s.Vertices, s.Triangles)
	for i, l := range s.lods {
		fmt.Fprintf(w, "  LOD%d: %d triangles from %g m\n", i+1, len(l.Indices)/3, l.SwitchDistance)
	}
	if h := s.Heightfield; h != nil {
		fmt.Fprintf(w, "  heightfield %d × %d\n", h[0], h[1])
	}
	return nil
}

// SkinnedSummary is `inspect` of a skinned mesh payload.
type SkinnedSummary struct {
	File         string `json:"file"`
	Kind         string `json:"kind"`
	Vertices     int    `json:"vertices"`
	Triangles    int    `json:"triangles"`
	Joints       int    `json:"joints"`
	MorphTargets int    `json:"morphTargets"`
	LODs         int    `json:"lods"`
}

// WriteText prints the human summary.
func (s *SkinnedSummary) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s: skinned mesh payload, %d vertices, %d triangles, %d joints, %d morph targets, %d LODs\n",
		s.File, s.Vertices, s.Triangles, s.Joints, s.MorphTargets, s.LODs)
	return err
}
