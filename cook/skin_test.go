package cook

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/mesh"
)

// skQuad is a unit quad in the XY plane with normals and UVs.
func skQuad(material int) mesh.Submesh {
	return mesh.Submesh{
		Name:      "quad",
		Material:  material,
		Positions: []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
		Normals:   []mesh.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		UV0:       []mesh.Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}
}

// skSkeleton is a two-joint chain: joint 1 one unit up from joint 0.
func skSkeleton() *mesh.Skeleton {
	id := [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	ib1 := id
	ib1[13] = -1 // translation -1 in y, column-major
	return &mesh.Skeleton{Joints: []mesh.Joint{
		{Name: "root", Parent: -1, InverseBind: id, BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}},
		{Name: "tip", Parent: 0, InverseBind: ib1, BindT: mesh.Vec3{0, 1, 0}, BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}},
	}}
}

// skCook runs the pipeline's process and the hmesh target on scene and
// returns the outputs by name with the job's warnings.
func skCook(t *testing.T, scene *mesh.Scene) (map[string][]byte, map[string]string, []string, MeshReport) {
	t.Helper()
	job := Job{Source: "src/Models/Thing.glb", Rel: "Models/Thing.glb", Name: "Models/Thing", SourceRef: "models/thing"}
	opts := DefaultOptions()
	c, err := process(context.Background(), job, scene, opts, newStopwatch())
	if err != nil {
		t.Fatal(err)
	}
	files, err := packHMesh(job, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	more, warnings, err := packCompanions(job, c, startTextures(context.Background(), job, c.scene, DefaultTextureOptions(), nil))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	out, kinds := map[string][]byte{}, map[string]string{}
	for _, f := range files {
		if err := f.validate(); err != nil {
			t.Fatalf("%s: own validation: %v", f.name, err)
		}
		if _, dup := out[f.name]; dup {
			t.Fatalf("output %s written twice", f.name)
		}
		out[f.name], kinds[f.name] = f.data, f.kind
	}
	return out, kinds, warnings, c.report
}

func skDecodeHMesh(t *testing.T, b []byte) *hmesh.File {
	t.Helper()
	f, err := hmesh.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// A skinned submesh keeps its influences (renormalized, zero-sum vertices
// bound to joint 0); a submesh without influences in the same file is bound
// rigidly to joint 0; SKEL copies the skeleton field for field.
func TestSkinAndSkeleton(t *testing.T) {
	skinned := skQuad(-1)
	skinned.Joints = [][4]uint16{{0, 1, 0, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}}
	// vertex 0 sums to 2 (renormalized to halves); vertex 3 sums to 0 (rigid)
	skinned.Weights = []mesh.Vec4{{1, 1, 0, 0}, {0.25, 0.75, 0, 0}, {1, 0, 0, 0}, {0, 0, 0, 0}}
	prop := skQuad(-1)
	for i := range prop.Positions {
		prop.Positions[i][2] = 5
	}
	scene := &mesh.Scene{Submeshes: []mesh.Submesh{skinned, prop}, Skeleton: skSkeleton()}
	out, _, _, rep := skCook(t, scene)
	f := skDecodeHMesh(t, out["Models/Thing.hmesh"])
	if len(f.Skin) != len(f.Vertices) || len(f.Joints) != 2 || rep.Joints != 2 {
		t.Fatalf("%d skin vertices for %d vertices, %d joints (report %d)", len(f.Skin), len(f.Vertices), len(f.Joints), rep.Joints)
	}
	for j, jt := range scene.Skeleton.Joints {
		want := hmesh.Joint{InverseBind: jt.InverseBind, BindT: jt.BindT, BindR: jt.BindR, BindS: jt.BindS, Parent: int32(jt.Parent)}
		if f.Joints[j] != want {
			t.Errorf("joint %d: %+v, want %+v", j, f.Joints[j], want)
		}
	}
	// Vertices are reordered by the cook: find each by position.
	want := map[mesh.Vec3]hmesh.SkinVertex{
		{0, 0, 0}: {Joints: [4]uint16{0, 1, 0, 0}, Weights: [4]float32{0.5, 0.5, 0, 0}},
		{1, 0, 0}: {Joints: [4]uint16{0, 1, 0, 0}, Weights: [4]float32{0.25, 0.75, 0, 0}},
		{1, 1, 0}: {Joints: [4]uint16{1, 0, 0, 0}, Weights: [4]float32{1, 0, 0, 0}},
		{0, 1, 0}: {Weights: [4]float32{1, 0, 0, 0}},
	}
	for v, vx := range f.Vertices {
		p := mesh.Vec3(vx.Position)
		w, ok := want[p]
		if p[2] == 5 {
			w, ok = rigidInfluence(), true
		}
		if !ok {
			t.Fatalf("vertex %d at %v: not a source position", v, p)
		}
		if f.Skin[v] != w {
			t.Errorf("vertex %d at %v: skin %+v, want %+v", v, p, f.Skin[v], w)
		}
	}
}

// A skeleton without skinned submeshes still gets SKEL (the clips need
// it) but no SKIN; a static scene gets neither.
func TestSkeletonWithoutSkin(t *testing.T) {
	out, _, _, _ := skCook(t, &mesh.Scene{Submeshes: []mesh.Submesh{skQuad(-1)}, Skeleton: skSkeleton()})
	if f := skDecodeHMesh(t, out["Models/Thing.hmesh"]); f.Skin != nil || len(f.Joints) != 2 {
		t.Errorf("skeleton only: skin %v, %d joints; want no SKIN and 2 joints", f.Skin != nil, len(f.Joints))
	}
	out, _, _, _ = skCook(t, &mesh.Scene{Submeshes: []mesh.Submesh{skQuad(-1)}})
	if f := skDecodeHMesh(t, out["Models/Thing.hmesh"]); f.Skin != nil || f.Joints != nil {
		t.Errorf("static: skin %v joints %v; want neither chunk", f.Skin != nil, f.Joints != nil)
	}
}

// Influences that break the model's contracts fail the job with the
// submesh and vertex named, never a file the validator would refuse.
func TestSkinInvalidInfluences(t *testing.T) {
	for _, tc := range []struct {
		name    string
		joints  [4]uint16
		weights mesh.Vec4
		want    string
	}{
		{"joint out of range", [4]uint16{2, 0, 0, 0}, mesh.Vec4{1, 0, 0, 0}, "joint 2 not below"},
		{"negative weight", [4]uint16{0, 1, 0, 0}, mesh.Vec4{1.5, -0.5, 0, 0}, "weight 1 is -0.5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &hmesh.File{}
			s := skQuad(-1)
			s.Joints = make([][4]uint16, 4)
			s.Weights = []mesh.Vec4{{1}, {1}, {1}, tc.weights}
			s.Joints[3] = tc.joints
			f.Vertices = make([]hmesh.Vertex, 4)
			err := packSkin(f, &mesh.Scene{Submeshes: []mesh.Submesh{s}, Skeleton: skSkeleton()})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "vertex 3") {
				t.Errorf("error %v, want one naming vertex 3 and %q", err, tc.want)
			}
		})
	}
}

