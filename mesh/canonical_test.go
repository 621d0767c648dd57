package mesh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

// quadXY is the unit square in z=0, facing +Z, as two CCW triangles over
// four vertices; UVs have u = x and v = 1-y (top-left origin, image upright).
func quadXY() *Submesh {
	return &Submesh{
		Name:      "quad",
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
		UV0:       []Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}
}

// encode serialises every stream and the indices, marking absent streams,
// so tests can compare submeshes byte for byte.
func encode(s *Submesh) []byte {
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	w(int64(len(s.Positions)))
	w(s.Positions)
	for _, present := range []bool{s.Normals != nil, s.Tangents != nil, s.UV0 != nil, s.Colors != nil} {
		w(present)
	}
	w(s.Normals)
	w(s.Tangents)
	w(s.UV0)
	w(s.Colors)
	w(s.Joints != nil)
	w(s.Joints)
	w(s.Weights != nil)
	w(s.Weights)
	w(int64(len(s.Morphs)))
	for _, m := range s.Morphs {
		w(int64(len(m.Name)))
		w([]byte(m.Name))
		w(m.Positions != nil)
		w(m.Positions)
		w(m.Normals != nil)
		w(m.Normals)
	}
	w(int64(len(s.Indices)))
	w(s.Indices)
	return b.Bytes()
}

func clone(s *Submesh) *Submesh {
	c := *s
	c.Positions = append([]Vec3(nil), s.Positions...)
	if s.Normals != nil {
		c.Normals = append([]Vec3{}, s.Normals...)
	}
	if s.Tangents != nil {
		c.Tangents = append([]Vec4{}, s.Tangents...)
	}
	if s.UV0 != nil {
		c.UV0 = append([]Vec2{}, s.UV0...)
	}
	if s.Colors != nil {
		c.Colors = append([]Vec4{}, s.Colors...)
	}
	if s.Joints != nil {
		c.Joints = append([][4]uint16{}, s.Joints...)
	}
	if s.Weights != nil {
		c.Weights = append([]Vec4{}, s.Weights...)
	}
	if s.Morphs != nil {
		c.Morphs = make([]MorphTarget, len(s.Morphs))
		for i, m := range s.Morphs {
			c.Morphs[i] = MorphTarget{Name: m.Name}
			if m.Positions != nil {
				c.Morphs[i].Positions = append([]Vec3{}, m.Positions...)
			}
			if m.Normals != nil {
				c.Morphs[i].Normals = append([]Vec3{}, m.Normals...)
			}
		}
	}
	c.Indices = append([]uint32(nil), s.Indices...)
	return &c
}

// Two triangles of a quad written as six separate vertices must share the
// diagonal's two vertices after Weld; a vertex one ulp away must not merge.
func TestWeldMergesExactDuplicatesKeepsNearDuplicates(t *testing.T) {
	near := math.Nextafter32(1, 2)
	s := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 0, 0}, {1, 1, 0}, {0, 1, 0}, {near, 1, 0}},
		Indices:   []uint32{0, 1, 2, 3, 4, 5, 0, 6, 5},
	}
	if got := Weld(s); got != 2 {
		t.Fatalf("Weld removed %d vertices, want 2", got)
	}
	want := []uint32{0, 1, 2, 0, 2, 3, 0, 4, 3}
	if !equalU32(s.Indices, want) {
		t.Fatalf("indices %v, want %v", s.Indices, want)
	}
	if s.Positions[4] != (Vec3{near, 1, 0}) {
		t.Fatalf("near-duplicate lost: %v", s.Positions)
	}
}

// A UV seam: same position and normal, different UV, must stay two vertices.
func TestWeldKeepsVerticesDifferingOnlyInUV(t *testing.T) {
	s := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}},
		Normals:   []Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		UV0:       []Vec2{{0, 0}, {1, 0}, {0, 1}, {0.5, 0}},
		Indices:   []uint32{0, 1, 2, 3, 1, 2},
	}
	if got := Weld(s); got != 0 || len(s.Positions) != 4 {
		t.Fatalf("Weld removed %d (now %d vertices), want 0 (4)", got, len(s.Positions))
	}
}

