package meshlet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/zeebo/xxh3"
)

// ---- generated meshes ----

// grid is an n×n vertex grid in the XY plane (2(n-1)² CCW triangles, +Z up).
func grid(n int) ([]uint32, [][3]float32) {
	pos := make([][3]float32, 0, n*n)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			pos = append(pos, [3]float32{float32(x), float32(y), 0})
		}
	}
	var idx []uint32
	for y := 0; y+1 < n; y++ {
		for x := 0; x+1 < n; x++ {
			a := uint32(y*n + x)
			b, c, d := a+1, a+uint32(n), a+uint32(n)+1
			idx = append(idx, a, b, d, a, d, c)
		}
	}
	return idx, pos
}

// uvSphere is a closed unit sphere with rings×segs quads, outward CCW.
func uvSphere(rings, segs int) ([]uint32, [][3]float32) {
	pos := [][3]float32{{0, 0, 1}}
	for r := 1; r < rings; r++ {
		th := math.Pi * float64(r) / float64(rings)
		for s := 0; s < segs; s++ {
			ph := 2 * math.Pi * float64(s) / float64(segs)
			pos = append(pos, [3]float32{float32(math.Sin(th) * math.Cos(ph)), float32(math.Sin(th) * math.Sin(ph)), float32(math.Cos(th))})
		}
	}
	pos = append(pos, [3]float32{0, 0, -1})
	south := uint32(len(pos) - 1)
	ring := func(r, s int) uint32 { return uint32(1 + (r-1)*segs + (s % segs)) }
	var idx []uint32
	for s := 0; s < segs; s++ {
		idx = append(idx, 0, ring(1, s), ring(1, s+1))
	}
	for r := 1; r+1 < rings; r++ {
		for s := 0; s < segs; s++ {
			a, b, c, d := ring(r, s), ring(r, s+1), ring(r+1, s), ring(r+1, s+1)
			idx = append(idx, a, c, d, a, d, b)
		}
	}
	for s := 0; s < segs; s++ {
		idx = append(idx, ring(rings-1, s), south, ring(rings-1, s+1))
	}
	return idx, pos
}

// lcg is a tiny deterministic generator for test data.
type lcg uint64

func (l *lcg) next() uint32 {
	*l = *l*6364136223846793005 + 1442695040888963407
	return uint32(*l >> 33)
}
func (l *lcg) float() float32 { return float32(l.next()) / float32(1<<31) }

// soup is n random triangles that share no vertices.
func soup(n int, seed lcg) ([]uint32, [][3]float32) {
	var idx []uint32
	var pos [][3]float32
	for i := 0; i < n; i++ {
		c := [3]float32{seed.float() * 10, seed.float() * 10, seed.float() * 10}
		for k := 0; k < 3; k++ {
			idx = append(idx, uint32(len(pos)))
			pos = append(pos, [3]float32{c[0] + seed.float(), c[1] + seed.float(), c[2] + seed.float()})
		}
	}
	return idx, pos
}

// withDegenerates is a grid plus zero-area triangles: repeated indices,
// collinear corners and coincident positions.
func withDegenerates() ([]uint32, [][3]float32) {
	idx, pos := grid(12)
	n := uint32(len(pos))
	pos = append(pos, [3]float32{3, 3, 0}, [3]float32{3, 3, 0}, [3]float32{3, 3, 0})
	idx = append(idx,
		5, 5, 6, // repeated index
		0, 1, 2, // collinear along the grid row
		n, n+1, n+2, // three coincident positions
		7, 7, 7, // one vertex three times
	)
	return idx, pos
}

// ---- invariant checking ----

// canon rotates a triangle so its smallest index comes first, keeping the
// cyclic order: equal for the same triangle with the same winding.
func canon(a, b, c uint32) [3]uint32 {
	switch {
	case a <= b && a <= c:
		return [3]uint32{a, b, c}
	case b <= a && b <= c:
		return [3]uint32{b, c, a}
	default:
		return [3]uint32{c, a, b}
	}
}

func cmpTri(x, y [3]uint32) int { return slices.Compare(x[:], y[:]) }

