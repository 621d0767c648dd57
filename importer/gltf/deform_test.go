package gltf

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// u8vec4 adds a VEC4 unsigned byte accessor (joints, or normalized weights).
func (b *builder) u8vec4(normalized bool, vals ...uint8) int {
	return b.acc(b.view(append([]byte{}, vals...), 0), 0, cUbyte, "VEC4", len(vals)/4, normalized)
}

// skinnedScene is a quad bound to a three-joint skin listed children first
// (joints = [C, B, A] with A → B → (non-joint N) → C), plus a static
// instance of the same mesh. Node indices: 0 skinned mesh node, 1 A, 2 B,
// 3 C, 4 N, 5 static node.
func skinnedScene(b *builder) obj {
	p := quad(b)
	attrs := p["attributes"].(obj)
	// v0: joints 0,1 at ½ each (+ a JOINTS_1 influence of 0.25 on joint 2)
	// v1: joint 2 only; v2: no weight at all; v3: normalized 128/127 on 1, 2
	attrs["JOINTS_0"] = b.u8vec4(false, 0, 1, 0, 0, 2, 0, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0)
	attrs["WEIGHTS_0"] = b.floats("VEC4", 0.5, 0.5, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 128.0/255, 127.0/255, 0, 0)
	attrs["JOINTS_1"] = b.u8vec4(false, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	attrs["WEIGHTS_1"] = b.u8vec4(true, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
	m := b.mesh("body", p)
	b.node(obj{"mesh": m, "skin": 0, "translation": []float64{5, 0, 0}})
	b.node(obj{"name": "A", "translation": []float64{0, 1, 0}, "children": []int{2}})
	b.node(obj{"name": "B", "rotation": []float64{0, 0, math.Sqrt(0.5), math.Sqrt(0.5)}, "children": []int{4}})
	b.node(obj{"name": "C", "scale": []float64{2, 2, 2}})
	b.node(obj{"name": "N", "translation": []float64{0, 0, 2}, "children": []int{3}})
	b.node(obj{"mesh": m, "translation": []float64{0, 0, 7}})
	b.extra["skins"] = []obj{{"joints": []int{3, 2, 1}}}
	return p
}

// A skin listed children first is reordered parents first with JOINTS
// remapped; influences from both sets are cut to the four largest and
// renormalized, a weightless vertex goes to joint 0; the skinned node's
// transform is not baked, a static instance of the same mesh is.
func TestSkinReorderInfluencesAndPlacement(t *testing.T) {
	b := newBuilder()
	skinnedScene(b)
	s := mustGLB(t, b)
	sk := s.Skeleton
	if sk == nil || len(sk.Joints) != 3 {
		t.Fatalf("skeleton %+v", sk)
	}
	var names []string
	var parents []int
	for _, j := range sk.Joints {
		names, parents = append(names, j.Name), append(parents, j.Parent)
		if j.InverseBind != [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} {
			t.Errorf("joint %s: inverse bind %v, want identity (none given)", j.Name, j.InverseBind)
		}
	}
	if !slices.Equal(names, []string{"A", "B", "C"}) || !slices.Equal(parents, []int{-1, 0, 1}) {
		t.Fatalf("joints %v parents %v, want A B C under -1 0 1", names, parents)
	}
	// bind TRS: A and B are their nodes'; C includes the non-joint N
	if sk.Joints[0].BindT != (mesh.Vec3{0, 1, 0}) || sk.Joints[1].BindR != (mesh.Vec4{0, 0, float32(math.Sqrt(0.5)), float32(math.Sqrt(0.5))}) {
		t.Errorf("A %+v B %+v", sk.Joints[0], sk.Joints[1])
	}
	if c := sk.Joints[2]; !nearVec3(c.BindT, mesh.Vec3{0, 0, 2}) || !nearVec3(c.BindS, mesh.Vec3{2, 2, 2}) || math.Abs(float64(c.BindR[3])-1) > 1e-6 {
		t.Errorf("C bind %+v, want T (0,0,2) S 2", c)
	}

	// chaining the bind TRS gives the nodes' world matrices
	r := math.Sqrt(0.5)
	wa := mesh.TRS([3]float64{0, 1, 0}, [4]float64{0, 0, 0, 1}, [3]float64{1, 1, 1})
	wb := wa.Mul(mesh.TRS([3]float64{}, [4]float64{0, 0, r, r}, [3]float64{1, 1, 1}))
	wc := wb.Mul(mesh.TRS([3]float64{0, 0, 2}, [4]float64{0, 0, 0, 1}, [3]float64{1, 1, 1})).Mul(mesh.TRS([3]float64{}, [4]float64{0, 0, 0, 1}, [3]float64{2, 2, 2}))
	for j, want := range []mesh.Mat4{wa, wb, wc} {
		if d := maxDiff(exportedWorlds(sk, -1, nil)[j], want); d > 1e-6 {
			t.Errorf("joint %d world differs by %g", j, d)
		}
	}

	if len(s.Submeshes) != 2 {
		t.Fatalf("%d submeshes", len(s.Submeshes))
	}
	sm, static := s.Submeshes[0], s.Submeshes[1]
	if !slices.Equal(sm.Positions, []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}) {
		t.Errorf("skinned positions %v: the node transform must not be baked", sm.Positions)
	}
	if static.Joints != nil || static.Weights != nil || static.Positions[0] != (mesh.Vec3{0, 0, 7}) {
		t.Errorf("static instance: joints %v, first position %v", static.Joints, static.Positions[0])
	}
	// source joints 0 1 2 are C B A → exported 2 1 0
	wantJ := [][4]uint16{{2, 1, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}}
	wantW := []mesh.Vec4{{0.4, 0.4, 0.2, 0}, {1, 0, 0, 0}, {1, 0, 0, 0}, {128.0 / 255, 127.0 / 255, 0, 0}}
	if !slices.Equal(sm.Joints, wantJ) {
		t.Errorf("joints %v, want %v", sm.Joints, wantJ)
	}
	for v := range wantW {
		for c := range wantW[v] {
			if math.Abs(float64(sm.Weights[v][c]-wantW[v][c])) > 2e-3 {
				t.Fatalf("vertex %d weights %v, want %v", v, sm.Weights[v], wantW[v])
			}
		}
	}
	checkDeform(t, s)
}

// Only skin 0 is exported; a node bound to another skin is static, and
// the other skins are reported once.
func TestOtherSkinsWarned(t *testing.T) {
	b := newBuilder()
	skinnedScene(b)
	b.nodes[5]["skin"] = 1
	b.extra["skins"] = []obj{{"joints": []int{3, 2, 1}}, {"joints": []int{1}}}
	s := mustGLB(t, b)
	if s.Submeshes[1].Joints != nil {
		t.Error("node bound to skin 1 got skin streams")
	}
	if !slices.Contains(s.Warnings, "dropped 1 skins other than skin 0 (1 mesh nodes bound to them imported as static meshes)") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// Animations: one per source animation; step, linear and cubic kept with
// their values (cubic: in-tangent, value, out-tangent); a joint under a
// non-joint node gets that node's transform composed in; channels on
// non-joints and morph weights are counted.
func TestAnimations(t *testing.T) {
	b := newBuilder()
	skinnedScene(b)
	times := b.floats("SCALAR", 0, 0.5, 1.25)
	s2 := float32(math.Sqrt(0.5))
	rot := b.floats("VEC4",
		0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0,
		0, 0, 1, 0, 0, 0, s2, s2, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)
	tr := b.floats("VEC3", 1, 0, 0, 2, 0, 0, 3, 0, 0)
	sc := b.floats("VEC3", 1, 1, 1, 2, 2, 2, 3, 3, 3)
	w := b.floats("SCALAR", 0, 1, 0)
	b.extra["animations"] = []obj{
		{"name": "move", "samplers": []obj{
			{"input": times, "output": rot, "interpolation": "CUBICSPLINE"},
			{"input": times, "output": tr},
			{"input": times, "output": sc, "interpolation": "STEP"},
			{"input": times, "output": w},
		}, "channels": []obj{
			{"sampler": 0, "target": obj{"node": 2, "path": "rotation"}},
			{"sampler": 1, "target": obj{"node": 3, "path": "translation"}},
			{"sampler": 2, "target": obj{"node": 1, "path": "scale"}},
			{"sampler": 1, "target": obj{"node": 4, "path": "translation"}},
			{"sampler": 3, "target": obj{"node": 0, "path": "weights"}},
		}},
		{"samplers": []obj{}, "channels": []obj{}},
	}
	s := mustGLB(t, b)
	if len(s.Animations) != 2 || s.Animations[1].Name != "" || len(s.Animations[1].Channels) != 0 {
		t.Fatalf("animations %+v", s.Animations)
	}
	a := s.Animations[0]
	if a.Name != "move" || a.Duration != 1.25 || len(a.Channels) != 3 || a.SkippedWeightChannels != 0 {
		t.Fatalf("animation %q duration %v, %d channels, %d weight channels", a.Name, a.Duration, len(a.Channels), a.SkippedWeightChannels)
	}
	cubic, lin, step := a.Channels[0], a.Channels[1], a.Channels[2]
	if cubic.Joint != 1 || cubic.Path != mesh.PathRotation || cubic.Interp != mesh.InterpCubic || len(cubic.Values) != 36 || cubic.Values[10] != 1 || cubic.Values[18] != s2 {
		t.Errorf("cubic channel %+v", cubic)
	}
	if !slices.Equal(cubic.Times, []float32{0, 0.5, 1.25}) {
		t.Errorf("times %v", cubic.Times)
	}
	// C sits under N (translation 0,0,2): its translations move by N
	if lin.Joint != 2 || lin.Interp != mesh.InterpLinear || !slices.Equal(lin.Values, []float32{1, 0, 2, 2, 0, 2, 3, 0, 2}) {
		t.Errorf("linear channel %+v", lin)
	}
	if step.Joint != 0 || step.Path != mesh.PathScale || step.Interp != mesh.InterpStep || !slices.Equal(step.Values, []float32{1, 1, 1, 2, 2, 2, 3, 3, 3}) {
		t.Errorf("step channel %+v", step)
	}
	// node 4 is not a joint; node 0's mesh has no morph targets
	assert.Equal(t, []string{
		"dropped 1 animation channels on nodes that are not joints of skin 0 (node animation in a skinned file, docs/import.md)",
		"dropped 1 morph-weight animation channels on nodes without a morphing mesh",
	}, s.Warnings)
	require.Len(t, s.Drops, 2)
	assert.Equal(t, 1, s.Drops[0].Count)
	checkDeform(t, s)
}

// Morph targets: names from extras.targetNames, sparse deltas, normal
// deltas; a baked instance transforms deltas like directions (normal
// deltas by the inverse transpose), and instancing does not share them.
func TestMorphTargets(t *testing.T) {
	b := newBuilder()
	p := quad(b)
	// target 0: sparse positions only (vertex 2 moves +z); target 1: dense
	sparse := b.acc(-1, 0, cFloat, "VEC3", 4, false)
	b.accs[sparse]["sparse"] = obj{"count": 1,
		"indices": obj{"bufferView": b.view([]byte{2, 0}, 0), "componentType": cUshort},
		"values":  obj{"bufferView": b.view(f32bytes(0, 0, 1), 0)}}
	dpos := b.floats("VEC3", 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0)
	dnrm := b.floats("VEC3", 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0)
	p["targets"] = []obj{{"POSITION": sparse}, {"POSITION": dpos, "NORMAL": dnrm}}
	m := b.mesh("face", p)
	b.meshes[m]["extras"] = obj{"targetNames": []string{"smile", "blink"}}
	b.node(obj{"mesh": m})
	// rotate 90° about z and scale x by 2: (1,0,0) → (0,2,0)
	b.node(obj{"mesh": m, "rotation": []float64{0, 0, math.Sqrt(0.5), math.Sqrt(0.5)}, "scale": []float64{2, 1, 1}})
	s := mustGLB(t, b)
	plain, turned := s.Submeshes[0], s.Submeshes[1]
	if len(plain.Morphs) != 2 || plain.Morphs[0].Name != "smile" || plain.Morphs[1].Name != "blink" {
		t.Fatalf("targets %+v", plain.Morphs)
	}
	if !slices.Equal(plain.Morphs[0].Positions, []mesh.Vec3{{}, {}, {0, 0, 1}, {}}) || plain.Morphs[0].Normals != nil {
		t.Errorf("sparse target %+v", plain.Morphs[0])
	}
	if plain.Morphs[1].Positions[3] != (mesh.Vec3{1, 0, 0}) || plain.Morphs[1].Normals[0] != (mesh.Vec3{0, 1, 0}) {
		t.Errorf("dense target %+v", plain.Morphs[1])
	}
	if d := turned.Morphs[1].Positions[0]; !nearVec3(d, mesh.Vec3{0, 2, 0}) {
		t.Errorf("baked position delta %v, want (0,2,0)", d)
	}
	// normal delta (0,1,0): inverse transpose of R·S(2,1,1) keeps it unit
	// length and rotates it to (-1,0,0)
	if d := turned.Morphs[1].Normals[0]; !nearVec3(d, mesh.Vec3{-1, 0, 0}) {
		t.Errorf("baked normal delta %v, want (-1,0,0)", d)
	}
	if &plain.Morphs[1].Positions[0] == &turned.Morphs[1].Positions[0] {
		t.Error("instances share delta arrays")
	}
	// no names → target_<i>
	delete(b.meshes[m], "extras")
	if s := mustGLB(t, b); s.Submeshes[0].Morphs[1].Name != "target_1" {
		t.Errorf("default name %q", s.Submeshes[0].Morphs[1].Name)
	}
	checkDeform(t, s)
}

// Malformed skins, influences, targets and animations fail with one line
// naming what is wrong.
func TestInvalidDeform(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(b *builder, p obj)
		want string
	}{
		{"joint out of range", func(b *builder, p obj) {
			p["attributes"].(obj)["JOINTS_0"] = b.u8vec4(false, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
		}, "joint 3, skin 0 has 3 joints"},
		{"negative weight", func(b *builder, p obj) {
			p["attributes"].(obj)["WEIGHTS_0"] = b.floats("VEC4", 1, 0, 0, 0, 1, 0, 0, 0, 1, -0.5, 0, 0, 1, 0, 0, 0)
		}, "vertex 2: weight -0.5 is negative"},
		{"joints without weights", func(b *builder, p obj) { delete(p["attributes"].(obj), "WEIGHTS_1") }, "JOINTS_1 and WEIGHTS_1 must come together"},
		{"unnormalized integer weights", func(b *builder, p obj) {
			p["attributes"].(obj)["WEIGHTS_1"] = b.u8vec4(false, make([]byte, 16)...)
		}, "integer weights must be normalized"},
		{"float joints", func(b *builder, p obj) {
			p["attributes"].(obj)["JOINTS_0"] = b.floats("VEC4", make([]float32, 16)...)
		}, "JOINTS_0: accessor"},
		{"duplicate joint", func(b *builder, p obj) { b.extra["skins"] = []obj{{"joints": []int{3, 3}}} }, "node 3 is listed twice"},
		{"missing joint node", func(b *builder, p obj) { b.extra["skins"] = []obj{{"joints": []int{9}}} }, "node 9 does not exist"},
		{"inverse bind count", func(b *builder, p obj) {
			b.extra["skins"] = []obj{{"joints": []int{3, 2, 1}, "inverseBindMatrices": b.floats("SCALAR", make([]float32, 32)...)}}
			b.accs[len(b.accs)-1]["type"] = "MAT4"
			b.accs[len(b.accs)-1]["count"] = 2
		}, "has 2 elements, skin has 3 joints"},
		{"missing skin", func(b *builder, p obj) { b.nodes[0]["skin"] = 4 }, "skin 4 does not exist"},
		{"target count", func(b *builder, p obj) { p["targets"] = []obj{{"POSITION": b.floats("VEC3", 0, 0, 0)}} }, "target 0 POSITION: accessor"},
		{"descending times", func(b *builder, p obj) { animate(b, []float32{0, 1, 0.5}, "LINEAR", 3) }, "key 2: time 0.5 is negative or before the previous key"},
		{"negative time", func(b *builder, p obj) { animate(b, []float32{-1, 0, 1}, "LINEAR", 3) }, "key 0: time -1"},
		{"nan time", func(b *builder, p obj) { animate(b, []float32{0, float32(math.NaN()), 1}, "LINEAR", 3) }, "is not finite"},
		{"cubic output count", func(b *builder, p obj) { animate(b, []float32{0, 1, 2}, "CUBICSPLINE", 3) }, "has 3 elements, want 9 for 3 keys"},
		{"sampler missing", func(b *builder, p obj) {
			animate(b, []float32{0}, "LINEAR", 1)
			b.extra["animations"].([]obj)[0]["channels"].([]obj)[0]["sampler"] = 5
		}, "sampler 5 does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder()
			p := skinnedScene(b)
			tc.edit(b, p)
			_, err := decodeGLB(t, b)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "gltf: x.glb: ") || !strings.Contains(msg, tc.want) || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q, want one line starting \"gltf: x.glb: \" containing %q", msg, tc.want)
			}
		})
	}
}

