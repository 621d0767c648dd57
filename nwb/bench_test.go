package nwb

import (
	"math"
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

// gridScene is an n×n vertex grid (2·(n-1)² triangles) with per-vertex
// normals, UVs and a smooth colour ramp, a stand-in for a large authored mesh.
func gridScene(n int) *mesh.Scene {
	var s mesh.Submesh
	s.Material = -1
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			fx, fy := float32(x)/float32(n-1), float32(y)/float32(n-1)
			z := float32(math.Sin(float64(fx*6)) * 0.1)
			s.Positions = append(s.Positions, mesh.Vec3{fx, fy, z})
			s.Normals = append(s.Normals, mesh.Vec3{0, 0, 1})
			s.Tangents = append(s.Tangents, mesh.Vec4{1, 0, 0, 1})
			s.UV0 = append(s.UV0, mesh.Vec2{fx, fy})
			s.Colors = append(s.Colors, mesh.Vec4{fx, fy, 1, 1})
		}
	}
	for y := 0; y+1 < n; y++ {
		for x := 0; x+1 < n; x++ {
			i := uint32(y*n + x)
			s.Indices = append(s.Indices, i, i+1, i+uint32(n), i+1, i+uint32(n)+1, i+uint32(n))
		}
	}
	return &mesh.Scene{Submeshes: []mesh.Submesh{s}}
}

func gridSource(b *testing.B, n int) []byte {
	files, err := FromScene(gridScene(n), ExportOptions{AssetType: AssetMesh, Output: "grid.nwb"})
	if err != nil {
		b.Fatal(err)
	}
	src, err := Marshal(files[0].Doc)
	if err != nil {
		b.Fatal(err)
	}
	return src
}

// BenchmarkParseDocument: lex, parse, evaluate and validate a 40k-vertex mesh.
func BenchmarkParseDocument(b *testing.B) {
	src := gridSource(b, 200)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseDocument(src, "grid.nwb", ""); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRefresh: refresh of the same (already canonical) file.
func BenchmarkRefresh(b *testing.B) {
	src := gridSource(b, 200)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Refresh(src, "grid.nwb", RefreshOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshal: writing the 40k-vertex mesh.
func BenchmarkMarshal(b *testing.B) {
	files, err := FromScene(gridScene(200), ExportOptions{AssetType: AssetMesh, Output: "grid.nwb"})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(files[0].Doc); err != nil {
			b.Fatal(err)
		}
	}
}
