package simplify

import (
	"math"
	"math/rand"
	"testing"
)

// pointTriangle2 must equal the squared distance to the closest point of
// the triangle: never above the best of a dense barycentric sampling, and
// within the sampling's resolution of it, for points in every Voronoi
// region (vertices, edges, interior) and for slivers.
func TestPointTriangle2MatchesSampling(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	rnd := func() vec3 { return vec3{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1} }
	const steps = 200
	for i := range 300 {
		a, b, c, p := rnd(), rnd(), rnd(), rnd()
		if i%10 == 0 { // sliver: c almost on ab
			c = a.add(b.sub(a).scale(0.3)).add(vec3{1e-4, 0, 0})
		}
		got := pointTriangle2(p, a, b, c)
		best := math.Inf(1)
		for u := 0; u <= steps; u++ {
			for v := 0; u+v <= steps; v++ {
				q := a.add(b.sub(a).scale(float64(u) / steps)).add(c.sub(a).scale(float64(v) / steps))
				d := p.sub(q)
				best = math.Min(best, d.dot(d))
			}
		}
		if got > best+1e-12 {
			t.Fatalf("case %d: distance² %g above a sampled point's %g", i, got, best)
		}
		// Sampling resolution: the longest edge over steps.
		h := math.Max(b.sub(a).length(), math.Max(c.sub(a).length(), c.sub(b).length())) / steps
		if math.Sqrt(best)-math.Sqrt(got) > h {
			t.Fatalf("case %d: distance %g, sampled %g (resolution %g)", i, math.Sqrt(got), math.Sqrt(best), h)
		}
	}
}

// The local bound of a collapse is zero on a flat fan (the removed point
// and the new edges stay on the plane) and at least the removed point's
// height when it is lifted off the plane of its neighbours.
func TestLocalBoundFlatAndLifted(t *testing.T) {
	for _, lift := range []float32{0, 0.25} {
		// A hexagon fan around vertex 0, with vertex 0 raised by lift.
		pos := [][3]float32{{0, 0, lift}}
		for k := range 6 {
			a := float64(k) * math.Pi / 3
			pos = append(pos, [3]float32{float32(math.Cos(a)), float32(math.Sin(a)), 0})
		}
		var idx []uint32
		for k := range 6 {
			idx = append(idx, 0, uint32(1+k), uint32(1+(k+1)%6))
		}
		// Close it below so that every vertex is manifold: a cone to (0,0,-1).
		pos = append(pos, [3]float32{0, 0, -1})
		for k := range 6 {
			idx = append(idx, 7, uint32(1+(k+1)%6), uint32(1+k))
		}
		opts := Options{TargetError: 1}
		if err := validate(idx, pos, Attributes{}, &opts); err != nil {
			t.Fatal(err)
		}
		s := newState(idx, pos, Attributes{}, &opts)
		s.adjOff, s.adj = buildAdjacency(s.result, s.n, s.remap, s.adjOff, s.adj)
		for i := range s.ccur {
			s.ccur[i] = uint32(i)
		}
		ok, d := s.validBound(s.scratchFor(0), 0, 1)
		if !ok {
			t.Fatalf("lift %v: collapse 0→1 refused", lift)
		}
		d *= s.extent
		if lift == 0 && d > 1e-9 {
			t.Fatalf("flat fan: bound %g, want 0", d)
		}
		if lift > 0 && d < float64(lift)*0.999 {
			t.Fatalf("lifted fan: bound %g below the lift %g", d, lift)
		}
	}
}
