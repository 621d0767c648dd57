package hmat

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Decode parses and validates a whole .hmat file. The size must be exactly
// 16 + 96·count; the header flags and per-material pad are ignored.
func Decode(b []byte) ([]Material, error) {
	le := binary.LittleEndian
	if len(b) < 4 {
		return nil, &FormatError{Offset: int64(len(b)), Msg: "truncated header", Err: io.ErrUnexpectedEOF}
	}
	if m := le.Uint32(b); m != Magic {
		return nil, &FormatError{Offset: 0, Msg: fmt.Sprintf("bad magic %q, want \"HMAT\"", b[:4])}
	}
	if len(b) < HeaderSize {
		return nil, &FormatError{Offset: int64(len(b)), Msg: "truncated header", Err: io.ErrUnexpectedEOF}
	}
	if v := le.Uint32(b[4:]); v != Version {
		return nil, &FormatError{Offset: 4, Msg: fmt.Sprintf("unsupported version %d, want %d", v, Version)}
	}
	n := uint64(le.Uint32(b[8:]))
	want := HeaderSize + MaterialSize*n
	switch {
	case uint64(len(b)) < want:
		return nil, &FormatError{Offset: int64(len(b)), Msg: fmt.Sprintf("file is %d bytes, want %d for %d materials", len(b), want, n), Err: io.ErrUnexpectedEOF}
	case uint64(len(b)) > want:
		return nil, &FormatError{Offset: int64(want), Msg: fmt.Sprintf("file is %d bytes, want %d for %d materials (trailing bytes)", len(b), want, n)}
	}
	ms := make([]Material, n)
	for i := range ms {
		e := b[HeaderSize+MaterialSize*i:]
		f := func(at int) float32 { return math.Float32frombits(le.Uint32(e[at:])) }
		ms[i] = Material{
			BaseColorFactor:      [4]float32{f(0), f(4), f(8), f(12)},
			EmissiveFactor:       [3]float32{f(16), f(20), f(24)},
			Metallic:             f(28),
			Roughness:            f(32),
			NormalScale:          f(36),
			OcclusionStrength:    f(40),
			AlphaCutoff:          f(44),
			Flags:                le.Uint32(e[48:]),
			BaseColorTex:         le.Uint64(e[56:]),
			MetallicRoughnessTex: le.Uint64(e[64:]),
			NormalTex:            le.Uint64(e[72:]),
			OcclusionTex:         le.Uint64(e[80:]),
			EmissiveTex:          le.Uint64(e[88:]),
		}
	}
	if err := validate(ms, true); err != nil {
		return nil, err
	}
	return ms, nil
}

// Read reads a whole .hmat from r and decodes it, refusing input longer than
// limit bytes (limit <= 0 means no limit).
func Read(r io.Reader, limit int64) ([]Material, error) {
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("hmat: read: %w", err)
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, &FormatError{Offset: limit, Msg: fmt.Sprintf("file larger than the %d-byte limit", limit)}
	}
	return Decode(b)
}
