package postcard

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

func enc(f func(e *Encoder)) []byte {
	var e Encoder
	f(&e)
	return e.Bytes()
}

// The unsigned and signed tables of the postcard wire-format spec
// ("Unsigned Integer Encoding", "Signed Integer Encoding") plus the u32/u64
// extremes and the f32/f64 examples.
func TestSpecExamples(t *testing.T) {
	cases := []struct {
		name string
		got  []byte
		want string
	}{
		{"u16 0", enc(func(e *Encoder) { e.U16(0) }), "00"},
		{"u16 127", enc(func(e *Encoder) { e.U16(127) }), "7f"},
		{"u16 128", enc(func(e *Encoder) { e.U16(128) }), "8001"},
		{"u16 16383", enc(func(e *Encoder) { e.U16(16383) }), "ff7f"},
		{"u16 16384", enc(func(e *Encoder) { e.U16(16384) }), "808001"},
		{"u16 16385", enc(func(e *Encoder) { e.U16(16385) }), "818001"},
		{"u16 65535", enc(func(e *Encoder) { e.U16(65535) }), "ffff03"},
		{"i16 0", enc(func(e *Encoder) { e.I16(0) }), "00"},
		{"i16 -1", enc(func(e *Encoder) { e.I16(-1) }), "01"},
		{"i16 1", enc(func(e *Encoder) { e.I16(1) }), "02"},
		{"i16 63", enc(func(e *Encoder) { e.I16(63) }), "7e"},
		{"i16 -64", enc(func(e *Encoder) { e.I16(-64) }), "7f"},
		{"i16 64", enc(func(e *Encoder) { e.I16(64) }), "8001"},
		{"i16 -65", enc(func(e *Encoder) { e.I16(-65) }), "8101"},
		// The spec's table prints [0xFF, 0xFF, 0x02] for 32767, a typo: zigzag
		// 0xFFFE is 7-bit groups 7E 7F 03, i.e. FE FF 03.
		{"i16 32767", enc(func(e *Encoder) { e.I16(32767) }), "feff03"},
		{"i16 -32768", enc(func(e *Encoder) { e.I16(-32768) }), "ffff03"},
		{"u32 max", enc(func(e *Encoder) { e.U32(math.MaxUint32) }), "ffffffff0f"},
		{"u64 max", enc(func(e *Encoder) { e.U64(math.MaxUint64) }), "ffffffffffffffffff01"},
		{"i32 min", enc(func(e *Encoder) { e.I32(math.MinInt32) }), "ffffffff0f"},
		{"i64 min", enc(func(e *Encoder) { e.I64(math.MinInt64) }), "ffffffffffffffffff01"},
		{"i64 max", enc(func(e *Encoder) { e.I64(math.MaxInt64) }), "feffffffffffffffff01"},
		{"f32 -32.005859375", enc(func(e *Encoder) { e.F32(-32.005859375) }), "000600c2"},
		{"f64 -32.005859375", enc(func(e *Encoder) { e.F64(-32.005859375) }), "00000000c00040c0"},
		{"u8 i8 raw", enc(func(e *Encoder) { e.U8(0xff); e.I8(-2) }), "fffe"},
		{"bool", enc(func(e *Encoder) { e.Bool(false); e.Bool(true) }), "0001"},
		{"option", enc(func(e *Encoder) { e.OptionNone(); e.OptionSome(); e.U32(300) }), "0001ac02"},
		{"string", enc(func(e *Encoder) { e.String("hello") }), "0568656c6c6f"},
		{"bytes", enc(func(e *Encoder) { e.ByteArray([]byte{1, 2, 3}) }), "03010203"},
		{"empty vec", enc(func(e *Encoder) { e.Len(0) }), "00"},
		{"enum variant", enc(func(e *Encoder) { e.Variant(2); e.U8(7) }), "0207"},
		{"tuple (u8,u32)", enc(func(e *Encoder) { e.U8(8); e.U32(128) }), "088001"},
		{"fixed array", enc(func(e *Encoder) { e.Raw([]byte{9, 8}) }), "0908"},
	}
	for _, c := range cases {
		if got := hex.EncodeToString(c.got); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

// The spec's varint length table boundaries: every power-of-seven boundary
// round-trips and takes the predicted number of bytes.
func TestVarintBoundaries(t *testing.T) {
	for k := 0; k < 10; k++ {
		for _, v := range []uint64{1<<(7*uint(k)) - 1, 1 << (7 * uint(k))} {
			b := enc(func(e *Encoder) { e.U64(v) })
			wantLen := 1
			for x := v >> 7; x != 0; x >>= 7 {
				wantLen++
			}
			if len(b) != wantLen {
				t.Errorf("u64 %d: %d bytes, want %d", v, len(b), wantLen)
			}
			got, err := NewDecoder(b).U64()
			if err != nil || got != v {
				t.Errorf("u64 %d: decoded %d, %v", v, got, err)
			}
		}
	}
}

func TestRoundTripAllTypes(t *testing.T) {
	var e Encoder
	e.U8(200)
	e.I8(-100)
	e.U16(40000)
	e.I16(-20000)
	e.U32(3_000_000_000)
	e.I32(-2_000_000_000)
	e.U64(1 << 62)
	e.I64(-(1 << 62))
	e.F32(float32(math.Inf(-1)))
	e.F64(math.Pi)
	e.Bool(true)
	e.OptionSome()
	e.String("ünï")
	e.OptionNone()
	e.ByteArray(nil)
	e.Variant(1)
	e.Raw([]byte{0xaa, 0xbb, 0xcc})
	d := NewDecoder(e.Bytes())
	check := func(ok bool, what string) {
		t.Helper()
		if !ok {
			t.Fatalf("%s mismatch", what)
		}
	}
	u8, _ := d.U8()
	check(u8 == 200, "u8")
	i8, _ := d.I8()
	check(i8 == -100, "i8")
	u16, _ := d.U16()
	check(u16 == 40000, "u16")
	i16, _ := d.I16()
	check(i16 == -20000, "i16")
	u32, _ := d.U32()
	check(u32 == 3_000_000_000, "u32")
	i32, _ := d.I32()
	check(i32 == -2_000_000_000, "i32")
	u64, _ := d.U64()
	check(u64 == 1<<62, "u64")
	i64, _ := d.I64()
	check(i64 == -(1<<62), "i64")
	f32, _ := d.F32()
	check(math.IsInf(float64(f32), -1), "f32")
	f64, _ := d.F64()
	check(f64 == math.Pi, "f64")
	bl, _ := d.Bool()
	check(bl, "bool")
	some, _ := d.Option()
	check(some, "some")
	s, _ := d.String()
	check(s == "ünï", "string")
	none, _ := d.Option()
	check(!none, "none")
	ba, _ := d.ByteArray()
	check(len(ba) == 0, "bytes")
	v, _ := d.Variant(2)
	check(v == 1, "variant")
	raw, _ := d.Raw(3)
	check(bytes.Equal(raw, []byte{0xaa, 0xbb, 0xcc}), "raw")
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
}

// decodeRejects: each malformed input fails with a FormatError at the
// expected absolute offset and message.
func TestDecodeRejects(t *testing.T) {
	cases := []struct {
		name string
		in   string
		read func(d *Decoder) error
		off  int64
		msg  string
		eof  bool
	}{
		{"overlong u16 zero", "8000", func(d *Decoder) error { _, err := d.U16(); return err }, 0x10, "overlong u16 varint", false},
		{"overlong u32 three bytes", "ff8000", func(d *Decoder) error { _, err := d.U32(); return err }, 0x10, "overlong u32 varint", false},
		{"u16 over max length", "ffff8300", func(d *Decoder) error { _, err := d.U16(); return err }, 0x10, "u16 varint longer than 3 bytes", false},
		{"u16 overflow 131071", "ffff07", func(d *Decoder) error { _, err := d.U16(); return err }, 0x10, "u16 varint overflows 16 bits", false},
		{"u32 overflow", "ffffffff1f", func(d *Decoder) error { _, err := d.U32(); return err }, 0x10, "u32 varint overflows 32 bits", false},
		{"u64 overflow", "ffffffffffffffffff02", func(d *Decoder) error { _, err := d.U64(); return err }, 0x10, "u64 varint overflows 64 bits", false},
		{"u64 eleven bytes", "ffffffffffffffffff8101", func(d *Decoder) error { _, err := d.U64(); return err }, 0x10, "u64 varint longer than 10 bytes", false},
		{"i32 overflow", "ffffffff10", func(d *Decoder) error { _, err := d.I32(); return err }, 0x10, "i32 varint overflows 32 bits", false},
		{"truncated varint", "80", func(d *Decoder) error { _, err := d.U32(); return err }, 0x10, "truncated u32 varint", true},
		{"empty u8", "", func(d *Decoder) error { _, err := d.U8(); return err }, 0x10, "u8: need 1 bytes, 0 left", true},
		{"truncated f32", "000000", func(d *Decoder) error { _, err := d.F32(); return err }, 0x10, "f32: need 4 bytes, 3 left", true},
		{"truncated f64", "00", func(d *Decoder) error { _, err := d.F64(); return err }, 0x10, "f64: need 8 bytes", true},
		{"bad bool", "02", func(d *Decoder) error { _, err := d.Bool(); return err }, 0x10, "bad bool byte 0x02", false},
		{"bad option", "75", func(d *Decoder) error { _, err := d.Option(); return err }, 0x10, "bad Option tag", false},
		{"string past end", "0561", func(d *Decoder) error { _, err := d.String(); return err }, 0x10, "length 5 needs at least 1 bytes per item, 1 bytes left", true},
		{"bytes huge length", "ffffffffffffffffff01", func(d *Decoder) error { _, err := d.ByteArray(); return err }, 0x10, "length 18446744073709551615", true},
		{"seq too long for items", "0300000000", func(d *Decoder) error { _, err := d.SeqLen(2); return err }, 0x10, "length 3 needs at least 2 bytes per item, 4 bytes left", true},
		{"bad utf8", "02c328", func(d *Decoder) error { _, err := d.String(); return err }, 0x10, "not valid UTF-8", false},
		{"enum out of range", "05", func(d *Decoder) error { _, err := d.Variant(5); return err }, 0x10, "enum variant 5 out of range", false},
		{"raw past end", "01", func(d *Decoder) error { _, err := d.Raw(2); return err }, 0x10, "fixed array: need 2 bytes", true},
		{"trailing", "0001", func(d *Decoder) error { d.U8(); return d.Done() }, 0x11, "1 trailing bytes", false},
	}
	for _, c := range cases {
		in, err := hex.DecodeString(c.in)
		if err != nil {
			t.Fatal(err)
		}
		err = c.read(NewDecoderAt(in, 0x10))
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: got %v, want FormatError", c.name, err)
			continue
		}
		if fe.Offset != c.off || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %q at %#x, want %q at %#x", c.name, err, fe.Offset, c.msg, c.off)
		}
		if !errors.Is(err, ErrFormat) {
			t.Errorf("%s: not ErrFormat", c.name)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) != c.eof {
			t.Errorf("%s: ErrUnexpectedEOF = %v, want %v", c.name, !c.eof, c.eof)
		}
	}
}

