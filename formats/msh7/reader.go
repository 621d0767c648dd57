package msh7

import (
	"encoding/binary"
	"io"
	"math"
)

// Decode parses and validates a whole MSH7 payload. Every count is checked
// against the bytes that remain before anything is allocated; the file must
// end exactly after the last stream. MSH5 and MSH6 payloads are refused
// with an error wrapping ErrRecook. The returned File passes Validate, so
// Encode accepts it and writes the same bytes back.
func Decode(b []byte) (*File, error) {
	if len(b) < 4 {
		return nil, errAt(int64(len(b)), io.ErrUnexpectedEOF, "truncated header (%d of %d bytes)", len(b), HeaderSize)
	}
	switch m := binary.LittleEndian.Uint32(b); m {
	case Magic:
	case MagicMSH5, MagicMSH6:
		return nil, errAt(0, ErrRecook, "MSH%c payload", rune(m&0xFF))
	default:
		return nil, errAt(0, nil, "bad magic %q, want \"7HSM\" (u32 %#x)", b[:4], uint32(Magic))
	}
	if len(b) < HeaderSize {
		return nil, errAt(int64(len(b)), io.ErrUnexpectedEOF, "truncated header (%d of %d bytes)", len(b), HeaderSize)
	}
	f := &File{Class: MeshClass(binary.LittleEndian.Uint32(b[4:]))}
	var c counts
	for i := range c {
		c[i] = binary.LittleEndian.Uint64(b[8+8*i:])
	}
	if err := validateHeader(f, c); err != nil {
		return nil, err
	}

	// Bound every stream against the bytes left before allocating.
	at := uint64(HeaderSize)
	for _, s := range bodyOrder {
		left := uint64(len(b)) - at
		if n := c[s.count]; n > left/s.size {
			return nil, errAt(int64(at), io.ErrUnexpectedEOF, "%s %d × %d B exceeds the %d bytes left", countNames[s.count], n, s.size, left)
		}
		at += c[s.count] * s.size
	}
	if at != uint64(len(b)) {
		return nil, errAt(int64(at), nil, "%d trailing bytes after the last stream", uint64(len(b))-at)
	}

	r := reader{b: b, at: HeaderSize}
	f.Positions = readArray(&r, c[cPositions], func(r *reader) [3]float32 { return [3]float32{r.f32(), r.f32(), r.f32()} })
	f.Normals = readArray(&r, c[cNormals], (*reader).half4)
	f.Tangents = readArray(&r, c[cTangents], (*reader).half4)
	f.UV0 = readArray(&r, c[cUV0], func(r *reader) [2]float32 { return [2]float32{r.f32(), r.f32()} })
	f.Colors = readArray(&r, c[cColors], (*reader).half4)
	f.Skin = readArray(&r, c[cSkin], func(r *reader) Influence {
		w0, w1 := r.u32(), r.u32()
		return Influence{
			Joints:  [4]uint16{uint16(w0), uint16(w0 >> 16), uint16(w1), uint16(w1 >> 16)},
			Weights: [4]float32{r.f32(), r.f32(), r.f32(), r.f32()},
		}
	})
	jointsAt := r.at
	f.Joints = readArray(&r, c[cJoints], func(r *reader) Joint {
		var j Joint
		for k := range j.InverseBind {
			j.InverseBind[k] = r.f32()
		}
		j.BindT = [3]float32{r.f32(), r.f32(), r.f32()}
		j.BindR = [4]float32{r.f32(), r.f32(), r.f32(), r.f32()}
		j.BindS = [3]float32{r.f32(), r.f32(), r.f32()}
		j.Parent = int32(r.u32())
		r.u32() // pad, checked below
		return j
	})
	for j := range f.Joints {
		pad := jointsAt + uint64(j)*JointSize + 108
		if v := binary.LittleEndian.Uint32(b[pad:]); v != 0 {
			return nil, errAt(int64(pad), nil, "joint %d: pad %#x, want 0", j, v)
		}
	}
	f.InverseBinds = readArray(&r, c[cInverseBinds], func(r *reader) [16]float32 {
		var m [16]float32
		for k := range m {
			m[k] = r.f32()
		}
		return m
	})
	f.Meshlets = readArray(&r, c[cMeshlets], func(r *reader) MeshletDesc {
		var w [12]uint32
		for k := range w {
			w[k] = r.u32()
		}
		return MeshletDesc{w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11]}
	})
	f.Bounds = readArray(&r, c[cMeshletBounds], func(r *reader) MeshletBounds {
		return MeshletBounds{Center: [3]float32{r.f32(), r.f32(), r.f32()}, Radius: r.f32(), Cone: r.u32()}
	})
	f.PositionRefs = r.bytes(c[cPositionRefBytes])
	f.AttributeRefs = r.bytes(c[cAttributeRefBytes])
	f.LocalVertices = readArray(&r, c[cLocalVertexRefs], func(r *reader) LocalVertexRef {
		w := r.u32()
		return LocalVertexRef{Position: uint16(w), Attribute: uint16(w >> 16)}
	})
	f.Primitives = r.bytes(c[cPrimitiveIndices])

	if err := Validate(f); err != nil {
		return nil, err
	}
	return f, nil
}

// reader walks b; Decode has bounded every stream, so reads cannot run
// past the end.
type reader struct {
	b  []byte
	at uint64
}

func (r *reader) u32() uint32 {
	v := binary.LittleEndian.Uint32(r.b[r.at:])
	r.at += 4
	return v
}

func (r *reader) f32() float32 { return math.Float32frombits(r.u32()) }

func (r *reader) half4() [4]Half {
	var h [4]Half
	for k := range h {
		h[k] = Half(binary.LittleEndian.Uint16(r.b[r.at:]))
		r.at += 2
	}
	return h
}

// bytes copies the next n bytes; an empty stream is nil, as in readArray.
func (r *reader) bytes(n uint64) []byte {
	if n == 0 {
		return nil
	}
	out := make([]byte, n)
	copy(out, r.b[r.at:r.at+n])
	r.at += n
	return out
}

// readArray reads n records with one; n has been bounded by the caller.
// An empty stream decodes to nil, as Build leaves absent streams.
func readArray[T any](r *reader, n uint64, one func(*reader) T) []T {
	if n == 0 {
		return nil
	}
	out := make([]T, n)
	for i := range out {
		out[i] = one(r)
	}
	return out
}
