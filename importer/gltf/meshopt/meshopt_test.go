package meshopt

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
)

// nodeDir is the Node project of independent references (npm
// meshoptimizer, pinned), installed by .ci/run.
func nodeDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(testkit.RepoRoot(t), "importer", "gltf", "testdata", "node")
	unavailable := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("meshoptimizer cross-check cannot run in CI: %s (install with `npm ci --prefix importer/gltf/testdata/node`)", why)
		}
		t.Skipf("meshoptimizer cross-check skipped: %s (install with `npm ci --prefix importer/gltf/testdata/node`)", why)
	}
	if _, err := exec.LookPath("node"); err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "meshoptimizer", "package.json")); err != nil {
		unavailable("node_modules/meshoptimizer is missing")
	}
	return dir
}

type refCase struct {
	Mode, Filter  string
	Count, Stride int
	Enc, Ref      string
}

// Every stream meshoptimizer's own encoder writes (both vertex codec
// versions at every level, the 16-bit and float channel modes, every
// filter, triangle and index codecs at both widths) decodes to what
// meshoptimizer's decoder makes of it: byte for byte, or within one unit
// in the last place for the octahedral, quaternion and colour filters,
// which the specification defines to 1 ULP.
func TestDecodeMatchesMeshoptimizer(t *testing.T) {
	dir := nodeDir(t)
	cmd := exec.Command("node", "codecs.mjs")
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "node codecs.mjs")
	seen := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var c refCase
		require.NoError(t, json.Unmarshal(sc.Bytes(), &c))
		enc, _ := base64.StdEncoding.DecodeString(c.Enc)
		ref, _ := base64.StdEncoding.DecodeString(c.Ref)
		kind := c.Mode + "/" + c.Filter
		if c.Mode == ModeAttributes {
			kind += []string{"/v0", "/v1"}[enc[0]&1]
		}
		seen[kind]++
		got, err := Decode(c.Mode, c.Filter, c.Count, c.Stride, enc, 1<<30)
		require.NoError(t, err, "%s count %d stride %d", kind, c.Count, c.Stride)
		require.Len(t, got, len(ref))
		switch c.Filter {
		case FilterOctahedral, FilterQuaternion, FilterColor:
			w := c.Stride / 4
			for i := 0; i < len(ref); i += w {
				a, b := lane(got[i:], w, c.Filter == FilterColor), lane(ref[i:], w, c.Filter == FilterColor)
				require.LessOrEqual(t, abs(a-b), 1, "%s element %d component %d: %d, meshoptimizer %d", kind, i/c.Stride, (i%c.Stride)/w, a, b)
			}
		default:
			require.True(t, bytes.Equal(got, ref), "%s count %d stride %d differs from meshoptimizer", kind, c.Count, c.Stride)
		}
	}
	require.NoError(t, sc.Err())
	t.Logf("cases: %v", seen)
	for _, k := range []string{"ATTRIBUTES/NONE/v0", "ATTRIBUTES/NONE/v1", "ATTRIBUTES/OCTAHEDRAL/v0", "ATTRIBUTES/QUATERNION/v0",
		"ATTRIBUTES/EXPONENTIAL/v0", "ATTRIBUTES/COLOR/v1", "TRIANGLES/NONE", "INDICES/NONE"} {
		assert.Positive(t, seen[k], "no %s case", k)
	}
}

