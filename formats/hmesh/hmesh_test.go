package hmesh

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
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
		t.Errorf("%s differs from the golden file (run go test -update if the change is intended)\ngot:\n%s", name, got)
	}
}

func mustEncode(t testing.TB, f *File) []byte {
	t.Helper()
	b, err := Encode(f)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b
}

// hexLines formats b as 16 bytes per line, for a readable golden file.
func hexLines(b []byte) []byte {
	var s strings.Builder
	for i := 0; i < len(b); i += 16 {
		s.WriteString(hex.EncodeToString(b[i:min(i+16, len(b))]))
		s.WriteByte('\n')
	}
	return []byte(s.String())
}

// Why: the byte layout is the contract with the engine; pin it exactly.
func TestTriangleFixtureBytes(t *testing.T) {
	b := mustEncode(t, triFile())
	golden(t, "tri.hmesh.hex", hexLines(b))

	// The chunk table, worked out by hand from formats.md §1: 10 chunks, so
	// the first payload is at alignUp(32 + 240, 16) = 272.
	want := []struct {
		id           string
		offset, size uint64
	}{
		{"DESC", 272, 32}, {"BNDS", 304, 40}, {"VTXS", 352, 84}, {"IDXS", 448, 6},
		{"MLET", 464, 16}, {"MLVR", 480, 12}, {"MLTR", 496, 3}, {"MLBN", 512, 32},
		{"MTRL", 544, 8}, {"SUBM", 560, 64},
	}
	if len(b) != 624 {
		t.Fatalf("file is %d bytes, want 624", len(b))
	}
	if string(b[:4]) != "HMSH" || binary.LittleEndian.Uint32(b[4:]) != 2 || binary.LittleEndian.Uint32(b[8:]) != 10 {
		t.Fatalf("header % x", b[:12])
	}
	if !bytes.Equal(b[12:32], make([]byte, 20)) {
		t.Errorf("header flags/reserved not zero: % x", b[12:32])
	}
	for i, w := range want {
		e := b[32+24*i:]
		if string(e[:4]) != w.id || binary.LittleEndian.Uint32(e[4:]) != 0 ||
			binary.LittleEndian.Uint64(e[8:]) != w.offset || binary.LittleEndian.Uint64(e[16:]) != w.size {
			t.Errorf("entry %d = %q flags %d off %d size %d, want %+v", i, e[:4], binary.LittleEndian.Uint32(e[4:]),
				binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:]), w)
		}
	}
	// Padding is zero.
	for _, gap := range [][2]int{{436, 448}, {454, 464}, {492, 496}, {499, 512}, {344, 352}} {
		if !bytes.Equal(b[gap[0]:gap[1]], make([]byte, gap[1]-gap[0])) {
			t.Errorf("padding [%d, %d) not zero", gap[0], gap[1])
		}
	}
	// A few fields at their documented offsets.
	desc := b[272:]
	if binary.LittleEndian.Uint32(desc) != 3 || binary.LittleEndian.Uint32(desc[4:]) != 3 ||
		binary.LittleEndian.Uint16(desc[20:]) != 28 || desc[22] != 2 || desc[23] != 1 ||
		binary.LittleEndian.Uint32(desc[24:]) != 64 || binary.LittleEndian.Uint32(desc[28:]) != 124 {
		t.Errorf("DESC % x", desc[:32])
	}
	if got := b[448:454]; !bytes.Equal(got, []byte{0, 0, 1, 0, 2, 0}) {
		t.Errorf("IDXS % x, want u16 0 1 2", got)
	}
	// Vertex 1 position x = 1.0f at VTXS+28; its normal (+Z) is (0, 0).
	if got := b[352+28 : 352+32]; !bytes.Equal(got, []byte{0, 0, 0x80, 0x3f}) {
		t.Errorf("vertex 1 x % x", got)
	}
	if got := b[352+40 : 352+44]; !bytes.Equal(got, []byte{0, 0, 0, 0}) {
		t.Errorf("vertex 1 normal % x, want +Z = 0 0", got)
	}
	if got := binary.LittleEndian.Uint64(b[544:]); got != 0x0123456789abcdef {
		t.Errorf("MTRL %#x", got)
	}

	decoded, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	var dump bytes.Buffer
	if err := Dump(&dump, decoded); err != nil {
		t.Fatal(err)
	}
	golden(t, "tri.golden.txt", dump.Bytes())
	meshcheck(t, "tri.hmesh", b)
}

