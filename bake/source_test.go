package bake

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/importer/fbx"
	gltfimport "github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/internal/srcpath"
	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var skinnedFixture = filepath.Join("..", "testdata", "catalog", "skinned", "knight.gltf")

var update = flag.Bool("update", false, "rewrite testdata/catalog/skinned/knight.gltf from its generator")

// The committed fixture is what the generator writes (go test ./bake -run
// Fixture -update rewrites it).
func TestSkinnedFixtureUpToDate(t *testing.T) {
	want := generateSkinnedGLTF(fixtureOptions{})
	if *update {
		if err := os.WriteFile(skinnedFixture, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(skinnedFixture)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is not what generateSkinnedGLTF writes (go test ./bake -run Fixture -update)", skinnedFixture)
	}
}

var knightCatalog = filepath.Join("..", "testdata", "catalog", "knight.json")

// canonicalSubmeshes imports a source and canonicalizes each submesh the
// way a bake must (tangents, colours and morphs dropped; normals generated
// when missing; no tangents), independently of the bake's code path.
func canonicalSubmeshes(t *testing.T, sc *mesh.Scene) []mesh.Submesh {
	t.Helper()
	var out []mesh.Submesh
	for _, s := range sc.Submeshes {
		s.Tangents, s.Colors, s.Morphs = nil, nil, nil
		if _, err := mesh.Canonicalize(&s, mesh.CanonicalOptions{NoTangents: true}); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// expectVertices checks that e.Rigged[from:] starts with sub's vertices,
// bit for bit (position, normal, UV, joints as u8, weights), with the given
// colour role, and returns the index after them.
func expectVertices(t *testing.T, e *meshpack.Entry, from int, sub mesh.Submesh, role uint8) int {
	t.Helper()
	if from+len(sub.Positions) > len(e.Rigged) {
		t.Fatalf("%s: %d vertices from %d for %s, entry has %d", e.Name, len(sub.Positions), from, sub.Name, len(e.Rigged))
	}
	for k := range sub.Positions {
		v := e.Rigged[from+k]
		want := meshpack.RiggedVertex{Position: sub.Positions[k], Normal: sub.Normals[k], ColorRole: role}
		if sub.UV0 != nil {
			want.TexCoord = sub.UV0[k]
		}
		for j := 0; j < 4; j++ {
			want.BoneIndices[j] = uint8(sub.Joints[k][j])
			want.BoneWeights[j] = sub.Weights[k][j]
		}
		if v != want {
			t.Fatalf("%s: vertex %d (%s vertex %d)\n got %+v\nwant %+v", e.Name, from+k, sub.Name, k, v, want)
		}
	}
	return from + len(sub.Positions)
}

// influences reads a vertex's non-zero (joint, weight) pairs.
func influences(v meshpack.RiggedVertex) influenceSet {
	m := influenceSet{}
	for j := 0; j < 4; j++ {
		if v.BoneWeights[j] != 0 {
			m[int(v.BoneIndices[j])] += v.BoneWeights[j]
		}
	}
	return m
}

func sameInfluence(a, b influenceSet) bool {
	if len(a) != len(b) {
		return false
	}
	for j, w := range a {
		if math.Abs(float64(w-b[j])) > 1e-6 {
			return false
		}
	}
	return true
}

// The knight catalog's source parts bake to rigged vertices carrying the
// source's joints and weights: equal, vertex for vertex, to the source
// after canonicalization, and (independently of the importer) to the
// generator's own influence rule at every position.
func TestBakeSourceParts(t *testing.T) {
	b, rep, err := Bake(context.Background(), knightCatalog, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, err := meshpack.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := meshpack.Validate(p); err != nil {
		t.Fatal(err)
	}
	names := []string{"humanoid/0/1/heroes/knight/base", "humanoid/0/1/heroes/knight/armed", "humanoid/1/1/heroes/knight/base"}
	if p.Family != meshpack.Rigged || len(p.Entries) != len(names) {
		t.Fatalf("%s pack with %d entries", p.Family, len(p.Entries))
	}
	for i, e := range p.Entries {
		if e.Name != names[i] || rep.Entries[i].Name != names[i] {
			t.Errorf("entry %d %q, want %q", i, e.Name, names[i])
		}
	}
	sc, err := gltfimport.Load(skinnedFixture, gltfimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	subs := canonicalSubmeshes(t, sc)
	if len(subs) != 4 || subs[0].Name != "Body/0" || subs[1].Name != "Body/1" || subs[2].Name != "Cape/0" {
		t.Fatalf("fixture submeshes %d", len(subs))
	}
	body0, body1, cape := subs[0], subs[1], subs[2]
	if len(body1.Positions) >= 36 || body1.Normals == nil {
		t.Fatalf("the helmet was not welded or got no normals: %d vertices", len(body1.Positions))
	}

	// base: Body/0, Body/1 (source materials 0 and 1), Cape/0 (material 7).
	base := &p.Entries[0]
	n := expectVertices(t, base, 0, body0, 1)
	n = expectVertices(t, base, n, body1, 1)
	n = expectVertices(t, base, n, cape, 2)
	if n != len(base.Rigged) {
		t.Errorf("base: %d vertices, sources have %d", len(base.Rigged), n)
	}
	tris := body0.TriangleCount() + body1.TriangleCount() + cape.TriangleCount()
	if er := rep.Entries[0]; er.TrianglesBefore != tris || er.TrianglesAfter != tris || er.SourceTriangles != tris || er.SourceMeshes != 3 {
		t.Errorf("base report %+v, want %d source triangles before and after", er, tris)
	}
	// Ranges: material 0 (Body/0), 1 (Body/1), 7 (Cape/0), in that order.
	n0, n1, n2 := uint32(3*body0.TriangleCount()), uint32(3*body1.TriangleCount()), uint32(3*cape.TriangleCount())
	wantRanges := []meshpack.Range{{FirstIndex: 0, IndexCount: n0}, {FirstIndex: n0, IndexCount: n1}, {FirstIndex: n0 + n1, IndexCount: n2}}
	if !slices.Equal(base.Ranges, wantRanges) {
		t.Errorf("base ranges %v, want %v", base.Ranges, wantRanges)
	}
	// The cape's triangles index its own vertices, shifted past the body's.
	off := uint32(len(body0.Positions) + len(body1.Positions))
	for k, x := range cape.Indices {
		if base.Indices[wantRanges[2].FirstIndex+uint32(k)] != x+off {
			t.Fatalf("cape index %d: %d, want %d", k, base.Indices[wantRanges[2].FirstIndex+uint32(k)], x+off)
		}
	}
	// Independent of the importer: every source vertex's influences are the
	// generator's rule at its position.
	for k, v := range base.Rigged {
		which := "Cape/0"
		switch {
		case k < len(body0.Positions):
			which = "Body/0"
		case k < int(off):
			which = "Body/1"
		}
		if got, want := influences(v), fixtureInfluence(which, v.Position); !sameInfluence(got, want) {
			t.Fatalf("base vertex %d (%s at %v): influences %v, want %v", k, which, v.Position, got, want)
		}
	}

	// armed: the same source vertices, then the primitive parts on bones.
	armed := &p.Entries[1]
	if !slices.Equal(armed.Rigged[:len(base.Rigged)], base.Rigged) {
		t.Error("armed does not start with base's source vertices")
	}
	for _, v := range armed.Rigged[len(base.Rigged):] {
		if inf := influences(v); !sameInfluence(inf, influenceSet{3: 1}) && !sameInfluence(inf, influenceSet{0: 0.5, 1: 0.5}) {
			t.Fatalf("armed primitive vertex with influences %v", inf)
		}
	}
	if er := rep.Entries[1]; er.SourceTriangles != tris || er.TrianglesAfter >= er.TrianglesBefore || er.TrianglesAfter != len(armed.Indices)/3 {
		t.Errorf("armed report %+v", er)
	}
	// LOD 1 selects one primitive by its full name.
	lod1 := &p.Entries[2]
	if expectVertices(t, lod1, 0, body0, 1) != len(lod1.Rigged) || len(lod1.Ranges) != 1 {
		t.Errorf("lod 1: %d vertices, %d ranges", len(lod1.Rigged), len(lod1.Ranges))
	}
	if rep.SourceTriangles != 2*tris+body0.TriangleCount() {
		t.Errorf("report counts %d source triangles", rep.SourceTriangles)
	}
	// Pinned (docs/catalog.md quotes them): a change is a change to the
	// fixture, the canonicalization or tessellation.
	if rep.TrianglesBefore != 3468 || rep.TrianglesAfter != 1284 || rep.SourceTriangles != 192 {
		t.Errorf("knight catalog: %d → %d triangles, %d from sources; pinned 3468 → 1284, 192", rep.TrianglesBefore, rep.TrianglesAfter, rep.SourceTriangles)
	}

	// Deterministic bytes, and the independent checker agrees.
	again, _, err := Bake(context.Background(), knightCatalog, DefaultOptions())
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("second bake differs (%v)", err)
	}
	meshcheckPack(t, "pack.rmpk", b, len(p.Entries), rep.TrianglesAfter)
	t.Logf("knight catalog: %d → %d triangles, %d from source meshes", rep.TrianglesBefore, rep.TrianglesAfter, rep.SourceTriangles)
}

// meshcheckPack writes pack bytes to a file called name, runs
// tools/meshcheck.py over it and checks its entry and triangle counts;
// skips without the script, python3 or zstd.
func meshcheckPack(t *testing.T, name string, pack []byte, entries, triangles int) {
	t.Helper()
	script := testkit.Meshcheck(t)
	if _, err := exec.LookPath("zstd"); err != nil {
		testkit.Missing(t, "zstd command not found; meshcheck needs it for packs (apt-get install zstd)")
	}
	out := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(out, pack, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := exec.Command("python3", script, "--json", out).Output()
	var r struct {
		OK        bool `json:"ok"`
		Entries   int  `json:"entries"`
		Triangles int  `json:"triangles"`
	}
	if json.Unmarshal(res, &r) != nil || !r.OK {
		t.Fatalf("meshcheck: %s (%v)", res, err)
	}
	if r.Entries != entries || r.Triangles != triangles {
		t.Errorf("meshcheck counts %d entries/%d triangles, want %d/%d", r.Entries, r.Triangles, entries, triangles)
	}
}

// copyKnight puts the knight catalog and its source in a fresh folder.
func copyKnight(t *testing.T) (dir, catalog string) {
	t.Helper()
	dir = t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "skinned"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ from, to string }{{knightCatalog, "knight.json"}, {skinnedFixture, "skinned/knight.gltf"}} {
		b, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.to), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "knight.json")
}

// Check re-reads source files: editing one makes the entries that use it
// differ, and only those.
func TestCheckAfterSourceEdit(t *testing.T) {
	dir, cat := copyKnight(t)
	pack := filepath.Join(dir, "knight.rmpk")
	b, _, err := Bake(context.Background(), cat, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pack, b, 0o644)
	res, err := Check(context.Background(), cat, pack, DefaultOptions())
	if err != nil || !res.OK() || !res.Identical {
		t.Fatalf("fresh pack: %+v %v", res.Diffs, err)
	}
	// Give the helmet (Body/1) the cloth material: the LOD 1 set, which
	// takes Body/0 only, stays the same.
	src := filepath.Join(dir, "skinned", "knight.gltf")
	gltf, _ := os.ReadFile(src)
	edited := strings.Replace(string(gltf), `"material": 1`, `"material": 0`, 1)
	if edited == string(gltf) {
		t.Fatal("edit did not apply")
	}
	os.WriteFile(src, []byte(edited), 0o644)
	res, err = Check(context.Background(), cat, pack, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := diffNames(res); got != "humanoid/0/1/heroes/knight/base humanoid/0/1/heroes/knight/armed" {
		t.Errorf("after editing the source: diffs %q", got)
	}
	// A source that disappears is an error naming the catalog and file.
	os.Remove(src)
	_, err = Check(context.Background(), cat, pack, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), cat) || !strings.Contains(err.Error(), `"skinned/knight.gltf"`) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing source: %v", err)
	}
}

// Source parts that cannot be baked are refused: at parse time for what
// the catalog alone shows, at bake time (naming the catalog and the source
// file) for what the file shows.
func TestSourcePartRefusals(t *testing.T) {
	dir, _ := copyKnight(t)
	write := func(name string, b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("static.gltf", generateSkinnedGLTF(fixtureOptions{noSkin: true}))
	write("many.gltf", generateSkinnedGLTF(fixtureOptions{extraJoints: MaxSourceJoints - 3}))
	write("max.gltf", generateSkinnedGLTF(fixtureOptions{extraJoints: MaxSourceJoints - 4}))
	outside := filepath.Join(t.TempDir(), "outside.gltf")
	os.WriteFile(outside, generateSkinnedGLTF(fixtureOptions{}), 0o644)
	if err := os.Symlink(outside, filepath.Join(dir, "link.gltf")); err != nil {
		t.Fatal(err)
	}
	catalog := func(family, parts string) string {
		return `{"version": 1, "family": "` + family + `", "entries": [{"name": "h/0", "states": [{"name": "s", "parts": [` + parts + `]}]}]}`
	}
	cases := []struct {
		name, family, parts string
		parse               bool // refused by ParseCatalog already
		want                string
	}{
		{"escaping path", "rigged", `{"source": "../knight.gltf"}`, true, "leaves the catalog's folder"},
		{"escaping after clean", "rigged", `{"source": "skinned/../../knight.gltf"}`, true, "leaves the catalog's folder"},
		{"absolute path", "rigged", `{"source": "/etc/knight.gltf"}`, true, "leaves the catalog's folder"},
		{"backslash", "rigged", `{"source": "skinned\\knight.gltf"}`, true, "leaves the catalog's folder"},
		{"empty source", "rigged", `{"source": ""}`, true, "source is empty"},
		{"kind", "rigged", `{"source": "knight.obj"}`, true, `unsupported kind ".obj"`},
		{"static catalog", "static", `{"source": "skinned/knight.gltf"}`, true, `source parts need "family": "rigged"`},
		{"primitive fields", "rigged", `{"source": "skinned/knight.gltf", "primitive": "box", "bone": 1, "scale": [1, 1, 1]}`, true, "primitive, scale, bone do not apply to a source part"},
		{"mesh without source", "rigged", `{"primitive": "box", "bone": 0, "mesh": "Body"}`, true, "mesh applies to source parts only"},
		{"empty mesh", "rigged", `{"source": "skinned/knight.gltf", "mesh": ""}`, true, "mesh is empty"},
		{"role", "rigged", `{"source": "skinned/knight.gltf", "role": 256}`, true, "role 256"},
		{"unknown field", "rigged", `{"source": "skinned/knight.gltf", "meshes": ["Body"]}`, true, `unknown field "meshes"`},
		{"missing file", "rigged", `{"source": "skinned/nothere.gltf"}`, false, "no such file"},
		{"non-skinned file", "rigged", `{"source": "static.gltf"}`, false, "not skinned (the file has no skin)"},
		{"static submesh", "rigged", `{"source": "skinned/knight.gltf"}`, false, `submesh "Prop/0" is not skinned`},
		{"257 joints", "rigged", `{"source": "many.gltf", "mesh": "Body"}`, false, "skeleton has 257 joints"},
		{"no such mesh", "rigged", `{"source": "skinned/knight.gltf", "mesh": "Helmet"}`, false, `no submesh named "Helmet" (the file has Body/0, Body/1, Cape/0, Prop/0)`},
		{"two skeletons", "rigged", `{"source": "skinned/knight.gltf", "mesh": "Body"}, {"name": "cape", "source": "max.gltf", "mesh": "Cape"}`, false, `its skeleton (256 joints) is not the one of "skinned/knight.gltf" (4 joints)`},
		{"bone past skeleton", "rigged", `{"primitive": "box", "name": "sword", "bone": 4}, {"source": "skinned/knight.gltf", "mesh": "Body"}`, false, `part 0 "sword": bone 4, but the skeleton of "skinned/knight.gltf" has 4 joints`},
	}
	for _, c := range cases {
		src := catalog(c.family, c.parts)
		if _, err := ParseCatalog(strings.NewReader(src)); (err != nil) != c.parse {
			t.Errorf("%s: ParseCatalog error %v, want refused %v", c.name, err, c.parse)
			continue
		}
		cat := filepath.Join(dir, "c.json")
		write("c.json", []byte(src))
		_, _, err := Bake(context.Background(), cat, DefaultOptions())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), cat) {
			t.Errorf("%s: error %v\nwant one naming %s and containing %q", c.name, err, cat, c.want)
			continue
		}
		if !c.parse && (!strings.HasPrefix(err.Error(), "bake: ") || !strings.Contains(err.Error(), `.gltf"`)) {
			t.Errorf("%s: error %v does not start with bake: or name the source", c.name, err)
		}
	}
	// A link out of the folder is followed by default (a build system's
	// sandbox is made of them) and refused under strict paths.
	write("c.json", []byte(catalog("rigged", `{"source": "link.gltf", "mesh": "Body"}`)))
	cat := filepath.Join(dir, "c.json")
	_, _, err := Bake(context.Background(), cat, DefaultOptions())
	require.NoError(t, err, "symlink out, default policy")
	strict := DefaultOptions()
	strict.StrictPaths = true
	_, _, err = Bake(context.Background(), cat, strict)
	require.ErrorIs(t, err, srcpath.ErrLinkOutside)
	assert.Contains(t, err.Error(), cat)
	assert.Contains(t, err.Error(), `"link.gltf"`)
	// 256 joints is the most a rigged vertex can index, and bakes.
	write("c.json", []byte(catalog("rigged", `{"source": "max.gltf", "mesh": "Body"}, {"primitive": "box", "bone": 255}`)))
	if _, _, err := Bake(context.Background(), filepath.Join(dir, "c.json"), DefaultOptions()); err != nil {
		t.Errorf("256 joints: %v", err)
	}
}

// Real skinned assets from the shared corpus (skipped when absent): each
// bakes, as a source part, to rigged vertices equal to the source's after
// canonicalization, with weights summing to 1 on joints of its skeleton.
func TestCorpusSourceParts(t *testing.T) {
	corpus := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		testkit.Missing(t, "%s not present (the shared corpus is only on project machines)", corpus)
	}
	files := []struct{ entry, from string }{
		{"cesium_man", "gltf/CesiumMan/glTF-Binary/CesiumMan.glb"},
		{"fox", "gltf/Fox/glTF-Binary/Fox.glb"},
		{"simple_skin", "gltf/SimpleSkin/simple_skin.gltf"},
		{"huesitos", "fbx/assimp_skeleton/huesitos.fbx"},
		{"animation_with_skeleton", "fbx/assimp_skeleton/animation_with_skeleton.fbx"},
	}
	dir := t.TempDir()
	var entries []string
	var present []int
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join(corpus, filepath.FromSlash(f.from)))
		if err != nil {
			t.Logf("skipping %s: %v", f.from, err)
			continue
		}
		// Copied beside the catalog (a source may not leave its folder).
		os.WriteFile(filepath.Join(dir, path.Base(f.from)), b, 0o644)
		entries = append(entries, `{"name": "corpus/0/0/`+f.entry+`", "states": [{"name": "base", "parts": [{"source": "`+path.Base(f.from)+`", "role": 1}]}]}`)
		present = append(present, i)
	}
	if len(present) == 0 {
		testkit.Missing(t, "none of the skinned corpus files is present")
	}
	cat := filepath.Join(dir, "corpus.json")
	os.WriteFile(cat, []byte(`{"version": 1, "family": "rigged", "entries": [`+strings.Join(entries, ", ")+`]}`), 0o644)
	b, rep, err := Bake(context.Background(), cat, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, err := meshpack.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := meshpack.Validate(p); err != nil {
		t.Fatal(err)
	}
	for k, i := range present {
		name := path.Base(files[i].from)
		var sc *mesh.Scene
		if strings.HasSuffix(name, ".fbx") {
			sc, err = fbx.Load(filepath.Join(dir, name), fbx.Options{})
		} else {
			sc, err = gltfimport.Load(filepath.Join(dir, name), gltfimport.Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		e := &p.Entries[k]
		n, tris := 0, 0
		for _, c := range canonicalSubmeshes(t, sc) {
			n = expectVertices(t, e, n, c, 1)
			tris += c.TriangleCount()
		}
		if n != len(e.Rigged) || rep.Entries[k].SourceTriangles != tris || len(e.Indices) != 3*tris {
			t.Errorf("%s: %d vertices / %d triangles, sources %d / %d", e.Name, len(e.Rigged), len(e.Indices)/3, n, tris)
		}
		for _, v := range e.Rigged {
			var sum float32
			for j, w := range v.BoneWeights {
				sum += w
				if w > 0 && int(v.BoneIndices[j]) >= len(sc.Skeleton.Joints) {
					t.Fatalf("%s: joint %d of %d", e.Name, v.BoneIndices[j], len(sc.Skeleton.Joints))
				}
			}
			if math.Abs(float64(sum)-1) > 1e-5 {
				t.Fatalf("%s: weights sum to %v", e.Name, sum)
			}
		}
		t.Logf("%s: %d joints, %d vertices, %d triangles", e.Name, len(sc.Skeleton.Joints), len(e.Rigged), tris)
	}
	if again, _, err := Bake(context.Background(), cat, DefaultOptions()); err != nil || !bytes.Equal(again, b) {
		t.Errorf("second bake differs (%v)", err)
	}
	meshcheckPack(t, "pack.rmpk", b, len(p.Entries), rep.TrianglesAfter)
}

// The report lists the files a bake read besides the catalog: each source
// once, with a glTF's external buffer, relative to the catalog's folder.
// Moving the buffer out of the file changes nothing in the pack.
func TestReportSources(t *testing.T) {
	dir, cat := copyKnight(t)
	embedded, rep, err := Bake(context.Background(), cat, DefaultOptions())
	if err != nil || !slices.Equal(rep.Sources, []string{"skinned/knight.gltf"}) {
		t.Fatalf("sources %q (%v)", rep.Sources, err)
	}
	src := filepath.Join(dir, "skinned", "knight.gltf")
	var doc map[string]any
	b, _ := os.ReadFile(src)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	buf := doc["buffers"].([]any)[0].(map[string]any)
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(buf["uri"].(string), "data:application/octet-stream;base64,"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "skinned", "knight.bin"), data, 0o644)
	buf["uri"] = "knight.bin"
	b, _ = json.Marshal(doc)
	os.WriteFile(src, b, 0o644)
	external, rep, err := Bake(context.Background(), cat, DefaultOptions())
	if err != nil || !slices.Equal(rep.Sources, []string{"skinned/knight.gltf", "skinned/knight.bin"}) {
		t.Fatalf("sources %q (%v)", rep.Sources, err)
	}
	if !bytes.Equal(embedded, external) {
		t.Error("an external buffer bakes differently from the embedded one")
	}
	if _, rep, _ := Bake(context.Background(), example, DefaultOptions()); rep.Sources == nil || len(rep.Sources) != 0 {
		t.Errorf("static catalog sources %#v, want empty", rep.Sources)
	}
}

// flagFBX is a hand-written ASCII FBX 7.4 (metres: UnitScaleFactor 100):
// a 2×1 m flag of two quads, control points at x ∈ {0, 1, 2}, y ∈ {0, 1},
// skinned to bones Root (at the origin) and Tip (x = 2, child of Root)
// with weights Root 1 − x/2, Tip x/2 (zero weights left out).
const flagFBX = `; FBX 7.4.0 project file
FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
}
GlobalSettings:  {
	Version: 1000
	Properties70:  {
		P: "UnitScaleFactor", "double", "Number", "", 100
	}
}
Objects:  {
	Geometry: 100, "Geometry::Flag", "Mesh" {
		Vertices: *18 {
			a: 0,0,0,1,0,0,2,0,0,0,1,0,1,1,0,2,1,0
		}
		PolygonVertexIndex: *8 {
			a: 0,1,4,-4,1,2,5,-5
		}
	}
	Model: 200, "Model::Flag", "Mesh" {
		Version: 232
	}
	Model: 201, "Model::Root", "LimbNode" {
		Version: 232
	}
	Model: 202, "Model::Tip", "LimbNode" {
		Version: 232
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A", 2, 0, 0
		}
	}
	Deformer: 300, "Deformer::Skin", "Skin"
	Deformer: 310, "SubDeformer::Root", "Cluster" {
		Indexes: *4 {
			a: 0,1,3,4
		}
		Weights: *4 {
			a: 1,0.5,1,0.5
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1
		}
	}
	Deformer: 311, "SubDeformer::Tip", "Cluster" {
		Indexes: *4 {
			a: 1,2,4,5
		}
		Weights: *4 {
			a: 0.5,1,0.5,1
		}
		Transform: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,-2,0,0,1
		}
		TransformLink: *16 {
			a: 1,0,0,0,0,1,0,0,0,0,1,0,2,0,0,1
		}
	}
}
Connections:  {
	C: "OO", 200, 0
	C: "OO", 100, 200
	C: "OO", 201, 0
	C: "OO", 202, 201
	C: "OO", 300, 100
	C: "OO", 310, 300
	C: "OO", 201, 310
	C: "OO", 311, 300
	C: "OO", 202, 311
}
`

// An FBX source part: its control points' cluster weights arrive on the
// welded vertices (one per control point) by the generator's rule, next
// to a primitive part on the Tip bone.
func TestFBXSourcePart(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "flag.fbx"), []byte(flagFBX), 0o644)
	cat := filepath.Join(dir, "flag.json")
	os.WriteFile(cat, []byte(`{"version": 1, "family": "rigged", "entries": [{"name": "banner/0", "states": [{"name": "s", "parts": [
		{"source": "flag.fbx", "mesh": "Flag", "role": 5},
		{"primitive": "sphere", "translate": [2, 1, 0], "scale": [0.1, 0.1, 0.1], "bone": 1}]}]}]}`), 0o644)
	b, rep, err := Bake(context.Background(), cat, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, err := meshpack.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	e := &p.Entries[0]
	if rep.Entries[0].SourceTriangles != 4 || rep.Entries[0].SourceMeshes != 1 {
		t.Fatalf("report %+v", rep.Entries[0])
	}
	seen := map[[2]float32]bool{}
	for k := 0; k < 6; k++ {
		v := e.Rigged[k]
		x := v.Position[0]
		want := nonZero(influenceSet{0: 1 - x/2, 1: x / 2})
		if got := influences(v); !sameInfluence(got, want) || v.ColorRole != 5 || v.Normal != [3]float32{0, 0, 1} {
			t.Fatalf("vertex %d at %v: influences %v role %d normal %v, want %v, 5, +Z", k, v.Position, got, v.ColorRole, v.Normal, want)
		}
		seen[[2]float32{x, v.Position[1]}] = true
	}
	if len(seen) != 6 || !sameInfluence(influences(e.Rigged[6]), influenceSet{1: 1}) {
		t.Errorf("%d distinct flag vertices; vertex 6 %+v", len(seen), e.Rigged[6])
	}
	if !slices.Equal(rep.Sources, []string{"flag.fbx"}) {
		t.Errorf("sources %q", rep.Sources)
	}
}
