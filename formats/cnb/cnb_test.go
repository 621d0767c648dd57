package cnb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/postcard"
)

// An overflow blob is the header, the 7-byte empty BlobMeta (six empty
// vectors/varints and a None) and the payload bytes.
func TestOverflowBlobBytes(t *testing.T) {
	b, err := EncodeBlob(&BlobMeta{}, []byte{0xaa, 0xbb})
	if err != nil {
		t.Fatal(err)
	}
	want := []byte("CNB\x00\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00" + "\x00\x00\x00\x00\x00\x00\x00" + "\xaa\xbb")
	if !bytes.Equal(b, want) {
		t.Fatalf("got %x\nwant %x", b, want)
	}
	if s, err := PayloadSectionStart(b, KindBlob); s != 23 || err != nil {
		t.Fatalf("payload section start %d, %v", s, err)
	}
	m, sec, err := ParseBlob(b)
	if err != nil || !m.IsEmpty() || !bytes.Equal(sec, []byte{0xaa, 0xbb}) {
		t.Fatalf("%+v %x %v", m, sec, err)
	}
}

// A hand-assembled metadata block, field by field from the schema, decodes
// to the expected structs and re-encodes to the same bytes.
func TestMetaFieldOrder(t *testing.T) {
	var e postcard.Encoder
	e.Len(1)          // defs
	e.OptionSome()    //   name
	e.U32(300)        //   = 300
	e.Variant(0)      //   kind Component
	e.U8(9)           //   discriminant
	e.ByteArray(nil)  //   args_bytes
	e.OptionSome()    //   payload
	e.U32(0)          //     blob_index
	e.U64(128)        //     offset
	e.U64(5)          //     len
	e.Len(1)          // resources
	e.U8(uint8(Mesh)) //   resource_kind
	e.U32(0)          //   handle
	e.OptionNone()    //   payload
	e.ByteArray([]byte{7})
	e.Len(1)      // manifest.component_counts
	e.U8(9)       //   tag
	e.U32(1)      //   count
	e.U32(0)      // manifest.max_blob_index
	e.Len(0)      // scene_groups
	e.Len(1)      // mesh_bounds
	e.U32(0)      //   handle
	for range 6 { //   min, max
		e.F32(0.5)
	}
	e.U32(3)       //   vertex_count
	e.U32(3)       //   index_count
	e.OptionNone() // physics_budget
	meta := e.Bytes()
	img := append([]byte("CNB\x00\x01\x00\x00\x00"), binary.LittleEndian.AppendUint64(nil, uint64(len(meta)))...)
	img = append(img, meta...)
	img = append(img, make([]byte, 133)...)
	m, _, err := ParseBlob(img)
	if err != nil {
		t.Fatal(err)
	}
	id := AssetID(300)
	want := &BlobMeta{
		Defs:       []BlobAssetDef{{Name: &id, Discriminant: 9, Payload: &PayloadLocator{0, 128, 5}}},
		Resources:  []ResourceRecord{{Kind: Mesh, Data: []byte{7}}},
		Manifest:   WorldManifest{ComponentCounts: []ComponentCount{{9, 1}}},
		MeshBounds: []MeshBoundsRecord{{Min: [3]float32{0.5, 0.5, 0.5}, Max: [3]float32{0.5, 0.5, 0.5}, VertexCount: 3, IndexCount: 3}},
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got %+v\nwant %+v", m, want)
	}
	if out, err := EncodeBlob(m, make([]byte, 133)); err != nil || !bytes.Equal(out, img) {
		t.Fatalf("re-encode differs: %v", err)
	}
}

func blobWith(t *testing.T, meta []byte, payload int) []byte {
	t.Helper()
	img := append([]byte("CNB\x00\x01\x00\x00\x00"), binary.LittleEndian.AppendUint64(nil, uint64(len(meta)))...)
	return append(append(img, meta...), make([]byte, payload)...)
}

