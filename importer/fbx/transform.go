package fbx

// Model transforms. The FBX SDK's node transform, which Maya, Blender and
// ufbx all reproduce, is (column vectors, applied right to left):
//
//	Local = T · Roff · Rp · Rpre · R · Rpost⁻¹ · Rp⁻¹ · Soff · Sp · S · Sp⁻¹
//
// T = Lcl Translation, R = Lcl Rotation in the node's RotationOrder,
// Rpre/Rpost = PreRotation/PostRotation (always XYZ), Roff/Rp =
// RotationOffset/RotationPivot, Soff/Sp = ScalingOffset/ScalingPivot,
// S = Lcl Scaling. World = ParentWorld · Local. The geometric transform
// (GeometricTranslation · GeometricRotation · GeometricScaling) sits between
// the node and its mesh and is not inherited by children. Pre/post rotation
// and the rotation order are applied whatever RotationActive says, as ufbx
// does; InheritType is taken as RrSs (plain matrix products).

import (
	"math"

	"github.com/meshcook/meshcook/mesh"
)

func translate(v [3]float64) mesh.Mat4 {
	m := mesh.Identity()
	m[12], m[13], m[14] = v[0], v[1], v[2]
	return m
}

func scale(v [3]float64) mesh.Mat4 {
	m := mesh.Identity()
	m[0], m[5], m[10] = v[0], v[1], v[2]
	return m
}

func neg(v [3]float64) [3]float64 { return [3]float64{-v[0], -v[1], -v[2]} }

// axisRotation rotates by deg degrees about axis 0 (X), 1 (Y) or 2 (Z).
func axisRotation(axis int, deg float64) mesh.Mat4 {
	m := mesh.Identity()
	if deg == 0 {
		return m
	}
	s, c := math.Sincos(deg * math.Pi / 180)
	i, j := (axis+1)%3, (axis+2)%3
	m[i*4+i], m[j*4+j] = c, c
	m[i*4+j], m[j*4+i] = s, -s // column i gets +s in row j
	return m
}

// Rotation orders (FbxEuler::EOrder). "XYZ" rotates about X first, so its
// matrix is Rz·Ry·Rx.
var eulerOrders = [6][3]int{
	{0, 1, 2}, // XYZ
	{0, 2, 1}, // XZY
	{1, 2, 0}, // YZX
	{1, 0, 2}, // YXZ
	{2, 0, 1}, // ZXY
	{2, 1, 0}, // ZYX
}

// euler builds the rotation for angles in degrees applied in order (6,
// spheric XYZ, and unknown values read as XYZ).
func euler(deg [3]float64, order int64) mesh.Mat4 {
	if order < 0 || order > 5 {
		order = 0
	}
	m := mesh.Identity()
	for _, axis := range eulerOrders[order] {
		m = axisRotation(axis, deg[axis]).Mul(m)
	}
	return m
}

// inverse returns the inverse of an affine transform (the cofactor
// fallback of NormalMatrix for a singular one, so it never fails).
func inverse(m mesh.Mat4) mesh.Mat4 {
	n := m.NormalMatrix() // inverse transpose of the 3x3
	var r mesh.Mat4
	for c := 0; c < 3; c++ {
		for row := 0; row < 3; row++ {
			r[c*4+row] = n[row*4+c]
		}
	}
	r[15] = 1
	x, y, z := m[12], m[13], m[14]
	r[12] = -(r[0]*x + r[4]*y + r[8]*z)
	r[13] = -(r[1]*x + r[5]*y + r[9]*z)
	r[14] = -(r[2]*x + r[6]*y + r[10]*z)
	return r
}

// matrix16 reads a 16-number column-major matrix (identity when short).
func matrix16(v []float64) (mesh.Mat4, bool) {
	if len(v) != 16 {
		return mesh.Identity(), false
	}
	var m mesh.Mat4
	copy(m[:], v)
	return m, true
}

// decompose splits an affine transform into translation, rotation
// quaternion (xyzw) and scale; a mirroring transform gets a negative X
// scale.
func decompose(m mesh.Mat4) (t mesh.Vec3, q mesh.Vec4, s mesh.Vec3) {
	t64, q64, s64 := decompose64(m)
	return f32v(t64), mesh.Vec4{float32(q64[0]), float32(q64[1]), float32(q64[2]), float32(q64[3])}, f32v(s64)
}

// decompose64 is decompose in float64.
func decompose64(m mesh.Mat4) (t [3]float64, q [4]float64, s [3]float64) {
	t = [3]float64{m[12], m[13], m[14]}
	var cols [3][3]float64
	var sc [3]float64
	for c := 0; c < 3; c++ {
		cols[c] = [3]float64{m[c*4], m[c*4+1], m[c*4+2]}
		sc[c] = math.Sqrt(cols[c][0]*cols[c][0] + cols[c][1]*cols[c][1] + cols[c][2]*cols[c][2])
	}
	if m.Det3() < 0 {
		sc[0] = -sc[0]
	}
	for c := 0; c < 3; c++ {
		if sc[c] != 0 {
			for r := 0; r < 3; r++ {
				cols[c][r] /= sc[c]
			}
		}
	}
	s = sc
	// Rotation matrix element (row r, column c) = cols[c][r].
	m00, m11, m22 := cols[0][0], cols[1][1], cols[2][2]
	var x, y, z, w float64
	switch tr := m00 + m11 + m22; {
	case tr > 0:
		k := 0.5 / math.Sqrt(tr+1)
		w = 0.25 / k
		x = (cols[1][2] - cols[2][1]) * k
		y = (cols[2][0] - cols[0][2]) * k
		z = (cols[0][1] - cols[1][0]) * k
	case m00 > m11 && m00 > m22:
		k := 2 * math.Sqrt(1+m00-m11-m22)
		w = (cols[1][2] - cols[2][1]) / k
		x = 0.25 * k
		y = (cols[1][0] + cols[0][1]) / k
		z = (cols[2][0] + cols[0][2]) / k
	case m11 > m22:
		k := 2 * math.Sqrt(1+m11-m00-m22)
		w = (cols[2][0] - cols[0][2]) / k
		x = (cols[1][0] + cols[0][1]) / k
		y = 0.25 * k
		z = (cols[2][1] + cols[1][2]) / k
	default:
		k := 2 * math.Sqrt(1+m22-m00-m11)
		w = (cols[0][1] - cols[1][0]) / k
		x = (cols[2][0] + cols[0][2]) / k
		y = (cols[2][1] + cols[1][2]) / k
		z = 0.25 * k
	}
	n := math.Sqrt(x*x + y*y + z*z + w*w)
	if n == 0 || math.IsNaN(n) {
		return t, [4]float64{0, 0, 0, 1}, s
	}
	if w < 0 { // canonical sign
		n = -n
	}
	return t, [4]float64{x / n, y / n, z / n, w / n}, s
}

