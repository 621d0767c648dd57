package convert

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/importer/fbx"
	"github.com/meshcook/meshcook/mesh"
)

// quad is a unit square in the XY plane, counter-clockwise seen from +Z,
// with u along +X and v growing toward -Y (top-left origin).
func quad(name string) mesh.Submesh {
	return mesh.Submesh{
		Name:      name,
		Material:  -1,
		Positions: []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
		UV0:       []mesh.Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}
}

// fbxSource builds a Source as Load does for FBX, one instance per
// submesh.
func fbxSource(sc *mesh.Scene, insts ...fbx.Instance) *Source {
	if insts == nil {
		for i, s := range sc.Submeshes {
			insts = append(insts, fbx.Instance{Model: s.Name, Geometry: s.Name + "Shape", First: i, Count: 1})
		}
	}
	return fromFBX("test.fbx", sc, insts)
}

func prepare(t *testing.T, src *Source, opts Options) (*mesh.Scene, *Report) {
	t.Helper()
	sc, rep, err := Prepare(src, opts)
	if err != nil {
		t.Fatal(err)
	}
	return sc, rep
}

func TestSelect(t *testing.T) {
	src := fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{quad("Body"), quad("Head"), quad("HeadBand"), quad("Secret")}})
	src.Meshes[3].Hidden = true
	for _, tc := range []struct {
		spec   string
		hidden bool
		want   []int
	}{
		{"all", false, []int{0, 1, 2}},
		{"", false, []int{0, 1, 2}},
		{"all", true, []int{0, 1, 2, 3}},
		{"first", false, []int{0}},
		{"2", false, []int{2}},
		{"head", false, []int{1}},          // exact (case-insensitive) beats substring
		{"HEADSHAPE", false, []int{1}},     // the mesh (geometry) name matches too
		{"ea", false, []int{1, 2}},         // every substring match
		{"secret", true, []int{3}},         // hidden only with includeHidden
		{"3", true, []int{3}},              // by index too
		{"bandshape", false, []int{2}},     // substring of a mesh name
		{"ALL", false, []int{0, 1, 2}},     // keywords ignore case
		{"First", true, []int{0}},          // ditto
		{"o", false, []int{0}},             // only Body and BodyShape contain an 'o'
		{"shape", false, []int{0, 1, 2}},   // hidden excluded from substring matches
		{"shape", true, []int{0, 1, 2, 3}}, // included with includeHidden
	} {
		got, err := src.Select(tc.spec, tc.hidden)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Select(%q, %v) = %v, %v; want %v", tc.spec, tc.hidden, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ spec, msg string }{
		{"secret", "no mesh matches 'secret' (4 meshes; see --list-meshes) (hidden meshes need --include-hidden)"},
		{"3", "mesh 3 'Secret' is hidden (pass --include-hidden)"},
		{"4", "mesh index 4 out of range (4 meshes"},
		{"-1", "mesh index -1 out of range"},
		{"nothing", "no mesh matches 'nothing'"},
	} {
		_, err := src.Select(tc.spec, false)
		if !errors.Is(err, ErrSelection) || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "convert: test.fbx: ") {
			t.Errorf("Select(%q): %v; want ErrSelection with %q", tc.spec, err, tc.msg)
		}
	}
	// Prepare reports the hidden meshes an "all" import left out.
	if _, rep, err := Prepare(src, DefaultOptions()); err != nil || rep.HiddenSkipped != 1 || len(rep.Selected) != 3 {
		t.Errorf("hidden skipped: %+v %v", rep, err)
	}
	// A source without visible meshes is not a selection problem.
	only := fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{quad("Secret")}})
	only.Meshes[0].Hidden = true
	if _, err := only.Select("all", false); err == nil || errors.Is(err, ErrSelection) || !strings.Contains(err.Error(), "has no meshes to import (hidden meshes need --include-hidden)") {
		t.Errorf("hidden-only source: %v", err)
	}
}

// TestGLTFGrouping: a glTF node's primitives form one selectable mesh; a
// new run starts at primitive 0, even for the same mesh instanced twice.
func TestGLTFGrouping(t *testing.T) {
	sc := &mesh.Scene{Submeshes: []mesh.Submesh{quad("a/0"), quad("a/1"), quad("a/0"), quad("mesh_1/0")}}
	src := FromGLTF("x.glb", sc)
	if len(src.Meshes) != 3 || src.Meshes[0].count != 2 || src.Meshes[0].Triangles != 4 ||
		src.Meshes[1].first != 2 || src.Meshes[2].Name != "mesh_1" {
		t.Fatalf("meshes %+v", src.Meshes)
	}
}