// decodeRejects: every malformed image fails with its byte offset and the
// message it must produce.
func TestParseBlobInvalid(t *testing.T) {
	good := buildWorld(t).images[0]
	empty := []byte{0, 0, 0, 0, 0, 0, 0}
	mutate := func(off int, v ...byte) []byte {
		c := bytes.Clone(good)
		copy(c[off:], v)
		return c
	}
	cases := []struct {
		name string
		in   []byte
		msg  string
		eof  bool
	}{
		{"empty file", nil, "cnb: offset 0x0: truncated header: 0 bytes, need 16", true},
		{"truncated header", good[:10], "cnb: offset 0xa: truncated header: 10 bytes, need 16", true},
		{"wrong magic", mutate(0, 'C', 'N', 'X'), `cnb: offset 0x0: bad magic "CNX\x00", want "CNB\x00"`, false},
		{"cache given as world", mutate(0, 'C', 'N', 'C'), `bad magic "CNC\x00"`, false},
		{"wrong token", mutate(4, 2), "cnb: offset 0x4: validity token 2, want SCHEMA_VERSION 1: recook", false},
		{"meta_len past end", mutate(8, 0xff, 0xff, 0xff, 0xff), "cnb: offset 0x8: meta_len 4294967295 past end of file", true},
		{"meta_len overflow", mutate(8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), "cnb: offset 0x8: meta_len 18446744073709551615 overflows", false},
		{"truncated metadata", blobWith(t, empty[:5], 0), "cnb: offset 0x15: mesh_bounds: truncated length varint", true},
		{"trailing metadata", blobWith(t, append(bytes.Clone(empty), 0), 0), "cnb: offset 0x17: 1 trailing bytes after the value", false},
		{"def count overflow", blobWith(t, []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0, 0, 0, 0, 0}, 0), "cnb: offset 0x10: defs: length 4294967295 needs at least 5 bytes per item, 6 bytes left", true},
		{"overlong varint", blobWith(t, []byte{0x80, 0x00, 0, 0, 0, 0, 0, 0}, 0), "cnb: offset 0x10: defs: overlong length varint", false},
		{"bad option tag", blobWith(t, []byte{0, 0, 0, 0, 0, 0, 2}, 0), "cnb: offset 0x16: physics_budget: bad Option tag 0x02", false},
		{"unknown asset kind", blobWith(t, []byte{1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0}, 0), "cnb: offset 0x12: defs[0].kind: enum variant 1 out of range (1 variants)", false},
		{"locator offset overflow", blobWith(t, []byte{0, 1, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0}, 0), "cnb: offset 0x16: resources[0].payload.offset: u64 varint overflows 64 bits", false},
		{"u32 handle overflow", blobWith(t, []byte{0, 1, 0, 0xff, 0xff, 0xff, 0xff, 0x1f, 0, 0, 0, 0, 0, 0, 0, 0}, 0), "cnb: offset 0x13: resources[0].handle: u32 varint overflows 32 bits", false},
		{"non-dense handle", blobWith(t, []byte{0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0}, 0), "cnb: offset 0x12: resources[0].handle: Mesh handle 1, want 0: handles are dense per kind in record order", false},
		{"unknown resource kind", blobWith(t, []byte{0, 1, 9, 0, 0, 0, 0, 0, 0, 0, 0}, 0), "cnb: offset 0x12: resources[0].resource_kind: unknown resource kind 9", false},
		{"manifest max_blob_index", blobWith(t, []byte{0, 0, 0, 3, 0, 0, 0}, 0), "cnb: offset 0x12: manifest.max_blob_index: 3, but the streams reference blob 0 at most", false},
		{"manifest zero count", blobWith(t, []byte{0, 0, 1, 4, 0, 0, 0, 0, 0}, 0), "cnb: offset 0x12: manifest.component_counts: 1 entries, the defs give 0", false},
		{"bounds without mesh", blobWith(t, append([]byte{0, 0, 0, 0, 0, 1, 0}, append(make([]byte, 24), 0, 0, 0)...), 0), "cnb: offset 0x16: mesh_bounds[0].handle: handle 0 names no Mesh resource (0 meshes)", false},
		{"scene group ghost resource", blobWith(t, []byte{0, 0, 0, 0, 1, 5, 1, 0, 0, 0, 0, 0}, 0), "cnb: offset 0x15: scene_groups[0].resources[0]: (Mesh, 0) names no resource", false},
	}
	for _, c := range cases {
		_, _, err := ParseBlob(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.msg)
			continue
		}
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Offset < 0 || !errors.Is(err, ErrFormat) {
			t.Errorf("%s: not a FormatError with an offset: %v", c.name, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) != c.eof {
			t.Errorf("%s: ErrUnexpectedEOF = %v, want %v", c.name, !c.eof, c.eof)
		}
	}
}

