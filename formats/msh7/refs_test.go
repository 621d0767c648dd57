package msh7

import (
	"encoding/binary"
	"testing"
)

// The width switches exactly at max − min = 255/256 and 65535/65536,
// whatever the base, and every ref decodes back.
func TestEncodeRefsWidthThresholds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		refs  []uint32
		code  int
		bytes int
	}{
		{"empty", nil, WidthU8, 0},
		{"single", []uint32{4000000000}, WidthU8, 1},
		{"span 255", []uint32{1000, 1255, 1100}, WidthU8, 3},
		{"span 256", []uint32{1000, 1256, 1100}, WidthU16, 6},
		{"span 255 from 0", []uint32{255, 0}, WidthU8, 2},
		{"span 256 from 0", []uint32{256, 0}, WidthU16, 4},
		{"span 65535", []uint32{70000, 70000 + 65535}, WidthU16, 4},
		{"span 65536", []uint32{70000, 70000 + 65536}, WidthU32, 8},
		{"span max", []uint32{0, 0xFFFFFFFF}, WidthU32, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := []byte{0xAA, 0xBB}
			out, base, code := EncodeRefs(prefix, tc.refs)
			if code != tc.code {
				t.Fatalf("width code %d, want %d", code, tc.code)
			}
			if len(out)-len(prefix) != tc.bytes {
				t.Fatalf("%d delta bytes, want %d", len(out)-len(prefix), tc.bytes)
			}
			if out[0] != 0xAA || out[1] != 0xBB {
				t.Fatal("EncodeRefs overwrote dst")
			}
			for i, r := range tc.refs {
				got, ok := DecodeRef(out, uint64(len(prefix)), code, i, base)
				if !ok || got != uint64(r) {
					t.Fatalf("ref %d decodes to %d (ok %v), want %d", i, got, ok, r)
				}
			}
			if len(tc.refs) > 0 {
				if _, ok := DecodeRef(out, uint64(len(prefix)), code, len(tc.refs), base); ok {
					t.Fatal("ref past the end decoded")
				}
			}
		})
	}
}

func TestWidthCode(t *testing.T) {
	for span, want := range map[uint32]int{0: 0, 255: 0, 256: 1, 65535: 1, 65536: 2, 0xFFFFFFFF: 2} {
		if got := WidthCode(span); got != want {
			t.Errorf("WidthCode(%d) = %d, want %d", span, got, want)
		}
	}
	for code, want := range map[int]int{0: 1, 1: 2, 2: 4, 3: 0} {
		if got := WidthBytes(code); got != want {
			t.Errorf("WidthBytes(%d) = %d, want %d", code, got, want)
		}
	}
}

// Deltas are little-endian and relative to the minimum.
func TestEncodeRefsBytes(t *testing.T) {
	out, base, code := EncodeRefs(nil, []uint32{0x10305, 0x10005, 0x10105})
	if base != 0x10005 || code != WidthU16 {
		t.Fatalf("base %#x code %d", base, code)
	}
	want := []byte{0x00, 0x03, 0x00, 0x00, 0x00, 0x01}
	if string(out) != string(want) {
		t.Fatalf("bytes % x, want % x", out, want)
	}
	if _, ok := DecodeRef(out, 0, 3, 0, 0); ok {
		t.Fatal("width code 3 decoded")
	}
	// base + delta beyond u32 is reported as a 64-bit value, not wrapped.
	b := binary.LittleEndian.AppendUint32(nil, 0xFFFFFFFF)
	if v, ok := DecodeRef(b, 0, WidthU32, 0, 2); !ok || v != 0x100000001 {
		t.Fatalf("overflowing ref = %#x", v)
	}
}

// Build picks each meshlet's widths from its own span: a meshlet that
// reaches back to the first positions after 300 (then 70000) others gets
// u16 (then u32) position deltas, and the files decode.
func TestBuildWidthChoice(t *testing.T) {
	for _, tc := range []struct {
		fill int
		code int
	}{{200, WidthU8}, {300, WidthU16}, {70000, WidthU32}} {
		in := stripInput(tc.fill)
		f := mustBuild(t, in)
		d := f.Meshlets[len(f.Meshlets)-1]
		if got := d.Width(ChanPosition); got != tc.code {
			t.Errorf("fill %d: last meshlet position width %d, want %d (base %d)", tc.fill, got, tc.code, d.PositionBase)
		}
		if d.PositionBase != 0 {
			t.Errorf("fill %d: base %d, want 0 (the minimum)", tc.fill, d.PositionBase)
		}
		b := mustEncode(t, f)
		if _, err := Decode(b); err != nil {
			t.Fatalf("fill %d: Decode: %v", tc.fill, err)
		}
	}
}

// stripInput is fill+3 distinct vertices in a zig-zag: meshlet 0 uses
// vertices 0, 1, 2, filler meshlets the next ones, and the last meshlet
// joins vertex 0 with the last two, so its position span is fill+2.
func stripInput(fill int) Input {
	in := Input{}
	n := fill + 3
	for i := range n {
		x := float32(i)
		in.Positions = append(in.Positions, [3]float32{x, float32(i % 2), 0})
		in.Normals = append(in.Normals, [3]float32{0, 0, 1})
	}
	tri := func(a, b, c uint32) InputMeshlet {
		return InputMeshlet{Vertices: []uint32{a, b, c}, Triangles: []uint8{0, 1, 2}}
	}
	in.Meshlets = append(in.Meshlets, tri(0, 1, 2))
	var cur InputMeshlet
	for v := uint32(3); v+2 < uint32(n); v += 3 {
		cur.Vertices = append(cur.Vertices, v, v+1, v+2)
		l := uint8(len(cur.Vertices) - 3)
		cur.Triangles = append(cur.Triangles, l, l+1, l+2)
		if len(cur.Vertices) == 96 {
			in.Meshlets, cur = append(in.Meshlets, cur), InputMeshlet{}
		}
	}
	if len(cur.Vertices) > 0 {
		in.Meshlets = append(in.Meshlets, cur)
	}
	last := uint32(n - 1)
	in.Meshlets = append(in.Meshlets, tri(0, last-1, last))
	return in
}
