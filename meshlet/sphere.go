package meshlet

import "math"

// Minimum enclosing ball of a small point set, exact up to rounding:
// Welzl's randomized algorithm ("Smallest enclosing disks (balls and
// ellipsoids)", 1991) in Gärtner's move-to-front form ("Fast and Robust
// Smallest Enclosing Balls", ESA 1999), over a fixed pseudo-random order so
// the expected running time is linear and the result is deterministic.
// Degenerate support sets (collinear or coplanar points) fall back to the
// best lower-dimensional ball; callers still verify containment, so a
// rounding slip only costs tightness, never correctness.

// ballSlack is the relative tolerance of the containment test inside the
// algorithm; the float32 fix-up after it makes the final ball exact.
const ballSlack = 1e-12

type ball struct {
	c  [3]float64
	r2 float64 // squared radius; < 0 for the empty ball
}

func (b *ball) contains(p [3]float64) bool {
	return dist2d(p, b.c) <= b.r2*(1+ballSlack)
}

// minBall returns the minimum ball around pts. It reorders pts (a fixed
// shuffle, then move-to-front); pts must not be empty.
func minBall(pts [][3]float64) ball {
	// Fixed shuffle (Fisher–Yates with an LCG): the expected-linear bound of
	// move-to-front needs an order unrelated to the input's structure.
	x := uint64(shuffleSeed)
	for i := len(pts) - 1; i > 0; i-- {
		x = x*6364136223846793005 + 1442695040888963407
		// x>>33 and i+1 fit in 32 bits: the same remainder by the
		// faster 32-bit division.
		j := int(uint32(x>>33) % uint32(i+1))
		pts[i], pts[j] = pts[j], pts[i]
	}
	return mtfBall(pts)
}

// shuffleSeed starts the fixed shuffle's generator.
const shuffleSeed = 0x9E3779B97F4A7C15

// mtfBall is minBall of points already in the fixed shuffle's order.
func mtfBall(pts [][3]float64) ball {
	var support [4][3]float64
	return mtf(pts, len(pts), support[:0])
}

// shuffleCacheMax is the longest point count whose shuffle order a
// shuffleCache keeps (MaxTrianglesLimit: normals of a built meshlet).
const shuffleCacheMax = MaxTrianglesLimit

// shuffleCache holds minBall's fixed shuffle of n points as an index
// order, per n: shuffling by it is a gather, without the generator's
// division per point. The order depends only on n.
type shuffleCache struct {
	orders [][]uint16
}

// order returns the fixed shuffle of n <= shuffleCacheMax points: minBall
// moves input point order[i] to position i.
func (c *shuffleCache) order(n int) []uint16 {
	if n < len(c.orders) && c.orders[n] != nil {
		return c.orders[n]
	}
	o := make([]uint16, n)
	for i := range o {
		o[i] = uint16(i)
	}
	x := uint64(shuffleSeed)
	for i := n - 1; i > 0; i-- {
		x = x*6364136223846793005 + 1442695040888963407
		j := int(uint32(x>>33) % uint32(i+1))
		o[i], o[j] = o[j], o[i]
	}
	if n >= len(c.orders) {
		c.orders = append(c.orders, make([][]uint16, n+1-len(c.orders))...)
	}
	c.orders[n] = o
	return o
}

// minBallOf is minBall of src (not empty) without reordering it: dst
// (reused, returned) receives the points in the fixed shuffle's order.
func (c *shuffleCache) minBallOf(src, dst [][3]float64) (ball, [][3]float64) {
	if len(src) > shuffleCacheMax {
		dst = append(dst[:0], src...)
		return minBall(dst), dst
	}
	o := c.order(len(src))
	dst = resize(dst, len(src))
	d := dst[:len(o)]
	for i, k := range o {
		d[i] = src[k]
	}
	return mtfBall(d), dst
}

// mtf is the move-to-front recursion: the minimum ball of pts[:n] with the
// points of support on its boundary.
func mtf(pts [][3]float64, n int, support [][3]float64) ball {
	b := ballThrough(support)
	if len(support) == 4 {
		return b
	}
	// b.contains with the product hoisted and dist2d written out in
	// scalars (a [3]float64 local lives in memory).
	lim := b.r2 * (1 + ballSlack)
	cx, cy, cz := b.c[0], b.c[1], b.c[2]
	pts = pts[:n]
	for i := range pts {
		q := &pts[i]
		dx, dy, dz := q[0]-cx, q[1]-cy, q[2]-cz
		if float64(dx*dx)+float64(dy*dy)+float64(dz*dz) <= lim {
			continue
		}
		p := *q
		b = mtf(pts, i, append(support, p))
		lim = b.r2 * (1 + ballSlack)
		cx, cy, cz = b.c[0], b.c[1], b.c[2]
		// Move p to the front: it is likely to be on the boundary again.
		copy(pts[1:i+1], pts[:i])
		pts[0] = p
	}
	return b
}

