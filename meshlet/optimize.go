package meshlet

import "math"

// recentWindow is how many previously emitted triangles count as "recent"
// when ordering a meshlet's triangles. 3 gave the lowest ACMR (8-entry FIFO)
// on grids, spheres, terrain and scanned meshes (2 and 4 were 1-2% worse),
// below meshopt_optimizeMeshlet on every one of them.
const recentWindow = 3

// optimizer reorders one meshlet for locality (as meshopt_optimizeMeshlet):
// each next triangle is the unused one with the most corners used by the
// last recentWindow triangles (first in build order on ties; the first
// unused triangle when none touches them), then local vertices are numbered
// by first use, so consecutive triangles reference nearby, mostly
// increasing local indices. Buffers are reused across meshlets.
type optimizer struct {
	off   []int32 // local vertex v's triangles are adj[off[v]:off[v+1]]
	adj   []int32
	fill  []int32
	done  []bool
	stamp []int32 // per local vertex: output step that last used it
	order []int32
	remap []int16
	tris  []uint8
	verts []uint32
}

// run rewrites verts and tris (3 local indices per triangle) in place. The
// corner order inside each triangle is kept, so winding is preserved.
func (o *optimizer) run(verts []uint32, tris []uint8) {
	nt, nv := len(tris)/3, len(verts)
	if nt <= 1 && nv <= 3 {
		o.renumber(verts, tris, nil)
		return
	}
	// Local vertex → triangle adjacency.
	o.off = resize(o.off, nv+1)
	for i := range o.off {
		o.off[i] = 0
	}
	for _, v := range tris {
		o.off[int(v)+1]++
	}
	for v := 0; v < nv; v++ {
		o.off[v+1] += o.off[v]
	}
	o.adj = resize(o.adj, len(tris))
	o.fill = resize(o.fill, nv)
	copy(o.fill, o.off[:nv])
	for i, v := range tris {
		o.adj[o.fill[v]] = int32(i / 3)
		o.fill[v]++
	}
	o.done = resize(o.done, nt)
	for i := range o.done {
		o.done[i] = false
	}
	o.order = o.order[:0]

	o.stamp = resize(o.stamp, nv)
	for i := range o.stamp {
		o.stamp[i] = math.MinInt32 / 2
	}
	next := 0
	for step := int32(0); step < int32(nt); step++ {
		best, bestScore := int32(-1), int32(0)
	scan:
		for back := int32(1); back <= recentWindow && back <= step; back++ {
			prev := o.order[step-back]
			for _, v := range tris[3*prev : 3*prev+3] {
				for _, u := range o.adj[o.off[v]:o.off[int(v)+1]] {
					if o.done[u] {
						continue
					}
					sc := int32(0)
					for _, w := range tris[3*u : 3*u+3] {
						if step-o.stamp[w] <= recentWindow {
							sc++
						}
					}
					if sc > bestScore || (sc == bestScore && u < best) {
						best, bestScore = u, sc
						if sc == 3 {
							// All corners recent: nothing scores higher
							// (keeps duplicate-heavy meshlets linear).
							break scan
						}
					}
				}
			}
		}
		if best < 0 {
			for o.done[next] {
				next++
			}
			best = int32(next)
		}
		o.done[best] = true
		o.order = append(o.order, best)
		for _, w := range tris[3*best : 3*best+3] {
			o.stamp[w] = step
		}
	}
	o.renumber(verts, tris, o.order)
}

// renumber writes the triangles in the given order (nil: unchanged) and
// numbers local vertices by first use.
func (o *optimizer) renumber(verts []uint32, tris []uint8, order []int32) {
	nt, nv := len(tris)/3, len(verts)
	o.remap = resize(o.remap, nv)
	for i := range o.remap {
		o.remap[i] = -1
	}
	o.tris = resize(o.tris, len(tris))
	o.verts = resize(o.verts, nv)
	n := int16(0)
	for i := 0; i < nt; i++ {
		t := i
		if order != nil {
			t = int(order[i])
		}
		for k := 0; k < 3; k++ {
			v := tris[3*t+k]
			if o.remap[v] < 0 {
				o.remap[v] = n
				o.verts[n] = verts[v]
				n++
			}
			o.tris[3*i+k] = uint8(o.remap[v])
		}
	}
	copy(tris, o.tris)
	copy(verts, o.verts[:n])
}

// resize returns s with length n, reusing its storage when large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}
