package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/importer/fbx"
	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/nwb"
)

// importRefusals are the corpus FBX files import refuses, with why.
var importRefusals = map[string]string{
	"maya_anim_light_7500_binary.fbx":         "has no meshes to import",               // a light, no geometry
	"blender_279_edge_vertex_7400_binary.fbx": "selected meshes produced no triangles", // loose vertices and edges only
}

// importOK runs an import that must succeed and returns its stdout.
func importOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := run(t, append([]string{"import"}, args...)...)
	if code != ExitOK {
		t.Fatalf("import %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

// checkNWB asserts an imported file parses, is already canonical and
// cooks.
func checkNWB(t *testing.T, path string, refreshArgs ...string) *nwb.Document {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := nwb.ParseDocument(src, path, "")
	if err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
	if !bytes.Contains(src, []byte("\r\n")) || bytes.Contains(bytes.ReplaceAll(src, []byte("\r\n"), nil), []byte("\n")) {
		t.Errorf("%s: not CRLF throughout", path)
	}
	if code, out, errs := run(t, append([]string{"refresh", "--check", path}, refreshArgs...)...); code != ExitOK {
		t.Errorf("%s is not canonical: exit %d\n%s%s", path, code, out, errs)
	}
	return doc
}

func cookOK(t *testing.T, path string) {
	t.Helper()
	if code, out, errs := run(t, "cook", path, "-o", t.TempDir()); code != ExitOK {
		t.Errorf("cook %s: exit %d\n%s%s", path, code, out, errs)
	}
}

func fbxCorpus(t *testing.T) []string {
	t.Helper()
	dir := testkit.Shared(t, filepath.Join("corpus", "fbx"))
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".fbx") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		t.Skipf("no FBX files under %s", dir)
	}
	return files
}

// TestImportCorpusFBX: every corpus FBX imports to a canonical .nwb that
// parses and cooks, or is refused with its documented reason (exit 3).
func TestImportCorpusFBX(t *testing.T) {
	dir := t.TempDir()
	for _, src := range fbxCorpus(t) {
		base := filepath.Base(src)
		// Two corpus folders hold a box.fbx: keep the folder.
		out := filepath.Join(dir, filepath.Base(filepath.Dir(src)), strings.TrimSuffix(base, filepath.Ext(base))+".nwb")
		code, stdout, errs := run(t, "import", src, "-o", out)
		if why, refused := importRefusals[base]; refused {
			if code != ExitBadInput || !strings.Contains(errs, why) || !strings.Contains(errs, src) {
				t.Errorf("%s: exit %d, %q; want exit 3 naming the file and %q", base, code, errs, why)
			}
			continue
		}
		if code != ExitOK {
			t.Errorf("%s: exit %d\n%s", base, code, errs)
			continue
		}
		if !strings.Contains(stdout, "  tangents: ") || !strings.Contains(stdout, "Imported "+src+" -> "+out) {
			t.Errorf("%s: report lacks the tangent path:\n%s", base, stdout)
		}
		checkNWB(t, out)
		cookOK(t, out)
	}
}

// TestImportCorpusGLTF: a few glTF/GLB sources, static and skinned.
func TestImportCorpusGLTF(t *testing.T) {
	dir := testkit.Shared(t, filepath.Join("corpus", "gltf"))
	tmp := t.TempDir()
	imported := 0
	for _, rel := range []string{
		"Box/glTF-Binary/Box.glb",
		"BoxTextured/glTF/BoxTextured.gltf",
		"BoxVertexColors/BoxVertexColors.glb",
		"NormalTangentTest/NormalTangentTest.glb",
		"MeshPrimitiveModes/MeshPrimitiveModes.gltf",
		"SimpleSkin/simple_skin.gltf",
		"assimp_quad_skin/quad_skin.glb",
		"CesiumMan/glTF-Binary/CesiumMan.glb",
	} {
		src := filepath.Join(dir, filepath.FromSlash(rel))
		if _, err := os.Stat(src); err != nil {
			t.Logf("skipping %s: %v", rel, err)
			continue
		}
		out := filepath.Join(tmp, strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))+".nwb")
		importOK(t, src, "-o", out)
		checkNWB(t, out)
		cookOK(t, out)
		imported++
	}
	if imported < 6 {
		t.Errorf("imported %d of the 8 glTF files; the corpus layout changed?", imported)
	}
}

