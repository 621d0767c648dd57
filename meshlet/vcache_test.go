package meshlet

import (
	"math/rand"
	"reflect"
	"sort"
	"testing"
)

// gridIndices is an n×n quad grid as a triangle list over (n+1)² vertices.
func gridIndices(n int) ([]uint32, int) {
	var idx []uint32
	w := uint32(n + 1)
	for y := uint32(0); y < uint32(n); y++ {
		for x := uint32(0); x < uint32(n); x++ {
			a := y*w + x
			idx = append(idx, a, a+w, a+1, a+1, a+w, a+w+1)
		}
	}
	return idx, (n + 1) * (n + 1)
}

func shuffleTriangles(idx []uint32, seed int64) []uint32 {
	r := rand.New(rand.NewSource(seed))
	out := append([]uint32(nil), idx...)
	n := len(out) / 3
	r.Shuffle(n, func(i, j int) {
		for k := 0; k < 3; k++ {
			out[3*i+k], out[3*j+k] = out[3*j+k], out[3*i+k]
		}
	})
	return out
}

func sortedTriangles(idx []uint32) [][3]uint32 {
	t := make([][3]uint32, len(idx)/3)
	for i := range t {
		t[i] = [3]uint32{idx[3*i], idx[3*i+1], idx[3*i+2]}
	}
	sort.Slice(t, func(i, j int) bool {
		a, b := t[i], t[j]
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		if a[1] != b[1] {
			return a[1] < b[1]
		}
		return a[2] < b[2]
	})
	return t
}

// The optimizer only reorders whole triangles: same multiset of triangles,
// corner order (and so winding) untouched.
func TestOptimizeVertexCacheKeepsTriangles(t *testing.T) {
	idx, vc := gridIndices(40)
	in := shuffleTriangles(idx, 1)
	out := OptimizeVertexCache(in, vc)
	if !reflect.DeepEqual(sortedTriangles(in), sortedTriangles(out)) {
		t.Fatal("triangles changed")
	}
}

// On a shuffled grid the optimizer brings ACMR from near 3 down to near
// the ~0.6-0.7 that strip-like orders reach with a 16-entry cache.
func TestOptimizeVertexCacheLowersACMR(t *testing.T) {
	idx, vc := gridIndices(64)
	in := shuffleTriangles(idx, 2)
	before := AnalyzeVertexCache(in, vc, 16)
	after := AnalyzeVertexCache(OptimizeVertexCache(in, vc), vc, 16)
	t.Logf("ACMR %.3f → %.3f, ATVR %.3f → %.3f", before.ACMR, after.ACMR, before.ATVR, after.ATVR)
	if before.ACMR < 2 {
		t.Fatalf("shuffled grid ACMR %.3f: the shuffle did not scramble", before.ACMR)
	}
	if after.ACMR > 0.8 {
		t.Errorf("optimized ACMR %.3f, want <= 0.8", after.ACMR)
	}
}

// ACMR on the shuffled tuning meshes (grids, UV-sphere-like grids, an
// irregular and an edge-flipped grid; see tuningMeshes) is pinned just
// above what the optimizer (greedy order and post-pass) reaches today, so
// a change that loses quality fails here. The shuffled input sits near 3;
// the greedy order alone exceeds the second, fifth and sixth pins, and
// with our previous tables (previousVcacheTables) the first four too.
func TestOptimizeVertexCacheACMRPinned(t *testing.T) {
	pins := []float64{0.616, 0.638, 0.612, 0.616, 0.667, 0.665}
	meshes := tuningMeshes()
	if len(meshes) != len(pins) {
		t.Fatalf("%d tuning meshes, %d pins", len(meshes), len(pins))
	}
	for i, m := range meshes {
		vc := 0
		for _, v := range m {
			vc = max(vc, int(v)+1)
		}
		in := AnalyzeVertexCache(m, vc, vcacheSize).ACMR
		got := AnalyzeVertexCache(OptimizeVertexCache(m, vc), vc, vcacheSize).ACMR
		if in < 2.5 {
			t.Errorf("mesh %d: shuffled input ACMR %.4f, want >= 2.5 (the shuffle did not scramble)", i, in)
		}
		if got > pins[i] {
			t.Errorf("mesh %d: ACMR %.4f, want <= %.3f", i, got, pins[i])
		}
	}
}

// On the held-out meshes (the third seed of every generator family and
// two corpus meshes; see vcacheHeldOutMeshes), which the tuner never
// scored, the tables beat our previous ones and Forsyth's formula by a
// margin: mean per-mesh ACMR relative to the previous tables is
// 0.976 today; the pin leaves over 1% of margin.
func TestVertexCacheTablesHeldOut(t *testing.T) {
	held := vcacheHeldOutMeshes(t)
	ref := vcacheACMRs(held, previousVcacheTables())
	ours := vcacheRelativeCost(held, ref, newVcacheTables())
	forsyth := vcacheRelativeCost(held, ref, forsythTables())
	t.Logf("%d held-out meshes, mean ACMR relative to the previous tables: ours %.4f, Forsyth %.4f", len(held), ours, forsyth)
	if ours > 0.99 {
		t.Errorf("held-out relative ACMR %.4f, want <= 0.99", ours)
	}
	if ours >= forsyth {
		t.Errorf("held-out relative ACMR %.4f no better than Forsyth's %.4f", ours, forsyth)
	}
}

