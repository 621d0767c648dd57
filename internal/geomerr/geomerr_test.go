package geomerr

import (
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plane: an n×n grid on z = z0 over [0,1]².
func plane(n int, z0 float32) ([][3]float32, []uint32) {
	var pos [][3]float32
	for y := 0; y <= n; y++ {
		for x := 0; x <= n; x++ {
			pos = append(pos, [3]float32{float32(x) / float32(n), float32(y) / float32(n), z0})
		}
	}
	var idx []uint32
	w := uint32(n + 1)
	for y := uint32(0); y < uint32(n); y++ {
		for x := uint32(0); x < uint32(n); x++ {
			a := y*w + x
			idx = append(idx, a, a+w, a+1, a+1, a+w, a+w+1)
		}
	}
	return pos, idx
}

// Distances to a unit square match the analytic value inside, past an
// edge and past a corner; the grid search agrees with brute force.
func TestDistanceMatchesBruteForce(t *testing.T) {
	pos, idx := plane(12, 0)
	s := NewSurface(pos, idx)
	cases := []struct {
		p    [3]float64
		want float64
	}{
		{[3]float64{0.5, 0.5, 0.25}, 0.25},
		{[3]float64{1.5, 0.5, 0}, 0.5},
		{[3]float64{2, 2, 1}, math.Sqrt(3)},
		{[3]float64{0.3, 0.7, -3}, 3},
	}
	for _, c := range cases {
		if got := s.Distance(c.p); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Distance(%v) = %g, want %g", c.p, got, c.want)
		}
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		p := [3]float64{r.Float64()*3 - 1, r.Float64()*3 - 1, r.Float64()*2 - 1}
		brute := math.Inf(1)
		for t := 0; t < len(idx); t += 3 {
			a, b, c := pos[idx[t]], pos[idx[t+1]], pos[idx[t+2]]
			f := func(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }
			brute = math.Min(brute, pointTriangle(p, f(a), f(b), f(c)))
		}
		if got := s.Distance(p); math.Abs(got-brute) > 1e-12 {
			t.Fatalf("Distance(%v) = %g, brute force %g", p, got, brute)
		}
	}
}

// Two parallel planes 0.1 apart are 0.1 apart both ways; a surface is 0
// from itself; sampling is deterministic.
func TestHausdorff(t *testing.T) {
	a, ai := plane(8, 0)
	b, bi := plane(5, 0.1)
	if h := Hausdorff(a, ai, b, bi, 500); math.Abs(h-0.1) > 1e-6 {
		t.Errorf("parallel planes: %g, want 0.1", h)
	}
	if h := Hausdorff(a, ai, a, ai, 500); h > 1e-12 {
		t.Errorf("self distance %g", h)
	}
	s1, s2 := Sample(a, ai, 100, 7), Sample(a, ai, 100, 7)
	for i := range s1 {
		if s1[i] != s2[i] {
			t.Fatal("sampling not deterministic")
		}
	}
	if e := Extent(a, ai); math.Abs(e-math.Sqrt2) > 1e-6 {
		t.Errorf("extent %g", e)
	}
}

// OneSided stops each point's search once the point is nearer than the
// largest distance so far; the maximum must still be exactly the largest
// full Distance, and distanceAbove exact above its floor and at most the
// floor below it.
func TestOneSidedEqualsMaxOfDistances(t *testing.T) {
	fine, fi := plane(40, 0)
	r := rand.New(rand.NewSource(3))
	for i := range fine {
		fine[i][2] = float32(0.05 * math.Sin(9*float64(fine[i][0])) * math.Cos(7*float64(fine[i][1])))
		fine[i][2] += float32(0.01 * r.Float64())
	}
	coarse, ci := plane(6, 0.02)
	to := NewSurface(coarse, ci)
	pts := Sample(fine, fi, 5000, 11)
	want := 0.0
	for _, p := range pts {
		want = math.Max(want, to.Distance(p))
	}
	require.Greater(t, want, 0.0)
	assert.Equal(t, want, OneSided(pts, to), "early exit changed the maximum")
	for _, p := range pts[:500] {
		d := to.Distance(p)
		for _, floor := range []float64{d / 2, d, 2 * d} {
			got := to.distanceAbove(p, floor)
			if d > floor {
				assert.Equal(t, d, got, "above the floor the distance is exact")
			} else {
				assert.LessOrEqual(t, got, floor, "below the floor it is at most the floor")
				assert.GreaterOrEqual(t, got, d, "and never below the true distance")
			}
		}
	}
}
