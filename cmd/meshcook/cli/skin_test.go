package cli

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
	qgltf "github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// deformCorpus are the skinned, morphing, animated and textured corpus
// sources of issue #6, with what their cook must hold: SKEL joints, .hanim
// clips and .ktx2 textures.
var deformCorpus = []struct {
	file                    string
	name                    string // output stem
	joints, clips, textures int
}{
	{"CesiumMan/glTF/CesiumMan.gltf", "CesiumMan", 19, 1, 1},
	{"Fox/glTF/Fox.gltf", "Fox", 24, 3, 1},
	{"SimpleSkin/simple_skin.gltf", "simple_skin", 2, 1, 0},
	{"assimp_quad_skin/quad_skin.glb", "quad_skin", 10, 0, 0},
	{"AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", "AnimatedMorphCube", 0, 1, 0},
	{"MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf", "MorphPrimitivesTest", 0, 0, 1},
	{"BoxTextured/glTF/BoxTextured.gltf", "BoxTextured", 0, 0, 1},
	{"FlightHelmet/FlightHelmet.gltf", "FlightHelmet", 0, 0, 15},
	{"TextureSettingsTest/TextureSettingsTest.gltf", "TextureSettingsTest", 0, 0, 3},
}

// cookDeformCorpus cooks every deformCorpus source in one run into out and
// returns the report.
func cookDeformCorpus(t *testing.T, dir, out string) cook.Report {
	t.Helper()
	args := []string{"cook", "-o", out, "--json"}
	for _, c := range deformCorpus {
		args = append(args, filepath.Join(dir, c.file))
	}
	code, stdout, stderr := run(t, args...)
	if code != ExitOK {
		t.Fatalf("cook exit %d: %s", code, stderr)
	}
	var rep cook.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("cook --json: %v", err)
	}
	return rep
}

// The issue #6 corpus cooks with skins, clips, materials and textures;
// every output passes validate, meshcheck and (for .ktx2) npm ktx-parse;
// skinned meshes reproduce the glTF bind pose and clips the glTF key
// values; a second cook writes identical bytes. Cooked once, checked by
// subtests (FlightHelmet's textures are the slow part).
func TestCookSkinsClipsTextures(t *testing.T) {
	dir := testkit.Shared(t, "corpus/gltf")
	out := t.TempDir()
	rep := cookDeformCorpus(t, dir, out)

	byName := map[string]cook.MeshReport{}
	for _, m := range rep.Meshes {
		byName[m.Name] = m
	}
	kinds := map[string]int{}
	for _, o := range rep.Outputs {
		kinds[o.Kind]++
	}
	wantTextures, wantClips := 0, 0
	for _, c := range deformCorpus {
		m, ok := byName[c.name]
		if !ok {
			t.Errorf("%s: no mesh report", c.name)
			continue
		}
		if m.Joints != c.joints || m.Clips != c.clips || m.Textures != c.textures {
			t.Errorf("%s: %d joints, %d clips, %d textures; want %d, %d, %d", c.name, m.Joints, m.Clips, m.Textures, c.joints, c.clips, c.textures)
		}
		wantTextures += c.textures
		if c.clips > 0 {
			wantClips++
		}
	}
	if kinds["ktx2"] != wantTextures || kinds["hanim"] != wantClips || kinds["hmesh"] != len(deformCorpus) || kinds["hmat"] != len(deformCorpus) {
		t.Errorf("outputs by kind %v; want %d hmesh/hmat, %d hanim, %d ktx2", kinds, len(deformCorpus), wantClips, wantTextures)
	}
	// the morph cube keeps its targets (MRPH) and its weights channel (path 3)
	if strings.Contains(strings.Join(rep.Warnings, "\n"), "morph-weight") {
		t.Errorf("warnings %q drop morph-weight channels", rep.Warnings)
	}
	if b, err := os.ReadFile(filepath.Join(out, "AnimatedMorphCube.hmesh")); err != nil {
		t.Error(err)
	} else if f, err := hmesh.Decode(b); err != nil || f.Morphs == nil || len(f.Morphs.Targets) != 2 {
		t.Errorf("AnimatedMorphCube.hmesh: %v, morphs %+v", err, f.Morphs)
	}
	if b, err := os.ReadFile(filepath.Join(out, "AnimatedMorphCube.hanim")); err != nil {
		t.Error(err)
	} else if clips, err := hanim.Decode(b); err != nil || len(clips) != 1 || len(clips[0].Channels) != 1 || clips[0].Channels[0].Path != mesh.PathWeights || clips[0].Channels[0].Targets != 2 {
		t.Errorf("AnimatedMorphCube.hanim: %v, clips %+v", err, clips)
	}

	files := outputsUnder(t, out)
	var textures []string
	for _, f := range files {
		if strings.HasSuffix(f, ".ktx2") {
			textures = append(textures, f)
		}
	}
	t.Run("validate", func(t *testing.T) {
		code, stdout, _ := run(t, append([]string{"validate"}, files...)...)
		if code != ExitOK {
			t.Errorf("validate failed:\n%s", stdout)
		}
		for _, kind := range []string{"(hanim)", "(ktx2)"} {
			if !strings.Contains(stdout, kind) {
				t.Errorf("validate did not recognise any %s file:\n%s", kind, stdout)
			}
		}
	})
	t.Run("texture refs", func(t *testing.T) { checkTextureRefs(t, dir, out) })
	t.Run("inspect", func(t *testing.T) { checkInspect(t, out) })
	t.Run("bind pose", func(t *testing.T) {
		for _, c := range deformCorpus {
			if c.joints > 0 {
				t.Run(c.name, func(t *testing.T) { checkBindPose(t, filepath.Join(dir, c.file), filepath.Join(out, c.name+".hmesh")) })
			}
		}
	})
	t.Run("clips at keys", func(t *testing.T) {
		for _, c := range deformCorpus {
			if c.clips > 0 && c.joints > 0 {
				t.Run(c.name, func(t *testing.T) {
					checkClipsAtKeys(t, filepath.Join(dir, c.file), filepath.Join(out, c.name+".hmesh"), filepath.Join(out, c.name+".hanim"))
				})
			}
		}
	})
	t.Run("posed", func(t *testing.T) {
		for _, c := range deformCorpus {
			if c.clips > 0 && c.joints > 0 {
				t.Run(c.name, func(t *testing.T) {
					checkPosed(t, filepath.Join(dir, c.file), filepath.Join(out, c.name+".hmesh"), filepath.Join(out, c.name+".hanim"))
				})
			}
		}
	})
	t.Run("ktx-parse", func(t *testing.T) { ktxParse(t, textures) })
	t.Run("determinism", func(t *testing.T) {
		again := t.TempDir()
		cookDeformCorpus(t, dir, again)
		a, b := readTree(t, out), readTree(t, again)
		if len(a) != len(b) {
			t.Fatalf("first cook wrote %d files, second %d", len(a), len(b))
		}
		for name, data := range a {
			if !bytes.Equal(data, b[name]) {
				t.Errorf("%s differs between two cooks", name)
			}
		}
	})
	t.Run("meshcheck", func(t *testing.T) { meshcheck(t, files) })
}

