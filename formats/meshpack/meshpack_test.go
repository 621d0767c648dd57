package meshpack

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

// tri is a one-triangle static entry with distinct values in every field.
func tri(name string) Entry {
	e := Entry{Name: name, Indices: []uint32{0, 1, 2}, Ranges: []Range{{0, 3}}}
	for i := 0; i < 3; i++ {
		f := float32(i)
		e.Static = append(e.Static, StaticVertex{
			Position: [3]float32{f, 2 * f, -f},
			Normal:   [3]float32{0, 0, 1},
			TexCoord: [2]float32{f / 4, 1 - f/4},
			Color:    [4]float32{0.25, 0.5, 0.75, 1},
			Material: [4]float32{3, 1, 1, 0},
		})
	}
	e.Bounds = Sphere{Center: [3]float32{1, 2, -1}, Radius: 2.5}
	return e
}

func rigTri(name string) Entry {
	e := Entry{Name: name, Indices: []uint32{0, 1, 2}}
	for i := 0; i < 3; i++ {
		f := float32(i)
		e.Rigged = append(e.Rigged, RiggedVertex{
			Position:    [3]float32{f, 0, 0},
			Normal:      [3]float32{0, 1, 0},
			TexCoord:    [2]float32{f, f},
			BoneIndices: [4]uint8{uint8(i), 7, 0, 0},
			BoneWeights: [4]float32{0.75, 0.25, 0, 0},
			ColorRole:   uint8(i + 1),
		})
	}
	e.Bounds = Sphere{Center: [3]float32{1, 0, 0}, Radius: 1}
	return e
}

func samplePack() *Pack {
	return &Pack{Family: Static, Entries: []Entry{tri("roman_home/intact"), tri("roman_home/damaged")}}
}

// Every field sits at the offset formats.md §5 gives it.
func TestStaticLayoutFrozen(t *testing.T) {
	raw, err := Encode(&Pack{Family: Static, Entries: []Entry{tri("a/b")}})
	if err != nil {
		t.Fatal(err)
	}
	u32 := func(o int) uint32 { return binary.LittleEndian.Uint32(raw[o:]) }
	f32 := func(o int) float32 { return math.Float32frombits(u32(o)) }
	if string(raw[:4]) != "SMPK" || u32(4) != 1 || u32(8) != 64 || u32(12) != 1 {
		t.Fatalf("header % x", raw[:16])
	}
	if u32(16) != 3 || u32(20) != 3 || u32(24) != 3 || u32(28) != 1 || f32(32) != 1 || f32(44) != 2.5 {
		t.Fatalf("entry header % x", raw[16:48])
	}
	if string(raw[48:51]) != "a/b" {
		t.Fatalf("name %q", raw[48:51])
	}
	v1 := 51 + 64 // vertex 1
	if f32(v1) != 1 || f32(v1+4) != 2 || f32(v1+8) != -1 || f32(v1+20) != 1 || f32(v1+24) != 0.25 ||
		f32(v1+28) != 0.75 || f32(v1+32) != 0.25 || f32(v1+44) != 1 || f32(v1+48) != 3 || f32(v1+56) != 1 {
		t.Fatalf("vertex 1 % x", raw[v1:v1+64])
	}
	idx := 51 + 3*64
	if u32(idx+4) != 1 || u32(idx+8) != 2 || u32(idx+12) != 0 || u32(idx+16) != 3 || len(raw) != idx+12+8 {
		t.Fatalf("indices/ranges % x (len %d)", raw[idx:], len(raw))
	}
}

