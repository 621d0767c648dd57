package fbx

// Binary FBX reader. Layout (spec/formats.md has the long form; Blender's
// and ufbx's readers agree on it):
//
//	header   "Kaydara FBX Binary  \x00" 0x1a 0x00, uint32 version
//	node     endOffset, numProperties, propertyListLen  (uint32 before 7500,
//	         uint64 from 7500), uint8 nameLen, name, properties, children,
//	         and a null record (all-zero header) closing the child list
//	property one type byte, then its value; arrays carry uint32 length,
//	         uint32 encoding (0 raw, 1 zlib) and uint32 stored byte count
//
// Every count is checked against the bytes that remain, or against the
// Options limits, before anything is allocated.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"unsafe"
)

const binaryMagic = "Kaydara FBX Binary  \x00"

// headerSize is the magic, the two bytes 0x1a 0x00 and the version.
const headerSize = len(binaryMagic) + 2 + 4

// IsBinary reports whether data starts with the binary FBX magic.
func IsBinary(data []byte) bool { return bytes.HasPrefix(data, []byte(binaryMagic)) }

type binaryReader struct {
	data    []byte
	opts    Options
	wide    bool // 64-bit record header (version >= 7500)
	nodes   int
	arrays  int64 // decoded array bytes so far
	version uint32
}

func (r *binaryReader) fail(kind error, off int, format string, args ...any) error {
	return &FormatError{Binary: true, Offset: int64(off), Msg: fmt.Sprintf(format, args...), Kind: kind}
}

func parseBinary(data []byte, opts Options) (*Document, error) {
	r := &binaryReader{data: data, opts: opts}
	if len(data) < headerSize {
		return nil, r.fail(ErrFormat, len(data), "file too short for the binary header (%d bytes)", len(data))
	}
	r.version = binary.LittleEndian.Uint32(data[headerSize-4:])
	if r.version < minVersion || r.version > maxVersion {
		return nil, r.fail(ErrUnsupported, headerSize-4, "version %d outside %d–%d", r.version, minVersion, maxVersion)
	}
	r.wide = r.version >= 7500
	root := &Node{}
	pos := headerSize
	// The top-level list ends with a null record; files cut short right
	// after a complete node (ufbx's fuzz seeds are) are read up to there.
	for len(data)-pos >= r.recordSize() {
		n, next, end, err := r.node(pos, len(data), 1)
		if err != nil {
			return nil, err
		}
		pos = next
		if end {
			break
		}
		root.Children = append(root.Children, n)
	}
	if len(root.Children) == 0 {
		return nil, r.fail(ErrFormat, pos, "no complete top-level node (truncated file)")
	}
	return &Document{Version: r.version, Binary: true, Root: root}, nil
}

// recordSize is the fixed part of a node record header.
func (r *binaryReader) recordSize() int {
	if r.wide {
		return 25
	}
	return 13
}

func (r *binaryReader) word(p int) uint64 {
	if r.wide {
		return binary.LittleEndian.Uint64(r.data[p:])
	}
	return uint64(binary.LittleEndian.Uint32(r.data[p:]))
}

