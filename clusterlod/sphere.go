package clusterlod

import "math"

// mergeSpheres returns a sphere enclosing every sphere (centers[i],
// radii[i]), rounded so that the float32 result contains each input
// exactly: |c - centers[i]| + radii[i] <= r in float64 from the float32 c
// and r. Of two candidates it keeps the smaller: the centre of the
// spheres' bounding box, and Ritter's growth (start from the two spheres
// farthest apart, widen towards each sphere outside), which is tighter on
// elongated sets.
func mergeSpheres(centers [][3]float64, radii []float64) ([3]float32, float32) {
	if len(centers) == 0 {
		return [3]float32{}, 0
	}
	// Candidate 1: box centre.
	lo, hi := centers[0], centers[0]
	for i, c := range centers {
		for j := range 3 {
			lo[j] = math.Min(lo[j], c[j]-radii[i])
			hi[j] = math.Max(hi[j], c[j]+radii[i])
		}
	}
	best := [3]float64{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2}
	bestR := enclosing(best, centers, radii)

	// Candidate 2: Ritter.
	far := func(from [3]float64) int {
		k, d := 0, -1.0
		for i, c := range centers {
			if x := math.Sqrt(dist2(from, c)) + radii[i]; x > d {
				k, d = i, x
			}
		}
		return k
	}
	a := far(centers[0])
	bi := far(centers[a])
	ca, cb := centers[a], centers[bi]
	dab := math.Sqrt(dist2(ca, cb))
	var c [3]float64
	r := math.Max(radii[a], radii[bi])
	if dab > 0 {
		// the sphere through the far sides of a and b
		r = math.Max(r, (dab+radii[a]+radii[bi])/2)
		t := (r - radii[a]) / dab
		for j := range 3 {
			c[j] = ca[j] + (cb[j]-ca[j])*t
		}
	} else {
		c = ca
	}
	for i, p := range centers {
		d := math.Sqrt(dist2(c, p))
		if d+radii[i] <= r {
			continue
		}
		if d == 0 {
			r = radii[i]
			continue
		}
		nr := (r + d + radii[i]) / 2
		t := (nr - r) / d
		for j := range 3 {
			c[j] += (p[j] - c[j]) * t
		}
		r = nr
	}
	if rr := enclosing(c, centers, radii); rr < bestR {
		best = c
	}
	return roundSphere(best, centers, radii)
}

// enclosing is the smallest radius around c holding every sphere.
func enclosing(c [3]float64, centers [][3]float64, radii []float64) float64 {
	r := 0.0
	for i, p := range centers {
		r = math.Max(r, math.Sqrt(dist2(c, p))+radii[i])
	}
	return r
}

// roundSphere rounds c to float32 and returns the radius that holds every
// sphere around the rounded centre, rounded up.
func roundSphere(c [3]float64, centers [][3]float64, radii []float64) ([3]float32, float32) {
	c32 := [3]float32{float32(c[0]), float32(c[1]), float32(c[2])}
	r := enclosing(to64(c32), centers, radii)
	r32 := float32(r)
	for float64(r32) < r {
		r32 = math.Nextafter32(r32, float32(math.Inf(1)))
	}
	return c32, r32
}
