// Package tessellate turns unit primitives placed by an affine transform into
// triangle meshes at one geometric accuracy: each part gets the fewest
// segments that keep its surface within a chord tolerance (default 1.5 mm)
// at its baked, world size, and never more than its author asked for.
//
// Unit primitives fill the cube [-0.5, 0.5]³ so that a part's scale is its
// size in metres (the capsule and torus say below how their parameter
// changes that). Round primitives turn about +Y:
//
//	Box              the cube itself
//	Sphere           radius 0.5
//	Cylinder         radius 0.5, y ∈ [-0.5, 0.5], capped
//	Cone             base radius 0.5 at y = -0.5, apex at y = +0.5, capped
//	TaperedCylinder  bottom radius 0.5, top radius 0.5·Top, capped
//	Capsule          radius 0.5, straight section y ∈ [-Length/2, Length/2],
//	                 hemispheres beyond it (y ∈ [-Length/2-0.5, Length/2+0.5])
//	Torus            tube radius Tube, ring radius 0.5-Tube (outer extent 0.5)
//
// Segment rule (formats.md §5): a circle of radius r cut into n chords has a
// sagitta of r·(1 − cos(π/n)), so n ≥ π / acos(1 − tol/r). r is the largest
// radius the ring reaches in world space (the ring radius times the largest
// singular value of the transform restricted to the ring's plane), so
// non-uniform scale is covered. Counts are rounded up to multiples of 4 and
// capped at the request (itself lowered to a multiple of 4), so every ring
// has a vertex at ±X and ±Z; sphere and capsule latitude bands are even so
// the equator and both poles are vertices: extents are exact.
//
// Doubly curved surfaces (sphere, capsule caps, torus) are held to a stricter
// rule than the chord alone: a triangle spanning one step in each direction
// bulges about the sum of the two steps' sagittas, so each direction keeps
// its sagitta within tol/2 (for a sphere that is the chord rule applied to
// the triangle's √2-longer diagonal). Every point of every triangle, not only
// every chord midpoint, is then within the tolerance; the package tests
// measure it.
//
// Normals are analytic (the unit surface's normal through the inverse
// transpose); a mirroring transform flips the winding so front faces stay
// counter-clockwise. Outputs are plain slices; nothing here knows files.
package tessellate

import (
	"fmt"
	"math"

	"github.com/meshcook/meshcook/mesh"
)

// DefaultTolerance is the chord tolerance in metres (seed 003:
// k_bake_chord_tolerance = 1.5 mm).
const DefaultTolerance = 0.0015

// MinSegments is the fewest segments a round primitive gets: four keeps a
// vertex at both ends of each axis.
const MinSegments = 4

// MaxSegments bounds a request so one part cannot ask for an unbounded mesh.
const MaxSegments = 4096

// Kind is a unit primitive.
type Kind uint8

// The unit primitives (see the package doc for their shapes).
const (
	Box Kind = iota + 1
	Sphere
	Cylinder
	Cone
	TaperedCylinder
	Capsule
	Torus
)

var kindNames = [...]string{Box: "box", Sphere: "sphere", Cylinder: "cylinder", Cone: "cone",
	TaperedCylinder: "tapered_cylinder", Capsule: "capsule", Torus: "torus"}

// String returns the kind's catalog name ("tapered_cylinder").
func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the kind named s (as String writes it).
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if n != "" && n == s {
			return Kind(k), nil
		}
	}
	return 0, fmt.Errorf("tessellate: unknown primitive %q (want box, sphere, cylinder, cone, tapered_cylinder, capsule or torus)", s)
}

// Transform is a 3×4 affine transform, row-major: world = M[:, :3]·p + M[:, 3].
type Transform [3][4]float64

// Identity returns the identity transform.
func Identity() Transform {
	return Transform{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}}
}

// FromMat4 takes the affine part of a column-major mesh.Mat4.
func FromMat4(m mesh.Mat4) Transform {
	var t Transform
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			t[r][c] = m[c*4+r]
		}
	}
	return t
}

// Then returns the transform that applies t first, then a.
func (t Transform) Then(a Transform) Transform {
	var o Transform
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			s := float64(a[r][0]*t[0][c]) + float64(a[r][1]*t[1][c]) + float64(a[r][2]*t[2][c])
			if c == 3 {
				s += a[r][3]
			}
			o[r][c] = s
		}
	}
	return o
}

// Point transforms a unit-space point. Products are rounded one by one (the
// explicit conversions forbid fused multiply-add), so results are identical
// on every architecture.
func (t Transform) Point(p [3]float64) [3]float64 {
	var o [3]float64
	for r := 0; r < 3; r++ {
		o[r] = float64(t[r][0]*p[0]) + float64(t[r][1]*p[1]) + float64(t[r][2]*p[2]) + t[r][3]
	}
	return o
}

// Dir transforms a unit-space direction (no translation).
func (t Transform) Dir(d [3]float64) [3]float64 {
	var o [3]float64
	for r := 0; r < 3; r++ {
		o[r] = float64(t[r][0]*d[0]) + float64(t[r][1]*d[1]) + float64(t[r][2]*d[2])
	}
	return o
}

