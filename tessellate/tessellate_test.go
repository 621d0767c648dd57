package tessellate

import (
	"fmt"
	"math"
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

// placement is one transform family the accuracy tests sweep.
type placement struct {
	name   string
	t      Transform
	aabbOK bool // axis-aligned: the world AABB equals the transformed unit extents
}

func scaleT(sx, sy, sz float64, tx, ty, tz float64) Transform {
	return Transform{{sx, 0, 0, tx}, {0, sy, 0, ty}, {0, 0, sz, tz}}
}

func placements(size float64) []placement {
	rot := FromMat4(mesh.TRS([3]float64{1.5, -2, 7.25}, [4]float64{0.3, -0.5, 0.2, 0.8}, [3]float64{size, 2.5 * size, 0.7 * size}))
	return []placement{
		{"uniform", scaleT(size, size, size, 3.25, 1.5, -40), true},
		{"tall", scaleT(size, 3*size, size, 0, 0, 0), true},
		{"flat", scaleT(2*size, 0.5*size, size, -1, 2, 3), true},
		{"mirrored", scaleT(-size, size, 1.5*size, 0.5, 0, 0), true},
		{"rotated", rot, false},
	}
}

func partsOf(k Kind, t Transform, segs int) []Part {
	switch k {
	case TaperedCylinder:
		return []Part{
			{Kind: k, Transform: t, Segments: segs, Top: 0.4},
			{Kind: k, Transform: t, Segments: segs, Top: 1.6},
		}
	case Capsule:
		return []Part{
			{Kind: k, Transform: t, Segments: segs, Length: 0},
			{Kind: k, Transform: t, Segments: segs, Length: 2.5},
		}
	case Torus:
		return []Part{
			{Kind: k, Transform: t, Segments: segs, Tube: 0.1},
			{Kind: k, Transform: t, Segments: segs, Tube: 0.25},
		}
	}
	return []Part{{Kind: k, Transform: t, Segments: segs}}
}

var allKinds = []Kind{Box, Sphere, Cylinder, Cone, TaperedCylinder, Capsule, Torus}

// Every primitive, over sizes from a 2 cm tuft to an 8 m hall (24 m when
// stretched) and five
// placements, stays within the tolerance everywhere on every triangle
// (vertices, chord midpoints and interior points), with counts that are
// multiples of 4 and never above the request.
func TestAccuracyWithinTolerance(t *testing.T) {
	const tol = DefaultTolerance
	for _, k := range allKinds {
		for _, size := range []float64{0.02, 0.3, 2, 8} {
			for _, pl := range placements(size) {
				for pi, p := range partsOf(k, pl.t, MaxSegments) {
					name := fmt.Sprintf("%s/%gm/%s/%d", k, size, pl.name, pi)
					res, err := Tessellate(p, Options{Tolerance: tol})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if res.Limited {
						t.Fatalf("%s: limited at %d segments", name, res.Segments)
					}
					checkCounts(t, name, p, res)
					worst := maxDeviation(p, &res.Mesh)
					slack := f32Slack(&res.Mesh)
					if worst > tol+slack {
						t.Errorf("%s: %d×%d segments: surface deviation %.6f m > tolerance %.4f", name, res.Segments, res.Rings, worst, tol)
					}
					if worst > res.Bound+slack {
						t.Errorf("%s: measured %.6f m above the promised bound %.6f", name, worst, res.Bound)
					}
					checkExtents(t, name, p, pl, &res.Mesh)
					checkMesh(t, name, &res.Mesh)
				}
			}
		}
	}
}

func checkCounts(t *testing.T, name string, p Part, res Result) {
	t.Helper()
	if p.Kind == Box {
		if res.TriangleCount() != 12 {
			t.Errorf("%s: box has %d triangles", name, res.TriangleCount())
		}
		return
	}
	if res.Segments%4 != 0 || res.Segments < MinSegments || res.Segments > requestCap(p.Segments) {
		t.Errorf("%s: %d segments (request %d)", name, res.Segments, p.Segments)
	}
	switch p.Kind {
	case Sphere:
		if res.Rings%2 != 0 {
			t.Errorf("%s: %d latitude bands, want even", name, res.Rings)
		}
	case Torus:
		if res.Rings%4 != 0 || res.Rings > requestCap(p.Segments/2) {
			t.Errorf("%s: %d tube segments", name, res.Rings)
		}
	}
}

// Requests cap the count, are never exceeded, and a cap below the need is
// reported as Limited with an honest bound.
func TestRequestCaps(t *testing.T) {
	for _, k := range allKinds[1:] {
		for _, req := range []int{4, 7, 18, 32} {
			for _, p := range partsOf(k, scaleT(20, 20, 20, 0, 0, 0), req) {
				res, err := Tessellate(p, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if res.Segments > max(req, MinSegments) || res.Segments%4 != 0 || res.Rings > max(req, MinSegments) {
					t.Errorf("%s request %d: %d×%d segments", k, req, res.Segments, res.Rings)
				}
				if !res.Limited || res.Bound <= DefaultTolerance {
					t.Errorf("%s request %d on a 20 m part: Limited=%v bound %.4f", k, req, res.Limited, res.Bound)
				}
				if got := maxDeviation(p, &res.Mesh); got > res.Bound+f32Slack(&res.Mesh) {
					t.Errorf("%s request %d: deviation %.5f above bound %.5f", k, req, got, res.Bound)
				}
			}
		}
	}
}

// The chosen count is the fewest multiple of 4 that meets the tolerance:
// 4 fewer segments would not.
func TestFewestSegments(t *testing.T) {
	const tol = DefaultTolerance
	for _, size := range []float64{0.05, 0.4, 1, 3, 9} {
		r := size / 2
		cyl, _ := Tessellate(Part{Kind: Cylinder, Transform: scaleT(size, 1, size, 0, 0, 0), Segments: MaxSegments}, Options{})
		if n := cyl.Segments; Sagitta(r, n) > tol || (n > MinSegments && Sagitta(r, n-4) <= tol) {
			t.Errorf("cylinder Ø%g m: %d segments is not the fewest multiple of 4 within %g", size, n, tol)
		}
		sph, _ := Tessellate(Part{Kind: Sphere, Transform: scaleT(size, size, size, 0, 0, 0), Segments: MaxSegments}, Options{})
		if n := sph.Segments; 2*Sagitta(r, n) > tol || (n > MinSegments && 2*Sagitta(r, n-4) <= tol) {
			t.Errorf("sphere Ø%g m: %d segments is not the fewest multiple of 4", size, n)
		}
		if sph.Rings != sph.Segments/2 {
			t.Errorf("sphere: %d bands for %d segments", sph.Rings, sph.Segments)
		}
	}
	// A 2 cm tuft costs the minimum; a 10 m dome keeps its smoothness.
	tuft, _ := Tessellate(Part{Kind: Sphere, Transform: scaleT(0.02, 0.02, 0.02, 0, 0, 0), Segments: 64}, Options{})
	if tuft.Segments > 12 {
		t.Errorf("2 cm sphere: %d segments", tuft.Segments)
	}
	if got := SegmentsFor(5, tol); got < 128 {
		t.Errorf("SegmentsFor(5 m) = %d", got)
	}
}

// Non-uniform scale uses the largest radius a ring reaches: a cylinder
// squashed to an ellipse 4 m by 0.1 m needs the 2 m radius's count.
func TestNonUniformScaleUsesLargestRadius(t *testing.T) {
	a, _ := Tessellate(Part{Kind: Cylinder, Transform: scaleT(4, 1, 0.1, 0, 0, 0), Segments: MaxSegments}, Options{})
	b, _ := Tessellate(Part{Kind: Cylinder, Transform: scaleT(4, 1, 4, 0, 0, 0), Segments: MaxSegments}, Options{})
	if a.Segments != b.Segments {
		t.Errorf("ellipse 4×0.1 got %d segments, circle Ø4 got %d", a.Segments, b.Segments)
	}
}

// Tolerance changes the count the way the sagitta formula says.
func TestToleranceOption(t *testing.T) {
	p := Part{Kind: Cylinder, Transform: scaleT(2, 2, 2, 0, 0, 0), Segments: MaxSegments}
	fine, _ := Tessellate(p, Options{Tolerance: 0.0001})
	coarse, _ := Tessellate(p, Options{Tolerance: 0.01})
	def, _ := Tessellate(p, Options{})
	if !(fine.Segments > def.Segments && def.Segments > coarse.Segments) {
		t.Errorf("segments fine %d, default %d, coarse %d", fine.Segments, def.Segments, coarse.Segments)
	}
	if want := SegmentsFor(1, DefaultTolerance); def.Segments != want {
		t.Errorf("default tolerance: %d segments, SegmentsFor says %d", def.Segments, want)
	}
}

// TessellateAt draws exactly the author's count, as the legacy path did.
func TestTessellateAtCounts(t *testing.T) {
	id := Identity()
	cases := []struct {
		p    Part
		n    int
		tris int
	}{
		{Part{Kind: Box, Transform: id}, 32, 12},
		{Part{Kind: Cylinder, Transform: id}, 18, 4 * 18},
		{Part{Kind: Cone, Transform: id}, 18, 2 * 18},
		{Part{Kind: TaperedCylinder, Transform: id, Top: 0.5}, 10, 40},
		{Part{Kind: Sphere, Transform: id}, 16, 2 * 16 * (8 - 1)},
		{Part{Kind: Capsule, Transform: id, Length: 1}, 16, 2*16*(2*4-1) + 2*16},
		{Part{Kind: Torus, Transform: id, Tube: 0.1}, 12, 2 * 12 * 6},
	}
	for _, c := range cases {
		m, err := TessellateAt(c.p, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if m.TriangleCount() != c.tris {
			t.Errorf("%s at %d: %d triangles, want %d", c.p.Kind, c.n, m.TriangleCount(), c.tris)
		}
		checkMesh(t, c.p.Kind.String(), &m)
	}
}

// Bad parts are errors, not panics.
func TestInvalidParts(t *testing.T) {
	nan := Identity()
	nan[0][0] = math.NaN()
	for _, p := range []Part{
		{Kind: 0, Transform: Identity()},
		{Kind: 99, Transform: Identity()},
		{Kind: Sphere, Transform: nan},
		{Kind: Sphere, Transform: scaleT(1, 0, 1, 0, 0, 0)},
		{Kind: Sphere, Transform: Identity(), Segments: MaxSegments + 1},
		{Kind: Torus, Transform: Identity(), Tube: 0.3},
		{Kind: Torus, Transform: Identity()},
		{Kind: TaperedCylinder, Transform: Identity(), Top: -1},
		{Kind: Capsule, Transform: Identity(), Length: math.Inf(1)},
	} {
		if _, err := Tessellate(p, Options{}); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	if _, err := ParseKind("cube"); err == nil {
		t.Error("ParseKind(cube): no error")
	}
	for _, k := range allKinds {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k, got, err)
		}
	}
}

// Timber parts carry the grain frame: surface kind ranges in u, member
// offset plus metres along the grain in v.
func TestTimberGrain(t *testing.T) {
	// A 4 m log lying along X (cylinder axis Y rotated onto X).
	logT := FromMat4(mesh.TRS([3]float64{10, 1, 2}, [4]float64{0, 0, math.Sqrt2 / 2, math.Sqrt2 / 2}, [3]float64{0.3, 4, 0.3}))
	res, err := Tessellate(Part{Kind: Cylinder, Transform: logT, Segments: 64, Timber: true}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var round, end int
	minV, maxV := math.Inf(1), math.Inf(-1)
	for i, uv := range res.UVs {
		u, v := float64(uv[0]), float64(uv[1])
		switch {
		case u >= -2 && u <= -1:
			round++
		case u >= -4 && u <= -3:
			end++
		default:
			t.Fatalf("vertex %d: u=%v is not a log surface kind", i, u)
		}
		minV, maxV = math.Min(minV, v), math.Max(maxV, v)
	}
	if round == 0 || end == 0 {
		t.Errorf("round side %d vertices, end grain %d", round, end)
	}
	member := (minV - GrainFrameOffset) / GrainMemberStride
	if member != math.Trunc(member) || member < 0 || member >= GrainMembers {
		t.Errorf("v starts at %v: not a member offset", minV)
	}
	if d := maxV - minV; math.Abs(d-4) > 1e-3 {
		t.Errorf("grain runs %.4f m along the log, want 4", d)
	}
	// A board 2 m along Z: sawn faces u ≥ 0 in metres, end grain on the ends.
	board, _ := Tessellate(Part{Kind: Box, Transform: scaleT(0.2, 0.03, 2, 0, 0, 0), Timber: true}, Options{})
	var sawn, ends int
	maxU := 0.0
	for _, uv := range board.UVs {
		switch u := float64(uv[0]); {
		case u >= 0:
			sawn++
			maxU = math.Max(maxU, u)
		case u >= -4 && u <= -3:
			ends++
		default:
			t.Errorf("board u=%v", u)
		}
	}
	if sawn != 16 || ends != 8 || math.Abs(maxU-0.2) > 1e-6 {
		t.Errorf("board: %d sawn, %d end-grain vertices, widest face %.4f m", sawn, ends, maxU)
	}
	// A stake point is hewn.
	stake, _ := Tessellate(Part{Kind: Cone, Transform: scaleT(0.1, 0.3, 0.1, 0, 0, 0), Timber: true, Segments: 16}, Options{})
	hewn := 0
	for _, uv := range stake.UVs {
		if uv[0] >= -6 && uv[0] <= -5 {
			hewn++
		}
	}
	if hewn == 0 {
		t.Error("cone has no hewn-point vertices")
	}
}

// Same part, same bytes.
func TestDeterministic(t *testing.T) {
	p := Part{Kind: Capsule, Transform: FromMat4(mesh.TRS([3]float64{1, 2, 3}, [4]float64{0.1, 0.2, 0.3, 0.9}, [3]float64{0.4, 1, 0.4})), Segments: 64, Length: 1.5, Timber: true}
	a, _ := Tessellate(p, Options{})
	b, _ := Tessellate(p, Options{})
	if fmt.Sprint(a.Mesh) != fmt.Sprint(b.Mesh) {
		t.Error("two tessellations differ")
	}
}

// f32Slack is what storing positions as float32 may add to a distance: a
// few units in the last place of the largest coordinate.
func f32Slack(m *Mesh) float64 {
	big := 0.0
	for _, q := range m.Positions {
		for _, c := range q {
			big = math.Max(big, math.Abs(float64(c)))
		}
	}
	return 1e-7 + 4*big*0x1p-24
}

// checkExtents: the vertices at both ends of every unit axis exist, and for
// axis-aligned placements the world AABB equals the transformed extents.
func checkExtents(t *testing.T, name string, p Part, pl placement, m *Mesh) {
	t.Helper()
	ext := unitExtents(p)
	has := map[mesh.Vec3]bool{}
	for _, q := range m.Positions {
		has[q] = true
	}
	// the height of the widest ring
	ringY := 0.0
	switch p.Kind {
	case Cylinder, Cone:
		ringY = -0.5
	case TaperedCylinder:
		ringY = -0.5
		if p.Top > 1 {
			ringY = 0.5
		}
	case Capsule:
		ringY = p.Length / 2
	}
	for k := 0; k < 3; k++ {
		for _, s := range []float64{-1, 1} {
			var u [3]float64
			u[k] = s * ext[k]
			switch {
			case p.Kind == Box:
				u = [3]float64{s * 0.5, s * 0.5, s * 0.5}
			case k != 1:
				u[1] = ringY
			case p.Kind == Torus:
				u[0] = 0.5 - p.Tube
			}
			w := p.Transform.Point(u)
			if !has[mesh.Vec3{float32(w[0]), float32(w[1]), float32(w[2])}] {
				t.Errorf("%s: no vertex at the unit extent %v", name, u)
			}
		}
	}
	if !pl.aabbOK {
		return
	}
	b := mesh.ComputeBounds(m.Positions, nil)
	for k := 0; k < 3; k++ {
		lo := float32(float64(p.Transform[k][k]*-ext[k]) + p.Transform[k][3])
		hi := float32(float64(p.Transform[k][k]*ext[k]) + p.Transform[k][3])
		if lo > hi {
			lo, hi = hi, lo
		}
		if b.Min[k] != lo || b.Max[k] != hi {
			t.Errorf("%s: axis %d extent [%v, %v], want exactly [%v, %v]", name, k, b.Min[k], b.Max[k], lo, hi)
		}
	}
}

// unitExtents is the half size of the unit primitive along x, y, z.
func unitExtents(p Part) [3]float64 {
	switch p.Kind {
	case TaperedCylinder:
		r := 0.5 * math.Max(1, p.Top)
		return [3]float64{r, 0.5, r}
	case Capsule:
		return [3]float64{0.5, p.Length/2 + 0.5, 0.5}
	case Torus:
		return [3]float64{0.5, p.Tube, 0.5}
	}
	return [3]float64{0.5, 0.5, 0.5}
}

// checkMesh: streams parallel, indices in range, unit normals, and the
// winding agrees with the normals (front faces counter-clockwise).
func checkMesh(t *testing.T, name string, m *Mesh) {
	t.Helper()
	n := len(m.Positions)
	if len(m.Normals) != n || len(m.UVs) != n || len(m.Indices)%3 != 0 {
		t.Fatalf("%s: streams %d/%d/%d, %d indices", name, n, len(m.Normals), len(m.UVs), len(m.Indices))
	}
	agree, against := 0, 0
	for i := 0; i < len(m.Indices); i += 3 {
		a, b, c := m.Indices[i], m.Indices[i+1], m.Indices[i+2]
		if int(a) >= n || int(b) >= n || int(c) >= n {
			t.Fatalf("%s: index out of range", name)
		}
		g := m.Positions[b].Sub(m.Positions[a]).Cross(m.Positions[c].Sub(m.Positions[a]))
		if g.Length() == 0 {
			t.Errorf("%s: degenerate triangle %d", name, i/3)
			continue
		}
		avg := m.Normals[a].Add(m.Normals[b]).Add(m.Normals[c])
		if g.Dot(avg) > 0 {
			agree++
		} else {
			against++
		}
	}
	if against > 0 {
		t.Errorf("%s: %d triangles wind against their normals (%d agree)", name, against, agree)
	}
	for i, v := range m.Normals {
		if l := v.Length(); math.Abs(float64(l)-1) > 1e-5 {
			t.Fatalf("%s: normal %d has length %v", name, i, l)
		}
	}
}

// maxDeviation samples every triangle at its edge midpoints (the chord
// midpoints, where a circumcircle's centre lies for the right-angled
// triangles of a grid), its centroid and three interior quarter points, and
// returns the largest distance from a sample to the true surface. The distance is measured to a known point of
// the true surface (found in unit space), so it is an upper bound on the
// exact distance: a pass is a real pass.
func maxDeviation(p Part, m *Mesh) float64 {
	inv := inverse(p.Transform)
	samples := [][3]float64{{0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {1.0 / 3, 1.0 / 3, 1.0 / 3},
		{0.5, 0.25, 0.25}, {0.25, 0.5, 0.25}, {0.25, 0.25, 0.5}}
	worst := 0.0
	for i := 0; i < len(m.Indices); i += 3 {
		var v [3][3]float64
		for j := 0; j < 3; j++ {
			q := m.Positions[m.Indices[i+j]]
			v[j] = [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
		}
		for _, s := range samples {
			var w [3]float64
			for d := 0; d < 3; d++ {
				w[d] = s[0]*v[0][d] + s[1]*v[1][d] + s[2]*v[2][d]
			}
			worst = math.Max(worst, distToSurface(p, inv, w))
		}
	}
	return worst
}

// distToSurface: world distance from w to the nearest of a few true
// surface points chosen in unit space (the radial projection at the same
// height for a wall, the radial projection from a sphere's centre, the
// nearest point of a cap disc or box face).
func distToSurface(p Part, inv Transform, w [3]float64) float64 {
	u := inv.Point(w)
	best := math.Inf(1)
	try := func(q [3]float64) {
		x := p.Transform.Point(q)
		best = math.Min(best, math.Sqrt(sq(x[0]-w[0])+sq(x[1]-w[1])+sq(x[2]-w[2])))
	}
	rad := func(x, z float64) (float64, float64) {
		l := math.Hypot(x, z)
		if l == 0 {
			return 1, 0
		}
		return x / l, z / l
	}
	ball := func(c [3]float64, r float64) {
		d := [3]float64{u[0] - c[0], u[1] - c[1], u[2] - c[2]}
		l := math.Sqrt(dot(d, d))
		if l == 0 {
			return
		}
		try([3]float64{c[0] + r*d[0]/l, c[1] + r*d[1]/l, c[2] + r*d[2]/l})
	}
	disc := func(y, r float64) {
		x, z := u[0], u[2]
		if l := math.Hypot(x, z); l > r {
			x, z = x*r/l, z*r/l
		}
		try([3]float64{x, y, z})
	}
	switch p.Kind {
	case Box:
		for k := 0; k < 3; k++ {
			for _, s := range []float64{-0.5, 0.5} {
				q := u
				for j := range q {
					q[j] = math.Max(-0.5, math.Min(0.5, q[j]))
				}
				q[k] = s
				try(q)
			}
		}
	case Sphere:
		ball([3]float64{}, 0.5)
	case Capsule:
		h := p.Length / 2
		ball([3]float64{0, math.Max(-h, math.Min(h, u[1])), 0}, 0.5)
		if u[1] >= -h && u[1] <= h {
			cx, cz := rad(u[0], u[2])
			try([3]float64{0.5 * cx, u[1], 0.5 * cz})
		}
	case Torus:
		cx, cz := rad(u[0], u[2])
		major := 0.5 - p.Tube
		ball([3]float64{major * cx, 0, major * cz}, p.Tube)
	default:
		top := 1.0
		if p.Kind == Cone {
			top = 0
		} else if p.Kind == TaperedCylinder {
			top = p.Top
		}
		y := math.Max(-0.5, math.Min(0.5, u[1]))
		r := 0.5 + (y+0.5)*(0.5*top-0.5)
		cx, cz := rad(u[0], u[2])
		try([3]float64{r * cx, y, r * cz})
		disc(-0.5, 0.5)
		disc(0.5, 0.5*top)
	}
	return best
}

func sq(x float64) float64 { return x * x }

// inverse returns the inverse affine transform (test helper).
func inverse(t Transform) Transform {
	c := normalMatrix(t) // cofactors, sign-fixed: cof·sign(det)
	det := math.Abs(t.Det())
	var o Transform
	for r := 0; r < 3; r++ {
		for k := 0; k < 3; k++ {
			o[r][k] = c[k][r] / det
		}
	}
	tr := [3]float64{t[0][3], t[1][3], t[2][3]}
	for r := 0; r < 3; r++ {
		o[r][3] = -(o[r][0]*tr[0] + o[r][1]*tr[1] + o[r][2]*tr[2])
	}
	return o
}