func skPNG(t *testing.T, w, h int, c color.NRGBA) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Each image a written material references becomes one .ktx2 under the
// job's folder, named by its ref leaf: sRGB for color slots, UNORM for
// data slots, color winning (with a warning) for an image used both ways.
// Images only unused materials reference are not written; an image
// without bytes is skipped with a warning. Every .hmat texture ref is the
// hash of `<sourceRef>/<leaf>` where the file is `<name>/<leaf>.ktx2`.
func TestTexturesAndRefs(t *testing.T) {
	m0 := mesh.DefaultMaterial()
	m0.Name = "Body"
	m0.BaseColorTexture, m0.NormalTexture, m0.MetallicRoughnessTexture, m0.OcclusionTexture = 0, 1, 2, 2
	m1 := mesh.DefaultMaterial() // unused: its image is not written
	m1.BaseColorTexture = 3
	m2 := mesh.DefaultMaterial()
	m2.EmissiveTexture, m2.NormalTexture = 4, 5 // image 5 has no bytes
	m2.OcclusionTexture = 0                     // image 0 is also base color → written as color
	scene := &mesh.Scene{
		Submeshes: []mesh.Submesh{skQuad(2), skQuad(0)},
		Materials: []mesh.Material{m0, m1, m2},
		Images: []mesh.Image{
			{Name: "Albedo", Data: skPNG(t, 8, 4, color.NRGBA{200, 100, 50, 255})},
			{Name: "../Normal", Data: skPNG(t, 4, 4, color.NRGBA{128, 128, 255, 255})},
			{Data: skPNG(t, 2, 2, color.NRGBA{0, 80, 255, 255})},
			{Name: "unused", Data: skPNG(t, 2, 2, color.NRGBA{1, 2, 3, 255})},
			{Name: "glow", Data: skPNG(t, 1, 3, color.NRGBA{255, 255, 0, 255})},
			{Name: "missing", URI: "missing.png"},
		},
	}
	out, kinds, warnings, rep := skCook(t, scene)
	// Default textures "auto": UASTC for data slots, autoColorCodec for
	// color slots, the more faithful codec for an image used both ways.
	wantKTX := map[string]string{
		"Models/Thing/albedo.ktx2":      "uastc srgb",
		"Models/Thing/..%2Fnormal.ktx2": "uastc linear",
		"Models/Thing/image_2.ktx2":     "uastc linear",
		"Models/Thing/glow.ktx2":        autoColorCodec.String() + " srgb",
	}
	got := map[string]string{}
	for name, b := range out {
		if kinds[name] != "ktx2" {
			continue
		}
		f, err := ktx2.Decode(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(f.Levels) != ktx2.LevelCount(f.Width, f.Height) || string(f.KeyValues[ktx2.KeyWriter]) != KTXWriter+"\x00" {
			t.Errorf("%s: %d levels for %d×%d, writer %q", name, len(f.Levels), f.Width, f.Height, f.KeyValues[ktx2.KeyWriter])
		}
		tf := "linear"
		if f.SRGB() {
			tf = "srgb"
		}
		got[name] = f.Codec.String() + " " + tf
	}
	if !reflect.DeepEqual(got, wantKTX) || rep.Textures != len(wantKTX) {
		t.Errorf("textures %v (report %d), want %v", got, rep.Textures, wantKTX)
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{"image 0 (albedo) is used as color and as data (material 2 occlusion, material 0 baseColor)", "image 5 (missing): no image bytes"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", warnings, w)
		}
	}
	for _, w := range warnings {
		if !strings.HasPrefix(w, "src/Models/Thing.glb: ") {
			t.Errorf("warning %q does not name the source", w)
		}
	}

	// Every non-zero ref in the .hmat names a written file or the
	// skipped image, by the documented mapping.
	rows, err := hmat.Decode(out["Models/Thing.hmat"])
	if err != nil {
		t.Fatal(err)
	}
	byHash := map[uint64]string{}
	for name := range wantKTX {
		leaf, err := url.PathUnescape(strings.TrimSuffix(strings.TrimPrefix(name, "Models/Thing/"), ".ktx2"))
		if err != nil {
			t.Fatal(err)
		}
		byHash[hmat.Hash("models/thing/"+leaf)] = name
	}
	byHash[hmat.Hash("models/thing/missing")] = "missing"
	refs := 0
	for i, r := range rows {
		for _, h := range []uint64{r.BaseColorTex, r.MetallicRoughnessTex, r.NormalTex, r.OcclusionTex, r.EmissiveTex} {
			if h == 0 {
				continue
			}
			refs++
			if _, ok := byHash[h]; !ok {
				t.Errorf("row %d: texture ref %016x names no written texture", i, h)
			}
		}
	}
	if refs != 7 { // m2: emissive, normal, occlusion; m0: four
		t.Errorf("%d texture refs, want 7", refs)
	}
}

// TextureFileLeaf is the identity on ordinary leaves, never leaves the
// folder, and percent-decodes back to the leaf.
func TestTextureFileLeaf(t *testing.T) {
	for leaf, want := range map[string]string{
		"wood_basecolor": "wood_basecolor",
		"uv_texture.jpg": "uv_texture.jpg",
		"über map":       "über map",
		"../x":           "..%2Fx",
		"..":             "%2E%2E",
		".":              "%2E",
		`a\b:c*?"<>|`:    "a%5Cb%3Ac%2A%3F%22%3C%3E%7C",
		"50%":            "50%25",
		"tab\there":      "tab%09here",
	} {
		if got := TextureFileLeaf(leaf); got != want {
			t.Errorf("TextureFileLeaf(%q) = %q, want %q", leaf, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab./\\%:\x00\x1f\x7f é")
	for range 2000 {
		b := make([]byte, 1+rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		leaf := string(b)
		got := TextureFileLeaf(leaf)
		if strings.ContainsAny(got, "/\\") || got == "." || got == ".." {
			t.Fatalf("TextureFileLeaf(%q) = %q is not one safe path element", leaf, got)
		}
		if back, err := url.PathUnescape(got); err != nil || back != leaf {
			t.Fatalf("TextureFileLeaf(%q) = %q decodes to %q, %v", leaf, got, back, err)
		}
	}
}

// Animations become one clip each; CUBICSPLINE is resampled (and said
// so), LINEAR copied key for key; a scene without animations writes no
// .hanim.
func TestHAnimClips(t *testing.T) {
	scene := &mesh.Scene{
		Submeshes: []mesh.Submesh{skQuad(-1)},
		Skeleton:  skSkeleton(),
		Animations: []mesh.Animation{
			{Name: "wave", Duration: 1, Channels: []mesh.Channel{
				{Joint: 1, Path: mesh.PathTranslation, Interp: mesh.InterpLinear, Times: []float32{0, 1}, Values: []float32{0, 1, 0, 0, 2, 0}},
				{Joint: 0, Path: mesh.PathScale, Interp: mesh.InterpCubic, Times: []float32{0, 1},
					Values: []float32{0, 0, 0, 1, 1, 1, 3, 3, 3, 3, 3, 3, 2, 2, 2, 0, 0, 0}},
			}},
			{Name: "morph only", Duration: 0.5, SkippedWeightChannels: 2},
		},
	}
	out, kinds, warnings, rep := skCook(t, scene)
	if kinds["Models/Thing.hanim"] != "hanim" || rep.Clips != 2 {
		t.Fatalf("outputs %v, report clips %d", kinds, rep.Clips)
	}
	clips, err := hanim.Decode(out["Models/Thing.hanim"])
	if err != nil {
		t.Fatal(err)
	}
	if len(clips) != 2 || clips[0].Name != "wave" || clips[1].Name != "morph only" || clips[1].Duration != 0.5 || len(clips[1].Channels) != 0 {
		t.Fatalf("clips %+v", clips)
	}
	lin := clips[0].Channels[0]
	if lin.Joint != 1 || lin.Interp != hanim.InterpLinear || !reflect.DeepEqual(lin.Times, []float32{0, 1}) || !reflect.DeepEqual(lin.Values, []float32{0, 1, 0, 0, 2, 0}) {
		t.Errorf("linear channel changed: %+v", lin)
	}
	cub := clips[0].Channels[1]
	if cub.Interp != hanim.InterpLinear || len(cub.Times) <= 2 || cub.Times[0] != 0 || cub.Times[len(cub.Times)-1] != 1 {
		t.Errorf("cubic channel not resampled to linear keys spanning the clip: %d keys %v", len(cub.Times), cub.Times)
	}
	joined := strings.Join(warnings, "\n")
	for _, w := range []string{"resampled 1 CUBICSPLINE channels", "skipped 2 morph-weight channels"} {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings %q lack %q", warnings, w)
		}
	}

	scene.Animations = nil
	if out, _, _, rep := skCook(t, scene); out["Models/Thing.hanim"] != nil || rep.Clips != 0 {
		t.Errorf("no animations: .hanim written (%d clips)", rep.Clips)
	}
}

// A channel on a joint the skeleton lacks fails the job.
func TestHAnimJointOutOfRange(t *testing.T) {
	scene := &mesh.Scene{
		Submeshes: []mesh.Submesh{skQuad(-1)},
		Animations: []mesh.Animation{{Name: "a", Duration: 1, Channels: []mesh.Channel{
			{Joint: 0, Path: mesh.PathTranslation, Interp: mesh.InterpStep, Times: []float32{0}, Values: []float32{0, 0, 0}},
		}}},
	}
	job := Job{Source: "x.glb", Name: "x", SourceRef: "x"}
	c, err := process(context.Background(), job, scene, DefaultOptions(), newStopwatch())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := packCompanions(job, c, startTextures(context.Background(), job, c.scene, DefaultTextureOptions(), nil)); err == nil || !strings.Contains(err.Error(), "skeleton has 0") {
		t.Errorf("error %v, want the joint count named", err)
	}
}
