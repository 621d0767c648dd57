// Package meshopt decodes the buffer-view compression of glTF's
// EXT_meshopt_compression and KHR_meshopt_compression extensions, written
// from the extensions' specifications (Appendix A, bitstreams; Appendix B,
// filters):
//
//   - mode ATTRIBUTES: the vertex codec, version 0 (0xa0, EXT and KHR) and
//     version 1 (0xa1, KHR: control modes and channel modes);
//   - mode TRIANGLES: the triangle index codec (0xe1);
//   - mode INDICES: the index sequence codec (0xd1);
//   - filters OCTAHEDRAL, QUATERNION, EXPONENTIAL and COLOR (KHR), applied
//     in place after the vertex codec.
//
// Every decoder reads only inside its source, refuses a stream that ends
// early or leaves bytes unread before its tail, and writes exactly
// count × stride bytes, which the caller allocates after bounding them
// (MaxOutput bounds what a stream of a given size can expand to). Errors
// read "meshopt: <mode>: <what> at byte <offset>". No input makes a
// decoder panic (FuzzDecode).
package meshopt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Modes and filters as the extension JSON names them.
const (
	ModeAttributes = "ATTRIBUTES"
	ModeTriangles  = "TRIANGLES"
	ModeIndices    = "INDICES"

	FilterNone        = "NONE"
	FilterOctahedral  = "OCTAHEDRAL"
	FilterQuaternion  = "QUATERNION"
	FilterExponential = "EXPONENTIAL"
	FilterColor       = "COLOR"
)

// ErrInvalid is wrapped by every decoding error.
var ErrInvalid = errors.New("meshopt: invalid stream")

func invalid(mode string, at int, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s at byte %d", ErrInvalid, mode, fmt.Sprintf(format, args...), at)
}

// MaxOutput is the most bytes a well-formed stream of n bytes can decode
// to in the given mode: a version-1 attribute block spends at least one
// control byte per four byte positions of up to 256 elements (1024:1), a
// triangle at least one code byte for 3 indices of up to 4 bytes (12:1),
// an index at least one byte (4:1). Callers refuse larger count × stride
// before allocating.
func MaxOutput(mode string, n int) int {
	switch mode {
	case ModeAttributes:
		return 1024*n + 8192
	case ModeTriangles:
		return 12 * n
	case ModeIndices:
		return 4 * n
	}
	return 0
}

// Decode checks mode, filter, count and stride against the extension's
// rules and decodes src into a new count × stride buffer. The output size
// is refused when it passes limit or MaxOutput(mode, len(src)).
func Decode(mode, filter string, count, stride int, src []byte, limit int) ([]byte, error) {
	if filter == "" {
		filter = FilterNone
	}
	if count < 0 || stride < 1 {
		return nil, invalid(mode, 0, "count %d, byteStride %d", count, stride)
	}
	switch mode {
	case ModeAttributes:
		if stride%4 != 0 || stride > 256 {
			return nil, invalid(mode, 0, "byteStride %d is not a multiple of 4 up to 256", stride)
		}
		switch filter {
		case FilterNone:
		case FilterOctahedral, FilterColor:
			if stride != 4 && stride != 8 {
				return nil, invalid(mode, 0, "filter %s needs byteStride 4 or 8, not %d", filter, stride)
			}
		case FilterQuaternion:
			if stride != 8 {
				return nil, invalid(mode, 0, "filter %s needs byteStride 8, not %d", filter, stride)
			}
		case FilterExponential:
		default:
			return nil, invalid(mode, 0, "unknown filter %q", filter)
		}
	case ModeTriangles, ModeIndices:
		if stride != 2 && stride != 4 {
			return nil, invalid(mode, 0, "byteStride %d, want 2 or 4", stride)
		}
		if filter != FilterNone {
			return nil, invalid(mode, 0, "filter %s is only for ATTRIBUTES", filter)
		}
		if mode == ModeTriangles && count%3 != 0 {
			return nil, invalid(mode, 0, "count %d is not a multiple of 3", count)
		}
	default:
		return nil, invalid(mode, 0, "unknown mode %q", mode)
	}
	size := uint64(count) * uint64(stride)
	if size > uint64(max(limit, 0)) || size > uint64(MaxOutput(mode, len(src))) {
		return nil, invalid(mode, 0, "%d elements of %d bytes cannot come from %d compressed bytes (or pass the limit of %d)", count, stride, len(src), limit)
	}
	dst := make([]byte, size)
	var err error
	switch mode {
	case ModeAttributes:
		if err = DecodeVertexBuffer(dst, count, stride, src); err == nil {
			err = Filter(filter, dst, count, stride)
		}
	case ModeTriangles:
		err = DecodeIndexBuffer(dst, count, stride, src)
	case ModeIndices:
		err = DecodeIndexSequence(dst, count, stride, src)
	}
	if err != nil {
		return nil, err
	}
	return dst, nil
}