func TestValidate(t *testing.T) {
	id := func(v AssetID) *AssetID { return &v }
	base := func() *BlobMeta {
		m := &BlobMeta{
			Defs:        []BlobAssetDef{{Name: id(1), Discriminant: 2, Payload: &PayloadLocator{1, 0, 4}}, {Name: id(2), Discriminant: 2}},
			Resources:   []ResourceRecord{{Kind: Mesh, Payload: &PayloadLocator{0, 0, 10}}, {Kind: Texture}, {Kind: Mesh, Handle: 1}},
			SceneGroups: []SceneGroup{{Scene: 7, Resources: []ResourceRef{{Mesh, 1}}, Defs: []AssetID{1}}},
			MeshBounds:  []MeshBoundsRecord{{Handle: 0}, {Handle: 1, Max: [3]float32{1, 1, 1}}},
		}
		m.Manifest = DeriveManifest(m)
		return m
	}
	if err := base().Validate(); err != nil {
		t.Fatal(err)
	}
	if w := base().Manifest; w.MaxBlobIndex != 1 || !reflect.DeepEqual(w.ComponentCounts, []ComponentCount{{2, 2}}) {
		t.Fatalf("DeriveManifest %+v", w)
	}
	cases := []struct {
		name string
		edit func(m *BlobMeta)
		msg  string
	}{
		{"asset kind", func(m *BlobMeta) { m.Defs[1].Kind = 1 }, "defs[1].kind: AssetKind 1"},
		{"handle gap", func(m *BlobMeta) { m.Resources[2].Handle = 2 }, "resources[2].handle: Mesh handle 2, want 1"},
		{"counts unsorted", func(m *BlobMeta) {
			m.Manifest.ComponentCounts = []ComponentCount{{3, 2}}
		}, "manifest.component_counts[0]: (3, 2), the defs give (2, 2)"},
		{"max blob", func(m *BlobMeta) { m.Manifest.MaxBlobIndex = 0 }, "manifest.max_blob_index: 0, but the streams reference blob 1"},
		{"duplicate scene", func(m *BlobMeta) { m.SceneGroups = append(m.SceneGroups, SceneGroup{Scene: 7}) }, "scene_groups[1].scene: scene 7 has two groups"},
		{"shared resource", func(m *BlobMeta) {
			m.SceneGroups = append(m.SceneGroups, SceneGroup{Scene: 8, Resources: []ResourceRef{{Mesh, 1}}})
		}, "scene_groups[1].resources[0]: (Mesh, 1) already belongs to scene group 0"},
		{"unknown def", func(m *BlobMeta) { m.SceneGroups[0].Defs = []AssetID{9} }, "scene_groups[0].defs[0]: asset 9 names no def"},
		{"bounds order", func(m *BlobMeta) { m.MeshBounds[1].Handle = 0 }, "mesh_bounds[1].handle: handle 0 after 0"},
		{"bounds min>max", func(m *BlobMeta) { m.MeshBounds[1].Min[2] = 2 }, "mesh_bounds[1]: min [0 0 2] > max [1 1 1]"},
	}
	for _, c := range cases {
		m := base()
		c.edit(m)
		err := m.Validate()
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.msg)
		}
		if _, err := EncodeBlob(m, nil); err == nil {
			t.Errorf("%s: EncodeBlob accepted invalid metadata", c.name)
		}
	}
	m := base()
	if err := ValidateLocators(m, []uint64{10, 4}); err != nil {
		t.Fatal(err)
	}
	if err := ValidateLocators(m, []uint64{9, 4}); err == nil || !strings.Contains(err.Error(), "resources[0].payload: [0, +10) past the 9-byte payload section of blob 0") {
		t.Fatalf("got %v", err)
	}
	if err := ValidateLocators(m, []uint64{10}); err == nil || !strings.Contains(err.Error(), "defs[0].payload: blob 1 does not exist (1 blobs)") {
		t.Fatalf("got %v", err)
	}
	m.Resources[0].Payload = &PayloadLocator{0, 1<<64 - 1, 2}
	if err := ValidateLocators(m, []uint64{10, 4}); err == nil {
		t.Fatal("offset+len overflow accepted")
	}
}

