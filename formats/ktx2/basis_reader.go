package ktx2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// newCapDecoder returns a decoder of whole Zstandard frames into at most
// cap(dst) bytes, so a level can never inflate past the size its header
// promises. Each Decode of a UASTC file makes its own.
func newCapDecoder() (*zstd.Decoder, error) {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, fmt.Errorf("ktx2: zstd decoder: %w", err)
	}
	return d, nil
}

// decodeBasis parses a UASTC or ETC1S file (vkFormat 0) laid out as
// writeBasis lays it out, and decodes every level to RGBA8 pixels. b holds
// at least the header.
func decodeBasis(b []byte) (*File, error) {
	le := binary.LittleEndian
	size := uint64(len(b))
	u32 := func(at int) uint32 { return le.Uint32(b[at:]) }
	w, h, levels, err := checkShape(u32)
	if err != nil {
		return nil, err
	}
	scheme := u32(44)
	var codec Codec
	switch scheme {
	case schemeZstd:
		codec = CodecUASTC
	case schemeBasisLZ:
		codec = CodecETC1S
	default:
		return nil, errAt(44, "supercompressionScheme %d with vkFormat 0, want %d (BasisLZ) or %d (Zstandard)", scheme, schemeBasisLZ, schemeZstd)
	}
	dfdOff, dfdLen := uint64(u32(48)), uint64(u32(52))
	kvdOff, kvdLen := uint64(u32(56)), uint64(u32(60))
	sgdOff, sgdLen := le.Uint64(b[64:]), le.Uint64(b[72:])

	indexEnd := uint64(HeaderSize + LevelEntrySize*levels)
	if size < indexEnd {
		return nil, &FormatError{Offset: int64(len(b)), Msg: fmt.Sprintf("truncated level index: %d levels need %d bytes, file has %d", levels, indexEnd, size), Err: io.ErrUnexpectedEOF}
	}

	// DFD: right after the index, exactly one of the codec's descriptors.
	if dfdOff != indexEnd {
		return nil, errAt(48, "dfdByteOffset %d, want %d (right after the level index)", dfdOff, indexEnd)
	}
	if dfdLen > size-dfdOff {
		return nil, &FormatError{Offset: 52, Msg: fmt.Sprintf("DFD at %#x + %d bytes runs past the end of the %d-byte file", dfdOff, dfdLen, size), Err: io.ErrUnexpectedEOF}
	}
	got := b[dfdOff : dfdOff+dfdLen]
	var kind Kind
	matched := false
	for _, k := range []Kind{KindColor, KindData} {
		for _, a := range []bool{false, true} {
			if bytes.Equal(got, dfdBasis(codec, k, a)) {
				kind, matched = k, true
			}
		}
	}
	if !matched {
		return nil, errAt(int64(dfdOff), "DFD is not a %v descriptor meshcook writes (%d bytes: % x)", codec, dfdLen, got)
	}

	// Key/value data right after the DFD.
	end := dfdOff + dfdLen
	kv := map[string][]byte{}
	if kvdLen == 0 {
		if kvdOff != 0 {
			return nil, errAt(56, "kvdByteOffset %d with kvdByteLength 0, want 0", kvdOff)
		}
	} else {
		if kvdOff != end {
			return nil, errAt(56, "kvdByteOffset %d, want %d (right after the DFD)", kvdOff, end)
		}
		if kvdLen > size-kvdOff {
			return nil, &FormatError{Offset: 60, Msg: fmt.Sprintf("key/value data at %#x + %d bytes runs past the end of the %d-byte file", kvdOff, kvdLen, size), Err: io.ErrUnexpectedEOF}
		}
		var err error
		if kv, err = decodeKVD(b[kvdOff:kvdOff+kvdLen], int64(kvdOff)); err != nil {
			return nil, err
		}
		end = kvdOff + kvdLen
	}

	// Global data: BasisLZ only, on the next 8-byte boundary.
	var sgd []byte
	if codec == CodecETC1S {
		want := uint64(alignUp(int(end), 8))
		if sgdOff != want {
			return nil, errAt(64, "sgdByteOffset %d, want %d (after the key/value data, 8-byte aligned)", sgdOff, want)
		}
		if sgdLen == 0 || sgdLen > size-sgdOff {
			return nil, &FormatError{Offset: 72, Msg: fmt.Sprintf("sgdByteLength %d at %#x does not fit the %d-byte file", sgdLen, sgdOff, size), Err: io.ErrUnexpectedEOF}
		}
		if err := zeroPad(b, end, sgdOff); err != nil {
			return nil, err
		}
		sgd = b[sgdOff : sgdOff+sgdLen]
		end = sgdOff + sgdLen
	} else if sgdOff != 0 || sgdLen != 0 {
		return nil, errAt(64, "global data at %d (%d bytes), want none for Zstandard", sgdOff, sgdLen)
	}

	// Levels: smallest first, packed, nothing after level 0.
	type entry struct{ off, n, un uint64 }
	ents := make([]entry, levels)
	for p := levels - 1; p >= 0; p-- {
		at := HeaderSize + LevelEntrySize*p
		off, n, un := le.Uint64(b[at:]), le.Uint64(b[at+8:]), le.Uint64(b[at+16:])
		if off != end {
			return nil, errAt(int64(at), "level %d: byteOffset %#x, want %#x (levels stored smallest first, packed)", p, off, end)
		}
		if n == 0 || n > size-off {
			return nil, &FormatError{Offset: int64(at + 8), Msg: fmt.Sprintf("level %d: byteLength %d at %#x does not fit the %d-byte file", p, n, off, size), Err: io.ErrUnexpectedEOF}
		}
		lw, lh := LevelSize(int(w), int(h), p)
		bw, bh := blockGrid(lw, lh)
		wantUn := uint64(0)
		if codec == CodecUASTC {
			wantUn = uint64(bw * bh * 16)
		}
		if un != wantUn {
			return nil, errAt(int64(at+16), "level %d: uncompressedByteLength %d, want %d", p, un, wantUn)
		}
		ents[p] = entry{off, n, un}
		end = off + n
	}
	if end != size {
		return nil, errAt(int64(end), "%d trailing bytes after level 0", size-end)
	}

	f := &File{Codec: codec, Kind: kind, Width: int(w), Height: int(h), Levels: make([]Level, levels), KeyValues: kv}
	for p := range f.Levels {
		lw, lh := LevelSize(f.Width, f.Height, p)
		f.Levels[p] = Level{Width: lw, Height: lh, Pixels: make([]byte, lw*lh*4)}
	}
	switch codec {
	case CodecUASTC:
		dec, err := newCapDecoder()
		if err != nil {
			return nil, err
		}
		defer dec.Close()
		for p, e := range ents {
			raw, err := dec.DecodeAll(b[e.off:e.off+e.n], make([]byte, 0, e.un))
			if err != nil {
				return nil, &FormatError{Offset: int64(e.off), Msg: fmt.Sprintf("level %d: zstd", p), Err: err}
			}
			if uint64(len(raw)) != e.un {
				return nil, errAt(int64(e.off), "level %d: inflates to %d bytes, want %d", p, len(raw), e.un)
			}
			if err := decodeUASTCLevel(raw, &f.Levels[p]); err != nil {
				return nil, &FormatError{Offset: int64(e.off), Msg: fmt.Sprintf("level %d: %v", p, err)}
			}
		}
	case CodecETC1S:
		data := make([][]byte, levels)
		for p, e := range ents {
			data[p] = b[e.off : e.off+e.n]
		}
		alpha := len(got) > 4+24+16
		if err := decodeETC1S(sgd, int64(sgdOff), data, alpha, f.Levels); err != nil {
			return nil, err
		}
	}
	if err := Validate(f); err != nil {
		return nil, err
	}
	return f, nil
}

// decodeUASTCLevel decodes raster-order UASTC blocks into lv.
func decodeUASTCLevel(raw []byte, lv *Level) error {
	bw, bh := blockGrid(lv.Width, lv.Height)
	var blk [16]byte
	var px [16][4]uint8
	for by := range bh {
		for bx := range bw {
			i := by*bw + bx
			copy(blk[:], raw[i*16:])
			if err := unpackUASTC(&blk, &px); err != nil {
				return fmt.Errorf("block (%d, %d): %w", bx, by, err)
			}
			storeBlock(lv, bx, by, &px)
		}
	}
	return nil
}

// StoredLevels returns each level's bytes as stored in the file (for Basis
// codecs: supercompressed), level 0 first, after Decode has accepted b.
func StoredLevels(b []byte) ([][]byte, error) {
	if _, err := Decode(b); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	out := make([][]byte, le.Uint32(b[40:]))
	for p := range out {
		e := b[HeaderSize+LevelEntrySize*p:]
		off, n := le.Uint64(e[0:]), le.Uint64(e[8:])
		out[p] = b[off : off+n]
	}
	return out, nil
}
