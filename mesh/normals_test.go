package mesh

import (
	"math"
	"testing"
)

// uvSphere is a unit UV sphere with rings×segs quads, seam and pole vertices
// duplicated with identical positions (as exporters write them), u around the equator and v from the
// top pole down (top-left origin), every triangle wound CCW from outside.
func uvSphere(rings, segs int) *Submesh {
	s := &Submesh{Name: "sphere"}
	for i := 0; i <= rings; i++ {
		th := math.Pi * float64(i) / float64(rings)
		sin := math.Sin(th)
		if i == 0 || i == rings {
			sin = 0 // exact poles, as exporters write them
		}
		for j := 0; j <= segs; j++ {
			ph := 2 * math.Pi * float64(j%segs) / float64(segs) // seam copies share bits
			s.Positions = append(s.Positions, Vec3{
				float32(sin * math.Cos(ph)), float32(math.Cos(th)), float32(sin * math.Sin(ph)),
			})
			s.UV0 = append(s.UV0, Vec2{float32(j) / float32(segs), float32(i) / float32(rings)})
		}
	}
	at := func(i, j int) uint32 { return uint32(i*(segs+1) + j) }
	add := func(a, b, c uint32) {
		pa, pb, pc := s.Positions[a], s.Positions[b], s.Positions[c]
		if pb.Sub(pa).Cross(pc.Sub(pa)).Dot(pa.Add(pb).Add(pc)) < 0 {
			b, c = c, b
		}
		s.Indices = append(s.Indices, a, b, c)
	}
	for i := 0; i < rings; i++ {
		for j := 0; j < segs; j++ {
			add(at(i, j), at(i+1, j), at(i+1, j+1))
			add(at(i, j), at(i+1, j+1), at(i, j+1))
		}
	}
	return s
}

// cube24 is the cube [-1,1]³ with a separate 4-vertex quad per face (24
// vertices, as for hard edges), per-face UVs and no normals.
func cube24() *Submesh {
	s := &Submesh{Name: "cube"}
	axes := [][3]Vec3{ // normal, u, v with u × v = normal
		{{1, 0, 0}, {0, 0, -1}, {0, 1, 0}},
		{{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
		{{0, 1, 0}, {1, 0, 0}, {0, 0, -1}},
		{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}},
		{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},
		{{0, 0, -1}, {-1, 0, 0}, {0, 1, 0}},
	}
	for _, a := range axes {
		n, u, v := a[0], a[1], a[2]
		base := uint32(len(s.Positions))
		for _, c := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			s.Positions = append(s.Positions, n.Add(u.Scale(c[0])).Add(v.Scale(c[1])))
			s.UV0 = append(s.UV0, Vec2{(c[0] + 1) / 2, (1 - c[1]) / 2})
		}
		s.Indices = append(s.Indices, base, base+1, base+2, base, base+2, base+3)
	}
	return s
}

// A flat quad's corners all get its face normal: exactly when axis-aligned,
// to float32 rounding when tilted.
func TestGenerateNormalsFlatQuadGetsFaceNormal(t *testing.T) {
	s := quadXY()
	GenerateNormals(s)
	for i, n := range s.Normals {
		if n != (Vec3{0, 0, 1}) {
			t.Fatalf("normal %d = %v, want exactly +Z", i, n)
		}
	}
	tilted := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {1, 0.8, 0.6}, {0, 0.8, 0.6}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}
	GenerateNormals(tilted)
	for i, n := range tilted.Normals {
		if d := n.Sub(Vec3{0, -0.6, 0.8}).Length(); d > 1e-6 {
			t.Fatalf("tilted normal %d = %v (off by %g)", i, n, d)
		}
	}
}

// Hard-edged cube without normals: accumulating by position (not by vertex)
// gives every corner the outward diagonal, and no vertex is split.
func TestGenerateNormalsCubeIsSmoothByPosition(t *testing.T) {
	s := cube24()
	GenerateNormals(s)
	if len(s.Positions) != 24 {
		t.Fatalf("%d vertices, want 24", len(s.Positions))
	}
	k := float32(1 / math.Sqrt(3))
	for i, n := range s.Normals {
		p := s.Positions[i]
		want := Vec3{p[0] * k, p[1] * k, p[2] * k}
		if d := n.Sub(want).Length(); d > 1e-6 {
			t.Fatalf("vertex %d at %v: normal %v, want %v", i, p, n, want)
		}
	}
	checkUnitStreams(t, s, false)
}

// A tessellated sphere's normals match the analytic ones; the seam and pole
// duplicates get identical normals because they share positions.
func TestGenerateNormalsSphereWithinTwoDegrees(t *testing.T) {
	s := uvSphere(16, 32)
	GenerateNormals(s)
	cos2 := math.Cos(2 * math.Pi / 180)
	for i, n := range s.Normals {
		want := s.Positions[i].Normalize()
		if c := float64(n.Dot(want)); c < cos2 {
			t.Fatalf("vertex %d: normal %v vs analytic %v: %.3f°", i, n, want, math.Acos(math.Min(1, c))*180/math.Pi)
		}
	}
	checkUnitStreams(t, s, false)
}

// Angle weighting ignores how a face is triangulated: splitting a triangle
// from its far vertex halves its area at O but keeps O's angle, so O's
// normal must not move (area weighting would tilt it).
func TestGenerateNormalsIgnoresTessellation(t *testing.T) {
	whole := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}
	split := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 0.5, 0}},
		Indices:   []uint32{0, 1, 4, 1, 2, 4, 0, 2, 3},
	}
	GenerateNormals(whole)
	GenerateNormals(split)
	if d := whole.Normals[0].Sub(split.Normals[0]).Length(); d > 1e-7 {
		t.Fatalf("normal at O moved: %v vs %v", whole.Normals[0], split.Normals[0])
	}
	h := float32(1 / math.Sqrt2)
	if d := whole.Normals[0].Sub(Vec3{h, 0, h}).Length(); d > 1e-6 {
		t.Fatalf("normal at O = %v, want (1,0,1)/√2", whole.Normals[0])
	}
}

// A double-sided sheet whose back faces reuse the front's vertices would
// cancel to nothing; each side falls back to its own face normal instead,
// splitting the shared vertices.
func TestGenerateNormalsOpposingFacesUseFaceNormals(t *testing.T) {
	s := quadXY()
	s.UV0 = nil
	s.Indices = append(s.Indices, 0, 2, 1, 0, 3, 2)
	GenerateNormals(s)
	if len(s.Positions) != 8 {
		t.Fatalf("%d vertices, want 8 (each corner split by side)", len(s.Positions))
	}
	for c, v := range s.Indices {
		want := Vec3{0, 0, 1}
		if c >= 6 {
			want = Vec3{0, 0, -1}
		}
		if s.Normals[v] != want {
			t.Fatalf("corner %d: normal %v, want %v", c, s.Normals[v], want)
		}
	}
}

// A triangle with three distinct but collinear corners has no direction to
// give; its vertices get +Y rather than NaN or zero.
func TestGenerateNormalsCollinearFallsBackToUp(t *testing.T) {
	s := &Submesh{Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, Indices: []uint32{0, 1, 2}}
	GenerateNormals(s)
	for i, n := range s.Normals {
		if n != (Vec3{0, 1, 0}) {
			t.Fatalf("normal %d = %v, want +Y", i, n)
		}
	}
}