// +0 and -0 have different bits; Weld is bit-exact by design.
func TestWeldTreatsSignedZerosAsDistinct(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	s := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {negZero, 0, 0}},
		Indices:   []uint32{0, 1, 2, 3, 1, 2},
	}
	if got := Weld(s); got != 0 {
		t.Fatalf("Weld merged +0 and -0 (%d removed)", got)
	}
}

// Vertices come out in first-reference order and unreferenced ones vanish.
func TestWeldOrdersByFirstReferenceAndDropsUnreferenced(t *testing.T) {
	s := &Submesh{
		Positions: []Vec3{{9, 9, 9}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		Colors:    []Vec4{{0, 0, 0, 1}, {1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}},
		Indices:   []uint32{3, 1, 2},
	}
	if got := Weld(s); got != 1 {
		t.Fatalf("Weld removed %d, want 1", got)
	}
	if !equalU32(s.Indices, []uint32{0, 1, 2}) {
		t.Fatalf("indices %v", s.Indices)
	}
	if s.Positions[0] != (Vec3{0, 1, 0}) || s.Colors[0] != (Vec4{0, 0, 1, 1}) {
		t.Fatalf("streams not reordered together: %v %v", s.Positions, s.Colors)
	}
}

// Repeated index, repeated position under a UV split and a ±0 pair are all
// degenerate; a collinear triangle with three distinct corners is kept.
func TestDropDegenerateCountsAndKeepsOrder(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	s := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}, {negZero, 0, 0}, {2, 0, 0}, {1, 1, 0}},
		UV0:       []Vec2{{0, 0}, {1, 0}, {0, 1}, {0.5, 0.5}, {0, 0}, {2, 0}, {1, 1}},
		Indices: []uint32{
			0, 1, 2, // good
			0, 0, 1, // repeated index
			0, 3, 2, // same position, different vertex
			4, 1, 2, // -0 corner, otherwise distinct: kept
			0, 4, 1, // +0 equals -0
			0, 1, 5, // collinear, distinct: kept
			1, 6, 2, // good
		},
	}
	if got := DropDegenerate(s); got != 3 {
		t.Fatalf("dropped %d, want 3", got)
	}
	want := []uint32{0, 1, 2, 4, 1, 2, 0, 1, 5, 1, 6, 2}
	if !equalU32(s.Indices, want) {
		t.Fatalf("indices %v, want %v", s.Indices, want)
	}
}

// Contract violations are errors wrapping ErrInvalidSubmesh, never panics,
// and leave the submesh untouched.
func TestCanonicalizeRejectsInvalidSubmesh(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	cases := []struct {
		name   string
		mutate func(s *Submesh)
	}{
		{"index out of range", func(s *Submesh) { s.Indices[4] = 4 }},
		{"index count not a multiple of 3", func(s *Submesh) { s.Indices = s.Indices[:5] }},
		{"normals length", func(s *Submesh) { s.Normals = []Vec3{{0, 0, 1}} }},
		{"uv0 length", func(s *Submesh) { s.UV0 = s.UV0[:3] }},
		{"tangents length", func(s *Submesh) { s.Tangents = make([]Vec4, 5) }},
		{"colors length", func(s *Submesh) { s.Colors = []Vec4{} }},
		{"NaN position", func(s *Submesh) { s.Positions[2][1] = nan }},
		{"infinite position", func(s *Submesh) { s.Positions[3][0] = inf }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := quadXY()
			tc.mutate(s)
			before := encode(s)
			_, err := Canonicalize(s, CanonicalOptions{})
			if !errors.Is(err, ErrInvalidSubmesh) {
				t.Fatalf("err = %v, want ErrInvalidSubmesh", err)
			}
			if !bytes.Equal(before, encode(s)) {
				t.Fatal("submesh changed on error")
			}
			if Weld(s) != 0 || DropDegenerate(s) != 0 || GenerateTangents(s) == nil {
				t.Fatal("helpers accepted an invalid submesh")
			}
			GenerateNormals(s)
			if !bytes.Equal(before, encode(s)) {
				t.Fatal("helpers changed an invalid submesh")
			}
		})
	}
}

