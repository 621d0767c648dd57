package mesh

import (
	"math"
	"testing"
)

func withNormals(s *Submesh, n Vec3) *Submesh {
	s.Normals = make([]Vec3, len(s.Positions))
	for i := range s.Normals {
		s.Normals[i] = n
	}
	return s
}

// u along +X with the image upright (v grows downward, glTF's top-left
// origin): tangent +X, w = +1, so the bitangent cross(n, t)·w is +Y, the
// image's up.
func TestTangentsPlaneWithUAlongXPointPlusX(t *testing.T) {
	s := withNormals(quadXY(), Vec3{0, 0, 1})
	if err := GenerateTangents(s); err != nil {
		t.Fatal(err)
	}
	if len(s.Positions) != 4 {
		t.Fatalf("%d vertices, want 4", len(s.Positions))
	}
	for i, tg := range s.Tangents {
		if tg != (Vec4{1, 0, 0, 1}) {
			t.Fatalf("tangent %d = %v, want (1,0,0,+1)", i, tg)
		}
		b := s.Normals[i].Cross(Vec3{tg[0], tg[1], tg[2]}).Scale(tg[3])
		if b != (Vec3{0, 1, 0}) {
			t.Fatalf("bitangent %d = %v, want +Y", i, b)
		}
	}
}

// Two quads mirrored in u about x = 1 share the seam vertices (same
// position, normal and UV). The mirrored side gets tangent -X with w = -1
// (same bitangent), so the two seam vertices are split.
func TestTangentsMirroredUVFlipsSignAndSplitsSeam(t *testing.T) {
	s := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 1, 0}},
		UV0:       []Vec2{{0, 1}, {1, 1}, {0, 1}, {0, 0}, {1, 0}, {0, 0}},
		Indices:   []uint32{0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4},
	}
	withNormals(s, Vec3{0, 0, 1})
	if err := GenerateTangents(s); err != nil {
		t.Fatal(err)
	}
	if len(s.Positions) != 8 {
		t.Fatalf("%d vertices, want 8 (seam split)", len(s.Positions))
	}
	for c, v := range s.Indices {
		want := Vec4{1, 0, 0, 1}
		if c >= 6 {
			want = Vec4{-1, 0, 0, -1}
		}
		if s.Tangents[v] != want {
			t.Fatalf("corner %d: tangent %v, want %v", c, s.Tangents[v], want)
		}
	}
	// Canonicalize makes the same split after generating the normals, and
	// its final weld keeps it (the seam copies differ in tangent).
	c := &Submesh{}
	c.Positions = []Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 1, 0}}
	c.UV0 = []Vec2{{0, 1}, {1, 1}, {0, 1}, {0, 0}, {1, 0}, {0, 0}}
	c.Indices = []uint32{0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4}
	r, err := Canonicalize(c, CanonicalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.VerticesBefore != 6 || r.VerticesAfter != 8 || !r.GeneratedTangents {
		t.Fatalf("report %+v", r)
	}
}

// On a sphere every tangent is unit, orthogonal to its normal, follows the
// u direction (around the equator) and has one consistent sign.
func TestTangentsOnSphereAreUnitOrthogonalAlongU(t *testing.T) {
	s := uvSphere(12, 24)
	if _, err := Canonicalize(s, CanonicalOptions{}); err != nil {
		t.Fatal(err)
	}
	checkUnitStreams(t, s, true)
	w := s.Tangents[0][3]
	for i, tg := range s.Tangents {
		if tg[3] != w {
			t.Fatalf("tangent %d has w = %v, others %v", i, tg[3], w)
		}
		p := s.Positions[i]
		if math.Abs(float64(p[1])) > 0.99 {
			continue // poles: u is undefined there
		}
		along := Vec3{-p[2], 0, p[0]}.Normalize() // d/dφ of the sphere
		if d := float64(along.Dot(Vec3{tg[0], tg[1], tg[2]})); d < 0.98 {
			t.Fatalf("vertex %d at %v: tangent %v not along u (%v), dot %.4f", i, p, tg, along, d)
		}
	}
}

// A triangle whose UVs have no area joins its neighbour's group at the
// shared corners; its own corner, reached by no group, gets a perpendicular.
// Nothing is left at MikkTSpace's (1,0,0) placeholder off the plane.
func TestTangentsDegenerateUVTriangle(t *testing.T) {
	s := withNormals(quadXY(), Vec3{0, 0, 1})
	s.UV0[3] = Vec2{0.5, 0.5} // on the line from UV0[0] to UV0[2]
	if err := GenerateTangents(s); err != nil {
		t.Fatal(err)
	}
	for i, tg := range s.Tangents {
		if tg != (Vec4{1, 0, 0, 1}) {
			t.Fatalf("tangent %d = %v", i, tg)
		}
	}

	tilted := withNormals(&Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 1}},
		UV0:       []Vec2{{0.5, 0.5}, {0.5, 0.5}, {0.5, 0.5}},
		Indices:   []uint32{0, 1, 2},
	}, Vec3{0, -float32(1 / math.Sqrt2), float32(1 / math.Sqrt2)})
	if err := GenerateTangents(tilted); err != nil {
		t.Fatal(err)
	}
	checkUnitStreams(t, tilted, true)
}

// GenerateTangents needs UV0 and normals and says so.
func TestGenerateTangentsNeedsUVAndNormals(t *testing.T) {
	s := quadXY()
	if err := GenerateTangents(s); err == nil {
		t.Fatal("no error without normals")
	}
	s = withNormals(quadXY(), Vec3{0, 0, 1})
	s.UV0 = nil
	if err := GenerateTangents(s); err == nil {
		t.Fatal("no error without UV0")
	}
}

// Two triangles around O share the edge O–P2 with the same UVs there, so
// O's corners form one group; their UV gradients differ (+X, and (1,1)/√2).
// O's tangent is their average weighted by O's angles, 90° and 45°.
func TestTangentsAverageWeightedByCornerAngle(t *testing.T) {
	s := withNormals(&Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {-1, 1, 0}},
		UV0:       []Vec2{{0, 0}, {1, 0}, {0, -1}, {-1, -2}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}, Vec3{0, 0, 1})
	if err := GenerateTangents(s); err != nil {
		t.Fatal(err)
	}
	if len(s.Positions) != 4 {
		t.Fatalf("%d vertices, want 4 (O's corners share one tangent)", len(s.Positions))
	}
	h := 1 / math.Sqrt2
	x, y := math.Pi/2+math.Pi/4*h, math.Pi/4*h
	l := math.Hypot(x, y)
	want := Vec3{float32(x / l), float32(y / l), 0}
	got := s.Tangents[0]
	if d := (Vec3{got[0], got[1], got[2]}).Sub(want).Length(); d > 1e-6 || got[3] != 1 {
		t.Fatalf("tangent at O = %v, want %v with w = +1", got, want)
	}
}
