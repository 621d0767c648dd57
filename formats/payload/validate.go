package payload

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// Validate checks a static payload against the rules every encoder and
// decoder in this package enforces (and tools/meshcheck.py checks):
//   - at most MaxChunkVertices vertices, all components finite;
//   - LOD0 and every alternate: a triangle list (length % 3 == 0) of
//     indices < vertex count;
//   - switch distances finite and non-decreasing;
//   - the heightfield, when present: len(Heights) == Rows·Cols, all finite.
//
// Errors carry Offset -1 (they describe memory, not bytes).
func Validate(m *Static) error {
	if m == nil {
		return invalid("nil payload")
	}
	if err := checkVertexCount(len(m.Vertices)); err != nil {
		return err
	}
	for i := range m.Vertices {
		if !finiteVertex(&m.Vertices[i]) {
			return invalid("vertex %d not finite", i)
		}
	}
	if err := checkTriangles("LOD0 indices", m.Indices, len(m.Vertices)); err != nil {
		return err
	}
	if err := checkLODs(m.LODs, len(m.Vertices)); err != nil {
		return err
	}
	if h := m.Heightfield; h != nil {
		if uint64(h.Rows)*uint64(h.Cols) != uint64(len(h.Heights)) {
			return invalid("heightfield: %d heights for %d×%d", len(h.Heights), h.Rows, h.Cols)
		}
		for i, v := range h.Heights {
			if !finite32(v) {
				return invalid("heightfield: height %d not finite", i)
			}
		}
	}
	return nil
}

// ValidateSkinned checks a skinned payload: the static rules for vertices,
// indices and LODs, plus
//   - joints: valid UTF-8 names, -1 ≤ parent < own index, finite pose;
//   - vertex joint indices < joint count (when there are joints) and
//     finite weights;
//   - morphs (when they have targets): a CSR table of vertex_count+1
//     offsets from 0, non-decreasing, ending at the entry count; targets
//     in range and strictly ascending within a vertex; every entry finite
//     with some component above MorphDeltaEpsilon; names valid UTF-8.
func ValidateSkinned(m *Skinned) error {
	if m == nil {
		return invalid("nil payload")
	}
	vc := len(m.Vertices)
	if err := checkVertexCount(vc); err != nil {
		return err
	}
	nj := len(m.Joints)
	if uint64(nj) > math.MaxUint32 {
		return invalid("%d joints exceed u32", nj)
	}
	for i := range m.Vertices {
		v := &m.Vertices[i]
		if !finiteVertex(&v.Vertex) || !finite32(v.Weights[:]...) {
			return invalid("vertex %d not finite", i)
		}
		if nj > 0 {
			for _, j := range v.Joints {
				if int(j) >= nj {
					return invalid("vertex %d: joint %d past joint count %d", i, j, nj)
				}
			}
		}
	}
	if err := checkTriangles("LOD0 indices", m.Indices, vc); err != nil {
		return err
	}
	for i := range m.Joints {
		if err := checkJoint(&m.Joints[i], i); err != nil {
			return err
		}
	}
	if err := checkMorphs(m.Morphs, vc); err != nil {
		return err
	}
	return checkLODs(m.LODs, vc)
}

func checkVertexCount(n int) error {
	if n > MaxChunkVertices {
		return invalid("%d vertices: u16 indices address at most %d; split the mesh with SplitChunks", n, MaxChunkVertices)
	}
	return nil
}

func checkTriangles(what string, idx []uint16, vc int) error {
	if len(idx)%3 != 0 {
		return invalid("%s: count %d is not a multiple of 3", what, len(idx))
	}
	for i, x := range idx {
		if int(x) >= vc {
			return invalid("%s: index %d at %d not below vertex count %d", what, x, i, vc)
		}
	}
	return nil
}

