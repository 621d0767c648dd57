package simplify

import "math"

// maxGrid bounds the clustering grid resolution per axis.
const maxGrid = 1 << 12

// sloppyFallback reduces s.result further by vertex clustering (Rossignac &
// Borrel 1993, as in meshoptimizer's simplifySloppy): positions are snapped
// to a uniform grid over the unit extent, each cell keeps one existing
// vertex (the member nearest the cell's mean position) and triangles whose
// corners fall in fewer than three cells vanish. Pinned vertices are cells
// of their own. The grid resolution is searched so that the count reaches
// target; when that grid's error exceeds the remaining error budget, the
// finest grid within budget is used instead, if it removes anything. It
// returns the chosen index buffer and the total normalized error.
func (s *state) sloppyFallback(target int) ([]uint32, float64) {
	base := math.Sqrt(s.maxErr)
	budget := math.Sqrt(s.limit) - base
	src := s.result
	if budget <= 0 || len(src) == 0 {
		return src, base
	}
	c := newClusterer(s, src)

	// Largest grid whose output fits the target (counts grow with the grid).
	lo, hi := 1, maxGrid
	var best []uint32
	bestErr := 0.0
	for lo <= hi {
		g := (lo + hi) / 2
		if s.stop() {
			return src, base
		}
		s.work += int64(len(src) / 3)
		out, e := c.run(g)
		if len(out) <= target {
			best, bestErr = out, e
			lo = g + 1
		} else {
			hi = g - 1
		}
	}
	if best != nil && bestErr <= budget {
		return best, base + bestErr
	}

	// Smallest grid whose error fits the budget (errors shrink with the grid).
	lo, hi = 1, maxGrid
	best = nil
	for lo <= hi {
		g := (lo + hi) / 2
		if s.stop() {
			return src, base
		}
		s.work += int64(len(src) / 3)
		out, e := c.run(g)
		if e <= budget {
			best, bestErr = out, e
			hi = g - 1
		} else {
			lo = g + 1
		}
	}
	if best != nil && len(best) < len(src) {
		return best, base + bestErr
	}
	return src, base
}

// clusterer holds the vertex list of one sloppy search.
type clusterer struct {
	s     *state
	src   []uint32
	verts []uint32 // distinct vertices of src, in first-use order
	cell  []int32  // per entry of verts: cluster id (scratch)
	rep   []uint32 // per cluster: representative vertex (scratch)
	slot  []int32  // per vertex: index into verts, -1 if unused
}

func newClusterer(s *state, src []uint32) *clusterer {
	c := &clusterer{s: s, src: src, slot: make([]int32, s.n)}
	for i := range c.slot {
		c.slot[i] = -1
	}
	for _, v := range src {
		if c.slot[v] < 0 {
			c.slot[v] = int32(len(c.verts))
			c.verts = append(c.verts, v)
		}
	}
	c.cell = make([]int32, len(c.verts))
	return c
}

// run clusters on a g×g×g grid and returns the reduced triangles and the
// largest distance from a vertex to its cluster's representative.
func (c *clusterer) run(g int) ([]uint32, float64) {
	s := c.s
	ids := make(map[uint64]int32, len(c.verts))
	var sums []vec3
	var counts []float64
	for i, v := range c.verts {
		var key uint64
		if s.pinned[v] {
			key = 1<<63 | uint64(v) // its own cluster
		} else {
			p := s.pos[v]
			for j := range 3 {
				x := int(p[j] * float64(g))
				x = min(max(x, 0), g-1)
				key = key<<21 | uint64(x)
			}
		}
		id, ok := ids[key]
		if !ok {
			id = int32(len(sums))
			ids[key] = id
			sums = append(sums, vec3{})
			counts = append(counts, 0)
		}
		c.cell[i] = id
		p := s.pos[v]
		sums[id] = sums[id].add(p)
		counts[id]++
	}
	// Representative: the member nearest the mean (first on ties).
	c.rep = c.rep[:0]
	best := make([]float64, len(sums))
	for id := range sums {
		sums[id] = sums[id].scale(1 / counts[id])
		c.rep = append(c.rep, noVertex)
	}
	for i, v := range c.verts {
		id := c.cell[i]
		d := s.pos[v].sub(sums[id])
		if dd := d.dot(d); c.rep[id] == noVertex || dd < best[id] {
			c.rep[id], best[id] = v, dd
		}
	}
	maxErr := 0.0
	for i, v := range c.verts {
		d := s.pos[v].sub(s.pos[c.rep[c.cell[i]]])
		maxErr = math.Max(maxErr, d.dot(d))
	}
	// Remap triangles; drop collapsed ones and duplicates (same corners in
	// the same winding).
	out := make([]uint32, 0, len(c.src))
	seen := make(map[[3]uint32]struct{})
	for t := 0; t+2 < len(c.src); t += 3 {
		var tri [3]uint32
		for j := range 3 {
			tri[j] = c.rep[c.cell[c.slot[c.src[t+j]]]]
		}
		ra, rb, rc := s.remap[tri[0]], s.remap[tri[1]], s.remap[tri[2]]
		if ra == rb || ra == rc || rb == rc {
			continue
		}
		// Rotate the smallest index first for the duplicate key.
		key := tri
		if key[1] < key[0] && key[1] < key[2] {
			key = [3]uint32{key[1], key[2], key[0]}
		} else if key[2] < key[0] && key[2] < key[1] {
			key = [3]uint32{key[2], key[0], key[1]}
		}
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		out = append(out, tri[:]...)
	}
	return out, math.Sqrt(maxErr)
}