func TestFlipWinding(t *testing.T) {
	src := fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{quad("q")}})
	opts := DefaultOptions()
	opts.FlipWinding = true
	opts.NormalMode = NormalsRegenerate
	sc, _ := prepare(t, src, opts)
	s := sc.Submeshes[0]
	// Regenerate splits corners: corner i is vertex i, so positions show
	// the flipped order (0, 2, 1), (0, 3, 2), and normals face -Z.
	want := []mesh.Vec3{{0, 0, 0}, {1, 1, 0}, {1, 0, 0}, {0, 0, 0}, {0, 1, 0}, {1, 1, 0}}
	if !slices.Equal(s.Positions, want) {
		t.Fatalf("positions %v", s.Positions)
	}
	for _, n := range s.Normals {
		if n != (mesh.Vec3{0, 0, -1}) {
			t.Fatalf("flipped face normal %v", n)
		}
	}
	// Without regenerate, only the index order changes.
	opts.NormalMode = NormalsSmooth
	sc, _ = prepare(t, src, opts)
	if !slices.Equal(sc.Submeshes[0].Indices, []uint32{0, 2, 1, 0, 3, 2}) {
		t.Fatalf("indices %v", sc.Submeshes[0].Indices)
	}
	if src.Scene.Submeshes[0].Indices[1] != 1 {
		t.Fatal("Prepare modified its source")
	}
}

func TestAreaEpsilon(t *testing.T) {
	s := quad("q")
	// A sliver with |cross|² = (1e-11)² = 1e-22 and a collapsed triangle.
	s.Positions = append(s.Positions, mesh.Vec3{0, 1e-11, 0}, mesh.Vec3{2, 0, 0})
	s.UV0 = append(s.UV0, mesh.Vec2{}, mesh.Vec2{})
	s.Indices = append(s.Indices, 0, 5, 4, 0, 1, 5)
	src := fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{s}})
	opts := DefaultOptions()
	sc, rep := prepare(t, src, opts)
	if rep.Triangles != 2 || rep.Dropped != 2 || len(sc.Submeshes[0].Indices) != 6 {
		t.Fatalf("default epsilon: kept %d dropped %d", rep.Triangles, rep.Dropped)
	}
	opts.AreaEpsilon = 0 // keeps the sliver, still drops the zero-area one
	_, rep = prepare(t, src, opts)
	if rep.Triangles != 3 || rep.Dropped != 1 {
		t.Fatalf("epsilon 0: kept %d dropped %d", rep.Triangles, rep.Dropped)
	}
	opts.AreaEpsilon = 4 // |cross|² of a unit right triangle is 1
	_, _, err := Prepare(src, opts)
	if err == nil || err.Error() != "convert: test.fbx: selected meshes produced no triangles" {
		t.Fatalf("all dropped: %v", err)
	}
}

func TestNormalModes(t *testing.T) {
	// A "roof": two quads meeting at a ridge along X at y = 1, one facing
	// +Z and one tilted, with the second twice as large.
	roof := mesh.Submesh{
		Name: "roof", Material: -1,
		Positions: []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {1, 1, 0}, {0, 1, 0}, {1, 1, 2}, {0, 1, 2}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3, 5, 4, 6, 5, 6, 7},
		Normals:   []mesh.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}},
	}
	src := fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{roof}})
	opts := DefaultOptions()

	sc, rep := prepare(t, src, opts)
	n := sc.Submeshes[0].Normals
	if rep.Normals != NormalsImported || n[0] != (mesh.Vec3{0, 0, 1}) || n[2] != (mesh.Vec3{0, 0, 1}) || n[4] != (mesh.Vec3{0, 1, 0}) {
		t.Fatalf("imported (zero → +Z): %v", n)
	}

	opts.NormalMode = NormalsSmooth
	sc, _ = prepare(t, src, opts)
	n = sc.Submeshes[0].Normals
	// Area weights are |(b−a)×(c−a)|: each flat triangle adds (0,0,1),
	// each tilted one (5,4,6), (5,6,7) adds (0,−2,0). Ridge position
	// (1,1,0) is in two flat triangles and one tilted: (0,−2,2); (0,1,0)
	// in one flat and two tilted: (0,−4,1). Vertices 2 and 4 share a
	// position and so a normal.
	r1 := mesh.Vec3{0, float32(-1 / math.Sqrt2), float32(1 / math.Sqrt2)}
	r2 := mesh.Vec3{0, float32(-4 / math.Sqrt(17)), float32(1 / math.Sqrt(17))}
	if !near(n[2], r1) || !near(n[4], r1) || !near(n[3], r2) || !near(n[5], r2) || n[0] != (mesh.Vec3{0, 0, 1}) || n[6] != (mesh.Vec3{0, -1, 0}) {
		t.Fatalf("smooth: %v", n)
	}

	opts.NormalMode = NormalsRegenerate
	sc, _ = prepare(t, src, opts)
	s := sc.Submeshes[0]
	if len(s.Positions) != 12 || !slices.Equal(s.Indices, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Fatalf("regenerate keeps one vertex per corner: %d %v", len(s.Positions), s.Indices)
	}
	for i, nv := range s.Normals {
		want := mesh.Vec3{0, 0, 1}
		if i >= 6 {
			want = mesh.Vec3{0, -1, 0}
		}
		if nv != want {
			t.Fatalf("regenerate corner %d: %v", i, nv)
		}
	}

	// Imported mode without normals falls back to smooth, and says so.
	noN := quad("q")
	sc, rep = prepare(t, fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{noN}}), DefaultOptions())
	if rep.SmoothFallback != 1 || sc.Submeshes[0].Normals[0] != (mesh.Vec3{0, 0, 1}) {
		t.Fatalf("fallback %d %v", rep.SmoothFallback, sc.Submeshes[0].Normals)
	}
}

