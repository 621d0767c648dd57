package meshlet

import (
	"context"
	"runtime"
	"slices"
	"sync"

	"github.com/meshcook/meshcook/internal/par"
)

// partTriangles is the most triangles Build clusterizes as one greedy run.
// A larger mesh is cut into ceil(n/partTriangles) spatially coherent parts
// that are built concurrently and joined in part order. Parts cost
// meshlets (each ends with a partial meshlet, and meshlets along a cut are
// less full) and the split itself costs time (k-d selection, per-part
// copies). 128k: the 94,722-triangle FlightHelmet is one run (1065
// meshlets instead of 1076 in 2 parts, 0.2% smaller spheres, ~6% less
// time); the 940k-triangle benchmark mesh takes 8 parts (0.4% more
// meshlets than one run, 15 parts at 64k cost 0.7%) at the same speed
// on one core (64k parts were chosen to stay in cache, which measured no
// faster).
const partTriangles = 1 << 17

// selectSortBelow is the range length under which the k-d split's
// selection sorts instead of partitioning.
const selectSortBelow = 32

// Histogram selection (selectHist): ranges of at least histMin items
// are binned into histBins buckets along the axis, so one counting pass
// and one partition pass leave only the median's bucket (about
// n/histBins items) to quickselect, whose comparisons mispredict.
const (
	histBins = 1024
	histMin  = 4096
)

// buildSplit clusterizes a mesh of more than partTriangles triangles: a
// k-d split of the triangle centroids (median of the widest axis, with
// the part count divided in proportion) gives the parts; each is built on
// its own compact vertex set with the whole mesh's expected meshlet radius,
// on up to GOMAXPROCS goroutines, and the results are concatenated in part
// order. The partition depends only on the input, so the output is the
// same for every GOMAXPROCS.
func buildSplit(ctx context.Context, indices []uint32, positions [][3]float32, opts Options) (Result, error) {
	n := len(indices) / 3
	parts := (n + partTriangles - 1) / partTriangles
	// Geometry in fixed chunks of partTriangles, in parallel; the chunk
	// areas are summed in chunk order, so the sum does not depend on the
	// thread count.
	geom := make([]triGeom, n)
	areas := make([]float64, parts)
	par.Each(parts, func(c int) {
		lo, hi := c*partTriangles, min((c+1)*partTriangles, n)
		areas[c] = computeGeom(indices[3*lo:3*hi], positions, geom[lo:hi])
	})
	var area float64
	for _, a := range areas {
		area += a
	}
	radius := meshletRadius(area, n, opts.scoreTriangles())

	// Label every triangle with its part, then list each part's triangles
	// in input order (CSR).
	items := make([]splitItem, n)
	for t := range items {
		items[t] = splitItem{geom[t].c, uint32(t)}
	}
	order, off := splitParts(items, parts)
	items = nil

	// Every triangle lands in one meshlet, 3 bytes each: part p's bytes
	// are written in place at tris[3*off[p]:3*off[p+1]], which join then
	// need not copy.
	tris := make([]uint8, 3*n)
	results := make([]Result, parts)
	workers := make([]partWorker, min(runtime.GOMAXPROCS(0), parts))
	par.Workers(parts, len(workers), func(w, p int) {
		if ctx.Err() != nil {
			return // the parts left are not built
		}
		lo, hi := 3*off[p], 3*off[p+1]
		results[p] = workers[w].build(order[off[p]:off[p+1]], indices, geom, len(positions), opts, radius, tris[lo:lo:hi])
	})
	if err := ctxErr(ctx); err != nil {
		return Result{}, err
	}
	return join(results, len(indices), tris, off), nil
}

// partWorker is one goroutine's state, reused across the parts it builds.
type partWorker struct {
	remap  []int32 // global vertex → part vertex, -1 outside the part
	global []uint32
	pidx   []uint32
	pgeom  []triGeom
	b      builder
}

