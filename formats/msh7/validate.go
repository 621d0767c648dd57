package msh7

import (
	"math"
)

// UnitTolerance is the engine's unit-length test for normals and tangents:
// |len² − 1| ≤ UnitTolerance on the half values' xyz.
const UnitTolerance = 0.01

// Validate runs the engine's load-time checks (nwb.md §4) on f, plus the
// structural rules of the header, and returns the first failure as a
// *FormatError whose offset is where the bad record sits once f is encoded:
//
//   - meshClass 0 or 1; a static mesh has no skin, joints or inverse binds;
//     meshletBoundCount == meshletCount;
//   - every meshlet: vertex count 1..96, primitive count 1..126, local
//     position and attribute counts 1..96; offsets contiguous (each meshlet
//     starts where the previous ended, the first at 0, and the last ends at
//     the stream's end, so no stream has trailing bytes); no width code 3
//     and no encoding bits above bit 11; static meshlets have skin base
//     NoSkin and skin width 0;
//   - every decoded position, skin, normal, tangent, uv0 and colour ref is
//     within its stream, every local vertex ref within the meshlet's local
//     positions and attributes, every primitive index within its vertices;
//   - finite sphere with radius ≥ 0; cone flags only bit 0, a non-zero word
//     is enabled, and an enabled cone has a non-zero cutoff;
//   - normals and tangents unit: |x²+y²+z²−1| ≤ UnitTolerance.
//
// meshcook adds: finite positions, uv0 and colours; finite skin weights,
// and a joint with a non-zero weight below the joint count (or the
// inverse-bind count when there are no joints); finite joints and inverse
// binds; joint parents −1 or another joint; inverse-bind count 0 or equal
// to the joint count when both are present; at most 65536 joints.
func Validate(f *File) error {
	c := f.fileCounts()
	lay, ok := layoutOf(c)
	if !ok {
		return errAt(8, nil, "stream sizes overflow")
	}
	if err := validateHeader(f, c); err != nil {
		return err
	}
	if err := validateStreams(f, lay); err != nil {
		return err
	}
	if err := validateSkin(f, lay); err != nil {
		return err
	}
	return validateMeshlets(f, lay)
}

func validateHeader(f *File, c counts) error {
	if f.Class != ClassStatic && f.Class != ClassSkinned {
		return errAt(4, nil, "meshClass %d, want 0 (static) or 1 (skinned)", f.Class)
	}
	if f.Class == ClassStatic {
		for _, i := range []int{cSkin, cJoints, cInverseBinds} {
			if c[i] != 0 {
				return errAt(8+8*int64(i), nil, "static mesh with %s %d", countNames[i], c[i])
			}
		}
	}
	if c[cMeshletBounds] != c[cMeshlets] {
		return errAt(8+8*cMeshletBounds, nil, "meshletBoundCount %d != meshletCount %d", c[cMeshletBounds], c[cMeshlets])
	}
	return nil
}