func TestCacheRoundTripAndInvalid(t *testing.T) {
	meta := &CacheMeta{Toolchain: "meshcook 0.1 go1.26", Entries: []CacheEntry{
		{Kind: CachePayload, Key: "models/chair#0", Offset: 0, Len: 3},
		{Kind: CacheThumbnail, Key: "models/chair", Offset: 3, Len: 2},
	}}
	b, err := EncodeCache(meta, []byte("abcde"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:8]) != "CNC\x00\x02\x00\x00\x00" {
		t.Fatalf("header %x", b[:8])
	}
	got, sec, err := ParseCache(b)
	if err != nil || !reflect.DeepEqual(got, meta) || string(sec) != "abcde" {
		t.Fatalf("%+v %q %v", got, sec, err)
	}
	if s, err := PayloadSectionStart(b[:16], KindCache); err != nil || string(b[s:]) != "abcde" {
		t.Fatalf("PayloadSectionStart %d %v", s, err)
	}
	// The prefix a streaming writer writes before the payload section.
	if p, err := EncodeCachePrefix(meta, 5); err != nil || string(p)+"abcde" != string(b) {
		t.Fatalf("EncodeCachePrefix: %q %v", p, err)
	}
	if _, err := EncodeCachePrefix(meta, 4); err == nil {
		t.Fatal("EncodeCachePrefix accepted entries past the payload section")
	}
	if _, err := PayloadSectionStart(b[:16], KindBlob); err == nil {
		t.Fatal("cache header read as a world blob")
	}
	if _, _, err := ParseBlob(b); err == nil {
		t.Fatal("ParseBlob accepted a cache segment")
	}
	metaAt := 16 + 1 + len(meta.Toolchain) + 1 // first entry
	cases := []struct {
		name string
		in   []byte
		msg  string
	}{
		{"wrong token", func() []byte { c := bytes.Clone(b); c[4] = 1; return c }(), "cnb: offset 0x4: validity token 1, want CACHE_SEGMENT_VERSION 2: recook"},
		{"bad kind", func() []byte { c := bytes.Clone(b); c[metaAt] = 5; return c }(), "entries[0].kind: enum variant 5 out of range (5 variants)"},
		{"entry past payload", b[:len(b)-1], "cnb: offset 0x37: entries[1]: [3, +2) past the 4-byte payload section"},
		{"entries count overflow", func() []byte { c := bytes.Clone(b); c[metaAt-1] = 0x7f; return c }(), "entries: length 127 needs at least 4 bytes per item"},
	}
	for _, c := range cases {
		_, _, err := ParseCache(c.in)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.msg)
		}
	}
	dup := &CacheMeta{Entries: []CacheEntry{{Key: "k"}, {Key: "k"}}}
	if _, err := EncodeCache(dup, nil); err == nil || !strings.Contains(err.Error(), `duplicate key "k"`) {
		t.Fatalf("duplicate keys: %v", err)
	}
	// meshcheck reads the segment too.
	paths := writeWorld(t, [][]byte{b})
	if r := meshcheck(t, paths...); r[0]["kind"] != "cnb_cache" || r[0]["entries"] != 2.0 {
		t.Errorf("meshcheck summary %v", r[0])
	}
}

func TestResourceKindNames(t *testing.T) {
	for k := Mesh; k <= SkinnedMesh; k++ {
		if got, ok := ParseResourceKind(k.String()); !ok || got != k {
			t.Errorf("%v does not round-trip", k)
		}
	}
	if SkinnedMesh != 8 || Material != 2 || ResourceKind(9).Known() || ResourceKind(9).String() != "ResourceKind(9)" {
		t.Fatal("resource kind tags")
	}
}