// node reads the record at pos, which must end by limit (the parent's end
// offset, or the file size). It returns the node, where the next record
// starts, and end = true for the null record closing a list.
func (r *binaryReader) node(pos, limit, depth int) (*Node, int, bool, error) {
	hs := r.recordSize()
	if limit-pos < hs {
		return nil, 0, false, r.fail(ErrFormat, pos, "truncated node record (%d bytes left, header needs %d)", limit-pos, hs)
	}
	w := hs / 3 // field width: 4 or 8
	endOff := r.word(pos)
	numProps := r.word(pos + w)
	propLen := r.word(pos + 2*w)
	nameLen := int(r.data[pos+3*w])
	if endOff == 0 && numProps == 0 && propLen == 0 && nameLen == 0 {
		return nil, pos + hs, true, nil
	}
	if depth > r.opts.MaxDepth {
		return nil, 0, false, r.fail(ErrLimit, pos, "node nesting deeper than %d", r.opts.MaxDepth)
	}
	r.nodes++
	if r.nodes > r.opts.MaxNodes {
		return nil, 0, false, r.fail(ErrLimit, pos, "more than %d nodes", r.opts.MaxNodes)
	}
	if endOff > uint64(len(r.data)) {
		return nil, 0, false, r.fail(ErrFormat, pos, "node end offset 0x%x past end of file (size 0x%x)", endOff, len(r.data))
	}
	if endOff > uint64(limit) {
		return nil, 0, false, r.fail(ErrFormat, pos, "node end offset 0x%x past its parent's end 0x%x", endOff, limit)
	}
	end := int(endOff)
	p := pos + hs
	if end-p < nameLen {
		return nil, 0, false, r.fail(ErrFormat, pos, "node name (%d bytes) runs past the node's end", nameLen)
	}
	n := &Node{Name: string(r.data[p : p+nameLen]), Pos: int64(pos)}
	p += nameLen
	if propLen > uint64(end-p) {
		return nil, 0, false, r.fail(ErrFormat, pos, "node %q: property list length %d runs past the node's end", n.Name, propLen)
	}
	propEnd := p + int(propLen)
	// Every property takes at least two bytes (type and a value byte).
	if numProps > propLen/2+1 {
		return nil, 0, false, r.fail(ErrFormat, pos, "node %q: %d properties cannot fit in %d bytes", n.Name, numProps, propLen)
	}
	// Property structs are far larger than their 2-byte minimum encoding,
	// so they count against the decoded-size budget like arrays do.
	if err := r.charge(pos, int64(numProps)*propertySize); err != nil {
		return nil, 0, false, err
	}
	n.Props = make([]Property, int(numProps))
	for i := range n.Props {
		next, err := r.property(p, propEnd, &n.Props[i])
		if err != nil {
			return nil, 0, false, err
		}
		p = next
	}
	if p != propEnd {
		return nil, 0, false, r.fail(ErrFormat, p, "node %q: properties end at 0x%x but the list length says 0x%x", n.Name, p, propEnd)
	}
	// Children up to the null record; a node without children may omit it.
	for p < end {
		c, next, isEnd, err := r.node(p, end, depth+1)
		if err != nil {
			return nil, 0, false, err
		}
		p = next
		if isEnd {
			break
		}
		n.Children = append(n.Children, c)
	}
	if p != end {
		return nil, 0, false, r.fail(ErrFormat, p, "node %q: children end at 0x%x but the node's end offset is 0x%x", n.Name, p, end)
	}
	return n, end, false, nil
}

// property decodes one property at p (which must end by limit) into out.
func (r *binaryReader) property(p, limit int, out *Property) (int, error) {
	if p >= limit {
		return 0, r.fail(ErrFormat, p, "truncated property list")
	}
	t := r.data[p]
	out.Type = t
	p++
	need := func(n int) error {
		if limit-p < n {
			return r.fail(ErrFormat, p-1, "truncated property of type %q (%d bytes left, need %d)", t, limit-p, n)
		}
		return nil
	}
	le := binary.LittleEndian
	switch t {
	case TypeBool:
		if err := need(1); err != nil {
			return 0, err
		}
		if r.data[p] != 0 {
			out.Int = 1
		}
		return p + 1, nil
	case TypeInt16:
		if err := need(2); err != nil {
			return 0, err
		}
		out.Int = int64(int16(le.Uint16(r.data[p:])))
		return p + 2, nil
	case TypeInt32:
		if err := need(4); err != nil {
			return 0, err
		}
		out.Int = int64(int32(le.Uint32(r.data[p:])))
		return p + 4, nil
	case TypeFloat32:
		if err := need(4); err != nil {
			return 0, err
		}
		out.Float = float64(math.Float32frombits(le.Uint32(r.data[p:])))
		return p + 4, nil
	case TypeInt64:
		if err := need(8); err != nil {
			return 0, err
		}
		out.Int = int64(le.Uint64(r.data[p:]))
		return p + 8, nil
	case TypeFloat64:
		if err := need(8); err != nil {
			return 0, err
		}
		out.Float = math.Float64frombits(le.Uint64(r.data[p:]))
		return p + 8, nil
	case TypeString, TypeRaw:
		if err := need(4); err != nil {
			return 0, err
		}
		n := int64(le.Uint32(r.data[p:]))
		p += 4
		if n > int64(limit-p) {
			return 0, r.fail(ErrFormat, p-5, "%s of %d bytes runs past the property list (%d bytes left)", typeName(t), n, limit-p)
		}
		b := r.data[p : p+int(n)]
		if t == TypeString {
			out.Str = objectName(b)
		} else {
			out.Bytes = bytes.Clone(b)
		}
		return p + int(n), nil
	case TypeBoolArray, TypeByteArray, TypeInt32Array, TypeInt64Array, TypeFloat32Array, TypeFloat64Array:
		return r.array(p-1, limit, out)
	}
	return 0, r.fail(ErrFormat, p-1, "unknown property type 0x%02x", t)
}

// objectName rewrites binary "Name\x00\x01Class" as ASCII's "Class::Name".
func objectName(b []byte) string {
	s := string(b)
	if i := strings.Index(s, "\x00\x01"); i >= 0 {
		return s[i+2:] + "::" + s[:i]
	}
	return s
}

func typeName(t byte) string {
	switch t {
	case TypeString:
		return "string"
	case TypeRaw:
		return "raw data"
	}
	return fmt.Sprintf("type %q", t)
}

