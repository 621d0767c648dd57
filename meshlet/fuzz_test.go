package meshlet

import (
	"reflect"
	"testing"
)

// FuzzBuild decodes a small mesh from the fuzz input (a header byte for the
// options, then vertex and index bytes) and checks every Build invariant
// and that building twice gives the same result.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 3, 0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 0, 1, 2})
	f.Add([]byte{1, 4, 0, 0, 0, 9, 0, 0, 0, 9, 0, 0, 9, 9, 0, 0, 1, 2, 2, 1, 3})
	f.Add([]byte{2, 3, 5, 5, 5, 5, 5, 5, 5, 5, 5, 0, 0, 0, 1, 1, 2, 0, 1, 2})
	f.Add([]byte{3, 6, 0, 0, 0, 1, 0, 0, 0, 1, 0, 50, 50, 50, 51, 50, 50, 50, 51, 50, 0, 1, 2, 3, 4, 5, 0, 2, 1})
	gi, gp := grid(5)
	f.Add(encodeMesh(0, gi, gp))
	f.Add(encodeMesh(4, gi, gp))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 4096 {
			return
		}
		opts := []Options{
			DefaultOptions(),
			{MaxVertices: 3, MaxTriangles: 1},
			{MaxVertices: 4, MaxTriangles: 3, ConeWeight: 1},
			{MaxVertices: 256, MaxTriangles: 512, ConeWeight: 0.5},
			{MaxVertices: 16, MaxTriangles: 20, ConeWeight: 0.25, MinTriangles: 4, SplitFactor: 0.5},
		}[data[0]%5]
		nv := int(data[1])
		data = data[2:]
		if 3*nv > len(data) {
			return
		}
		pos := make([][3]float32, nv)
		for i := range pos {
			for k := 0; k < 3; k++ {
				pos[i][k] = float32(int8(data[3*i+k])) * 0.37
			}
		}
		data = data[3*nv:]
		idx := make([]uint32, len(data)/3*3)
		for i := range idx {
			idx[i] = uint32(data[i])
		}
		r, err := Build(idx, pos, opts)
		if err != nil {
			for _, v := range idx {
				if int(v) >= nv {
					return // out-of-range index: an error is the contract
				}
			}
			t.Fatalf("Build: %v", err)
		}
		checkResult(t, idx, pos, opts, r)
		r2, _ := Build(idx, pos, opts)
		if !reflect.DeepEqual(r, r2) {
			t.Fatal("Build is not deterministic")
		}
	})
}

// encodeMesh writes a mesh in FuzzBuild's input layout (positions must be
// small integers, at most 255 vertices).
func encodeMesh(opt byte, idx []uint32, pos [][3]float32) []byte {
	b := []byte{opt, byte(len(pos))}
	for _, p := range pos {
		b = append(b, byte(int8(p[0])), byte(int8(p[1])), byte(int8(p[2])))
	}
	for _, v := range idx {
		b = append(b, byte(v))
	}
	return b
}

// BenchmarkBuild clusterizes a ~200k-triangle UV sphere with the defaults.
func BenchmarkBuild(b *testing.B) {
	idx, pos := uvSphere(317, 317) // 2·317·316 = 200,344 triangles
	b.ReportAllocs()
	b.SetBytes(int64(4 * len(idx)))
	for b.Loop() {
		if _, err := Build(idx, pos, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildLarge clusterizes a ~1M-triangle UV sphere (the parallel
// split: 8 parts, on GOMAXPROCS threads).
func BenchmarkBuildLarge(b *testing.B) {
	idx, pos := uvSphere(708, 708) // 2·708·707 = 1,001,112 triangles
	b.ReportAllocs()
	b.SetBytes(int64(4 * len(idx)))
	for b.Loop() {
		if _, err := Build(idx, pos, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBounds computes bounds for every meshlet of the same sphere.
func BenchmarkBounds(b *testing.B) {
	idx, pos := uvSphere(317, 317)
	r, err := Build(idx, pos, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		ComputeAllBounds(r, pos)
	}
}
