package hmat

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

func sample() []Material {
	a := DefaultMaterial()
	b := DefaultMaterial()
	b.BaseColorFactor = [4]float32{0.8, 0.5, 0.25, 0.5}
	b.EmissiveFactor = [3]float32{1, 0.5, 0}
	b.Metallic, b.Roughness = 0, 0.75
	b.NormalScale, b.OcclusionStrength, b.AlphaCutoff = 0.5, 0.25, 0.3
	b.Flags = FlagDoubleSided | AlphaModeFlags(AlphaBlend)
	b.BaseColorTex = Hash("models/chair/image_0")
	b.NormalTex = Hash("models/chair/wood_normal")
	b.EmissiveTex = 0xfedcba9876543210
	return []Material{a, b}
}

func TestRoundTrip(t *testing.T) {
	for i, ms := range [][]Material{{}, {DefaultMaterial()}, sample()} {
		t.Run(strconv.Itoa(i), func(t *testing.T) { roundTrip(t, ms) })
	}
}

func roundTrip(t *testing.T, ms []Material) {
	{
		b, err := Encode(ms)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) != 16+96*len(ms) {
			t.Fatalf("size %d, want 16+96*%d", len(b), len(ms))
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 0 && len(got) == 0 {
			meshcheck(t, b)
			return
		}
		if !reflect.DeepEqual(got, ms) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, ms)
		}
		var w bytes.Buffer
		if err := Write(&w, ms); err != nil || !bytes.Equal(w.Bytes(), b) {
			t.Fatalf("Write differs (%v)", err)
		}
		if r, err := Read(bytes.NewReader(b), int64(len(b))); err != nil || !reflect.DeepEqual(r, ms) {
			t.Fatalf("Read: %v", err)
		}
		if _, err := Read(bytes.NewReader(b), int64(len(b)-1)); err == nil {
			t.Fatal("Read ignored the limit")
		}
		meshcheck(t, b)
	}
}

// Why: the byte layout is the engine's contract; pin every offset.
func TestFixtureBytes(t *testing.T) {
	b, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for i := 0; i < len(b); i += 16 {
		lines.WriteString(hex.EncodeToString(b[i:min(i+16, len(b))]) + "\n")
	}
	golden(t, "sample.hmat.hex", []byte(lines.String()))
	var dump bytes.Buffer
	if err := Dump(&dump, sample()); err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.golden.txt", dump.Bytes())

	le := binary.LittleEndian
	if string(b[:4]) != "HMAT" || le.Uint32(b[4:]) != 1 || le.Uint32(b[8:]) != 2 || le.Uint32(b[12:]) != 0 {
		t.Fatalf("header % x", b[:16])
	}
	m := b[16+96:] // second material
	f := func(at int) float32 { return math.Float32frombits(le.Uint32(m[at:])) }
	checks := []struct {
		at   int
		got  float32
		want float32
	}{{0, f(0), 0.8}, {12, f(12), 0.5}, {16, f(16), 1}, {28, f(28), 0}, {32, f(32), 0.75}, {36, f(36), 0.5}, {40, f(40), 0.25}, {44, f(44), 0.3}}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("@%d = %v, want %v", c.at, c.got, c.want)
		}
	}
	if got := le.Uint32(m[48:]); got != 0b101 {
		t.Errorf("flags %#x, want double-sided | blend<<1 = 0x5", got)
	}
	if got := le.Uint32(m[52:]); got != 0 {
		t.Errorf("pad %#x", got)
	}
	if le.Uint64(m[56:]) != Hash("models/chair/image_0") || le.Uint64(m[64:]) != 0 || le.Uint64(m[72:]) != Hash("models/chair/wood_normal") ||
		le.Uint64(m[80:]) != 0 || le.Uint64(m[88:]) != 0xfedcba9876543210 {
		t.Errorf("texture refs % x", m[56:96])
	}
}