func TestTriangleFixtureDecodes(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "tri.hmesh.hex"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.ReplaceAll(string(raw), "\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	want := triFile()
	want.SyncDesc()
	if !reflect.DeepEqual(f, want) {
		t.Errorf("decoded fixture differs:\n got %+v\nwant %+v", f, want)
	}
}

func TestRoundTrip(t *testing.T) {
	big := build(t, gridMesh(300, 220, 3)) // 66000 vertices, triangles on the last rows only
	if big.Desc.IndexWidth != 4 {
		t.Fatalf("grid has %d vertices but index width %d", len(big.Vertices), big.Desc.IndexWidth)
	}
	for name, f := range map[string]*File{
		"tri":    triFile(),
		"sphere": build(t, sphereMesh(9, 16, 2, 64, 124)),
		"rich":   richFile(t),
		"u32":    big,
	} {
		t.Run(name, func(t *testing.T) {
			b := mustEncode(t, f)
			g, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			want := *f
			want.SyncDesc()
			if !reflect.DeepEqual(g, &want) {
				t.Fatalf("round trip differs")
			}
			if b2 := mustEncode(t, g); !bytes.Equal(b, b2) {
				t.Fatalf("re-encoding is not byte-identical")
			}
			var buf bytes.Buffer
			if err := Write(&buf, f); err != nil || !bytes.Equal(buf.Bytes(), b) {
				t.Fatalf("Write differs from Encode (err %v)", err)
			}
			r, err := Read(bytes.NewReader(b), int64(len(b)))
			if err != nil || !reflect.DeepEqual(r, g) {
				t.Fatalf("Read: %v", err)
			}
			if _, err := Read(bytes.NewReader(b), int64(len(b)-1)); err == nil || !strings.Contains(err.Error(), "limit") {
				t.Fatalf("Read past limit: %v", err)
			}
			meshcheck(t, name+".hmesh", b)
		})
	}
}

// gridMesh is a flat w×h vertex grid in the XZ plane, facing +Y, with
// triangles over its last rows rows of vertices.
func gridMesh(w, h, rows int) testMesh {
	m := testMesh{maxV: 64, maxT: 124, materials: []uint64{7}, slots: []uint32{0}}
	for z := range h {
		for x := range w {
			m.pos = append(m.pos, [3]float32{float32(x), 0, float32(z)})
		}
	}
	var idx []uint32
	for z := h - rows; z < h-1; z++ {
		for x := range w - 1 {
			a := uint32(z*w + x)
			b, c, d := a+1, a+uint32(w), a+uint32(w)+1
			idx = append(idx, a, c, b, b, c, d)
		}
	}
	m.subs = [][]uint32{idx}
	return m
}

// Why: a reader must not depend on chunk order and must skip chunks it does
// not know, keeping them for the caller.
func TestDecodeReorderedAndUnknownChunks(t *testing.T) {
	f := richFile(t)
	b := mustEncode(t, f)
	n := int(binary.LittleEndian.Uint32(b[8:]))
	// Rebuild with the table reversed and an unknown chunk "ZZZZ" added,
	// payloads laid out in the new order.
	var cs []rawChunk
	for i := n - 1; i >= 0; i-- {
		e := b[32+24*i:]
		off, size := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		cs = append(cs, rawChunk{binary.LittleEndian.Uint32(e), 0, b[off : off+size]})
		if i == n/2 {
			cs = append(cs, rawChunk{binary.LittleEndian.Uint32([]byte("ZZZZ")), 5, []byte("hello")})
		}
	}
	out := rebuild(cs)
	g, err := Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Unknown) != 1 || g.Unknown[0].ID.String() != "ZZZZ" || g.Unknown[0].Flags != 5 || string(g.Unknown[0].Data) != "hello" {
		t.Fatalf("unknown chunks: %+v", g.Unknown)
	}
	g.Unknown = nil
	want := *f
	want.SyncDesc()
	if !reflect.DeepEqual(g, &want) {
		t.Fatal("reordered file decodes differently")
	}
	meshcheck(t, "reordered.hmesh", out)
}

