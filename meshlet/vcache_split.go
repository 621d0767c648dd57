package meshlet

import (
	"context"
	"runtime"
	"slices"

	"github.com/meshcook/meshcook/internal/par"
)

// vcachePartTriangles is the most triangles OptimizeVertexCacheSplit
// orders as one greedy run; a larger buffer is cut into
// ceil(n/vcachePartTriangles) spatial parts.
const vcachePartTriangles = 1 << 16

// OptimizeVertexCacheSplitContext is OptimizeVertexCacheGreedyContext for
// large buffers on every core: a buffer of more than vcachePartTriangles
// triangles is cut into spatially coherent parts by a k-d split of its
// triangle centroids (the split Build uses, split.go), each part is
// ordered by the greedy search on its own goroutine, and the parts follow
// each other in part order. The part count depends on the triangle count
// alone, so the output is the same for every GOMAXPROCS. Smaller buffers
// get exactly OptimizeVertexCacheGreedyContext's order. positions are the
// vertices (len(positions) is the vertex count); non-finite ones cost
// order quality only.
func OptimizeVertexCacheSplitContext[P ~[3]float32](ctx context.Context, indices []uint32, positions []P) ([]uint32, error) {
	out, _, err := splitVertexCache(ctx, indices, positions, vcachePartTriangles)
	return out, err
}

// splitVertexCache is OptimizeVertexCacheSplitContext with parts of at
// most partTris triangles; work sums the parts' greedy work (see
// greedyVertexCache).
func splitVertexCache[P ~[3]float32](ctx context.Context, indices []uint32, positions []P, partTris int) (out []uint32, work int, err error) {
	n, vc := len(indices)/3, len(positions)
	if n <= partTris {
		return greedyVertexCache(ctx, indices, vc, newVcacheTables())
	}
	if err := ctxErr(ctx); err != nil {
		return nil, 0, err
	}
	for _, v := range indices[:3*n] {
		if int(v) >= vc {
			return append([]uint32(nil), indices[:3*n]...), 0, nil // the input order
		}
	}
	parts := (n + partTris - 1) / partTris

	// Centroids (as sums: only their order matters) in fixed chunks.
	items := make([]splitItem, n)
	par.Ranges(n, partTris, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			a, b, c := positions[indices[3*t]], positions[indices[3*t+1]], positions[indices[3*t+2]]
			var s [3]float32
			for k := range s {
				s[k] = a[k] + b[k] + c[k]
				if s[k]-s[k] != 0 { // NaN or infinite
					s[k] = 0
				}
			}
			items[t] = splitItem{s, uint32(t)}
		}
	})
	// Each part's triangles in input order; part p fills
	// out[3*off[p] : 3*off[p+1]].
	order, off := splitParts(items, parts)
	items = nil

	out = make([]uint32, 3*n)
	errs := make([]error, parts)
	works := make([]int, parts)
	workers := make([]vcachePartWorker, min(runtime.GOMAXPROCS(0), parts))
	par.Workers(parts, len(workers), func(w, p int) {
		works[p], errs[p] = workers[w].order(ctx, order[off[p]:off[p+1]], indices, vc, out[3*off[p]:3*off[p+1]])
	})
	for p, err := range errs {
		if err != nil {
			return nil, 0, err
		}
		work += works[p]
	}
	return out, work, nil
}

// vcachePartWorker is one goroutine's scratch, reused across its parts.
type vcachePartWorker struct {
	remap  []int32 // global vertex → part vertex, -1 outside the part
	global []uint32
	pidx   []uint32
	search vcacheScratch
}

// order writes the greedy order of triangles tris (of indices, over vc
// vertices) into out, over a compact copy of their vertices.
func (w *vcachePartWorker) order(ctx context.Context, tris, indices []uint32, vc int, out []uint32) (int, error) {
	if err := ctxErr(ctx); err != nil {
		return 0, err
	}
	if w.remap == nil {
		w.remap = make([]int32, vc)
		for i := range w.remap {
			w.remap[i] = -1
		}
	}
	// Part vertices keep the order of their global numbers: the search
	// breaks ties and restarts by vertex number (see greedyVertexCache).
	remap, global := w.remap, w.global[:0]
	for _, t := range tris {
		for _, v := range indices[3*int(t) : 3*int(t)+3] {
			if remap[v] < 0 {
				remap[v] = 0
				global = append(global, v)
			}
		}
	}
	slices.Sort(global)
	for i, v := range global {
		remap[v] = int32(i)
	}
	pidx := resize(w.pidx, 3*len(tris))
	for i, t := range tris {
		for k := 0; k < 3; k++ {
			pidx[3*i+k] = uint32(remap[indices[3*int(t)+k]])
		}
	}
	for _, v := range global {
		remap[v] = -1
	}
	w.global, w.pidx = global, pidx
	// The order goes straight into out (it has room for every index:
	// appends stay in place), then back to global numbers.
	res, work, err := w.search.greedy(ctx, pidx, len(global), newVcacheTables(), out[:0])
	if err != nil {
		return 0, err
	}
	for i, v := range res {
		res[i] = global[v]
	}
	return work, nil
}