// checkResult asserts every contract of Build and ComputeAllBounds.
func checkResult(t *testing.T, idx []uint32, pos [][3]float32, opts Options, r Result) {
	t.Helper()
	// Every triangle exactly once, winding kept.
	want := make([][3]uint32, 0, len(idx)/3)
	for i := 0; i < len(idx); i += 3 {
		want = append(want, canon(idx[i], idx[i+1], idx[i+2]))
	}
	var got [][3]uint32
	nextV, nextT := uint32(0), uint32(0)
	for k, m := range r.Meshlets {
		if m.VertexCount < 1 || int(m.VertexCount) > opts.MaxVertices || m.TriangleCount < 1 || int(m.TriangleCount) > opts.MaxTriangles {
			t.Fatalf("meshlet %d: %d verts / %d tris beyond %d/%d", k, m.VertexCount, m.TriangleCount, opts.MaxVertices, opts.MaxTriangles)
		}
		if m.VertexOffset != nextV || m.TriangleOffset != nextT {
			t.Fatalf("meshlet %d: offsets %d/%d, want dense %d/%d", k, m.VertexOffset, m.TriangleOffset, nextV, nextT)
		}
		nextV += m.VertexCount
		nextT += m.TriangleCount
		if int(nextV) > len(r.Vertices) || 3*int(nextT) > len(r.Triangles) {
			t.Fatalf("meshlet %d: ranges past the result", k)
		}
		vs := r.Vertices[m.VertexOffset : m.VertexOffset+m.VertexCount]
		usedLocal := make([]bool, len(vs))
		seen := map[uint32]bool{}
		for _, v := range vs {
			if seen[v] {
				t.Fatalf("meshlet %d: vertex %d listed twice", k, v)
			}
			seen[v] = true
		}
		firstUse := uint8(0)
		for tt := m.TriangleOffset; tt < m.TriangleOffset+m.TriangleCount; tt++ {
			l := r.Triangles[3*tt : 3*tt+3]
			for _, x := range l {
				if int(x) >= len(vs) {
					t.Fatalf("meshlet %d: local index %d >= %d", k, x, len(vs))
				}
				if !usedLocal[x] {
					if x != firstUse {
						t.Fatalf("meshlet %d: local vertex %d first used before %d (not numbered by first use)", k, x, firstUse)
					}
					firstUse++
				}
				usedLocal[x] = true
			}
			got = append(got, canon(vs[l[0]], vs[l[1]], vs[l[2]]))
		}
		for i, u := range usedLocal {
			if !u {
				t.Fatalf("meshlet %d: local vertex %d unused", k, i)
			}
		}
	}
	if int(nextV) != len(r.Vertices) || 3*int(nextT) != len(r.Triangles) {
		t.Fatalf("result has %d vertices / %d triangle bytes, meshlets cover %d / %d", len(r.Vertices), len(r.Triangles), nextV, 3*nextT)
	}
	slices.SortFunc(want, cmpTri)
	slices.SortFunc(got, cmpTri)
	if !slices.Equal(want, got) {
		t.Fatalf("meshlets do not hold exactly the input triangles with their winding (%d in, %d out)", len(want), len(got))
	}
	checkBounds(t, r, pos)
}

// checkBounds asserts sphere containment and the cone's culling promise,
// with meshcheck's check_cone cameras and tolerance.
func checkBounds(t *testing.T, r Result, pos [][3]float32) {
	t.Helper()
	bs := ComputeAllBounds(r, pos)
	if len(bs) != len(r.Meshlets) {
		t.Fatalf("%d bounds for %d meshlets", len(bs), len(r.Meshlets))
	}
	for k, m := range r.Meshlets {
		b := bs[k]
		if b != ComputeBounds(r, k, pos) {
			t.Fatalf("meshlet %d: ComputeBounds differs from ComputeAllBounds", k)
		}
		c := f64(b.Center)
		rad := float64(b.Radius)
		for _, v := range r.Vertices[m.VertexOffset : m.VertexOffset+m.VertexCount] {
			if d := math.Sqrt(dist2d(f64(pos[v]), c)); !(d <= rad) {
				t.Fatalf("meshlet %d: vertex %d at %v outside sphere %v r=%v (d=%v)", k, v, pos[v], c, rad, d)
			}
		}
		if b.ConeCutoff >= 1 {
			if b.ConeCutoff != 1 || b.ConeAxis != ([3]float32{}) {
				t.Fatalf("meshlet %d: disabled cone %v axis %v", k, b.ConeCutoff, b.ConeAxis)
			}
			continue
		}
		ax := f64(b.ConeAxis)
		if l := math.Sqrt(dot(ax, ax)); math.Abs(l-1) > 1e-3 {
			t.Fatalf("meshlet %d: cone axis length %v", k, l)
		}
		var tris [][3]uint32
		for tt := m.TriangleOffset; tt < m.TriangleOffset+m.TriangleCount; tt++ {
			vs := r.Vertices[m.VertexOffset:]
			tris = append(tris, [3]uint32{vs[r.Triangles[3*tt]], vs[r.Triangles[3*tt+1]], vs[r.Triangles[3*tt+2]]})
		}
		coneCheck(t, k, c, math.Max(rad, 1e-6), ax, float64(b.ConeCutoff), f64(b.ConeApex), tris, pos)
	}
}

