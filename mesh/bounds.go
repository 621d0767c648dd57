package mesh

import "math"

// Bounds is an axis-aligned box and a bounding sphere, as .hmesh MeshBounds
// stores them. The zero value is the bounds of nothing.
type Bounds struct {
	Min, Max Vec3
	Center   Vec3
	Radius   float32
}

// sphereRefinePasses is how many Ritter-style passes ComputeBounds makes
// after the initial guess; each pass tries a smaller sphere seeded from the
// previous one. 8 passes reach within ~1% of minimal on scanned meshes.
const sphereRefinePasses = 8

// ComputeBounds returns the AABB of the referenced positions and a bounding
// sphere that contains every one of them in float32 arithmetic. When idx is
// nil every position is used; otherwise only positions[idx[i]].
func ComputeBounds(positions []Vec3, idx []uint32) Bounds {
	n := len(positions)
	if idx != nil {
		n = len(idx)
	}
	if n == 0 {
		return Bounds{}
	}
	at := func(i int) [3]float64 {
		p := positions[i]
		if idx != nil {
			p = positions[idx[i]]
		}
		return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	p0 := at(0)
	lo, hi := p0, p0
	for i := 1; i < n; i++ {
		p := at(i)
		for k := 0; k < 3; k++ {
			lo[k] = math.Min(lo[k], p[k])
			hi[k] = math.Max(hi[k], p[k])
		}
	}
	c, r := boundingSphere(n, at)
	b := Bounds{Radius: float32(r)}
	for k := 0; k < 3; k++ {
		b.Min[k], b.Max[k], b.Center[k] = float32(lo[k]), float32(hi[k]), float32(c[k])
	}
	// Grow the float32 radius until every point is inside when measured in
	// float32-rounded centre coordinates (rounding of the centre can move it).
	var worst float64
	cc := [3]float64{float64(b.Center[0]), float64(b.Center[1]), float64(b.Center[2])}
	for i := 0; i < n; i++ {
		worst = math.Max(worst, dist(at(i), cc))
	}
	rr := float32(worst)
	for float64(rr) < worst {
		rr = math.Nextafter32(rr, float32(math.Inf(1)))
	}
	b.Radius = rr
	return b
}

// BoundingSphere is ComputeBounds without the box: centre and radius of a
// tight sphere containing every point (see ComputeBounds for idx).
func BoundingSphere(positions []Vec3, idx []uint32) (Vec3, float32) {
	b := ComputeBounds(positions, idx)
	return b.Center, b.Radius
}

func dist(a, b [3]float64) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// boundingSphere starts from the best of Ritter's extreme-point pairs along
// the three axes, grows it to cover every point, then repeatedly shrinks and
// regrows it visiting points in a fixed stride order, keeping the smallest
// sphere that covers all points (an iterative refinement in the spirit of
// Ritter's "bouncing bubble" variants). Deterministic: no randomness.
func boundingSphere(n int, at func(int) [3]float64) ([3]float64, float64) {
	// Extreme points along x, y, z.
	var minI, maxI [3]int
	for i := 1; i < n; i++ {
		p := at(i)
		for k := 0; k < 3; k++ {
			if p[k] < at(minI[k])[k] {
				minI[k] = i
			}
			if p[k] > at(maxI[k])[k] {
				maxI[k] = i
			}
		}
	}
	best := 0
	bestD := -1.0
	for k := 0; k < 3; k++ {
		if d := dist(at(minI[k]), at(maxI[k])); d > bestD {
			best, bestD = k, d
		}
	}
	a, b := at(minI[best]), at(maxI[best])
	c := [3]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}
	r := bestD / 2
	grow := func(c [3]float64, r float64) ([3]float64, float64) {
		for i := 0; i < n; i++ {
			p := at(i)
			d := dist(p, c)
			if d > r {
				nr := (r + d) / 2
				t := (nr - r) / d
				for k := 0; k < 3; k++ {
					c[k] += (p[k] - c[k]) * t
				}
				r = nr
			}
		}
		return c, r
	}
	c, r = grow(c, r)
	bc, br := c, r
	for pass := 0; pass < sphereRefinePasses; pass++ {
		// Shrink towards the current centre and regrow; keep improvements.
		tc, tr := grow(bc, br*0.95)
		// Exact cover check after the grow (grow covers every point it visits,
		// but earlier points may fall outside as the centre moves).
		var worst float64
		for i := 0; i < n; i++ {
			worst = math.Max(worst, dist(at(i), tc))
		}
		tr = math.Max(tr, worst)
		if tr < br {
			bc, br = tc, tr
		}
	}
	return bc, br
}
