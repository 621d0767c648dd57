package simplify

import "math"

// Determinism across architectures: Go may fuse x*y + z into one FMA
// instruction on arm64, ppc64 and s390x (not on amd64), which rounds once
// instead of twice and could change a ranking. Every product that feeds an
// addition is therefore wrapped in an explicit float64 conversion (mul),
// which the spec says prevents fusion.

// mul returns a*b rounded to float64, never fused into a following add.
func mul(a, b float64) float64 { return float64(a * b) }

// vec3 is a position in the normalized (unit extent) space.
type vec3 [3]float64

func (a vec3) sub(b vec3) vec3 { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a vec3) add(b vec3) vec3 { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a vec3) dot(b vec3) float64 {
	return mul(a[0], b[0]) + mul(a[1], b[1]) + mul(a[2], b[2])
}

// cross spells mul out as conversions, which keeps it under the inlining
// budget (it is the hot half of the flip test).
func (a vec3) cross(b vec3) vec3 {
	return vec3{
		float64(a[1]*b[2]) - float64(a[2]*b[1]),
		float64(a[2]*b[0]) - float64(a[0]*b[2]),
		float64(a[0]*b[1]) - float64(a[1]*b[0]),
	}
}
func (a vec3) scale(s float64) vec3 { return vec3{mul(a[0], s), mul(a[1], s), mul(a[2], s)} }
func (a vec3) length() float64      { return math.Sqrt(a.dot(a)) }

// quadric is the symmetric 4x4 form of Garland & Heckbert: the weighted sum of
// squared distances to a set of planes, evaluated at p as
// pᵀAp + 2bᵀp + c. w is the total weight, used to turn the sum into an
// average so that the error does not grow with tessellation density.
type quadric struct {
	a00, a11, a22 float64
	a10, a20, a21 float64
	b0, b1, b2    float64
	c             float64
	w             float64
}

// gradient is Hoppe's per-attribute linear term: over a face the attribute
// is interpolated as g·p + d; the stored values are area-weighted sums.
type gradient struct{ gx, gy, gz, gd float64 }

func (q *quadric) add(r *quadric) {
	q.a00 += r.a00
	q.a11 += r.a11
	q.a22 += r.a22
	q.a10 += r.a10
	q.a20 += r.a20
	q.a21 += r.a21
	q.b0 += r.b0
	q.b1 += r.b1
	q.b2 += r.b2
	q.c += r.c
	q.w += r.w
}

// addPlane adds w·(n·p + d)² for a unit normal n.
func (q *quadric) addPlane(n vec3, d, w float64) {
	q.a00 += mul(mul(w, n[0]), n[0])
	q.a11 += mul(mul(w, n[1]), n[1])
	q.a22 += mul(mul(w, n[2]), n[2])
	q.a10 += mul(mul(w, n[1]), n[0])
	q.a20 += mul(mul(w, n[2]), n[0])
	q.a21 += mul(mul(w, n[2]), n[1])
	q.b0 += mul(mul(w, n[0]), d)
	q.b1 += mul(mul(w, n[1]), d)
	q.b2 += mul(mul(w, n[2]), d)
	q.c += mul(mul(w, d), d)
	q.w += w
}

// eval returns the raw (unnormalized) quadric value at p.
func (q *quadric) eval(p *vec3) float64 {
	x, y, z := p[0], p[1], p[2]
	r := mul(mul(q.a00, x), x) + mul(mul(q.a11, y), y) + mul(mul(q.a22, z), z)
	r += 2 * (mul(mul(q.a10, x), y) + mul(mul(q.a20, x), z) + mul(mul(q.a21, y), z))
	r += 2 * (mul(q.b0, x) + mul(q.b1, y) + mul(q.b2, z))
	return r + q.c
}

// distanceError is the weighted mean squared plane distance at p.
func (q *quadric) distanceError(p *vec3) float64 {
	if q.w <= 0 {
		return 0
	}
	return math.Abs(q.eval(p)) / q.w
}

// addTriangle adds the plane of triangle p0 p1 p2 weighted by the square root
// of its doubled area, so that the error scales linearly with size (large
// triangles dominate, slivers barely count), as meshoptimizer does.
func (q *quadric) addTriangle(p0, p1, p2 vec3) {
	n := p1.sub(p0).cross(p2.sub(p0))
	l := n.length()
	if l == 0 {
		return
	}
	n = n.scale(1 / l)
	q.addPlane(n, -n.dot(p0), math.Sqrt(l))
}