// lane reads one component of w bytes (signed, unless unsigned).
func lane(b []byte, w int, unsigned bool) int {
	if w == 1 {
		if unsigned {
			return int(b[0])
		}
		return int(int8(b[0]))
	}
	v := binary.LittleEndian.Uint16(b)
	if unsigned {
		return int(v)
	}
	return int(int16(v))
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// Hand-made streams pin the codecs without Node: the spec's 4-bit sentinel
// example, an index sequence, and a triangle that uses every path of
// the 0xfe code.
func TestDecodeByHand(t *testing.T) {
	// 16 elements of 4 bytes: byte 0 uses the spec's 4-bit example, the
	// other bytes are all-zero groups. Baseline 0.
	group := []byte{0x17, 0x5f, 0xf0, 0xbc, 0x77, 0xa9, 0x21, 0x00, 0x34, 0xb5}
	src := []byte{0xa0, 0x02} // header; byte 0: one group in 4-bit mode
	src = append(src, group...)
	src = append(src, 0x00, 0x00, 0x00) // bytes 1-3: zero groups
	src = append(src, make([]byte, 32)...)
	dst := make([]byte, 16*4)
	require.NoError(t, DecodeVertexBuffer(dst, 16, 4, src))
	want := []int{-1, -4, -3, 26, -91, 0, -6, 6, -4, -4, 5, -5, 1, -1, 0, 0}
	acc := 0
	for i, d := range want {
		acc += d
		assert.Equal(t, byte(acc), dst[4*i], "element %d", i)
		assert.Equal(t, []byte{0, 0, 0}, dst[4*i+1:4*i+4])
	}

	// index sequence: +5 on baseline 0, +2 on baseline 1, -1 on baseline 0
	seq := []byte{0xd1, 5 << 2, 2<<2 | 1, 1 << 1 /* (-1 zigzag = 1) << 1 | baseline 0 */, 0, 0, 0, 0}
	out := make([]byte, 3*4)
	require.NoError(t, DecodeIndexSequence(out, 3, 4, seq))
	assert.Equal(t, []uint32{5, 2, 4}, u32s(out))

	// one triangle 0xfe with extra byte 0x00: next reset, a b c = 0 1 2
	tri := append([]byte{0xe1, 0xfe, 0x00}, make([]byte, 16)...)
	out = make([]byte, 3*2)
	require.NoError(t, DecodeIndexBuffer(out, 3, 2, tri))
	assert.Equal(t, []byte{0, 0, 1, 0, 2, 0}, out)
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// Malformed streams and parameters are refused with ErrInvalid.
func TestDecodeRefuses(t *testing.T) {
	attr := append([]byte{0xa0, 0x00}, make([]byte, 32)...) // 1..16 elements of 4 bytes, all zero... header for one byte only
	cases := []struct {
		name          string
		mode, filter  string
		count, stride int
		src           []byte
		want          string
	}{
		{"unknown mode", "FOO", "", 1, 4, attr, "unknown mode"},
		{"unknown filter", ModeAttributes, "BLUR", 1, 4, attr, "unknown filter"},
		{"stride", ModeAttributes, "", 1, 6, attr, "multiple of 4"},
		{"oct stride", ModeAttributes, FilterOctahedral, 1, 12, attr, "byteStride 4 or 8"},
		{"quat stride", ModeAttributes, FilterQuaternion, 1, 4, attr, "byteStride 8"},
		{"index filter", ModeTriangles, FilterOctahedral, 3, 2, attr, "only for ATTRIBUTES"},
		{"triangle count", ModeTriangles, "", 4, 2, attr, "multiple of 3"},
		{"index stride", ModeIndices, "", 1, 1, attr, "want 2 or 4"},
		{"header", ModeAttributes, "", 1, 4, append([]byte{0xa5}, attr[1:]...), "header"},
		{"short tail", ModeAttributes, "", 1, 4, attr[:20], "shorter than its"},
		{"data left over", ModeAttributes, "", 1, 4, append([]byte{0xa0, 0, 0, 0, 0, 9}, make([]byte, 32)...), "left unread"},
		{"data missing", ModeAttributes, "", 1, 4, append([]byte{0xa0, 0, 0}, make([]byte, 32)...), "past the data"},
		{"expansion", ModeAttributes, "", 1 << 20, 256, attr, "cannot come from"},
		{"limit", ModeIndices, "", 4, 4, []byte{0xd1, 0, 0, 0, 0, 0, 0, 0, 0}, "limit of 8"},
		{"triangle header", ModeTriangles, "", 3, 2, append([]byte{0xe0, 0}, make([]byte, 16)...), "want 0xe1"},
		{"triangle table", ModeTriangles, "", 3, 2, append([]byte{0xe1, 0}, append(make([]byte, 15), 1)...), "last two bytes"},
		{"triangle nibble", ModeTriangles, "", 3, 2, append([]byte{0xe1, 0}, append([]byte{0xf0}, make([]byte, 15)...)...), "nibble 0xf"},
		{"triangle extra", ModeTriangles, "", 3, 2, append([]byte{0xe1, 0x00, 7}, make([]byte, 16)...), "unread"},
		{"varint", ModeIndices, "", 1, 4, []byte{0xd1, 0x80, 0x80, 0, 0, 0, 0}, "varint past the data"},
		{"long varint", ModeIndices, "", 1, 4, []byte{0xd1, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0, 0, 0, 0}, "longer than 5"},
		{"v1 channel", ModeAttributes, "", 1, 4, append([]byte{0xa1, 0, 0}, append(make([]byte, 20), 0, 0, 0, 0, 3)...), "channel mode"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			limit := 1 << 20
			if c.name == "limit" {
				limit = 8
			}
			_, err := Decode(c.mode, c.filter, c.count, c.stride, c.src, limit)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalid))
			assert.Contains(t, err.Error(), c.want)
		})
	}
}

// FuzzDecode: no input makes any mode or filter panic, an accepted stream
// fills exactly count × stride bytes, and decoding is deterministic.
func FuzzDecode(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint16(16), uint8(4), append([]byte{0xa0, 0x00, 0, 0, 0}, make([]byte, 32)...))
	f.Add(uint8(0), uint8(2), uint16(1), uint8(8), append([]byte{0xa1, 0xaa, 0, 0}, make([]byte, 24)...))
	f.Add(uint8(1), uint8(0), uint16(3), uint8(2), append([]byte{0xe1, 0xfe, 0x00}, make([]byte, 16)...))
	f.Add(uint8(2), uint8(0), uint16(3), uint8(4), []byte{0xd1, 5 << 2, 2<<2 | 1, 2, 0, 0, 0, 0})
	modes := []string{ModeAttributes, ModeTriangles, ModeIndices}
	filters := []string{FilterNone, FilterOctahedral, FilterQuaternion, FilterExponential, FilterColor}
	f.Fuzz(func(t *testing.T, mode, filter uint8, count uint16, stride uint8, src []byte) {
		m, fl := modes[int(mode)%len(modes)], filters[int(filter)%len(filters)]
		out, err := Decode(m, fl, int(count), int(stride), src, 1<<22)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		if len(out) != int(count)*int(stride) {
			t.Fatalf("%d bytes for %d × %d", len(out), count, stride)
		}
		again, _ := Decode(m, fl, int(count), int(stride), src, 1<<22)
		if !bytes.Equal(out, again) {
			t.Fatal("decoding is not deterministic")
		}
	})
}
