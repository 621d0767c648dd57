package cook

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/simplify"
)

// hmatHeader is a .hmat header for count rows, to decode a Material
// resource's data_bytes (one row) with the .hmat reader.
func hmatHeader(count uint32) []byte {
	h := []byte("HMAT\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	binary.LittleEndian.PutUint32(h[8:], count)
	return h
}

func samplesDir() string { return filepath.Join("..", "testdata", "samples") }

// gridSubmesh is an n×n vertex grid in the XZ plane.
func gridSubmesh(n int) *mesh.Submesh {
	s := &mesh.Submesh{Material: -1}
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			s.Positions = append(s.Positions, mesh.Vec3{float32(c), 0, float32(r)})
		}
	}
	for r := 0; r+1 < n; r++ {
		for c := 0; c+1 < n; c++ {
			v := uint32(r*n + c)
			s.Indices = append(s.Indices, v, v+uint32(n), v+1, v+1, v+uint32(n), v+uint32(n)+1)
		}
	}
	return s
}

// A submesh above 65,535 vertices splits into chunks named by
// payload.ChunkName; each chunk fits u16 indices, LOD0 triangles keep
// their order, and every reduced level's triangles land in some chunk
// (which gains vertices it lacks) so no level loses geometry.
func TestSplitSubmeshChunksKeepsLevels(t *testing.T) {
	s := gridSubmesh(300) // 90,000 vertices
	// A fake reduced level: every third triangle, in reverse order, so
	// its triangles cross chunk boundaries.
	var lvl []uint32
	for i := len(s.Indices) - 3; i >= 0; i -= 9 {
		lvl = append(lvl, s.Indices[i:i+3]...)
	}
	pieces, err := splitSubmesh("terrain", 2, s, []simplify.Level{{Indices: lvl}, {}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 2 {
		t.Fatalf("%d chunks, want 2", len(pieces))
	}
	var lod0, lod1 []uint32
	for k, p := range pieces {
		if p.name != payload.ChunkName("terrain", 2, k) {
			t.Errorf("chunk %d named %q", k, p.name)
		}
		if len(p.verts) > payload.MaxChunkVertices {
			t.Errorf("chunk %d: %d vertices", k, len(p.verts))
		}
		for _, ix := range p.lod0 {
			lod0 = append(lod0, p.verts[ix])
		}
		if len(p.lods) != 1 {
			t.Fatalf("chunk %d: %d levels, want 1 (the empty second level ends the chain)", k, len(p.lods))
		}
		for _, ix := range p.lods[0] {
			lod1 = append(lod1, p.verts[ix])
		}
	}
	if !reflect.DeepEqual(lod0, s.Indices) {
		t.Error("chunks' LOD0 triangles, mapped back, differ from the submesh's")
	}
	if !sameTriangles(lod1, lvl) {
		t.Error("chunks' LOD1 triangles, mapped back, are not the level's triangles")
	}
}

func sameTriangles(a, b []uint32) bool {
	count := map[[3]uint32]int{}
	for i := 0; i+2 < len(a); i += 3 {
		count[[3]uint32{a[i], a[i+1], a[i+2]}]++
	}
	for i := 0; i+2 < len(b); i += 3 {
		count[[3]uint32{b[i], b[i+1], b[i+2]}]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

// Up to 65,535 vertices a submesh is one piece named <name>/<i>, and its
// levels stop at the first empty one.
func TestSplitSubmeshSmall(t *testing.T) {
	s := gridSubmesh(4)
	pieces, err := splitSubmesh("box", 3, s, []simplify.Level{{Indices: s.Indices[:6]}, {}, {Indices: s.Indices[:3]}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 1 || pieces[0].name != "box/3" || len(pieces[0].lods) != 1 || len(pieces[0].verts) != 16 {
		t.Fatalf("pieces %+v", pieces)
	}
}

// The samples cook into a world whose handles are dense per kind in sorted
// stable-name order, whose meshes carry LODS trailers at the default
// distances, and whose materials are .hmat rows.
func TestCNBWorldSamples(t *testing.T) {
	out, meta, sections := cookWorldDir(t, samplesDir(), nil)
	lb, _ := os.ReadFile(filepath.Join(out, WorldLockName))
	lock, err := ParseWorldLock(lb)
	if err != nil {
		t.Fatal(err)
	}
	var meshes, mats, texs []string
	for _, r := range lock.Resources {
		switch r.Kind {
		case "Mesh":
			meshes = append(meshes, r.Name)
			if int(r.Handle) != len(meshes)-1 {
				t.Errorf("%s: handle %d, want %d (sorted name order)", r.Name, r.Handle, len(meshes)-1)
			}
		case "Material":
			mats = append(mats, r.Name)
		case "Texture":
			texs = append(texs, r.Name)
		}
	}
	wantMats := []string{"box/checker", "models/chair/leather", "models/chair/material_0"}
	if !reflect.DeepEqual(mats, wantMats) {
		t.Errorf("materials %v, want %v", mats, wantMats)
	}
	// box's material "checker" samples image "checker": a Texture with the
	// same name, whose ref hash the material row's base color slot holds.
	if !reflect.DeepEqual(texs, []string{"box/checker"}) {
		t.Errorf("textures %v, want [box/checker]", texs)
	}
	for _, r := range meta.Resources {
		if r.Kind == cnb.Material && r.Handle == 0 {
			row, err := hmat.Decode(append(hmatHeader(1), r.Data...))
			if err != nil {
				t.Fatal(err)
			}
			if row[0].BaseColorTex != hmat.Hash("box/checker") {
				t.Errorf("box/checker base color slot %016x, want Hash(box/checker)", row[0].BaseColorTex)
			}
		}
		if r.Kind == cnb.Texture {
			f, err := ktx2.Decode(resourcePayload(meta, sections, cnb.Texture, r.Handle))
			if err != nil || ktx2.Validate(f) != nil {
				t.Errorf("texture payload: %v", err)
			}
		}
	}
	if len(meshes) != 9 || meshes[0] != "box/0" || meshes[8] != "terrain/0" {
		t.Errorf("meshes %v", meshes)
	}
	if len(meta.MeshBounds) != 9 {
		t.Errorf("%d bounds records, want 9", len(meta.MeshBounds))
	}
	for _, r := range meta.Resources {
		if r.Kind == cnb.Material && len(r.Data) != 96 {
			t.Errorf("material %d: %d data bytes, want a 96-byte .hmat row", r.Handle, len(r.Data))
		}
	}
	// terrain (33×33 grid) has both LOD levels at the default distances.
	m, err := payload.Parse(resourcePayload(meta, sections, cnb.Mesh, 8))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.LODs) != 2 {
		t.Fatalf("terrain: %d LODs, want 2", len(m.LODs))
	}
	lo, hi := payload.Bounds(m.Vertices)
	for k, l := range m.LODs {
		if want := payload.DefaultSwitchDistance(payload.HalfDiagonal(lo, hi), k+1); l.SwitchDistance != want {
			t.Errorf("LOD%d at %g, want the default %g", k+1, l.SwitchDistance, want)
		}
	}
	if meta.PhysicsBudget != nil {
		t.Errorf("physics budget %+v without heightfields, want none", meta.PhysicsBudget)
	}
}

// Project LOD distances replace the default rule.
func TestCNBWorldLODDistances(t *testing.T) {
	_, meta, sections := cookWorldDir(t, samplesDir(), func(o *Options) { o.LOD.Distances = []float32{7, 7.5} })
	m, err := payload.Parse(resourcePayload(meta, sections, cnb.Mesh, 8))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.LODs) != 2 || m.LODs[0].SwitchDistance != 7 || m.LODs[1].SwitchDistance != 7.5 {
		t.Errorf("LODs %+v, want distances 7 and 7.5", m.LODs)
	}
	opts := DefaultOptions()
	for _, d := range [][]float32{{7}, {8, 7}, {-1, 2}} {
		opts.LOD.Distances = d
		if opts.Validate() == nil {
			t.Errorf("distances %v accepted", d)
		}
	}
}

// namedPayloads maps each resource's stable name to its payload or data
// bytes, read through the lock.
func namedPayloads(t *testing.T, out string) map[string][]byte {
	t.Helper()
	meta, sections := readWorld(t, out)
	lb, _ := os.ReadFile(filepath.Join(out, WorldLockName))
	lock, err := ParseWorldLock(lb)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]byte{}
	for _, lr := range lock.Resources {
		k, _ := cnb.ParseResourceKind(lr.Kind)
		for _, r := range meta.Resources {
			if r.Kind == k && r.Handle == lr.Handle {
				if r.Payload != nil {
					got[lr.Name] = resourcePayload(meta, sections, k, r.Handle)
				} else {
					got[lr.Name] = r.Data
				}
			}
		}
	}
	return got
}

// A small ceiling spreads the payloads over several blobs that load back
// to the same resources; a later cook with the default ceiling removes the
// stale higher blobs (and only those).
func TestCNBWorldCeilingAndStaleBlobs(t *testing.T) {
	jobs, err := Plan([]string{samplesDir()})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.OutDir = t.TempDir()
	opts.Targets = []string{TargetCNB}
	opts.BlobCeiling = 3000
	if rep, err := Run(context.Background(), jobs, opts); err != nil || len(rep.Errors) > 0 {
		t.Fatalf("%v %v", err, rep)
	}
	small := namedPayloads(t, opts.OutDir)
	n := len(outputsIn(t, filepath.Join(opts.OutDir, WorldDataDir)))
	if n < 4 {
		t.Fatalf("%d blobs under a 3000-byte ceiling, want several", n)
	}
	keep := []string{"notes.txt", "07", "blobs"}
	for _, k := range keep {
		writeFile(t, filepath.Join(opts.OutDir, WorldDataDir, k), []byte("x"))
	}

	opts.BlobCeiling = DefaultBlobCeiling
	if rep, err := Run(context.Background(), jobs, opts); err != nil || len(rep.Errors) > 0 {
		t.Fatalf("%v %v", err, rep)
	}
	got := outputsIn(t, filepath.Join(opts.OutDir, WorldDataDir))
	want := append([]string{"0"}, keep...)
	if !sameSet(got, want) {
		t.Errorf("data/ holds %v, want %v (stale blobs removed, other files kept)", got, want)
	}
	big := namedPayloads(t, opts.OutDir)
	if !reflect.DeepEqual(small, big) {
		t.Error("resources differ between the split world and the single-blob world")
	}
}

func outputsIn(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

// Scenes own the resources only their sources make; a source in two
// scenes stays global. Scene payloads pack after the global ones, in
// blobs of their own.
func TestCNBWorldScenes(t *testing.T) {
	out, meta, _ := cookWorldDir(t, samplesDir(), func(o *Options) {
		o.Scenes = []SceneSpec{
			{Name: "furniture", Sources: []string{"models/*.glb", "strips.glb"}},
			{Name: "outdoors", Sources: []string{"terrain.gltf", "strips.glb"}},
			{Name: "empty", Sources: []string{"nothing/**"}},
		}
	})
	if len(meta.SceneGroups) != 3 {
		t.Fatalf("%d scene groups, want 3", len(meta.SceneGroups))
	}
	lb, _ := os.ReadFile(filepath.Join(out, WorldLockName))
	lock, _ := ParseWorldLock(lb)
	scenes := map[string]string{}
	blob := map[string]uint32{}
	for _, r := range lock.Resources {
		scenes[r.Name], blob[r.Name] = r.Scene, r.Blob
	}
	for name, want := range map[string]string{"models/chair/0": "furniture", "models/chair/leather": "furniture", "terrain/0": "outdoors", "strips/0": "", "box/0": ""} {
		if scenes[name] != want {
			t.Errorf("%s in scene %q, want %q", name, scenes[name], want)
		}
	}
	if blob["box/0"] != 0 || blob["strips/0"] != 0 || blob["models/chair/0"] != 1 || blob["terrain/0"] != 2 {
		t.Errorf("blobs %v: want globals in 0, furniture in 1, outdoors in 2", blob)
	}
	if g := meta.SceneGroups[0]; g.Scene != 0 || len(g.Resources) != 7 { // 5 meshes + 2 materials
		t.Errorf("furniture group %+v", g)
	}
	if len(meta.SceneGroups[2].Resources) != 0 {
		t.Errorf("empty scene group %+v", meta.SceneGroups[2])
	}
}

// The lock is checked against the blobs: a changed blob, a stale blob
// beside them, or a hand-edited lock is caught.
func TestCheckWorldCatchesTampering(t *testing.T) {
	out, _, _ := cookWorldDir(t, samplesDir(), func(o *Options) { o.BlobCeiling = 40000 })
	lb, _ := os.ReadFile(filepath.Join(out, WorldLockName))
	lock, err := ParseWorldLock(lb)
	if err != nil {
		t.Fatal(err)
	}
	if len(lock.Blobs) < 2 {
		t.Fatalf("%d blobs, want at least 2", len(lock.Blobs))
	}
	b1 := filepath.Join(out, "data", "1")
	orig, _ := os.ReadFile(b1)
	bad := bytes.Clone(orig)
	bad[len(bad)-1] ^= 1
	writeFile(t, b1, bad)
	if _, err := CheckWorld(out, lock); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("changed blob: %v", err)
	}
	writeFile(t, b1, orig)
	stale := filepath.Join(out, "data", "9")
	writeFile(t, stale, orig)
	if _, err := CheckWorld(out, lock); err == nil || !strings.Contains(err.Error(), "stale blob data/9") {
		t.Errorf("stale blob: %v", err)
	}
	os.Remove(stale)

	edits := map[string]func(l *WorldLock){
		"format":   func(l *WorldLock) { l.Format = "x" },
		"unsorted": func(l *WorldLock) { l.Resources[0], l.Resources[1] = l.Resources[1], l.Resources[0] },
		"kind":     func(l *WorldLock) { l.Resources[0].Kind = "Sound" },
		"path":     func(l *WorldLock) { l.Blobs[0].Path = "data/00" },
		"sha":      func(l *WorldLock) { l.Blobs[0].SHA256 = "abc" },
		"blob":     func(l *WorldLock) { l.Resources[0].Blob = 99 },
		"dense":    func(l *WorldLock) { l.Resources[0].Handle = 50 },
	}
	for name, edit := range edits {
		var l WorldLock
		if err := json.Unmarshal(lb, &l); err != nil {
			t.Fatal(err)
		}
		edit(&l)
		b, _ := encodeLock(&l)
		if _, err := ParseWorldLock(b); err == nil {
			t.Errorf("%s: edited lock accepted", name)
		}
	}
	if _, err := ParseWorldLock(append(bytes.Clone(lb[:len(lb)-2]), []byte(`, "extra": 1}`)...)); err == nil {
		t.Error("unknown lock field accepted")
	}
	// A lock whose resource names a different blob than its locator.
	var l WorldLock
	json.Unmarshal(lb, &l)
	for i := range l.Resources {
		if l.Resources[i].Blob == 1 {
			l.Resources[i].Blob = 0
			break
		}
	}
	if _, err := CheckWorld(out, &l); err == nil || !strings.Contains(err.Error(), "locator") {
		t.Errorf("moved resource: %v", err)
	}
}

// A world is written only when every source cooked.
func TestCNBWorldNotWrittenOnFailure(t *testing.T) {
	dir := t.TempDir()
	b, _ := os.ReadFile(filepath.Join(samplesDir(), "strips.glb"))
	writeFile(t, filepath.Join(dir, "ok.glb"), b)
	writeFile(t, filepath.Join(dir, "bad.glb"), []byte("glTF nonsense"))
	jobs, err := Plan([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.OutDir = t.TempDir()
	opts.Targets = []string{TargetCNB}
	rep, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.InputErrors != 1 || !strings.Contains(strings.Join(rep.Warnings, "\n"), "world not written") {
		t.Errorf("errors %v warnings %v", rep.Errors, rep.Warnings)
	}
	if _, err := os.Stat(filepath.Join(opts.OutDir, WorldLockName)); !os.IsNotExist(err) {
		t.Errorf("lock written for a failed cook: %v", err)
	}
}

// A submesh with skin influences becomes a SkinnedMesh whose joints are
// the skeleton's bind pose (parents first, rotation as YXZ degrees), whose
// weights are normalised and whose morph targets are sparsified; it gets
// no MeshBoundsRecord. A static submesh beside it stays a Mesh.
func TestCNBSkinnedMesh(t *testing.T) {
	quad := func() mesh.Submesh {
		return mesh.Submesh{
			Material:  -1,
			Positions: []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
			Normals:   []mesh.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
			UV0:       []mesh.Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}},
			Indices:   []uint32{0, 1, 2, 0, 2, 3},
		}
	}
	skinned := quad()
	skinned.Joints = [][4]uint16{{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}}
	skinned.Weights = []mesh.Vec4{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {2, 0, 0, 0}, {1, 0, 0, 0}}
	skinned.Morphs = []mesh.MorphTarget{{Name: "lift", Positions: []mesh.Vec3{{0, 0, 0}, {0, 0, 0}, {0, 0, 0.5}, {0, 0, 0}}}}
	// The child is listed before its parent: the payload must reorder.
	sk := &mesh.Skeleton{Joints: []mesh.Joint{
		{Name: "tip", Parent: 1, BindT: mesh.Vec3{0, 1, 0}, BindR: mesh.Vec4{0, 0.7071068, 0, 0.7071068}, BindS: mesh.Vec3{1, 1, 1}},
		{Name: "root", Parent: -1, BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}},
	}}
	scene := &mesh.Scene{Submeshes: []mesh.Submesh{skinned}, Skeleton: sk}
	job := Job{Source: "rig.glb", Rel: "rig.glb", Name: "rig", SourceRef: "rig"}
	opts := DefaultOptions()
	opts.LOD.Ratios = nil
	c, err := process(context.Background(), job, scene, opts, newStopwatch())
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := cnbResources(job, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].kind != cnb.SkinnedMesh || res[0].bounds != nil || res[0].name != "rig/0" {
		t.Fatalf("resources %+v", res)
	}
	m, err := payload.DecodeSkinnedWithLODs(res[0].payload)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Joints) != 2 || m.Joints[0].Name != "root" || m.Joints[1].Name != "tip" || m.Joints[1].Parent != 0 {
		t.Fatalf("joints %+v, want root then tip", m.Joints)
	}
	if r := m.Joints[1].RotationDeg; r[1] < 89.99 || r[1] > 90.01 {
		t.Errorf("tip rotation %v, want yaw 90°", r)
	}
	for _, v := range m.Vertices {
		sum := v.Weights[0] + v.Weights[1] + v.Weights[2] + v.Weights[3]
		if sum < 0.9999 || sum > 1.0001 {
			t.Errorf("weights %v do not sum to 1", v.Weights)
		}
		// Source joint 0 (tip) is payload joint 1 after the reorder.
		if v.Position == [3]float32{0, 0, 0} && v.Joints[0] != 1 {
			t.Errorf("vertex at origin bound to joint %d, want 1 (tip, remapped)", v.Joints[0])
		}
	}
	if m.Morphs == nil || len(m.Morphs.Targets) != 1 || len(m.Morphs.Entries) != 1 || m.Morphs.Entries[0].Position[2] != 0.5 {
		t.Errorf("morphs %+v, want one kept entry", m.Morphs)
	}

	// Through the world: no bounds record for the skinned mesh.
	w, err := buildWorld(res, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.meta.MeshBounds) != 0 || w.meta.Resources[0].Kind != cnb.SkinnedMesh {
		t.Errorf("meta %+v", w.meta)
	}
	if _, err := CheckWorldImages(w.images); err != nil {
		t.Error(err)
	}
}

// Two resources of one kind with one stable name are bad input naming a
// source; a material and a texture may share a name.
func TestBuildWorldDuplicateNames(t *testing.T) {
	mk := func(name string, kind cnb.ResourceKind, src string) cnbResource {
		return cnbResource{name: name, kind: kind, data: []byte{1}, source: src}
	}
	opts := DefaultOptions()
	if _, err := buildWorld([]cnbResource{mk("a/m", cnb.Material, "a.glb"), mk("a/m", cnb.Texture, "a.glb")}, opts); err != nil {
		t.Errorf("material and texture sharing a name: %v", err)
	}
	_, err := buildWorld([]cnbResource{mk("a/m", cnb.Material, "a.glb"), mk("a/m", cnb.Material, "b/a.glb")}, opts)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "a/m") {
		t.Errorf("duplicate material names: %v, want an InputError naming a/m", err)
	}
}

