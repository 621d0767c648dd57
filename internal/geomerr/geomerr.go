// Package geomerr measures how far one triangle surface is from another:
// point-to-surface distance through a uniform grid, deterministic
// area-weighted surface sampling, and the symmetric Hausdorff distance
// estimated from samples. meshcook uses it to report LOD error
// independently of the simplifier (inspect, bench-compare).
package geomerr

import (
	"math"
	"math/rand"
)

// Surface is a triangle set prepared for nearest-point queries.
type Surface struct {
	pos       [][3]float64
	tris      [][3]uint32
	lo, hi    [3]float64
	cell      float64
	dims      [3]int
	cellStart []int32 // CSR over cells
	cellTris  []int32
}

// NewSurface indexes the triangles of a triangle list. Triangles with an
// index out of range are ignored.
func NewSurface(positions [][3]float32, indices []uint32) *Surface {
	s := &Surface{pos: make([][3]float64, len(positions))}
	for i, p := range positions {
		s.pos[i] = [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	for t := 0; t+2 < len(indices); t += 3 {
		a, b, c := indices[t], indices[t+1], indices[t+2]
		if int(a) < len(positions) && int(b) < len(positions) && int(c) < len(positions) {
			s.tris = append(s.tris, [3]uint32{a, b, c})
		}
	}
	if len(s.tris) == 0 {
		return s
	}
	first := true
	for _, t := range s.tris {
		for _, v := range t {
			p := s.pos[v]
			for k := 0; k < 3; k++ {
				if first || p[k] < s.lo[k] {
					s.lo[k] = p[k]
				}
				if first || p[k] > s.hi[k] {
					s.hi[k] = p[k]
				}
			}
			first = false
		}
	}
	// About two triangles per cell on a surface: cells ~ triangles.
	ext := [3]float64{s.hi[0] - s.lo[0], s.hi[1] - s.lo[1], s.hi[2] - s.lo[2]}
	diag := math.Sqrt(ext[0]*ext[0] + ext[1]*ext[1] + ext[2]*ext[2])
	if diag == 0 {
		diag = 1
	}
	s.cell = diag / math.Max(1, math.Sqrt(float64(len(s.tris))))
	for k := 0; k < 3; k++ {
		s.dims[k] = min(int(ext[k]/s.cell)+1, 512)
	}
	n := s.dims[0] * s.dims[1] * s.dims[2]
	count := make([]int32, n+1)
	s.forCells(func(t int, c int) { count[c+1]++ })
	for i := 0; i < n; i++ {
		count[i+1] += count[i]
	}
	s.cellStart = count
	s.cellTris = make([]int32, count[n])
	fill := append([]int32(nil), count[:n]...)
	s.forCells(func(t int, c int) {
		s.cellTris[fill[c]] = int32(t)
		fill[c]++
	})
	return s
}

func (s *Surface) cellOf(v float64, k int) int {
	c := int((v - s.lo[k]) / s.cell)
	return max(0, min(c, s.dims[k]-1))
}

// forCells calls fn for every (triangle, cell) pair whose boxes overlap.
func (s *Surface) forCells(fn func(t, c int)) {
	for t, tri := range s.tris {
		var lo, hi [3]int
		for k := 0; k < 3; k++ {
			mn := math.Min(s.pos[tri[0]][k], math.Min(s.pos[tri[1]][k], s.pos[tri[2]][k]))
			mx := math.Max(s.pos[tri[0]][k], math.Max(s.pos[tri[1]][k], s.pos[tri[2]][k]))
			lo[k], hi[k] = s.cellOf(mn, k), s.cellOf(mx, k)
		}
		for z := lo[2]; z <= hi[2]; z++ {
			for y := lo[1]; y <= hi[1]; y++ {
				for x := lo[0]; x <= hi[0]; x++ {
					fn(t, (z*s.dims[1]+y)*s.dims[0]+x)
				}
			}
		}
	}
}

// Distance returns the distance from p to the nearest triangle, or +Inf
// for an empty surface.
func (s *Surface) Distance(p [3]float64) float64 { return s.distanceAbove(p, -1) }

// distanceAbove is Distance(p) when that exceeds floor; otherwise it
// returns as soon as it finds a triangle within floor of p, with that
// triangle's distance (at most floor). OneSided needs no more: a point
// nearer than the largest distance so far cannot change the maximum.
func (s *Surface) distanceAbove(p [3]float64, floor float64) float64 {
	if len(s.tris) == 0 {
		return math.Inf(1)
	}
	var c [3]int
	for k := 0; k < 3; k++ {
		c[k] = s.cellOf(p[k], k)
	}
	// Distance from p to the grid box, so rings start where the grid does.
	var out float64
	for k := 0; k < 3; k++ {
		d := math.Max(s.lo[k]-p[k], p[k]-s.hi[k])
		if d > 0 {
			out += d * d
		}
	}
	out = math.Sqrt(out)
	best := math.Inf(1)
	maxRing := max(s.dims[0], s.dims[1], s.dims[2])
	for r := 0; r <= maxRing; r++ {
		// Every cell at Chebyshev distance r from c.
		for z := c[2] - r; z <= c[2]+r; z++ {
			if z < 0 || z >= s.dims[2] {
				continue
			}
			for y := c[1] - r; y <= c[1]+r; y++ {
				if y < 0 || y >= s.dims[1] {
					continue
				}
				edge := z == c[2]-r || z == c[2]+r || y == c[1]-r || y == c[1]+r
				for x := c[0] - r; x <= c[0]+r; x++ {
					if x < 0 || x >= s.dims[0] {
						continue
					}
					if !edge && x != c[0]-r && x != c[0]+r {
						continue
					}
					cell := (z*s.dims[1]+y)*s.dims[0] + x
					for _, t := range s.cellTris[s.cellStart[cell]:s.cellStart[cell+1]] {
						tri := s.tris[t]
						best = math.Min(best, pointTriangle(p, s.pos[tri[0]], s.pos[tri[1]], s.pos[tri[2]]))
						if best <= floor {
							return best
						}
					}
				}
			}
		}
		// Cells beyond ring r are at least r·cell away (minus p's offset
		// inside its own cell, bounded by one cell) plus the outside gap.
		if best <= out+float64(r)*s.cell {
			break
		}
	}
	return best
}

// pointTriangle is the distance from p to triangle abc (Ericson, Real-Time
// Collision Detection 5.1.5: closest point by Voronoi regions).
func pointTriangle(p, a, b, c [3]float64) float64 {
	sub := func(u, v [3]float64) [3]float64 { return [3]float64{u[0] - v[0], u[1] - v[1], u[2] - v[2]} }
	dot := func(u, v [3]float64) float64 { return u[0]*v[0] + u[1]*v[1] + u[2]*v[2] }
	at := func(base, d [3]float64, t float64) [3]float64 {
		return [3]float64{base[0] + d[0]*t, base[1] + d[1]*t, base[2] + d[2]*t}
	}
	dist := func(q [3]float64) float64 { d := sub(p, q); return math.Sqrt(dot(d, d)) }
	ab, ac, ap := sub(b, a), sub(c, a), sub(p, a)
	d1, d2 := dot(ab, ap), dot(ac, ap)
	if d1 <= 0 && d2 <= 0 {
		return dist(a)
	}
	bp := sub(p, b)
	d3, d4 := dot(ab, bp), dot(ac, bp)
	if d3 >= 0 && d4 <= d3 {
		return dist(b)
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return dist(at(a, ab, d1/(d1-d3)))
	}
	cp := sub(p, c)
	d5, d6 := dot(ab, cp), dot(ac, cp)
	if d6 >= 0 && d5 <= d6 {
		return dist(c)
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return dist(at(a, ac, d2/(d2-d6)))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return dist(at(b, sub(c, b), (d4-d3)/((d4-d3)+(d5-d6))))
	}
	den := va + vb + vc
	if den == 0 || math.IsNaN(den) {
		// Degenerate triangle: nearest of its edges' endpoints.
		return math.Min(dist(a), math.Min(dist(b), dist(c)))
	}
	v, w := vb/den, vc/den
	q := [3]float64{a[0] + ab[0]*v + ac[0]*w, a[1] + ab[1]*v + ac[1]*w, a[2] + ab[2]*v + ac[2]*w}
	return dist(q)
}

// Sample returns every referenced vertex plus n points spread over the
// triangles in proportion to their area, from a fixed seed (deterministic).
func Sample(positions [][3]float32, indices []uint32, n int, seed int64) [][3]float64 {
	var pts [][3]float64
	seen := make([]bool, len(positions))
	var cum []float64
	total := 0.0
	for t := 0; t+2 < len(indices); t += 3 {
		for _, v := range indices[t : t+3] {
			if int(v) < len(positions) && !seen[v] {
				seen[v] = true
				p := positions[v]
				pts = append(pts, [3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
			}
		}
		total += area(positions, indices[t:t+3])
		cum = append(cum, total)
	}
	if total == 0 || n <= 0 {
		return pts
	}
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < n; i++ {
		x := r.Float64() * total
		lo, hi := 0, len(cum)-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cum[mid] < x {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		u, v := r.Float64(), r.Float64()
		if u+v > 1 {
			u, v = 1-u, 1-v
		}
		a, b, c := positions[indices[3*lo]], positions[indices[3*lo+1]], positions[indices[3*lo+2]]
		var p [3]float64
		for k := 0; k < 3; k++ {
			p[k] = float64(a[k]) + u*float64(b[k]-a[k]) + v*float64(c[k]-a[k])
		}
		pts = append(pts, p)
	}
	return pts
}

func area(pos [][3]float32, t []uint32) float64 {
	if int(t[0]) >= len(pos) || int(t[1]) >= len(pos) || int(t[2]) >= len(pos) {
		return 0
	}
	a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
	e1 := [3]float64{float64(b[0] - a[0]), float64(b[1] - a[1]), float64(b[2] - a[2])}
	e2 := [3]float64{float64(c[0] - a[0]), float64(c[1] - a[1]), float64(c[2] - a[2])}
	x := e1[1]*e2[2] - e1[2]*e2[1]
	y := e1[2]*e2[0] - e1[0]*e2[2]
	z := e1[0]*e2[1] - e1[1]*e2[0]
	return 0.5 * math.Sqrt(x*x+y*y+z*z)
}

// OneSided is the largest distance from the points to the surface.
func OneSided(points [][3]float64, to *Surface) float64 {
	worst := 0.0
	for _, p := range points {
		worst = math.Max(worst, to.distanceAbove(p, worst))
	}
	return worst
}

// Hausdorff estimates the symmetric Hausdorff distance between two triangle
// sets over shared or separate vertex arrays: the larger of the two one-sided
// distances, each from every vertex plus `samples` area-weighted points.
func Hausdorff(aPos [][3]float32, aIdx []uint32, bPos [][3]float32, bIdx []uint32, samples int) float64 {
	sa, sb := NewSurface(aPos, aIdx), NewSurface(bPos, bIdx)
	ab := OneSided(Sample(aPos, aIdx, samples, 1), sb)
	ba := OneSided(Sample(bPos, bIdx, samples, 2), sa)
	return math.Max(ab, ba)
}

// Extent is the diagonal of the referenced vertices' bounding box, the
// scale bench-compare reports errors against.
func Extent(positions [][3]float32, indices []uint32) float64 {
	var lo, hi [3]float64
	first := true
	for _, v := range indices {
		if int(v) >= len(positions) {
			continue
		}
		p := positions[v]
		for k := 0; k < 3; k++ {
			x := float64(p[k])
			if first || x < lo[k] {
				lo[k] = x
			}
			if first || x > hi[k] {
				hi[k] = x
			}
		}
		first = false
	}
	d := [3]float64{hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}
	return math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
}
