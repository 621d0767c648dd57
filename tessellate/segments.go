package tessellate

import "math"

// Determinism across architectures: Go may fuse x*y + z into one FMA on
// arm64, ppc64 and s390x. Every product that feeds an addition here is
// wrapped in an explicit float64 conversion, which the spec says prevents
// fusion, so segment counts are the same on every machine.

// sigmaMargin inflates every singular-value estimate by a relative 1e-9 so
// that rounding in the closed-form eigenvalue never makes a bound optimistic.
const sigmaMargin = 1 + 1e-9

// SegmentsFor returns the fewest segments, a multiple of 4 and at least
// MinSegments, that keep the chords of a circle of radius r within tol:
// n ≥ π / acos(1 − tol/r).
func SegmentsFor(r, tol float64) int {
	return roundUp4(segmentsNeeded(r, tol))
}

// segmentsNeeded is the exact (unrounded) minimum count for radius r.
func segmentsNeeded(r, tol float64) int {
	if !(r > 0) || !(tol > 0) {
		return MinSegments
	}
	x := 1 - tol/r
	if x <= -1 {
		return MinSegments
	}
	n := math.Ceil(math.Pi / math.Acos(x))
	if n > MaxSegments || math.IsNaN(n) {
		return MaxSegments
	}
	return max(MinSegments, int(n))
}

// Sagitta is the largest distance between an arc of radius r and the chord
// of one of n equal segments: r·(1 − cos(π/n)).
func Sagitta(r float64, n int) float64 {
	if n <= 0 {
		return r
	}
	return r * (1 - math.Cos(math.Pi/float64(n)))
}

func roundUp4(n int) int { return max(MinSegments, (n+3)/4*4) }

// requestCap is the most segments a request allows: itself lowered to a
// multiple of 4, never below MinSegments.
func requestCap(request int) int {
	return max(MinSegments, min(request, MaxSegments)/4*4)
}

// pick returns min(rounded need, cap) and whether the cap was below need.
func pick(need, limit int) (int, bool) {
	n := min(roundUp4(need), limit)
	return n, n < need
}

// choose returns the segment count, the second-direction count, the
// guaranteed error bound and whether the request limited the part.
func choose(p Part, tol float64) (n, rings int, bound float64, limited bool) {
	limit := requestCap(p.Segments)
	ringPlane := sigmaRingPlane(p.Transform)
	full := sigmaMax(p.Transform)
	switch p.Kind {
	case Box:
		return 0, 0, 0, false
	case Cylinder, Cone, TaperedCylinder:
		r := 0.5 * ringPlane
		if p.Kind == TaperedCylinder {
			r *= max(1, p.Top)
		}
		n, limited = pick(segmentsNeeded(r, tol), limit)
		return n, 0, Sagitta(r, n), limited
	case Sphere, Capsule:
		// Each direction keeps half the tolerance; latitude bands use the
		// same angular step as longitude, so rings = n/2 over the sphere.
		r := 0.5 * full
		n, limited = pick(segmentsNeeded(r, tol/2), limit)
		rings = n / 2
		if p.Kind == Capsule {
			rings = n / 4
		}
		return n, rings, 2 * Sagitta(r, n), limited
	case Torus:
		// Both offsets mix with the axis under non-uniform scale, so both
		// radii use the full stretch.
		rMajor := 0.5 * full
		rTube := p.Tube * full
		var l1, l2 bool
		n, l1 = pick(segmentsNeeded(rMajor, tol/2), limit)
		// The tube's request is half the ring's (what an author's count
		// draws, ringsFor), so the tube never exceeds it either.
		rings, l2 = pick(segmentsNeeded(rTube, tol/2), requestCap(p.Segments/2))
		return n, rings, Sagitta(rMajor, n) + Sagitta(rTube, rings), l1 || l2
	}
	return 0, 0, 0, false
}

// sigmaRingPlane is the largest singular value of the transform restricted
// to the unit XZ plane (the plane of every ring): the most a unit radius in
// that plane can be stretched.
func sigmaRingPlane(t Transform) float64 {
	a := t.Dir([3]float64{1, 0, 0})
	b := t.Dir([3]float64{0, 0, 1})
	p, q, r := dot(a, a), dot(b, b), dot(a, b)
	h := (p - q) / 2
	lambda := (p+q)/2 + math.Sqrt(float64(h*h)+float64(r*r))
	return math.Sqrt(lambda) * sigmaMargin
}

// sigmaMax is the largest singular value of the linear part: the square
// root of the largest eigenvalue of LᵀL (closed form for symmetric 3×3).
func sigmaMax(t Transform) float64 {
	var c [3][3]float64 // columns of L
	for j := 0; j < 3; j++ {
		var e [3]float64
		e[j] = 1
		c[j] = t.Dir(e)
	}
	var a [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			a[i][j] = dot(c[i], c[j])
		}
	}
	return math.Sqrt(maxEigenSym3(a)) * sigmaMargin
}

// maxEigenSym3 returns the largest eigenvalue of a symmetric 3×3 matrix
// (the trigonometric solution of the characteristic cubic).
func maxEigenSym3(a [3][3]float64) float64 {
	p1 := float64(a[0][1]*a[0][1]) + float64(a[0][2]*a[0][2]) + float64(a[1][2]*a[1][2])
	q := (a[0][0] + a[1][1] + a[2][2]) / 3
	d0, d1, d2 := a[0][0]-q, a[1][1]-q, a[2][2]-q
	p2 := float64(d0*d0) + float64(d1*d1) + float64(d2*d2) + 2*p1
	if p2 <= 1e-30*q*q || p1 == 0 {
		return max(a[0][0], a[1][1], a[2][2])
	}
	p := math.Sqrt(p2 / 6)
	var b [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			b[i][j] = a[i][j] / p
		}
		b[i][i] -= q / p
	}
	m2 := func(a, b, c, d float64) float64 { return float64(a*b) - float64(c*d) }
	det := float64(b[0][0]*m2(b[1][1], b[2][2], b[1][2], b[2][1])) -
		float64(b[0][1]*m2(b[1][0], b[2][2], b[1][2], b[2][0])) +
		float64(b[0][2]*m2(b[1][0], b[2][1], b[1][1], b[2][0]))
	r := math.Max(-1, math.Min(1, det/2))
	return q + float64(2*p*math.Cos(math.Acos(r)/3))
}

func dot(a, b [3]float64) float64 {
	return float64(a[0]*b[0]) + float64(a[1]*b[1]) + float64(a[2]*b[2])
}