func f64(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }
func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// coneCheck is meshcheck.py's check_cone: 24 pseudo-random directions at
// 1.5, 4 and 50 radii (72 cameras) plus 64 fixed far view directions; from
// every camera the apex-free test culls, every triangle must face away.
//
// The same cameras also exercise the apex form of the test,
// dot(normalize(apex - cam), axis) >= cutoff.
func coneCheck(t *testing.T, k int, c [3]float64, rad float64, axis [3]float64, cut float64, apex [3]float64, tris [][3]uint32, pos [][3]float32) {
	t.Helper()
	type tn struct{ p0, n [3]float64 }
	var ns []tn
	for _, tr := range tris {
		p0, p1, p2 := f64(pos[tr[0]]), f64(pos[tr[1]]), f64(pos[tr[2]])
		e1 := [3]float64{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}
		e2 := [3]float64{p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		l := math.Sqrt(dot(n, n))
		if l > 1e-12*math.Max(1, rad*rad) {
			ns = append(ns, tn{p0, [3]float64{n[0] / l, n[1] / l, n[2] / l}})
		}
	}
	var cams [][3]float64
	x := uint64(k+1) * 2654435761 % 4294967296
	for i := 0; i < 24+64; i++ {
		x = (x*1103515245 + 12345) % 4294967296
		u := float64(x)/4294967296*2 - 1
		x = (x*1103515245 + 12345) % 4294967296
		th := float64(x) / 4294967296 * 2 * math.Pi
		rr := math.Sqrt(math.Max(0, 1-u*u))
		d := [3]float64{rr * math.Cos(th), rr * math.Sin(th), u}
		dists := []float64{1.5, 4, 50}
		if i >= 24 {
			dists = []float64{1e4}
		}
		for _, s := range dists {
			cams = append(cams, [3]float64{c[0] + d[0]*rad*s, c[1] + d[1]*rad*s, c[2] + d[2]*rad*s})
		}
	}
	for _, cam := range cams {
		v := [3]float64{c[0] - cam[0], c[1] - cam[1], c[2] - cam[2]}
		dist := math.Sqrt(dot(v, v))
		va := [3]float64{apex[0] - cam[0], apex[1] - cam[1], apex[2] - cam[2]}
		la := math.Sqrt(dot(va, va))
		sphereCull := dot(v, axis) >= cut*dist+rad
		apexCull := la > 0 && dot(va, axis)/la >= cut
		if sphereCull || apexCull {
			for _, t2 := range ns {
				facing := dot(t2.n, [3]float64{cam[0] - t2.p0[0], cam[1] - t2.p0[1], cam[2] - t2.p0[2]})
				if facing > 1e-5*math.Max(1, dist) {
					t.Fatalf("meshlet %d: cone (sphere %v, apex %v) culls it from %v but a triangle faces that camera (%v)", k, sphereCull, apexCull, cam, facing)
				}
			}
		}
	}
}

func mustBuild(t testing.TB, idx []uint32, pos [][3]float32, o Options) Result {
	t.Helper()
	r, err := Build(idx, pos, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// ---- tests ----

type meshCase struct {
	name string
	idx  []uint32
	pos  [][3]float32
}

func meshCases() []meshCase {
	var cs []meshCase
	add := func(name string, idx []uint32, pos [][3]float32) { cs = append(cs, meshCase{name, idx, pos}) }
	gi, gp := grid(40)
	add("grid40", gi, gp)
	si, sp := uvSphere(24, 32)
	add("sphere", si, sp)
	qi, qp := soup(700, 7)
	add("soup", qi, qp)
	add("single", []uint32{0, 1, 2}, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	di, dp := withDegenerates()
	add("degenerate", di, dp)
	// Two meshes far apart, interleaved in the index buffer.
	ai, ap := grid(9)
	bi, bp := uvSphere(8, 10)
	var mi []uint32
	mp := append([][3]float32{}, ap...)
	for i := range bp {
		mp = append(mp, [3]float32{bp[i][0] + 100, bp[i][1], bp[i][2]})
	}
	for i := 0; i < len(ai) || i < len(bi); i += 3 {
		if i < len(ai) {
			mi = append(mi, ai[i:i+3]...)
		}
		if i < len(bi) {
			mi = append(mi, bi[i]+uint32(len(ap)), bi[i+1]+uint32(len(ap)), bi[i+2]+uint32(len(ap)))
		}
	}
	add("interleaved", mi, mp)
	// A fan of 3000 triangles around one vertex (valence past expandCap).
	fp := [][3]float32{{0, 0, 0}}
	var fi []uint32
	for i := 0; i <= 3000; i++ {
		a := 2 * math.Pi * float64(i) / 3000
		fp = append(fp, [3]float32{float32(math.Cos(a)), float32(math.Sin(a)), 0})
		if i > 0 {
			fi = append(fi, 0, uint32(i), uint32(i+1))
		}
	}
	add("fan", fi[:len(fi)-3], fp)
	// 1500 copies of one triangle, and random triangles over 40 vertices.
	var si2 []uint32
	for i := 0; i < 1500; i++ {
		si2 = append(si2, 2, 0, 1)
	}
	add("same", si2, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	g := lcg(5)
	var dp2 [][3]float32
	for i := 0; i < 40; i++ {
		dp2 = append(dp2, [3]float32{g.float(), g.float(), g.float()})
	}
	var di2 []uint32
	for i := 0; i < 3*2000; i++ {
		di2 = append(di2, g.next()%40)
	}
	add("dense", di2, dp2)
	return cs
}

func optionCases() []Options {
	return []Options{
		DefaultOptions(),
		{MaxVertices: 3, MaxTriangles: 1, ConeWeight: 0},
		{MaxVertices: 256, MaxTriangles: 512, ConeWeight: 0.5},
		{MaxVertices: 96, MaxTriangles: 126, ConeWeight: 1},
		{MaxVertices: 4, MaxTriangles: 512, ConeWeight: 0.25},
		{MaxVertices: 256, MaxTriangles: 2, ConeWeight: 0.9},
		// Flex mode.
		{MaxVertices: 64, MaxTriangles: 124, ConeWeight: 0.25, MinTriangles: 32, SplitFactor: 1.5},
		{MaxVertices: 96, MaxTriangles: 126, ConeWeight: 0.5, MinTriangles: 1, SplitFactor: 0.25},
		{MaxVertices: 3, MaxTriangles: 1, MinTriangles: 1, SplitFactor: 1},
	}
}

// Every invariant of the contract holds over every generated mesh and
// option combination, including the 3/1 and 256/512 extremes.
func TestBuildInvariants(t *testing.T) {
	for _, mc := range meshCases() {
		for _, o := range optionCases() {
			t.Run(fmt.Sprintf("%s/%d-%d-%g", mc.name, o.MaxVertices, o.MaxTriangles, o.ConeWeight), func(t *testing.T) {
				r := mustBuild(t, mc.idx, mc.pos, o)
				checkResult(t, mc.idx, mc.pos, o, r)
			})
		}
	}
}

// One triangle makes one meshlet of three vertices in input corner order.
func TestBuildSingleTriangle(t *testing.T) {
	r := mustBuild(t, []uint32{2, 0, 1}, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, DefaultOptions())
	want := Result{Meshlets: []Meshlet{{0, 3, 0, 1}}, Vertices: []uint32{2, 0, 1}, Triangles: []uint8{0, 1, 2}}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got %+v, want %+v", r, want)
	}
}

// Empty input is not an error and yields nothing.
func TestBuildEmpty(t *testing.T) {
	for _, idx := range [][]uint32{nil, {}} {
		r, err := Build(idx, nil, DefaultOptions())
		if err != nil || len(r.Meshlets) != 0 || len(r.Vertices) != 0 || len(r.Triangles) != 0 {
			t.Fatalf("Build(empty) = %+v, %v", r, err)
		}
	}
	if b := ComputeAllBounds(Result{}, nil); len(b) != 0 {
		t.Fatalf("ComputeAllBounds(empty) = %v", b)
	}
}

// Bad input is refused with an error wrapping ErrInvalidMesh, bad options
// with one wrapping ErrInvalidOptions, never a panic.
func TestBuildRejectsInvalid(t *testing.T) {
	p3 := [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	cases := []struct {
		name string
		idx  []uint32
		pos  [][3]float32
	}{
		{"count not multiple of 3", []uint32{0, 1}, p3},
		{"index past positions", []uint32{0, 1, 3}, p3},
		{"huge index", []uint32{0, 1, math.MaxUint32}, p3},
		{"no positions", []uint32{0, 0, 0}, nil},
		{"NaN position", []uint32{0, 1, 2}, [][3]float32{{0, 0, 0}, {nan, 0, 0}, {0, 1, 0}}},
		{"Inf position", []uint32{0, 1, 2}, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, inf, 0}}},
	}
	for _, c := range cases {
		if _, err := Build(c.idx, c.pos, DefaultOptions()); !errors.Is(err, ErrInvalidMesh) {
			t.Errorf("%s: err = %v, want ErrInvalidMesh", c.name, err)
		}
	}
	// A NaN in an unreferenced position is fine.
	if _, err := Build([]uint32{0, 1, 2}, append(p3, [3]float32{nan, nan, nan}), DefaultOptions()); err != nil {
		t.Errorf("unreferenced NaN: %v", err)
	}
	bad := []Options{
		{},
		{MaxVertices: 2, MaxTriangles: 124},
		{MaxVertices: 257, MaxTriangles: 124},
		{MaxVertices: 64, MaxTriangles: 0},
		{MaxVertices: 64, MaxTriangles: 513},
		{MaxVertices: 64, MaxTriangles: 124, ConeWeight: -0.1},
		{MaxVertices: 64, MaxTriangles: 124, ConeWeight: 1.5},
		{MaxVertices: 64, MaxTriangles: 124, ConeWeight: nan},
		{MaxVertices: 64, MaxTriangles: 124, MinTriangles: -1},
		{MaxVertices: 64, MaxTriangles: 124, MinTriangles: 125},
		{MaxVertices: 64, MaxTriangles: 124, MinTriangles: 32, SplitFactor: -1},
		{MaxVertices: 64, MaxTriangles: 124, MinTriangles: 32, SplitFactor: nan},
		{MaxVertices: 64, MaxTriangles: 124, MinTriangles: 32, SplitFactor: inf},
	}
	for _, o := range bad {
		if err := o.Validate(); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("Validate(%+v) = %v, want ErrInvalidOptions", o, err)
		}
		if _, err := Build(p3Idx, p3, o); !errors.Is(err, ErrInvalidOptions) || errors.Is(err, ErrInvalidMesh) {
			t.Errorf("Build with %+v: err = %v, want ErrInvalidOptions", o, err)
		}
	}
	if err := DefaultOptions().Validate(); err != nil {
		t.Errorf("defaults invalid: %v", err)
	}
	flex := Options{MaxVertices: 64, MaxTriangles: 124, MinTriangles: 124, SplitFactor: 2}
	if err := flex.Validate(); err != nil {
		t.Errorf("flex options invalid: %v", err)
	}
}

var p3Idx = []uint32{0, 1, 2}

// The same input gives the same output, also with a different GOMAXPROCS.
func TestBuildDeterministic(t *testing.T) {
	idx, pos := uvSphere(40, 60)
	a := mustBuild(t, idx, pos, DefaultOptions())
	prev := runtime.GOMAXPROCS(1)
	b := mustBuild(t, idx, pos, DefaultOptions())
	runtime.GOMAXPROCS(4)
	c := mustBuild(t, idx, pos, DefaultOptions())
	runtime.GOMAXPROCS(prev)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, c) {
		t.Fatal("Build is not deterministic")
	}
	if !reflect.DeepEqual(ComputeAllBounds(a, pos), ComputeAllBounds(b, pos)) {
		t.Fatal("ComputeAllBounds is not deterministic")
	}
}

// Meshlets on a regular grid are well filled (quality report; a disk of 64
// grid vertices holds at most 2·64 − boundary − 2 ≈ 100 triangles).
func TestBuildGridFill(t *testing.T) {
	idx, pos := grid(100)
	r := mustBuild(t, idx, pos, DefaultOptions())
	checkResult(t, idx, pos, DefaultOptions(), r)
	avgT := float64(len(idx)/3) / float64(len(r.Meshlets))
	avgV := float64(len(r.Vertices)) / float64(len(r.Meshlets))
	t.Logf("100x100 grid: %d triangles, %d meshlets, avg %.2f tris, %.2f verts per meshlet", len(idx)/3, len(r.Meshlets), avgT, avgV)
	if avgT < 96 {
		t.Errorf("avg %.2f triangles per meshlet, want >= 96", avgT)
	}
}

// Disconnected triangles still fill meshlets through the spatial fallback.
func TestBuildSoupFillsMeshlets(t *testing.T) {
	idx, pos := soup(1000, 3)
	o := DefaultOptions()
	r := mustBuild(t, idx, pos, o)
	// 64 vertices hold 21 separate triangles: 48 meshlets at best; the
	// last leftovers may lie beyond the fallback's reach of each other.
	if want := (1000 + 20) / 21; len(r.Meshlets) < want || len(r.Meshlets) > want+1 {
		t.Fatalf("%d meshlets for 1000 separate triangles, want %d or %d", len(r.Meshlets), want, want+1)
	}
}

// A closed sphere gets active cones on most meshlets.
func TestBoundsSphereCones(t *testing.T) {
	idx, pos := uvSphere(32, 48)
	r := mustBuild(t, idx, pos, DefaultOptions())
	bs := ComputeAllBounds(r, pos)
	active := 0
	for _, b := range bs {
		if b.ConeCutoff < 1 {
			active++
		}
	}
	if active*10 < len(bs)*8 {
		t.Fatalf("only %d of %d meshlets have a cone", active, len(bs))
	}
}

// twoPatches is two 5×5-vertex grids (32 triangles each) 8 units apart
// (within the spatial fallback's reach), interleaved in the index buffer.
func twoPatches() ([]uint32, [][3]float32) {
	ai, ap := grid(5)
	pos := append([][3]float32{}, ap...)
	for _, p := range ap {
		pos = append(pos, [3]float32{p[0] + 8, p[1], p[2]})
	}
	var idx []uint32
	for i := 0; i < len(ai); i += 3 {
		idx = append(idx, ai[i:i+3]...)
		idx = append(idx, ai[i]+25, ai[i+1]+25, ai[i+2]+25)
	}
	return idx, pos
}

// Flex mode closes a meshlet early when the next triangle is far: two
// patches that together fit one meshlet (and get one without flex, through
// the spatial fallback) get one meshlet each.
func TestBuildFlexSplitsFarPieces(t *testing.T) {
	idx, pos := twoPatches()
	plain := mustBuild(t, idx, pos, DefaultOptions())
	if len(plain.Meshlets) != 1 {
		t.Fatalf("without flex: %d meshlets, want 1 (both patches fit one)", len(plain.Meshlets))
	}
	o := DefaultOptions()
	o.MinTriangles, o.SplitFactor = 8, 5 // 5 expected radii of an 8-triangle meshlet: 5 units
	r := mustBuild(t, idx, pos, o)
	checkResult(t, idx, pos, o, r)
	if len(r.Meshlets) != 2 {
		t.Fatalf("flex: %d meshlets, want one per patch", len(r.Meshlets))
	}
	for k, b := range ComputeAllBounds(r, pos) {
		if b.Radius > 3 {
			t.Fatalf("flex meshlet %d spans both patches (radius %v)", k, b.Radius)
		}
	}
	// Below MinTriangles a meshlet never closes early.
	o.MinTriangles = 64
	if r := mustBuild(t, idx, pos, o); len(r.Meshlets) != 1 {
		t.Fatalf("MinTriangles 64: %d meshlets, want 1", len(r.Meshlets))
	}
}

// The zero flex values are the plain builder, and MinTriangles ==
// MaxTriangles without a split factor is too (same expected radius).
func TestBuildFlexZeroKeepsBehaviour(t *testing.T) {
	idx, pos := uvSphere(40, 60)
	want := mustBuild(t, idx, pos, DefaultOptions())
	o := DefaultOptions()
	o.MinTriangles = o.MaxTriangles
	if got := mustBuild(t, idx, pos, o); !reflect.DeepEqual(got, want) {
		t.Fatal("MinTriangles == MaxTriangles, SplitFactor 0 changed the output")
	}
}

// A small split factor trades meshlet count for tighter meshlets on a
// mesh of scattered pieces.
func TestBuildFlexTightensScatteredMeshes(t *testing.T) {
	idx, pos := soup(2000, 11)
	meanRadius := func(r Result) float64 {
		s := 0.0
		for _, b := range ComputeAllBounds(r, pos) {
			s += float64(b.Radius)
		}
		return s / float64(len(r.Meshlets))
	}
	plain := mustBuild(t, idx, pos, DefaultOptions())
	o := DefaultOptions()
	o.MinTriangles, o.SplitFactor = 4, 0.5
	flex := mustBuild(t, idx, pos, o)
	checkResult(t, idx, pos, o, flex)
	t.Logf("plain: %d meshlets, mean radius %.3f; flex: %d meshlets, mean radius %.3f", len(plain.Meshlets), meanRadius(plain), len(flex.Meshlets), meanRadius(flex))
	if !(meanRadius(flex) < meanRadius(plain)) || len(flex.Meshlets) < len(plain.Meshlets) {
		t.Fatal("flex did not trade meshlet count for tighter meshlets")
	}
}

// The spatial fallback does not bridge gaps wider than fallbackReach
// expected radii: far pieces get their own meshlets.
func TestBuildFallbackReach(t *testing.T) {
	ai, ap := grid(5)
	pos := append([][3]float32{}, ap...)
	for _, p := range ap {
		pos = append(pos, [3]float32{p[0] + 1000, p[1], p[2]})
	}
	idx := append([]uint32{}, ai...)
	for _, v := range ai {
		idx = append(idx, v+25)
	}
	r := mustBuild(t, idx, pos, DefaultOptions())
	checkResult(t, idx, pos, DefaultOptions(), r)
	if len(r.Meshlets) != 2 {
		t.Fatalf("%d meshlets for two patches 1000 apart, want 2", len(r.Meshlets))
	}
}

// bumpyGrid is grid(n) with heights from a few sines, so normals vary and
// the cone term of the score matters.
func bumpyGrid(n int) ([]uint32, [][3]float32) {
	idx, pos := grid(n)
	for i := range pos {
		x, y := float64(pos[i][0]), float64(pos[i][1])
		pos[i][2] = float32(3*math.Sin(x*0.11)*math.Cos(y*0.07) + math.Sin(x*0.5+y*0.3))
	}
	return idx, pos
}

// frozenDigest is an xxh3 digest of every byte Build returns for the
// generated meshes under every option set, and for a bumpy grid large
// enough for the split path (more than partTriangles triangles).
func frozenDigest(t *testing.T) uint64 {
	h := xxh3.New()
	var buf [4]byte
	put := func(v uint32) {
		binary.LittleEndian.PutUint32(buf[:], v)
		h.Write(buf[:])
	}
	add := func(r Result) {
		put(uint32(len(r.Meshlets)))
		for _, m := range r.Meshlets {
			put(m.VertexOffset)
			put(m.VertexCount)
			put(m.TriangleOffset)
			put(m.TriangleCount)
		}
		for _, v := range r.Vertices {
			put(v)
		}
		h.Write(r.Triangles)
	}
	for _, c := range meshCases() {
		for _, o := range optionCases() {
			add(mustBuild(t, c.idx, c.pos, o))
		}
	}
	idx, pos := bumpyGrid(262)
	if len(idx)/3 <= partTriangles {
		t.Fatalf("bumpy grid has %d triangles, want more than %d", len(idx)/3, partTriangles)
	}
	add(mustBuild(t, idx, pos, DefaultOptions()))
	return h.Sum64()
}

// Build's output is frozen: speed work on the builder must leave every
// byte unchanged. A deliberate change of the output updates the digest
// here, with bench/compare's quality rows in the commit message.
func TestBuildFrozenOutput(t *testing.T) {
	const want uint64 = 0xd8763d7fb745aaab
	if got := frozenDigest(t); got != want {
		t.Fatalf("Build output digest %#016x, want %#016x", got, want)
	}
}
