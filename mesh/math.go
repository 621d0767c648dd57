package mesh

import "math"

// Mat4 is a 4x4 affine transform in float64, column-major as in glTF:
// element (row r, column c) is m[c*4+r].
type Mat4 [16]float64

// Identity returns the identity transform.
func Identity() Mat4 {
	return Mat4{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
}

// Mul returns a·b (apply b first, then a).
func (a Mat4) Mul(b Mat4) Mat4 {
	var m Mat4
	for c := 0; c < 4; c++ {
		for r := 0; r < 4; r++ {
			var s float64
			for k := 0; k < 4; k++ {
				s += a[k*4+r] * b[c*4+k]
			}
			m[c*4+r] = s
		}
	}
	return m
}

// TRS builds translation·rotation·scale; q is a quaternion xyzw (normalised
// here, identity when zero).
func TRS(t [3]float64, q [4]float64, s [3]float64) Mat4 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	n := math.Sqrt(x*x + y*y + z*z + w*w)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		x, y, z, w = 0, 0, 0, 1
	} else {
		x, y, z, w = x/n, y/n, z/n, w/n
	}
	return Mat4{
		(1 - 2*(y*y+z*z)) * s[0], (2 * (x*y + z*w)) * s[0], (2 * (x*z - y*w)) * s[0], 0,
		(2 * (x*y - z*w)) * s[1], (1 - 2*(x*x+z*z)) * s[1], (2 * (y*z + x*w)) * s[1], 0,
		(2 * (x*z + y*w)) * s[2], (2 * (y*z - x*w)) * s[2], (1 - 2*(x*x+y*y)) * s[2], 0,
		t[0], t[1], t[2], 1,
	}
}

// InverseAffine inverts an affine transform (last row 0 0 0 1); ok is
// false when its 3x3 part is singular or not finite.
func (m Mat4) InverseAffine() (inv Mat4, ok bool) {
	a, b, c := m[0], m[4], m[8]
	d, e, f := m[1], m[5], m[9]
	g, h, i := m[2], m[6], m[10]
	c00, c01, c02 := e*i-f*h, -(d*i - f*g), d*h-e*g
	det := a*c00 + b*c01 + c*c02
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return Mat4{}, false
	}
	s := 1 / det
	// inverse = adjugate / det; adj[r][c] = cofactor[c][r]
	inv = Mat4{
		c00 * s, c01 * s, c02 * s, 0,
		-(b*i - c*h) * s, (a*i - c*g) * s, -(a*h - b*g) * s, 0,
		(b*f - c*e) * s, -(a*f - c*d) * s, (a*e - b*d) * s, 0,
		0, 0, 0, 1,
	}
	tx, ty, tz := m[12], m[13], m[14]
	inv[12] = -(inv[0]*tx + inv[4]*ty + inv[8]*tz)
	inv[13] = -(inv[1]*tx + inv[5]*ty + inv[9]*tz)
	inv[14] = -(inv[2]*tx + inv[6]*ty + inv[10]*tz)
	return inv, true
}

// IsIdentity reports whether m is exactly the identity.
func (m Mat4) IsIdentity() bool { return m == Identity() }

// Det3 returns the determinant of the upper-left 3x3 (negative means the
// transform mirrors, so triangle winding must flip).
func (m Mat4) Det3() float64 {
	return m[0]*(m[5]*m[10]-m[9]*m[6]) -
		m[4]*(m[1]*m[10]-m[9]*m[2]) +
		m[8]*(m[1]*m[6]-m[5]*m[2])
}

// Point transforms a position (w = 1).
func (m Mat4) Point(p Vec3) Vec3 {
	x, y, z := float64(p[0]), float64(p[1]), float64(p[2])
	return Vec3{
		float32(m[0]*x + m[4]*y + m[8]*z + m[12]),
		float32(m[1]*x + m[5]*y + m[9]*z + m[13]),
		float32(m[2]*x + m[6]*y + m[10]*z + m[14]),
	}
}

// Dir transforms a direction by the upper 3x3 (no translation), unnormalised.
func (m Mat4) Dir(d Vec3) Vec3 {
	x, y, z := float64(d[0]), float64(d[1]), float64(d[2])
	return Vec3{
		float32(m[0]*x + m[4]*y + m[8]*z),
		float32(m[1]*x + m[5]*y + m[9]*z),
		float32(m[2]*x + m[6]*y + m[10]*z),
	}
}