// build builds the triangles tris of the mesh over a compact copy of their
// vertices (the mesh has nv) and maps the result back to global vertex ids.
// The result's Triangles are appended to dst.
func (w *partWorker) build(tris, indices []uint32, geom []triGeom, nv int, opts Options, radius float64, dst []uint8) Result {
	if w.remap == nil {
		w.remap = make([]int32, nv)
		for i := range w.remap {
			w.remap[i] = -1
		}
	}
	w.pidx = resize(w.pidx, 3*len(tris))
	w.pgeom = resize(w.pgeom, len(tris))
	// Locals, so the loop keeps them in registers; corners written out.
	remap, global := w.remap, w.global[:0]
	pidx, pgeom := w.pidx[:3*len(tris)], w.pgeom[:len(tris)]
	local := func(v uint32) uint32 {
		if remap[v] < 0 {
			remap[v] = int32(len(global))
			global = append(global, v)
		}
		return uint32(remap[v])
	}
	for i, t := range tris {
		tri := indices[3*int(t) : 3*int(t)+3 : 3*int(t)+3]
		p := pidx[3*i : 3*i+3 : 3*i+3]
		p[0] = local(tri[0])
		p[1] = local(tri[1])
		p[2] = local(tri[2])
		pgeom[i] = geom[t]
	}
	for _, v := range global {
		remap[v] = -1
	}
	w.global = global
	b := &w.b
	b.reset(w.pidx, len(w.global), w.pgeom, opts, radius)
	b.corner, b.farCorner = geomBox(w.pgeom)
	b.out = Result{
		Meshlets:  make([]Meshlet, 0, len(tris)/max(opts.MaxTriangles/2, 1)+1),
		Vertices:  make([]uint32, 0, len(w.pidx)/4+3),
		Triangles: dst,
	}
	b.run()
	r := b.out
	b.out = Result{}
	for i, v := range r.Vertices {
		r.Vertices[i] = w.global[v]
	}
	return r
}

// join concatenates part results in order, rebasing the offsets. When
// part p's Triangles are exactly tris[3*off[p]:3*off[p+1]] (built in
// place), tris is the joined Triangles as it is.
func join(parts []Result, indexCount int, tris []uint8, off []uint32) Result {
	inPlace := len(tris) == 3*int(off[len(parts)])
	for p := 0; p < len(parts) && inPlace; p++ {
		r, lo := parts[p].Triangles, 3*int(off[p])
		inPlace = len(r) == 3*int(off[p+1]-off[p]) && (len(r) == 0 || &r[0] == &tris[lo])
	}
	var nm, nv int
	for _, p := range parts {
		nm += len(p.Meshlets)
		nv += len(p.Vertices)
	}
	out := Result{
		Meshlets: make([]Meshlet, 0, nm),
		Vertices: make([]uint32, 0, nv),
	}
	if inPlace {
		out.Triangles = tris
	} else {
		out.Triangles = make([]uint8, 0, indexCount)
	}
	to := uint32(0)
	for _, p := range parts {
		vo := uint32(len(out.Vertices))
		for _, m := range p.Meshlets {
			m.VertexOffset += vo
			m.TriangleOffset += to
			out.Meshlets = append(out.Meshlets, m)
		}
		out.Vertices = append(out.Vertices, p.Vertices...)
		if !inPlace {
			out.Triangles = append(out.Triangles, p.Triangles...)
		}
		to += uint32(len(p.Triangles) / 3)
	}
	return out
}

// splitParts labels the triangles of items (item t is triangle t) with
// parts 0..parts-1 by kdSplit, which reorders items, and lists each part's
// triangles in input order (CSR): part p's are order[off[p]:off[p+1]].
func splitParts(items []splitItem, parts int) (order, off []uint32) {
	n := len(items)
	label := make([]uint32, n)
	kdSplit(items, 0, parts, label)
	off = make([]uint32, parts+1)
	for _, p := range label {
		off[p+1]++
	}
	for p := 0; p < parts; p++ {
		off[p+1] += off[p]
	}
	order = make([]uint32, n)
	fill := append([]uint32(nil), off[:parts]...)
	for t, p := range label {
		order[fill[p]] = uint32(t)
		fill[p]++
	}
	return order, off
}

// kdSplit labels the triangles of items with parts first..first+parts-1:
// the items are divided at the median (in proportion to the part counts)
// of their centroids along the widest axis of the centroids' box,
// recursively. Ties in the coordinate are broken by triangle id, so the
// split is a function of the input alone. Items carry their centroids so
// the passes walk memory in order. The labels depend on the items' set
// alone, not their order: each level's box and selection do not.
func kdSplit(items []splitItem, first, parts int, label []uint32) {
	if parts == 1 {
		for i := range items {
			label[items[i].id] = uint32(first)
		}
		return
	}
	k, left := kdDivide(items, parts)
	if len(items) < kdParallelItems {
		kdSplit(items[:k], first, left, label)
		kdSplit(items[k:], first+left, parts-left, label)
		return
	}
	// The halves hold disjoint items and write disjoint labels: the
	// labels are the same whichever finishes first.
	var wg sync.WaitGroup
	wg.Go(func() { kdSplit(items[:k], first, left, label) })
	kdSplit(items[k:], first+left, parts-left, label)
	wg.Wait()
}