// animate adds one animation translating joint node 3 with the given key
// times and n output elements.
func animate(b *builder, times []float32, interp string, n int) {
	in := b.floats("SCALAR", times...)
	out := b.floats("VEC3", make([]float32, 3*n)...)
	b.extra["animations"] = []obj{{
		"samplers": []obj{{"input": in, "output": out, "interpolation": interp}},
		"channels": []obj{{"sampler": 0, "target": obj{"node": 3, "path": "translation"}}},
	}}
}

// Image bytes: loaded from data URIs and files for referenced images,
// bounded by MaxImageBytes, and refused when missing or outside the folder.
func TestImageData(t *testing.T) {
	build := func(uri string) []byte {
		b := newBuilder()
		b.node(obj{"mesh": b.mesh("", quad(b))})
		b.extra["images"] = []obj{{"uri": uri}, {"uri": "unused.png"}}
		b.extra["textures"] = []obj{{"source": 0}}
		b.extra["materials"] = []obj{{"emissiveTexture": obj{"index": 0}}}
		return b.glb(t)
	}
	fsys := fstest.MapFS{"img/t.png": {Data: []byte("0123456789")}}
	decode := func(uri string, opts Options) (*mesh.Scene, error) {
		fsys["x.glb"] = &fstest.MapFile{Data: build(uri)}
		return Decode(fsys, "x.glb", opts)
	}
	s, err := decode("img/t.png", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(s.Images[0].Data) != "0123456789" || s.Images[1].Data != nil {
		t.Errorf("images %+v", s.Images)
	}
	s, err = decode("data:image/png;base64,AAEC", Options{})
	if err != nil || !reflect.DeepEqual(s.Images[0].Data, []byte{0, 1, 2}) {
		t.Fatalf("data uri: %v %v", err, s)
	}
	for _, tc := range []struct {
		uri  string
		opts Options
		want string
	}{
		{"img/t.png", Options{MaxImageBytes: 9}, "is 10 bytes, more than 9"},
		{"data:image/png;base64,AAEC", Options{MaxImageBytes: 2}, "more than 2 bytes"},
		{"img/missing.png", Options{}, "image 0: open img/missing.png"},
		{"../t.png", Options{}, "uri leaves the source folder"},
	} {
		if _, err := decode(tc.uri, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.uri, err, tc.want)
		}
	}
}