// NormalMatrix returns the inverse transpose of the upper 3x3 (as a Mat4
// with no translation), the transform for normals. A singular matrix gives
// the cofactor matrix, which keeps directions where it can.
func (m Mat4) NormalMatrix() Mat4 {
	a, b, c := m[0], m[4], m[8]
	d, e, f := m[1], m[5], m[9]
	g, h, i := m[2], m[6], m[10]
	// cofactors; inverse transpose = cofactor / det
	c00, c01, c02 := e*i-f*h, -(d*i - f*g), d*h-e*g
	c10, c11, c12 := -(b*i - c*h), a*i-c*g, -(a*h - b*g)
	c20, c21, c22 := b*f-c*e, -(a*f - c*d), a*e-b*d
	det := a*c00 + b*c01 + c*c02
	s := 1.0
	if det != 0 {
		s = 1 / det
	}
	// result row r col c = cofactor[r][c]/det; column-major storage
	return Mat4{
		c00 * s, c10 * s, c20 * s, 0,
		c01 * s, c11 * s, c21 * s, 0,
		c02 * s, c12 * s, c22 * s, 0,
		0, 0, 0, 1,
	}
}

// Add, Sub, Scale, Dot, Cross, Length and Normalize are the usual float32
// vector operations.
func (a Vec3) Add(b Vec3) Vec3      { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a Vec3) Sub(b Vec3) Vec3      { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a Vec3) Scale(s float32) Vec3 { return Vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a Vec3) Dot(b Vec3) float32   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func (a Vec3) Length() float32 { return float32(math.Sqrt(float64(a.Dot(a)))) }

// Normalize returns a/|a|, or the zero vector when |a| is zero or not finite.
func (a Vec3) Normalize() Vec3 {
	if d := a.Dot(a); d < 0x1p-100 || d > 0x1p100 {
		// The float32 square sum loses precision (subnormal) or range:
		// work in float64, so the result still has unit length.
		x, y, z := float64(a[0]), float64(a[1]), float64(a[2])
		l := math.Sqrt(x*x + y*y + z*z)
		if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
			return Vec3{}
		}
		return Vec3{float32(x / l), float32(y / l), float32(z / l)}
	}
	l := a.Length()
	if l == 0 || math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
		return Vec3{}
	}
	return a.Scale(1 / l)
}

// IsFinite reports whether every component is finite.
func (a Vec3) IsFinite() bool {
	for _, v := range a {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}

// PlaceholderAxis is the coordinate axis n is least aligned with (x
// before y before z on ties): what the placeholder tangent of a mesh
// without tangents is built from, in every format meshcook writes.
func PlaceholderAxis(n [3]float64) [3]float64 {
	x, y, z := math.Abs(n[0]), math.Abs(n[1]), math.Abs(n[2])
	switch {
	case x <= y && x <= z:
		return [3]float64{1, 0, 0}
	case y <= z:
		return [3]float64{0, 1, 0}
	}
	return [3]float64{0, 0, 1}
}

// PlaceholderTangent is the placeholder tangent of a mesh without
// tangents, unnormalised: PlaceholderAxis(n) crossed with n, perpendicular
// to n. The .hmesh slot (hmesh.PlaceholderTangent) and the payload tangent
// (AxisPerpendicular) are made from it; MSH7 crosses the same axis the
// other way round (formats/msh7), and its bytes stay as they were.
func PlaceholderTangent(n [3]float64) [3]float64 {
	a := PlaceholderAxis(n)
	return [3]float64{a[1]*n[2] - a[2]*n[1], a[2]*n[0] - a[0]*n[2], a[0]*n[1] - a[1]*n[0]}
}

// AxisPerpendicular returns PlaceholderTangent(n) normalised: a
// deterministic unit vector perpendicular to n, the placeholder tangent of
// meshes without tangents ((1, 0, 0) when n is zero or not finite).
func AxisPerpendicular(n Vec3) Vec3 {
	t := PlaceholderTangent([3]float64{float64(n[0]), float64(n[1]), float64(n[2])})
	l := math.Sqrt(t[0]*t[0] + t[1]*t[1] + t[2]*t[2])
	if !(l > 0) {
		return Vec3{1, 0, 0}
	}
	return Vec3{float32(t[0] / l), float32(t[1] / l), float32(t[2] / l)}
}
