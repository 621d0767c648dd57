// Package postcard encodes and decodes the postcard 1.x wire format
// (https://postcard.jamesmunns.com/wire-format): the serde encoding the
// engine of seed 004 uses for .cnb metadata. It is schema-less, like
// postcard itself: callers write and read fields in declaration order.
//
// Wire rules:
//
//	u8, i8             one raw byte
//	u16, u32, u64      LEB128 varint, at most 3, 5, 10 bytes
//	i16, i32, i64      zigzag, then varint
//	f32, f64           raw little-endian IEEE 754 bits
//	bool               0x00 or 0x01
//	Option<T>          0x00, or 0x01 then T
//	String, bytes, Vec varint(usize) length, then the items
//	array, tuple, struct  the fields in order, no length, no names
//	enum               varint(u32) variant index, then its data
//
// The Encoder always writes minimal varints. The Decoder is stricter than
// postcard's own deserializer, which accepts non-canonical varints: it
// refuses overlong encodings (a multi-byte varint whose last byte is 0x00),
// values past the type's range, bool and Option tags other than 0/1, and
// lengths that run past the end of the input. Strictness makes decoding
// exact: whatever Decoder accepts re-encodes to the same bytes.
package postcard

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// Maximum encoded lengths of varint(N), from the postcard spec.
const (
	MaxVarintLen16 = 3
	MaxVarintLen32 = 5
	MaxVarintLen64 = 10
)

// ErrFormat is matched by errors.Is for every *FormatError.
var ErrFormat = errors.New("postcard: malformed data")