// sentinel bit widths per delta encoding mode: version 0, then version 1
// with control mode 0 and 1.
var headerBits = [3][4]int{{0, 2, 4, 8}, {0, 1, 2, 4}, {1, 2, 4, 8}}

// DecodeVertexBuffer decodes an ATTRIBUTES stream of count elements of
// stride bytes (a multiple of 4, at most 256) into dst (count × stride
// bytes).
func DecodeVertexBuffer(dst []byte, count, stride int, src []byte) error {
	const mode = ModeAttributes
	if stride < 4 || stride > 256 || stride%4 != 0 || count < 0 || len(dst) != count*stride {
		return invalid(mode, 0, "byteStride %d, count %d, output %d bytes", stride, count, len(dst))
	}
	if len(src) < 1 || src[0]&0xf0 != 0xa0 || src[0]&0x0f > 1 {
		return invalid(mode, 0, "header is not 0xa0 or 0xa1")
	}
	v1 := src[0] == 0xa1
	tailSize, tailPad := stride, 32
	if v1 {
		tailSize, tailPad = stride+stride/4, 24
	}
	tailPad = max(tailPad, tailSize)
	if len(src) < 1+tailPad {
		return invalid(mode, len(src), "stream of %d bytes is shorter than its %d-byte tail", len(src), tailPad)
	}
	tail := src[len(src)-tailSize:]
	prev := make([]byte, stride)
	copy(prev, tail[:stride])
	var channels []byte
	if v1 {
		channels = tail[stride:]
		for c, m := range channels {
			if m&3 == 3 || (m&3 != 2 && m>>4 != 0) {
				return invalid(mode, len(src)-stride/4+c, "channel mode byte 0x%02x", m)
			}
		}
	}
	end := len(src) - tailPad // data ends where the tail padding starts
	p := 1
	maxBlock := min((8192/stride)&^15, 256)
	deltas := make([]byte, stride*256) // byte position b's deltas at b*256
	for base := 0; base < count; base += maxBlock {
		n := min(count-base, maxBlock)
		groups := (n + 15) / 16
		var control []byte
		if v1 {
			if end-p < stride/4 {
				return invalid(mode, p, "block control bytes past the data")
			}
			control, p = src[p:p+stride/4], p+stride/4
		}
		for b := range stride {
			d := deltas[b*256 : b*256+groups*16]
			clear(d)
			cm := 0
			if v1 {
				cm = int(control[b/4]>>(2*(b%4))) & 3
			}
			switch cm {
			case 2: // all deltas zero
				continue
			case 3: // literal deltas, no header
				if end-p < n {
					return invalid(mode, p, "literal deltas past the data")
				}
				copy(d, src[p:p+n])
				p += n
				continue
			}
			hb := (groups + 3) / 4
			if end-p < hb {
				return invalid(mode, p, "group header past the data")
			}
			hdr := src[p : p+hb]
			p += hb
			table := headerBits[0]
			if v1 {
				table = headerBits[1+cm]
			}
			for g := range groups {
				bits := table[hdr[g/4]>>(2*(g%4))&3]
				out := d[g*16 : g*16+16]
				var err error
				if p, err = decodeGroup(out, bits, src, p, end); err != nil {
					return err
				}
			}
		}
		for e := range n {
			row := dst[(base+e)*stride : (base+e+1)*stride]
			for c := 0; c < stride; c += 4 {
				cm := byte(0)
				if v1 {
					cm = channels[c/4]
				}
				at := func(k int) byte { return deltas[(c+k)*256+e] }
				switch cm & 3 {
				case 0: // byte deltas
					for k := range 4 {
						prev[c+k] += unzigzag8(at(k))
					}
				case 1: // 2-byte deltas
					for k := 0; k < 4; k += 2 {
						v := binary.LittleEndian.Uint16(prev[c+k:]) + unzigzag16(uint16(at(k))|uint16(at(k+1))<<8)
						binary.LittleEndian.PutUint16(prev[c+k:], v)
					}
				case 2: // 4-byte XOR deltas, rotated
					delta := uint32(at(0)) | uint32(at(1))<<8 | uint32(at(2))<<16 | uint32(at(3))<<24
					r := uint(cm >> 4)
					v := binary.LittleEndian.Uint32(prev[c:]) ^ (delta>>r | delta<<((32-r)&31))
					binary.LittleEndian.PutUint32(prev[c:], v)
				}
			}
			copy(row, prev)
		}
	}
	if p != end {
		return invalid(mode, p, "%d bytes left unread before the tail", end-p)
	}
	return nil
}