// The same input gives the same bytes, and canonical output is a fixed point.
func TestCanonicalizeDeterministicAndIdempotent(t *testing.T) {
	for _, s := range []*Submesh{quadXY(), uvSphere(12, 24), cube24()} {
		a, b := clone(s), clone(s)
		ra, err := Canonicalize(a, CanonicalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Canonicalize(b, CanonicalOptions{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(encode(a), encode(b)) {
			t.Fatalf("%s: two runs differ", s.Name)
		}
		checkUnitStreams(t, a, true)
		again := clone(a)
		r2, err := Canonicalize(again, CanonicalOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(encode(a), encode(again)) {
			t.Fatalf("%s: second pass changed the result", s.Name)
		}
		if r2.GeneratedNormals || r2.GeneratedTangents || r2.VerticesAfter != ra.VerticesAfter || r2.DegenerateDropped != 0 {
			t.Fatalf("%s: second pass report %+v", s.Name, r2)
		}
	}
}

// The report counts what happened: each of the sphere's pole quads has one
// degenerate triangle (two pole vertices that differ only by UV).
func TestCanonicalizeReport(t *testing.T) {
	s := uvSphere(8, 16)
	tris := s.TriangleCount()
	r, err := Canonicalize(s, CanonicalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.TrianglesBefore != tris || r.DegenerateDropped != 2*16 || r.TrianglesAfter != tris-32 {
		t.Fatalf("report %+v", r)
	}
	if !r.GeneratedNormals || !r.GeneratedTangents || r.VerticesBefore != 9*17 || r.VerticesAfter != len(s.Positions) {
		t.Fatalf("report %+v", r)
	}
	checkUnitStreams(t, s, true)
}

// Options turn generation off; without UV0 no tangents are made.
func TestCanonicalizeOptions(t *testing.T) {
	s := quadXY()
	r, err := Canonicalize(s, CanonicalOptions{NoNormals: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.Normals != nil || s.Tangents != nil || r.GeneratedNormals || r.GeneratedTangents {
		t.Fatalf("NoNormals: normals %v tangents %v report %+v", s.Normals, s.Tangents, r)
	}
	s = quadXY()
	if r, _ = Canonicalize(s, CanonicalOptions{NoTangents: true}); s.Tangents != nil || r.GeneratedTangents || !r.GeneratedNormals {
		t.Fatalf("NoTangents: report %+v", r)
	}
	s = quadXY()
	s.UV0 = nil
	if r, _ = Canonicalize(s, CanonicalOptions{}); s.Tangents != nil || r.GeneratedTangents {
		t.Fatalf("no UV0: report %+v", r)
	}
	s = quadXY()
	s.Indices = append(s.Indices, 0, 0, 1)
	if r, _ = Canonicalize(s, CanonicalOptions{KeepDegenerate: true}); r.DegenerateDropped != 0 || s.TriangleCount() != 3 {
		t.Fatalf("KeepDegenerate: report %+v", r)
	}
	checkUnitStreams(t, s, true)
}

// Stored normals are normalised, a zero one is replaced by the generated
// value, and stored tangents keep their direction with w snapped to ±1.
func TestCanonicalizeRepairsStoredStreams(t *testing.T) {
	s := quadXY()
	s.Normals = []Vec3{{0, 0, 2}, {0, 0, 1}, {0, 0, 0}, {0, 0, 1}}
	s.Tangents = []Vec4{{3, 0, 0, 0.5}, {1, 0, 0, -7}, {1, 0, 0, 1}, {0, 0, 0, 1}}
	r, err := Canonicalize(s, CanonicalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.RepairedNormals != 1 || r.RepairedTangents != 1 || r.GeneratedNormals || r.GeneratedTangents {
		t.Fatalf("report %+v", r)
	}
	for i, n := range s.Normals {
		if n != (Vec3{0, 0, 1}) {
			t.Fatalf("normal %d = %v", i, n)
		}
	}
	if s.Tangents[0] != (Vec4{1, 0, 0, 1}) || s.Tangents[1] != (Vec4{1, 0, 0, -1}) {
		t.Fatalf("tangents %v", s.Tangents)
	}
	checkUnitStreams(t, s, false)
}

func equalU32(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkUnitStreams asserts unit, finite normals and (when orthogonal is
// set, i.e. generated) unit tangents orthogonal to them with w = ±1.
func checkUnitStreams(t *testing.T, s *Submesh, orthogonal bool) {
	t.Helper()
	for i, n := range s.Normals {
		if !n.IsFinite() || math.Abs(float64(n.Length())-1) > 1e-5 {
			t.Fatalf("normal %d = %v not unit", i, n)
		}
	}
	for i, tg := range s.Tangents {
		xyz := Vec3{tg[0], tg[1], tg[2]}
		if !xyz.IsFinite() || math.Abs(float64(xyz.Length())-1) > 1e-5 || (tg[3] != 1 && tg[3] != -1) {
			t.Fatalf("tangent %d = %v not unit with w = ±1", i, tg)
		}
		if orthogonal && s.Normals != nil && math.Abs(float64(xyz.Dot(s.Normals[i]))) >= 1e-4 {
			t.Fatalf("tangent %d = %v not orthogonal to normal %v", i, tg, s.Normals[i])
		}
	}
}

// A skinned quad written as six vertices: the diagonal's duplicates differ
// only in their joints at one corner, so that pair must stay two vertices
// while the other pair welds; the skin streams follow their vertices.
func TestWeldKeepsVerticesDifferingInJoints(t *testing.T) {
	s := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 0, 0}, {1, 1, 0}, {0, 1, 0}},
		Joints:    [][4]uint16{{0, 1, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0}, {0, 1, 0, 0}, {3, 0, 0, 0}, {1, 0, 0, 0}},
		Weights:   []Vec4{{0.5, 0.5, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}},
		Indices:   []uint32{0, 1, 2, 3, 4, 5},
	}
	if got := Weld(s); got != 1 {
		t.Fatalf("Weld removed %d vertices, want 1 (only the corner with equal joints)", got)
	}
	if want := []uint32{0, 1, 2, 0, 3, 4}; !slices.Equal(s.Indices, want) {
		t.Fatalf("indices %v, want %v", s.Indices, want)
	}
	wantJ := [][4]uint16{{0, 1, 0, 0}, {1, 0, 0, 0}, {2, 0, 0, 0}, {3, 0, 0, 0}, {1, 0, 0, 0}}
	if !slices.Equal(s.Joints, wantJ) || len(s.Weights) != 5 || s.Weights[0] != (Vec4{0.5, 0.5, 0, 0}) {
		t.Fatalf("joints %v weights %v", s.Joints, s.Weights)
	}
	// weights alone separate vertices too
	s2 := &Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}},
		Joints:    make([][4]uint16, 4),
		Weights:   []Vec4{{1, 0, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {0.75, 0.25, 0, 0}},
		Indices:   []uint32{0, 1, 2, 3, 1, 2},
	}
	if got := Weld(s2); got != 0 {
		t.Fatalf("Weld merged vertices with different weights (%d removed)", got)
	}
}

// Morph deltas stay with their vertices through weld, unreferenced-vertex
// removal and first-use reordering; vertices differing only in a delta stay
// apart, and the caller's targets are not modified.
func TestCanonicalizeKeepsMorphDeltasAligned(t *testing.T) {
	// vertex i's delta encodes i, so alignment is checkable after reorder
	d := func(i int) Vec3 { return Vec3{float32(i), 0, 0} }
	in := &Submesh{
		Name:      "morph",
		Positions: []Vec3{{9, 9, 9}, {1, 1, 0}, {1, 0, 0}, {0, 0, 0}, {1, 1, 0}, {0, 0, 0}, {0, 1, 0}},
		Indices:   []uint32{3, 2, 1, 5, 4, 6},
		Morphs: []MorphTarget{
			{Name: "smile", Positions: []Vec3{d(0), d(1), d(2), d(3), d(1), d(5), d(6)}},
			{Name: "blink", Positions: []Vec3{d(0), d(10), d(20), d(30), d(10), d(30), d(60)}, Normals: []Vec3{d(0), d(1), d(2), d(3), d(1), d(3), d(6)}},
		},
	}
	orig := clone(in)
	s := clone(in)
	if _, err := Canonicalize(s, CanonicalOptions{NoNormals: true, NoTangents: true}); err != nil {
		t.Fatal(err)
	}
	// vertex 4 duplicates 1 in every stream: welded; vertex 5 differs from
	// 3 only in the smile delta: kept; vertex 0 is unreferenced: dropped
	if len(s.Positions) != 5 {
		t.Fatalf("%d vertices, want 5", len(s.Positions))
	}
	if want := []uint32{0, 1, 2, 3, 2, 4}; !slices.Equal(s.Indices, want) {
		t.Fatalf("indices %v, want %v", s.Indices, want)
	}
	wantSrc := []int{3, 2, 1, 5, 6} // new vertex → old vertex
	for nv, ov := range wantSrc {
		for m := range in.Morphs {
			if s.Morphs[m].Positions[nv] != in.Morphs[m].Positions[ov] {
				t.Fatalf("target %d vertex %d: delta %v, want %v", m, nv, s.Morphs[m].Positions[nv], in.Morphs[m].Positions[ov])
			}
		}
		if s.Morphs[1].Normals[nv] != in.Morphs[1].Normals[ov] || s.Positions[nv] != in.Positions[ov] {
			t.Fatalf("vertex %d misaligned", nv)
		}
	}
	if s.Morphs[0].Name != "smile" || s.Morphs[1].Name != "blink" || s.Morphs[0].Normals != nil {
		t.Fatalf("targets %+v", s.Morphs)
	}
	if !bytes.Equal(encode(in), encode(orig)) {
		t.Fatal("Canonicalize modified the caller's morph targets")
	}
}

// Validate refuses skin and morph streams that are not parallel to the
// positions.
func TestValidateSkinAndMorphLengths(t *testing.T) {
	base := func() *Submesh {
		return &Submesh{Positions: make([]Vec3, 3), Indices: []uint32{0, 1, 2},
			Joints: make([][4]uint16, 3), Weights: make([]Vec4, 3),
			Morphs: []MorphTarget{{Name: "t", Positions: make([]Vec3, 3), Normals: make([]Vec3, 3)}}}
	}
	if err := base().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(s *Submesh){
		"joints":        func(s *Submesh) { s.Joints = s.Joints[:2] },
		"weights":       func(s *Submesh) { s.Weights = append(s.Weights, Vec4{}) },
		"morph deltas":  func(s *Submesh) { s.Morphs[0].Positions = s.Morphs[0].Positions[:1] },
		"morph normals": func(s *Submesh) { s.Morphs[0].Normals = []Vec3{} },
	} {
		s := base()
		mod(s)
		if err := s.Validate(); !errors.Is(err, ErrInvalidSubmesh) {
			t.Errorf("%s: Validate = %v", name, err)
		}
	}
}