// TestImportGLTFSelection: a glTF node's mesh is one selectable mesh.
func TestImportGLTFSelection(t *testing.T) {
	src := filepath.Join(testkit.Shared(t, filepath.Join("corpus", "gltf")), "MeshPrimitiveModes", "MeshPrimitiveModes.gltf")
	if _, err := os.Stat(src); err != nil {
		t.Skipf("%s not present", src)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		m    string
		tris int
	}{{"all", 16}, {"first", 6}, {"1", 4}, {"mesh with gl_triangle_fan", 6}, {"gl_triangle", 10}} {
		out := filepath.Join(dir, tc.m+".nwb")
		stdout := importOK(t, src, "-o", out, "-m", tc.m)
		if !strings.Contains(stdout, fmt.Sprintf("  triangles: %d\n", tc.tris)) {
			t.Errorf("-m %s: want %d triangles:\n%s", tc.m, tc.tris, stdout)
		}
	}
}

// TestImportTangentReport: the report names the tangent path the corpus
// files take.
func TestImportTangentReport(t *testing.T) {
	dir := t.TempDir()
	for rel, want := range map[string]string{
		"ufbx_maya_cube/maya_cube_7400_binary.fbx":                "imported",           // Maya writes tangents
		"ufbx_uv_color_sets/maya_uv_set_tangents_7500_binary.fbx": "imported",           // ditto
		"playcanvas_cube/cube.fbx":                                "generated_uv",       // UVs, no tangents
		"assimp_box/box.fbx":                                      "generated_fallback", // no UVs
	} {
		out := filepath.Join(dir, filepath.Base(rel)+".nwb")
		stdout := importOK(t, corpusFile(t, rel), "-o", out)
		if !strings.Contains(stdout, "  tangents: "+want+"\n") {
			t.Errorf("%s: want tangents %s:\n%s", rel, want, stdout)
		}
	}
}

// TestImportBinaryASCIIPairs: the binary and ASCII files of one scene give
// byte-identical .nwb files wherever the importer reads the same mesh.
func TestImportBinaryASCIIPairs(t *testing.T) {
	pairs := 0
	for _, bin := range fbxCorpus(t) {
		if !strings.HasSuffix(bin, "_binary.fbx") {
			continue
		}
		ascii := strings.TrimSuffix(bin, "_binary.fbx") + "_ascii.fbx"
		if _, err := os.Stat(ascii); err != nil {
			continue
		}
		a, errA := fbx.Load(ascii, fbx.Options{})
		b, errB := fbx.Load(bin, fbx.Options{})
		if errA != nil || errB != nil || !reflect.DeepEqual(a.Submeshes, b.Submeshes) {
			t.Logf("%s: the importer reads different meshes (%v, %v); not compared", filepath.Base(bin), errA, errB)
			continue
		}
		pairs++
		// Same output name in two folders: virtual paths agree.
		outA := filepath.Join(t.TempDir(), "scene.nwb")
		outB := filepath.Join(t.TempDir(), "scene.nwb")
		importOK(t, ascii, "-o", outA)
		importOK(t, bin, "-o", outB)
		da, _ := os.ReadFile(outA)
		db, _ := os.ReadFile(outB)
		if !bytes.Equal(da, db) {
			t.Errorf("%s: ASCII and binary imports differ", filepath.Base(bin))
		}
	}
	if pairs < 4 {
		t.Errorf("compared %d ASCII/binary pairs; the corpus has at least 4", pairs)
	}
}

func corpusFile(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(testkit.Shared(t, filepath.Join("corpus", "fbx")), filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not present: %v", p, err)
	}
	return p
}