func near(a, b mesh.Vec3) bool {
	for i := range 3 {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}

func TestTangentPaths(t *testing.T) {
	opts := DefaultOptions()
	// From uv0: u along +X, v down → (1, 0, 0), w = +1.
	sc, rep := prepare(t, fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{quad("q")}}), opts)
	if rep.Tangents != TangentsGeneratedUV || rep.FallbackFrames != 0 {
		t.Fatalf("path %s, %d fallback", rep.Tangents, rep.FallbackFrames)
	}
	for _, tg := range sc.Submeshes[0].Tangents {
		if tg != (mesh.Vec4{1, 0, 0, 1}) {
			t.Fatalf("uv tangent %v", tg)
		}
	}
	// Mirrored v: w = -1.
	m := quad("m")
	for i := range m.UV0 {
		m.UV0[i][1] = 1 - m.UV0[i][1]
	}
	sc, _ = prepare(t, fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{m}}), opts)
	if tg := sc.Submeshes[0].Tangents[0]; tg != (mesh.Vec4{1, 0, 0, -1}) {
		t.Fatalf("mirrored tangent %v", tg)
	}
	// No uv0: fallback frames. n = +Z → axis Y: cross(Y, Z) = +X.
	nouv := quad("n")
	nouv.UV0 = nil
	sc, rep = prepare(t, fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{nouv}}), opts)
	if rep.Tangents != TangentsGeneratedFallback || rep.FallbackFrames != 4 || sc.Submeshes[0].Tangents[0] != (mesh.Vec4{1, 0, 0, 1}) {
		t.Fatalf("fallback: %s %d %v", rep.Tangents, rep.FallbackFrames, sc.Submeshes[0].Tangents)
	}
	if f := fallbackFrame([3]float64{1, 0, 0}); f != (mesh.Vec4{0, 1, 0, 1}) {
		t.Fatalf("fallback for +X: %v (want cross(Z, X) = +Y)", f)
	}
	// Imported: every corner has one.
	imp := quad("i")
	imp.Normals = []mesh.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}}
	imp.Tangents = []mesh.Vec4{{0, 2, 0, -1}, {0, 1, 0, -1}, {0, 1, 0, -1}, {0, 1, 0, -1}}
	sc, rep = prepare(t, fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{imp}}), opts)
	if rep.Tangents != TangentsImported || sc.Submeshes[0].Tangents[0] != (mesh.Vec4{0, 1, 0, -1}) {
		t.Fatalf("imported: %s %v", rep.Tangents, sc.Submeshes[0].Tangents)
	}
	// One corner without a tangent (zero) → all rebuilt.
	imp.Tangents[3] = mesh.Vec4{}
	_, rep = prepare(t, fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{imp}}), opts)
	if rep.Tangents != TangentsGeneratedUV {
		t.Fatalf("partial tangents: %s", rep.Tangents)
	}
	// One submesh without tangents → all rebuilt.
	_, rep = prepare(t, fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{imp, quad("q")}}), opts)
	if rep.Tangents != TangentsGeneratedUV {
		t.Fatalf("mixed submeshes: %s", rep.Tangents)
	}
}

