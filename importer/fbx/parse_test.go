package fbx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// sample is a small tree exercising every property type.
func sample() []*Node {
	return []*Node{
		n("FBXHeaderExtension", n("FBXVersion", int32(7400))),
		n("Objects",
			n("Model", int64(12345), "Model::Cube", "Mesh",
				n("Scalars", true, int16(-3), int32(-70000), int64(1)<<40, float32(1.5), 2.25, "text", []byte{0, 1, 2}),
				n("Arrays", []bool{true, false}, []int32{1, -2}, []int64{3, -4}, []float32{0.5, -0.5}, []float64{1e-300, 3}),
				n("Empty", []float64{}),
			)),
	}
}

// TestBinaryRoundTrip: the writer's 32-bit (7400) and 64-bit (7500)
// record layouts, raw and zlib arrays, all parse to the same tree.
func TestBinaryRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		version  uint32
		compress bool
		record   int
	}{{7400, false, 13}, {7400, true, 13}, {7500, false, 25}, {7700, true, 25}, {6100, false, 13}} {
		data := writeBinary(tc.version, sample(), tc.compress)
		doc, err := Parse(data, Options{})
		if err != nil {
			t.Fatalf("%d: %v", tc.version, err)
		}
		if doc.Version != tc.version || !doc.Binary {
			t.Fatalf("version %d binary %v", doc.Version, doc.Binary)
		}
		// Offsets: the first record sits right after the 27-byte header,
		// its first child after the record header and the name.
		first := doc.Root.Children[0]
		if first.Pos != 27 || first.Children[0].Pos != int64(27+tc.record+len("FBXHeaderExtension")) {
			t.Fatalf("%d: positions %d, %d", tc.version, first.Pos, first.Children[0].Pos)
		}
		m := doc.Root.Child("Objects").Child("Model")
		if m.str(1) != "Model::Cube" || m.Props[0].Int != 12345 {
			t.Fatalf("object name/id: %+v", m.Props[:2])
		}
		s := m.Child("Scalars").Props
		if s[0].Int != 1 || s[1].Int != -3 || s[2].Int != -70000 || s[3].Int != 1<<40 ||
			s[4].Float != 1.5 || s[5].Float != 2.25 || s[6].Str != "text" || !bytes.Equal(s[7].Bytes, []byte{0, 1, 2}) {
			t.Fatalf("scalars: %+v", s)
		}
		a := m.Child("Arrays").Props
		if !a[0].Bools[0] || a[0].Bools[1] || a[1].Int32s[1] != -2 || a[2].Int64s[1] != -4 ||
			a[3].Float32s[1] != -0.5 || a[4].Float64s[0] != 1e-300 {
			t.Fatalf("arrays: %+v", a)
		}
		if e := m.Child("Empty").Props[0]; e.Type != TypeFloat64Array || e.Len() != 0 {
			t.Fatalf("empty array: %+v", e)
		}
	}
}

// TestASCIIParse: arrays, implicit number lists, comments, quoted strings,
// bare words, leading commas, continuation lines.
func TestASCIIParse(t *testing.T) {
	src := `; FBX 7.3.0 project file
; comment line
Objects: {
}
Top: 1, "two; not a comment", T {
	Arr: *4 {
		a: 1,2.5,
		   -3,4e2
	}
	Ints: *2 { a: 7,8 }
	List: 1,2,3
	  ,4          ; continues through the comma
	Lead: , "x"
	Lone: 42
	Next: "line"
	Key: 
		1,2,L
}
`
	doc, err := Parse([]byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Version != 7300 || doc.Binary {
		t.Fatalf("version %d binary %v", doc.Version, doc.Binary)
	}
	top := doc.Root.Child("Top")
	if len(top.Props) != 3 || top.Props[1].Str != "two; not a comment" || top.Props[2].Str != "T" {
		t.Fatalf("top props %+v", top.Props)
	}
	arr := top.Child("Arr").Props[0]
	if arr.Type != TypeFloat64Array || len(arr.Float64s) != 4 || arr.Float64s[1] != 2.5 || arr.Float64s[3] != 400 {
		t.Fatalf("Arr %+v", arr)
	}
	if p := top.Child("Ints").Props[0]; p.Type != TypeInt64Array || p.Int64s[1] != 8 {
		t.Fatalf("Ints %+v", p)
	}
	if p := top.Child("List").Props[0]; p.Type != TypeInt64Array || len(p.Int64s) != 4 {
		t.Fatalf("List %+v", p)
	}
	if p := top.Child("Lead").Props; len(p) != 1 || p[0].Str != "x" {
		t.Fatalf("Lead %+v", p)
	}
	if p := top.Child("Lone").Props; len(p) != 1 || p[0].Type != TypeInt64 || p[0].Int != 42 {
		t.Fatalf("Lone %+v", p)
	}
	if p := top.Child("Key").Props; len(p) != 3 || p[2].Str != "L" {
		t.Fatalf("Key %+v", p)
	}
	if top.Child("Next").Pos != 15 {
		t.Fatalf("Next on line %d, want 15", top.Child("Next").Pos)
	}
}

// patch returns a copy of b with v written at off.
func patch32(b []byte, off int, v uint32) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint32(c[off:], v)
	return c
}