// decodeGroup reads one group's 16 deltas of the given sentinel width (0:
// all zero, 8: verbatim) from src at p, extra bytes included, staying
// before end; it returns the offset after the group.
func decodeGroup(out []byte, bits int, src []byte, p, end int) (int, error) {
	const mode = ModeAttributes
	switch bits {
	case 0:
		return p, nil
	case 8:
		if end-p < 16 {
			return p, invalid(mode, p, "verbatim group past the data")
		}
		copy(out, src[p:p+16])
		return p + 16, nil
	}
	packed := 2 * bits // bytes of packed deltas for 16 elements
	if end-p < packed {
		return p, invalid(mode, p, "%d-bit group past the data", bits)
	}
	head := src[p : p+packed]
	p += packed
	sentinel := byte(1<<bits - 1)
	for m := range 16 {
		var v byte
		switch bits {
		case 1: // least significant bit first
			v = head[m/8] >> (m % 8) & 1
		case 2: // most significant pair first
			v = head[m/4] >> (6 - 2*(m%4)) & 3
		case 4:
			v = head[m/2] >> (4 - 4*(m%2)) & 15
		}
		if v == sentinel {
			if p >= end {
				return p, invalid(mode, p, "sentinel byte past the data")
			}
			v = src[p]
			p++
		}
		out[m] = v
	}
	return p, nil
}

func unzigzag8(v byte) byte      { return -(v & 1) ^ (v >> 1) }
func unzigzag16(v uint16) uint16 { return -(v & 1) ^ (v >> 1) }
func unzigzag32(v uint32) uint32 { return -(v & 1) ^ (v >> 1) }

// put writes index i of an index buffer of stride 2 or 4.
func put(dst []byte, i, stride int, v uint32) {
	if stride == 2 {
		binary.LittleEndian.PutUint16(dst[2*i:], uint16(v))
	} else {
		binary.LittleEndian.PutUint32(dst[4*i:], v)
	}
}

