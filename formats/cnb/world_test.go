package cnb

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/payload"
)

func vtx(x, y, z float32) payload.Vertex {
	return payload.Vertex{Position: [3]float32{x, y, z}, Normal: [3]float32{0, 1, 0}, Tangent: [3]float32{1, 0, 0}, Color: [3]float32{1, 1, 1}, UV: [2]float32{x, z}}
}

// testWorld is a small fixed world: two global static meshes (one with
// LODs), a global skinned mesh, a material, a scene-owned static mesh with a
// heightfield trailer and a scene-owned def with a payload, packed under a
// 600-byte ceiling so it spans three blobs.
type testWorld struct {
	meta     *BlobMeta
	blobs    []Blob
	images   [][]byte
	payloads [][]byte // per pack item
	static   []*payload.Static
	skinned  *payload.Skinned
}

const testCeiling = 600

func buildWorld(t testing.TB) *testWorld {
	t.Helper()
	w := &testWorld{}
	quad := func(y float32) *payload.Static {
		return &payload.Static{
			Vertices: []payload.Vertex{vtx(0, y, 0), vtx(1, y, 0), vtx(1, y, 1), vtx(0, y, 1)},
			Indices:  []uint16{0, 2, 1, 0, 3, 2},
		}
	}
	m0 := quad(0)
	m1 := quad(1)
	lo, hi := payload.Bounds(m1.Vertices)
	r := payload.HalfDiagonal(lo, hi)
	m1.LODs = []payload.LOD{{SwitchDistance: payload.DefaultSwitchDistance(r, 1), Indices: []uint16{0, 2, 1}}}
	m2 := quad(2)
	m2.Heightfield = &payload.Heightfield{Rows: 2, Cols: 2, Heights: []float32{2, 2, 2, 2}}
	w.static = []*payload.Static{m0, m1, m2}
	sk := &payload.Skinned{Indices: []uint16{0, 1, 2}, Joints: []payload.Joint{{Name: "root", Parent: -1, Scale: [3]float32{1, 1, 1}}}}
	for i := range 3 {
		sk.Vertices = append(sk.Vertices, payload.SkinnedVertex{Vertex: vtx(float32(i), 0, 0), Weights: [4]float32{1, 0, 0, 0}})
	}
	w.skinned = sk

	enc := func(m *payload.Static) []byte {
		b, err := payload.Encode(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	skb, err := payload.EncodeSkinned(sk)
	if err != nil {
		t.Fatal(err)
	}
	defPayload := []byte("scene-def-bytes")
	// Pack order: global resources by kind then handle, then scene content.
	w.payloads = [][]byte{enc(m0), enc(m1), skb, enc(m2), defPayload}
	items := []PackItem{{Global, 0}, {Global, 0}, {Global, 0}, {0, 0}, {0, 0}}
	for i := range items {
		items[i].Len = uint64(len(w.payloads[i]))
	}
	blobs, locs, err := Pack(items, testCeiling)
	if err != nil {
		t.Fatal(err)
	}
	w.blobs = blobs

	id := func(v AssetID) *AssetID { return &v }
	meta := &BlobMeta{
		Defs: []BlobAssetDef{
			{Name: id(100), Discriminant: 3, Args: []byte(`{"speed":2}`)},
			{Name: id(101), Discriminant: 3},
			{Name: id(200), Discriminant: 7, Payload: &locs[4]},
			{Discriminant: 1, Args: []byte{0xff}},
		},
		Resources: []ResourceRecord{
			{Kind: Mesh, Handle: 0, Payload: &locs[0]},
			{Kind: Mesh, Handle: 1, Payload: &locs[1]},
			{Kind: Material, Handle: 0, Data: []byte{1, 2, 3, 4}},
			{Kind: SkinnedMesh, Handle: 0, Payload: &locs[2]},
			{Kind: Mesh, Handle: 2, Payload: &locs[3]},
		},
		SceneGroups:   []SceneGroup{{Scene: 900, Resources: []ResourceRef{{Mesh, 2}}, Defs: []AssetID{200}}},
		PhysicsBudget: &PhysicsBudgetRecord{Fixed: 1, Dynamic: 2, SpawnHeadroom: 16},
	}
	for h, m := range w.static {
		lo, hi := payload.Bounds(m.Vertices)
		meta.MeshBounds = append(meta.MeshBounds, MeshBoundsRecord{Handle: uint32(h), Min: lo, Max: hi, VertexCount: uint32(len(m.Vertices)), IndexCount: uint32(len(m.Indices))})
	}
	meta.Manifest = DeriveManifest(meta)
	w.meta = meta
	if w.images, err = EncodeBlobs(meta, blobs, w.payloads); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestWorldPacking(t *testing.T) {
	w := buildWorld(t)
	if len(w.blobs) != 3 {
		t.Fatalf("%d blobs, want 3: %+v", len(w.blobs), w.blobs)
	}
	// 244 + 266 bytes fit under 600; the 310-byte skinned payload does not.
	if !reflect.DeepEqual(w.blobs[0].Items, []int{0, 1}) || !reflect.DeepEqual(w.blobs[1].Items, []int{2}) ||
		!reflect.DeepEqual(w.blobs[2].Items, []int{3, 4}) || w.blobs[2].Group != 0 {
		t.Fatalf("placement %+v", w.blobs)
	}
	if w.meta.Manifest.MaxBlobIndex != 2 || !reflect.DeepEqual(w.meta.Manifest.ComponentCounts, []ComponentCount{{1, 1}, {3, 2}, {7, 1}}) {
		t.Fatalf("manifest %+v", w.meta.Manifest)
	}
}

// The world's bytes are pinned: a change here must be a deliberate format
// change (go test ./formats/cnb -update).
func TestWorldGolden(t *testing.T) {
	w := buildWorld(t)
	for i, img := range w.images {
		golden(t, "world_"+strconv.Itoa(i)+".hex", img)
	}
}

// Every blob of the world passes the independent checker: blob 0 with its
// resources' payloads (static, LODs, heightfield, skinned) checked through
// the overflow blobs, and each overflow blob on its own.
func TestWorldMeshcheck(t *testing.T) {
	w := buildWorld(t)
	paths := writeWorld(t, w.images)
	res := meshcheck(t, paths...)
	r0 := res[0]
	if r0["kind"] != "cnb" || r0["payloadsChecked"] != 4.0 || r0["maxBlobIndex"] != 2.0 || r0["meshBounds"] != 3.0 || r0["sceneGroups"] != 1.0 {
		t.Errorf("meshcheck summary of blob 0: %v", r0)
	}
	for _, r := range res[1:] {
		if r["kind"] != "cnb_overflow" {
			t.Errorf("overflow blob summary: %v", r)
		}
	}
}

// Loading the world back (parse every blob, resolve every locator) gives
// back the same resources and payloads.
func TestWorldLoadsBack(t *testing.T) {
	w := buildWorld(t)
	sections := make([][]byte, len(w.images))
	var meta *BlobMeta
	for i, img := range w.images {
		m, sec, err := ParseBlob(img)
		if err != nil {
			t.Fatalf("blob %d: %v", i, err)
		}
		if i == 0 {
			meta = m
		} else if !m.IsEmpty() {
			t.Fatalf("overflow blob %d carries metadata", i)
		}
		sections[i] = sec
		start, err := PayloadSectionStart(img[:HeaderSize], KindBlob)
		if err != nil || !bytes.Equal(img[start:], sec) {
			t.Fatalf("blob %d: PayloadSectionStart %d, %v", i, start, err)
		}
		if out, _ := EncodeBlob(m, sec); !bytes.Equal(out, img) {
			t.Fatalf("blob %d: ParseBlob → EncodeBlob is not the identity", i)
		}
	}
	if !reflect.DeepEqual(meta, w.meta) {
		t.Fatalf("metadata round trip\n got %+v\nwant %+v", meta, w.meta)
	}
	sizes := make([]uint64, len(sections))
	for i, s := range sections {
		sizes[i] = uint64(len(s))
	}
	if err := ValidateLocators(meta, sizes); err != nil {
		t.Fatal(err)
	}
	at := func(p *PayloadLocator) []byte { return sections[p.BlobIndex][p.Offset : p.Offset+p.Len] }
	meshes := 0
	for _, r := range meta.Resources {
		switch r.Kind {
		case Mesh:
			got, err := payload.Parse(at(r.Payload))
			if err != nil || !reflect.DeepEqual(got, w.static[r.Handle]) {
				t.Fatalf("mesh %d does not load back: %v", r.Handle, err)
			}
			b := meta.MeshBounds[r.Handle]
			if b.VertexCount != uint32(len(got.Vertices)) || b.IndexCount != uint32(len(got.Indices)) {
				t.Fatalf("mesh %d bounds record counts", r.Handle)
			}
			meshes++
		case SkinnedMesh:
			got, err := payload.DecodeSkinnedWithLODs(at(r.Payload))
			if err != nil || !reflect.DeepEqual(got, w.skinned) {
				t.Fatalf("skinned mesh does not load back: %v", err)
			}
		case Material:
			if !bytes.Equal(r.Data, []byte{1, 2, 3, 4}) {
				t.Fatal("material data_bytes")
			}
		}
	}
	if meshes != 3 || string(at(meta.Defs[2].Payload)) != "scene-def-bytes" {
		t.Fatal("not every payload loaded back")
	}
}

// The text dump of blob 0's metadata is pinned beside the hex (readable
// review of a format change).
func TestWorldDumpGolden(t *testing.T) {
	w := buildWorld(t)
	m, sec, err := ParseBlob(w.images[0])
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := Dump(&sb, m, len(sec)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "world_0.golden.txt")
	if *update {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if sb.String() != string(want) {
		t.Errorf("dump differs from %s:\n%s", path, sb.String())
	}
}