type rawChunk struct {
	id, flags uint32
	data      []byte
}

// rebuild lays out chunks in the given order like the writer does.
func rebuild(cs []rawChunk) []byte {
	pos := alignUp(uint64(HeaderSize + ChunkEntrySize*len(cs)))
	offs := make([]uint64, len(cs))
	for i, c := range cs {
		offs[i] = pos
		pos = alignUp(pos + uint64(len(c.data)))
	}
	b := appendU32s(nil, Magic, Version, uint32(len(cs)), 0)
	b = append(b, make([]byte, 16)...)
	for i, c := range cs {
		b = appendU32s(b, c.id, c.flags)
		b = binary.LittleEndian.AppendUint64(b, offs[i])
		b = binary.LittleEndian.AppendUint64(b, uint64(len(c.data)))
	}
	for i, c := range cs {
		b = append(b, make([]byte, offs[i]-uint64(len(b)))...)
		b = append(b, c.data...)
	}
	return b
}

func TestEncodeFillsDescAndDoesNotModify(t *testing.T) {
	f := triFile() // Desc counts left zero on purpose
	before := f.Desc
	b := mustEncode(t, f)
	if f.Desc != before {
		t.Fatal("Encode modified f.Desc")
	}
	g, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if g.Desc.VertexCount != 3 || g.Desc.IndexCount != 3 || g.Desc.VertexStride != 28 || g.Desc.IndexWidth != 2 {
		t.Fatalf("desc %v", g.Desc)
	}
	// Validate on the caller's File reports the stale DESC.
	if err := Validate(f); err == nil || !strings.Contains(err.Error(), "SyncDesc") {
		t.Fatalf("Validate with stale desc: %v", err)
	}
}

// Why: Validate is the writer's gate; each rule must reject its violation.
func TestValidateRejects(t *testing.T) {
	cases := []struct {
		name string
		edit func(f *File)
		want string
	}{
		{"non-finite position", func(f *File) { f.Vertices[0].Position[0] = float32(posInf()) }, "not finite"},
		{"vertex outside BNDS", func(f *File) { f.Bounds.Max[0] = 0.5 }, "outside BNDS"},
		{"vertex outside submesh bounds", func(f *File) { f.Submeshes[0].Bounds.Radius = 0.1 }, "outside its bounds"},
		{"vertex outside meshlet sphere", func(f *File) { f.MeshletBounds[0].Radius = 0.5 }, "outside its bounding sphere"},
		{"cone culls front face", func(f *File) { f.MeshletBounds[0].ConeAxis = [3]float32{0, 0, -1} }, "culls triangle"},
		{"cone axis not unit", func(f *File) { f.MeshletBounds[0].ConeAxis = [3]float32{0, 0, 2} }, "axis length"},
		{"negative cutoff", func(f *File) { f.MeshletBounds[0].ConeCutoff = -0.5 }, "culls triangle"},
		{"meshlet limits", func(f *File) { f.Desc.MeshletMaxVerts = 2 }, "meshletMaxVerts 2"},
		{"meshlet over limit", func(f *File) { f.Desc.MeshletMaxTris = 1; f.Meshlets[0].TriangleCount = 2 }, "2 triangles, want 1..1"},
		{"meshlet coverage", func(f *File) { f.Indices[2] = 1 }, "do not hold exactly"},
		{"base vertex", func(f *File) { f.Submeshes[0].BaseVertex = 1 }, "baseVertex"},
		{"skin without skel", func(f *File) { f.Skin = make([]SkinVertex, 3) }, "SKIN without SKEL"},
		{"skin length", func(f *File) { f.Skin = make([]SkinVertex, 2) }, "2 skin vertices"},
		{"skin weights", func(f *File) {
			f.Joints = []Joint{{Parent: -1}}
			f.Skin = []SkinVertex{{Weights: [4]float32{1}}, {Weights: [4]float32{1}}, {Weights: [4]float32{0.5}}}
		}, "weights sum to 0.5"},
		{"skin joint range", func(f *File) {
			f.Joints = []Joint{{Parent: -1}}
			f.Skin = []SkinVertex{{Weights: [4]float32{1}}, {Joints: [4]uint16{1}, Weights: [4]float32{1}}, {Weights: [4]float32{1}}}
		}, "joint 1 not < jointCount 1"},
		{"joint parent order", func(f *File) { f.Joints = []Joint{{Parent: -1}, {Parent: 1}} }, "parent 1 must be -1 or precede"},
		{"lod rows", func(f *File) { f.LodCount = 2; f.Lods = []MeshLod{{0, 3}} }, "1 LOD rows"},
		{"lod range", func(f *File) { f.LodCount = 1; f.Lods = []MeshLod{{0, 3}}; f.LodIndices = []uint32{0, 1} }, "past LODI"},
		{"lod grows", func(f *File) { f.LodCount = 1; f.Lods = []MeshLod{{0, 6}}; f.LodIndices = []uint32{0, 1, 2, 0, 1, 2} }, "more than the level before"},
		{"lodi index", func(f *File) { f.LodCount = 1; f.Lods = []MeshLod{{0, 3}}; f.LodIndices = []uint32{0, 1, 3} }, "not < vertexCount"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := triFile()
			f.SyncDesc()
			c.edit(f)
			err := Validate(f)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Validate = %v, want error containing %q", err, c.want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %v does not match ErrFormat", err)
			}
			if _, err := Encode(f); err == nil {
				t.Errorf("Encode accepted it")
			}
			// EncodeUnchecked writes it, and the read-back refuses it.
			if b, err := EncodeUnchecked(f); err == nil {
				_, err = Decode(b)
				require.ErrorIs(t, err, ErrFormat, "Decode accepted EncodeUnchecked's bytes")
			}
		})
	}
}

