package msh7

import (
	"math"
	"math/rand/v2"
	"testing"
)

// formats.md §4: "a degenerate axis packs as 0x8080"; +Z is the centre of
// the octahedral square, (0.5, 0.5) → unorm8 128 = 0x80 twice.
func TestPackAxisPlusZ(t *testing.T) {
	if got := PackAxis([3]float32{0, 0, 1}); got != 0x8080 {
		t.Fatalf("PackAxis(+Z) = %#04x, want 0x8080", got)
	}
	if got := PackAxis([3]float32{0, 0, 7}); got != 0x8080 {
		t.Fatalf("PackAxis(7·+Z) = %#04x, want 0x8080", got)
	}
	w := PackCone([3]float32{0, 0, 1}, 0.9)
	if w&0xFFFF != 0x8080 || w>>24 != 1 {
		t.Fatalf("PackCone(+Z, 0.9) = %#08x, want axis 0x8080 and flags 1", w)
	}
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, a := range [][3]float32{{0, 0, 0}, {nan, 0, 1}, {inf, 0, 0}, {0, -inf, 0}} {
		if got := PackAxis(a); got != 0x8080 {
			t.Errorf("PackAxis(%v) = %#04x, want 0x8080 (degenerate)", a, got)
		}
	}
}

// Hand-computed axes: L1 normalisation, the z < 0 fold with sign(0) = +1,
// x in the low byte.
func TestPackAxisValues(t *testing.T) {
	for _, tc := range []struct {
		a    [3]float32
		want uint16
	}{
		{[3]float32{1, 0, 0}, 0x80FF},  // x 1 → 255, y 0 → 128
		{[3]float32{-1, 0, 0}, 0x8000}, // x −1 → 0
		{[3]float32{0, 1, 0}, 0xFF80},
		{[3]float32{0, 0, -1}, 0xFFFF},   // fold: (1, 1)
		{[3]float32{1, 1, 0}, 0xBFBF},    // (0.5, 0.5) → 0.75·255 + 0.5 = 191.75 → 191
		{[3]float32{1, 0, -1}, 0xBFFF},   // (0.5, 0, −0.5) folds to (1, 0.5)
		{[3]float32{-1, -1, -2}, 0x2020}, // (−.25, −.25, −.5) folds to (−.75, −.75) → 0.125·255 + 0.5 = 32.375 → 32
	} {
		if got := PackAxis(tc.a); got != tc.want {
			t.Errorf("PackAxis(%v) = %#04x, want %#04x", tc.a, got, tc.want)
		}
	}
	// Decoding inverts the encoding up to quantisation.
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		a := randUnit(r)
		q := DecodeAxis(PackAxis(f32v(a)))
		if d := dot64(a, q); d < math.Cos(1.5*math.Pi/180) {
			t.Fatalf("axis %v decodes to %v, dot %v", a, q, d)
		}
	}
}

// A degenerate cone packs to 0: no cutoff, a cutoff ≤ 0, NaN, a zero axis,
// or a cutoff that rounds down to 0 once widened.
func TestPackConeDegenerate(t *testing.T) {
	z := [3]float32{0, 0, 1}
	for _, tc := range []struct {
		name string
		axis [3]float32
		c    float64
	}{
		{"cutoff 0", z, 0},
		{"negative cutoff", z, -0.5},
		{"NaN cutoff", z, math.NaN()},
		{"zero axis", [3]float32{}, 0.9},
		{"NaN axis", [3]float32{float32(math.NaN()), 0, 1}, 0.9},
		{"cutoff rounds to 0", z, 0.003},
		{"widening eats the cutoff", [3]float32{0.3, 0.2, 0.9}, 0.004},
	} {
		if got := PackCone(tc.axis, tc.c); got != 0 {
			t.Errorf("%s: PackCone = %#08x, want 0", tc.name, got)
		}
	}
	if _, _, ok := DecodeCone(0); ok {
		t.Error("word 0 decodes as enabled")
	}
	if got := MinDotFromCutoff(1); got != 0 {
		t.Errorf("MinDotFromCutoff(1) = %v, want 0 (no cone)", got)
	}
	if got := MinDotFromCutoff(0.6); math.Abs(got-0.8) > 1e-7 {
		t.Errorf("MinDotFromCutoff(0.6) = %v, want 0.8", got)
	}
}

// The cutoff is rounded down after widening: +Z decodes to a slightly
// tilted axis, so even a cone about +Z loses a little.
func TestPackConeRoundsDown(t *testing.T) {
	w := PackCone([3]float32{0, 0, 1}, 1)
	_, c, ok := DecodeCone(w)
	if !ok || c >= 1 {
		t.Fatalf("PackCone(+Z, 1) = %#08x: cutoff %v, want enabled and < 1", w, c)
	}
	q := DecodeAxis(0x8080)
	if c > q[2] {
		t.Fatalf("cutoff %v exceeds dot(+Z, decoded axis) %v", c, q[2])
	}
	if want := uint32(math.Floor((q[2] - coneEps) * 255)); w>>16&255 != want {
		t.Fatalf("cutoff byte %d, want %d", w>>16&255, want)
	}
}