// FormatError reports malformed postcard data. Offset is the absolute byte
// offset of the offending item (the Decoder's base plus its position), Err
// an underlying cause such as io.ErrUnexpectedEOF.
type FormatError struct {
	Offset int64
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("postcard: offset %#x: %s", e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

// Encoder appends postcard-encoded values to a buffer. The zero value is
// ready to use. Encoding cannot fail: every Go value of the argument types
// has an encoding.
type Encoder struct {
	buf []byte
}

// NewEncoder returns an Encoder that appends to buf (which may be nil).
func NewEncoder(buf []byte) *Encoder { return &Encoder{buf: buf} }

// Bytes returns everything encoded so far. The slice aliases the Encoder's
// buffer until the next write.
func (e *Encoder) Bytes() []byte { return e.buf }

// U8 writes one raw byte.
func (e *Encoder) U8(v uint8) { e.buf = append(e.buf, v) }

// I8 writes one raw two's-complement byte.
func (e *Encoder) I8(v int8) { e.buf = append(e.buf, byte(v)) }

// U16 writes a minimal varint.
func (e *Encoder) U16(v uint16) { e.varint(uint64(v)) }

// U32 writes a minimal varint.
func (e *Encoder) U32(v uint32) { e.varint(uint64(v)) }

// U64 writes a minimal varint.
func (e *Encoder) U64(v uint64) { e.varint(v) }

// I16 writes a zigzag varint.
func (e *Encoder) I16(v int16) { e.varint(uint64(zigzag(int64(v)))) }

// I32 writes a zigzag varint.
func (e *Encoder) I32(v int32) { e.varint(uint64(zigzag(int64(v)))) }

// I64 writes a zigzag varint.
func (e *Encoder) I64(v int64) { e.varint(zigzag(v)) }

// F32 writes the four little-endian bytes of v's bits (NaN payloads kept).
func (e *Encoder) F32(v float32) {
	e.buf = binary.LittleEndian.AppendUint32(e.buf, math.Float32bits(v))
}

// F64 writes the eight little-endian bytes of v's bits.
func (e *Encoder) F64(v float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
}

// Bool writes 0x01 for true, 0x00 for false.
func (e *Encoder) Bool(v bool) {
	if v {
		e.buf = append(e.buf, 1)
	} else {
		e.buf = append(e.buf, 0)
	}
}

// OptionNone writes the None tag 0x00.
func (e *Encoder) OptionNone() { e.buf = append(e.buf, 0) }

// OptionSome writes the Some tag 0x01; the caller writes the value next.
func (e *Encoder) OptionSome() { e.buf = append(e.buf, 1) }

// Len writes the varint(usize) length that starts a Vec, String or byte
// array. n must not be negative.
func (e *Encoder) Len(n int) { e.varint(uint64(n)) }

// Variant writes an enum's varint(u32) variant index; the caller writes the
// variant's data next.
func (e *Encoder) Variant(i uint32) { e.varint(uint64(i)) }

// String writes a length-prefixed UTF-8 string. The bytes are written as
// given; Decoder.String refuses invalid UTF-8.
func (e *Encoder) String(s string) {
	e.Len(len(s))
	e.buf = append(e.buf, s...)
}

// ByteArray writes a length-prefixed byte array (serde bytes, Vec<u8>).
// (Bytes is the accessor for the encoded output.)
func (e *Encoder) ByteArray(b []byte) {
	e.Len(len(b))
	e.buf = append(e.buf, b...)
}

// Raw appends b with no length: a fixed-size [u8; N] array.
func (e *Encoder) Raw(b []byte) { e.buf = append(e.buf, b...) }

func (e *Encoder) varint(v uint64) {
	for v >= 0x80 {
		e.buf = append(e.buf, byte(v)|0x80)
		v >>= 7
	}
	e.buf = append(e.buf, byte(v))
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// Decoder reads postcard values from a byte slice, strictly (see the
// package comment). Errors are *FormatError with absolute offsets; after an
// error the Decoder's position is unspecified.
type Decoder struct {
	b    []byte
	off  int
	base int64
}

// NewDecoder returns a Decoder over b; error offsets count from b's start.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// NewDecoderAt returns a Decoder over b whose error offsets are base + the
// position in b: b is a slice of a file starting at byte base.
func NewDecoderAt(b []byte, base int64) *Decoder { return &Decoder{b: b, base: base} }

// Offset returns the absolute offset of the next byte to read.
func (d *Decoder) Offset() int64 { return d.base + int64(d.off) }

// Remaining returns the number of unread bytes.
func (d *Decoder) Remaining() int { return len(d.b) - d.off }

// Done returns an error when unread bytes remain: postcard frames are
// decoded exactly.
func (d *Decoder) Done() error {
	if n := d.Remaining(); n != 0 {
		return d.errf(nil, "%d trailing bytes after the value", n)
	}
	return nil
}

func (d *Decoder) errf(cause error, format string, args ...any) *FormatError {
	return &FormatError{Offset: d.Offset(), Msg: fmt.Sprintf(format, args...), Err: cause}
}

func (d *Decoder) take(n int, what string) ([]byte, error) {
	if n < 0 || n > d.Remaining() {
		return nil, d.errf(io.ErrUnexpectedEOF, "%s: need %d bytes, %d left", what, n, d.Remaining())
	}
	s := d.b[d.off : d.off+n]
	d.off += n
	return s, nil
}

// varint reads a minimal LEB128 varint of at most maxLen bytes whose value
// fits in bits bits.
func (d *Decoder) varint(maxLen, bits int, what string) (uint64, error) {
	start := d.off
	var v uint64
	for i := 0; i < maxLen; i++ {
		if d.off >= len(d.b) {
			d.off = start
			return 0, d.errf(io.ErrUnexpectedEOF, "truncated %s varint", what)
		}
		c := d.b[d.off]
		d.off++
		shift := uint(7 * i)
		if c&0x80 == 0 {
			if i > 0 && c == 0 {
				d.off = start
				return 0, d.errf(nil, "overlong %s varint (non-minimal encoding)", what)
			}
			// The last byte may only carry the bits the type has left.
			if left := bits - int(shift); left < 7 && c>>uint(left) != 0 {
				d.off = start
				return 0, d.errf(nil, "%s varint overflows %d bits", what, bits)
			}
			return v | uint64(c)<<shift, nil
		}
		v |= uint64(c&0x7f) << shift
	}
	d.off = start
	return 0, d.errf(nil, "%s varint longer than %d bytes", what, maxLen)
}

// U8 reads one raw byte.
func (d *Decoder) U8() (uint8, error) {
	s, err := d.take(1, "u8")
	if err != nil {
		return 0, err
	}
	return s[0], nil
}

// I8 reads one raw two's-complement byte.
func (d *Decoder) I8() (int8, error) {
	v, err := d.U8()
	return int8(v), err
}

// U16 reads a varint(u16).
func (d *Decoder) U16() (uint16, error) {
	v, err := d.varint(MaxVarintLen16, 16, "u16")
	return uint16(v), err
}

// U32 reads a varint(u32).
func (d *Decoder) U32() (uint32, error) {
	v, err := d.varint(MaxVarintLen32, 32, "u32")
	return uint32(v), err
}

// U64 reads a varint(u64).
func (d *Decoder) U64() (uint64, error) {
	return d.varint(MaxVarintLen64, 64, "u64")
}

// I16 reads a zigzag varint(i16).
func (d *Decoder) I16() (int16, error) {
	v, err := d.varint(MaxVarintLen16, 16, "i16")
	return int16(unzigzag(v)), err
}

// I32 reads a zigzag varint(i32).
func (d *Decoder) I32() (int32, error) {
	v, err := d.varint(MaxVarintLen32, 32, "i32")
	return int32(unzigzag(v)), err
}

// I64 reads a zigzag varint(i64).
func (d *Decoder) I64() (int64, error) {
	v, err := d.varint(MaxVarintLen64, 64, "i64")
	return unzigzag(v), err
}

// F32 reads four little-endian bytes as float32 bits.
func (d *Decoder) F32() (float32, error) {
	s, err := d.take(4, "f32")
	if err != nil {
		return 0, err
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(s)), nil
}

// F64 reads eight little-endian bytes as float64 bits.
func (d *Decoder) F64() (float64, error) {
	s, err := d.take(8, "f64")
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(s)), nil
}

// Bool reads 0x00 or 0x01; any other byte is an error.
func (d *Decoder) Bool() (bool, error) {
	at := d.off
	v, err := d.U8()
	if err != nil {
		return false, err
	}
	if v > 1 {
		d.off = at
		return false, d.errf(nil, "bad bool byte %#02x", v)
	}
	return v == 1, nil
}

// Option reads an Option tag: false for None (0x00), true for Some (0x01),
// after which the caller reads the value.
func (d *Decoder) Option() (bool, error) {
	at := d.off
	v, err := d.U8()
	if err != nil {
		return false, err
	}
	if v > 1 {
		d.off = at
		return false, d.errf(nil, "bad Option tag %#02x", v)
	}
	return v == 1, nil
}

// Variant reads an enum's varint(u32) variant index and checks it is below
// count (the number of variants).
func (d *Decoder) Variant(count uint32) (uint32, error) {
	at := d.off
	v, err := d.U32()
	if err != nil {
		return 0, err
	}
	if v >= count {
		d.off = at
		return 0, d.errf(nil, "enum variant %d out of range (%d variants)", v, count)
	}
	return v, nil
}

// Len reads a varint(usize) length and checks that that many bytes remain:
// exact for String and bytes, and a safe bound for any Vec whose items take
// at least one byte. Use SeqLen for a tighter bound.
func (d *Decoder) Len() (int, error) { return d.SeqLen(1) }

// SeqLen reads a varint(usize) length of a Vec whose items each take at
// least minItemSize bytes (minimum 1), and refuses a length those bytes
// cannot hold, so a caller may allocate n items safely.
func (d *Decoder) SeqLen(minItemSize int) (int, error) {
	minItemSize = max(minItemSize, 1)
	at := d.off
	v, err := d.varint(MaxVarintLen64, 64, "length")
	if err != nil {
		return 0, err
	}
	if left := uint64(d.Remaining()); v > left/uint64(minItemSize) {
		d.off = at
		return 0, d.errf(io.ErrUnexpectedEOF, "length %d needs at least %d bytes per item, %d bytes left", v, minItemSize, left)
	}
	return int(v), nil
}

// String reads a length-prefixed string and refuses invalid UTF-8.
func (d *Decoder) String() (string, error) {
	at := d.off
	b, err := d.ByteArray()
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		d.off = at
		return "", d.errf(nil, "string is not valid UTF-8")
	}
	return string(b), nil
}

// ByteArray reads a length-prefixed byte array. The result aliases the
// input.
func (d *Decoder) ByteArray() ([]byte, error) {
	n, err := d.Len()
	if err != nil {
		return nil, err
	}
	return d.take(n, "bytes")
}

// Raw reads n bytes with no length prefix (a fixed [u8; N] array). The
// result aliases the input.
func (d *Decoder) Raw(n int) ([]byte, error) { return d.take(n, "fixed array") }