// TestTangentsPerVertexRef: a vertex_ref pools its triangles, so a
// vertex shared by two faces of different UV directions gets their
// normalised sum; vertices that differ only in uv0 get their own frames.
func TestTangentsPerVertexRef(t *testing.T) {
	s := quad("q")
	s.UV0[2] = mesh.Vec2{1, 1} // triangle (0, 2, 3) keeps u along +X; (0, 1, 2) degenerates
	sc, rep := prepare(t, fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{s}}), DefaultOptions())
	if rep.Tangents != TangentsGeneratedUV {
		t.Fatalf("path %s", rep.Tangents)
	}
	for i, tg := range sc.Submeshes[0].Tangents {
		if l := math.Sqrt(float64(tg[0]*tg[0] + tg[1]*tg[1] + tg[2]*tg[2])); math.Abs(l-1) > 1e-6 || (tg[3] != 1 && tg[3] != -1) {
			t.Fatalf("tangent %d %v not a unit frame", i, tg)
		}
	}
	// Vertex 1 is only in the degenerate-UV triangle: fallback.
	if rep.FallbackFrames != 1 {
		t.Fatalf("fallback frames %d", rep.FallbackFrames)
	}
}

func skinned(name string, joint uint16) mesh.Submesh {
	s := quad(name)
	for range s.Positions {
		s.Joints = append(s.Joints, [4]uint16{joint})
		s.Weights = append(s.Weights, mesh.Vec4{1})
	}
	return s
}

func skeleton3() *mesh.Skeleton {
	return &mesh.Skeleton{Joints: []mesh.Joint{
		{Name: "root", Parent: -1, BindS: mesh.Vec3{1, 1, 1}, BindR: mesh.Vec4{0, 0, 0, 1}},
		{Name: "a", Parent: 0, BindS: mesh.Vec3{1, 1, 1}, BindR: mesh.Vec4{0, 0, 0, 1}},
		{Name: "b", Parent: 1, BindS: mesh.Vec3{1, 1, 1}, BindR: mesh.Vec4{0, 0, 0, 1}},
	}}
}

func TestSkinRules(t *testing.T) {
	sc := &mesh.Scene{Submeshes: []mesh.Submesh{skinned("Body", 2), skinned("Hat", 1), quad("Rock")}, Skeleton: skeleton3()}
	insts := []fbx.Instance{
		{Model: "Body", First: 0, Count: 1, SkinDeformers: 1, Joints: []int{2}},
		{Model: "Hat", First: 1, Count: 1, SkinDeformers: 1, Joints: []int{1}},
		{Model: "Rock", First: 2, Count: 1},
	}
	src := fbxSource(sc, insts...)
	opts := DefaultOptions()
	if _, _, err := Prepare(src, opts); err == nil || !strings.Contains(err.Error(), "static and skinned meshes cannot be mixed in one import (2 of 3 selected meshes are skinned)") {
		t.Errorf("mixed: %v", err)
	}
	// As a plain mesh, everything merges and the skinning is dropped.
	opts.Mesh, opts.Static = "all", true
	out, rep := prepare(t, src, opts)
	if rep.Skinned || out.Skeleton != nil || out.Submeshes[0].Joints != nil || len(out.Submeshes) != 3 {
		t.Fatalf("static: %+v", rep)
	}
	// Only Hat: the skeleton keeps joint a and its ancestor root.
	opts.Mesh, opts.Static = "hat", false
	out, rep = prepare(t, src, opts)
	if rep.Joints != 2 || out.Skeleton.Joints[1].Name != "a" || out.Submeshes[0].Joints[0] != [4]uint16{1} {
		t.Fatalf("pruned: %+v %v", out.Skeleton, out.Submeshes[0].Joints[0])
	}
	if len(sc.Skeleton.Joints) != 3 || sc.Submeshes[1].Joints[0] != [4]uint16{1} {
		t.Fatal("Prepare modified its source skeleton")
	}
	// Both skinned: the whole skeleton, indices unchanged.
	opts.Mesh = "all"
	src2 := fbxSource(&mesh.Scene{Submeshes: sc.Submeshes[:2], Skeleton: sc.Skeleton}, insts[:2]...)
	out, rep = prepare(t, src2, opts)
	if rep.Joints != 3 || out.Submeshes[0].Joints[0] != [4]uint16{2} {
		t.Fatalf("whole skeleton: %d %v", rep.Joints, out.Submeshes[0].Joints[0])
	}

	// Two skin deformers, or an unweighted control point.
	bad := slices.Clone(insts[:1])
	bad[0].SkinDeformers = 2
	_, _, err := Prepare(fbxSource(&mesh.Scene{Submeshes: sc.Submeshes[:1], Skeleton: sc.Skeleton}, bad...), opts)
	if err == nil || !strings.Contains(err.Error(), "skinned mesh requires exactly one skin deformer per selected mesh") {
		t.Errorf("two deformers: %v", err)
	}
	bad[0].SkinDeformers, bad[0].Unweighted = 1, 3
	_, _, err = Prepare(fbxSource(&mesh.Scene{Submeshes: sc.Submeshes[:1], Skeleton: sc.Skeleton}, bad...), opts)
	if err == nil || !strings.Contains(err.Error(), "skinned mesh contains a vertex with no positive skin weights") {
		t.Errorf("unweighted: %v", err)
	}
}

