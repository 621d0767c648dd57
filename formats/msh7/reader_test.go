package msh7

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata fixtures")

func staticQuad() Input {
	in := skinnedQuad()
	in.Skin = nil
	return in
}

// hexDump writes b as lowercase hex, 16 bytes per line.
func hexDump(b []byte) string {
	var s strings.Builder
	for i := 0; i < len(b); i += 16 {
		s.WriteString(hex.EncodeToString(b[i:min(i+16, len(b))]))
		s.WriteByte('\n')
	}
	return s.String()
}

func readHex(t testing.TB, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.ReplaceAll(string(raw), "\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Frozen bytes: the quads encode to exactly the committed fixtures, and the
// fixtures decode and pass meshcheck. Refresh with -update only for an
// intended layout change.
func TestFixtures(t *testing.T) {
	for _, tc := range []struct {
		file string
		in   Input
	}{
		{"quad.msh7.hex", staticQuad()},
		{"skinned_quad.msh7.hex", skinnedQuad()},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b := mustEncode(t, mustBuild(t, tc.in))
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, []byte(hexDump(b)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := readHex(t, path)
			if !bytes.Equal(b, want) {
				t.Fatalf("encoding changed:\ngot\n%swant\n%s", hexDump(b), hexDump(want))
			}
			if _, err := Decode(want); err != nil {
				t.Fatalf("fixture does not decode: %v", err)
			}
		})
	}
}

// The static quad's bytes, checked by hand against formats.md §4.
func TestQuadBytesByHand(t *testing.T) {
	b := readHex(t, filepath.Join("testdata", "quad.msh7.hex"))
	le := binary.LittleEndian
	if !bytes.Equal(b[:4], []byte{0x37, 0x48, 0x53, 0x4D}) || le.Uint32(b[4:]) != 0 {
		t.Fatalf("magic/class % x", b[:8])
	}
	// 4 positions, 1 normal, 2 tangents (w ±1), 4 uv0, 1 colour (white),
	// no skin, 1 meshlet and bound, 4 position-ref bytes, 4 attributes ×
	// 4 channels of u8, 4 local vertices, 6 primitive indices.
	want := [14]uint64{4, 1, 2, 4, 1, 0, 0, 0, 1, 1, 4, 16, 4, 6}
	for i, w := range want {
		if got := le.Uint64(b[8+8*i:]); got != w {
			t.Errorf("%s = %d, want %d", countNames[i], got, w)
		}
	}
	descAt := 120 + 4*12 + 8 + 2*8 + 4*8 + 8
	d := b[descAt:]
	words := make([]uint32, 12)
	for i := range words {
		words[i] = le.Uint32(d[4*i:])
	}
	// counts: 4 vertices, 2 primitives, 4 positions, 4 attributes.
	if words[4] != 4|2<<8|4<<16|4<<24 || words[6] != NoSkin || words[11] != 0 {
		t.Errorf("desc words %#x", words)
	}
	// Normal half (0, 0, 1, 0) = 0000 0000 003c 0000.
	if got := hex.EncodeToString(b[168:176]); got != "00000000003c0000" {
		t.Errorf("normal bytes %s", got)
	}
	// Bounds: sphere around the AABB centre (0.5, 0.5, 0), cone +Z.
	bd := b[descAt+48:]
	if c := [3]float32{math.Float32frombits(le.Uint32(bd)), math.Float32frombits(le.Uint32(bd[4:])), math.Float32frombits(le.Uint32(bd[8:]))}; c != [3]float32{0.5, 0.5, 0} {
		t.Errorf("centre %v", c)
	}
	if cone := le.Uint32(bd[16:]); cone&0xFFFF != 0x8080 || cone>>24 != 1 {
		t.Errorf("cone %#08x, want +Z axis 0x8080 enabled", cone)
	}
	// Primitive indices are the file's last 6 bytes.
	if got := b[len(b)-6:]; !bytes.Equal(got, []byte{0, 1, 2, 0, 2, 3}) {
		t.Errorf("primitive indices % x", got)
	}
}

func TestOlderMagicsNeedRecook(t *testing.T) {
	for _, m := range []string{"5HSM", "6HSM"} {
		b := append([]byte(m), make([]byte, 116)...)
		_, err := Decode(b)
		if err == nil || !strings.Contains(err.Error(), "recook") || !errors.Is(err, ErrRecook) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: %v", m, err)
		}
		if !strings.Contains(err.Error(), "MSH"+m[:1]) {
			t.Errorf("%s: error does not name the version: %v", m, err)
		}
	}
}

