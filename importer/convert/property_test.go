package convert

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/nwb"
)

// randomSubmesh is a small soup on an integer grid, so positions repeat
// and some triangles collapse; optional streams are present or not at
// random, with some zero normals and tangents.
func randomSubmesh(r *rand.Rand, name string) mesh.Submesh {
	n := 3 + r.IntN(20)
	s := mesh.Submesh{Name: name, Material: -1}
	coord := func() float32 { return float32(r.IntN(4)) * 0.5 }
	for range n {
		s.Positions = append(s.Positions, mesh.Vec3{coord(), coord(), coord()})
	}
	if r.IntN(2) == 0 {
		for range n {
			v := mesh.Vec3{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())}
			if r.IntN(8) == 0 {
				v = mesh.Vec3{}
			}
			s.Normals = append(s.Normals, v)
		}
		if r.IntN(2) == 0 {
			for range n {
				w := float32(1)
				if r.IntN(2) == 0 {
					w = -1
				}
				s.Tangents = append(s.Tangents, mesh.Vec4{float32(r.NormFloat64()), float32(r.NormFloat64()), 1, w})
			}
		}
	}
	if r.IntN(3) != 0 {
		for range n {
			s.UV0 = append(s.UV0, mesh.Vec2{float32(r.IntN(3)) * 0.5, float32(r.IntN(3)) * 0.5})
		}
	}
	if r.IntN(3) == 0 {
		for range n {
			s.Colors = append(s.Colors, mesh.Vec4{float32(r.IntN(2)), 0.5, 0, 1})
		}
	}
	for range 1 + r.IntN(12) {
		s.Indices = append(s.Indices, uint32(r.IntN(n)), uint32(r.IntN(n)), uint32(r.IntN(n)))
	}
	return s
}

// TestPrepareProperties: on random scenes and options, Prepare either
// reports that nothing is left or returns submeshes with every stream
// present, unit normals and tangents, exactly the triangles above the
// epsilon, and an export that parses back and is already canonical.
func TestPrepareProperties(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		sc := &mesh.Scene{}
		for k := range 1 + r.IntN(3) {
			sc.Submeshes = append(sc.Submeshes, randomSubmesh(r, fmt.Sprint("m", k)))
		}
		src := fbxSource(sc)
		opts := DefaultOptions()
		opts.NormalMode = []NormalMode{NormalsImported, NormalsSmooth, NormalsRegenerate}[r.IntN(3)]
		opts.FlipWinding = r.IntN(2) == 0
		opts.IgnoreColors = r.IntN(2) == 0
		opts.AreaEpsilon = []float64{DefaultAreaEpsilon, 0, 0.1}[r.IntN(3)]
		if r.IntN(3) == 0 {
			opts.Mesh = "first"
		}

		want := 0
		sel, _ := src.Select(opts.Mesh, false)
		for _, i := range sel {
			s := &sc.Submeshes[src.Meshes[i].first]
			for t := 0; t < len(s.Indices); t += 3 {
				f := faceCross(s.Positions[s.Indices[t]], s.Positions[s.Indices[t+1]], s.Positions[s.Indices[t+2]])
				if dot(f, f) > opts.AreaEpsilon {
					want++
				}
			}
		}
		out, rep, err := Prepare(src, opts)
		if want == 0 {
			if err == nil || !strings.HasSuffix(err.Error(), "selected meshes produced no triangles") {
				t.Fatalf("seed %d: nothing to keep, got %v", seed, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if rep.Triangles != want {
			t.Fatalf("seed %d: kept %d triangles, want %d", seed, rep.Triangles, want)
		}
		for _, s := range out.Submeshes {
			if err := s.Validate(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			n := len(s.Positions)
			if len(s.Normals) != n || len(s.Tangents) != n || len(s.UV0) != n || len(s.Colors) != n {
				t.Fatalf("seed %d: a stream is missing", seed)
			}
			for v := range n {
				nv, tv := s.Normals[v], s.Tangents[v]
				if l := math.Sqrt(float64(nv[0]*nv[0] + nv[1]*nv[1] + nv[2]*nv[2])); math.Abs(l-1) > 1e-5 {
					t.Fatalf("seed %d: normal %v", seed, nv)
				}
				if l := math.Sqrt(float64(tv[0]*tv[0] + tv[1]*tv[1] + tv[2]*tv[2])); math.Abs(l-1) > 1e-5 || (tv[3] != 1 && tv[3] != -1) {
					t.Fatalf("seed %d: tangent %v", seed, tv)
				}
			}
		}
		if rep.Tangents == TangentsGeneratedFallback && rep.FallbackFrames == 0 {
			t.Fatalf("seed %d: fallback path without fallback frames", seed)
		}

		files, err := nwb.FromScene(out, nwb.ExportOptions{Output: "x.nwb", AssetType: nwb.AssetMesh})
		if err != nil {
			t.Fatalf("seed %d: FromScene: %v", seed, err)
		}
		text, err := nwb.Marshal(files[0].Doc)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := nwb.ParseDocument(text, "x.nwb", "")
		if err != nil {
			t.Fatalf("seed %d: written file does not parse: %v", seed, err)
		}
		if got := len(doc.Assets[0].Mesh.Indices) / 3; got != want {
			t.Fatalf("seed %d: %d triangles written, want %d", seed, got, want)
		}
		if ok, summary, err := nwb.Check(text, "x.nwb", nwb.RefreshOptions{}); err != nil || !ok {
			t.Fatalf("seed %d: not canonical: %v\n%s", seed, err, summary)
		}
	}
}