// localTransform evaluates the pivot chain for one Model.
func (s *scene) localTransform(o *object) mesh.Mat4 {
	return s.localTransformWith(o, func(name string, def float64) [3]float64 { return s.propVec3(o, name, [3]float64{def, def, def}) })
}

// localTransformWith evaluates the pivot chain with vec giving each
// vector property (def for every axis when absent).
func (s *scene) localTransformWith(o *object, vec func(name string, def float64) [3]float64) mesh.Mat4 {
	order := s.propInt(o, "RotationOrder", 0)
	rp, sp := vec("RotationPivot", 0), vec("ScalingPivot", 0)
	m := translate(vec("Lcl Translation", 0))
	m = m.Mul(translate(vec("RotationOffset", 0)))
	m = m.Mul(translate(rp))
	m = m.Mul(euler(vec("PreRotation", 0), 0))
	m = m.Mul(euler(vec("Lcl Rotation", 0), order))
	m = m.Mul(inverse(euler(vec("PostRotation", 0), 0)))
	m = m.Mul(translate(neg(rp)))
	m = m.Mul(translate(vec("ScalingOffset", 0)))
	m = m.Mul(translate(sp))
	m = m.Mul(scale(vec("Lcl Scaling", 1)))
	m = m.Mul(translate(neg(sp)))
	return m
}

// geometricTransform is the mesh-only transform of a Model.
func (s *scene) geometricTransform(o *object) mesh.Mat4 {
	m := translate(s.propVec3(o, "GeometricTranslation", [3]float64{}))
	m = m.Mul(euler(s.propVec3(o, "GeometricRotation", [3]float64{}), 0))
	return m.Mul(scale(s.propVec3(o, "GeometricScaling", [3]float64{1, 1, 1})))
}

// world returns a Model's world transform, memoised; cycles and chains
// deeper than the node limit stop at the root.
func (s *scene) world(o *object) mesh.Mat4 {
	if o == nil || o.class != "Model" {
		return mesh.Identity()
	}
	if o.worldDone {
		return o.worldM
	}
	// Walk up iteratively to avoid deep recursion on hostile chains.
	var chain []*object
	seen := map[*object]bool{}
	for p := o; p != nil && p.class == "Model" && !p.worldDone && !seen[p]; p = p.parent {
		seen[p] = true
		chain = append(chain, p)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		parent := mesh.Identity()
		if c.parent != nil && c.parent.worldDone {
			parent = c.parent.worldM
		}
		c.worldM = parent.Mul(s.localTransform(c))
		c.worldDone = true
	}
	return o.worldM
}

// conversion is the file-to-output space transform: axes to +X right, +Y
// up, +Z forward (right-handed, glTF's frame) and units to metres, unless
// PreserveSpace; then Options.Scale.
func (s *scene) conversion() mesh.Mat4 {
	m := mesh.Identity()
	if !s.opts.PreserveSpace {
		m = axisConversion(s.settingInt("CoordAxis", 0), s.settingInt("CoordAxisSign", 1),
			s.settingInt("UpAxis", 1), s.settingInt("UpAxisSign", 1),
			s.settingInt("FrontAxis", 2), s.settingInt("FrontAxisSign", 1))
		unit := s.settingFloat("UnitScaleFactor", 1)
		if !(unit > 0) || math.IsInf(unit, 0) {
			s.warnf("invalid UnitScaleFactor read as 1 cm")
			unit = 1
		}
		m = scale([3]float64{unit / 100, unit / 100, unit / 100}).Mul(m)
	}
	k := s.opts.Scale
	return scale([3]float64{k, k, k}).Mul(m)
}

// axisConversion maps the file's coord (right), up and front axes onto
// +X, +Y and +Z. Invalid settings (out of range, two roles on one axis)
// fall back to the identity.
func axisConversion(coord, coordSign, up, upSign, front, frontSign int64) mesh.Mat4 {
	if coord < 0 || coord > 2 || up < 0 || up > 2 || front < 0 || front > 2 ||
		coord == up || up == front || coord == front {
		return mesh.Identity()
	}
	sign := func(v int64) float64 {
		if v < 0 {
			return -1
		}
		return 1
	}
	var m mesh.Mat4
	m[15] = 1
	// Row r of the output takes the file axis assigned to it: element
	// (row r, column axis) = sign.
	m[int(coord)*4+0] = sign(coordSign)
	m[int(up)*4+1] = sign(upSign)
	m[int(front)*4+2] = sign(frontSign)
	return m
}
