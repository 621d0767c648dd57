package msh7

import (
	"encoding/binary"
	"slices"
)

// Reference encoding (nwb.md §4): each channel of a meshlet stores base =
// the smallest index it references, and the deltas (index − base) as
// little-endian u8, u16 or u32, the narrowest that holds max − min. A
// meshlet's position-ref bytes are its position deltas then (skinned) its
// skin deltas; its attribute-ref bytes are its normal, tangent, uv0 and
// colour deltas, one plane after another. A reference decodes as base +
// delta at channelOffset + local·width.

// WidthCode returns the narrowest width code for deltas up to span: ≤ 255
// → WidthU8, ≤ 65535 → WidthU16, else WidthU32.
func WidthCode(span uint32) int {
	switch {
	case span <= 0xFF:
		return WidthU8
	case span <= 0xFFFF:
		return WidthU16
	default:
		return WidthU32
	}
}

// WidthBytes returns the bytes per delta of a width code (0 for code 3).
func WidthBytes(code int) int {
	switch code {
	case WidthU8:
		return 1
	case WidthU16:
		return 2
	case WidthU32:
		return 4
	}
	return 0
}

// EncodeRefs appends the deltas of one channel's refs to dst and returns
// the grown slice, the base (the smallest ref, 0 when refs is empty) and the
// width code.
func EncodeRefs(dst []byte, refs []uint32) (out []byte, base uint32, code int) {
	if len(refs) == 0 {
		return dst, 0, WidthU8
	}
	lo, hi := slices.Min(refs), slices.Max(refs)
	code = WidthCode(hi - lo)
	for _, r := range refs {
		d := r - lo
		switch code {
		case WidthU8:
			dst = append(dst, byte(d))
		case WidthU16:
			dst = binary.LittleEndian.AppendUint16(dst, uint16(d))
		default:
			dst = binary.LittleEndian.AppendUint32(dst, d)
		}
	}
	return dst, lo, code
}

// DecodeRef returns base + the delta at byte off + i·width of buf as a
// 64-bit value (so an overflowing base + delta is out of range rather than
// wrapped), or ok false when it lies past buf or code is invalid.
func DecodeRef(buf []byte, off uint64, code int, i int, base uint32) (ref uint64, ok bool) {
	w := uint64(WidthBytes(code))
	if w == 0 {
		return 0, false
	}
	at := off + uint64(i)*w
	if at < off || at > uint64(len(buf)) || uint64(len(buf))-at < w {
		return 0, false
	}
	var d uint32
	switch w {
	case 1:
		d = uint32(buf[at])
	case 2:
		d = uint32(binary.LittleEndian.Uint16(buf[at:]))
	default:
		d = binary.LittleEndian.Uint32(buf[at:])
	}
	return uint64(base) + uint64(d), true
}

// MeshletRefs are one meshlet's decoded global stream indices: one entry
// per local position (Positions, and Skin for skinned meshes) and one per
// local attribute (Normals, Tangents, UV0, Colors).
type MeshletRefs struct {
	Positions, Skin                []uint32
	Normals, Tangents, UV0, Colors []uint32
}

// positionRefBytes returns how many position-ref bytes meshlet d uses.
func positionRefBytes(d MeshletDesc, skinned bool) uint64 {
	n := uint64(d.PositionCount()) * uint64(WidthBytes(d.Width(ChanPosition)))
	if skinned {
		n += uint64(d.PositionCount()) * uint64(WidthBytes(d.Width(ChanSkin)))
	}
	return n
}

// attributeRefBytes returns how many attribute-ref bytes meshlet d uses.
func attributeRefBytes(d MeshletDesc) uint64 {
	var w uint64
	for c := ChanNormal; c <= ChanColor; c++ {
		w += uint64(WidthBytes(d.Width(c)))
	}
	return uint64(d.AttributeCount()) * w
}

// DecodeRefs decodes meshlet m's references exactly as the engine does. It
// returns a FormatError when m is out of range, a width code is invalid, a
// delta lies past its stream or a reference is out of its stream's range.
func (f *File) DecodeRefs(m int) (MeshletRefs, error) {
	lay, ok := layoutOf(f.fileCounts())
	if !ok {
		return MeshletRefs{}, errAt(-1, nil, "stream sizes overflow")
	}
	return f.decodeRefs(m, lay)
}

func (f *File) decodeRefs(m int, lay layout) (MeshletRefs, error) {
	if m < 0 || m >= len(f.Meshlets) {
		return MeshletRefs{}, errAt(-1, nil, "meshlet %d out of range [0, %d)", m, len(f.Meshlets))
	}
	d := f.Meshlets[m]
	descAt := int64(lay.descs) + int64(m)*MeshletDescSize
	skinned := f.Class == ClassSkinned
	type plane struct {
		c     Channel
		refs  *[]uint32
		n     int
		limit int
		buf   []byte
		at    uint64 // plane offset in buf
		fileO uint64 // buf's offset in the file
	}
	var r MeshletRefs
	np, na := d.PositionCount(), d.AttributeCount()
	planes := make([]plane, 0, NumChannels)
	at := uint64(d.PositionRefOffset)
	planes = append(planes, plane{ChanPosition, &r.Positions, np, len(f.Positions), f.PositionRefs, at, lay.posRefs})
	at += uint64(np) * uint64(WidthBytes(d.Width(ChanPosition)))
	if skinned {
		planes = append(planes, plane{ChanSkin, &r.Skin, np, len(f.Skin), f.PositionRefs, at, lay.posRefs})
	}
	at = uint64(d.AttributeRefOffset)
	limits := [...]int{len(f.Normals), len(f.Tangents), len(f.UV0), len(f.Colors)}
	dsts := [...]*[]uint32{&r.Normals, &r.Tangents, &r.UV0, &r.Colors}
	for i, c := range []Channel{ChanNormal, ChanTangent, ChanUV0, ChanColor} {
		planes = append(planes, plane{c, dsts[i], na, limits[i], f.AttributeRefs, at, lay.attrRefs})
		at += uint64(na) * uint64(WidthBytes(d.Width(c)))
	}
	for _, p := range planes {
		code := d.Width(p.c)
		if WidthBytes(code) == 0 {
			return MeshletRefs{}, errAt(descAt+44, nil, "meshlet %d: %s width code 3", m, p.c)
		}
		base := d.Base(p.c)
		out := make([]uint32, p.n)
		for i := range p.n {
			v, ok := DecodeRef(p.buf, p.at, code, i, base)
			if !ok {
				return MeshletRefs{}, errAt(int64(p.fileO+p.at), nil, "meshlet %d: %s ref %d past the end of its stream (%d bytes)", m, p.c, i, len(p.buf))
			}
			if v >= uint64(p.limit) {
				w := uint64(WidthBytes(code))
				return MeshletRefs{}, errAt(int64(p.fileO+p.at+uint64(i)*w), nil, "meshlet %d: %s ref %d decodes to %d, not < %s count %d", m, p.c, i, v, p.c, p.limit)
			}
			out[i] = uint32(v)
		}
		*p.refs = out
	}
	return r, nil
}
