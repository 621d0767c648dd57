package nwb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

// triMesh is a valid one-triangle mesh body for variable v.
func triMesh(v string) string {
	return v + ".positions = [[0, 0, 0], [1, 0, 0], [0, 1, 0]];\n" +
		v + ".normals = [[0, 0, 1]];\n" +
		v + ".tangents = [[1, 0, 0, 1]];\n" +
		v + ".uv0 = [[0, 0], [1, 0], [0, 1]];\n" +
		v + ".colors = [[1, 1, 1, 1]];\n" +
		v + ".vertex_refs = [[0, 0, 0, 0, 0], [1, 0, 0, 1, 0], [2, 0, 0, 2, 0]];\n" +
		v + ".indices = [[0, 1, 2]];\n"
}

const skinnedBunch = `mesh mesh;
skeleton skeleton;
skin skin;
model model;
asset_bunch bunch = [ mesh, skeleton, skin, model, ];
` + "%MESH%" + `skeleton.joints = [
    { "name": "root", },
    { "name": "arm", "parent": "root", "local_bind_pose": [[1, 0, 0, 2], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], },
];
skin.mesh = mesh;
skin.skeleton = skeleton;
skin.influences = [
    { "joints": [0, 0, 0, 0], "weights": [1, 0, 0, 0], },
    { "joints": [0, 1, 0, 0], "weights": [1, 3, 0, 0], },
    { "joints": [1, 0, 0, 0], "weights": [2, 0, 0, 0], },
];
skin.inverse_bind_matrices = [
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]],
    [[1, 0, 0, -2], [0, 1, 0, 0], [0, 0, 1, 0]],
];
model.skeletons = { "skeleton": { "skeleton": skeleton, }, };
model.skinned_meshes = { "mesh": { "mesh": mesh, "skin": skin, "skeleton": "skeleton", }, };
model.static_meshes = { "prop": { "mesh": "project/props/sword", "material": "project/mat/steel", "parent_object": "skeleton", "parent_joint": "arm", }, };
`

func skinnedBunchSrc() string { return strings.Replace(skinnedBunch, "%MESH%", triMesh("mesh"), 1) }