func TestDecodeInvalid(t *testing.T) {
	good, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	put := func(b []byte, at int, v uint32) []byte { binary.LittleEndian.PutUint32(b[at:], v); return b }
	cases := []struct {
		name  string
		b     []byte
		want  string
		trunc bool
	}{
		{"empty", nil, "truncated header", true},
		{"bad magic", append([]byte("HMAX"), good[4:]...), "bad magic", false},
		{"short header", good[:10], "truncated header", true},
		{"version 2", put(slices.Clone(good), 4, 2), "unsupported version 2", false},
		{"truncated", good[:len(good)-1], "file is 207 bytes, want 208", true},
		{"trailing", append(slices.Clone(good), 0), "trailing bytes", false},
		{"huge count", put(slices.Clone(good), 8, 0xFFFFFFFF), "want 412316860336", true},
		{"alpha mode 3", put(slices.Clone(good), 16+48, 6), "offset 0x40: material 0: bad flags 0x6", false},
		{"unknown flag bit", put(slices.Clone(good), 16+96+48, 8), "material 1: bad flags 0x8", false},
		{"NaN factor", put(slices.Clone(good), 16+96+32, 0x7fc00000), "offset 0x90: material 1: non-finite factor", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms, err := Decode(c.b)
			if err == nil || ms != nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "hmat: ") {
				t.Errorf("error %q, want %q", err, c.want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Error("not ErrFormat")
			}
			if errors.Is(err, io.ErrUnexpectedEOF) != c.trunc {
				t.Errorf("ErrUnexpectedEOF = %v, want %v", !c.trunc, c.trunc)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	bad := []func(m *Material){
		func(m *Material) { m.Flags = AlphaModeFlags(3) },
		func(m *Material) { m.Flags = 1 << 3 },
		func(m *Material) { m.Metallic = float32(math.Inf(1)) },
		func(m *Material) { m.BaseColorFactor[3] = float32(math.NaN()) },
		func(m *Material) { m.AlphaCutoff = float32(math.Inf(-1)) },
	}
	for i, edit := range bad {
		ms := sample()
		edit(&ms[1])
		if err := Validate(ms); err == nil || !errors.Is(err, ErrFormat) {
			t.Errorf("case %d: Validate = %v", i, err)
		}
		if _, err := Encode(ms); err == nil {
			t.Errorf("case %d: Encode accepted it", i)
		}
	}
	for _, mode := range []uint8{AlphaOpaque, AlphaMask, AlphaBlend} {
		m := DefaultMaterial()
		m.Flags = AlphaModeFlags(mode) | FlagDoubleSided
		if err := Validate([]Material{m}); err != nil || m.AlphaMode() != mode || !m.DoubleSided() {
			t.Errorf("mode %d: %v", mode, err)
		}
	}
}

func TestDefaultMaterial(t *testing.T) {
	m := DefaultMaterial()
	want := Material{BaseColorFactor: [4]float32{1, 1, 1, 1}, Metallic: 1, Roughness: 1, NormalScale: 1, OcclusionStrength: 1, AlphaCutoff: 0.5}
	if m != want {
		t.Fatalf("%+v", m)
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file\ngot:\n%s", name, got)
	}
}

// meshcheck runs ../shared/tools/meshcheck.py (beside the repository root)
// on b, skipping when python3 or the script is missing.
func meshcheck(t *testing.T, b []byte) {
	t.Helper()
	script := testkit.Meshcheck(t)
	path := filepath.Join(t.TempDir(), "m.hmat")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", script, path).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ok") {
		t.Fatalf("meshcheck: %v\n%s", err, out)
	}
}

func FuzzDecode(f *testing.F) {
	for _, ms := range [][]Material{nil, sample()} {
		b, err := Encode(ms)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("not ErrFormat: %v", err)
			}
			return
		}
		b2, err := Encode(ms)
		if err != nil {
			t.Fatalf("Encode rejected decoded materials: %v", err)
		}
		ms2, err := Decode(b2)
		if err != nil || !reflect.DeepEqual(ms, ms2) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
