package ktx2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// Decode parses a whole KTX2 file and validates it as a meshcook texture.
// It is strict: every offset and length is bounded against the file before
// use, the sections must sit where the KTX 2.0 layout puts them (header,
// level index, DFD, key/value data, then the levels smallest first, each on
// a 4-byte boundary, nothing after level 0), the DFD must be exactly the one
// for the vkFormat, keys must be sorted and unique, padding must be zero,
// and the result must pass Validate. Errors are *FormatError (errors.Is
// ErrFormat) carrying the byte offset of the problem; truncation wraps
// io.ErrUnexpectedEOF. Pixel bytes are copied, so b may be reused.
func Decode(b []byte) (*File, error) {
	le := binary.LittleEndian
	size := uint64(len(b))

	// Header.
	n := min(len(b), len(identifier))
	if string(b[:n]) != identifier[:n] {
		return nil, errAt(0, "bad identifier % x, want «KTX 20» (% x)", b[:n], identifier)
	}
	if len(b) < HeaderSize {
		return nil, &FormatError{Offset: int64(len(b)), Msg: fmt.Sprintf("truncated header (%d of %d bytes)", len(b), HeaderSize), Err: io.ErrUnexpectedEOF}
	}
	u32 := func(at int) uint32 { return le.Uint32(b[at:]) }
	vk := u32(12)
	if vk == 0 {
		return decodeBasis(b)
	}
	if vk != VkFormatR8G8B8A8Unorm && vk != VkFormatR8G8B8A8SRGB {
		return nil, errAt(12, "vkFormat %d, want %d (R8G8B8A8_UNORM), %d (R8G8B8A8_SRGB) or 0 (Basis Universal)", vk, VkFormatR8G8B8A8Unorm, VkFormatR8G8B8A8SRGB)
	}
	w, h, levels, err := checkShape(u32)
	if err != nil {
		return nil, err
	}
	if v := u32(44); v != 0 {
		return nil, errAt(44, "supercompressionScheme %d, want 0 (none)", v)
	}
	dfdOff, dfdLen := uint64(u32(48)), uint64(u32(52))
	kvdOff, kvdLen := uint64(u32(56)), uint64(u32(60))
	if v := le.Uint64(b[64:]); v != 0 {
		return nil, errAt(64, "sgdByteOffset %d, want 0 (no global data)", v)
	}
	if v := le.Uint64(b[72:]); v != 0 {
		return nil, errAt(72, "sgdByteLength %d, want 0 (no global data)", v)
	}

	// Level index: bound the table, then every level's bytes.
	indexEnd := uint64(HeaderSize + LevelEntrySize*levels)
	if size < indexEnd {
		return nil, &FormatError{Offset: int64(len(b)), Msg: fmt.Sprintf("truncated level index: %d levels need %d bytes, file has %d", levels, indexEnd, size), Err: io.ErrUnexpectedEOF}
	}
	type entry struct{ off, n uint64 }
	ents := make([]entry, levels)
	for p := range ents {
		at := HeaderSize + LevelEntrySize*p
		off, n, un := le.Uint64(b[at:]), le.Uint64(b[at+8:]), le.Uint64(b[at+16:])
		lw, lh := LevelSize(int(w), int(h), p)
		if want := uint64(lw * lh * bytesPerPixel); n != want {
			return nil, errAt(int64(at+8), "level %d: byteLength %d, want %d for %d×%d RGBA8", p, n, want, lw, lh)
		}
		if un != n {
			return nil, errAt(int64(at+16), "level %d: uncompressedByteLength %d, want byteLength %d (no supercompression)", p, un, n)
		}
		if off > size || n > size-off {
			return nil, &FormatError{Offset: int64(at), Msg: fmt.Sprintf("level %d: data at %#x + %d bytes runs past the end of the %d-byte file", p, off, n, size), Err: io.ErrUnexpectedEOF}
		}
		ents[p] = entry{off, n}
	}

	// Data Format Descriptor: right after the level index, exactly the
	// descriptor of the vkFormat.
	if dfdOff != indexEnd {
		return nil, errAt(48, "dfdByteOffset %d, want %d (right after the level index)", dfdOff, indexEnd)
	}
	if dfdLen != DFDSize {
		return nil, errAt(52, "dfdByteLength %d, want %d (one RGBA8 basic descriptor block)", dfdLen, DFDSize)
	}
	if size < dfdOff+dfdLen {
		return nil, &FormatError{Offset: int64(len(b)), Msg: fmt.Sprintf("truncated DFD: needs bytes up to %d", dfdOff+dfdLen), Err: io.ErrUnexpectedEOF}
	}
	want := dfdFor(vk)
	got := b[dfdOff : dfdOff+dfdLen]
	for i := range want {
		if got[i] != want[i] {
			return nil, errAt(int64(dfdOff)+int64(i), "DFD %s: byte %#02x, want %#02x for vkFormat %d", dfdField(i), got[i], want[i], vk)
		}
	}

	// Key/value data: right after the DFD.
	dataStart := dfdOff + dfdLen
	kv := map[string][]byte{}
	if kvdLen == 0 {
		if kvdOff != 0 {
			return nil, errAt(56, "kvdByteOffset %d with kvdByteLength 0, want 0", kvdOff)
		}
	} else {
		if kvdOff != dataStart {
			return nil, errAt(56, "kvdByteOffset %d, want %d (right after the DFD)", kvdOff, dataStart)
		}
		if kvdLen > size-kvdOff {
			return nil, &FormatError{Offset: 60, Msg: fmt.Sprintf("key/value data at %#x + %d bytes runs past the end of the %d-byte file", kvdOff, kvdLen, size), Err: io.ErrUnexpectedEOF}
		}
		var err error
		if kv, err = decodeKVD(b[kvdOff:kvdOff+kvdLen], int64(kvdOff)); err != nil {
			return nil, err
		}
		dataStart = kvdOff + kvdLen
	}

	// Level data: smallest level first, each after the minimum zero padding
	// to a 4-byte boundary, and nothing after level 0.
	at := dataStart
	for p := levels - 1; p >= 0; p-- {
		pad := uint64(alignUp(int(at), levelAlign))
		if ents[p].off != pad {
			return nil, errAt(int64(HeaderSize+LevelEntrySize*p), "level %d: byteOffset %#x, want %#x (levels stored smallest first on 4-byte boundaries)", p, ents[p].off, pad)
		}
		if err := zeroPad(b, at, pad); err != nil {
			return nil, err
		}
		at = pad + ents[p].n
	}
	if at != size {
		return nil, errAt(int64(at), "%d trailing bytes after level 0", size-at)
	}

	kind := KindData
	if vk == VkFormatR8G8B8A8SRGB {
		kind = KindColor
	}
	f := &File{VkFormat: vk, Kind: kind, Width: int(w), Height: int(h), Levels: make([]Level, levels), KeyValues: kv}
	for p, e := range ents {
		lw, lh := LevelSize(f.Width, f.Height, p)
		f.Levels[p] = Level{Width: lw, Height: lh, Pixels: bytes.Clone(b[e.off : e.off+e.n])}
	}
	if err := Validate(f); err != nil {
		// Only the key/value checks are left to fail; point at that section.
		var fe *FormatError
		if errors.As(err, &fe) && fe.Offset < 0 {
			fe.Offset = 56
			if kvdLen > 0 {
				fe.Offset = int64(kvdOff)
			}
		}
		return nil, err
	}
	return f, nil
}

