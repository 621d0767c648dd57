package msh7

import (
	"encoding/binary"
	"math"
)

// Encode validates f and returns its bytes: the 120-byte header, then every
// stream in order with nothing between them (see the package doc). Raw byte
// streams are written at their logical length; padding them to a 4-byte
// boundary is the GPU upload's business (formats.md §4). A payload with no
// triangles is refused: an empty mesh is never written.
func Encode(f *File) ([]byte, error) {
	if err := Validate(f); err != nil {
		return nil, err
	}
	if len(f.Primitives) == 0 {
		return nil, &FormatError{Offset: -1, Msg: "no triangles: an empty mesh is not written"}
	}
	c := f.fileCounts()
	lay, _ := layoutOf(c) // Validate checked it
	b := make([]byte, 0, lay.end)
	b = binary.LittleEndian.AppendUint32(b, Magic)
	b = binary.LittleEndian.AppendUint32(b, uint32(f.Class))
	for _, n := range c {
		b = binary.LittleEndian.AppendUint64(b, n)
	}
	f32 := func(b []byte, v ...float32) []byte {
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	half4 := func(b []byte, h [4]Half) []byte {
		for _, x := range h {
			b = binary.LittleEndian.AppendUint16(b, uint16(x))
		}
		return b
	}
	for _, p := range f.Positions {
		b = f32(b, p[:]...)
	}
	for _, h := range f.Normals {
		b = half4(b, h)
	}
	for _, h := range f.Tangents {
		b = half4(b, h)
	}
	for _, u := range f.UV0 {
		b = f32(b, u[:]...)
	}
	for _, h := range f.Colors {
		b = half4(b, h)
	}
	for _, s := range f.Skin {
		b = binary.LittleEndian.AppendUint32(b, uint32(s.Joints[0])|uint32(s.Joints[1])<<16)
		b = binary.LittleEndian.AppendUint32(b, uint32(s.Joints[2])|uint32(s.Joints[3])<<16)
		b = f32(b, s.Weights[:]...)
	}
	for _, j := range f.Joints {
		b = f32(b, j.InverseBind[:]...)
		b = f32(b, j.BindT[:]...)
		b = f32(b, j.BindR[:]...)
		b = f32(b, j.BindS[:]...)
		b = binary.LittleEndian.AppendUint32(b, uint32(j.Parent))
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	for _, m := range f.InverseBinds {
		b = f32(b, m[:]...)
	}
	for _, d := range f.Meshlets {
		for _, w := range [12]uint32{d.LocalVertexOffset, d.PrimitiveOffset, d.PositionRefOffset,
			d.AttributeRefOffset, d.Counts, d.PositionBase, d.SkinBase, d.NormalBase,
			d.TangentBase, d.UV0Base, d.ColorBase, d.Encoding} {
			b = binary.LittleEndian.AppendUint32(b, w)
		}
	}
	for _, x := range f.Bounds {
		b = f32(b, x.Center[0], x.Center[1], x.Center[2], x.Radius)
		b = binary.LittleEndian.AppendUint32(b, x.Cone)
	}
	b = append(b, f.PositionRefs...)
	b = append(b, f.AttributeRefs...)
	for _, l := range f.LocalVertices {
		b = binary.LittleEndian.AppendUint16(b, l.Position)
		b = binary.LittleEndian.AppendUint16(b, l.Attribute)
	}
	b = append(b, f.Primitives...)
	return b, nil
}