func TestRiggedLayoutFrozen(t *testing.T) {
	raw, err := Encode(&Pack{Family: Rigged, Entries: []Entry{rigTri("h/0/3/x")}})
	if err != nil {
		t.Fatal(err)
	}
	if string(raw[:4]) != "RMPK" || binary.LittleEndian.Uint32(raw[8:]) != 56 {
		t.Fatalf("header % x", raw[:16])
	}
	v2 := 48 + 7 + 2*56
	if raw[v2+32] != 2 || raw[v2+33] != 7 || math.Float32frombits(binary.LittleEndian.Uint32(raw[v2+36:])) != 0.75 ||
		raw[v2+52] != 3 || !bytes.Equal(raw[v2+53:v2+56], []byte{0, 0, 0}) {
		t.Fatalf("vertex 2 % x", raw[v2:v2+56])
	}
	if len(raw) != 48+7+3*56+12 {
		t.Fatalf("size %d", len(raw))
	}
}

// Marshal → Decode gives the same pack; raw bytes decode too; the frame is
// deterministic.
func TestRoundTrip(t *testing.T) {
	for _, p := range []*Pack{samplePack(), {Family: Rigged, Entries: []Entry{rigTri("a"), rigTri("b")}}, {Family: Static}} {
		file, err := Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		if !IsCompressed(file) {
			t.Fatal("Marshal did not write a zstd frame")
		}
		again, _ := Marshal(p)
		if !bytes.Equal(file, again) {
			t.Error("Marshal is not deterministic")
		}
		got, err := Decode(file)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := Encode(p)
		fromRaw, err := Decode(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range []*Pack{got, fromRaw} {
			re, err := Encode(g)
			if err != nil || !bytes.Equal(re, raw) {
				t.Errorf("%s: decode → encode differs (%v)", p.Family, err)
			}
		}
		if p.Family == Static && len(p.Entries) > 0 && !reflect.DeepEqual(got.Entries[0].Static, p.Entries[0].Static) {
			t.Error("static vertices differ after round trip")
		}
	}
}

// Each malformed file fails with ErrFormat naming the byte offset.
func TestInvalidFiles(t *testing.T) {
	good, err := Encode(samplePack())
	if err != nil {
		t.Fatal(err)
	}
	// Offsets in good: entry 0 header 16, name 48 (17 B), vertices 65,
	// indices 65+192=257, ranges 269, entry 1 header 277.
	const idx0, rng0 = 257, 269
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	put := func(o int, v uint32) func([]byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint32(b[o:], v); return b }
	}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "offset 0x0: pack header needs 16 bytes"},
		{"bad-magic", mut(put(0, 0x4B504D58)), "offset 0x0: bad magic"},
		{"hmesh-magic", mut(func(b []byte) []byte { copy(b, "HMSH"); return b }), "bad magic"},
		{"version-2", mut(put(4, 2)), "offset 0x4: version 2"},
		{"vertex-size-56", mut(put(8, 56)), "offset 0x8: vertex_size 56 for static, want 64"},
		{"rigged-magic-static-size", mut(func(b []byte) []byte { copy(b, "RMPK"); return b }), "vertex_size 64 for rigged, want 56"},
		{"entry-count-huge", mut(put(12, 0xFFFFFFFF)), "offset 0xc: entry_count 4294967295"},
		{"vertex-count-huge", mut(put(20, 0x7FFFFFFF)), "vertices needs"},
		{"index-count-huge", mut(put(24, 0xFFFFFFF0)), "indices needs"},
		{"name-past-end", mut(put(16, 1<<30)), "offset 0x30: entry 0 name needs"},
		{"index-out-of-range", mut(put(idx0+8, 3)), "offset 0x109: entry \"roman_home/intact\": index 2 is 3, vertex_count is 3"},
		{"range-past-indices", mut(put(rng0+4, 4)), "offset 0x10d: entry \"roman_home/intact\": range 0 [0, +4) runs past index_count 3"},
		{"truncated", good[:len(good)-1], "needs"},
		{"trailing", append(bytes.Clone(good), 0), "1 trailing bytes"},
		{"bad-zstd", []byte{0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3}, "offset 0x0: zstd frame"},
	}
	for _, c := range cases {
		_, err := Decode(c.b)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "meshpack: ") {
			t.Errorf("%s: error %q, want ErrFormat containing %q", c.name, err, c.want)
		}
	}
	if _, err := Decode(good[:20]); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated entry header: %v, want io.ErrUnexpectedEOF", err)
	}
}