// decodeKVD parses key/value entries; base is the file offset of kvd.
func decodeKVD(kvd []byte, base int64) (map[string][]byte, error) {
	le := binary.LittleEndian
	kv := map[string][]byte{}
	prev := ""
	for o := 0; o < len(kvd); {
		if len(kvd)-o < 4 {
			return nil, errAt(base+int64(o), "key/value entry length: %d bytes left, want 4", len(kvd)-o)
		}
		n := uint64(le.Uint32(kvd[o:]))
		if n < 2 {
			return nil, errAt(base+int64(o), "keyAndValueByteLength %d, want at least 2", n)
		}
		if n > uint64(len(kvd)-o-4) {
			return nil, errAt(base+int64(o), "keyAndValueByteLength %d runs past kvdByteLength (%d bytes left)", n, len(kvd)-o-4)
		}
		ent := kvd[o+4 : o+4+int(n)]
		nul := bytes.IndexByte(ent, 0)
		if nul < 1 {
			return nil, errAt(base+int64(o)+4, "key/value entry: want a non-empty key ending in NUL")
		}
		key := string(ent[:nul])
		switch {
		case !utf8.ValidString(key):
			return nil, errAt(base+int64(o)+4, "key %q is not UTF-8", key)
		case key == prev:
			return nil, errAt(base+int64(o)+4, "duplicate key %q", key)
		case key < prev:
			return nil, errAt(base+int64(o)+4, "key %q after %q: keys must be sorted", key, prev)
		}
		prev = key
		kv[key] = bytes.Clone(ent[nul+1:])
		end := o + 4 + int(n)
		padEnd := alignUp(end, 4)
		if padEnd > len(kvd) {
			return nil, errAt(base+int64(end), "value padding of key %q runs past kvdByteLength", key)
		}
		for i := end; i < padEnd; i++ {
			if kvd[i] != 0 {
				return nil, errAt(base+int64(i), "padding byte %#02x after key %q, want 0", kvd[i], key)
			}
		}
		o = padEnd
	}
	return kv, nil
}

// zeroPad refuses a non-zero byte in b[from:to].
func zeroPad(b []byte, from, to uint64) error {
	for i := from; i < to; i++ {
		if b[i] != 0 {
			return errAt(int64(i), "padding byte %#02x, want 0", b[i])
		}
	}
	return nil
}

// Read reads a whole KTX2 file from r and decodes it, refusing input longer
// than limit bytes (limit <= 0 means no limit).
func Read(r io.Reader, limit int64) (*File, error) {
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("ktx2: read: %w", err)
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, errAt(limit, "file larger than the %d-byte limit", limit)
	}
	return Decode(b)
}

// checkShape checks the header fields every file meshcook reads shares
// (RGBA8 and Basis alike): typeSize 1, a size within MaxSide, a 2D
// texture, the full mip chain. It returns the size and the level count.
func checkShape(u32 func(at int) uint32) (w, h uint32, levels int, err error) {
	if v := u32(16); v != 1 {
		return 0, 0, 0, errAt(16, "typeSize %d, want 1", v)
	}
	w, h = u32(20), u32(24)
	sizeAt := int64(20) // pixelWidth, or pixelHeight when only it is out of range
	if w >= 1 && w <= MaxSide {
		sizeAt = 24
	}
	if err := checkSize(int(w), int(h), sizeAt); err != nil {
		return 0, 0, 0, err
	}
	for _, c := range []struct {
		at   int
		name string
		want uint32
	}{{28, "pixelDepth", 0}, {32, "layerCount", 0}, {36, "faceCount", 1}} {
		if v := u32(c.at); v != c.want {
			return 0, 0, 0, errAt(int64(c.at), "%s %d, want %d (a 2D texture)", c.name, v, c.want)
		}
	}
	levels = int(u32(40))
	if full := LevelCount(int(w), int(h)); levels != full {
		return 0, 0, 0, errAt(40, "levelCount %d, want %d (the full mip chain of %d×%d down to 1×1)", levels, full, w, h)
	}
	return w, h, levels, nil
}
