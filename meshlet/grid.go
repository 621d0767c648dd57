package meshlet

import "math"

// gridMaxCells bounds the uniform grid's cells per axis: cells grow past
// the reach radius on meshes far wider than their meshlets, so the grid
// stays small (at most gridMaxCells³ cells) whatever the input.
const gridMaxCells = 64

// cellGrid answers "nearest unused triangle within radius r" for the
// builder's spatial fallback: triangle centroids bucketed in a uniform
// grid whose cells are at least r wide, so the answer lies in the 3×3×3
// cells around the query. Building is a counting sort (O(n)); used
// triangles are dropped from their cell as queries meet them.
type cellGrid struct {
	origin [3]float64
	inv    float64 // 1 / cell size
	dims   [3]int
	r2     float64
	off    []uint32 // cell c's triangles are tri[off[c]:off[c]+cnt[c]]
	cnt    []uint32
	tri    []uint32
}

// newCellGrid buckets the triangles not yet emitted by their centroids;
// r > 0 is the query radius.
func newCellGrid(geom []triGeom, emitted []bool, r float64) *cellGrid {
	g := &cellGrid{r2: float64(r * r)}
	first := true
	var mn, mx [3]float64
	for t, used := range emitted {
		if used {
			continue
		}
		for k := 0; k < 3; k++ {
			c := float64(geom[t].c[k])
			if first || c < mn[k] {
				mn[k] = c
			}
			if first || c > mx[k] {
				mx[k] = c
			}
		}
		first = false
	}
	size := r
	for k := 0; k < 3; k++ {
		size = math.Max(size, (mx[k]-mn[k])/gridMaxCells)
	}
	g.origin, g.inv = mn, 1/size
	cells := 1
	for k := 0; k < 3; k++ {
		g.dims[k] = min(int((mx[k]-mn[k])*g.inv)+1, gridMaxCells+1)
		cells *= g.dims[k]
	}
	g.off = make([]uint32, cells+1)
	g.cnt = make([]uint32, cells)
	for t, used := range emitted {
		if !used {
			g.off[g.cell(geom[t].c)+1]++
		}
	}
	for c := 0; c < cells; c++ {
		g.off[c+1] += g.off[c]
	}
	g.tri = make([]uint32, g.off[cells])
	for t, used := range emitted {
		if !used {
			c := g.cell(geom[t].c)
			g.tri[g.off[c]+g.cnt[c]] = uint32(t)
			g.cnt[c]++
		}
	}
	return g
}

// coord is the cell index of x along axis k, clamped to the grid.
func (g *cellGrid) coord(x float64, k int) int {
	i := int(math.Floor((x - g.origin[k]) * g.inv))
	return max(0, min(i, g.dims[k]-1))
}

func (g *cellGrid) cell(p [3]float32) int {
	x, y, z := g.coord(float64(p[0]), 0), g.coord(float64(p[1]), 1), g.coord(float64(p[2]), 2)
	return (z*g.dims[1]+y)*g.dims[0] + x
}

// nearest returns the unused triangle whose centroid is nearest q and
// within the radius (the lowest index on ties), or noTriangle.
func (g *cellGrid) nearest(q [3]float32, geom []triGeom, emitted []bool) uint32 {
	qd := [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
	var lo, hi [3]int
	for k := 0; k < 3; k++ {
		lo[k] = g.coord(qd[k], k) - 1
		hi[k] = lo[k] + 2
		lo[k], hi[k] = max(lo[k], 0), min(hi[k], g.dims[k]-1)
	}
	best, bestD := uint32(noTriangle), g.r2
	for z := lo[2]; z <= hi[2]; z++ {
		for y := lo[1]; y <= hi[1]; y++ {
			for x := lo[0]; x <= hi[0]; x++ {
				c := (z*g.dims[1]+y)*g.dims[0] + x
				lst := g.tri[g.off[c] : g.off[c]+g.cnt[c]]
				for i := 0; i < len(lst); {
					t := lst[i]
					if emitted[t] {
						lst[i] = lst[len(lst)-1]
						lst = lst[:len(lst)-1]
						continue
					}
					i++
					if d := dist2(qd, geom[t].c); d < bestD || (d == bestD && t < best) {
						best, bestD = t, d
					}
				}
				g.cnt[c] = uint32(len(lst))
			}
		}
	}
	return best
}