// Validate refuses what the byte checks cannot see.
func TestValidate(t *testing.T) {
	cases := map[string]func(p *Pack){
		"duplicate name":   func(p *Pack) { p.Entries[1].Name = p.Entries[0].Name },
		"empty name":       func(p *Pack) { p.Entries[0].Name = "" },
		"partial triangle": func(p *Pack) { p.Entries[0].Indices = p.Entries[0].Indices[:2] },
		"index range":      func(p *Pack) { p.Entries[0].Indices[1] = 9 },
		"range":            func(p *Pack) { p.Entries[0].Ranges[0].IndexCount = 6 },
		"nan":              func(p *Pack) { p.Entries[0].Static[1].Normal[0] = float32(math.NaN()) },
		"outside bounds":   func(p *Pack) { p.Entries[0].Bounds.Radius = 1 },
		"negative radius":  func(p *Pack) { p.Entries[0].Bounds.Radius = -1 },
		"wrong family":     func(p *Pack) { p.Entries[0].Rigged = []RiggedVertex{{}} },
		"unknown family":   func(p *Pack) { p.Family = 9 },
		// issue #19: decompressed packs with these passed validate
		"huge normal":     func(p *Pack) { p.Entries[0].Static[1].Normal = [3]float32{1, -1.7e38, 2.4e-38} },
		"negative colour": func(p *Pack) { p.Entries[0].Static[0].Color[2] = -2e38 },
		"colour above 1":  func(p *Pack) { p.Entries[0].Static[0].Color[3] = 1.5 },
		"short normal":    func(p *Pack) { p.Entries[0].Static[2].Normal = [3]float32{0, 0, 0.5} },
		"zero normal":     func(p *Pack) { p.Entries[0].Static[2].Normal = [3]float32{} },
	}
	for name, f := range cases {
		p := samplePack()
		f(p)
		if err := Validate(p); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
		if _, err := Marshal(p); err == nil {
			t.Errorf("%s: Marshal wrote it", name)
		}
	}
	if err := Validate(samplePack()); err != nil {
		t.Fatal(err)
	}
}

// A zstd bomb cannot decompress past the limit.
func TestDecompressLimit(t *testing.T) {
	big := &Pack{Family: Static, Entries: []Entry{tri("x")}}
	big.Entries[0].Name = strings.Repeat("n", 1<<20)
	file, err := Marshal(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeLimit(file, 1<<16); err == nil {
		t.Error("a 1 MiB pack decoded under a 64 KiB limit")
	}
	if _, err := DecodeLimit(file, 1<<22); err != nil {
		t.Errorf("under a 4 MiB limit: %v", err)
	}
}

// The independent checker accepts what Marshal writes (compressed via the
// zstd command, and raw).
func TestMeshcheckAcceptsPacks(t *testing.T) {
	script := testkit.Meshcheck(t)
	if _, err := exec.LookPath("zstd"); err != nil {
		testkit.Missing(t, "zstd command not found; meshcheck needs it for compressed packs")
	}
	dir := t.TempDir()
	file, _ := Marshal(samplePack())
	raw, _ := Encode(samplePack())
	rig, _ := Marshal(&Pack{Family: Rigged, Entries: []Entry{rigTri("a")}})
	paths := []string{filepath.Join(dir, "a.smpk"), filepath.Join(dir, "raw.smpk"), filepath.Join(dir, "r.rmpk")}
	for i, b := range [][]byte{file, raw, rig} {
		if err := os.WriteFile(paths[i], b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _ := exec.Command("python3", append([]string{script, "--json"}, paths...)...).Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(paths) {
		t.Fatalf("meshcheck output:\n%s", out)
	}
	for _, l := range lines {
		var r struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(l), &r) != nil || !r.OK {
			t.Errorf("meshcheck rejects: %s", l)
		}
	}
}