// checkTextureRefs: every non-zero .hmat texture ref names a written
// .ktx2 by the documented mapping (file `<name>/<TextureFileLeaf(leaf)>.ktx2`,
// ref `<sourceRef>/<leaf>`), color slots name sRGB files and data slots
// UNORM files, and every written texture is referenced.
func checkTextureRefs(t *testing.T, dir, out string) {
	for _, c := range deformCorpus {
		rows := decodeHMat(t, filepath.Join(out, c.name+".hmat"))
		doc, err := qgltf.Open(filepath.Join(dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		names := make([]string, len(doc.Images))
		for i, im := range doc.Images {
			names[i] = im.Name
		}
		byHash := map[uint64]string{}
		for _, leaf := range hmat.Leaves(names, hmat.ImagePrefix) {
			byHash[hmat.Hash(strings.ToLower(c.name)+"/"+leaf)] = filepath.Join(out, filepath.FromSlash(cook.TexturePath(c.name, leaf)))
		}
		used := map[string]bool{}
		for i, r := range rows {
			for _, ref := range []struct {
				h     uint64
				color bool
			}{{r.BaseColorTex, true}, {r.EmissiveTex, true}, {r.NormalTex, false}, {r.MetallicRoughnessTex, false}, {r.OcclusionTex, false}} {
				if ref.h == 0 {
					continue
				}
				p, ok := byHash[ref.h]
				if !ok {
					t.Errorf("%s row %d: ref %016x is no image of the source", c.name, i, ref.h)
					continue
				}
				b, err := os.ReadFile(p)
				if err != nil {
					t.Errorf("%s row %d: ref names %s: %v", c.name, i, p, err)
					continue
				}
				f, err := ktx2.Decode(b)
				if err != nil {
					t.Fatal(err)
				}
				if f.SRGB() != ref.color {
					t.Errorf("%s row %d: %s is %v with sRGB %v for a color=%v slot", c.name, i, p, f.Codec, f.SRGB(), ref.color)
				}
				used[p] = true
			}
		}
		if len(used) != c.textures {
			t.Errorf("%s: %d textures referenced, %d expected", c.name, len(used), c.textures)
		}
	}
}

func decodeHMat(t *testing.T, p string) []hmat.Material {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := hmat.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func decodeCookedHMesh(t *testing.T, p string) *hmesh.File {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := hmesh.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkInspect: inspect --json reports the skeleton, clips and textures.
func checkInspect(t *testing.T, out string) {
	var hs hmeshSummary
	inspectAsJSON(t, filepath.Join(out, "Fox.hmesh"), &hs)
	if !hs.Skinned || hs.Joints != 24 || !reflect.DeepEqual(hs.Roots, []int{0}) {
		t.Errorf("Fox.hmesh: skinned %v, %d joints, roots %v; want true, 24, [0]", hs.Skinned, hs.Joints, hs.Roots)
	}
	var as hanimSummary
	inspectAsJSON(t, filepath.Join(out, "Fox.hanim"), &as)
	var names []string
	for _, c := range as.Clips {
		names = append(names, c.Name)
		if c.Channels != 21 || c.Duration <= 0 || c.Keys < c.Channels {
			t.Errorf("Fox.hanim clip %q: %+v", c.Name, c)
		}
	}
	if !reflect.DeepEqual(names, []string{"Survey", "Walk", "Run"}) {
		t.Errorf("Fox.hanim clips %v", names)
	}
	var ks ktx2Summary
	inspectAsJSON(t, filepath.Join(out, "Fox", "image_0.ktx2"), &ks)
	if ks.Format != "ETC1S" || ks.ColorSpace != "srgb" || ks.Width != 1024 || ks.Height != 1024 || ks.Levels != 11 || !ks.FullChain || ks.Writer != cook.KTXWriter || ks.Orientation != "rd" {
		t.Errorf("Fox/image_0.ktx2: %+v", ks)
	}
	code, stdout, stderr := run(t, "inspect", filepath.Join(out, "CesiumMan.hanim"))
	if code != ExitOK || !strings.Contains(stdout, "57 channels") {
		t.Errorf("inspect CesiumMan.hanim: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = run(t, "inspect", filepath.Join(out, "CesiumMan.hanim"), "--dump")
	if code != ExitOK || !strings.HasPrefix(stdout, "hanim v1 clips 1\nclip 0 \"\" duration 2 channels 57\n") {
		t.Errorf("inspect --dump CesiumMan.hanim: exit %d\n%.300s", code, stdout)
	}
}

func inspectAsJSON(t *testing.T, p string, v any) {
	t.Helper()
	code, stdout, stderr := run(t, "inspect", p, "--json")
	if code != ExitOK {
		t.Fatalf("inspect %s: exit %d: %s", p, code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), v); err != nil {
		t.Fatalf("inspect %s --json: %v", p, err)
	}
}

// gltfRef is a source read with qmuntal/gltf alone: node parents and
// rest-pose world matrices.
type gltfRef struct {
	doc    *qgltf.Document
	parent []int
	world  []mesh.Mat4
}

func openGLTFRef(t *testing.T, path string) *gltfRef {
	t.Helper()
	doc, err := qgltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &gltfRef{doc: doc, parent: make([]int, len(doc.Nodes)), world: make([]mesh.Mat4, len(doc.Nodes))}
	for i := range r.parent {
		r.parent[i] = -1
	}
	for i, n := range doc.Nodes {
		for _, c := range n.Children {
			r.parent[c] = i
		}
	}
	var walk func(n int, pw mesh.Mat4)
	walk = func(n int, pw mesh.Mat4) {
		r.world[n] = pw.Mul(r.local(n, 0, nil))
		for _, c := range doc.Nodes[n].Children {
			walk(c, r.world[n])
		}
	}
	for i, p := range r.parent {
		if p < 0 {
			walk(i, mesh.Identity())
		}
	}
	return r
}

// local is node n's local matrix with one TRS property replaced by v when
// v is not nil.
func (r *gltfRef) local(n int, path mesh.AnimPath, v []float64) mesh.Mat4 {
	nd := r.doc.Nodes[n]
	tr, q, s := nd.TranslationOrDefault(), nd.RotationOrDefault(), nd.ScaleOrDefault()
	switch {
	case v == nil:
	case path == mesh.PathTranslation:
		tr = [3]float64{v[0], v[1], v[2]}
	case path == mesh.PathRotation:
		q = [4]float64{v[0], v[1], v[2], v[3]}
	case path == mesh.PathScale:
		s = [3]float64{v[0], v[1], v[2]}
	}
	return mesh.Mat4(nd.MatrixOrDefault()).Mul(mesh.TRS(tr, q, s))
}

// floats reads a float accessor flat (matrices column-major).
func (r *gltfRef) floats(t *testing.T, ai int) []float64 {
	t.Helper()
	v, err := modeler.ReadAccessor(r.doc, r.doc.Accessors[ai], nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	switch v := v.(type) {
	case []float32:
		for _, e := range v {
			out = append(out, float64(e))
		}
	case [][3]float32:
		for _, e := range v {
			out = append(out, float64(e[0]), float64(e[1]), float64(e[2]))
		}
	case [][4]float32:
		for _, e := range v {
			out = append(out, float64(e[0]), float64(e[1]), float64(e[2]), float64(e[3]))
		}
	case [][4][4]float32: // qmuntal indexes [row][column]
		for _, e := range v {
			for c := 0; c < 4; c++ {
				for row := 0; row < 4; row++ {
					out = append(out, float64(e[row][c]))
				}
			}
		}
	default:
		t.Fatalf("accessor %d: %T is not a float accessor", ai, v)
	}
	return out
}

// skelWorlds chains the cooked SKEL bind TRS into world matrices, joint j's
// local replaced by override when it is not nil.
func skelWorlds(joints []hmesh.Joint, j int, override *mesh.Mat4) []mesh.Mat4 {
	w := make([]mesh.Mat4, len(joints))
	for i, jt := range joints {
		l := mesh.TRS(f64s3(jt.BindT), [4]float64{float64(jt.BindR[0]), float64(jt.BindR[1]), float64(jt.BindR[2]), float64(jt.BindR[3])}, f64s3(jt.BindS))
		if i == j && override != nil {
			l = *override
		}
		if jt.Parent >= 0 {
			l = w[jt.Parent].Mul(l)
		}
		w[i] = l
	}
	return w
}

func f64s3(v [3]float32) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }

func mat4Of(m [16]float32) mesh.Mat4 {
	var out mesh.Mat4
	for i, v := range m {
		out[i] = float64(v)
	}
	return out
}

// checkBindPose reads the cooked .hmesh back and skins every VTXS vertex
// with its SKIN influences and the SKEL joints' world bind matrices ×
// inverse binds; the result must be where glTF skinning of the source puts
// the same vertex (all influence sets, the source's own inverse binds and
// node worlds) within 1e-4 of the model's size. Cooked vertices are
// matched to source vertices by their exact rest position.
func checkBindPose(t *testing.T, src, cooked string) {
	f := decodeCookedHMesh(t, cooked)
	if f.Skin == nil || len(f.Joints) == 0 {
		t.Fatalf("%s: no SKIN/SKEL", cooked)
	}
	ref := openGLTFRef(t, src)
	skin := ref.doc.Skins[0]
	ibm := ref.floats(t, int(*skin.InverseBindMatrices))
	refSkin := make([]mesh.Mat4, len(skin.Joints))
	for i, node := range skin.Joints {
		var m mesh.Mat4
		copy(m[:], ibm[16*i:16*i+16])
		refSkin[i] = ref.world[node].Mul(m)
	}
	want, size := sourceSkinned(t, ref, refSkin, true)
	worlds := skelWorlds(f.Joints, -1, nil)
	exp := make([]mesh.Mat4, len(worlds))
	for j := range worlds {
		exp[j] = worlds[j].Mul(mat4Of(f.Joints[j].InverseBind))
	}
	worst := worstSkinned(t, f, exp, want)
	t.Logf("%d cooked vertices, model size %.4g, worst bind-pose error %.3g (%.2g of the size)", len(f.Vertices), size, worst, worst/size)
	if !(worst <= 1e-4*size) {
		t.Errorf("bind pose differs by %g, more than 1e-4 of the model size %g", worst, size)
	}
}

// sampleChannel evaluates a cooked channel at time tm: step holds the
// previous key, linear interpolates (rotations normalized).
func sampleChannel(h hanim.Channel, tm float32) []float64 {
	n := h.Components()
	k := sort.Search(len(h.Times), func(i int) bool { return h.Times[i] > tm }) // first key after tm
	at := func(i int) []float64 {
		out := make([]float64, n)
		for c := range out {
			out[c] = float64(h.Values[i*n+c])
		}
		return out
	}
	switch {
	case k == 0:
		return at(0)
	case k == len(h.Times) || h.Interp == hanim.InterpStep || h.Times[k-1] == tm:
		return at(k - 1)
	}
	a, b := at(k-1), at(k)
	s := float64(tm-h.Times[k-1]) / float64(h.Times[k]-h.Times[k-1])
	out := make([]float64, n)
	var l2 float64
	for c := range out {
		out[c] = a[c] + s*(b[c]-a[c])
		l2 += out[c] * out[c]
	}
	if h.Path == mesh.PathRotation && l2 > 0 {
		for c := range out {
			out[c] /= math.Sqrt(l2)
		}
	}
	return out
}

// checkClipsAtKeys samples every cooked joint channel at the source's key
// times and checks that the joint's world matrix (its SKEL bind pose with
// the sampled value, ancestors at rest) equals the source node's world
// matrix with the source key value, within 1e-4 relative. Cooked channels
// follow the source's joint channels in order, one for one.
func checkClipsAtKeys(t *testing.T, src, meshPath, clipPath string) {
	f := decodeCookedHMesh(t, meshPath)
	b, err := os.ReadFile(clipPath)
	if err != nil {
		t.Fatal(err)
	}
	clips, err := hanim.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	ref := openGLTFRef(t, src)
	isJoint := map[int]bool{}
	for _, n := range ref.doc.Skins[0].Joints {
		isJoint[n] = true
	}
	if len(clips) != len(ref.doc.Animations) {
		t.Fatalf("%d clips for %d animations", len(clips), len(ref.doc.Animations))
	}
	checked := 0
	for ai, a := range ref.doc.Animations {
		next := 0
		for ci, c := range a.Channels {
			if c.Target.Path == qgltf.TRSWeights || c.Target.Node == nil || !isJoint[*c.Target.Node] {
				continue
			}
			if next >= len(clips[ai].Channels) {
				t.Fatalf("animation %d: more source joint channels than cooked ones (%d)", ai, len(clips[ai].Channels))
			}
			h := clips[ai].Channels[next]
			next++
			smp := a.Samplers[c.Sampler]
			times, values := ref.floats(t, smp.Input), ref.floats(t, smp.Output)
			comps := h.Components()
			stride, mid := comps, 0
			if smp.Interpolation == qgltf.InterpolationCubicSpline {
				stride, mid = 3*comps, comps
			}
			node := *c.Target.Node
			for k, tm := range times {
				v := values[k*stride+mid : k*stride+mid+comps]
				want := mesh.Identity()
				if p := ref.parent[node]; p >= 0 {
					want = ref.world[p]
				}
				want = want.Mul(ref.local(node, h.Path, v))
				got := sampleChannel(h, float32(tm))
				jt := f.Joints[h.Joint]
				tt, rr, ss := f64s3(jt.BindT), [4]float64{float64(jt.BindR[0]), float64(jt.BindR[1]), float64(jt.BindR[2]), float64(jt.BindR[3])}, f64s3(jt.BindS)
				switch h.Path {
				case mesh.PathTranslation:
					tt = [3]float64(got)
				case mesh.PathRotation:
					rr = [4]float64(got)
				case mesh.PathScale:
					ss = [3]float64(got)
				}
				l := mesh.TRS(tt, rr, ss)
				gw := skelWorlds(f.Joints, int(h.Joint), &l)[h.Joint]
				for e := range gw {
					if math.Abs(gw[e]-want[e]) > 1e-4*max(1, math.Abs(want[e])) {
						t.Fatalf("animation %d channel %d (%s) key %d at %vs: world\n got %v\nwant %v", ai, ci, c.Target.Path, k, tm, gw, want)
					}
				}
				checked++
			}
		}
		if next != len(clips[ai].Channels) {
			t.Errorf("animation %d: %d cooked channels, %d source joint channels", ai, len(clips[ai].Channels), next)
		}
	}
	t.Logf("%d keys checked", checked)
}

// ktxParse reads every texture with npm ktx-parse (the project's
// formats/ktx2/testdata/node/check.mjs) and compares the header, DFD
// transfer and every level's bytes with our own reader. It skips only when
// node or the module is missing and CI is unset.
func ktxParse(t *testing.T, files []string) {
	if len(files) == 0 {
		t.Fatal("no .ktx2 written")
	}
	nodeDir := filepath.Join(testkit.RepoRoot(t), "formats", "ktx2", "testdata", "node")
	unavailable := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("ktx-parse cross-check cannot run in CI: %s (install with `npm ci --prefix formats/ktx2/testdata/node`)", why)
		}
		t.Skipf("ktx-parse cross-check skipped: %s (install with `npm ci --prefix formats/ktx2/testdata/node`)", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "ktx-parse", "package.json")); err != nil {
		unavailable("node_modules/ktx-parse is not installed")
	}
	cmd := exec.Command(node, append([]string{"check.mjs"}, files...)...)
	cmd.Dir = nodeDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("node check.mjs: %v\n%s", err, stderr.String())
	}
	type result struct {
		File       string `json:"file"`
		Error      string `json:"error"`
		VkFormat   uint32 `json:"vkFormat"`
		PixelWidth int    `json:"pixelWidth"`
		PixelHigh  int    `json:"pixelHeight"`
		LevelCount int    `json:"levelCount"`
		Levels     []struct {
			ByteLength int    `json:"byteLength"`
			SHA256     string `json:"sha256"`
		} `json:"levels"`
		DFD struct {
			TransferFunction int `json:"transferFunction"`
		} `json:"dfd"`
		KeyValue map[string]string `json:"keyValue"`
	}
	got := map[string]result{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("check.mjs output %q: %v", sc.Text(), err)
		}
		got[r.File] = r
	}
	for _, p := range files {
		r, ok := got[p]
		if !ok || r.Error != "" {
			t.Errorf("%s: ktx-parse: printed %v, error %q", p, ok, r.Error)
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ktx2.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		transfer := 1
		if f.SRGB() {
			transfer = 2
		}
		if r.VkFormat != f.VkFormat || r.PixelWidth != f.Width || r.PixelHigh != f.Height || r.LevelCount != len(f.Levels) ||
			r.LevelCount != ktx2.LevelCount(f.Width, f.Height) || r.DFD.TransferFunction != transfer {
			t.Errorf("%s: ktx-parse sees vkFormat %d %d×%d, %d levels, transfer %d; we wrote vkFormat %d %d×%d, %d levels",
				p, r.VkFormat, r.PixelWidth, r.PixelHigh, r.LevelCount, r.DFD.TransferFunction, f.VkFormat, f.Width, f.Height, len(f.Levels))
			continue
		}
		stored, err := ktx2.StoredLevels(b) // the pixels for RGBA8, the blocks for Basis codecs
		if err != nil {
			t.Fatal(err)
		}
		for i, lv := range r.Levels {
			sum := sha256.Sum256(stored[i])
			if lv.ByteLength != len(stored[i]) || lv.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: ktx-parse level %d differs from ours", p, i)
			}
		}
		if want := map[string]string{"KTXorientation": "rd", "KTXwriter": cook.KTXWriter}; !reflect.DeepEqual(r.KeyValue, want) {
			t.Errorf("%s: ktx-parse key/values %q, want %q", p, r.KeyValue, want)
		}
	}
	t.Logf("%d textures read by ktx-parse", len(got))
}

// validate and inspect know .hanim and .ktx2 without the corpus: the
// sample box's texture validates and inspects, a truncated copy fails, a
// clip on a joint the sibling .hmesh lacks fails, the same clip without a
// sibling passes.
func TestHAnimKTX2Kinds(t *testing.T) {
	out := t.TempDir()
	// RGBA8 here: the summary and dump below pin the uncompressed format
	// (TestCookTextureModes covers the Basis codecs).
	if code, _, stderr := run(t, "cook", samplesDir(t), "-o", out, "--textures", "rgba8"); code != ExitOK {
		t.Fatalf("cook exit %d: %s", code, stderr)
	}
	tex := filepath.Join(out, "box", "checker.ktx2")
	b, err := os.ReadFile(tex)
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(out, "truncated.ktx2")
	clips := []hanim.Clip{{Name: "nod", Duration: 1, Channels: []hanim.Channel{
		{Joint: 0, Path: mesh.PathRotation, Interp: hanim.InterpLinear, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 0, 0.5, 0, 0.8660254}},
	}}}
	clipBytes, err := hanim.Encode(clips)
	if err != nil {
		t.Fatal(err)
	}
	withSibling, alone := filepath.Join(out, "box.hanim"), filepath.Join(out, "alone.hanim")
	for p, data := range map[string][]byte{truncated: b[:len(b)-1], withSibling: clipBytes, alone: clipBytes} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, stdout, _ := run(t, "validate", "--json", tex, truncated, withSibling, alone)
	var checks []fileCheck
	if err := json.Unmarshal([]byte(stdout), &checks); err != nil {
		t.Fatalf("validate --json: %v\n%s", err, stdout)
	}
	want := []struct {
		kind string
		ok   bool
		err  string
	}{{"ktx2", true, ""}, {"ktx2", false, "ktx2:"}, {"hanim", false, "box.hmesh: hanim: clip 0 \"nod\": channel 0: joint 0, skeleton has 0"}, {"hanim", true, ""}}
	if len(checks) != len(want) {
		t.Fatalf("%d results: %s", len(checks), stdout)
	}
	for i, w := range want {
		c := checks[i]
		if c.Kind != w.kind || c.OK != w.ok || !strings.Contains(c.Error, w.err) {
			t.Errorf("%s: kind %s ok %v error %q; want %s %v containing %q", c.File, c.Kind, c.OK, c.Error, w.kind, w.ok, w.err)
		}
	}
	if code, _, _ := run(t, "validate", truncated); code != ExitBadInput {
		t.Errorf("validate of a truncated texture: exit %d, want %d", code, ExitBadInput)
	}

	var ks ktx2Summary
	inspectAsJSON(t, tex, &ks)
	f, err := ktx2.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if ks.Kind != "ktx2" || ks.Format != "R8G8B8A8_SRGB" || ks.ColorSpace != "srgb" || ks.Width != f.Width || ks.Levels != len(f.Levels) || !ks.FullChain {
		t.Errorf("inspect %s: %+v", tex, ks)
	}
	var as hanimSummary
	inspectAsJSON(t, alone, &as)
	if want := []clipSummary{{Name: "nod", Duration: 1, Channels: 1, Keys: 2, Joints: 1, Rotation: 1}}; !reflect.DeepEqual(as.Clips, want) {
		t.Errorf("inspect %s: %+v, want %+v", alone, as.Clips, want)
	}
	code, stdout, _ := run(t, "inspect", alone, "--dump")
	wantDump := "hanim v1 clips 1\nclip 0 \"nod\" duration 1 channels 1\n  channel 0 joint 0 rotation linear keys 2\n    0 [0 0 0 1]\n    1 [0 0.5 0 0.8660254]\n"
	if code != ExitOK || stdout != wantDump {
		t.Errorf("inspect --dump: exit %d\n%s\nwant\n%s", code, stdout, wantDump)
	}
	code, stdout, _ = run(t, "inspect", tex, "--dump")
	if code != ExitOK || !strings.HasPrefix(stdout, "ktx2 vkFormat 43 (R8G8B8A8_SRGB)") {
		t.Errorf("inspect --dump %s: exit %d\n%s", tex, code, stdout)
	}
}

// checkPosed poses source and cooked skeleton with animation 0 at one key
// time every joint channel of it has (the middle such key) and skins the
// mesh both ways: glTF skinning of the source (all influence sets, node
// worlds with the animated TRS) against the cooked SKIN, SKEL and .hanim
// read back. In bind pose every skin matrix is usually the identity, so
// this is the check that catches wrong joint indices or hierarchy.
func checkPosed(t *testing.T, src, meshPath, clipPath string) {
	f := decodeCookedHMesh(t, meshPath)
	b, err := os.ReadFile(clipPath)
	if err != nil {
		t.Fatal(err)
	}
	clips, err := hanim.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	ref := openGLTFRef(t, src)
	skin := ref.doc.Skins[0]
	isJoint := map[int]bool{}
	for _, n := range skin.Joints {
		isJoint[n] = true
	}
	anim := ref.doc.Animations[0]
	type srcChannel struct {
		node   int
		path   mesh.AnimPath
		times  []float64
		values []float64
		stride int
		mid    int
	}
	var chans []srcChannel
	for _, c := range anim.Channels {
		if c.Target.Path == qgltf.TRSWeights || c.Target.Node == nil || !isJoint[*c.Target.Node] {
			continue
		}
		sc := srcChannel{node: *c.Target.Node}
		switch c.Target.Path {
		case qgltf.TRSTranslation:
			sc.path = mesh.PathTranslation
		case qgltf.TRSRotation:
			sc.path = mesh.PathRotation
		case qgltf.TRSScale:
			sc.path = mesh.PathScale
		}
		smp := anim.Samplers[c.Sampler]
		sc.times, sc.values = ref.floats(t, smp.Input), ref.floats(t, smp.Output)
		sc.stride = sc.path.Components()
		if smp.Interpolation == qgltf.InterpolationCubicSpline {
			sc.stride, sc.mid = 3*sc.stride, sc.stride
		}
		chans = append(chans, sc)
	}
	if len(chans) == 0 || len(chans) != len(clips[0].Channels) {
		t.Fatalf("%d source joint channels, %d cooked", len(chans), len(clips[0].Channels))
	}
	// key times every channel has
	common := map[float64]int{}
	for _, c := range chans {
		for _, tm := range c.times {
			common[tm]++
		}
	}
	var shared []float64
	for tm, n := range common {
		if n == len(chans) {
			shared = append(shared, tm)
		}
	}
	if len(shared) == 0 {
		t.Skip("no key time shared by every channel")
	}
	sort.Float64s(shared)
	tm := shared[len(shared)/2]

	// source: animated locals, worlds, skin matrices
	type trs struct{ t, r, s []float64 }
	anim0 := map[int]*trs{}
	for _, c := range chans {
		k := sort.SearchFloat64s(c.times, tm)
		v := c.values[k*c.stride+c.mid : k*c.stride+c.mid+c.path.Components()]
		a := anim0[c.node]
		if a == nil {
			a = &trs{}
			anim0[c.node] = a
		}
		switch c.path {
		case mesh.PathTranslation:
			a.t = v
		case mesh.PathRotation:
			a.r = v
		case mesh.PathScale:
			a.s = v
		}
	}
	world := make([]mesh.Mat4, len(ref.doc.Nodes))
	var walk func(n int, pw mesh.Mat4)
	walk = func(n int, pw mesh.Mat4) {
		nd := ref.doc.Nodes[n]
		tr, q, s := nd.TranslationOrDefault(), nd.RotationOrDefault(), nd.ScaleOrDefault()
		if a := anim0[n]; a != nil {
			if a.t != nil {
				tr = [3]float64(a.t)
			}
			if a.r != nil {
				q = [4]float64(a.r)
			}
			if a.s != nil {
				s = [3]float64(a.s)
			}
		}
		world[n] = pw.Mul(mesh.Mat4(nd.MatrixOrDefault()).Mul(mesh.TRS(tr, q, s)))
		for _, c := range nd.Children {
			walk(c, world[n])
		}
	}
	for i, p := range ref.parent {
		if p < 0 {
			walk(i, mesh.Identity())
		}
	}
	ibm := ref.floats(t, int(*skin.InverseBindMatrices))
	refSkin := make([]mesh.Mat4, len(skin.Joints))
	for i, node := range skin.Joints {
		var m mesh.Mat4
		copy(m[:], ibm[16*i:16*i+16])
		refSkin[i] = world[node].Mul(m)
	}

	// cooked: SKEL locals with the clip sampled at tm
	locals := make([]mesh.Mat4, len(f.Joints))
	tt := make([][3]float64, len(f.Joints))
	rr := make([][4]float64, len(f.Joints))
	ss := make([][3]float64, len(f.Joints))
	for j, jt := range f.Joints {
		tt[j], ss[j] = f64s3(jt.BindT), f64s3(jt.BindS)
		rr[j] = [4]float64{float64(jt.BindR[0]), float64(jt.BindR[1]), float64(jt.BindR[2]), float64(jt.BindR[3])}
	}
	for _, h := range clips[0].Channels {
		v := sampleChannel(h, float32(tm))
		switch h.Path {
		case mesh.PathTranslation:
			tt[h.Joint] = [3]float64(v)
		case mesh.PathRotation:
			rr[h.Joint] = [4]float64(v)
		case mesh.PathScale:
			ss[h.Joint] = [3]float64(v)
		}
	}
	exp := make([]mesh.Mat4, len(f.Joints))
	for j, jt := range f.Joints {
		locals[j] = mesh.TRS(tt[j], rr[j], ss[j])
		if jt.Parent >= 0 {
			locals[j] = locals[jt.Parent].Mul(locals[j])
		}
	}
	for j := range exp {
		exp[j] = locals[j].Mul(mat4Of(f.Joints[j].InverseBind))
	}

	want, size := sourceSkinned(t, ref, refSkin, false)
	worst := worstSkinned(t, f, exp, want)
	t.Logf("posed at %vs: model size %.4g, worst vertex error %.3g (%.2g of the size)", tm, size, worst, worst/size)
	if !(worst <= 1e-4*size) {
		t.Errorf("posed mesh differs by %g, more than 1e-4 of the model size %g", worst, size)
	}
}

// sourceSkinned skins every vertex of the source's skinned primitives with
// the skin matrices refSkin (glTF skin joint order) and returns the results
// keyed by rest position (one entry per source vertex there) and the
// skinned model's bounding-box diagonal. allSets uses every
// JOINTS_n/WEIGHTS_n set, renormalized; otherwise a source with more than
// one set skips the test (the cook keeps only the four largest influences,
// which only agree with all sets in bind pose).
func sourceSkinned(t *testing.T, ref *gltfRef, refSkin []mesh.Mat4, allSets bool) (map[[3]float32][][3]float64, float64) {
	t.Helper()
	want := map[[3]float32][][3]float64{}
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, n := range ref.doc.Nodes {
		if n.Skin == nil || n.Mesh == nil {
			continue
		}
		for _, prim := range ref.doc.Meshes[*n.Mesh].Primitives {
			pos, err := modeler.ReadPosition(ref.doc, ref.doc.Accessors[prim.Attributes["POSITION"]], nil)
			if err != nil {
				t.Fatal(err)
			}
			var joints [][][4]uint16
			var weights [][][4]float32
			for k := 0; ; k++ {
				ja, ok := prim.Attributes[fmt.Sprintf("JOINTS_%d", k)]
				if !ok {
					break
				}
				if k > 0 && !allSets {
					t.Skip("more than one influence set: the cook keeps the four largest")
				}
				j, err := modeler.ReadJoints(ref.doc, ref.doc.Accessors[ja], nil)
				if err != nil {
					t.Fatal(err)
				}
				w, err := modeler.ReadWeights(ref.doc, ref.doc.Accessors[prim.Attributes[fmt.Sprintf("WEIGHTS_%d", k)]], nil)
				if err != nil {
					t.Fatal(err)
				}
				joints, weights = append(joints, j), append(weights, w)
			}
			for v, p := range pos {
				var out [3]float64
				var sum float64
				for set := range weights {
					for c := range 4 {
						sum += float64(weights[set][v][c])
					}
				}
				for set := range weights {
					for c, w := range weights[set][v] {
						if w != 0 {
							q := refSkin[joints[set][v][c]].Point(mesh.Vec3(p))
							for k := range out {
								out[k] += float64(w) / sum * float64(q[k])
							}
						}
					}
				}
				want[p] = append(want[p], out)
				for k := range lo {
					lo[k], hi[k] = min(lo[k], out[k]), max(hi[k], out[k])
				}
			}
		}
	}
	return want, math.Sqrt((hi[0]-lo[0])*(hi[0]-lo[0]) + (hi[1]-lo[1])*(hi[1]-lo[1]) + (hi[2]-lo[2])*(hi[2]-lo[2]))
}

// worstSkinned skins every cooked vertex with its SKIN influences and the
// skin matrices exp (SKEL order) and returns the largest distance to the
// nearest source result at the same rest position.
func worstSkinned(t *testing.T, f *hmesh.File, exp []mesh.Mat4, want map[[3]float32][][3]float64) float64 {
	t.Helper()
	worst := 0.0
	for v, vx := range f.Vertices {
		cands, ok := want[vx.Position]
		if !ok {
			t.Fatalf("cooked vertex %d at %v is no source position", v, vx.Position)
		}
		var got [3]float64
		for c, w := range f.Skin[v].Weights {
			if w != 0 {
				q := exp[f.Skin[v].Joints[c]].Point(mesh.Vec3(vx.Position))
				for k := range got {
					got[k] += float64(w) * float64(q[k])
				}
			}
		}
		best := math.Inf(1)
		for _, w := range cands {
			best = min(best, math.Sqrt((got[0]-w[0])*(got[0]-w[0])+(got[1]-w[1])*(got[1]-w[1])+(got[2]-w[2])*(got[2]-w[2])))
		}
		worst = max(worst, best)
	}
	return worst
}