// Errors report the offset of the item, not of the byte where reading
// stopped: a bad field after good ones points at that field.
func TestErrorOffsetPointsAtItem(t *testing.T) {
	d := NewDecoderAt([]byte{0x01, 0x80, 0x80, 0x00}, 100)
	if _, err := d.U8(); err != nil {
		t.Fatal(err)
	}
	_, err := d.U32()
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 101 {
		t.Fatalf("got %v, want offset 101", err)
	}
	if want := "postcard: offset 0x65: overlong u32 varint (non-minimal encoding)"; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}

// FuzzDecode reads an arbitrary sequence of typed values driven by the
// input's first bytes: it never panics, only fails with ErrFormat, and every
// value it accepts re-encodes to exactly the bytes it was read from
// (strict decoding is exact).
func FuzzDecode(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, []byte{0x80, 0x01, 0xff, 0xff, 0x03, 0x05, 'h', 'e', 'l', 'l', 'o'})
	f.Add([]byte{4, 5, 6, 7, 8, 9}, []byte{0x01, 0x02, 0x00, 0x00, 0x80, 0x3f, 0x01, 0x7f})
	f.Add([]byte{10, 11, 12}, []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x80, 0x00, 0x03})
	f.Add([]byte{2}, []byte{0xff, 0xff, 0x07})
	f.Fuzz(func(t *testing.T, ops, data []byte) {
		if len(ops) > 64 || len(data) > 4096 {
			return
		}
		d := NewDecoder(data)
		var e Encoder
		for _, op := range ops {
			start := d.off
			var err error
			switch op % 13 {
			case 0:
				var v uint8
				v, err = d.U8()
				e.U8(v)
			case 1:
				var v uint16
				v, err = d.U16()
				e.U16(v)
			case 2:
				var v uint32
				v, err = d.U32()
				e.U32(v)
			case 3:
				var v uint64
				v, err = d.U64()
				e.U64(v)
			case 4:
				var v int16
				v, err = d.I16()
				e.I16(v)
			case 5:
				var v int32
				v, err = d.I32()
				e.I32(v)
			case 6:
				var v int64
				v, err = d.I64()
				e.I64(v)
			case 7:
				var v float32
				v, err = d.F32()
				e.F32(v)
			case 8:
				var v float64
				v, err = d.F64()
				e.F64(v)
			case 9:
				var v bool
				v, err = d.Bool()
				e.Bool(v)
			case 10:
				var v bool
				v, err = d.Option()
				if v {
					e.OptionSome()
				} else {
					e.OptionNone()
				}
			case 11:
				var v string
				v, err = d.String()
				e.String(v)
			case 12:
				var v []byte
				v, err = d.ByteArray()
				e.ByteArray(v)
			}
			if err != nil {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("error not ErrFormat: %v", err)
				}
				var fe *FormatError
				if errors.As(err, &fe) && (fe.Offset < int64(start) || fe.Offset > int64(len(data))) {
					t.Fatalf("error offset %d outside [%d, %d]", fe.Offset, start, len(data))
				}
				return
			}
		}
		if got := e.Bytes(); !bytes.Equal(got, data[:d.off]) {
			t.Fatalf("re-encoded %x, read from %x", got, data[:d.off])
		}
	})
}