// mutate returns a copy of b changed by fn.
func mutate(b []byte, fn func(b []byte) []byte) []byte {
	return fn(append([]byte(nil), b...))
}

func TestDecodeInvalid(t *testing.T) {
	good := mustEncode(t, mustBuild(t, staticQuad()))
	skinned := mustEncode(t, mustBuild(t, skinnedQuad()))
	f, _ := Decode(good)
	lay, _ := layoutOf(f.fileCounts())
	sf, _ := Decode(skinned)
	slay, _ := layoutOf(sf.fileCounts())
	le := binary.LittleEndian
	desc := int(lay.descs)
	bnd := int(lay.bounds)
	put32 := func(at int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint32(b[at:], v); return b }
	}
	put64 := func(at int, v uint64) func([]byte) []byte {
		return func(b []byte) []byte { le.PutUint64(b[at:], v); return b }
	}
	for _, tc := range []struct {
		name string
		b    []byte
		off  int64
		msg  string
	}{
		{"empty", nil, 0, "truncated header"},
		{"short header", good[:100], 100, "truncated header"},
		{"bad magic", mutate(good, put32(0, 0x12345678)), 0, "bad magic"},
		{"MSH6", mutate(good, put32(0, MagicMSH6)), 0, "MSH6 payload: older payload version: recook the source"},
		{"class 2", mutate(good, put32(4, 2)), 4, "meshClass 2"},
		{"static with skin", mutate(good, put64(8+8*cSkin, 1)), 8 + 8*cSkin, "static mesh with skinCount 1"},
		{"bound count", mutate(good, put64(8+8*cMeshletBounds, 2)), 8 + 8*cMeshletBounds, "meshletBoundCount 2 != meshletCount 1"},
		{"huge count", mutate(good, put64(8, 1<<62)), 120, "positionCount 4611686018427387904 × 12 B exceeds"},
		{"truncated stream", good[:len(good)-1], int64(lay.primitives), "meshletPrimitiveIndexCount 6 × 1 B exceeds the 5 bytes left"},
		{"trailing byte", append(append([]byte(nil), good...), 0), int64(len(good)), "1 trailing bytes"},
		{"zero vertices", mutate(good, put32(desc+16, 0|2<<8|4<<16|4<<24)), int64(desc + 16), "counts vertices 0"},
		{"127 primitives", mutate(good, put32(desc+16, 4|127<<8|4<<16|4<<24)), int64(desc + 16), "primitives 127"},
		{"width code 3", mutate(good, put32(desc+44, 3<<4)), int64(desc + 44), "normal width code 3"},
		{"encoding high bits", mutate(good, put32(desc+44, 1<<12)), int64(desc + 44), "bits above bit 11"},
		{"skin base in static", mutate(good, put32(desc+24, 0)), int64(desc + 24), "static mesh with skin base 0"},
		{"offset gap", mutate(good, put32(desc+0, 1)), int64(desc), "localVertexOffset 1, want 0 (contiguous)"},
		{"position base", mutate(good, put32(desc+20, 1)), int64(lay.posRefs + 3), "position ref 3 decodes to 4, not < position count 4"},
		{"tangent delta", mutate(good, func(b []byte) []byte { b[lay.attrRefs+4] = 9; return b }), int64(lay.attrRefs + 4), "tangent ref 0 decodes to 9"},
		{"local vertex ref", mutate(good, put32(int(lay.localRefs)+4, 4)), int64(lay.localRefs + 4), "local vertex 1 refs position 4"},
		{"primitive index", mutate(good, func(b []byte) []byte { b[lay.primitives+5] = 4; return b }), int64(lay.primitives + 5), "primitive index 4 not < vertex count 4"},
		{"NaN sphere", mutate(good, put32(bnd, 0x7FC00000)), int64(bnd), "not finite with radius >= 0"},
		{"negative radius", mutate(good, put32(bnd+12, math.Float32bits(-1))), int64(bnd), "not finite with radius >= 0"},
		{"cone flag bit 1", mutate(good, put32(bnd+16, 0x03408080)), int64(bnd + 16), "flags other than the enabled bit"},
		{"cone not enabled", mutate(good, put32(bnd+16, 0x00408080)), int64(bnd + 16), "flags other than the enabled bit"},
		{"cone zero cutoff", mutate(good, put32(bnd+16, 0x01008080)), int64(bnd + 16), "enabled cone with zero cutoff"},
		{"normal not unit", mutate(good, func(b []byte) []byte { le.PutUint16(b[lay.normals+4:], 0x3A00); return b }), int64(lay.normals), "normal 0 is not unit length"},
		{"tangent not unit", mutate(good, func(b []byte) []byte { le.PutUint16(b[lay.tangents+8:], 0); return b }), int64(lay.tangents + 8), "tangent 1 is not unit length"},
		{"NaN position", mutate(good, put32(int(lay.positions)+12, 0x7F800001)), int64(lay.positions + 12), "position 1 is not finite"},
		{"joint pad", mutate(skinned, put32(int(slay.joints)+108, 1)), int64(slay.joints + 108), "joint 0: pad 0x1, want 0"},
		{"joint parent", mutate(skinned, put32(int(slay.joints)+104, 5)), int64(slay.joints + 104), "joint 0: parent 5 must be -1 or another joint"},
		{"joint NaN", mutate(skinned, put32(int(slay.joints)+64, 0x7FC00000)), int64(slay.joints), "joint 0: not finite"},
		{"inverse bind NaN", mutate(skinned, put32(int(slay.inverseBinds)+64+60, 0xFF800000)), int64(slay.inverseBinds + 64), "inverse bind 1: not finite"},
		{"skin joint range", mutate(skinned, put32(int(slay.skin), 7)), int64(slay.skin), "skin 0: joint 7 (weight 1) not < joint count 2"},
		{"skinned without skin base", mutate(skinned, put32(int(slay.descs)+24, NoSkin)), int64(slay.descs + 24), "skinned mesh without skin base"},
		{"inverse bind count", mutate(skinned, func(b []byte) []byte {
			le.PutUint64(b[8+8*cInverseBinds:], 1)
			return append(b[:slay.inverseBinds+64], b[slay.inverseBinds+128:]...)
		}), 64, "inverseBindMatrixCount 1 != skeletonJointCount 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.b)
			if err == nil {
				t.Fatal("Decode accepted it")
			}
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("not ErrFormat: %v", err)
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset != tc.off {
				t.Errorf("offset: %v, want %#x", err, tc.off)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "msh7: offset ") {
				t.Errorf("error %q, want it to contain %q", err, tc.msg)
			}
		})
	}
	// A truncated header wraps io.ErrUnexpectedEOF.
	if _, err := Decode(good[:50]); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated header: %v", err)
	}
}

// Encode refuses what Decode would refuse.
func TestEncodeValidates(t *testing.T) {
	f := mustBuild(t, staticQuad())
	f.Bounds[0].Radius = float32(math.Inf(1))
	if _, err := Encode(f); err == nil || !errors.Is(err, ErrFormat) {
		t.Fatalf("Encode: %v", err)
	}
	f = mustBuild(t, staticQuad())
	f.Primitives = append(f.Primitives, 0, 0, 0)
	_, err := Encode(f)
	if err == nil || !strings.Contains(err.Error(), "primitive indices: meshlets use 6, stream holds 9") {
		t.Fatalf("Encode with extra primitives: %v", err)
	}
}