func TestColorsAndNonFinite(t *testing.T) {
	s := quad("q")
	s.Colors = []mesh.Vec4{{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, 1}}
	src := fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{s, quad("plain")}})
	opts := DefaultOptions()
	opts.DefaultColor = mesh.Vec4{0, 0.5, 0, 1}
	sc, _ := prepare(t, src, opts)
	if sc.Submeshes[0].Colors[0] != (mesh.Vec4{1, 0, 0, 1}) || sc.Submeshes[1].Colors[0] != (mesh.Vec4{0, 0.5, 0, 1}) {
		t.Fatalf("colors %v %v", sc.Submeshes[0].Colors[0], sc.Submeshes[1].Colors[0])
	}
	opts.IgnoreColors = true
	sc, _ = prepare(t, src, opts)
	if sc.Submeshes[0].Colors[0] != (mesh.Vec4{0, 0.5, 0, 1}) {
		t.Fatalf("ignored colors %v", sc.Submeshes[0].Colors[0])
	}

	nan := quad("nan")
	nan.UV0[1][0] = float32(math.NaN())
	_, _, err := Prepare(fbxSource(&mesh.Scene{Submeshes: []mesh.Submesh{nan}}), DefaultOptions())
	if err == nil || err.Error() != "convert: test.fbx: mesh contains non-finite vertex data" {
		t.Fatalf("non-finite: %v", err)
	}
}

func TestParse(t *testing.T) {
	if c, err := ParseColor("1, 0.5,0,0.25"); err != nil || c != (mesh.Vec4{1, 0.5, 0, 0.25}) {
		t.Fatalf("ParseColor: %v %v", c, err)
	}
	for _, bad := range []string{"1,1,1", "1,1,1,x", "1,1,1,nan", "1,1,1,inf", ""} {
		if _, err := ParseColor(bad); err == nil {
			t.Errorf("ParseColor(%q) accepted", bad)
		}
	}
	for in, want := range map[string]NormalMode{"": NormalsImported, "Smooth": NormalsSmooth, "regenerate": NormalsRegenerate} {
		if m, err := ParseNormalMode(in); err != nil || m != want {
			t.Errorf("ParseNormalMode(%q) = %v, %v", in, m, err)
		}
	}
	if _, err := ParseNormalMode("flat"); err == nil || !strings.Contains(err.Error(), "imported, smooth, regenerate") {
		t.Errorf("ParseNormalMode(flat): %v", err)
	}
}

func TestScaleGLTF(t *testing.T) {
	sc := &mesh.Scene{Submeshes: []mesh.Submesh{skinned("a/0", 1)}, Skeleton: skeleton3()}
	sc.Skeleton.Joints[1].BindT = mesh.Vec3{0, 1, 0}
	sc.Skeleton.Joints[1].InverseBind = [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1}
	scaleScene(sc, 2)
	j := sc.Skeleton.Joints[1]
	if sc.Submeshes[0].Positions[2] != (mesh.Vec3{2, 2, 0}) || j.BindT != (mesh.Vec3{0, 2, 0}) || j.InverseBind[13] != -2 || j.InverseBind[0] != 1 {
		t.Fatalf("scaled: %v %v %v", sc.Submeshes[0].Positions[2], j.BindT, j.InverseBind)
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load("x.obj", DefaultOptions()); err == nil || !strings.Contains(err.Error(), "unsupported source kind") {
		t.Errorf("obj: %v", err)
	}
	opts := DefaultOptions()
	opts.Scale = -1
	if _, err := Load("x.fbx", opts); err == nil || !strings.Contains(err.Error(), "scale") {
		t.Errorf("negative scale: %v", err)
	}
	if _, err := Load("does-not-exist.fbx", DefaultOptions()); err == nil || !strings.Contains(err.Error(), "does-not-exist.fbx") {
		t.Errorf("missing file: %v", err)
	}
}
