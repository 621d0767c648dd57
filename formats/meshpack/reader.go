package meshpack

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
)

// Decode reads a pack from file bytes: one zstd frame, or raw pack bytes.
// The decompressed size is capped at 1 GiB (DecodeLimit sets another cap).
func Decode(b []byte) (*Pack, error) { return DecodeLimit(b, defaultLimitBytes) }

// DecodeLimit is Decode with a cap on the decompressed size in bytes.
func DecodeLimit(b []byte, limit int64) (*Pack, error) {
	raw, err := Decompress(b, limit)
	if err != nil {
		return nil, err
	}
	return DecodeRaw(raw)
}

// Read reads at most limit bytes from r and decodes them.
func Read(r io.Reader, limit int64) (*Pack, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("meshpack: %w", err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("meshpack: file larger than the %d-byte limit", limit)
	}
	return DecodeLimit(b, limit)
}

// IsCompressed reports whether b starts with a zstd frame magic.
func IsCompressed(b []byte) bool {
	return len(b) >= 4 && binary.LittleEndian.Uint32(b) == zstdMagic
}

// Decompress returns the raw pack bytes: b itself when it is not a zstd
// frame, else the frame's content (at most limit bytes).
func Decompress(b []byte, limit int64) ([]byte, error) {
	if !IsCompressed(b) {
		return b, nil
	}
	if limit <= 0 {
		limit = defaultLimitBytes
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(uint64(limit)),
		zstd.WithDecoderMaxWindow(uint64(min(limit, 1<<30))))
	if err != nil {
		return nil, fmt.Errorf("meshpack: zstd decoder: %w", err)
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(b, nil)
	if err != nil {
		return nil, &FormatError{Offset: 0, Msg: "zstd frame", Err: err}
	}
	return raw, nil
}

// DecodeRaw reads uncompressed pack bytes. Every count is bounded by the
// bytes that remain before anything is allocated; the pack is then
// validated.
func DecodeRaw(b []byte) (*Pack, error) {
	d := decoder{b: b}
	if len(b) < HeaderSize {
		return nil, errAt(0, io.ErrUnexpectedEOF, "pack header needs %d bytes, file has %d", HeaderSize, len(b))
	}
	p := &Pack{}
	switch magic := d.u32(0); magic {
	case MagicStatic:
		p.Family = Static
	case MagicRigged:
		p.Family = Rigged
	default:
		return nil, errAt(0, nil, "bad magic %q (want \"SMPK\" or \"RMPK\")", b[:4])
	}
	if v := d.u32(4); v != Version {
		return nil, errAt(4, nil, "version %d (this reader reads %d)", v, Version)
	}
	vs := p.Family.VertexSize()
	if got := d.u32(8); got != uint32(vs) {
		return nil, errAt(8, nil, "vertex_size %d for %s, want %d", got, p.Family, vs)
	}
	count := uint64(d.u32(12))
	off := uint64(HeaderSize)
	if most := uint64(len(b)-HeaderSize) / EntryHeaderSize; count > most {
		return nil, errAt(12, io.ErrUnexpectedEOF, "entry_count %d needs at least %d bytes, %d remain", count, count*EntryHeaderSize, len(b)-HeaderSize)
	}
	p.Entries = make([]Entry, count)
	for i := range p.Entries {
		var err error
		if off, err = d.entry(off, i, p.Family, &p.Entries[i]); err != nil {
			return nil, err
		}
	}
	if off != uint64(len(b)) {
		return nil, errAt(int64(off), nil, "%d trailing bytes after the last entry", uint64(len(b))-off)
	}
	if err := Validate(p); err != nil {
		return nil, err
	}
	return p, nil
}

type decoder struct{ b []byte }

func (d *decoder) u32(off uint64) uint32 { return binary.LittleEndian.Uint32(d.b[off:]) }
func (d *decoder) f32(off uint64) float32 {
	return math.Float32frombits(binary.LittleEndian.Uint32(d.b[off:]))
}

// need fails when n bytes do not remain at off.
func (d *decoder) need(off, n uint64, what string) error {
	if n > uint64(len(d.b)) || off > uint64(len(d.b))-n {
		return errAt(int64(off), io.ErrUnexpectedEOF, "%s needs %d bytes, %d remain", what, n, uint64(len(d.b))-min(off, uint64(len(d.b))))
	}
	return nil
}

// entry decodes entry i at off and returns the offset after it.
func (d *decoder) entry(off uint64, i int, f Family, e *Entry) (uint64, error) {
	h := off
	if err := d.need(off, EntryHeaderSize, fmt.Sprintf("entry %d header", i)); err != nil {
		return 0, err
	}
	nameLen, vc, ic, rc := uint64(d.u32(h)), uint64(d.u32(h+4)), uint64(d.u32(h+8)), uint64(d.u32(h+12))
	e.Bounds = Sphere{Center: [3]float32{d.f32(h + 16), d.f32(h + 20), d.f32(h + 24)}, Radius: d.f32(h + 28)}
	off += EntryHeaderSize
	vs := uint64(f.VertexSize())
	// Bound every count by the bytes left before allocating.
	if err := d.need(off, nameLen, fmt.Sprintf("entry %d name", i)); err != nil {
		return 0, err
	}
	name := d.b[off : off+nameLen]
	if !utf8.Valid(name) {
		return 0, errAt(int64(off), nil, "entry %d name is not UTF-8", i)
	}
	e.Name = string(name)
	off += nameLen
	if err := d.need(off, vc*vs, fmt.Sprintf("entry %q: %d vertices", e.Name, vc)); err != nil {
		return 0, err
	}
	vbase := off
	if f == Static {
		e.Static = make([]StaticVertex, vc)
		for k := range e.Static {
			o := vbase + uint64(k)*vs
			v := &e.Static[k]
			d.f32s(o, v.Position[:])
			d.f32s(o+12, v.Normal[:])
			d.f32s(o+24, v.TexCoord[:])
			d.f32s(o+32, v.Color[:])
			d.f32s(o+48, v.Material[:])
		}
	} else {
		e.Rigged = make([]RiggedVertex, vc)
		for k := range e.Rigged {
			o := vbase + uint64(k)*vs
			v := &e.Rigged[k]
			d.f32s(o, v.Position[:])
			d.f32s(o+12, v.Normal[:])
			d.f32s(o+24, v.TexCoord[:])
			copy(v.BoneIndices[:], d.b[o+32:o+36])
			d.f32s(o+36, v.BoneWeights[:])
			v.ColorRole = d.b[o+52]
			if pad := d.b[o+53 : o+56]; pad[0]|pad[1]|pad[2] != 0 {
				return 0, errAt(int64(o+53), nil, "entry %q: vertex %d: nonzero pad bytes", e.Name, k)
			}
		}
	}
	off += vc * vs
	if err := d.need(off, ic*4, fmt.Sprintf("entry %q: %d indices", e.Name, ic)); err != nil {
		return 0, err
	}
	e.Indices = make([]uint32, ic)
	for k := range e.Indices {
		x := d.u32(off + uint64(k)*4)
		if uint64(x) >= vc {
			return 0, errAt(int64(off+uint64(k)*4), nil, "entry %q: index %d is %d, vertex_count is %d", e.Name, k, x, vc)
		}
		e.Indices[k] = x
	}
	off += ic * 4
	if err := d.need(off, rc*RangeSize, fmt.Sprintf("entry %q: %d ranges", e.Name, rc)); err != nil {
		return 0, err
	}
	e.Ranges = make([]Range, rc)
	for k := range e.Ranges {
		o := off + uint64(k)*RangeSize
		r := Range{FirstIndex: d.u32(o), IndexCount: d.u32(o + 4)}
		if uint64(r.FirstIndex)+uint64(r.IndexCount) > ic {
			return 0, errAt(int64(o), nil, "entry %q: range %d [%d, +%d) runs past index_count %d", e.Name, k, r.FirstIndex, r.IndexCount, ic)
		}
		e.Ranges[k] = r
	}
	off += rc * RangeSize
	return off, nil
}

func (d *decoder) f32s(off uint64, dst []float32) {
	for i := range dst {
		dst[i] = d.f32(off + uint64(i)*4)
	}
}
