package meshlet

import "math"

// recentWindow is how many previously emitted triangles count as "recent"
// when ordering a meshlet's triangles: a candidate scores one point per
// corner used by one of them.
const recentWindow = 3

// optimizer reorders one meshlet for locality (as meshopt_optimizeMeshlet):
// each next triangle is taken among the unused triangles around the last
// emitted one (or, when it has none, around the one before, up to
// recentWindow back): the one with the most corners used by the last
// recentWindow triangles, first in build order on ties; the first unused
// triangle when none is adjacent. Then local vertices are numbered by
// first use, so consecutive triangles reference nearby, mostly increasing
// local indices. Buffers are reused across meshlets; adjacency lists drop
// used triangles as they are met, so a meshlet costs O(triangles ×
// valence).
type optimizer struct {
	off   []uint16 // local vertex v's triangles are adj[off[v]:off[v]+cnt[v]]
	cnt   []uint16
	adj   []uint16
	done  []bool
	stamp []int32 // per local vertex: output step that last used it
	order []uint16
	remap []int16
	tris  []uint8
	verts []uint32
}

// run rewrites verts and tris (3 local indices per triangle) in place. The
// corner order inside each triangle is kept, so winding is preserved.
func (o *optimizer) run(verts []uint32, tris []uint8) {
	nt, nv := len(tris)/3, len(verts)
	if nt <= 2 {
		o.renumber(verts, tris, nil)
		return
	}
	// Local vertex → triangle adjacency.
	o.off = resize(o.off, nv+1)
	o.cnt = resize(o.cnt, nv)
	clear(o.cnt)
	for _, v := range tris {
		o.cnt[v]++
	}
	o.off[0] = 0
	for v := 0; v < nv; v++ {
		o.off[v+1] = o.off[v] + o.cnt[v]
		o.cnt[v] = 0
	}
	o.adj = resize(o.adj, len(tris))
	for i, v := range tris {
		o.adj[o.off[v]+o.cnt[v]] = uint16(i / 3)
		o.cnt[v]++
	}
	o.done = resize(o.done, nt)
	clear(o.done)
	o.order = o.order[:0]
	o.stamp = resize(o.stamp, nv)
	for i := range o.stamp {
		o.stamp[i] = math.MinInt32 / 2
	}
	next := 0
	stamp, done, adj, off, cnt := o.stamp, o.done, o.adj, o.off, o.cnt
	for step := int32(0); step < int32(nt); step++ {
		// key = score<<16 | (0xffff - triangle): the largest key is the
		// highest score, then the first triangle.
		bestKey := int32(-1)
		recent := step - recentWindow // a vertex stamped at or after it is recent
		for back := int32(1); back <= recentWindow && back <= step && bestKey < 0; back++ {
			prev := int(o.order[step-back])
			for _, v := range tris[3*prev : 3*prev+3] {
				lo, n := int(off[v]), int(cnt[v])
				lst := adj[lo : lo+n]
				for i := 0; i < len(lst); {
					u := int32(lst[i])
					if done[u] {
						lst[i] = lst[len(lst)-1]
						lst = lst[:len(lst)-1]
						continue
					}
					i++
					c := tris[3*u : 3*u+3 : 3*u+3]
					sc := b2i32(stamp[c[0]] >= recent) + b2i32(stamp[c[1]] >= recent) + b2i32(stamp[c[2]] >= recent)
					bestKey = max(bestKey, sc<<16|(0xffff-u))
				}
				cnt[v] = uint16(len(lst))
			}
		}
		best := int32(-1)
		if bestKey >= 0 {
			best = 0xffff - bestKey&0xffff
		}
		if best < 0 {
			for done[next] {
				next++
			}
			best = int32(next)
		}
		done[best] = true
		o.order = append(o.order, uint16(best))
		c := tris[3*best : 3*best+3 : 3*best+3]
		stamp[c[0]], stamp[c[1]], stamp[c[2]] = step, step, step
	}
	o.renumber(verts, tris, o.order)
}

// renumber writes the triangles in the given order (nil: unchanged) and
// numbers local vertices by first use.
func (o *optimizer) renumber(verts []uint32, tris []uint8, order []uint16) {
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

func b2i32(x bool) int32 {
	if x {
		return 1
	}
	return 0
}