// Conservative packing: every normal inside the exact cone is inside the
// decoded one, and whenever the decoded cone culls a camera the exact cone
// culls it too.
func TestPackConeConservative(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	enabled := 0
	for range 3000 {
		a := randUnit(r)
		a32 := f32v(a)
		ax, _ := unit64(a32)
		c := r.Float64()
		if r.IntN(4) == 0 {
			c = 1 - r.Float64()*0.05 // narrow cones stress the widening most
		}
		w := PackCone(a32, c)
		q, cq, ok := DecodeCone(w)
		if !ok {
			continue
		}
		enabled++
		if cq <= 0 || cq > c {
			t.Fatalf("axis %v cutoff %v: decoded cutoff %v", a, c, cq)
		}
		// Normals on and inside the exact cone's boundary.
		for range 40 {
			n := randInCone(r, ax, c)
			if dot64(n, q) < cq {
				t.Fatalf("axis %v cutoff %v: normal %v (dot %v) escapes decoded cone (%v, %v): dot %v",
					a, c, n, dot64(n, ax), q, cq, dot64(n, q))
			}
		}
		// Cameras around a random sphere.
		center := [3]float64{r.Float64()*4 - 2, r.Float64()*4 - 2, r.Float64()*4 - 2}
		rad := r.Float64()
		for range 40 {
			d := randUnit(r)
			if r.IntN(2) == 0 {
				// Cameras behind the cone, near the culling boundary.
				d = randInCone(r, [3]float64{-ax[0], -ax[1], -ax[2]}, math.Sqrt(1-c*c)*0.9)
			}
			dist := rad * (1 + 30*r.Float64())
			cam := [3]float64{center[0] + d[0]*dist, center[1] + d[1]*dist, center[2] + d[2]*dist}
			if coneCulls(q, cq, center, rad, cam) && !coneCulls(ax, c, center, rad, cam) {
				t.Fatalf("axis %v cutoff %v: packed cone culls camera %v, exact cone does not", a, c, cam)
			}
		}
	}
	if enabled < 2000 {
		t.Fatalf("only %d of 3000 cones enabled", enabled)
	}
}

// Built meshlets' cones hold every face normal of their triangles, and a
// camera the cone culls sees no front face.
func TestBuildConesHoldNormals(t *testing.T) {
	in := withMeshlets(sphereInput(16, 32, 3))
	f := mustBuild(t, in)
	on := 0
	for m, im := range in.Meshlets {
		q, c, ok := DecodeCone(f.Bounds[m].Cone)
		if !ok {
			continue
		}
		on++
		for k := 0; k < len(im.Triangles); k += 3 {
			p := func(i int) [3]float64 {
				v := in.Positions[im.Vertices[im.Triangles[k+i]]]
				return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
			}
			n := cross64(sub64(p(1), p(0)), sub64(p(2), p(0)))
			l := math.Sqrt(dot64(n, n))
			if l == 0 {
				continue
			}
			if d := dot64(n, q) / l; d < c {
				t.Fatalf("meshlet %d triangle %d: normal dot %v < cutoff %v", m, k/3, d, c)
			}
		}
	}
	if on == 0 {
		t.Fatal("no meshlet of a sphere has a cone")
	}
}

func randUnit(r *rand.Rand) [3]float64 {
	for {
		v := [3]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		if l := math.Sqrt(dot64(v, v)); l > 1e-6 {
			return [3]float64{v[0] / l, v[1] / l, v[2] / l}
		}
	}
}

// randInCone returns a unit vector at angle ≤ acos(c) from the unit axis a,
// half of them exactly on the boundary.
func randInCone(r *rand.Rand, a [3]float64, c float64) [3]float64 {
	// An orthonormal frame around a.
	u := placeholderTangent(a)
	v := cross64(a, u)
	th := math.Acos(math.Max(-1, math.Min(1, c)))
	if r.IntN(2) == 0 {
		th *= r.Float64()
	}
	ph := 2 * math.Pi * r.Float64()
	s, k := math.Sin(th), math.Cos(th)
	return [3]float64{
		k*a[0] + s*(math.Cos(ph)*u[0]+math.Sin(ph)*v[0]),
		k*a[1] + s*(math.Cos(ph)*u[1]+math.Sin(ph)*v[1]),
		k*a[2] + s*(math.Cos(ph)*u[2]+math.Sin(ph)*v[2]),
	}
}

func f32v(a [3]float64) [3]float32 { return [3]float32{float32(a[0]), float32(a[1]), float32(a[2])} }
