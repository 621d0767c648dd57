package ktx2

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const testWriter = "meshcook test"

// image4x2 is the golden fixture's base image: saturated primaries, partial
// alpha, and values whose linear-light and sRGB averages differ.
func image4x2() Level {
	return Level{Width: 4, Height: 2, Pixels: []byte{
		255, 0, 0, 255 /**/, 0, 255, 0, 255 /**/, 0, 0, 255, 128 /**/, 255, 255, 255, 0,
		0, 0, 0, 255 /**/, 128, 128, 128, 255 /**/, 10, 20, 30, 40 /**/, 200, 100, 50, 255,
	}}
}

// solid returns a w×h image of one color.
func solid(w, h int, c [4]byte) Level {
	px := make([]byte, 0, w*h*4)
	for range w * h {
		px = append(px, c[:]...)
	}
	return Level{Width: w, Height: h, Pixels: px}
}

// ramp returns a w×h image whose bytes count up, so every pixel differs.
func ramp(w, h int) Level {
	px := make([]byte, w*h*4)
	for i := range px {
		px[i] = byte(i*37 + i/4)
	}
	return Level{Width: w, Height: h, Pixels: px}
}

func mustEncode(t testing.TB, base Level, kind Kind) []byte {
	t.Helper()
	lv, err := MipChain(base, kind)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Encode(lv, kind, testWriter)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hexDump writes 16 bytes per line after the offset, the golden format.
func hexDump(b []byte) string {
	var s strings.Builder
	for o := 0; o < len(b); o += 16 {
		fmt.Fprintf(&s, "%04x: % x\n", o, b[o:min(o+16, len(b))])
	}
	return s.String()
}

func parseHexDump(t *testing.T, s string) []byte {
	t.Helper()
	var b []byte
	for i, line := range strings.Split(strings.TrimSpace(s), "\n") {
		_, data, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("golden line %d: no offset", i+1)
		}
		raw, err := hex.DecodeString(strings.ReplaceAll(data, " ", ""))
		if err != nil {
			t.Fatalf("golden line %d: %v", i+1, err)
		}
		b = append(b, raw...)
	}
	return b
}

