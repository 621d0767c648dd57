package hmat

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/formats/format"
)

// Format describes .hmat for formats/kinds.
func Format() format.Description {
	return format.Codec(format.Description{Name: "hmat", Magic: []byte("HMAT")},
		Decode, // Decode validates
		func(path string, ms []Material) format.Summary { return Summarize(path, ms) },
		Dump)
}

// Summary is `inspect` of a .hmat: every material.
type Summary struct {
	File      string            `json:"file"`
	Kind      string            `json:"kind"`
	Materials []MaterialSummary `json:"materials"`
}

// MaterialSummary is a Material with camelCase JSON names.
type MaterialSummary struct {
	BaseColorFactor   [4]float32 `json:"baseColorFactor"`
	EmissiveFactor    [3]float32 `json:"emissiveFactor"`
	Metallic          float32    `json:"metallic"`
	Roughness         float32    `json:"roughness"`
	NormalScale       float32    `json:"normalScale"`
	OcclusionStrength float32    `json:"occlusionStrength"`
	AlphaCutoff       float32    `json:"alphaCutoff"`
	Flags             uint32     `json:"flags"`

	BaseColorTex         uint64 `json:"baseColorTex"`
	MetallicRoughnessTex uint64 `json:"metallicRoughnessTex"`
	NormalTex            uint64 `json:"normalTex"`
	OcclusionTex         uint64 `json:"occlusionTex"`
	EmissiveTex          uint64 `json:"emissiveTex"`
}

// Summarize lists ms.
func Summarize(path string, ms []Material) *Summary {
	s := &Summary{File: path, Kind: "hmat", Materials: make([]MaterialSummary, len(ms))}
	for i, m := range ms {
		s.Materials[i] = MaterialSummary(m)
	}
	return s
}

// WriteText prints the human summary.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: hmat v1, %d materials\n", s.File, len(s.Materials))
	for i, m := range s.Materials {
		fmt.Fprintf(w, "  [%d] baseColor %v metallic %g roughness %g flags %#x\n", i, m.BaseColorFactor, m.Metallic, m.Roughness, m.Flags)
		if _, err := fmt.Fprintf(w, "      textures baseColor %016x metallicRoughness %016x normal %016x occlusion %016x emissive %016x\n",
			m.BaseColorTex, m.MetallicRoughnessTex, m.NormalTex, m.OcclusionTex, m.EmissiveTex); err != nil {
			return err
		}
	}
	return nil
}