func elemSize(t byte) int {
	switch t {
	case TypeBoolArray, TypeByteArray:
		return 1
	case TypeInt32Array, TypeFloat32Array:
		return 4
	}
	return 8
}

// propertySize is what one Property costs in memory.
const propertySize = int64(unsafe.Sizeof(Property{}))

// charge counts n decoded bytes against MaxTotalArrayBytes.
func (r *binaryReader) charge(at int, n int64) error {
	r.arrays += n
	if r.arrays > r.opts.MaxTotalArrayBytes {
		return r.fail(ErrLimit, at, "decoded data exceeds the total limit of %d bytes", r.opts.MaxTotalArrayBytes)
	}
	return nil
}

// array decodes an array property whose type byte is at at.
func (r *binaryReader) array(at, limit int, out *Property) (int, error) {
	p := at + 1
	if limit-p < 12 {
		return 0, r.fail(ErrFormat, at, "truncated array header")
	}
	le := binary.LittleEndian
	count := int64(le.Uint32(r.data[p:]))
	enc := le.Uint32(r.data[p+4:])
	stored := int64(le.Uint32(r.data[p+8:]))
	p += 12
	size := count * int64(elemSize(out.Type))
	if stored > int64(limit-p) {
		return 0, r.fail(ErrFormat, at, "array of %d stored bytes runs past the property list (%d bytes left)", stored, limit-p)
	}
	if size > r.opts.MaxArrayBytes {
		return 0, r.fail(ErrLimit, at, "array of %d bytes exceeds the limit of %d", size, r.opts.MaxArrayBytes)
	}
	if err := r.charge(at, size); err != nil {
		return 0, err
	}
	src := r.data[p : p+int(stored)]
	var raw []byte
	switch enc {
	case 0:
		if stored != size {
			return 0, r.fail(ErrFormat, at, "raw array of %d elements stores %d bytes, want %d", count, stored, size)
		}
		raw = src
	case 1:
		if size > stored*maxDeflateRatio+64 {
			return 0, r.fail(ErrFormat, at, "zlib array claims %d bytes from %d compressed bytes (more than deflate can expand)", size, stored)
		}
		// Inflating needs the raw bytes beside the decoded values for a
		// while: the limit holds for that peak too, checked before inflating.
		if r.arrays+size > r.opts.MaxTotalArrayBytes {
			return 0, r.fail(ErrLimit, at, "decoded data exceeds the total limit of %d bytes (with this array's %d inflated bytes)", r.opts.MaxTotalArrayBytes, size)
		}
		var err error
		if raw, err = inflateExact(src, int(size)); err != nil {
			return 0, r.fail(ErrFormat, at, "zlib array of %d elements: %v", count, err)
		}
	default:
		return 0, r.fail(ErrUnsupported, at, "array encoding %d (only 0 raw and 1 zlib exist)", enc)
	}
	n := int(count)
	switch out.Type {
	case TypeBoolArray:
		out.Bools = make([]bool, n)
		for i := range out.Bools {
			out.Bools[i] = raw[i] != 0
		}
	case TypeByteArray:
		out.Bytes = bytes.Clone(raw)
	case TypeInt32Array:
		out.Int32s = make([]int32, n)
		for i := range out.Int32s {
			out.Int32s[i] = int32(le.Uint32(raw[4*i:]))
		}
	case TypeFloat32Array:
		out.Float32s = make([]float32, n)
		for i := range out.Float32s {
			out.Float32s[i] = math.Float32frombits(le.Uint32(raw[4*i:]))
		}
	case TypeInt64Array:
		out.Int64s = make([]int64, n)
		for i := range out.Int64s {
			out.Int64s[i] = int64(le.Uint64(raw[8*i:]))
		}
	case TypeFloat64Array:
		out.Float64s = make([]float64, n)
		for i := range out.Float64s {
			out.Float64s[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
		}
	}
	return p + int(stored), nil
}

// inflateExact decompresses a zlib stream that must decode to exactly size
// bytes and end there (checksum included).
func inflateExact(src []byte, size int) ([]byte, error) {
	zr, err := zlib.NewReader(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	out := make([]byte, size)
	if n, err := io.ReadFull(zr, out); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("decompressed size %d, want %d", n, size)
		}
		return nil, err
	}
	var one [1]byte
	switch n, err := zr.Read(one[:]); {
	case n > 0:
		return nil, fmt.Errorf("decompressed size exceeds %d", size)
	case err == io.EOF:
		return out, nil
	case err == nil:
		// A reader may return 0, nil; ask once more.
		if n, err := io.ReadFull(zr, one[:]); n > 0 {
			return nil, fmt.Errorf("decompressed size exceeds %d", size)
		} else if err != io.EOF {
			return nil, err
		}
		return out, nil
	default:
		return nil, err
	}
}
