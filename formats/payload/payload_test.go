package payload

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
)

func vtx(x, y, z float32) Vertex {
	return Vertex{
		Position: [3]float32{x, y, z},
		Normal:   [3]float32{0, 0, 1},
		Tangent:  [3]float32{1, 0, 0},
		Color:    [3]float32{1, 0.5, 0.25},
		UV:       [2]float32{x, 1 - y},
	}
}

// quad: two triangles over four vertices, with a one-triangle LOD1.
func quad() *Static {
	return &Static{
		Vertices: []Vertex{vtx(0, 0, 0), vtx(1, 0, 0), vtx(1, 1, 0), vtx(0, 1, 0)},
		Indices:  []uint16{0, 1, 2, 0, 2, 3},
	}
}

func quadLODs() []LOD {
	return []LOD{{SwitchDistance: 8.485281, Indices: []uint16{0, 1, 2}}, {SwitchDistance: 16.970562, Indices: nil}}
}

func skinned() *Skinned {
	q := quad()
	m := &Skinned{Indices: q.Indices}
	for i, v := range q.Vertices {
		m.Vertices = append(m.Vertices, SkinnedVertex{Vertex: v, Joints: [4]uint16{uint16(i % 2), 0, 0, 0}, Weights: [4]float32{1, 0, 0, 0}})
	}
	m.Joints = []Joint{
		{Name: "root", Parent: -1, Scale: [3]float32{1, 1, 1}},
		{Name: "arm", Parent: 0, Translation: [3]float32{0, 1, 0}, RotationDeg: [3]float32{0, 90, 0}, Scale: [3]float32{1, 1, 1}},
	}
	return m
}

// legacyStatic writes the seed's single-LOD format field by field, the way
// the seed's format comment lists it, independently of the encoder.
func legacyStatic(vs []Vertex, idx []uint16) []byte {
	var buf bytes.Buffer
	w := func(v any) { _ = binary.Write(&buf, binary.LittleEndian, v) }
	w(uint32(len(vs)))
	for _, v := range vs {
		w(v.Position)
		w(v.Normal)
		w(v.Tangent)
		w(v.Color)
		w(v.UV)
	}
	w(uint32(len(idx)))
	w(idx)
	return buf.Bytes()
}

func legacySkinned(m *Skinned) []byte {
	var buf bytes.Buffer
	w := func(v any) { _ = binary.Write(&buf, binary.LittleEndian, v) }
	buf.WriteString("SKMV")
	w(uint32(len(m.Vertices)))
	for _, v := range m.Vertices {
		w(v.Position)
		w(v.Normal)
		w(v.Tangent)
		w(v.Color)
		w(v.UV)
		w(v.Joints)
		w(v.Weights)
	}
	w(uint32(len(m.Indices)))
	w(m.Indices)
	w(uint32(len(m.Joints)))
	for _, j := range m.Joints {
		w(uint32(len(j.Name)))
		buf.WriteString(j.Name)
		w(j.Parent)
		w(j.Translation)
		w(j.RotationDeg)
		w(j.Scale)
	}
	return buf.Bytes()
}

