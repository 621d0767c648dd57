package mesh

import (
	"reflect"
	"testing"
)

// Vertices come out in first-use order with every stream permuted alike;
// an unreferenced vertex is dropped.
func TestReorderVerticesByFirstUse(t *testing.T) {
	s := Submesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}, {9, 9, 9}},
		UV0:       []Vec2{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {9, 9}},
		Indices:   []uint32{3, 1, 0, 0, 1, 2},
		Material:  -1,
	}
	ReorderVerticesByFirstUse(&s)
	if want := []uint32{0, 1, 2, 2, 1, 3}; !reflect.DeepEqual(s.Indices, want) {
		t.Errorf("indices %v, want %v", s.Indices, want)
	}
	if want := []Vec3{{3, 0, 0}, {1, 0, 0}, {0, 0, 0}, {2, 0, 0}}; !reflect.DeepEqual(s.Positions, want) {
		t.Errorf("positions %v, want %v", s.Positions, want)
	}
	if want := []Vec2{{3, 0}, {1, 0}, {0, 0}, {2, 0}}; !reflect.DeepEqual(s.UV0, want) {
		t.Errorf("uv0 %v, want %v", s.UV0, want)
	}
}

// AxisPerpendicular is unit length and orthogonal to n, and falls back to +X
// for a zero normal.
func TestAxisPerpendicular(t *testing.T) {
	for _, n := range []Vec3{{0, 0, 1}, {1, 0, 0}, {0.3, -0.8, 0.52}, {-1, -1, 0}} {
		p := AxisPerpendicular(n)
		if d := p.Dot(n.Normalize()); d > 1e-6 || d < -1e-6 {
			t.Errorf("%v: perpendicular %v has dot %g", n, p, d)
		}
		if l := p.Length(); l < 0.99999 || l > 1.00001 {
			t.Errorf("%v: perpendicular %v has length %g", n, p, l)
		}
	}
	if p := AxisPerpendicular(Vec3{}); p != (Vec3{1, 0, 0}) {
		t.Errorf("zero normal: %v", p)
	}
}