// The golden files freeze every byte: header, level index, DFD, key/value
// data and the mip levels (so the filtering is frozen too).
func TestEncodeGolden(t *testing.T) {
	for _, c := range []struct {
		name string
		kind Kind
	}{{"rgba4x2.srgb.ktx2.hex", KindColor}, {"rgba4x2.unorm.ktx2.hex", KindData}} {
		t.Run(c.name, func(t *testing.T) {
			got := mustEncode(t, image4x2(), c.kind)
			path := filepath.Join("testdata", c.name)
			if *update {
				if err := os.WriteFile(path, []byte(hexDump(got)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			want := parseHexDump(t, string(raw))
			if !bytes.Equal(got, want) {
				t.Errorf("bytes differ from %s:\ngot:\n%s", path, hexDump(got))
			}
		})
	}
}

// Independent of the golden file: the fields a reader looks at first, at
// the offsets the KTX 2.0 spec gives.
func TestEncodeLayout(t *testing.T) {
	b := mustEncode(t, image4x2(), KindColor)
	le := binary.LittleEndian
	u32 := func(at int) uint32 { return le.Uint32(b[at:]) }
	u64 := func(at int) uint64 { return le.Uint64(b[at:]) }
	if string(b[:12]) != "\xabKTX 20\xbb\r\n\x1a\n" {
		t.Fatalf("identifier % x", b[:12])
	}
	header := []uint32{u32(12), u32(16), u32(20), u32(24), u32(28), u32(32), u32(36), u32(40), u32(44)}
	if want := []uint32{43, 1, 4, 2, 0, 0, 1, 3, 0}; !reflect.DeepEqual(header, want) {
		t.Errorf("header %v, want %v", header, want)
	}
	// Index: DFD right after the 3-entry level index, KVD right after it.
	if u32(48) != 152 || u32(52) != 92 || u32(56) != 244 || u64(64) != 0 || u64(72) != 0 {
		t.Errorf("index dfd %d+%d kvd %d sgd %d+%d", u32(48), u32(52), u32(56), u64(64), u64(72))
	}
	kvdEnd := int(u32(56) + u32(60))
	// Level index lists level 0 first; data is stored smallest first.
	wantOff := []uint64{uint64(kvdEnd) + 12, uint64(kvdEnd) + 4, uint64(kvdEnd)}
	wantLen := []uint64{32, 8, 4}
	for p := range 3 {
		e := 80 + 24*p
		if u64(e) != wantOff[p] || u64(e+8) != wantLen[p] || u64(e+16) != wantLen[p] {
			t.Errorf("level %d entry: %d %d %d, want %d %d %d", p, u64(e), u64(e+8), u64(e+16), wantOff[p], wantLen[p], wantLen[p])
		}
	}
	if len(b) != kvdEnd+44 {
		t.Errorf("file is %d bytes, want %d", len(b), kvdEnd+44)
	}
	if !bytes.Equal(b[wantOff[0]:], image4x2().Pixels) {
		t.Errorf("level 0 data is not the base image")
	}
	// DFD: sRGB transfer, BT.709 primaries, alpha sample LINEAR-qualified.
	d := b[152:]
	if u32(152) != 92 || d[12] != 1 || d[13] != 1 || d[14] != 2 || d[15] != 0 || d[20] != 4 {
		t.Errorf("DFD header % x", d[:28])
	}
	if got := []byte{d[28+3], d[44+3], d[60+3], d[76+3]}; !bytes.Equal(got, []byte{0, 1, 2, 0x1f}) {
		t.Errorf("channel types % x, want 00 01 02 1f", got)
	}
	// Key/value: sorted, NUL-terminated strings.
	kvd := string(b[244:kvdEnd])
	if want := "\x12\x00\x00\x00KTXorientation\x00rd\x00\x00\x00" + "\x18\x00\x00\x00KTXwriter\x00meshcook test\x00"; kvd != want {
		t.Errorf("kvd %q, want %q", kvd, want)
	}

	// UNORM: linear transfer, no qualifier on alpha.
	u := mustEncode(t, image4x2(), KindData)
	if u32 := le.Uint32(u[12:]); u32 != 37 {
		t.Errorf("data vkFormat %d", u32)
	}
	if u[152+14] != 1 || u[152+76+3] != 0x0f {
		t.Errorf("data DFD transfer %d alpha channelType %#x", u[152+14], u[152+76+3])
	}
}

func TestRoundTrip(t *testing.T) {
	for _, c := range []struct {
		base Level
		kind Kind
	}{
		{image4x2(), KindColor},
		{ramp(5, 3), KindData},
		{ramp(1, 1), KindColor},
		{ramp(1, 9), KindData},
		{ramp(33, 2), KindColor},
	} {
		b := mustEncode(t, c.base, c.kind)
		f, err := Decode(b)
		if err != nil {
			t.Fatalf("%d×%d: %v", c.base.Width, c.base.Height, err)
		}
		want, _ := MipChain(c.base, c.kind)
		if f.VkFormat != c.kind.VkFormat() || f.Width != c.base.Width || f.Height != c.base.Height || !reflect.DeepEqual(f.Levels, want) {
			t.Errorf("%d×%d: decoded file differs", c.base.Width, c.base.Height)
		}
		if wantKV := map[string][]byte{KeyOrientation: []byte("rd\x00"), KeyWriter: []byte(testWriter + "\x00")}; !reflect.DeepEqual(f.KeyValues, wantKV) {
			t.Errorf("key values %q", f.KeyValues)
		}
		// Decoding copies: scribbling on the input leaves f intact.
		b2 := bytes.Clone(b)
		clear(b)
		if again := write(f); !bytes.Equal(again, b2) {
			t.Errorf("%d×%d: re-encoding the decoded file changed bytes", c.base.Width, c.base.Height)
		}
	}
}

func TestDeterministicKeyOrder(t *testing.T) {
	// Map iteration order must not leak into the bytes.
	f, err := Decode(mustEncode(t, ramp(3, 3), KindData))
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"zeta", "alpha", "KTXanimData", "ünicode", "b"} {
		f.KeyValues[k] = []byte(k)
	}
	first := write(f)
	for range 20 {
		if !bytes.Equal(write(f), first) {
			t.Fatal("write is not deterministic")
		}
	}
	g, err := Decode(first)
	if err != nil {
		t.Fatalf("decoding extra sorted keys: %v", err)
	}
	if !reflect.DeepEqual(g.KeyValues, f.KeyValues) {
		t.Errorf("key values changed: %q", g.KeyValues)
	}
}

func TestMipChainSizes(t *testing.T) {
	for _, c := range []struct {
		w, h int
		want []string
	}{
		{5, 3, []string{"5×3", "2×1", "1×1"}},
		{4, 2, []string{"4×2", "2×1", "1×1"}},
		{1, 1, []string{"1×1"}},
		{8, 1, []string{"8×1", "4×1", "2×1", "1×1"}},
		{1, 7, []string{"1×7", "1×3", "1×1"}},
		{6, 6, []string{"6×6", "3×3", "1×1"}},
		{7, 16, []string{"7×16", "3×8", "1×4", "1×2", "1×1"}},
	} {
		lv, err := MipChain(ramp(c.w, c.h), KindData)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range lv {
			got = append(got, fmt.Sprintf("%d×%d", l.Width, l.Height))
			if len(l.Pixels) != l.Width*l.Height*4 {
				t.Errorf("%d×%d level %d×%d holds %d bytes", c.w, c.h, l.Width, l.Height, len(l.Pixels))
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%d×%d: chain %v, want %v", c.w, c.h, got, c.want)
		}
		if LevelCount(c.w, c.h) != len(c.want) {
			t.Errorf("LevelCount(%d, %d) = %d, want %d", c.w, c.h, LevelCount(c.w, c.h), len(c.want))
		}
	}
	if n := LevelCount(MaxSide, 1); n != 15 {
		t.Errorf("LevelCount(16384, 1) = %d, want 15", n)
	}
}

// Black next to white averages to 50% linear light, which is sRGB 188, not
// the 128 a byte average gives; alpha and data images average linearly.
func TestSRGBLinearFiltering(t *testing.T) {
	bw := Level{Width: 2, Height: 1, Pixels: []byte{0, 0, 0, 0, 255, 255, 255, 255}}
	lv, err := MipChain(bw, KindColor)
	if err != nil {
		t.Fatal(err)
	}
	if got := lv[1].Pixels; !bytes.Equal(got, []byte{188, 188, 188, 128}) {
		t.Errorf("color 2×1 black/white → %v, want [188 188 188 128]", got)
	}
	lv, _ = MipChain(bw, KindData)
	if got := lv[1].Pixels; !bytes.Equal(got, []byte{128, 128, 128, 128}) {
		t.Errorf("data 2×1 black/white → %v, want [128 128 128 128]", got)
	}
	// A 2×2 of sRGB 64 and 192: linear 0.0513 and 0.5271 → mean 0.2892 → 146.
	q := Level{Width: 2, Height: 2, Pixels: []byte{64, 64, 64, 255, 192, 192, 192, 255, 192, 192, 192, 255, 64, 64, 64, 255}}
	lv, _ = MipChain(q, KindColor)
	if got := lv[1].Pixels[0]; got != 146 {
		t.Errorf("color 64/192 checker → %d, want 146", got)
	}
}

// A uniform image keeps its exact value at every level, for every code in
// both kinds: the 8 → 16 → 8 bit mapping loses nothing and the odd-size
// weights sum to one.
func TestUniformImageKeepsValue(t *testing.T) {
	for _, kind := range []Kind{KindColor, KindData} {
		for v := range 256 {
			c := [4]byte{byte(v), byte(255 - v), byte(v / 2), byte(v)}
			lv, err := MipChain(solid(7, 5, c), kind)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lv[1:] {
				if !bytes.Equal(l.Pixels, solid(l.Width, l.Height, c).Pixels) {
					t.Fatalf("%v value %v: level %d×%d holds %v", kind, c, l.Width, l.Height, l.Pixels[:4])
				}
			}
		}
	}
}

// Odd sides shrink by area: each output pixel takes an equal share of the
// input, edge pixels split between neighbours.
func TestOddSizeAreaWeights(t *testing.T) {
	if got, want := taps(5, 2), [][]tap{{{0, 2}, {1, 2}, {2, 1}}, {{2, 1}, {3, 2}, {4, 2}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("taps(5, 2) = %v, want %v", got, want)
	}
	if got, want := taps(3, 1), [][]tap{{{0, 1}, {1, 1}, {2, 1}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("taps(3, 1) = %v, want %v", got, want)
	}
	if got, want := taps(4, 2), [][]tap{{{0, 2}, {1, 2}}, {{2, 2}, {3, 2}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("taps(4, 2) = %v, want %v", got, want)
	}
	// Data 5×1 red values 0, 0, 250, 250, 250 → (0+0+125)/2.5 = 50 and
	// (125+250+250)/2.5 = 250.
	row := Level{Width: 5, Height: 1}
	for _, v := range []byte{0, 0, 250, 250, 250} {
		row.Pixels = append(row.Pixels, v, 0, 0, 255)
	}
	lv, _ := MipChain(row, KindData)
	if got := []byte{lv[1].Pixels[0], lv[1].Pixels[4]}; !bytes.Equal(got, []byte{50, 250}) {
		t.Errorf("5×1 → 2×1 red %v, want [50 250]", got)
	}
	// The mean is kept: 3×3 → 1×1 is the plain average of the nine values.
	sq := Level{Width: 3, Height: 3}
	sum := 0
	for i := range 9 {
		v := byte(i * 29)
		sum += int(v)
		sq.Pixels = append(sq.Pixels, v, v, v, 255)
	}
	lv, _ = MipChain(sq, KindData)
	if got, want := int(lv[1].Pixels[0]), (sum+4)/9; got != want {
		t.Errorf("3×3 data mean %d, want %d", got, want)
	}
}

func TestEncodeRefuses(t *testing.T) {
	good, _ := MipChain(ramp(4, 2), KindData)
	cut := func(lv []Level) []Level { return lv[:len(lv)-1] }
	resized := func(lv []Level) []Level {
		out := append([]Level(nil), lv...)
		out[1] = ramp(2, 2)
		return out
	}
	short := func(lv []Level) []Level {
		out := append([]Level(nil), lv...)
		out[2].Pixels = out[2].Pixels[:3]
		return out
	}
	for _, c := range []struct {
		name   string
		levels []Level
		kind   Kind
		writer string
		want   string
	}{
		{"unknown kind", good, Kind(7), testWriter, "unknown kind 7"},
		{"empty writer", good, KindData, "", "empty KTXwriter"},
		{"NUL in writer", good, KindData, "a\x00b", "holds a NUL"},
		{"bad UTF-8 writer", good, KindData, "\xff", "not UTF-8"},
		{"no levels", nil, KindData, testWriter, "no levels"},
		{"partial chain", cut(good), KindData, testWriter, "2 levels, want the full chain of 3"},
		{"wrong level size", resized(good), KindData, testWriter, "level 1 is 2×2, want 2×1"},
		{"short pixels", short(good), KindData, testWriter, "level 2: 3 pixel bytes, want 4"},
		{"too wide", []Level{{Width: MaxSide + 1, Height: 1}}, KindData, testWriter, "exceeds 16384 per side"},
	} {
		_, err := Encode(c.levels, c.kind, c.writer)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	f, err := Decode(mustEncode(t, ramp(4, 2), KindColor))
	if err != nil {
		t.Fatal(err)
	}
	if err := Validate(f); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(*File)
		want string
	}{
		{"nil", nil, "nil file"},
		{"vkFormat", func(f *File) { f.VkFormat = 44 }, "vkFormat 44"},
		{"no writer", func(f *File) { delete(f.KeyValues, KeyWriter) }, "no KTXwriter key"},
		{"writer without NUL", func(f *File) { f.KeyValues[KeyWriter] = []byte("x") }, "KTXwriter \"x\""},
		{"empty writer", func(f *File) { f.KeyValues[KeyWriter] = []byte{0} }, "KTXwriter"},
		{"orientation", func(f *File) { f.KeyValues[KeyOrientation] = []byte("ru\x00") }, "KTXorientation \"ru\\x00\""},
		{"no orientation", func(f *File) { delete(f.KeyValues, KeyOrientation) }, "no KTXorientation key"},
		{"bad key", func(f *File) { f.KeyValues["a\x00b"] = nil }, "key \"a\\x00b\""},
		{"zero height", func(f *File) { f.Height = 0 }, "size 4×0"},
	} {
		var g *File
		if c.edit != nil {
			g = &File{VkFormat: f.VkFormat, Width: f.Width, Height: f.Height, Levels: f.Levels, KeyValues: map[string][]byte{}}
			for k, v := range f.KeyValues {
				g.KeyValues[k] = v
			}
			c.edit(g)
		}
		err := Validate(g)
		var fe *FormatError
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &fe) || fe.Offset != -1 {
			t.Errorf("%s: error %v, want one containing %q without offset", c.name, err, c.want)
		}
	}
}

// Offsets in the 4×2 sRGB file: level index at 0x50, DFD at 0x98 (152),
// KVD at 0xf4 (244) for 52 bytes (KTXorientation entry 24 B, KTXwriter
// entry 28 B), level 2 at 296, level 1 at 300, level 0 at 308, end 340.
func TestDecodeInvalid(t *testing.T) {
	valid := mustEncode(t, image4x2(), KindColor)
	if len(valid) != 340 {
		t.Fatalf("fixture is %d bytes, the table assumes 340", len(valid))
	}
	le := binary.LittleEndian
	set32 := func(at int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint32(b[at:], v); return b }
	}
	set64 := func(at int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint64(b[at:], v); return b }
	}
	setByte := func(at int, v byte) func([]byte) []byte {
		return func(b []byte) []byte { b[at] = v; return b }
	}
	trunc := func(n int) func([]byte) []byte { return func(b []byte) []byte { return b[:n] } }
	noWriter := func([]byte) []byte {
		f, _ := Decode(valid)
		delete(f.KeyValues, KeyWriter)
		return write(f)
	}
	swapKeys := func(b []byte) []byte {
		kvd := append(bytes.Clone(b[244+24:296]), b[244:244+24]...)
		copy(b[244:], kvd)
		return b
	}
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
		off  int64
		want string
		eof  bool
	}{
		{"bad identifier", setByte(1, 'k'), 0, "bad identifier", false},
		{"empty file", trunc(0), 0, "truncated header", true},
		{"identifier only", trunc(12), 12, "truncated header (12 of 80 bytes)", true},
		{"truncated header", trunc(60), 0x3c, "truncated header", true},
		{"wrong vkFormat", set32(12, 44), 0xc, "vkFormat 44, want 37 (R8G8B8A8_UNORM), 43 (R8G8B8A8_SRGB) or 0 (Basis Universal)", false},
		{"typeSize", set32(16, 4), 0x10, "typeSize 4, want 1", false},
		{"zero width", set32(20, 0), 0x14, "size 0×2", false},
		{"zero height", set32(24, 0), 0x18, "size 4×0", false},
		{"huge height", set32(24, 1<<20), 0x18, "exceeds 16384 per side", false},
		{"3D", set32(28, 1), 0x1c, "pixelDepth 1, want 0", false},
		{"array", set32(32, 2), 0x20, "layerCount 2, want 0", false},
		{"cubemap", set32(36, 6), 0x24, "faceCount 6, want 1", false},
		{"levelCount 0", set32(40, 0), 0x28, "levelCount 0, want 3 (the full mip chain of 4×2 down to 1×1)", false},
		{"levelCount too big", set32(40, 4), 0x28, "levelCount 4, want 3", false},
		{"partial chain", set32(40, 2), 0x28, "levelCount 2, want 3", false},
		{"supercompressed", set32(44, 2), 0x2c, "supercompressionScheme 2, want 0", false},
		{"sgd offset", set64(64, 8), 0x40, "sgdByteOffset 8", false},
		{"sgd length", set64(72, 8), 0x48, "sgdByteLength 8", false},
		{"truncated level index", trunc(100), 0x64, "truncated level index: 3 levels need 152 bytes, file has 100", true},
		{"level byteLength", set64(80+8, 31), 0x58, "level 0: byteLength 31, want 32 for 4×2 RGBA8", false},
		{"uncompressedByteLength", set64(80+24+16, 9), 0x78, "level 1: uncompressedByteLength 9, want byteLength 8", false},
		{"level past EOF", set64(80, 1<<40), 0x50, "level 0: data at 0x10000000000 + 32 bytes runs past the end of the 340-byte file", true},
		{"level offset overflow", set64(80, ^uint64(0)-4), 0x50, "runs past the end", true},
		{"file cut in level 0", trunc(339), 0x50, "level 0: data at 0x134 + 32 bytes runs past the end of the 339-byte file", true},
		{"dfd offset", set32(48, 156), 0x30, "dfdByteOffset 156, want 152", false},
		{"DFD size mismatch", set32(52, 88), 0x34, "dfdByteLength 88, want 92", false},
		{"dfdTotalSize", set32(152, 88), 0x98, "DFD dfdTotalSize: byte 0x58, want 0x5c", false},
		{"DFD block size", set32(152+8, 2|80<<16), 0xa2, "DFD descriptorBlockSize", false},
		{"DFD linear transfer for sRGB", setByte(152+14, 1), 0xa6, "DFD transferFunction: byte 0x01, want 0x02 for vkFormat 43", false},
		{"DFD primaries", setByte(152+13, 0), 0xa5, "DFD colorPrimaries", false},
		{"DFD alpha not linear", setByte(152+76+3, 0x0f), 0xe7, "DFD sample A channelType/qualifiers: byte 0x0f, want 0x1f", false},
		{"DFD sampleUpper", setByte(152+28+12, 0xfe), 0xc0, "DFD sample R sampleUpper", false},
		{"kvd offset", set32(56, 248), 0x38, "kvdByteOffset 248, want 244", false},
		{"kvd length past EOF", set32(60, 1000), 0x3c, "key/value data at 0xf4 + 1000 bytes runs past the end", true},
		{"kvd length short", set32(60, 50), 0x10c, "keyAndValueByteLength 24 runs past kvdByteLength (22 bytes left)", false},
		{"kvd entry length 1", set32(244, 1), 0xf4, "keyAndValueByteLength 1, want at least 2", false},
		{"value padding not zero", setByte(266, 1), 0x10a, "padding byte 0x01 after key \"KTXorientation\", want 0", false},
		{"keys not sorted", swapKeys, 0x114, "key \"KTXorientation\" after \"KTXwriter\": keys must be sorted", false},
		{"no KTXwriter", noWriter, 0xf4, "no KTXwriter key", false},
		{"largest level first", set64(80+48, 300), 0x80, "level 2: byteOffset 0x12c, want 0x128", false},
		{"trailing bytes", func(b []byte) []byte { return append(b, 0, 0, 0, 0) }, 0x154, "4 trailing bytes after level 0", false},
	} {
		b := c.edit(bytes.Clone(valid))
		f, err := Decode(b)
		var fe *FormatError
		switch {
		case err == nil:
			t.Errorf("%s: decoded %d×%d, want an error", c.name, f.Width, f.Height)
			continue
		case !errors.As(err, &fe) || !errors.Is(err, ErrFormat):
			t.Errorf("%s: %v is not a *FormatError", c.name, err)
			continue
		}
		if fe.Offset != c.off || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got offset %#x %q\nwant offset %#x containing %q", c.name, fe.Offset, err, c.off, c.want)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) != c.eof {
			t.Errorf("%s: errors.Is(err, io.ErrUnexpectedEOF) = %v, want %v", c.name, !c.eof, c.eof)
		}
		if !strings.HasPrefix(err.Error(), "ktx2: offset ") {
			t.Errorf("%s: message %q lacks the package prefix and offset", c.name, err)
		}
	}
}

func TestDecodeKVDInvalid(t *testing.T) {
	entry := func(s string) []byte {
		b := binary.LittleEndian.AppendUint32(nil, uint32(len(s)))
		b = append(b, s...)
		return append(b, make([]byte, alignUp(len(s), 4)-len(s))...)
	}
	for _, c := range []struct {
		name string
		kvd  []byte
		off  int64
		want string
	}{
		{"duplicate key", append(entry("a\x00x"), entry("a\x00y")...), 0x100c, "duplicate key \"a\""},
		{"no NUL after key", entry("abc"), 0x1004, "non-empty key ending in NUL"},
		{"empty key", entry("\x00abc"), 0x1004, "non-empty key ending in NUL"},
		{"key not UTF-8", entry("\xff\x00"), 0x1004, "is not UTF-8"},
		{"short length field", []byte{1, 0}, 0x1000, "2 bytes left, want 4"},
	} {
		_, err := decodeKVD(c.kvd, 0x1000)
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Offset != c.off || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want offset %#x containing %q", c.name, err, c.off, c.want)
		}
	}
}