// Hand-made transforms decompose back to their TRS, mirrors included.
func TestDecompose(t *testing.T) {
	q := [4]float64{0.1, -0.7, 0.3, 0.64}
	for _, tc := range []struct {
		t [3]float64
		q [4]float64
		s [3]float64
	}{
		{[3]float64{1, 2, 3}, q, [3]float64{1, 1, 1}},
		{[3]float64{0, 0, 0}, q, [3]float64{2, 0.5, 3}},
		{[3]float64{-4, 0, 1}, q, [3]float64{-1, 2, 2}},
		{[3]float64{}, [4]float64{1, 0, 0, 0}, [3]float64{1, 1, 1}},
	} {
		m := mesh.TRS(tc.t, tc.q, tc.s)
		tt, qq, ss := decompose(m)
		back := mesh.TRS(tt, qq, ss)
		if d := maxDiff(back, m); d > 1e-12 {
			t.Errorf("%v: recomposed differs by %g", tc, d)
		}
		inv, ok := m.InverseAffine()
		if !ok || maxDiff(inv.Mul(m), mesh.Identity()) > 1e-12 {
			t.Errorf("%v: inverse wrong", tc)
		}
	}
	if _, ok := (mesh.Mat4{}).InverseAffine(); ok {
		t.Error("singular matrix inverted")
	}
	if got := parentsFirst([]int{1, 2, -1, 0}); !slices.Equal(got, []int{2, 1, 0, 3}) {
		t.Errorf("parentsFirst = %v", got)
	}
}