// ballThrough returns the smallest ball with every support point on its
// boundary (the circumscribed ball), or for a degenerate set the smallest
// ball through a subset that still contains them all.
func ballThrough(s [][3]float64) ball {
	switch len(s) {
	case 0:
		return ball{r2: -1}
	case 1:
		return ball{c: s[0]}
	case 2:
		c := mid(s[0], s[1])
		return ball{c: c, r2: dist2d(s[0], c)}
	case 3:
		if b, ok := circumcircle(s[0], s[1], s[2]); ok {
			return b
		}
		return bestSubBall(s)
	default:
		if b, ok := circumsphere(s[0], s[1], s[2], s[3]); ok {
			return b
		}
		return bestSubBall(s)
	}
}

// bestSubBall is the smallest ball through a proper subset of s (pairs,
// and triples for four points) that contains all of s.
func bestSubBall(s [][3]float64) ball {
	best := ball{r2: math.Inf(1)}
	try := func(b ball) {
		if b.r2 >= best.r2 {
			return
		}
		for _, p := range s {
			if !b.contains(p) {
				return
			}
		}
		best = b
	}
	for i := 0; i < len(s); i++ {
		for j := i + 1; j < len(s); j++ {
			try(ballThrough([][3]float64{s[i], s[j]}))
			if len(s) == 4 {
				for k := j + 1; k < len(s); k++ {
					if b, ok := circumcircle(s[i], s[j], s[k]); ok {
						try(b)
					}
				}
			}
		}
	}
	if math.IsInf(best.r2, 1) {
		// Numerically hopeless; any ball holding all points will do.
		c := s[0]
		r2 := 0.0
		for _, p := range s {
			r2 = math.Max(r2, dist2d(p, c))
		}
		best = ball{c: c, r2: r2}
	}
	return best
}

func mid(a, b [3]float64) [3]float64 {
	return [3]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}
}

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{
		float64(a[1]*b[2]) - float64(a[2]*b[1]),
		float64(a[2]*b[0]) - float64(a[0]*b[2]),
		float64(a[0]*b[1]) - float64(a[1]*b[0]),
	}
}

func dot3(a, b [3]float64) float64 {
	return float64(a[0]*b[0]) + float64(a[1]*b[1]) + float64(a[2]*b[2])
}

// circumcircle is the ball whose great circle passes through p0, p1, p2;
// false when they are (nearly) collinear.
//
// Written out in scalars (Go keeps [3]float64 locals in memory) with
// sub's, cross's and dot3's products, roundings and order: a = p1-p0,
// b = p2-p0, n = a×b, u = n×a (perpendicular to a, in the plane),
// v = b×n, c = p0 + (|a|²v + |b|²u) / 2|n|².
func circumcircle(p0, p1, p2 [3]float64) (ball, bool) {
	x0, y0, z0 := p0[0], p0[1], p0[2]
	ax, ay, az := p1[0]-x0, p1[1]-y0, p1[2]-z0
	bx, by, bz := p2[0]-x0, p2[1]-y0, p2[2]-z0
	nx := float64(ay*bz) - float64(az*by)
	ny := float64(az*bx) - float64(ax*bz)
	nz := float64(ax*by) - float64(ay*bx)
	d := 2 * (float64(nx*nx) + float64(ny*ny) + float64(nz*nz))
	aa := float64(ax*ax) + float64(ay*ay) + float64(az*az)
	bb := float64(bx*bx) + float64(by*by) + float64(bz*bz)
	if !(d > 1e-24*aa*bb) {
		return ball{}, false
	}
	ux := float64(ny*az) - float64(nz*ay)
	uy := float64(nz*ax) - float64(nx*az)
	uz := float64(nx*ay) - float64(ny*ax)
	vx := float64(by*nz) - float64(bz*ny)
	vy := float64(bz*nx) - float64(bx*nz)
	vz := float64(bx*ny) - float64(by*nx)
	cx := x0 + (float64(aa*vx)+float64(bb*ux))/d
	cy := y0 + (float64(aa*vy)+float64(bb*uy))/d
	cz := z0 + (float64(aa*vz)+float64(bb*uz))/d
	dx, dy, dz := x0-cx, y0-cy, z0-cz
	return ball{c: [3]float64{cx, cy, cz}, r2: float64(dx*dx) + float64(dy*dy) + float64(dz*dz)}, true
}

// circumsphere is the ball through four points; false when they are
// (nearly) coplanar.
func circumsphere(p0, p1, p2, p3 [3]float64) (ball, bool) {
	a, b, c := sub(p1, p0), sub(p2, p0), sub(p3, p0)
	bxc := cross(b, c)
	det := 2 * dot3(a, bxc)
	scale := math.Sqrt(dot3(a, a) * dot3(b, b) * dot3(c, c))
	if !(math.Abs(det) > 1e-12*scale) {
		return ball{}, false
	}
	aa, bb, cc := dot3(a, a), dot3(b, b), dot3(c, c)
	cxa, axb := cross(c, a), cross(a, b)
	var o [3]float64
	for k := 0; k < 3; k++ {
		off := (float64(aa*bxc[k]) + float64(bb*cxa[k]) + float64(cc*axb[k])) / det
		o[k] = p0[k] + off
	}
	return ball{c: o, r2: dist2d(p0, o)}, true
}