// The FIFO miss penalty earns its place: on shuffled edge-flipped grids
// (irregular valences) mean ACMR with it is at least 0.3% lower than
// without (1.2% today).
func TestOptimizeVertexCacheFifoPenaltyHelps(t *testing.T) {
	with, without := newVcacheTables(), newVcacheTables()
	without.missPenalty = 0
	var sumWith, sumWithout float64
	for seed := int64(60); seed < 64; seed++ {
		idx := shuffleTriangles(flippedGrid(50, seed), seed+10)
		vc := 51 * 51
		sumWith += AnalyzeVertexCache(optimizeVertexCache(idx, vc, with), vc, vcacheSize).ACMR
		sumWithout += AnalyzeVertexCache(optimizeVertexCache(idx, vc, without), vc, vcacheSize).ACMR
	}
	t.Logf("mean ACMR with penalty %.4f, without %.4f", sumWith/4, sumWithout/4)
	if sumWith > sumWithout*0.997 {
		t.Errorf("mean ACMR with penalty %.4f, without %.4f: want at least 0.3%% lower", sumWith/4, sumWithout/4)
	}
}

// Vertex numbering steers ties and restarts, but quality must not depend
// on it: with the vertices of a shuffled edge-flipped grid renumbered at
// random, ACMR stays within 2% of the coherent numbering's.
func TestOptimizeVertexCacheVertexOrderRobust(t *testing.T) {
	idx := shuffleTriangles(flippedGrid(80, 24), 26)
	vc := 81 * 81
	perm := rand.New(rand.NewSource(25)).Perm(vc)
	scrambled := make([]uint32, len(idx))
	for i, v := range idx {
		scrambled[i] = uint32(perm[v])
	}
	a := AnalyzeVertexCache(OptimizeVertexCache(idx, vc), vc, vcacheSize).ACMR
	b := AnalyzeVertexCache(OptimizeVertexCache(scrambled, vc), vc, vcacheSize).ACMR
	t.Logf("ACMR coherent %.4f, scrambled vertices %.4f", a, b)
	if b > a*1.02 || b > 0.7 {
		t.Errorf("scrambled-vertex ACMR %.4f, coherent %.4f: want within 2%% and <= 0.7", b, a)
	}
}

// Same input, same output; empty and single-triangle inputs work.
func TestOptimizeVertexCacheDeterministicAndSmall(t *testing.T) {
	idx, vc := gridIndices(20)
	in := shuffleTriangles(idx, 3)
	if !reflect.DeepEqual(OptimizeVertexCache(in, vc), OptimizeVertexCache(in, vc)) {
		t.Error("not deterministic")
	}
	if got := OptimizeVertexCache(nil, 0); len(got) != 0 {
		t.Errorf("empty input gave %v", got)
	}
	if got := OptimizeVertexCache([]uint32{2, 0, 1}, 3); !reflect.DeepEqual(got, []uint32{2, 0, 1}) {
		t.Errorf("single triangle gave %v", got)
	}
	// An index past vertexCount: the order comes back unchanged, no panic.
	bad := []uint32{0, 1, 2, 2, 1, 7}
	if got := OptimizeVertexCache(bad, 4); !reflect.DeepEqual(got, bad) {
		t.Errorf("out-of-range index gave %v, want the input", got)
	}
	// Disconnected triangles (no shared vertices) all come out.
	soup := []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8}
	if got := OptimizeVertexCache(soup, 9); !reflect.DeepEqual(sortedTriangles(got), sortedTriangles(soup)) {
		t.Errorf("soup gave %v", got)
	}
}

// Random index soups over few vertices (repeated and degenerate
// triangles, fans, isolated vertices) still come out as a permutation of
// the input triangles, the same every time.
func TestOptimizeVertexCacheRandomSoups(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for iter := 0; iter < 200; iter++ {
		vc := 1 + r.Intn(40)
		idx := make([]uint32, 3*r.Intn(120))
		for i := range idx {
			idx[i] = uint32(r.Intn(vc))
		}
		out := OptimizeVertexCache(idx, vc)
		if !reflect.DeepEqual(sortedTriangles(out), sortedTriangles(idx)) {
			t.Fatalf("iter %d: triangles changed", iter)
		}
		if !reflect.DeepEqual(out, OptimizeVertexCache(idx, vc)) {
			t.Fatalf("iter %d: not deterministic", iter)
		}
	}
}

func TestAnalyzeVertexCacheKnownValues(t *testing.T) {
	// Two triangles sharing an edge: 4 misses, 2 triangles, 4 vertices.
	st := AnalyzeVertexCache([]uint32{0, 1, 2, 2, 1, 3}, 4, 16)
	if st.Misses != 4 || st.ACMR != 2 || st.ATVR != 1 {
		t.Errorf("got %+v", st)
	}
	// Cache of 3: the 4th vertex evicts 0, so re-reading 0 misses again.
	st = AnalyzeVertexCache([]uint32{0, 1, 2, 1, 2, 3, 0, 1, 3}, 4, 3)
	if st.Misses != 6 {
		t.Errorf("FIFO 3: %d misses, want 6 (0,1,2 | 3 evicts 0 | 0 evicts 1 | 1 evicts 2)", st.Misses)
	}
}

// The fetch remap numbers vertices by first use; unreferenced get ^0.
func TestOptimizeVertexFetchRemap(t *testing.T) {
	remap, n := OptimizeVertexFetchRemap([]uint32{3, 1, 3, 0}, 5)
	want := []uint32{2, 1, ^uint32(0), 0, ^uint32(0)}
	if n != 3 || !reflect.DeepEqual(remap, want) {
		t.Errorf("remap %v (%d), want %v (3)", remap, n, want)
	}
}

func BenchmarkOptimizeVertexCache(b *testing.B) {
	idx, vc := gridIndices(300) // 180k triangles
	in := shuffleTriangles(idx, 4)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		OptimizeVertexCache(in, vc)
	}
}