// kdDivide is one level of kdSplit: it selects the items so that the
// first k (left of the parts' share) lie before the rest along the
// widest axis of their centroids' box, and returns k and the parts that
// go left.
func kdDivide(items []splitItem, parts int) (k, left int) {
	mn, mx := centroidBox(items)
	axis, ext := 0, float64(mx[0])-float64(mn[0])
	for a := 1; a < 3; a++ {
		if e := float64(mx[a]) - float64(mn[a]); e > ext {
			axis, ext = a, e
		}
	}
	left = parts / 2
	k = int(uint64(len(items)) * uint64(left) / uint64(parts))
	selectHist(items, k, axis, float64(mn[axis]), ext)
	return k, left
}

// kdParallelItems is the fewest items whose two halves kdSplit splits on
// two goroutines: on the 1.19M-triangle bench mesh the serial split took
// 32 ms of the vertex-cache stage and 26 ms of the meshlet stage.
const kdParallelItems = 1 << 16

// centroidBox is the bounding box of the items' centroids. It repeats
// geomBox's loop for another element type: a shared accumulator method
// does not inline (cost 96 of 80), and a call per centroid on every k-d
// level measurably slows the split.
func centroidBox(items []splitItem) (mn, mx [3]float32) {
	c := &items[0].c
	mnx, mny, mnz, mxx, mxy, mxz := c[0], c[1], c[2], c[0], c[1], c[2]
	for i := 1; i < len(items); i++ {
		c := &items[i].c
		mnx, mxx = minMax(c[0], mnx, mxx)
		mny, mxy = minMax(c[1], mny, mxy)
		mnz, mxz = minMax(c[2], mnz, mxz)
	}
	return [3]float32{mnx, mny, mnz}, [3]float32{mxx, mxy, mxz}
}

// selectHist is selectK for items whose coordinates along axis lie in
// [lo, lo+ext]. Items are bucketed by coordinate (a bucket's items are
// all smaller than the next bucket's); an in-place three-way partition
// puts the buckets before the one holding the k-th item first and the
// ones after it last, and selectK finishes inside that bucket. (It
// partitioned into a scratch copy as long as items before: the same
// sets, in another order, for 16 bytes a triangle more.)
func selectHist(items []splitItem, k, axis int, lo, ext float64) {
	if len(items) < histMin || !(ext > 0) || k <= 0 || k >= len(items) {
		selectK(items, k, axis)
		return
	}
	scale := histBins / ext
	bin := func(c float32) int {
		return max(0, min(int((float64(c)-lo)*scale), histBins-1))
	}
	var count [histBins]int
	for i := range items {
		count[bin(items[i].c[axis])]++
	}
	b, below := 0, 0
	for below+count[b] <= k {
		below += count[b]
		b++
	}
	// Dutch national flag partition: [0,l) before b, [l,m) in b,
	// [r,len) after b; [m,r) not yet classified. It ends with l = below.
	l, m, r := 0, 0, len(items)
	for m < r {
		switch c := bin(items[m].c[axis]); {
		case c < b:
			items[l], items[m] = items[m], items[l]
			l++
			m++
		case c == b:
			m++
		default:
			r--
			items[m], items[r] = items[r], items[m]
		}
	}
	selectK(items[below:below+count[b]], k-below, axis)
}

// splitItem is a triangle and its centroid; along an axis, (c[axis], id)
// orders triangles totally.
type splitItem struct {
	c  [3]float32
	id uint32
}

func (a *splitItem) less(b *splitItem, axis int) bool {
	return a.c[axis] < b.c[axis] || (a.c[axis] == b.c[axis] && a.id < b.id)
}

// selectK reorders s so that s[:k] are its k smallest elements along
// axis: Hoare's quickselect with a median-of-three pivot, sorting short
// ranges and ranges that recurse too deep.
func selectK(s []splitItem, k, axis int) {
	lo, hi := 0, len(s)
	for budget := 64; hi-lo > selectSortBelow && budget > 0; budget-- {
		// Median of three as the pivot value.
		a, b, c := s[lo], s[lo+(hi-lo)/2], s[hi-1]
		if b.less(&a, axis) {
			a, b = b, a
		}
		if c.less(&b, axis) {
			b = c
			if b.less(&a, axis) {
				b = a
			}
		}
		pivot := b
		// Three-way partition: [lo,i) < pivot, [i,j) == pivot, [j,hi) > pivot.
		i, j, m := lo, hi, lo
		for m < j {
			switch {
			case s[m].less(&pivot, axis):
				s[i], s[m] = s[m], s[i]
				i++
				m++
			case pivot.less(&s[m], axis):
				j--
				s[m], s[j] = s[j], s[m]
			default:
				m++
			}
		}
		switch {
		case k < i:
			hi = i
		case k > j:
			lo = j
		default:
			return // the boundary k falls on the pivot
		}
	}
	slices.SortFunc(s[lo:hi], func(a, b splitItem) int {
		if a.less(&b, axis) {
			return -1
		}
		if b.less(&a, axis) {
			return 1
		}
		return 0
	})
}
