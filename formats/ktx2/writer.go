package ktx2

import (
	"encoding/binary"
	"sort"
	"strings"
	"unicode/utf8"
)

// Encode returns the KTX2 bytes of a full mip chain: levels[0] is the base
// image and levels[p] must be LevelSize(w, h, p) for every p up to 1×1
// (LevelCount(w, h) levels). kind picks the vkFormat (KindColor → 43 sRGB,
// KindData → 37 UNORM); the pixels are stored as given. writer is the
// KTXwriter value ("meshcook 1.2.0"): non-empty UTF-8 without NUL.
// KTXorientation is "rd". The same arguments always give the same bytes.
func Encode(levels []Level, kind Kind, writer string) ([]byte, error) {
	vk := kind.VkFormat()
	if vk == 0 {
		return nil, errAt(-1, "unknown kind %d", int(kind))
	}
	if err := checkWriter(writer); err != nil {
		return nil, err
	}
	if len(levels) == 0 {
		return nil, errAt(-1, "no levels")
	}
	f := &File{
		VkFormat: vk,
		Width:    levels[0].Width,
		Height:   levels[0].Height,
		Levels:   levels,
		KeyValues: map[string][]byte{
			KeyOrientation: []byte(Orientation + "\x00"),
			KeyWriter:      []byte(writer + "\x00"),
		},
	}
	if err := Validate(f); err != nil {
		return nil, err
	}
	return write(f), nil
}

func checkWriter(w string) error {
	switch {
	case w == "":
		return errAt(-1, "empty KTXwriter")
	case !utf8.ValidString(w):
		return errAt(-1, "KTXwriter %q is not UTF-8", w)
	case strings.IndexByte(w, 0) >= 0:
		return errAt(-1, "KTXwriter %q holds a NUL byte", w)
	}
	return nil
}

// layout is where each section of a file goes.
type layout struct {
	dfdOff, kvdOff, kvdLen int
	levelOff               []int // by level index p
	size                   int
}

// plan computes the layout of f: header, level index, DFD and key/value
// data packed in that order, then the levels smallest first, each on a
// 4-byte boundary. Every conforming uncompressed file without global data
// has exactly this layout, so the reader demands it too.
func plan(levels []Level, kvdLen int) layout {
	var l layout
	l.dfdOff = HeaderSize + LevelEntrySize*len(levels)
	l.kvdOff = l.dfdOff + DFDSize
	l.kvdLen = kvdLen
	at := l.kvdOff + kvdLen
	l.levelOff = make([]int, len(levels))
	for p := len(levels) - 1; p >= 0; p-- {
		at = alignUp(at, levelAlign)
		l.levelOff[p] = at
		at += len(levels[p].Pixels)
	}
	l.size = at
	return l
}

func alignUp(n, a int) int { return (n + a - 1) / a * a }

// kvdBytes encodes the key/value entries sorted by key (byte order of UTF-8
// is Unicode code point order), each padded to 4 bytes.
func kvdBytes(kv map[string][]byte) []byte {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b []byte
	for _, k := range keys {
		n := len(k) + 1 + len(kv[k])
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
		b = append(b, k...)
		b = append(b, 0)
		b = append(b, kv[k]...)
		b = append(b, make([]byte, alignUp(n, 4)-n)...)
	}
	return b
}

// write serializes a validated File.
func write(f *File) []byte {
	le := binary.LittleEndian
	kvd := kvdBytes(f.KeyValues)
	l := plan(f.Levels, len(kvd))
	b := make([]byte, l.size)

	// Header.
	copy(b, identifier)
	for i, v := range [9]uint32{
		f.VkFormat, 1, uint32(f.Width), uint32(f.Height),
		0, 0, 1, uint32(len(f.Levels)), 0, // depth, layers, faces, levelCount, scheme
	} {
		le.PutUint32(b[12+4*i:], v)
	}

	// Index: DFD, KVD; no supercompression global data (offset and length 0).
	le.PutUint32(b[48:], uint32(l.dfdOff))
	le.PutUint32(b[52:], DFDSize)
	if l.kvdLen > 0 {
		le.PutUint32(b[56:], uint32(l.kvdOff))
		le.PutUint32(b[60:], uint32(l.kvdLen))
	}

	// Level index, level 0 first.
	for p, lv := range f.Levels {
		e := b[HeaderSize+LevelEntrySize*p:]
		le.PutUint64(e[0:], uint64(l.levelOff[p]))
		le.PutUint64(e[8:], uint64(len(lv.Pixels)))
		le.PutUint64(e[16:], uint64(len(lv.Pixels)))
	}

	// Sections; padding stays zero.
	copy(b[l.dfdOff:], dfdFor(f.VkFormat))
	copy(b[l.kvdOff:], kvd)
	for p, lv := range f.Levels {
		copy(b[l.levelOff[p]:], lv.Pixels)
	}
	return b
}
