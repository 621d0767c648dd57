package meshlet

import (
	"slices"
	"testing"
)

// FuzzOptimizeVertexCache decodes a small index buffer from the fuzz input
// (a vertex count byte, then one byte per index, some of them possibly out
// of range) and checks OptimizeVertexCache's contract: an out-of-range
// index leaves the order as given; otherwise the output holds the same
// triangles, each with its corners in the same cyclic order, it never has
// more FIFO misses than the greedy order before the post-pass, and it is
// the same on a second run.
func FuzzOptimizeVertexCache(f *testing.F) {
	f.Add([]byte{4, 0, 1, 2, 2, 1, 3})
	f.Add([]byte{3, 0, 1, 2, 0, 1, 2, 2, 1, 0})
	f.Add([]byte{5, 0, 1, 9, 1, 2, 3})
	gi, _ := grid(6)
	seed := []byte{byte(7 * 7)}
	for _, v := range gi {
		seed = append(seed, byte(v))
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 || len(data) > 3*1024+1 {
			return
		}
		vc := int(data[0])
		idx := make([]uint32, (len(data)-1)/3*3)
		for i := range idx {
			idx[i] = uint32(data[1+i])
		}
		in := slices.Clone(idx)
		out := OptimizeVertexCache(idx, vc)
		if !slices.Equal(idx, in) {
			t.Fatal("input modified")
		}
		if slices.ContainsFunc(idx, func(v uint32) bool { return int(v) >= vc }) {
			if !slices.Equal(out, idx) {
				t.Fatal("out-of-range input was reordered")
			}
			return
		}
		if !slices.Equal(canonicalTriangles(out), canonicalTriangles(idx)) {
			t.Fatal("output is not the input's triangles with their corner order kept")
		}
		greedy := optimizeVertexCache(idx, vc, newVcacheTables())
		if got, base := AnalyzeVertexCache(out, vc, vcacheSize).Misses, AnalyzeVertexCache(greedy, vc, vcacheSize).Misses; got > base {
			t.Fatalf("%d misses after the post-pass, %d before", got, base)
		}
		if !slices.Equal(OptimizeVertexCache(idx, vc), out) {
			t.Fatal("not deterministic")
		}
	})
}

// canonicalTriangles returns the triangles rotated so that the lowest
// index comes first (winding kept), sorted.
func canonicalTriangles(idx []uint32) [][3]uint32 {
	out := make([][3]uint32, 0, len(idx)/3)
	for t := 0; t+2 < len(idx); t += 3 {
		a, b, c := idx[t], idx[t+1], idx[t+2]
		switch {
		case b < a && b <= c:
			a, b, c = b, c, a
		case c < a && c < b:
			a, b, c = c, a, b
		}
		out = append(out, [3]uint32{a, b, c})
	}
	slices.SortFunc(out, func(x, y [3]uint32) int {
		for k := range 3 {
			if x[k] != y[k] {
				return int(x[k]) - int(y[k])
			}
		}
		return 0
	})
	return out
}