func checkLODs(lods []LOD, vc int) error {
	if uint64(len(lods)) > math.MaxUint32 {
		return invalid("%d LODs exceed u32", len(lods))
	}
	last := float32(math.Inf(-1))
	for i, l := range lods {
		if !finite32(l.SwitchDistance) {
			return invalid("LOD %d: switch distance not finite", i+1)
		}
		if l.SwitchDistance < last {
			return invalid("LOD %d: switch distance %g below the previous level's %g", i+1, l.SwitchDistance, last)
		}
		last = l.SwitchDistance
		if err := checkTriangles("LOD "+strconv.Itoa(i+1)+" indices", l.Indices, vc); err != nil {
			return err
		}
	}
	return nil
}

func checkJoint(j *Joint, i int) error {
	if !utf8.ValidString(j.Name) {
		return invalid("joint %d: name is not valid UTF-8", i)
	}
	if j.Parent < -1 || int(j.Parent) >= i {
		return invalid("joint %d: parent %d must be -1 or an earlier joint (ReorderJoints)", i, j.Parent)
	}
	if !finite32(j.Translation[:]...) || !finite32(j.RotationDeg[:]...) || !finite32(j.Scale[:]...) {
		return invalid("joint %d: pose not finite", i)
	}
	return nil
}

func checkMorphs(m *Morphs, vc int) error {
	if m == nil || len(m.Targets) == 0 {
		if m != nil && len(m.Entries) != 0 {
			return invalid("morphs: %d entries without targets", len(m.Entries))
		}
		return nil
	}
	tc := len(m.Targets)
	if uint64(tc) > math.MaxUint32 || uint64(len(m.Entries)) > math.MaxUint32 {
		return invalid("morphs: counts exceed u32")
	}
	for i, name := range m.Targets {
		if !utf8.ValidString(name) {
			return invalid("morph target %d: name is not valid UTF-8", i)
		}
	}
	if len(m.Offsets) != vc+1 {
		return invalid("morphs: %d offsets, want vertex count + 1 = %d", len(m.Offsets), vc+1)
	}
	if m.Offsets[0] != 0 || int(m.Offsets[vc]) != len(m.Entries) {
		return invalid("morphs: offsets run %d..%d, want 0..%d", m.Offsets[0], m.Offsets[vc], len(m.Entries))
	}
	for v := 0; v < vc; v++ {
		lo, hi := m.Offsets[v], m.Offsets[v+1]
		if hi < lo {
			return invalid("morphs: offset of vertex %d decreases (%d after %d)", v+1, hi, lo)
		}
		if int64(hi) > int64(len(m.Entries)) {
			return invalid("morphs: offset of vertex %d is %d, past the %d entries", v+1, hi, len(m.Entries))
		}
		prev := -1
		for e := lo; e < hi; e++ {
			t := int64(m.Entries[e].Target)
			if t >= int64(tc) || t <= int64(prev) {
				return invalid("morphs: vertex %d: target %d out of range or not ascending", v, t)
			}
			prev = int(t)
		}
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		if !finite32(e.Position[:]...) || !finite32(e.Normal[:]...) {
			return invalid("morph entry %d not finite", i)
		}
		if !aboveEpsilon(MorphDelta{e.Position, e.Normal}) {
			return invalid("morph entry %d: every component at or below MorphDeltaEpsilon", i)
		}
	}
	return nil
}

func finiteVertex(v *Vertex) bool {
	return finite32(v.Position[:]...) && finite32(v.Normal[:]...) && finite32(v.Tangent[:]...) &&
		finite32(v.Color[:]...) && finite32(v.UV[:]...)
}

func finite32(xs ...float32) bool {
	for _, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// aboveEpsilon reports whether some component's magnitude exceeds
// MorphDeltaEpsilon, compared in float64 as the engine and meshcheck do.
func aboveEpsilon(d MorphDelta) bool {
	for _, x := range d.Position {
		if math.Abs(float64(x)) > MorphDeltaEpsilon {
			return true
		}
	}
	for _, x := range d.Normal {
		if math.Abs(float64(x)) > MorphDeltaEpsilon {
			return true
		}
	}
	return false
}