func readDoc(t *testing.T, path string) *nwb.Document {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := nwb.ParseDocument(src, path, "")
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func meshOf(t *testing.T, doc *nwb.Document) *nwb.Mesh {
	t.Helper()
	for _, a := range doc.Assets {
		if a.Mesh != nil {
			return a.Mesh
		}
	}
	t.Fatal("no mesh asset")
	return nil
}

func TestImportListMeshes(t *testing.T) {
	src := corpusFile(t, "ufbx_blender_282_suzanne/blender_282_suzanne_and_transform_7400_binary.fbx")
	dir := t.TempDir()
	code, out, errs := run(t, "import", src, "--list-meshes")
	want := "INDEX  NAME         MESH         TRIANGLES  SKINNED  HIDDEN\n" +
		"0      Suzanne      Suzanne      968        no       no\n" +
		"1      Transformed  Suzanne.001  968        no       no\n"
	if code != ExitOK || out != want {
		t.Fatalf("exit %d %s\n%q\nwant\n%q", code, errs, out, want)
	}
	// Nothing written beside the source or anywhere else.
	if _, err := os.Stat(strings.TrimSuffix(src, ".fbx") + ".nwb"); err == nil {
		t.Fatal("--list-meshes wrote the default output")
	}
	if code, _, errs := run(t, "import", src, "--list-meshes", "-o", filepath.Join(dir, "x.nwb")); code != ExitUsage || !strings.Contains(errs, "writes nothing") {
		t.Fatalf("--list-meshes with -o: exit %d %s", code, errs)
	}
}

func TestImportMeshSelection(t *testing.T) {
	src := corpusFile(t, "ufbx_blender_282_suzanne/blender_282_suzanne_and_transform_7400_binary.fbx")
	dir := t.TempDir()
	out := func(name string) string { return filepath.Join(dir, name+".nwb") }
	importOK(t, src, "-o", out("all"))
	importOK(t, src, "-o", out("first"), "-m", "first")
	importOK(t, src, "-o", out("index1"), "-m", "1")
	importOK(t, src, "-o", out("name"), "-m", "TRANSFORMED")
	importOK(t, src, "-o", out("sub"), "-m", "transf")
	all, first := meshOf(t, readDoc(t, out("all"))), meshOf(t, readDoc(t, out("first")))
	byIndex, byName, bySub := meshOf(t, readDoc(t, out("index1"))), meshOf(t, readDoc(t, out("name"))), meshOf(t, readDoc(t, out("sub")))
	if len(all.Indices) != 2*968*3 || len(first.Indices) != 968*3 || len(byIndex.Indices) != 968*3 {
		t.Fatalf("triangles: all %d, first %d, index %d", len(all.Indices)/3, len(first.Indices)/3, len(byIndex.Indices)/3)
	}
	if !reflect.DeepEqual(byIndex, byName) || !reflect.DeepEqual(byIndex, bySub) {
		t.Fatal("-m 1, -m TRANSFORMED and -m transf select different meshes")
	}
	if reflect.DeepEqual(first.Positions, byIndex.Positions) {
		t.Fatal("the transformed instance has the first one's positions")
	}
	// "suzanne" is exactly mesh 0's names, so the substring match of
	// mesh 1's "Suzanne.001" does not count; "suzanne." is a substring of
	// that one only.
	importOK(t, src, "-o", out("exact"), "-m", "suzanne")
	if m := meshOf(t, readDoc(t, out("exact"))); !reflect.DeepEqual(m, first) {
		t.Fatalf("-m suzanne: %d triangles, not mesh 0", len(m.Indices)/3)
	}
	importOK(t, src, "-o", out("dot"), "-m", "suzanne.")
	if m := meshOf(t, readDoc(t, out("dot"))); !reflect.DeepEqual(m, byIndex) {
		t.Fatal("-m suzanne. did not select mesh 1")
	}
	for _, tc := range []struct{ m, msg string }{
		{"2", "mesh index 2 out of range (2 meshes; see --list-meshes)"},
		{"monkey", "no mesh matches 'monkey'"},
	} {
		code, _, errs := run(t, "import", src, "-o", out("bad"), "-m", tc.m)
		if code != ExitUsage || !strings.Contains(errs, tc.msg) || !strings.Contains(errs, src) {
			t.Errorf("-m %s: exit %d %q", tc.m, code, errs)
		}
	}
}

func TestImportForce(t *testing.T) {
	src := corpusFile(t, "ufbx_maya_cube/maya_cube_7400_binary.fbx")
	out := filepath.Join(t.TempDir(), "cube.nwb")
	os.WriteFile(out, []byte("keep me"), 0o644)
	code, _, errs := run(t, "import", src, "-o", out)
	if code != ExitUsage || !strings.Contains(errs, out+" exists; pass --force to overwrite it") {
		t.Fatalf("exit %d %q", code, errs)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me" {
		t.Fatal("existing output replaced without --force")
	}
	importOK(t, src, "-o", out, "--force")
	checkNWB(t, out)

	// The default output is the source path with .nwb.
	dir := t.TempDir()
	local := filepath.Join(dir, "Cube.FBX")
	data, _ := os.ReadFile(src)
	os.WriteFile(local, data, 0o644)
	importOK(t, local)
	if _, err := os.Stat(filepath.Join(dir, "Cube.nwb")); err != nil {
		t.Fatalf("default output: %v", err)
	}
	if code, _, _ := run(t, "import", local); code != ExitUsage {
		t.Fatalf("second import without --force: exit %d", code)
	}
}

func TestImportFlipWinding(t *testing.T) {
	src := corpusFile(t, "ufbx_maya_cube/maya_cube_7400_binary.fbx")
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.nwb"), filepath.Join(dir, "b.nwb")
	importOK(t, src, "-o", a, "--asset-type", "mesh")
	importOK(t, src, "-o", b, "--asset-type", "mesh", "--flip-winding")
	checkNWB(t, b)
	ma, mb := meshOf(t, readDoc(t, a)), meshOf(t, readDoc(t, b))
	if len(ma.Indices) != len(mb.Indices) || len(ma.Indices) == 0 {
		t.Fatalf("%d vs %d indices", len(ma.Indices), len(mb.Indices))
	}
	// Same corners in each triangle with 1 and 2 swapped (vertex_refs are
	// numbered by first use, which the swap changes: compare the refs).
	for i := 0; i < len(ma.Indices); i += 3 {
		ra := [3]nwb.VertexRef{ma.VertexRefs[ma.Indices[i]], ma.VertexRefs[ma.Indices[i+1]], ma.VertexRefs[ma.Indices[i+2]]}
		rb := [3]nwb.VertexRef{mb.VertexRefs[mb.Indices[i]], mb.VertexRefs[mb.Indices[i+2]], mb.VertexRefs[mb.Indices[i+1]]}
		pa := [3]any{ma.Positions[ra[0].Position], ma.Positions[ra[1].Position], ma.Positions[ra[2].Position]}
		pb := [3]any{mb.Positions[rb[0].Position], mb.Positions[rb[1].Position], mb.Positions[rb[2].Position]}
		if pa != pb {
			t.Fatalf("triangle %d: %v vs flipped %v", i/3, pa, pb)
		}
	}
}

func TestImportNormalModes(t *testing.T) {
	src := corpusFile(t, "ufbx_maya_cube/maya_cube_7400_binary.fbx")
	dir := t.TempDir()
	counts := map[string]int{}
	for _, mode := range []string{"imported", "smooth", "regenerate"} {
		out := filepath.Join(dir, mode+".nwb")
		stdout := importOK(t, src, "-o", out, "--normal-mode", mode)
		if !strings.Contains(stdout, "  normals: "+mode+"\n") {
			t.Errorf("%s: report %q", mode, stdout)
		}
		checkNWB(t, out)
		m := meshOf(t, readDoc(t, out))
		counts[mode] = len(m.Normals)
	}
	// A cube: 6 face normals imported or regenerated, 8 corner diagonals
	// when smoothed.
	if counts["imported"] != 6 || counts["regenerate"] != 6 || counts["smooth"] != 8 {
		t.Fatalf("normal counts %v", counts)
	}
	if code, _, errs := run(t, "import", src, "-o", filepath.Join(dir, "x.nwb"), "--normal-mode", "flat"); code != ExitUsage || !strings.Contains(errs, "unknown normal mode 'flat'") {
		t.Fatalf("bad mode: exit %d %q", code, errs)
	}
}

// TestImportSkinned: a skinned FBX as a bunch, each asset type, and
// separate assets; every file parses and is canonical.
func TestImportSkinned(t *testing.T) {
	src := corpusFile(t, "assimp_skeleton/huesitos.fbx")
	dir := t.TempDir()
	bunch := filepath.Join(dir, "hero.nwb")
	stdout := importOK(t, src, "-o", bunch)
	if !strings.Contains(stdout, "  joints: 9\n") {
		t.Errorf("report: %q", stdout)
	}
	doc := checkNWB(t, bunch)
	if !slices.Equal(doc.BunchItems, []string{"mesh", "skeleton", "skin", "model"}) {
		t.Fatalf("bunch items %v", doc.BunchItems)
	}
	cookOK(t, bunch)
	for _, at := range []string{"mesh", "model", "skeleton", "skin"} {
		out := filepath.Join(dir, "types", at+".nwb")
		importOK(t, src, "-o", out, "--asset-type", at)
		d := readDoc(t, out)
		if len(d.Assets) != 1 || string(d.Assets[0].Kind) != at {
			t.Errorf("--asset-type %s wrote %+v", at, d.Assets)
		}
	}
	sep := filepath.Join(dir, "assets", "characters", "hero.nwb")
	stdout = importOK(t, src, "-o", sep, "--separate-assets")
	for _, name := range []string{"mesh", "skeleton", "skin"} {
		p := filepath.Join(dir, "assets", "characters", "hero", name+".nwb")
		if !strings.Contains(stdout, "  wrote "+p+"\n") {
			t.Errorf("report does not name %s", p)
		}
		readDoc(t, p)
	}
	// The skin in skin.nwb indexes mesh.nwb's positions, which refresh
	// cannot see from mesh.nwb alone.
	checkNWB(t, filepath.Join(dir, "assets", "characters", "hero", "mesh.nwb"), "--keep-positions")
	model := readDoc(t, sep)
	if m := model.Assets[0].Model; m == nil || m.SkinnedMeshes[0].Skin.Path != "project/characters/hero/skin" {
		t.Fatalf("model %+v", model.Assets[0])
	}
	if code, _, _ := run(t, "import", src, "-o", sep, "--separate-assets"); code != ExitUsage {
		t.Fatalf("separate assets over existing files without --force: exit %d", code)
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken.fbx")
	os.WriteFile(bad, []byte("Kaydara FBX Binary  \x00\x1a\x00"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{bad}, ExitBadInput, "fbx: " + bad + ": "},
		{[]string{filepath.Join(dir, "missing.fbx")}, ExitBadInput, "missing.fbx"},
		{[]string{filepath.Join(dir, "mesh.obj")}, ExitUsage, "unsupported source kind"},
		{[]string{filepath.Join(dir, "x.nwb")}, ExitUsage, "already a .nwb source"},
		{[]string{bad, "--asset-type", "scene"}, ExitUsage, "unknown asset type 'scene'"},
		{[]string{bad, "--default-color", "1,1,1"}, ExitUsage, "want R,G,B,A"},
		{[]string{bad, "--scale", "0"}, ExitUsage, "--scale 0"},
		{[]string{bad, "-o", filepath.Join(dir, "x.txt")}, ExitUsage, "must end in .nwb"},
		{[]string{bad, "--separate-assets", "--asset-type", "mesh"}, ExitUsage, "--separate-assets"},
		{[]string{}, ExitUsage, "exactly one source"},
	} {
		code, _, errs := run(t, append([]string{"import"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.msg) {
			t.Errorf("import %v: exit %d %q; want %d with %q", tc.args, code, errs, tc.code, tc.msg)
		}
	}
	// A loose-geometry file: the §3 message, exit 3.
	src := corpusFile(t, "ufbx_blender_279_loose_geometry/blender_279_edge_vertex_7400_binary.fbx")
	code, _, errs := run(t, "import", src, "-o", filepath.Join(dir, "v.nwb"))
	if code != ExitBadInput || !strings.Contains(errs, src+": selected meshes produced no triangles") {
		t.Errorf("loose geometry: exit %d %q", code, errs)
	}
}

// TestImportEdgeFBX: every broken corpus FBX is refused with exit 3 naming
// the file, or imported to a canonical file; never anything else.
func TestImportEdgeFBX(t *testing.T) {
	dir := testkit.Shared(t, filepath.Join("corpus", "edge", "fbx_broken"))
	files, _ := filepath.Glob(filepath.Join(dir, "*.fbx"))
	tmp := t.TempDir()
	for _, src := range files {
		out := filepath.Join(tmp, filepath.Base(src)+".nwb")
		code, _, errs := run(t, "import", src, "-o", out)
		switch code {
		case ExitOK:
			checkNWB(t, out)
		case ExitBadInput:
			if !strings.Contains(errs, src) {
				t.Errorf("%s: error does not name the file: %q", src, errs)
			}
		default:
			t.Errorf("%s: exit %d %q", src, code, errs)
		}
	}
}

// skinFBX writes a small ASCII FBX 7400 file: a skinned quad "Body"
// (control points 0–3, skin clusters on bone "Bone"), optionally a second
// skin deformer on its geometry, a static triangle "Rock", and a hidden
// triangle "Ghost". weighted lists the control points the cluster weights.
func skinFBX(t *testing.T, dir, name string, weighted []int, twoSkins bool) string {
	t.Helper()
	var idx, w []string
	for _, v := range weighted {
		idx = append(idx, fmt.Sprint(v))
		w = append(w, "1")
	}
	ident := "1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1"
	var b strings.Builder
	b.WriteString("; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}\n")
	b.WriteString("GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",100\n\t}\n}\n")
	b.WriteString("Objects:  {\n")
	b.WriteString("\tGeometry: 100, \"Geometry::BodyShape\", \"Mesh\" {\n\t\tVertices: *12 {\n\t\t\ta: 0,0,0,1,0,0,1,1,0,0,1,0\n\t\t}\n\t\tPolygonVertexIndex: *4 {\n\t\t\ta: 0,1,2,-4\n\t\t}\n\t}\n")
	b.WriteString("\tGeometry: 101, \"Geometry::RockShape\", \"Mesh\" {\n\t\tVertices: *9 {\n\t\t\ta: 0,0,1,1,0,1,0,1,1\n\t\t}\n\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n\t}\n")
	b.WriteString("\tGeometry: 102, \"Geometry::GhostShape\", \"Mesh\" {\n\t\tVertices: *9 {\n\t\t\ta: 0,0,2,1,0,2,0,1,2\n\t\t}\n\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n\t}\n")
	b.WriteString("\tModel: 200, \"Model::Body\", \"Mesh\" {\n\t\tVersion: 232\n\t}\n")
	b.WriteString("\tModel: 201, \"Model::Rock\", \"Mesh\" {\n\t\tVersion: 232\n\t}\n")
	b.WriteString("\tModel: 202, \"Model::Ghost\", \"Mesh\" {\n\t\tVersion: 232\n\t\tProperties70:  {\n\t\t\tP: \"Visibility\", \"Visibility\", \"\", \"A\",0\n\t\t}\n\t}\n")
	b.WriteString("\tModel: 210, \"Model::Bone\", \"LimbNode\" {\n\t\tVersion: 232\n\t}\n")
	b.WriteString("\tDeformer: 300, \"Deformer::Skin\", \"Skin\" {\n\t\tVersion: 101\n\t}\n")
	b.WriteString("\tDeformer: 301, \"Deformer::Skin2\", \"Skin\" {\n\t\tVersion: 101\n\t}\n")
	fmt.Fprintf(&b, "\tDeformer: 310, \"SubDeformer::Bone\", \"Cluster\" {\n\t\tIndexes: *%d {\n\t\t\ta: %s\n\t\t}\n\t\tWeights: *%d {\n\t\t\ta: %s\n\t\t}\n\t\tTransform: *16 {\n\t\t\ta: %s\n\t\t}\n\t\tTransformLink: *16 {\n\t\t\ta: %s\n\t\t}\n\t}\n",
		len(idx), strings.Join(idx, ","), len(w), strings.Join(w, ","), ident, ident)
	b.WriteString("}\nConnections:  {\n")
	for _, c := range [][2]int{{200, 0}, {201, 0}, {202, 0}, {210, 0}, {100, 200}, {101, 201}, {102, 202}, {300, 100}, {310, 300}, {210, 310}} {
		fmt.Fprintf(&b, "\tC: \"OO\",%d,%d\n", c[0], c[1])
	}
	if twoSkins {
		b.WriteString("\tC: \"OO\",301,100\n")
	}
	b.WriteString("}\n")
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestImportSkinRules: the §3 skin errors, the static/skinned mixing rule
// and hidden nodes, end to end through an FBX file.
func TestImportSkinRules(t *testing.T) {
	dir := t.TempDir()
	good := skinFBX(t, dir, "good.fbx", []int{0, 1, 2, 3}, false)
	code, out, errs := run(t, "import", good, "--list-meshes")
	want := "INDEX  NAME   MESH        TRIANGLES  SKINNED  HIDDEN\n" +
		"0      Body   BodyShape   2          yes      no\n" +
		"1      Rock   RockShape   1          no       no\n" +
		"2      Ghost  GhostShape  1          no       yes\n"
	if code != ExitOK || out != want {
		t.Fatalf("list: exit %d %s\n%q", code, errs, out)
	}
	for _, tc := range []struct {
		src  string
		args []string
		msg  string
	}{
		{good, nil, "static and skinned meshes cannot be mixed in one import (1 of 2 selected meshes are skinned)"},
		{skinFBX(t, dir, "two.fbx", []int{0, 1, 2, 3}, true), []string{"-m", "body"}, "skinned mesh requires exactly one skin deformer per selected mesh ('Body' has 2)"},
		{skinFBX(t, dir, "hole.fbx", []int{0, 1, 3}, false), []string{"-m", "body"}, "skinned mesh contains a vertex with no positive skin weights ('Body': 1 control points)"},
	} {
		code, _, errs := run(t, append([]string{"import", tc.src, "-o", filepath.Join(dir, "x.nwb")}, tc.args...)...)
		if code != ExitBadInput || !strings.Contains(errs, tc.src) || !strings.Contains(errs, tc.msg) {
			t.Errorf("%s %v: exit %d %q; want 3 with %q", filepath.Base(tc.src), tc.args, code, errs, tc.msg)
		}
	}
	// The skinned mesh alone; everything (the hidden one too) as a plain mesh.
	body := filepath.Join(dir, "body.nwb")
	stdout := importOK(t, good, "-o", body, "-m", "body")
	if !strings.Contains(stdout, "  joints: 1\n") {
		t.Errorf("body report %q", stdout)
	}
	doc := checkNWB(t, body)
	cookOK(t, body)
	if len(doc.Find("skin").Skin.Influences) != 4 {
		t.Errorf("influences %d", len(doc.Find("skin").Skin.Influences))
	}
	all := filepath.Join(dir, "all.nwb")
	stdout = importOK(t, good, "-o", all, "--asset-type", "mesh", "--include-hidden")
	if !strings.Contains(stdout, "  triangles: 4\n") {
		t.Errorf("all as mesh: %q", stdout)
	}
	stdout = importOK(t, good, "-o", all, "--asset-type", "mesh", "--force")
	if !strings.Contains(stdout, "  triangles: 3\n") || !strings.Contains(stdout, "1 hidden left out") {
		t.Errorf("all visible as mesh: %q", stdout)
	}
	if code, _, errs := run(t, "import", good, "-o", all, "-m", "ghost", "--force"); code != ExitUsage || !strings.Contains(errs, "no mesh matches 'ghost'") {
		t.Errorf("-m ghost: exit %d %q", code, errs)
	}
}