// addEdge adds the plane through edge p0→p1 that is perpendicular to the
// triangle p0 p1 p2, so that moving a border vertex off its border line costs
// error even where the surface is flat. Weighted by edge length × weight.
func (q *quadric) addEdge(p0, p1, p2 vec3, weight float64) {
	e := p1.sub(p0)
	l2 := e.dot(e)
	if l2 == 0 {
		return
	}
	f := p2.sub(p0)
	// Component of f perpendicular to e (scaled by l2 to avoid a division).
	perp := f.scale(l2).sub(e.scale(f.dot(e)))
	pl := perp.length()
	if pl == 0 {
		return
	}
	perp = perp.scale(1 / pl)
	q.addPlane(perp, -perp.dot(p0), math.Sqrt(l2)*weight)
}

// attributeQuadric fills q and g (len k) for triangle p0 p1 p2 with attribute
// vectors a0 a1 a2 (len k), after Hoppe 1999: for each attribute the face
// interpolant s(p) = g·p + d, and the quadric measures area·(s(p) - s)².
// Expanding the square puts the p-only terms into q (sharing the geometric
// form) and leaves the terms in s for evaluation time, see attributeError.
func attributeQuadric(q *quadric, g []gradient, p0, p1, p2 vec3, a0, a1, a2 []float64) {
	// Spelled out in scalars (the compiler keeps vec3 values, arrays, in
	// memory); every operation is the one the vec3 methods would do, in
	// the same order, so the values are the same.
	e1x, e1y, e1z := p1[0]-p0[0], p1[1]-p0[1], p1[2]-p0[2]
	e2x, e2y, e2z := p2[0]-p0[0], p2[1]-p0[1], p2[2]-p0[2]
	cx := float64(e1y*e2z) - float64(e1z*e2y)
	cy := float64(e1z*e2x) - float64(e1x*e2z)
	cz := float64(e1x*e2y) - float64(e1y*e2x)
	area := 0.5 * math.Sqrt(mul(cx, cx)+mul(cy, cy)+mul(cz, cz))
	d00 := mul(e1x, e1x) + mul(e1y, e1y) + mul(e1z, e1z)
	d01 := mul(e1x, e2x) + mul(e1y, e2y) + mul(e1z, e2z)
	d11 := mul(e2x, e2x) + mul(e2y, e2y) + mul(e2z, e2z)
	den := mul(d00, d11) - mul(d01, d01)
	inv := 0.0
	if den > 0 {
		inv = 1 / den
	}
	// Basis vectors whose dot products with e1/e2 give the barycentric
	// derivatives: u1·e1 = 1, u1·e2 = 0, u2·e1 = 0, u2·e2 = 1.
	s11, s01, s00 := d11*inv, d01*inv, d00*inv
	u1x, u1y, u1z := mul(e1x, s11)-mul(e2x, s01), mul(e1y, s11)-mul(e2y, s01), mul(e1z, s11)-mul(e2z, s01)
	u2x, u2y, u2z := mul(e2x, s00)-mul(e1x, s01), mul(e2y, s00)-mul(e1y, s01), mul(e2z, s00)-mul(e1z, s01)
	*q = quadric{w: area}
	for j := range g {
		da1, da2 := a1[j]-a0[j], a2[j]-a0[j]
		gx := mul(u1x, da1) + mul(u2x, da2)
		gy := mul(u1y, da1) + mul(u2y, da2)
		gz := mul(u1z, da1) + mul(u2z, da2)
		d := a0[j] - (mul(gx, p0[0]) + mul(gy, p0[1]) + mul(gz, p0[2]))
		agx, agy, agz := mul(gx, area), mul(gy, area), mul(gz, area)
		q.a00 += mul(agx, gx)
		q.a11 += mul(agy, gy)
		q.a22 += mul(agz, gz)
		q.a10 += mul(agy, gx)
		q.a20 += mul(agz, gx)
		q.a21 += mul(agz, gy)
		q.b0 += mul(agx, d)
		q.b1 += mul(agy, d)
		q.b2 += mul(agz, d)
		q.c += mul(mul(area, d), d)
		g[j] = gradient{agx, agy, agz, mul(area, d)}
	}
}

// attributeError evaluates Σ area·(s_j(p) - a_j)² accumulated in q and g at
// position p with attribute values a. It is not divided by the weight: the
// area weighting already gives it units of squared distance.
func attributeError(q *quadric, g []gradient, p *vec3, a []float64) float64 {
	r := q.eval(p)
	for j, gj := range g {
		s := mul(gj.gx, p[0]) + mul(gj.gy, p[1]) + mul(gj.gz, p[2]) + gj.gd
		r += mul(a[j], mul(a[j], q.w)-2*s)
	}
	return math.Abs(r)
}

// maxf is math.Max for the values this package compares, which are never
// -0: it propagates NaN like math.Max but inlines (math.Max is an assembly
// call on amd64, about 5% of a simplification).
func maxf(a, b float64) float64 {
	if a > b || a != a {
		return a
	}
	return b
}

// minf is math.Min likewise (NaN propagates, -0 never occurs).
func minf(a, b float64) float64 {
	if a < b || a != a {
		return a
	}
	return b
}
