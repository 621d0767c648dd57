package nwb

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// quadScene is a unit quad split into two triangles: four vertices, one of
// them duplicated (vertex 4 repeats vertex 2) so first-use sharing shows,
// with a -0 and a sub-1e-8 value that the writer prints as 0.
func quadScene() *mesh.Scene {
	n := mesh.Vec3{0, 0, 1}
	t := mesh.Vec4{1, 0, 0, 1}
	return &mesh.Scene{Submeshes: []mesh.Submesh{{
		Name:      "quad",
		Material:  -1,
		Positions: []mesh.Vec3{{0, 0, 0}, {1, 0, float32(math.Copysign(0, -1))}, {1, 1, 0}, {0, 1, 1e-9}, {1, 1, 0}},
		Normals:   []mesh.Vec3{n, n, n, n, n},
		Tangents:  []mesh.Vec4{t, t, t, t, t},
		UV0:       []mesh.Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}, {1, 0}},
		Indices:   []uint32{0, 1, 2, 0, 4, 3},
	}}}
}

// skinnedScene is a two-triangle strip bound to three joints given
// children first, with an empty and a duplicated name, so the writer's
// joint order (depth, name, index) and naming rules show.
func skinnedScene() *mesh.Scene {
	s := quadScene()
	sub := &s.Submeshes[0]
	sub.Colors = []mesh.Vec4{{1, 0, 0, 1}, {0, 1, 0, 1}, {0, 0, 1, 1}, {1, 1, 1, 1}, {0, 0, 1, 1}}
	sub.Joints = [][4]uint16{{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 2, 0, 0}, {2, 0, 0, 0}, {1, 2, 0, 0}}
	sub.Weights = []mesh.Vec4{{1, 0, 0, 0}, {0.5, 0.5, 0, 0}, {0.25, 0.75, 0, 0}, {1, 0, 0, 0}, {0.25, 0.75, 0, 0}}
	ident := [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	shifted := ident
	shifted[13] = -1 // translation y = -1
	s.Skeleton = &mesh.Skeleton{Joints: []mesh.Joint{
		{Name: "tip", Parent: 1, InverseBind: shifted, BindT: mesh.Vec3{0, 0.5, 0}, BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}},
		{Name: "", Parent: 2, InverseBind: shifted, BindT: mesh.Vec3{0, 0.5, 0}, BindR: mesh.Vec4{0, 0, 0.70710677, 0.70710677}, BindS: mesh.Vec3{1, 1, 1}},
		{Name: "tip", Parent: -1, InverseBind: ident, BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}},
	}}
	return s
}

type goldenCase struct {
	name  string
	scene func() *mesh.Scene
	opts  ExportOptions
}

var goldenCases = []goldenCase{
	{"static_mesh", quadScene, ExportOptions{AssetType: AssetMesh}},
	{"static_bunch", quadScene, ExportOptions{}},
	{"skinned_bunch", skinnedScene, ExportOptions{}},
	{"skinned_separate", skinnedScene, ExportOptions{SeparateAssets: true, VirtualRoot: "game"}},
	{"static_model", quadScene, ExportOptions{AssetType: AssetModel}},
	{"skinned_skin", skinnedScene, ExportOptions{AssetType: AssetSkin}},
}

// exportFiles runs FromScene with the output under testdata/<name>.nwb and
// returns each file's bytes by path relative to testdata.
func exportFiles(t *testing.T, c goldenCase) map[string][]byte {
	t.Helper()
	c.opts.Output = filepath.Join("testdata", "assets", c.name+".nwb")
	files, err := FromScene(c.scene(), c.opts)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := Marshal(f.Doc)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		rel, _ := filepath.Rel("testdata", f.Path)
		out[filepath.ToSlash(rel)] = b
	}
	return out
}

