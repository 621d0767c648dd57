package meshlet

import (
	"math"
	"testing"
)

// minBall finds the known minimum ball of simple configurations, including
// degenerate ones (duplicates, collinear, coplanar points).
func TestMinBallKnownCases(t *testing.T) {
	s3 := math.Sqrt(3)
	cases := []struct {
		name string
		pts  [][3]float64
		c    [3]float64
		r    float64
	}{
		{"single", [][3]float64{{1, 2, 3}}, [3]float64{1, 2, 3}, 0},
		{"duplicates", [][3]float64{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, [3]float64{1, 1, 1}, 0},
		{"pair", [][3]float64{{0, 0, 0}, {2, 0, 0}}, [3]float64{1, 0, 0}, 1},
		{"collinear", [][3]float64{{0, 0, 0}, {1, 0, 0}, {4, 0, 0}, {3, 0, 0}, {2, 0, 0}}, [3]float64{2, 0, 0}, 2},
		{"square corners + centre", [][3]float64{{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {0, 0, 0}}, [3]float64{0, 0, 0}, math.Sqrt2},
		{"obtuse triangle uses its long edge", [][3]float64{{-2, 0, 0}, {2, 0, 0}, {0, 0.5, 0}}, [3]float64{0, 0, 0}, 2},
		{"equilateral triangle", [][3]float64{{1, 0, 0}, {-0.5, s3 / 2, 0}, {-0.5, -s3 / 2, 0}}, [3]float64{0, 0, 0}, 1},
		{"cube corners", [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}}, [3]float64{.5, .5, .5}, s3 / 2},
		{"regular tetrahedron", [][3]float64{{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}}, [3]float64{0, 0, 0}, s3},
	}
	for _, c := range cases {
		pts := append([][3]float64{}, c.pts...)
		b := minBall(pts)
		if d := math.Sqrt(dist2d(b.c, c.c)); d > 1e-9 || math.Abs(math.Sqrt(b.r2)-c.r) > 1e-9 {
			t.Errorf("%s: ball %v r=%v, want %v r=%v", c.name, b.c, math.Sqrt(b.r2), c.c, c.r)
		}
	}
}

// On random clouds the minimum ball contains every point and is never
// larger than Ritter's sphere (the bound meshoptimizer uses).
func TestMinBallTighterThanRitter(t *testing.T) {
	g := lcg(11)
	for trial := 0; trial < 200; trial++ {
		n := 1 + int(g.next()%256)
		pts := make([][3]float64, n)
		for i := range pts {
			pts[i] = [3]float64{float64(g.float()), float64(g.float()) * 3, float64(g.float()) * 0.01}
		}
		orig := append([][3]float64{}, pts...)
		b := minBall(pts)
		rc := ritter(orig)
		rr := 0.0
		for _, p := range orig {
			if !(dist2d(p, b.c) <= b.r2*(1+1e-9)) {
				t.Fatalf("trial %d: point %v outside ball", trial, p)
			}
			rr = math.Max(rr, math.Sqrt(dist2d(p, rc)))
		}
		if math.Sqrt(b.r2) > rr*(1+1e-12) {
			t.Fatalf("trial %d: min ball r=%v larger than Ritter's %v", trial, math.Sqrt(b.r2), rr)
		}
	}
}

// A flat patch gets a cone with an exact axis and almost zero cutoff, and
// the cone is conservative under meshcheck's camera test.
func TestBoundsFlatPatchCone(t *testing.T) {
	idx, pos := grid(6)
	r := mustBuild(t, idx, pos, DefaultOptions())
	if len(r.Meshlets) != 1 {
		t.Fatalf("%d meshlets, want 1", len(r.Meshlets))
	}
	b := ComputeBounds(r, 0, pos)
	if b.ConeAxis != [3]float32{0, 0, 1} || b.ConeCutoff <= 0 || b.ConeCutoff > 0.01 {
		t.Fatalf("cone axis %v cutoff %v, want +Z and a tiny cutoff", b.ConeAxis, b.ConeCutoff)
	}
	if b.Center != [3]float32{2.5, 2.5, 0} || math.Abs(float64(b.Radius)-2.5*math.Sqrt2) > 1e-6 {
		t.Fatalf("sphere %v r=%v, want (2.5,2.5,0) r=%v", b.Center, b.Radius, 2.5*math.Sqrt2)
	}
	checkBounds(t, r, pos)
}

// Normals spread over more than the cutoff (a closed box) disable the cone:
// cutoff 1, zero axis and apex.
func TestBoundsWideConeDisabled(t *testing.T) {
	pos := [][3]float32{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}
	idx := []uint32{0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4, 1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7}
	r := mustBuild(t, idx, pos, DefaultOptions())
	b := ComputeBounds(r, 0, pos)
	if b.ConeCutoff != 1 || b.ConeAxis != ([3]float32{}) || b.ConeApex != ([3]float32{}) {
		t.Fatalf("box cone %+v, want disabled", b)
	}
	checkBounds(t, r, pos)
}

// The minimum-ball axis beats the normal average when normals are uneven:
// many normals on one side, one on the other.
func TestBoundsConeAxisTighterThanAverage(t *testing.T) {
	// A fan of triangles around the origin: eight tilted 30° towards +X,
	// one tilted 30° towards -X. Average leans to +X; the best axis is +Z.
	var pos [][3]float32
	var idx []uint32
	add := func(n [3]float64, at float32) {
		// Triangle in the plane with normal n, near x=at.
		u := [3]float64{n[2], 0, -n[0]} // ⟂ n in the XZ plane
		v := [3]float64{0, 1, 0}
		base := uint32(len(pos))
		for _, c := range [][2]float64{{0, 0}, {1, 0}, {0, 1}} {
			pos = append(pos, [3]float32{at + float32(c[0]*u[0]+c[1]*v[0]), float32(c[0]*u[1] + c[1]*v[1]), float32(c[0]*u[2] + c[1]*v[2])})
		}
		idx = append(idx, base, base+1, base+2)
	}
	s, c := math.Sin(math.Pi/6), math.Cos(math.Pi/6)
	for i := 0; i < 8; i++ {
		add([3]float64{s, 0, c}, float32(i))
	}
	add([3]float64{-s, 0, c}, 8) // within the spatial fallback's reach
	r := mustBuild(t, idx, pos, DefaultOptions())
	if len(r.Meshlets) != 1 {
		t.Fatalf("%d meshlets", len(r.Meshlets))
	}
	b := ComputeBounds(r, 0, pos)
	if math.Abs(float64(b.ConeAxis[0])) > 1e-4 || math.Abs(float64(b.ConeCutoff)-s) > 1e-3 {
		t.Fatalf("axis %v cutoff %v, want +Z and sin 30° = 0.5", b.ConeAxis, b.ConeCutoff)
	}
	checkBounds(t, r, pos)
}

// Malformed results give zero Bounds instead of panicking.
func TestComputeBoundsMalformed(t *testing.T) {
	pos := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	good := Result{Meshlets: []Meshlet{{0, 3, 0, 1}}, Vertices: []uint32{0, 1, 2}, Triangles: []uint8{0, 1, 2}}
	if b := ComputeBounds(good, 0, pos); b.Radius == 0 {
		t.Fatal("good meshlet has zero bounds")
	}
	bad := []Result{
		{Meshlets: []Meshlet{{0, 4, 0, 1}}, Vertices: []uint32{0, 1, 2}, Triangles: []uint8{0, 1, 2}},
		{Meshlets: []Meshlet{{0, 3, 0, 2}}, Vertices: []uint32{0, 1, 2}, Triangles: []uint8{0, 1, 2}},
		{Meshlets: []Meshlet{{0, 3, 0, 1}}, Vertices: []uint32{0, 1, 9}, Triangles: []uint8{0, 1, 2}},
		{Meshlets: []Meshlet{{0, 3, 0, 1}}, Vertices: []uint32{0, 1, 2}, Triangles: []uint8{0, 1, 3}},
		{Meshlets: []Meshlet{{math.MaxUint32, 3, 0, 1}}, Vertices: []uint32{0, 1, 2}, Triangles: []uint8{0, 1, 2}},
		{Meshlets: []Meshlet{{0, 3, 0, 1}}, Vertices: []uint32{0, 1, 3}, Triangles: []uint8{0, 1, 2}}, // vertex 3 is NaN
	}
	pos = append(pos, [3]float32{float32(math.NaN()), 0, 0})
	for i, r := range bad {
		if b := ComputeBounds(r, 0, pos); b != (Bounds{}) {
			t.Errorf("case %d: %+v, want zero", i, b)
		}
	}
	for _, m := range []int{-1, 1} {
		if b := ComputeBounds(good, m, pos); b != (Bounds{}) {
			t.Errorf("meshlet %d: %+v, want zero", m, b)
		}
	}
}

// ritter is Jack Ritter's sphere ("An Efficient Bounding Sphere", 1990):
// the widest pair of axis extremes, grown to cover every point.
func ritter(pts [][3]float64) [3]float64 {
	var lo, hi [3]int
	for i, p := range pts {
		for k := 0; k < 3; k++ {
			if p[k] < pts[lo[k]][k] {
				lo[k] = i
			}
			if p[k] > pts[hi[k]][k] {
				hi[k] = i
			}
		}
	}
	axisK, best := 0, -1.0
	for k := 0; k < 3; k++ {
		if d := dist2d(pts[lo[k]], pts[hi[k]]); d > best {
			axisK, best = k, d
		}
	}
	c := mid(pts[lo[axisK]], pts[hi[axisK]])
	r := math.Sqrt(best) / 2
	for _, x := range pts {
		if d := math.Sqrt(dist2d(x, c)); d > r {
			nr := (r + d) / 2
			s := (nr - r) / d
			for k := 0; k < 3; k++ {
				c[k] += float64((x[k] - c[k]) * s)
			}
			r = nr
		}
	}
	return c
}