func mustEncode(t testing.TB, m *Static) []byte {
	t.Helper()
	b, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustEncodeSkinned(t testing.TB, m *Skinned) []byte {
	t.Helper()
	b, err := EncodeSkinned(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSizes(t *testing.T) {
	if s := binary.Size(Vertex{}); s != VertexSize {
		t.Errorf("Vertex is %d bytes, want %d", s, VertexSize)
	}
	if s := binary.Size(SkinnedVertex{}); s != SkinnedVertexSize {
		t.Errorf("SkinnedVertex is %d bytes, want %d", s, SkinnedVertexSize)
	}
	if s := binary.Size(MorphEntry{}); s != MorphEntrySize {
		t.Errorf("MorphEntry is %d bytes, want %d", s, MorphEntrySize)
	}
}

// No LODs is the legacy single-LOD payload, byte for byte, whether LODs is
// nil or empty.
func TestNoLODsIsLegacyBytes(t *testing.T) {
	q := quad()
	want := legacyStatic(q.Vertices, q.Indices)
	if got := mustEncode(t, q); !bytes.Equal(got, want) {
		t.Fatalf("Encode without LODs differs from legacy bytes\n got %x\nwant %x", got, want)
	}
	q.LODs = []LOD{}
	if got := mustEncode(t, q); !bytes.Equal(got, want) {
		t.Fatal("Encode with empty LODs differs from legacy bytes")
	}
	if len(want) != 4+4*56+4+6*2 {
		t.Fatalf("legacy size %d", len(want))
	}
}

func TestNoMorphsIsLegacySkinnedBytes(t *testing.T) {
	m := skinned()
	want := legacySkinned(m)
	if got := mustEncodeSkinned(t, m); !bytes.Equal(got, want) {
		t.Fatalf("EncodeSkinned differs from legacy bytes\n got %x\nwant %x", got, want)
	}
	m.Morphs = &Morphs{}
	m.LODs = []LOD{}
	if got := mustEncodeSkinned(t, m); !bytes.Equal(got, want) {
		t.Fatal("empty morphs and LODs differ from legacy bytes")
	}
}

// The LODS trailer layout, checked byte by byte after the legacy prefix.
func TestLODsTrailerBytes(t *testing.T) {
	q := quad()
	legacy := legacyStatic(q.Vertices, q.Indices)
	q.LODs = quadLODs()
	b := mustEncode(t, q)
	if !bytes.HasPrefix(b, legacy) {
		t.Fatal("LOD payload does not start with the legacy bytes")
	}
	tr := b[len(legacy):]
	want := []byte("LODS")
	want = binary.LittleEndian.AppendUint32(want, 2)
	want = binary.LittleEndian.AppendUint32(want, math.Float32bits(8.485281))
	want = binary.LittleEndian.AppendUint32(want, 3)
	want = append(want, 0, 0, 1, 0, 2, 0)
	want = binary.LittleEndian.AppendUint32(want, math.Float32bits(16.970562))
	want = binary.LittleEndian.AppendUint32(want, 0)
	if !bytes.Equal(tr, want) {
		t.Fatalf("trailer\n got %x\nwant %x", tr, want)
	}
}

func TestStaticRoundTrips(t *testing.T) {
	q := quad()
	q.LODs = quadLODs()
	q.Heightfield = &Heightfield{Rows: 2, Cols: 2, Heights: []float32{0, 0.5, 1, 1.5}}
	b := mustEncode(t, q)

	lod0, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(lod0, &Static{Vertices: q.Vertices, Indices: q.Indices}) {
		t.Fatal("Decode: LOD0 mismatch or trailers not ignored")
	}
	withLODs, err := DecodeWithLODs(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(withLODs.LODs, q.LODs) || withLODs.Heightfield != nil {
		t.Fatalf("DecodeWithLODs: %+v", withLODs.LODs)
	}
	h, err := DecodeHeightfield(b)
	if err != nil || !reflect.DeepEqual(h, q.Heightfield) {
		t.Fatalf("DecodeHeightfield: %+v, %v", h, err)
	}
	all, err := Parse(b)
	if err != nil || !reflect.DeepEqual(all, q) {
		t.Fatalf("Parse: %v", err)
	}
	if b2 := mustEncode(t, all); !bytes.Equal(b, b2) {
		t.Fatal("Parse → Encode is not byte-identical")
	}
	// AppendHeightfield is the same trailer Encode writes.
	noHF := *q
	noHF.Heightfield = nil
	app, err := AppendHeightfield(mustEncode(t, &noHF), q.Heightfield)
	if err != nil || !bytes.Equal(app, b) {
		t.Fatalf("AppendHeightfield differs: %v", err)
	}
	// No trailer: DecodeHeightfield says so with nil, nil.
	if h, err := DecodeHeightfield(mustEncode(t, &noHF)); h != nil || err != nil {
		t.Fatalf("no trailer: %v, %v", h, err)
	}
	// HFLD without LODS.
	hfOnly := &Static{Vertices: q.Vertices, Indices: q.Indices, Heightfield: q.Heightfield}
	if h, err := DecodeHeightfield(mustEncode(t, hfOnly)); err != nil || !reflect.DeepEqual(h, q.Heightfield) {
		t.Fatalf("heightfield without LODs: %v", err)
	}
}

func TestSkinnedRoundTrips(t *testing.T) {
	m := skinned()
	var err error
	dense := [][]MorphDelta{
		{{Position: [3]float32{0, 0, 0.1}}, {}, {Normal: [3]float32{2e-6, 0, 0}}, {Position: [3]float32{1e-6, -1e-6, 0}}},
		{{}, {Position: [3]float32{0.5, 0, 0}}, {Position: [3]float32{0, 0.25, 0}}, {}},
	}
	if m.Morphs, err = SparsifyMorphs([]string{"smile", "blink"}, dense, 4); err != nil {
		t.Fatal(err)
	}
	m.LODs = quadLODs()
	b := mustEncodeSkinned(t, m)
	got, err := DecodeSkinnedWithLODs(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip\n got %+v\nwant %+v", got, m)
	}
	noLODs, err := DecodeSkinned(b)
	if err != nil || noLODs.LODs != nil || !reflect.DeepEqual(noLODs.Morphs, m.Morphs) {
		t.Fatalf("DecodeSkinned: %v", err)
	}
	// MRPS sits between the joint block and LODS.
	legacy := legacySkinned(m)
	if !bytes.HasPrefix(b, legacy) || string(b[len(legacy):len(legacy)+4]) != "MRPS" {
		t.Fatal("MRPS block not right after the joint block")
	}
}

func TestSparsifyMorphs(t *testing.T) {
	eps := float32(MorphDeltaEpsilon)
	next := math.Nextafter32(eps, 1)
	dense := [][]MorphDelta{
		{{Position: [3]float32{eps, -eps, eps}, Normal: [3]float32{-eps, eps, 0}}, {Normal: [3]float32{0, -next, 0}}, {}},
		{{Position: [3]float32{0, 0, 3}}, {}, {Position: [3]float32{next, 0, 0}}},
	}
	m, err := SparsifyMorphs([]string{"a", "b"}, dense, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := &Morphs{
		Targets: []string{"a", "b"},
		Offsets: []uint32{0, 1, 2, 3},
		Entries: []MorphEntry{
			{Target: 1, Position: [3]float32{0, 0, 3}},
			{Target: 0, Normal: [3]float32{0, -next, 0}},
			{Target: 1, Position: [3]float32{next, 0, 0}},
		},
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	if m, err := SparsifyMorphs(nil, nil, 3); m != nil || err != nil {
		t.Fatal("no targets must give no block")
	}
	if _, err := SparsifyMorphs([]string{"a"}, [][]MorphDelta{{{}}}, 2); err == nil {
		t.Fatal("short dense target accepted")
	}
	nan := float32(math.NaN())
	if _, err := SparsifyMorphs([]string{"a"}, [][]MorphDelta{{{Position: [3]float32{nan, 0, 0}}}}, 1); err == nil {
		t.Fatal("NaN delta accepted")
	}
}

func TestEncodeRejects(t *testing.T) {
	big := make([]Vertex, MaxChunkVertices+1)
	cases := []struct {
		name string
		m    *Static
		msg  string
	}{
		{"index past vertices", &Static{Vertices: quad().Vertices, Indices: []uint16{0, 1, 4}}, "LOD0 indices: index 4 at 2 not below vertex count 4"},
		{"not triangles", &Static{Vertices: quad().Vertices, Indices: []uint16{0, 1}}, "not a multiple of 3"},
		{"too many vertices", &Static{Vertices: big}, "65537 vertices: u16 indices address at most 65536"},
		{"nan vertex", &Static{Vertices: []Vertex{{UV: [2]float32{float32(math.NaN()), 0}}}}, "vertex 0 not finite"},
		{"descending distances", &Static{Vertices: quad().Vertices, LODs: []LOD{{SwitchDistance: 5}, {SwitchDistance: 4}}}, "LOD 2: switch distance 4 below"},
		{"inf distance", &Static{Vertices: quad().Vertices, LODs: []LOD{{SwitchDistance: float32(math.Inf(1))}}}, "LOD 1: switch distance not finite"},
		{"LOD index", &Static{Vertices: quad().Vertices, LODs: []LOD{{Indices: []uint16{0, 0, 9}}}}, "LOD 1 indices: index 9"},
		{"heightfield size", &Static{Heightfield: &Heightfield{Rows: 2, Cols: 3, Heights: make([]float32, 5)}}, "heightfield: 5 heights for 2×3"},
	}
	for _, c := range cases {
		_, err := Encode(c.m)
		if err == nil || !strings.Contains(err.Error(), c.msg) || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.msg)
		}
	}
	sk := []struct {
		name string
		edit func(m *Skinned)
		msg  string
	}{
		{"joint index", func(m *Skinned) { m.Vertices[2].Joints[3] = 2 }, "vertex 2: joint 2 past joint count 2"},
		{"parent after child", func(m *Skinned) { m.Joints[0].Parent = 1 }, "joint 0: parent 1 must be -1 or an earlier joint"},
		{"bad name", func(m *Skinned) { m.Joints[1].Name = "\xff" }, "joint 1: name is not valid UTF-8"},
		{"tiny morph", func(m *Skinned) {
			m.Morphs = &Morphs{Targets: []string{"t"}, Offsets: []uint32{0, 1, 1, 1, 1}, Entries: []MorphEntry{{Position: [3]float32{1e-7, 0, 0}}}}
		}, "morph entry 0: every component at or below MorphDeltaEpsilon"},
		{"morph csr", func(m *Skinned) {
			m.Morphs = &Morphs{Targets: []string{"t"}, Offsets: []uint32{0, 1, 0, 1, 1}, Entries: []MorphEntry{{Position: [3]float32{1, 0, 0}}}}
		}, "offset of vertex 2 decreases"},
		{"morph targets order", func(m *Skinned) {
			m.Morphs = &Morphs{Targets: []string{"t", "u"}, Offsets: []uint32{0, 2, 2, 2, 2}, Entries: []MorphEntry{{Target: 1, Position: [3]float32{1, 0, 0}}, {Target: 0, Position: [3]float32{1, 0, 0}}}}
		}, "vertex 0: target 0 out of range or not ascending"},
	}
	for _, c := range sk {
		m := skinned()
		c.edit(m)
		_, err := EncodeSkinned(m)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.msg)
		}
	}
}

// decodeRejects: each corrupt payload fails with the message and byte
// offset it must produce.
func TestDecodeInvalid(t *testing.T) {
	q := quad()
	q.LODs = quadLODs()
	good := mustEncode(t, q)
	lodsAt := len(legacyStatic(q.Vertices, q.Indices))
	set32 := func(b []byte, off int, v uint32) []byte {
		c := bytes.Clone(b)
		binary.LittleEndian.PutUint32(c[off:], v)
		return c
	}
	idxAt := 4 + 4*VertexSize
	cases := []struct {
		name string
		in   []byte
		dec  func([]byte) error
		msg  string
		eof  bool
	}{
		{"empty", nil, parseErr, "payload: offset 0x0: truncated vertex count", true},
		{"truncated vertices", good[:100], parseErr, "payload: offset 0x0: vertex count 4 needs 224 bytes, 96 left", true},
		{"count overflow", set32(good, 0, 0xFFFFFFFF), parseErr, "payload: offset 0x0: vertex count 4294967295 needs", true},
		{"too many vertices", append(set32(nil4(), 0, 65537), make([]byte, 65537*56)...), parseErr, "payload: offset 0x0: 65537 vertices", false},
		{"nan vertex", set32(good, 4+12, 0x7fc00000), parseErr, "payload: offset 0x4: vertex 0 not finite", false},
		{"index count overflow", set32(good, idxAt, 0x80000000), parseErr, "payload: offset 0xe4: LOD0 index count 2147483648 needs", true},
		{"index count not triangles", set32(good, idxAt, 2), parseErr, "payload: offset 0xe4: LOD0 index count 2 is not a multiple of 3", false},
		{"index out of range", setU16(good, idxAt+4+4, 7), parseErr, "payload: offset 0xec: LOD0 index: index 7 not below vertex count 4", false},
		{"lod count overflow", set32(good, lodsAt+4, 1<<30), parseErr, "LOD count 1073741824 needs", true},
		{"lod distance descending", set32(good, lodsAt+8, math.Float32bits(100)), parseErr, "LOD 2: switch distance 16.970562 not finite or below the previous level's 100", false},
		{"lod truncated", good[:len(good)-1], parseErr, "truncated LOD 2 index count", true},
		{"empty LODS", append(bytes.Clone(good[:lodsAt]), "LODS\x00\x00\x00\x00"...), parseErr, "payload: offset 0xf8: LODS block with no alternates", false},
		{"trailing garbage", append(bytes.Clone(good), 'x'), parseErr, "1 trailing bytes", false},
		{"hfld truncated", append(bytes.Clone(good), []byte("HFLD\x02\x00\x00\x00\x02\x00\x00\x00")...), parseErr, "heightfield 2×2 needs 16 bytes, 0 left", true},
		{"hfld overflow", append(bytes.Clone(good), []byte("HFLD\xff\xff\xff\xff\xff\xff\xff\xff")...), parseErr, "heightfield 4294967295×4294967295 needs", true},
		{"skmv given to Parse", []byte("SKMV\x00\x00\x00\x00"), parseErr, "payload: offset 0x0: skinned payload (SKMV); use DecodeSkinned", false},
		{"Decode ignores trailers but not LOD0", good[:idxAt+6], decodeErr, "payload: offset 0xe4: LOD0 index count 6 needs 12 bytes, 2 left", true},
	}
	for _, c := range cases {
		err := c.dec(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.msg)
			continue
		}
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Offset < 0 {
			t.Errorf("%s: no byte offset in %v", c.name, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) != c.eof {
			t.Errorf("%s: ErrUnexpectedEOF = %v", c.name, !c.eof)
		}
	}
	// Decode and DecodeWithLODs ignore what they do not read.
	if _, err := Decode(append(bytes.Clone(good), 'x')); err != nil {
		t.Errorf("Decode must ignore trailing bytes: %v", err)
	}
	if _, err := DecodeWithLODs(append(bytes.Clone(good), 'x')); err != nil {
		t.Errorf("DecodeWithLODs must ignore bytes after LODS: %v", err)
	}
}

func TestDecodeSkinnedInvalid(t *testing.T) {
	m := skinned()
	m.Morphs = &Morphs{Targets: []string{"t"}, Offsets: []uint32{0, 1, 1, 1, 1}, Entries: []MorphEntry{{Position: [3]float32{1, 0, 0}}}}
	good := mustEncodeSkinned(t, m)
	jointsAt := 4 + 4 + 4*SkinnedVertexSize + 4 + 12
	mrpsAt := len(legacySkinned(m))
	set32 := func(off int, v uint32) []byte {
		c := bytes.Clone(good)
		binary.LittleEndian.PutUint32(c[off:], v)
		return c
	}
	cases := []struct {
		name string
		in   []byte
		msg  string
	}{
		{"wrong magic", append([]byte("SKMX"), good[4:]...), `payload: offset 0x0: bad magic "SKMX", want "SKMV"`},
		{"short magic", []byte("SK"), `bad magic "SK"`},
		{"vertex count overflow", set32(4, 0x10000000), "payload: offset 0x4: skinned vertex count 268435456 needs"},
		{"joint count overflow", set32(jointsAt, 0x7fffffff), "joint count 2147483647 needs"},
		{"joint name overflow", set32(jointsAt+4, 0xfffffff0), "joint 0 name count 4294967280 needs"},
		{"joint parent forward", set32(jointsAt+4+4+4, 1), "joint 0: parent 1 must be -1 or an earlier joint"},
		{"vertex joint past count", setU16(good, 8+VertexSize, 5), "payload: offset 0x40: vertex 0: joint 5 past joint count 2"},
		{"empty MRPS", append(append(bytes.Clone(good[:mrpsAt]), "MRPS"...), 0, 0, 0, 0), "MRPS block with no morph targets"},
		{"morph entry overflow", set32(mrpsAt+4+4+4+1, 0x40000000), "morph offsets and 1073741824 entries need"},
		{"morph target out of range", set32(mrpsAt+4+4+5+4+20, 3), "vertex 0: target 3 out of range"},
		{"trailing", append(bytes.Clone(good), 0), "1 trailing bytes"},
	}
	for _, c := range cases {
		_, err := DecodeSkinnedWithLODs(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.msg)
		}
	}
}

func nil4() []byte { return make([]byte, 4) }

func setU16(b []byte, off int, v uint16) []byte {
	c := bytes.Clone(b)
	binary.LittleEndian.PutUint16(c[off:], v)
	return c
}

func parseErr(b []byte) error  { _, err := Parse(b); return err }
func decodeErr(b []byte) error { _, err := Decode(b); return err }

// Every payload this package writes passes the independent checker.
func TestMeshcheckAcceptsPayloads(t *testing.T) {
	q := quad()
	plain := mustEncode(t, q)
	q.LODs = quadLODs()
	lods := mustEncode(t, q)
	q.Heightfield = &Heightfield{Rows: 2, Cols: 2, Heights: []float32{0, 1, 2, 3}}
	hf := mustEncode(t, q)
	sk := skinned()
	skPlain := mustEncodeSkinned(t, sk)
	sk.Morphs, _ = SparsifyMorphs([]string{"m"}, [][]MorphDelta{{{}, {Position: [3]float32{0, 0.1, 0}}, {}, {Normal: [3]float32{0, 0, -0.5}}}}, 4)
	sk.LODs = quadLODs()
	skFull := mustEncodeSkinned(t, sk)
	empty := make([]byte, 8) // no vertices, no indices: older cooks wrote it, the reader accepts it
	res := meshcheck(t, map[string][]byte{
		"plain.payload": plain, "lods.payload": lods, "hf.payload": hf, "empty.payload": empty,
		"plain.skmv": skPlain, "full.skmv": skFull,
	})
	if r := res["hf.payload"]; r["lods"] != 2.0 || r["heightfield"] == nil {
		t.Errorf("meshcheck summary of hf.payload: %v", r)
	}
	if r := res["full.skmv"]; r["morphTargets"] != 1.0 || r["lods"] != 2.0 || r["joints"] != 2.0 {
		t.Errorf("meshcheck summary of full.skmv: %v", r)
	}
}