// Morph deltas, instanced copies included, count against MaxVertices.
func TestMorphBudget(t *testing.T) {
	b := newBuilder()
	p := quad(b)
	d := b.floats("VEC3", make([]float32, 12)...)
	p["targets"] = []obj{{"POSITION": d, "NORMAL": d}, {"POSITION": d}}
	m := b.mesh("", p)
	for i := 0; i < 4; i++ {
		b.node(obj{"mesh": m})
	}
	fsys := fstest.MapFS{"x.glb": {Data: b.glb(t)}}
	// 4 instances × 3 streams × 4 vertices = 48 deltas
	if _, err := Decode(fsys, "x.glb", Options{MaxVertices: 48}); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(fsys, "x.glb", Options{MaxVertices: 47}); err == nil || !strings.Contains(err.Error(), "exceeds 47 morph deltas") {
		t.Fatalf("error %v, want the morph budget", err)
	}
}

// A joint's offset moves cubic values like points and their tangents like
// directions; rotations and scales compose with the offset's.
func TestOffsetChannel(t *testing.T) {
	r := math.Sqrt(0.5)
	off := mesh.TRS([3]float64{0, 0, 5}, [4]float64{0, 0, r, r}, [3]float64{2, 2, 2}) // turn 90° about z, scale 2, move z 5
	tr := mesh.Channel{Path: mesh.PathTranslation, Interp: mesh.InterpCubic, Times: []float32{0}, Values: []float32{1, 0, 0, 1, 0, 0, 1, 0, 0}}
	offsetChannel(&tr, off)
	want := []float32{0, 2, 0, 0, 2, 5, 0, 2, 0} // in-tangent, value, out-tangent
	for i := range want {
		if math.Abs(float64(tr.Values[i]-want[i])) > 1e-6 {
			t.Fatalf("translation %v, want %v", tr.Values, want)
		}
	}
	sc := mesh.Channel{Path: mesh.PathScale, Interp: mesh.InterpLinear, Times: []float32{0}, Values: []float32{1, 2, 3}}
	offsetChannel(&sc, off)
	if !slices.Equal(sc.Values, []float32{2, 4, 6}) {
		t.Errorf("scale %v", sc.Values)
	}
	rot := mesh.Channel{Path: mesh.PathRotation, Interp: mesh.InterpStep, Times: []float32{0}, Values: []float32{0, 0, float32(r), float32(r)}}
	offsetChannel(&rot, off)
	if math.Abs(float64(rot.Values[2])-1) > 1e-6 || math.Abs(float64(rot.Values[3])) > 1e-6 {
		t.Errorf("rotation %v, want a half turn about z", rot.Values)
	}
}

// A skinned node's primitive without JOINTS_0 is bound rigidly to joint 0
// and reported once.
func TestSkinnedPrimitiveWithoutJoints(t *testing.T) {
	b := newBuilder()
	p := skinnedScene(b)
	attrs := p["attributes"].(obj)
	for _, k := range []string{"JOINTS_0", "WEIGHTS_0", "JOINTS_1", "WEIGHTS_1"} {
		delete(attrs, k)
	}
	s := mustGLB(t, b)
	sm := s.Submeshes[0]
	if len(sm.Joints) != 4 || sm.Joints[3] != ([4]uint16{}) || sm.Weights[3] != (mesh.Vec4{1, 0, 0, 0}) {
		t.Errorf("joints %v weights %v", sm.Joints, sm.Weights)
	}
	if !slices.Contains(s.Warnings, "bound 1 skinned primitives without JOINTS_0 rigidly to joint 0") {
		t.Errorf("warnings %q", s.Warnings)
	}
}