func finite(vs ...float32) bool {
	for _, v := range vs {
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

func unitHalf(h [4]Half) bool {
	x, y, z := float64(h[0].Float32()), float64(h[1].Float32()), float64(h[2].Float32())
	return math.Abs(x*x+y*y+z*z-1) <= UnitTolerance
}

func validateStreams(f *File, lay layout) error {
	for i, p := range f.Positions {
		if !finite(p[0], p[1], p[2]) {
			return errAt(int64(lay.positions)+int64(i)*PositionSize, nil, "position %d is not finite", i)
		}
	}
	for i, n := range f.Normals {
		if !unitHalf(n) {
			return errAt(int64(lay.normals)+int64(i)*HalfVec4Size, nil, "normal %d is not unit length", i)
		}
	}
	for i, t := range f.Tangents {
		if !unitHalf(t) {
			return errAt(int64(lay.tangents)+int64(i)*HalfVec4Size, nil, "tangent %d is not unit length", i)
		}
	}
	for i, u := range f.UV0 {
		if !finite(u[0], u[1]) {
			return errAt(int64(lay.uv0)+int64(i)*UV0Size, nil, "uv0 %d is not finite", i)
		}
	}
	for i, c := range f.Colors {
		if !finite(c[0].Float32(), c[1].Float32(), c[2].Float32(), c[3].Float32()) {
			return errAt(int64(lay.colors)+int64(i)*HalfVec4Size, nil, "color %d is not finite", i)
		}
	}
	return nil
}

// MaxJoints is the most joints a u16 joint index can address.
const MaxJoints = 65536

func validateSkin(f *File, lay layout) error {
	nj, nib := len(f.Joints), len(f.InverseBinds)
	if nj > MaxJoints {
		return errAt(56, nil, "skeletonJointCount %d > %d", nj, MaxJoints)
	}
	if nj > 0 && nib > 0 && nj != nib {
		return errAt(64, nil, "inverseBindMatrixCount %d != skeletonJointCount %d", nib, nj)
	}
	limit := nj
	if limit == 0 {
		limit = nib
	}
	for i, s := range f.Skin {
		at := int64(lay.skin) + int64(i)*InfluenceSize
		for k := range 4 {
			w := s.Weights[k]
			if !finite(w) {
				return errAt(at+8+4*int64(k), nil, "skin %d: weight %d is not finite", i, k)
			}
			if w != 0 && limit > 0 && int(s.Joints[k]) >= limit {
				return errAt(at+2*int64(k), nil, "skin %d: joint %d (weight %v) not < joint count %d", i, s.Joints[k], w, limit)
			}
		}
	}
	for j, x := range f.Joints {
		at := int64(lay.joints) + int64(j)*JointSize
		if !finite(x.InverseBind[:]...) || !finite(x.BindT[:]...) || !finite(x.BindR[:]...) || !finite(x.BindS[:]...) {
			return errAt(at, nil, "joint %d: not finite", j)
		}
		if x.Parent < -1 || int(x.Parent) >= nj || int(x.Parent) == j {
			return errAt(at+104, nil, "joint %d: parent %d must be -1 or another joint", j, x.Parent)
		}
	}
	for i, m := range f.InverseBinds {
		if !finite(m[:]...) {
			return errAt(int64(lay.inverseBinds)+int64(i)*InverseBindSize, nil, "inverse bind %d: not finite", i)
		}
	}
	return nil
}

func validateMeshlets(f *File, lay layout) error {
	skinned := f.Class == ClassSkinned
	var nv, np, pb, ab uint64 // running ends of the four meshlet streams
	for m, d := range f.Meshlets {
		at := int64(lay.descs) + int64(m)*MeshletDescSize
		// Counts.
		v, p, ps, as := d.VertexCount(), d.PrimitiveCount(), d.PositionCount(), d.AttributeCount()
		if v < 1 || v > MaxVertices || p < 1 || p > MaxTriangles || ps < 1 || ps > MaxVertices || as < 1 || as > MaxVertices {
			return errAt(at+16, nil, "meshlet %d: counts vertices %d primitives %d positions %d attributes %d, want 1..%d, 1..%d, 1..%d, 1..%d",
				m, v, p, ps, as, MaxVertices, MaxTriangles, MaxVertices, MaxVertices)
		}
		// Encoding.
		if d.Encoding>>12 != 0 {
			return errAt(at+44, nil, "meshlet %d: encoding %#x has bits above bit 11", m, d.Encoding)
		}
		for c := ChanPosition; c < NumChannels; c++ {
			if d.Width(c) == 3 {
				return errAt(at+44, nil, "meshlet %d: %s width code 3", m, c)
			}
		}
		if !skinned && (d.SkinBase != NoSkin || d.Width(ChanSkin) != 0) {
			return errAt(at+24, nil, "meshlet %d: static mesh with skin base %#x, width code %d", m, d.SkinBase, d.Width(ChanSkin))
		}
		if skinned && d.SkinBase == NoSkin {
			return errAt(at+24, nil, "meshlet %d: skinned mesh without skin base", m)
		}
		// Contiguous offsets.
		for _, o := range []struct {
			got  uint32
			want uint64
			off  int64
			name string
		}{
			{d.LocalVertexOffset, nv, 0, "localVertexOffset"},
			{d.PrimitiveOffset, np, 4, "primitiveOffset"},
			{d.PositionRefOffset, pb, 8, "positionRefOffset"},
			{d.AttributeRefOffset, ab, 12, "attributeRefOffset"},
		} {
			if uint64(o.got) != o.want {
				return errAt(at+o.off, nil, "meshlet %d: %s %d, want %d (contiguous)", m, o.name, o.got, o.want)
			}
		}
		nv += uint64(v)
		np += uint64(p)
		pb += positionRefBytes(d, skinned)
		ab += attributeRefBytes(d)
		if nv > uint64(len(f.LocalVertices)) || 3*np > uint64(len(f.Primitives)) ||
			pb > uint64(len(f.PositionRefs)) || ab > uint64(len(f.AttributeRefs)) {
			return errAt(at, nil, "meshlet %d: ranges past the end of their streams", m)
		}
		// References.
		if _, err := f.decodeRefs(m, lay); err != nil {
			return err
		}
		lv := f.LocalVertices[d.LocalVertexOffset:nv]
		for i, r := range lv {
			if int(r.Position) >= ps || int(r.Attribute) >= as {
				return errAt(int64(lay.localRefs)+int64(d.LocalVertexOffset+uint32(i))*LocalVertexRefSize, nil,
					"meshlet %d: local vertex %d refs position %d attribute %d, want < %d, < %d", m, i, r.Position, r.Attribute, ps, as)
			}
		}
		prim := f.Primitives[3*uint64(d.PrimitiveOffset) : 3*np]
		for i, x := range prim {
			if int(x) >= v {
				return errAt(int64(lay.primitives)+3*int64(d.PrimitiveOffset)+int64(i), nil, "meshlet %d: primitive index %d not < vertex count %d", m, x, v)
			}
		}
		// Bounds.
		b := f.Bounds[m]
		bat := int64(lay.bounds) + int64(m)*MeshletBoundsSize
		if !finite(b.Center[0], b.Center[1], b.Center[2], b.Radius) || b.Radius < 0 {
			return errAt(bat, nil, "meshlet %d: sphere (%v, %v) not finite with radius >= 0", m, b.Center, b.Radius)
		}
		if b.Cone>>25 != 0 || (b.Cone != 0 && b.Cone&ConeEnabled == 0) {
			return errAt(bat+16, nil, "meshlet %d: cone word %#08x: flags other than the enabled bit", m, b.Cone)
		}
		if b.Cone != 0 && b.Cone>>16&255 == 0 {
			return errAt(bat+16, nil, "meshlet %d: enabled cone with zero cutoff", m)
		}
	}
	// No trailing bytes in any meshlet stream.
	if len(f.Primitives)%3 != 0 {
		return errAt(int64(lay.primitives), nil, "meshletPrimitiveIndexCount %d is not a multiple of 3", len(f.Primitives))
	}
	for _, t := range []struct {
		used, have uint64
		off, size  uint64
		name       string
	}{
		{pb, uint64(len(f.PositionRefs)), lay.posRefs, 1, "position-ref bytes"},
		{ab, uint64(len(f.AttributeRefs)), lay.attrRefs, 1, "attribute-ref bytes"},
		{nv, uint64(len(f.LocalVertices)), lay.localRefs, LocalVertexRefSize, "local vertex refs"},
		{3 * np, uint64(len(f.Primitives)), lay.primitives, 1, "primitive indices"},
	} {
		if t.used != t.have {
			return errAt(int64(t.off+t.used*t.size), nil, "%s: meshlets use %d, stream holds %d", t.name, t.used, t.have)
		}
	}
	return nil
}
