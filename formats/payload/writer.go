package payload

import (
	"encoding/binary"
	"math"
)

// Encode serialises a static payload: vertices, LOD0 indices, then the LODS
// block when m.LODs is non-empty and the HFLD block when m.Heightfield is
// set. With neither it is the seed's serialise (the legacy single-LOD
// bytes); with LODs it is serialise_with_lods; with a heightfield it is
// serialise_with_lods followed by serialise_heightfield_trailer. It runs
// Validate first and writes nothing for an invalid payload or one with no
// triangles.
func Encode(m *Static) ([]byte, error) {
	if err := Validate(m); err != nil {
		return nil, err
	}
	if len(m.Indices) == 0 {
		return nil, errEmpty()
	}
	size := 4 + VertexSize*len(m.Vertices) + 4 + 2*len(m.Indices) + lodsSize(m.LODs)
	if m.Heightfield != nil {
		size += 12 + 4*len(m.Heightfield.Heights)
	}
	b := make([]byte, 0, size)
	b = le32(b, uint32(len(m.Vertices)))
	for i := range m.Vertices {
		b = appendVertex(b, &m.Vertices[i])
	}
	b = appendIndices(b, m.Indices)
	b = appendLODs(b, m.LODs)
	if m.Heightfield != nil {
		b = appendHeightfield(b, m.Heightfield)
	}
	return b, nil
}

// errEmpty is the writers' refusal of a payload with no triangles: an
// empty mesh is never written (the cook writes no payload for a submesh
// without triangles).
func errEmpty() error {
	return &FormatError{Offset: -1, Msg: "no triangles: an empty mesh is not written"}
}

// AppendHeightfield appends the HFLD trailer (seed:
// serialise_heightfield_trailer) to dst, which should be a static payload
// ending after its optional LODS block: "HFLD", u32 rows, u32 cols,
// rows·cols f32 heights, row-major.
func AppendHeightfield(dst []byte, h *Heightfield) ([]byte, error) {
	if err := Validate(&Static{Heightfield: h}); err != nil {
		return dst, err
	}
	return appendHeightfield(dst, h), nil
}

// EncodeSkinned serialises a skinned payload (seed:
// serialise_skinned_with_lods): "SKMV", vertices, LOD0 indices, the joint
// block (always, even with no joints), then MRPS when m.Morphs has targets
// and LODS when m.LODs is non-empty. Without morphs and LODs the bytes are
// the legacy skinned payload. It runs ValidateSkinned first and, like
// Encode, refuses a payload with no triangles.
func EncodeSkinned(m *Skinned) ([]byte, error) {
	if err := ValidateSkinned(m); err != nil {
		return nil, err
	}
	if len(m.Indices) == 0 {
		return nil, errEmpty()
	}
	size := 4 + 4 + SkinnedVertexSize*len(m.Vertices) + 4 + 2*len(m.Indices) + 4 + lodsSize(m.LODs)
	for i := range m.Joints {
		size += 4 + len(m.Joints[i].Name) + 4 + 36
	}
	hasMorphs := m.Morphs != nil && len(m.Morphs.Targets) > 0
	if hasMorphs {
		size += 4 + 4 + 4 + 4*len(m.Morphs.Offsets) + MorphEntrySize*len(m.Morphs.Entries)
		for _, t := range m.Morphs.Targets {
			size += 4 + len(t)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, MagicSkinned...)
	b = le32(b, uint32(len(m.Vertices)))
	for i := range m.Vertices {
		v := &m.Vertices[i]
		b = appendVertex(b, &v.Vertex)
		for _, j := range v.Joints {
			b = binary.LittleEndian.AppendUint16(b, j)
		}
		b = f32s(b, v.Weights[:]...)
	}
	b = appendIndices(b, m.Indices)
	b = le32(b, uint32(len(m.Joints)))
	for i := range m.Joints {
		j := &m.Joints[i]
		b = le32(b, uint32(len(j.Name)))
		b = append(b, j.Name...)
		b = le32(b, uint32(j.Parent))
		b = f32s(b, j.Translation[:]...)
		b = f32s(b, j.RotationDeg[:]...)
		b = f32s(b, j.Scale[:]...)
	}
	if hasMorphs {
		mo := m.Morphs
		b = append(b, MagicMorphs...)
		b = le32(b, uint32(len(mo.Targets)))
		for _, t := range mo.Targets {
			b = le32(b, uint32(len(t)))
			b = append(b, t...)
		}
		b = le32(b, uint32(len(mo.Entries)))
		for _, o := range mo.Offsets {
			b = le32(b, o)
		}
		for i := range mo.Entries {
			e := &mo.Entries[i]
			b = le32(b, e.Target)
			b = f32s(b, e.Position[:]...)
			b = f32s(b, e.Normal[:]...)
		}
	}
	return appendLODs(b, m.LODs), nil
}

func lodsSize(lods []LOD) int {
	if len(lods) == 0 {
		return 0
	}
	n := 8
	for _, l := range lods {
		n += 8 + 2*len(l.Indices)
	}
	return n
}

func appendVertex(b []byte, v *Vertex) []byte {
	b = f32s(b, v.Position[:]...)
	b = f32s(b, v.Normal[:]...)
	b = f32s(b, v.Tangent[:]...)
	b = f32s(b, v.Color[:]...)
	return f32s(b, v.UV[:]...)
}

func appendIndices(b []byte, idx []uint16) []byte {
	b = le32(b, uint32(len(idx)))
	for _, x := range idx {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

// appendLODs writes nothing for no alternates: that is what keeps a
// single-LOD payload byte-identical to the legacy format.
func appendLODs(b []byte, lods []LOD) []byte {
	if len(lods) == 0 {
		return b
	}
	b = append(b, MagicLODs...)
	b = le32(b, uint32(len(lods)))
	for _, l := range lods {
		b = f32s(b, l.SwitchDistance)
		b = appendIndices(b, l.Indices)
	}
	return b
}

func appendHeightfield(b []byte, h *Heightfield) []byte {
	b = append(b, MagicHeightfield...)
	b = le32(b, h.Rows)
	b = le32(b, h.Cols)
	return f32s(b, h.Heights...)
}

func le32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

func f32s(b []byte, xs ...float32) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