// A morph-only mesh (no skeleton) is a skinned payload with zero joints
// whose MRPS block carries the targets (formats.md §2; issue #6).
func TestCNBMorphOnlyMesh(t *testing.T) {
	s := mesh.Submesh{
		Material:  -1,
		Positions: []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}},
		Normals:   []mesh.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		Indices:   []uint32{0, 1, 2},
		Morphs:    []mesh.MorphTarget{{Name: "bulge", Positions: []mesh.Vec3{{0, 0, 0}, {0, 0, 0.25}, {0, 0, 0}}}},
	}
	scene := &mesh.Scene{Submeshes: []mesh.Submesh{s}}
	job := Job{Source: "blob.glb", Rel: "blob.glb", Name: "blob", SourceRef: "blob"}
	opts := DefaultOptions()
	opts.LOD.Ratios = nil
	c, err := process(context.Background(), job, scene, opts, newStopwatch())
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := cnbResources(job, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].kind != cnb.SkinnedMesh {
		t.Fatalf("resources %+v, want one SkinnedMesh", res)
	}
	m, err := payload.DecodeSkinnedWithLODs(res[0].payload)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Joints) != 0 || m.Morphs == nil || len(m.Morphs.Targets) != 1 || len(m.Morphs.Entries) != 1 {
		t.Fatalf("joints %d, morphs %+v; want 0 joints and one morph entry", len(m.Joints), m.Morphs)
	}
	for _, v := range m.Vertices {
		if v.Weights != [4]float32{1, 0, 0, 0} {
			t.Errorf("weights %v, want rigid [1 0 0 0]", v.Weights)
		}
	}
}