// Det returns the determinant of the linear part.
func (t Transform) Det() float64 {
	a := t
	return float64(a[0][0]*float64(float64(a[1][1]*a[2][2])-float64(a[1][2]*a[2][1]))) -
		float64(a[0][1]*float64(float64(a[1][0]*a[2][2])-float64(a[1][2]*a[2][0]))) +
		float64(a[0][2]*float64(float64(a[1][0]*a[2][1])-float64(a[1][1]*a[2][0])))
}

// IsFinite reports whether every entry is finite.
func (t Transform) IsFinite() bool {
	for _, row := range t {
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// Part is one primitive to tessellate.
type Part struct {
	Kind      Kind
	Transform Transform
	// Segments is the author's requested segment count around the axis (the
	// most this part may get); values below MinSegments are raised to it.
	Segments int
	// Top is TaperedCylinder's top radius as a fraction of its bottom
	// radius (0 makes a cone, 1 a cylinder).
	Top float64
	// Length is Capsule's straight section in unit space (0 makes a sphere).
	Length float64
	// Tube is Torus's tube radius in unit space, in (0, 0.25].
	Tube float64
	// Timber replaces UVs with the grain frame (grain.go).
	Timber bool
}

// Options are the tessellation settings; the zero value means defaults.
type Options struct {
	// Tolerance is the largest distance, in world metres, from the true
	// surface to the tessellation; 0 means DefaultTolerance.
	Tolerance float64
}

func (o Options) tolerance() float64 {
	if o.Tolerance > 0 {
		return o.Tolerance
	}
	return DefaultTolerance
}

// Mesh is a triangle list in plain slices: every stream has one entry per
// vertex, normals are unit length, front faces wind counter-clockwise.
type Mesh struct {
	Positions []mesh.Vec3
	Normals   []mesh.Vec3
	UVs       []mesh.Vec2
	Indices   []uint32
}

// TriangleCount returns len(Indices)/3.
func (m *Mesh) TriangleCount() int { return len(m.Indices) / 3 }

// Result is a tessellated part and how it was cut.
type Result struct {
	Mesh
	// Segments around the axis (0 for a box); Rings is the second
	// direction's count where there is one (sphere latitude bands n/2,
	// capsule bands per hemisphere n/4, torus tube segments: their own
	// count, a multiple of 4 capped at half the request), else 0.
	Segments, Rings int
	// Bound is the largest distance from the true surface that the chosen
	// counts guarantee, in metres (0 for a box).
	Bound float64
	// Limited is true when the request capped the count below what the
	// tolerance needed, so Bound exceeds the tolerance.
	Limited bool
}

// Validate reports a part that cannot be tessellated.
func (p Part) Validate() error {
	if p.Kind < Box || p.Kind > Torus {
		return fmt.Errorf("tessellate: unknown primitive kind %d", p.Kind)
	}
	if !p.Transform.IsFinite() {
		return fmt.Errorf("tessellate: %s: transform is not finite", p.Kind)
	}
	if p.Transform.Det() == 0 {
		return fmt.Errorf("tessellate: %s: transform is singular", p.Kind)
	}
	if p.Segments > MaxSegments {
		return fmt.Errorf("tessellate: %s: %d segments requested, at most %d", p.Kind, p.Segments, MaxSegments)
	}
	switch p.Kind {
	case TaperedCylinder:
		if !(p.Top >= 0 && p.Top <= 16) {
			return fmt.Errorf("tessellate: tapered_cylinder: top %v outside [0, 16]", p.Top)
		}
	case Capsule:
		if !(p.Length >= 0 && p.Length <= 1e4) {
			return fmt.Errorf("tessellate: capsule: length %v outside [0, 10000]", p.Length)
		}
	case Torus:
		if !(p.Tube > 0 && p.Tube <= 0.25) {
			return fmt.Errorf("tessellate: torus: tube %v outside (0, 0.25]", p.Tube)
		}
	}
	return nil
}

// Tessellate cuts p with the fewest segments that keep it within the
// tolerance at its world size, capped by p.Segments.
func Tessellate(p Part, opts Options) (Result, error) {
	if err := p.Validate(); err != nil {
		return Result{}, err
	}
	n, rings, bound, limited := choose(p, opts.tolerance())
	m := build(p, n, rings)
	return Result{Mesh: m, Segments: n, Rings: rings, Bound: bound, Limited: limited}, nil
}

// TessellateAt cuts p with exactly segments around its axis (any count ≥ 3,
// as a legacy engine would have drawn it) and the matching second-direction
// count; it is what "before" triangle counts are measured with.
func TessellateAt(p Part, segments int) (Mesh, error) {
	if err := p.Validate(); err != nil {
		return Mesh{}, err
	}
	segments = max(3, segments)
	return build(p, segments, ringsFor(p.Kind, segments)), nil
}

// ringsFor is the second-direction count that goes with n segments when an
// author asked for n: half as many latitude bands (at least 2) for a sphere,
// a quarter per capsule hemisphere (at least 1), n/2 tube segments for a
// torus (at least 3).
func ringsFor(k Kind, n int) int {
	switch k {
	case Sphere:
		return max(2, n/2)
	case Capsule:
		return max(1, n/4)
	case Torus:
		return max(3, n/2)
	}
	return 0
}