// The writer's layout, byte for byte (CRLF, field order, indents, trailing
// commas, blank lines). Refresh goldens with -update.
func TestWriterGolden(t *testing.T) {
	for _, c := range goldenCases {
		for rel, got := range exportFiles(t, c) {
			p := filepath.Join("testdata", rel)
			if *update {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%v (run go test ./nwb -run TestWriterGolden -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from its golden file:\n%s", rel, got)
			}
			if bytes.Count(got, []byte("\n")) != bytes.Count(got, []byte("\r\n")) {
				t.Errorf("%s: writer output must use CRLF only", rel)
			}
			// Write → parse → write is stable.
			doc, err := ParseDocument(got, rel, "")
			if err != nil {
				t.Fatalf("%s does not parse back: %v", rel, err)
			}
			again, err := Marshal(doc)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("%s: write→parse→write differs (%v)", rel, err)
			}
		}
	}
}

// The layout spelled out for the smallest case, independent of goldens.
func TestWriterLayout(t *testing.T) {
	doc := &Document{Assets: []*Asset{{Kind: KindMesh, Name: "asset", Mesh: &Mesh{
		Positions:  []mesh.Vec3{{0.5, -1e-9, 1e20}},
		Normals:    []mesh.Vec3{{0, float32(math.Copysign(0, -1)), 1}},
		Tangents:   []mesh.Vec4{{1, 0, 0, -1}},
		UV0:        []mesh.Vec2{{0.1, 1.0 / 3}},
		Colors:     []mesh.Vec4{{1, 1, 1, 1}},
		VertexRefs: []VertexRef{{0, 0, 0, 0, 0}},
		Indices:    []uint32{0, 0, 0},
	}}}}
	got, err := Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(`mesh asset;

asset.positions = [
    [0.5, 0, 1.00000002e+20],
];

asset.normals = [
    [0, 0, 1],
];

asset.tangents = [
    [1, 0, 0, -1],
];

asset.uv0 = [
    [0.100000001, 0.333333343],
];

asset.colors = [
    [1, 1, 1, 1],
];

asset.vertex_refs = [
    [0, 0, 0, 0, 0],
];

asset.indices = [
    [0, 0, 0],
];
`, "\n", "\r\n")
	if string(got) != want {
		t.Fatalf("got:\n%q\nwant:\n%q", got, want)
	}
}

func TestWriterRejectsUnrepresentableStrings(t *testing.T) {
	for _, s := range []string{"a\"b", "a\\", "a\nb"} {
		doc := &Document{Assets: []*Asset{{Kind: KindSkeleton, Name: "asset", Skeleton: &Skeleton{Joints: []Joint{{Name: s, LocalBindPose: IdentityAffine()}}}}}}
		if _, err := Marshal(doc); err == nil {
			t.Errorf("%q: want an error", s)
		}
	}
	if !Representable(`a\"b`) || !Representable(`c:\\d`) {
		t.Error("escaped quotes and backslashes are representable")
	}
}