// FuzzDecode checks that Decode never panics, and that whatever it accepts
// is a valid texture which writes back to the very same bytes (the layout
// is canonical, so there is exactly one encoding of each File).
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"rgba4x2.srgb.ktx2.hex", "rgba4x2.unorm.ktx2.hex"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		var b []byte
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			_, data, _ := strings.Cut(line, ": ")
			h, _ := hex.DecodeString(strings.ReplaceAll(data, " ", ""))
			b = append(b, h...)
		}
		f.Add(b)
		f.Add(b[:100])
	}
	f.Add(mustEncode(f, ramp(5, 3), KindData))
	f.Add(mustEncode(f, ramp(1, 1), KindColor))
	f.Add([]byte(identifier))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		g, err := Decode(b)
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "ktx2: ") {
				t.Fatalf("error %v is not a ktx2 *FormatError", err)
			}
			return
		}
		if err := Validate(g); err != nil {
			t.Fatalf("Decode accepted a file Validate refuses: %v", err)
		}
		if again := write(g); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding changed the bytes")
		}
	})
}

func TestDumpAndRead(t *testing.T) {
	b := mustEncode(t, image4x2(), KindColor)
	f, err := Read(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var s strings.Builder
	if err := Dump(&s, f); err != nil {
		t.Fatal(err)
	}
	want := `ktx2 vkFormat 43 (R8G8B8A8_SRGB) 4×2 levels 3
  key KTXorientation "rd\x00"
  key KTXwriter "meshcook test\x00"
  level 0 4×2 32 B mean 106,95,90,180 fnv1a 0x%016x
  level 1 2×1 8 B mean 160,148,128,181 fnv1a 0x%016x
  level 2 1×1 4 B mean 160,147,145,180 fnv1a 0x%016x
`
	var sums []any
	for _, lv := range f.Levels {
		h := fnv.New64a()
		h.Write(lv.Pixels)
		sums = append(sums, h.Sum64())
	}
	if got := s.String(); got != fmt.Sprintf(want, sums...) {
		t.Errorf("dump:\n%s", got)
	}
	if _, err := Read(bytes.NewReader(b), int64(len(b)-1)); err == nil || !strings.Contains(err.Error(), "larger than the 339-byte limit") {
		t.Errorf("Read over the limit: %v", err)
	}
}
