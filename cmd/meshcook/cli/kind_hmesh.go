package cli

import (
	"fmt"
	"io"

	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
)

func hmeshKind() fileKind {
	return fileKind{
		name:  "hmesh",
		magic: []byte("HMSH"),
		validate: func(_ string, b []byte) error {
			_, err := hmesh.Decode(b) // Decode validates
			return err
		},
		inspect: func(w io.Writer, path string, b []byte, mode inspectMode) error {
			f, err := hmesh.Decode(b)
			if err != nil {
				return err
			}
			switch mode {
			case inspectDump:
				return hmesh.Dump(w, f)
			case inspectJSON:
				return writeJSON(w, summarizeHMesh(path, f, defaultCutErrors))
			}
			printHMesh(w, summarizeHMesh(path, f, defaultCutErrors))
			return nil
		},
	}
}

func hmatKind() fileKind {
	return fileKind{
		name:  "hmat",
		magic: []byte("HMAT"),
		validate: func(_ string, b []byte) error {
			_, err := hmat.Decode(b) // Decode validates
			return err
		},
		inspect: func(w io.Writer, path string, b []byte, mode inspectMode) error {
			ms, err := hmat.Decode(b)
			if err != nil {
				return err
			}
			switch mode {
			case inspectDump:
				return hmat.Dump(w, ms)
			case inspectJSON:
				return writeJSON(w, hmatSummary{File: path, Kind: "hmat", Materials: ms})
			}
			fmt.Fprintf(w, "%s: hmat v1, %d materials\n", path, len(ms))
			for i, m := range ms {
				fmt.Fprintf(w, "  [%d] baseColor %v metallic %g roughness %g flags %#x\n", i, m.BaseColorFactor, m.Metallic, m.Roughness, m.Flags)
				fmt.Fprintf(w, "      textures baseColor %016x metallicRoughness %016x normal %016x occlusion %016x emissive %016x\n",
					m.BaseColorTex, m.MetallicRoughnessTex, m.NormalTex, m.OcclusionTex, m.EmissiveTex)
			}
			return nil
		},
	}
}