// FromScene → write → parse → ToScene keeps every triangle corner's
// attributes (as the writer prints them) and the skinning.
func TestSceneRoundTrip(t *testing.T) {
	for _, mk := range []func() *mesh.Scene{quadScene, skinnedScene} {
		src := mk()
		files, err := FromScene(src, ExportOptions{Output: "hero.nwb"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Marshal(files[0].Doc)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := ParseDocument(b, "hero.nwb", "")
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ToScene(doc)
		if err != nil {
			t.Fatal(err)
		}
		in, out := &src.Submeshes[0], &sc.Submeshes[0]
		if len(out.Indices) != len(in.Indices) {
			t.Fatalf("%d indices, want %d", len(out.Indices), len(in.Indices))
		}
		q3 := func(v mesh.Vec3) mesh.Vec3 { return mesh.Vec3{quantize(v[0]), quantize(v[1]), quantize(v[2])} }
		for c := range in.Indices {
			a, b := in.Indices[c], out.Indices[c]
			if q3(in.Positions[a]) != out.Positions[b] || in.Normals[a] != out.Normals[b] || in.Tangents[a] != out.Tangents[b] || in.UV0[a] != out.UV0[b] {
				t.Errorf("corner %d: attributes differ", c)
			}
			wantColor := mesh.Vec4{1, 1, 1, 1}
			if in.Colors != nil {
				wantColor = in.Colors[a]
			}
			if out.Colors[b] != wantColor {
				t.Errorf("corner %d: color %v, want %v", c, out.Colors[b], wantColor)
			}
			if in.Joints == nil {
				continue
			}
			// Joint indices were renumbered parents first; compare names.
			for k := 0; k < 4; k++ {
				if in.Weights[a][k] == 0 {
					continue
				}
				gotName := sc.Skeleton.Joints[out.Joints[b][k]].Name
				wantName := jointNames(src.Skeleton)[in.Joints[a][k]]
				if gotName != wantName || out.Weights[b][k] != in.Weights[a][k] {
					t.Errorf("corner %d slot %d: joint %s weight %v, want %s %v", c, k, gotName, out.Weights[b][k], wantName, in.Weights[a][k])
				}
			}
		}
		if in.Joints != nil {
			// Skeleton: parents first, names made unique, bind poses kept.
			var names []string
			for _, j := range sc.Skeleton.Joints {
				names = append(names, j.Name)
			}
			if strings.Join(names, ",") != "tip_1,joint_1,tip" {
				t.Errorf("joint order %v", names)
			}
			if p := sc.Skeleton.Joints[1]; p.Parent != 0 || p.BindT != (mesh.Vec3{0, 0.5, 0}) || math.Abs(float64(p.BindR[2]-0.70710677)) > 1e-6 || p.InverseBind[13] != -1 {
				t.Errorf("joint_1: %+v", p)
			}
		}
	}
}

// Separate files reference each other by the virtual paths they get.
func TestFromSceneSeparatePaths(t *testing.T) {
	files, err := FromScene(skinnedScene(), ExportOptions{SeparateAssets: true, Output: filepath.Join("game", "Assets", "chars", "Hero.nwb")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, filepath.ToSlash(f.Path)+"="+f.Doc.Path)
	}
	want := "game/Assets/chars/Hero/mesh.nwb=project/chars/hero/mesh,game/Assets/chars/Hero/skeleton.nwb=project/chars/hero/skeleton," +
		"game/Assets/chars/Hero/skin.nwb=project/chars/hero/skin,game/Assets/chars/Hero.nwb=project/chars/hero"
	if strings.Join(got, ",") != want {
		t.Fatalf("files %v", got)
	}
	skin := files[2].Doc.Assets[0].Skin
	if skin.Mesh.Path != files[0].Doc.Path || skin.Skeleton.Path != files[1].Doc.Path {
		t.Fatalf("skin references %v %v", skin.Mesh, skin.Skeleton)
	}
}

// Streams are built in first-use order with shared entries; the duplicate
// vertex and the -0 / 1e-9 values collapse as the writer prints them.
func TestFromSceneSharing(t *testing.T) {
	files, err := FromScene(quadScene(), ExportOptions{AssetType: AssetMesh, Output: "q.nwb"})
	if err != nil {
		t.Fatal(err)
	}
	m := files[0].Doc.Assets[0].Mesh
	if len(m.Positions) != 4 || len(m.Normals) != 1 || len(m.Tangents) != 1 || len(m.UV0) != 4 || len(m.Colors) != 1 || len(m.VertexRefs) != 4 {
		t.Fatalf("streams %d %d %d %d %d refs %d", len(m.Positions), len(m.Normals), len(m.Tangents), len(m.UV0), len(m.Colors), len(m.VertexRefs))
	}
	if math.Signbit(float64(m.Positions[1][2])) || m.Positions[3][2] != 0 {
		t.Errorf("positions not quantized: %v", m.Positions)
	}
	if got := m.Indices; got[0] != 0 || got[1] != 1 || got[2] != 2 || got[3] != 0 || got[4] != 2 || got[5] != 3 {
		t.Errorf("indices %v", got)
	}
}

func TestFromSceneErrors(t *testing.T) {
	nan := quadScene()
	nan.Submeshes[0].UV0[1][0] = float32(math.NaN())
	empty := quadScene()
	empty.Submeshes[0].Indices = nil
	mixed := skinnedScene()
	mixed.Submeshes = append(mixed.Submeshes, quadScene().Submeshes[0])
	noWeights := skinnedScene()
	noWeights.Submeshes[0].Weights[2] = mesh.Vec4{}
	cases := []struct {
		why   string
		scene *mesh.Scene
		opts  ExportOptions
		want  string
	}{
		{"non-finite", nan, ExportOptions{}, "mesh contains non-finite vertex data"},
		{"no triangles", empty, ExportOptions{}, "selected meshes produced no triangles"},
		{"static and skinned", mixed, ExportOptions{}, "static and skinned meshes cannot be mixed"},
		{"no positive weights", noWeights, ExportOptions{}, "skinned mesh contains a vertex with no positive skin weights"},
		{"skeleton of a static mesh", quadScene(), ExportOptions{AssetType: AssetSkeleton}, "asset type 'skeleton' needs a skinned mesh"},
		{"unknown asset type", quadScene(), ExportOptions{AssetType: "material"}, "unknown asset type 'material'"},
	}
	for _, c := range cases {
		c.opts.Output = "x.nwb"
		if _, err := FromScene(c.scene, c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.why, err, c.want)
		}
	}
}

func TestParseAssetType(t *testing.T) {
	for in, want := range map[string]AssetType{"": AssetBunch, "Mesh": AssetMesh, "skin": AssetSkin, "model": AssetModel, "skeleton": AssetSkeleton, "bunch": AssetBunch} {
		if got, err := ParseAssetType(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseAssetType("material"); err == nil || err.Error() != "nwb: unknown asset type 'material' (bunch, mesh, model, skeleton, skin)" {
		t.Errorf("material: %v", err)
	}
}

// Missing normals, tangents and colors are generated.
func TestFromSceneFillsStreams(t *testing.T) {
	s := quadScene()
	s.Submeshes[0].Normals, s.Submeshes[0].Tangents = nil, nil
	red := mesh.Vec4{1, 0, 0, 1}
	files, err := FromScene(s, ExportOptions{AssetType: AssetMesh, Output: "q.nwb", DefaultColor: &red})
	if err != nil {
		t.Fatal(err)
	}
	if s.Submeshes[0].Normals != nil || len(s.Submeshes[0].Positions) != 5 || s.Submeshes[0].Indices[4] != 4 {
		t.Fatal("FromScene modified its input scene")
	}
	m := files[0].Doc.Assets[0].Mesh
	if len(m.Normals) != 1 || m.Normals[0] != (mesh.Vec3{0, 0, 1}) || len(m.Colors) != 1 || m.Colors[0] != red {
		t.Fatalf("normals %v colors %v", m.Normals, m.Colors)
	}
	if tg := m.Tangents[0]; math.Abs(float64(tg[0])-1) > 1e-6 || math.Abs(float64(tg[3])) != 1 {
		t.Fatalf("tangents %v", m.Tangents)
	}
}

func TestToSceneErrors(t *testing.T) {
	model := `model asset; asset.static_meshes = { "a": { "mesh": "p/m" } };`
	doc, err := ParseDocument([]byte(model), "m.nwb", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ToScene(doc); err == nil || !strings.Contains(err.Error(), "no mesh to cook") {
		t.Fatalf("got %v", err)
	}
	// A skin with fewer matrices than skeleton joints cannot make joints.
	src := strings.Replace(skinnedBunchSrc(), "    [[1, 0, 0, -2], [0, 1, 0, 0], [0, 0, 1, 0]],\n", "", 1)
	src = strings.ReplaceAll(src, `"joints": [0, 1, 0, 0]`, `"joints": [0, 0, 0, 0]`)
	src = strings.ReplaceAll(src, `"joints": [1, 0, 0, 0]`, `"joints": [0, 0, 0, 0]`)
	doc, err = ParseDocument([]byte(src), "b.nwb", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ToScene(doc); err == nil || !strings.Contains(err.Error(), "1 inverse bind matrices for 2 skeleton joints") {
		t.Fatalf("got %v", err)
	}
}