// varint reads an unsigned LEB128 of at most 5 bytes from src[*p:end].
func varint(mode string, src []byte, p *int, end int) (uint32, error) {
	var v uint32
	for i := 0; i < 5; i++ {
		if *p >= end {
			return 0, invalid(mode, *p, "varint past the data")
		}
		b := src[*p]
		*p++
		v |= uint32(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, invalid(mode, *p, "varint longer than 5 bytes")
}

// DecodeIndexBuffer decodes a TRIANGLES stream of count indices (a
// multiple of 3) of stride 2 or 4 bytes into dst.
func DecodeIndexBuffer(dst []byte, count, stride int, src []byte) error {
	const mode = ModeTriangles
	if (stride != 2 && stride != 4) || count < 0 || count%3 != 0 || len(dst) != count*stride {
		return invalid(mode, 0, "byteStride %d, count %d, output %d bytes", stride, count, len(dst))
	}
	tris := count / 3
	if len(src) < 1+16 || len(src)-17 < tris {
		return invalid(mode, len(src), "stream of %d bytes cannot hold %d triangle codes and the 16-byte table", len(src), tris)
	}
	if src[0] != 0xe1 {
		return invalid(mode, 0, "header 0x%02x, want 0xe1", src[0])
	}
	aux := src[len(src)-16:]
	if aux[14] != 0 || aux[15] != 0 {
		return invalid(mode, len(src)-2, "the table's last two bytes are not 0")
	}
	for i, b := range aux {
		if b>>4 == 15 || b&15 == 15 {
			return invalid(mode, len(src)-16+i, "table byte 0x%02x has a nibble 0xf", b)
		}
	}
	codes := src[1 : 1+tris]
	p, end := 1+tris, len(src)-16
	var (
		next, last uint32
		edges      [16][2]uint32
		verts      [16]uint32
		eo, vo     int
	)
	edge := func(x int) (uint32, uint32) { e := edges[(eo-1-x)&15]; return e[0], e[1] }
	pushEdge := func(a, b uint32) { edges[eo] = [2]uint32{a, b}; eo = (eo + 1) & 15 }
	vert := func(x int) uint32 { return verts[(vo-1-x)&15] }
	pushVert := func(v uint32) { verts[vo] = v; vo = (vo + 1) & 15 }
	index := func() (uint32, error) {
		v, err := varint(mode, src, &p, end)
		if err != nil {
			return 0, err
		}
		last += unzigzag32(v)
		return last, nil
	}
	for t, code := range codes {
		x, y := int(code>>4), int(code&15)
		var a, b, c uint32
		if x < 15 {
			a, b = edge(x)
			switch {
			case y == 0:
				c = next
				next++
				pushVert(c)
			case y < 13:
				c = vert(y)
			case y == 13:
				last--
				c = last
				pushVert(c)
			case y == 14:
				last++
				c = last
				pushVert(c)
			default:
				var err error
				if c, err = index(); err != nil {
					return err
				}
				pushVert(c)
			}
			pushEdge(c, b)
			pushEdge(a, c)
		} else {
			var z, w int
			explicit := y >= 14
			if explicit {
				if p >= end {
					return invalid(mode, p, "triangle %d: extra byte past the data", t)
				}
				e := src[p]
				p++
				if e == 0 {
					next = 0
				}
				z, w = int(e>>4), int(e&15)
			} else {
				z, w = int(aux[y]>>4), int(aux[y]&15)
			}
			var err error
			if y == 15 {
				if a, err = index(); err != nil {
					return err
				}
			} else {
				a = next
				next++
			}
			pick := func(k int) (uint32, error) {
				switch {
				case k == 0:
					v := next
					next++
					return v, nil
				case k == 15 && explicit:
					return index()
				default:
					return vert(k - 1), nil
				}
			}
			if b, err = pick(z); err != nil {
				return err
			}
			if c, err = pick(w); err != nil {
				return err
			}
			pushVert(a)
			if z == 0 || (explicit && z == 15) {
				pushVert(b)
			}
			if w == 0 || (explicit && w == 15) {
				pushVert(c)
			}
			pushEdge(b, a)
			pushEdge(c, b)
			pushEdge(a, c)
		}
		put(dst, 3*t, stride, a)
		put(dst, 3*t+1, stride, b)
		put(dst, 3*t+2, stride, c)
	}
	if p != end {
		return invalid(mode, p, "%d extra bytes left unread before the table", end-p)
	}
	return nil
}

// DecodeIndexSequence decodes an INDICES stream of count indices of stride
// 2 or 4 bytes into dst.
func DecodeIndexSequence(dst []byte, count, stride int, src []byte) error {
	const mode = ModeIndices
	if (stride != 2 && stride != 4) || count < 0 || len(dst) != count*stride {
		return invalid(mode, 0, "byteStride %d, count %d, output %d bytes", stride, count, len(dst))
	}
	if len(src) < 1+4 {
		return invalid(mode, len(src), "stream of %d bytes is shorter than header and tail", len(src))
	}
	if src[0] != 0xd1 {
		return invalid(mode, 0, "header 0x%02x, want 0xd1", src[0])
	}
	p, end := 1, len(src)-4
	var last [2]uint32
	for i := range count {
		v, err := varint(mode, src, &p, end)
		if err != nil {
			return err
		}
		last[v&1] += unzigzag32(v >> 1)
		put(dst, i, stride, last[v&1])
	}
	if p != end {
		return invalid(mode, p, "%d bytes left unread before the tail", end-p)
	}
	return nil
}

// Filter applies an ATTRIBUTES filter in place to count elements of stride
// bytes (Appendix B). Values the specification leaves unspecified (a zero
// "one" component, say) decode to zeros instead of NaNs.
func Filter(filter string, data []byte, count, stride int) error {
	le := binary.LittleEndian
	switch filter {
	case "", FilterNone:
	case FilterOctahedral:
		for i := range count {
			e := data[i*stride : (i+1)*stride]
			var in [3]float64
			for k := range in {
				in[k] = comp(e, k, stride)
			}
			one, x, y := in[2], 0.0, 0.0
			if one != 0 {
				x, y = in[0]/one, in[1]/one
			}
			z := 1 - math.Abs(x) - math.Abs(y)
			t := math.Min(z, 0)
			x -= math.Copysign(t, x)
			y -= math.Copysign(t, y)
			l := math.Sqrt(x*x + y*y + z*z)
			if l == 0 || one == 0 {
				x, y, z, l = 0, 0, 0, 1
			}
			top := float64(int(1)<<(2*stride-1) - 1) // 127 or 32767
			for k, v := range [3]float64{x / l, y / l, z / l} {
				setComp(e, k, stride, math.Round(v*top))
			}
		}
	case FilterQuaternion:
		for i := range count {
			e := data[i*8 : i*8+8]
			w := int16(le.Uint16(e[6:]))
			s := math.Sqrt2 / 2 / float64(w|3)
			x := float64(int16(le.Uint16(e[0:]))) * s
			y := float64(int16(le.Uint16(e[2:]))) * s
			z := float64(int16(le.Uint16(e[4:]))) * s
			ww := math.Sqrt(math.Max(0, 1-x*x-y*y-z*z))
			m := int(w & 3)
			for k, v := range [4]float64{ww, x, y, z} {
				le.PutUint16(e[2*((m+k)%4):], uint16(int16(clampRound(v*32767, -32767, 32767))))
			}
		}
	case FilterExponential:
		if stride%4 != 0 {
			return invalid(ModeAttributes, 0, "filter %s needs a byteStride multiple of 4", filter)
		}
		for i := 0; i+4 <= count*stride; i += 4 {
			v := int32(le.Uint32(data[i:]))
			ex := int(v >> 24)
			m := (v << 8) >> 8
			f := float32(math.Ldexp(float64(m), ex))
			le.PutUint32(data[i:], math.Float32bits(f))
		}
	case FilterColor:
		for i := range count {
			e := data[i*stride : (i+1)*stride]
			var y, co, cg, a int
			top := 255
			if stride == 4 {
				y, co, cg, a = int(e[0]), int(int8(e[1])), int(int8(e[2])), int(e[3])
			} else {
				y, co, cg, a = int(le.Uint16(e)), int(int16(le.Uint16(e[2:]))), int(int16(le.Uint16(e[4:]))), int(le.Uint16(e[6:]))
				top = 65535
			}
			msb := -1
			for v := a; v > 0; v >>= 1 {
				msb++
			}
			as := (1 << (msb + 1)) - 1
			r, g, b := y+co-cg, y+cg, y-co-cg
			al := a & (as >> 1)
			al = al<<1 | al&1
			ss := 0.0
			if as > 0 {
				ss = float64(top) / float64(as)
			}
			for k, v := range [4]int{r, g, b, al} {
				out := clampRound(float64(v)*ss, 0, float64(top))
				if stride == 4 {
					e[k] = byte(out)
				} else {
					le.PutUint16(e[2*k:], uint16(out))
				}
			}
		}
	default:
		return invalid(ModeAttributes, 0, "unknown filter %q", filter)
	}
	return nil
}

// comp reads signed component k of an element of 4 components of stride/4
// bytes.
func comp(e []byte, k, stride int) float64 {
	if stride == 4 {
		return float64(int8(e[k]))
	}
	return float64(int16(binary.LittleEndian.Uint16(e[2*k:])))
}

func setComp(e []byte, k, stride int, v float64) {
	if stride == 4 {
		e[k] = byte(int8(clampRound(v, -127, 127)))
		return
	}
	binary.LittleEndian.PutUint16(e[2*k:], uint16(int16(clampRound(v, -32767, 32767))))
}

// clampRound rounds half away from zero and clamps to [lo, hi].
func clampRound(v, lo, hi float64) int {
	v = math.Round(v)
	if !(v >= lo) {
		return int(lo)
	}
	if v > hi {
		return int(hi)
	}
	return int(v)
}