// TestInvalidBinary: each damaged file is refused with the expected error
// kind, message and offset.
func TestInvalidBinary(t *testing.T) {
	good := writeBinary(7400, []*Node{n("A", []float64{1, 2, 3}), n("B", int32(1))}, true)
	// Layout: header 27; A's record: 13 header + 1 name, property at 41:
	// type 'd' 41, count 42, encoding 46, stored length 50, data 54.
	const arrayAt = 41
	rawFile := writeBinary(7400, []*Node{n("A", []float64{1, 2, 3})}, false)
	deep := n("D")
	for range 80 {
		deep = n("D", deep)
	}
	wrongSize := bytes.Clone(good)
	binary.LittleEndian.PutUint32(wrongSize[arrayAt+1:], 4) // claims 4 elements, inflates to 3
	bigCount := patch32(good, arrayAt+1, 1<<28)             // 2 GiB claimed from a few bytes
	badZlib := bytes.Clone(good)
	badZlib[arrayAt+13+2] ^= 0xff // corrupt the deflate stream
	cases := []struct {
		name string
		data []byte
		opts Options
		kind error
		want string
	}{
		{"bad magic", append([]byte("Kaydara FBX Binarx  \x00\x1a\x00"), good[23:]...), Options{}, ErrFormat, "offset 0x0: bad magic"},
		{"short header", good[:20], Options{}, ErrFormat, "bad magic"},
		{"32-bit records labelled 7500", patch32(good, 23, 7500), Options{}, ErrFormat, "offset 0x1b: "},
		{"unsupported version", patch32(good, 23, 5000), Options{}, ErrUnsupported, "offset 0x17: version 5000 outside 6100–7700"},
		{"truncated node", good[:40], Options{}, ErrFormat, "offset 0x1b: node end offset 0x"},
		{"truncated header", good[:27+5], Options{}, ErrFormat, "offset 0x1b: no complete top-level node"},
		{"end offset past EOF", patch32(good, 27, 1<<20), Options{}, ErrFormat, "offset 0x1b: node end offset 0x100000 past end of file"},
		{"array size mismatch", wrongSize, Options{}, ErrFormat, "offset 0x29: zlib array of 4 elements: decompressed size 24, want 32"},
		{"array claims too much", bigCount, Options{}, ErrLimit, "offset 0x29: array of 2147483648 bytes exceeds the limit"},
		{"array over ratio", bigCount, Options{MaxArrayBytes: 1 << 40, MaxTotalArrayBytes: 1 << 40}, ErrFormat, "more than deflate can expand"},
		{"corrupt zlib", badZlib, Options{}, ErrFormat, "offset 0x29: zlib array"},
		{"raw size mismatch", patch32(rawFile, arrayAt+9, 16), Options{}, ErrFormat, "raw array of 3 elements stores 16 bytes, want 24"},
		{"unknown encoding", patch32(good, arrayAt+5, 2), Options{}, ErrUnsupported, "offset 0x29: array encoding 2"},
		{"unknown type", func() []byte { c := bytes.Clone(good); c[arrayAt] = 'x'; return c }(), Options{}, ErrFormat, "offset 0x29: unknown property type 0x78"},
		{"depth bomb", writeBinary(7500, []*Node{deep}, false), Options{}, ErrLimit, "node nesting deeper than 64"},
		{"node limit", good, Options{MaxNodes: 1}, ErrLimit, "more than 1 nodes"},
		{"total array limit", good, Options{MaxTotalArrayBytes: 8}, ErrLimit, "total limit"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.data, "x.fbx", tc.opts)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, tc.kind) {
				t.Fatalf("%v: not %v", err, tc.kind)
			}
			if !strings.HasPrefix(err.Error(), "fbx: x.fbx: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestInvalidASCII: errors carry the line.
func TestInvalidASCII(t *testing.T) {
	deep := strings.Repeat("A: {\n", 100) + strings.Repeat("}\n", 100)
	cases := []struct {
		name, src string
		kind      error
		want      string
	}{
		{"unterminated string", "A: 1\nB: \"abc\n", ErrFormat, "x.fbx:2: unterminated string"},
		{"missing brace", "A: {\n B: 1\n", ErrFormat, "x.fbx:3: missing '}'"},
		{"stray brace", "A: 1\n}\n", ErrFormat, "x.fbx:2: unexpected '}'"},
		{"no colon", "A: 1\nB 2\n", ErrFormat, "x.fbx:2: expected ':' after node name \"B\""},
		{"array count", "A: *3 {\n a: 1,2\n}\n", ErrFormat, "x.fbx:3: array declares 3 values but holds 2"},
		{"array count lie", "A: *999999999 { a: 1 }\n", ErrFormat, "exceeds the"},
		{"array not numeric", "A: *2 { a: 1,\"x\" }\n", ErrFormat, "non-numeric"},
		{"bad number", "A: 1.2.3\n", ErrFormat, "bad number \"1.2.3\""},
		{"depth bomb", deep, ErrLimit, "x.fbx:65: node nesting deeper than 64"},
		{"version", "FBXHeaderExtension: {\n FBXVersion: 8000\n}\n", ErrUnsupported, "x.fbx:2: version 8000"},
		{"empty", "", ErrFormat, "x.fbx:1: no FBXHeaderExtension or Objects node"},
		{"not fbx", "key: value\n", ErrFormat, "not an FBX file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.src), "x.fbx", Options{})
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q (kind ok %v), want %q", err, errors.Is(err, tc.kind), tc.want)
			}
		})
	}
}

// TestTruncationsNeverPanic cuts a real-shaped file at every length.
func TestTruncationsNeverPanic(t *testing.T) {
	for _, data := range [][]byte{
		writeBinary(7400, quadScene(7400, nil), true),
		writeBinary(7500, quadScene(7500, nil), false),
		writeASCII(7500, quadScene(7500, nil)),
	} {
		for i := range data {
			Decode(data[:i], "cut.fbx", Options{})
		}
	}
}
