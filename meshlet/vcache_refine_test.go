package meshlet

import (
	"math/rand"
	"reflect"
	"testing"
)

func (r *vcacheRefiner) indices() []uint32 {
	out := make([]uint32, 0, 3*len(r.tris))
	for _, t := range r.tris {
		out = append(out, t[0], t[1], t[2])
	}
	return out
}

// checkRefinerBookkeeping compares the per-position misses and FIFO
// states the refiner keeps after its moves with a fresh simulation of its
// order, and checks that each position's triangle id names the input
// triangle there (orig, the indices the refiner started from) and that
// the positions of the ids are the inverse.
func checkRefinerBookkeeping(t *testing.T, name string, r *vcacheRefiner, orig []uint32, vc int) {
	t.Helper()
	fresh := newVcacheRefiner(r.indices(), vc)
	for p, id := range r.id {
		if int(r.pos[id]) != p {
			t.Fatalf("%s: position %d holds triangle %d, whose position reads %d", name, p, id, r.pos[id])
		}
		if want := [3]uint32(orig[3*id : 3*id+3]); r.tris[p] != want {
			t.Fatalf("%s: position %d: triangle %v, id %d is %v", name, p, r.tris[p], id, want)
		}
	}
	for p := range r.tris {
		if r.miss[p] != fresh.miss[p] {
			t.Fatalf("%s: position %d: kept %d misses, simulation %d", name, p, r.miss[p], fresh.miss[p])
		}
		if !reflect.DeepEqual(r.state(p), fresh.state(p)) {
			t.Fatalf("%s: position %d: kept FIFO %v, simulation %v", name, p, r.state(p), fresh.state(p))
		}
	}
}

func misses(idx []uint32, vc int) int {
	return AnalyzeVertexCache(idx, vc, vcacheSize).Misses
}

// The post-pass never adds a miss to the greedy order, keeps every
// triangle with its corner order, and its kept misses and FIFO states stay
// those of its order after every move; over the generated meshes it
// removes misses.
func TestRefineVertexCacheNeverWorse(t *testing.T) {
	tables := newVcacheTables()
	var meshes []vcMesh
	for seed := int64(1); seed <= 3; seed++ {
		meshes = append(meshes, generatedVCMeshes(seed)...)
	}
	greedyTotal, refinedTotal := 0, 0
	for _, m := range meshes {
		greedy := optimizeVertexCache(m.idx, m.vc, tables)
		r := newVcacheRefiner(greedy, m.vc)
		for sweep := 0; sweep < 3 && r.sweep(); sweep++ {
		}
		refined := r.indices()
		checkRefinerBookkeeping(t, m.name, r, greedy, m.vc)
		if !reflect.DeepEqual(sortedTriangles(refined), sortedTriangles(m.idx)) {
			t.Fatalf("%s: triangles changed", m.name)
		}
		g, f := misses(greedy, m.vc), misses(refined, m.vc)
		if f > g {
			t.Errorf("%s: %d misses after the post-pass, %d before", m.name, f, g)
		}
		if got := r.misses(); got != f {
			t.Errorf("%s: refiner counts %d misses, analyzer %d", m.name, got, f)
		}
		greedyTotal += g
		refinedTotal += f
	}
	t.Logf("%d meshes: %d misses greedy, %d refined (%.4f)", len(meshes), greedyTotal, refinedTotal, float64(refinedTotal)/float64(greedyTotal))
	if float64(refinedTotal) > 0.99*float64(greedyTotal) {
		t.Errorf("post-pass removed %d of %d misses, want at least 1%%", greedyTotal-refinedTotal, greedyTotal)
	}
}

// On orders far from good (shuffled triangles, random soups with
// repeated and degenerate triangles) almost every move applies, which
// works the log and its rebuilds hard; misses still only go down and the
// bookkeeping stays exact.
func TestRefineVertexCacheScrambledInput(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	inputs := append([]vcMesh(nil), generatedVCMeshes(4)[:6]...)
	for iter := 0; iter < 60; iter++ {
		vc := 1 + rng.Intn(60)
		idx := make([]uint32, 3*rng.Intn(300))
		for i := range idx {
			idx[i] = uint32(rng.Intn(vc))
		}
		inputs = append(inputs, vcMesh{name: "soup", idx: idx, vc: vc})
	}
	for _, m := range inputs {
		r := newVcacheRefiner(m.idx, m.vc)
		before := r.misses()
		for sweep := 0; sweep < 3 && r.sweep(); sweep++ {
		}
		out := r.indices()
		checkRefinerBookkeeping(t, m.name, r, m.idx, m.vc)
		if !reflect.DeepEqual(sortedTriangles(out), sortedTriangles(m.idx)) {
			t.Fatalf("%s: triangles changed", m.name)
		}
		if after := misses(out, m.vc); after > before {
			t.Errorf("%s: %d misses after, %d before", m.name, after, before)
		}
	}
}

// OptimizeVertexCache (greedy order and post-pass) is never worse than
// the greedy order alone, and gives the same output every time.
func TestOptimizeVertexCacheRefinedDeterministic(t *testing.T) {
	for _, m := range generatedVCMeshes(5) {
		out := OptimizeVertexCache(m.idx, m.vc)
		if !reflect.DeepEqual(out, OptimizeVertexCache(m.idx, m.vc)) {
			t.Fatalf("%s: not deterministic", m.name)
		}
		greedy := optimizeVertexCache(m.idx, m.vc, newVcacheTables())
		if f, g := misses(out, m.vc), misses(greedy, m.vc); f > g {
			t.Errorf("%s: %d misses, greedy alone %d", m.name, f, g)
		}
	}
}

// try applies a move only when the whole order then has strictly fewer
// misses, and leaves the order alone otherwise: random run moves (span
// rotations) on greedy orders, each checked against a full simulation of
// the moved order.
func TestVcacheRefinerTryExact(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	applied := 0
	for _, m := range generatedVCMeshes(6)[:8] {
		greedy := optimizeVertexCache(m.idx, m.vc, newVcacheTables())
		r := newVcacheRefiner(greedy, m.vc)
		n, total := len(r.tris), r.misses()
		for iter := 0; iter < 3000; iter++ {
			l := 1 + rng.Intn(3)
			s := rng.Intn(n - l)
			e := min(n, s+l+1+rng.Intn(40))
			if iter%4 == 0 { // past vcacheNear and vcacheSpanMax
				e = min(n, s+l+1+rng.Intn(200))
			}
			front := rng.Intn(2) == 0
			span := append([][3]uint32(nil), r.tris[s:e]...)
			var cand [][3]uint32
			if front {
				cand = append(append(cand, span[len(span)-l:]...), span[:len(span)-l]...)
			} else {
				cand = append(append(cand, span[l:]...), span[:l]...)
			}
			if !r.try(s, e, l, front) {
				if !reflect.DeepEqual(r.tris[s:e], span) {
					t.Fatalf("%s: rejected move changed the order", m.name)
				}
				continue
			}
			applied++
			if !reflect.DeepEqual(r.tris[s:e], cand) {
				t.Fatalf("%s: applied move is not the candidate", m.name)
			}
			got, sim := r.misses(), misses(r.indices(), m.vc)
			if got >= total || got != sim {
				t.Fatalf("%s: applied move: %d misses kept, %d simulated, %d before", m.name, got, sim, total)
			}
			total = got
		}
		checkRefinerBookkeeping(t, m.name, r, greedy, m.vc)
	}
	if applied < 20 {
		t.Errorf("only %d random moves applied; the test does not exercise try", applied)
	}
	t.Logf("%d moves applied", applied)
}