func TestDocumentSkinnedBunch(t *testing.T) {
	doc, err := ParseDocument([]byte(skinnedBunchSrc()), "Assets/Hero.nwb", VirtualPath("project", "Characters/Hero.nwb"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Path != "project/characters/hero" || doc.Bunch != "bunch" || strings.Join(doc.BunchItems, ",") != "mesh,skeleton,skin,model" {
		t.Fatalf("doc %q bunch %q items %v", doc.Path, doc.Bunch, doc.BunchItems)
	}
	m := doc.Find("mesh")
	if m.Path != "project/characters/hero/mesh" || len(m.Mesh.Positions) != 3 || m.Mesh.VertexRefs[1] != (VertexRef{1, 0, 0, 1, 0}) {
		t.Fatalf("mesh %+v", m)
	}
	sk := doc.Find("skeleton").Skeleton
	if sk.Joints[0].LocalBindPose != IdentityAffine() || sk.Joints[1].Parent != "root" || sk.Joints[1].LocalBindPose[0][3] != 2 {
		t.Fatalf("skeleton %+v", sk)
	}
	skin := doc.Find("skin").Skin
	if skin.Mesh != (Ref{Var: "mesh", Path: "project/characters/hero/mesh"}) || len(skin.InverseBindMatrices) != 2 {
		t.Fatalf("skin refs %+v", skin)
	}
	if got := skin.Influences[1].Normalized(); got != (mesh.Vec4{0.25, 0.75, 0, 0}) {
		t.Fatalf("normalized weights %v", got)
	}
	md := doc.Find("model").Model
	if len(md.Skeletons) != 1 || len(md.SkinnedMeshes) != 1 || md.SkinnedMeshes[0].Skeleton != "skeleton" || md.StaticMeshes[0].Material.Path != "project/mat/steel" {
		t.Fatalf("model %+v", md)
	}
}

func TestVirtualPath(t *testing.T) {
	cases := [][3]string{
		{"project", "Characters/Hero.nwb", "project/characters/hero"},
		{"project", `Characters\Hero.NWB`, "project/characters/hero"},
		{"Game/", "/a/b.c.nwb", "game/a/b.c"},
		{"", "x.nwb", "x"},
	}
	for _, c := range cases {
		if got := VirtualPath(c[0], c[1]); got != c[2] {
			t.Errorf("VirtualPath(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	for _, c := range [][3]string{
		{"project", "game/assets/characters/hero.nwb", "project/characters/hero"},
		{"project", "game/Assets/a/assets/b/hero.nwb", "project/b/hero"},
		{"", "out/hero.nwb", "project/hero"},
	} {
		if got := BaseVirtualPath(c[0], c[1]); got != c[2] {
			t.Errorf("BaseVirtualPath(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// Every asset rule of nwb.md §1, each with its message and position.
func TestDocumentErrors(t *testing.T) {
	mesh1 := "mesh asset;\n" + triMesh("asset")
	bunch := skinnedBunchSrc()
	cases := []struct{ why, src, at, want string }{
		{"unknown mesh field", mesh1 + "asset.lightmap = [[0, 0]];\n", "asset.^lightmap", "Mesh meta 'project/t': unsupported asset field 'lightmap'"},
		{"missing mesh field", strings.Replace(mesh1, "asset.colors = [[1, 1, 1, 1]];\n", "", 1), "^mesh asset;", "Mesh meta 'project/t': missing field 'colors'"},
		{"empty stream", strings.Replace(mesh1, "asset.normals = [[0, 0, 1]]", "asset.normals = []", 1), "asset.normals = ^[]", "Mesh meta 'project/t': 'normals' is empty"},
		{"wrong arity", strings.Replace(mesh1, "[[0, 0, 1]]", "[[0, 1]]", 1), "[^[0, 1]]", "Mesh meta 'project/t': normals: expected a list of 3 numbers, found a list of 2"},
		{"beyond f32", strings.Replace(mesh1, "[[0, 0, 1]]", "[[0, 0, 1e39]]", 1), "^1e39", "Mesh meta 'project/t': normals: 1e+39 is not a finite f32 value"},
		{"string in stream", strings.Replace(mesh1, "[[0, 0, 1]]", `[[0, 0, "1"]]`, 1), `^"1"]]`, "Mesh meta 'project/t': normals: expected a number, found string"},
		{"fractional index", strings.Replace(mesh1, "[[0, 1, 2]]", "[[0, 1, 1.5]]", 1), "^1.5", "Mesh meta 'project/t': indices: 1.5 is not an integer in 0..4294967295"},
		{"negative index", strings.Replace(mesh1, "[[0, 1, 2]]", "[[0, -1, 2]]", 1), "[[0, ^-1, 2]]", "Mesh meta 'project/t': indices: -1 is not an integer in 0..4294967295"},
		{"index past vertex_refs", strings.Replace(mesh1, "[[0, 1, 2]]", "[[0, 1, 3]]", 1), "[[0, 1, ^3]]", "Mesh meta 'project/t': indices: 3 out of range (3 vertex_refs)"},
		{"index count", strings.Replace(mesh1, "[[0, 1, 2]]", "[[0, 1, 2], [0]]", 1), "asset.indices = ^[[0, 1, 2], [0]]", "Mesh meta 'project/t': indices: count 4 is not a positive multiple of 3"},
		{"vertex_ref arity", strings.Replace(mesh1, "[2, 0, 0, 2, 0]", "[2, 0, 0, 2]", 1), "^[2, 0, 0, 2]]", "Mesh meta 'project/t': vertex_refs: expected [position, normal, tangent, uv0, color], found a list of 4"},
		{"vertex_ref range", strings.Replace(mesh1, "[2, 0, 0, 2, 0]", "[2, 1, 0, 2, 0]", 1), "[2, ^1, 0, 2, 0]", "Mesh meta 'project/t': vertex_refs: normals index 1 out of range (1 entries)"},
		{"not a map", "mesh asset = [1];", "mesh asset = ^[1]", "Mesh meta 'project/t': expected fields, found list"},
		{"unsupported asset type", "material asset;", "^material", "unsupported asset type 'material'"},
		{"two declarations, no bunch", "mesh a;\nmesh b;", "^mesh a;", "a file of 2 declarations needs exactly one asset_bunch, found 0"},
		{"two bunches", "mesh a;\nasset_bunch b = [a];\nasset_bunch c = [a];", "^mesh a;", "a file of 3 declarations needs exactly one asset_bunch, found 2"},
		{"bunch item twice", "mesh a;\nasset_bunch b = [a, a];", "[a, ^a]", "AssetBunch meta 'project/t': 'a' is listed twice"},
		{"bunch item not a variable", "mesh a;\nasset_bunch b = [a, \"x\"];", `[a, ^"x"]`, "AssetBunch meta 'project/t': items must be declared variable names, found string"},
		{"bunch lists a bunch", "asset_bunch b;\nasset_bunch c = [b];", "^asset_bunch b;", "a file of 2 declarations needs exactly one asset_bunch, found 2"},
		{"bunch is not a list", "mesh a;\nasset_bunch b;", "asset_bunch ^b;", "AssetBunch meta 'project/t': expected a list of asset references, found map"},
		{"bare reference outside a bunch", "skin asset;\nasset.mesh = asset;", "asset.mesh = ^asset", "Skin meta 'project/t': 'mesh': outside an asset_bunch, references are string virtual paths"},
		{"reference of the wrong kind", strings.Replace(bunch, "skin.mesh = mesh;", "skin.mesh = skeleton;", 1), "skin.mesh = ^skeleton", "Skin meta 'project/t/skin': 'mesh': 'skeleton' is a skeleton, not a mesh"},
		{"dotted reference", strings.Replace(bunch, "skin.mesh = mesh;", "skin.mesh = mesh.positions;", 1), "skin.mesh = ^mesh.positions", "Skin meta 'project/t/skin': 'mesh': 'mesh.positions' is not a declared asset"},
		{"joint parent must come earlier", strings.Replace(bunch, `"parent": "root"`, `"parent": "leaf"`, 1), `"parent": ^"leaf"`, "Skeleton meta 'project/t/skeleton': joint 'arm': parent 'leaf' is not an earlier joint"},
		{"joint names unique", strings.Replace(bunch, `"name": "arm"`, `"name": "root"`, 1), `{ "name": ^"root", "parent"`, "Skeleton meta 'project/t/skeleton': joint name 'root' is used twice"},
		{"unknown joint field", strings.Replace(bunch, `{ "name": "root", }`, `{ "name": "root", "scale": 1, }`, 1), `"root", ^"scale"`, "Skeleton meta 'project/t/skeleton': unsupported joint field 'scale'"},
		{"4×4 with a bad last row", strings.Replace(bunch, "[0, 0, 0, 1]]", "[0, 0, 1, 1]]", 1), "^[0, 0, 1, 1]]", "Skeleton meta 'project/t/skeleton': local_bind_pose: a 4×4 matrix must end with the row [0, 0, 0, 1]"},
		{"matrix rows", strings.Replace(bunch, "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]],\n", "[[1, 0, 0, 0], [0, 1, 0, 0]],\n", 1), "    ^[[1, 0, 0, 0], [0, 1, 0, 0]],\n", "Skin meta 'project/t/skin': inverse_bind_matrices: expected 3 rows of 4 numbers, found a list of 2"},
		{"singular inverse bind", strings.Replace(bunch, "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]],\n", "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]],\n", 1), "    ^[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 0]]", "Skin meta 'project/t/skin': inverse_bind_matrices: matrix is not invertible"},
		{"joint index past the matrices", strings.Replace(bunch, `"joints": [1, 0, 0, 0]`, `"joints": [2, 0, 0, 0]`, 1), `"joints": [^2, 0, 0, 0]`, "Skin meta 'project/t/skin': joints: joint 2 is not below the 2 inverse_bind_matrices"},
		{"joint index past u16", strings.Replace(bunch, `"joints": [1, 0, 0, 0]`, `"joints": [65536, 0, 0, 0]`, 1), "^65536", "Skin meta 'project/t/skin': joints: 65536 is not an integer in 0..65535"},
		{"negative weight", strings.Replace(bunch, `[2, 0, 0, 0]`, `[2, -1, 0, 0]`, 1), `"weights": ^[2, -1, 0, 0]`, "Skin meta 'project/t/skin': influence 2: negative weight"},
		{"zero weights", strings.Replace(bunch, `[2, 0, 0, 0]`, `[0, 0, 0, 0]`, 1), `"weights": ^[0, 0, 0, 0]`, "Skin meta 'project/t/skin': influence 2: weights sum to 0 (must be > 1e-6)"},
		{"influence count", strings.Replace(bunch, "    { \"joints\": [1, 0, 0, 0], \"weights\": [2, 0, 0, 0], },\n", "", 1), "skin.influences = ^[", "Skin meta 'project/t/skin': 2 influences for 3 mesh positions (one per position)"},
		{"unknown model field", bunch + "model.lods = [];\n", "model.^lods", "Model meta 'project/t/model': unsupported asset field 'lods'"},
		{"unknown object field", strings.Replace(bunch, `"skin": skin,`, `"skin": skin, "lod": 1,`, 1), `^"lod"`, "Model meta 'project/t/model': object 'mesh': unsupported object field 'lod'"},
		{"object names unique across maps", strings.Replace(bunch, `{ "prop":`, `{ "mesh":`, 1), `model.skinned_meshes = { ^"mesh"`, "Model meta 'project/t/model': object name 'mesh' is used twice"},
		{"skinned object needs a skeleton object", strings.Replace(bunch, `"skeleton": "skeleton", },`, `"skeleton": "rig", },`, 1), `^"rig"`, "Model meta 'project/t/model': object 'mesh': 'skeleton' names 'rig', which is not a skeleton object"},
		{"parent_joint needs parent_object", strings.Replace(bunch, `"parent_object": "skeleton", `, "", 1), `"parent_joint": ^"arm"`, "Model meta 'project/t/model': object 'prop': 'parent_joint' needs 'parent_object'"},
		{"parent_joint must be a joint", strings.Replace(bunch, `"parent_joint": "arm"`, `"parent_joint": "leg"`, 1), "^model model;", "Model meta 'project/t/model': object 'prop': parent_joint 'leg' is not a joint of skeleton object 'skeleton'"},
		{"4×4 transform with another last row", strings.Replace(bunch, `"skeleton": skeleton, },`, `"skeleton": skeleton, "transform": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[1,0,0,1]], },`, 1), "^[1,0,0,1]]", "Model meta 'project/t/model': transform: a 4×4 matrix must end with the row [0, 0, 0, 1]"},
		{"skinned object's mesh differs from its skin's", strings.Replace(bunch, `{ "mesh": mesh, "skin": skin,`, `{ "mesh": "project/other", "skin": skin,`, 1), "^model model;", "Model meta 'project/t/model': object 'mesh': mesh \"project/other\" is not the mesh of its skin (\"project/t/mesh\")"},
		{"model without objects", "model asset;", "^model", "Model meta 'project/t': has no objects"},
		{"object that is not a map", `model asset; asset.static_meshes = { "a": { } };`, `{ "a": ^{ } }`, "Model meta 'project/t': object 'a' must be a map, found list"},
		{"static object without mesh", `model asset; asset.static_meshes = { "a": { "material": "m" } };`, `{ ^"a"`, "Model meta 'project/t': object 'a': missing field 'mesh'"},
		{"skinned object without skin", `model asset; asset.skeletons = { "s": { "skeleton": "k" } }; asset.skinned_meshes = { "m": { "skeleton": "s" } };`, `{ ^"m"`, "Model meta 'project/t': object 'm': missing field 'skin'"},
	}
	for _, c := range cases {
		marker := strings.Index(c.at, "^")
		at := strings.Index(c.src, strings.Replace(c.at, "^", "", 1))
		if marker < 0 || at < 0 {
			t.Fatalf("%s: bad marker %q", c.why, c.at)
		}
		line := strings.Count(c.src[:at+marker], "\n") + 1
		col := at + marker - strings.LastIndex(c.src[:at+marker], "\n")
		want := fmt.Sprintf("nwb: t.nwb:%d:%d: %s", line, col, c.want)
		_, err := ParseDocument([]byte(c.src), "t.nwb", "")
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", c.why, err, want)
		}
	}
}

func TestDocumentAccepts(t *testing.T) {
	cases := []struct{ why, src string }{
		{"map-literal declaration and nested indices", `mesh asset = { "positions": [[0,0,0]], "normals": [[0,0,1]], "tangents": [[1,0,0,1]], "uv0": [[0,0]], "colors": [[1,1,1,1]], "vertex_refs": [[0,0,0,0,0]], "indices": [[[0, 0], 0], [0, 0, 0]] };`},
		{"4×4 transform with [0,0,0,1] and a skinned object without mesh", `model asset; asset.skeletons = { "s": { "skeleton": "p/skel", "transform": [[1,0,0,1],[0,1,0,0],[0,0,1,0],[0,0,0,1.0]] } }; asset.skinned_meshes = { "m": { "skin": "p/skin", "skeleton": "s" } };`},
		{"computed values", "mesh asset;\n" + strings.Replace(triMesh("asset"), "[1, 0, 0]", "[2 / 2, -0, 0 * 5]", 1) + "asset.positions += [[0, 0, 1]];\n"},
	}
	for _, c := range cases {
		if _, err := ParseDocument([]byte(c.src), "t.nwb", ""); err != nil {
			t.Errorf("%s: %v", c.why, err)
		}
	}
}