// Why: the cook encodes with EncodeUnchecked and validates on read-back;
// on a valid File it must give Encode's bytes.
func TestEncodeUncheckedSameBytes(t *testing.T) {
	for _, f := range []*File{triFile(), richFile(t)} {
		want := mustEncode(t, f)
		got, err := EncodeUnchecked(f)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	_, err := EncodeUnchecked(nil)
	require.ErrorIs(t, err, ErrFormat)
	_, err = EncodeUnchecked(&File{Desc: Desc{MeshletMaxVerts: 64, MeshletMaxTris: 124}})
	require.ErrorContains(t, err, "no triangles")
}

func posInf() float64 { return 1 / zero() }

func zero() float64 { return 0 }

func TestValidateMeshletCoverageSafe(t *testing.T) {
	f := triFile()
	f.Meshlets[0].VertexOffset = 1 << 31
	if err := ValidateMeshletCoverage(f); err == nil {
		t.Fatal("out-of-range meshlet accepted")
	}
	f = build(t, sphereMesh(6, 10, 1, 16, 8))
	// Swap the first triangle of the first and last submeshes in IDXS:
	// every count stays the same but each submesh's triangle set changes.
	a, z := f.Submeshes[0].FirstIndex, f.Submeshes[len(f.Submeshes)-1].FirstIndex
	for k := range uint32(3) {
		f.Indices[a+k], f.Indices[z+k] = f.Indices[z+k], f.Indices[a+k]
	}
	if err := ValidateMeshletCoverage(f); err == nil || !strings.Contains(err.Error(), "do not hold exactly") {
		t.Fatalf("coverage = %v", err)
	}
}

// Encode refuses a file with no triangles: an empty mesh is never written.
func TestEncodeRefusesEmpty(t *testing.T) {
	_, err := Encode(&File{Desc: Desc{MeshletMaxVerts: 64, MeshletMaxTris: 124}})
	require.ErrorContains(t, err, "hmesh: no triangles: an empty mesh is not written")
	f := triFile()
	f.Indices, f.Meshlets, f.MeshletVertices, f.MeshletTriangles, f.MeshletBounds = nil, nil, nil, nil, nil
	f.Submeshes = nil
	_, err = Encode(f)
	require.ErrorContains(t, err, "no triangles")
}
