package gltf

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	qgltf "github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/meshcook/meshcook/mesh"
)

// The corpus's skinned, morphing and animated samples come in with the
// skeletons, influences, targets and clips their sources hold.
func TestCorpusSkinsMorphsAnimations(t *testing.T) {
	corpusFiles(t, "gltf") // skips when the corpus is absent
	type anim struct {
		name     string
		channels int
		weights  int
	}
	tests := []struct {
		file    string
		joints  int
		anims   []anim
		morphs  [][]string // per submesh: target names
		subs    int
		skinned int // submeshes with skin streams
	}{
		{file: "CesiumMan/glTF/CesiumMan.gltf", joints: 19, anims: []anim{{"", 57, 0}}, subs: 1, skinned: 1},
		{file: "CesiumMan/glTF-Binary/CesiumMan.glb", joints: 19, anims: []anim{{"", 57, 0}}, subs: 1, skinned: 1},
		{file: "Fox/glTF/Fox.gltf", joints: 24, anims: []anim{{"Survey", 21, 0}, {"Walk", 21, 0}, {"Run", 21, 0}}, subs: 1, skinned: 1},
		{file: "SimpleSkin/simple_skin.gltf", joints: 2, anims: []anim{{"", 1, 0}}, subs: 1, skinned: 1},
		{file: "assimp_quad_skin/quad_skin.glb", joints: 10, subs: 1, skinned: 1},
		{file: "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", anims: []anim{{"Square", 1, 0}}, subs: 1,
			morphs: [][]string{{"target_0", "target_1"}}},
		{file: "MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf", subs: 2, morphs: [][]string{{"target_0"}, {"target_0"}}},
		{file: "SimpleMorph/glTF/SimpleMorph.gltf", anims: []anim{{"", 1, 0}}, subs: 1, morphs: [][]string{{"target_0", "target_1"}}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(corpusDir, "gltf", tc.file)
			s, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkScene(t, path, s)
			checkDeform(t, s)
			if got := jointCount(s); got != tc.joints {
				t.Errorf("%d joints, want %d", got, tc.joints)
			}
			if len(s.Animations) != len(tc.anims) {
				t.Fatalf("%d animations, want %d", len(s.Animations), len(tc.anims))
			}
			for i, a := range tc.anims {
				got := s.Animations[i]
				if got.Name != a.name || len(got.Channels) != a.channels || got.SkippedWeightChannels != a.weights {
					t.Errorf("animation %d: %q with %d channels, %d weight channels; want %q %d %d",
						i, got.Name, len(got.Channels), got.SkippedWeightChannels, a.name, a.channels, a.weights)
				}
			}
			if len(s.Submeshes) != tc.subs {
				t.Fatalf("%d submeshes, want %d", len(s.Submeshes), tc.subs)
			}
			skinned := 0
			for i, sm := range s.Submeshes {
				if sm.Joints != nil {
					skinned++
				}
				var want []string
				if tc.morphs != nil {
					want = tc.morphs[i]
				}
				if len(sm.Morphs) != len(want) {
					t.Fatalf("submesh %d: %d morph targets, want %d", i, len(sm.Morphs), len(want))
				}
				for k, m := range sm.Morphs {
					if m.Name != want[k] {
						t.Errorf("submesh %d target %d named %q, want %q", i, k, m.Name, want[k])
					}
				}
			}
			if skinned != tc.skinned {
				t.Errorf("%d skinned submeshes, want %d", skinned, tc.skinned)
			}
		})
	}
}

func jointCount(s *mesh.Scene) int {
	if s.Skeleton == nil {
		return 0
	}
	return len(s.Skeleton.Joints)
}

// checkDeform asserts the skin and morph contracts: parents precede their
// joints, influences index the skeleton with weights ≥ 0 summing to 1 and
// unused slots (weight 0) on joint 0, morph streams parallel to positions,
// channels on existing joints with ascending times and matching values.
func checkDeform(t *testing.T, s *mesh.Scene) {
	t.Helper()
	nj := jointCount(s)
	if s.Skeleton != nil {
		for j, jt := range s.Skeleton.Joints {
			if jt.Parent < -1 || jt.Parent >= j {
				t.Errorf("joint %d: parent %d does not precede it", j, jt.Parent)
			}
		}
	}
	for i, sm := range s.Submeshes {
		if (sm.Joints == nil) != (sm.Weights == nil) || (sm.Joints != nil && (len(sm.Joints) != len(sm.Positions) || len(sm.Weights) != len(sm.Positions))) {
			t.Fatalf("submesh %d: %d joints, %d weights, %d positions", i, len(sm.Joints), len(sm.Weights), len(sm.Positions))
		}
		for v, w := range sm.Weights {
			sum := float64(w[0]) + float64(w[1]) + float64(w[2]) + float64(w[3])
			if math.Abs(sum-1) > 1e-6 {
				t.Fatalf("submesh %d vertex %d: weights %v sum to %v", i, v, w, sum)
			}
			for c := range w {
				if w[c] < 0 || int(sm.Joints[v][c]) >= nj || (w[c] == 0 && sm.Joints[v][c] != 0) {
					t.Fatalf("submesh %d vertex %d: joints %v weights %v (%d joints)", i, v, sm.Joints[v], w, nj)
				}
			}
		}
		for k, m := range sm.Morphs {
			if len(m.Positions) != len(sm.Positions) || (m.Normals != nil && len(m.Normals) != len(sm.Positions)) {
				t.Fatalf("submesh %d target %d: %d/%d deltas for %d positions", i, k, len(m.Positions), len(m.Normals), len(sm.Positions))
			}
		}
	}
	for i, a := range s.Animations {
		var last float32
		for c, ch := range a.Channels {
			per := ch.Width()
			if ch.Interp == mesh.InterpCubic {
				per *= 3
			}
			limit := nj
			if ch.Path == mesh.PathWeights {
				limit = len(s.Submeshes)
				if ch.Joint >= 0 && ch.Joint < limit && ch.Targets != len(s.Submeshes[ch.Joint].Morphs) {
					t.Fatalf("animation %d channel %d: %d weights for submesh %d with %d targets", i, c, ch.Targets, ch.Joint, len(s.Submeshes[ch.Joint].Morphs))
				}
			}
			if ch.Joint < 0 || ch.Joint >= limit || len(ch.Times) == 0 || len(ch.Values) != per*len(ch.Times) {
				t.Fatalf("animation %d channel %d: joint %d, %d times, %d values", i, c, ch.Joint, len(ch.Times), len(ch.Values))
			}
			for k := 1; k < len(ch.Times); k++ {
				if ch.Times[k] < ch.Times[k-1] {
					t.Fatalf("animation %d channel %d: times not ascending", i, c)
				}
			}
			last = max(last, ch.Times[len(ch.Times)-1])
		}
		if a.Duration != last {
			t.Errorf("animation %d: duration %v, last key %v", i, a.Duration, last)
		}
	}
}

// reference is a glTF document opened by qmuntal/gltf, read with its own
// accessor reader (modeler), independent of this package's decoding.
type reference struct {
	doc    *qgltf.Document
	parent []int
	world  []mesh.Mat4
}

func openReference(t *testing.T, path string) *reference {
	t.Helper()
	doc, err := qgltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &reference{doc: doc, parent: make([]int, len(doc.Nodes)), world: make([]mesh.Mat4, len(doc.Nodes))}
	for i := range r.parent {
		r.parent[i] = -1
	}
	for i, n := range doc.Nodes {
		for _, c := range n.Children {
			r.parent[c] = i
		}
	}
	var walk func(n int, parentWorld mesh.Mat4)
	walk = func(n int, parentWorld mesh.Mat4) {
		r.world[n] = parentWorld.Mul(r.localTRS(n, 0, nil))
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

// localTRS is node n's local matrix, with one TRS property replaced by v
// when v is not nil.
func (r *reference) localTRS(n int, path mesh.AnimPath, v []float32) mesh.Mat4 {
	nd := r.doc.Nodes[n]
	t, q, s := nd.Translation, nd.Rotation, nd.Scale
	if v != nil {
		switch path {
		case mesh.PathTranslation:
			t = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
		case mesh.PathRotation:
			q = [4]float64{float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])}
		case mesh.PathScale:
			s = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
		}
	}
	return mesh.Mat4(nd.MatrixOrDefault()).Mul(mesh.TRS(t, q, s))
}

func (r *reference) floats(t *testing.T, ai int) []float32 {
	t.Helper()
	v, err := modeler.ReadAccessor(r.doc, r.doc.Accessors[ai], nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []float32
	switch v := v.(type) {
	case []float32:
		out = v
	case [][3]float32:
		for _, e := range v {
			out = append(out, e[:]...)
		}
	case [][4]float32:
		for _, e := range v {
			out = append(out, e[:]...)
		}
	case [][4][4]float32: // qmuntal indexes [row][column]; we store column-major
		for _, e := range v {
			for c := 0; c < 4; c++ {
				for r := 0; r < 4; r++ {
					out = append(out, e[r][c])
				}
			}
		}
	default:
		t.Fatalf("accessor %d: unexpected %T", ai, v)
	}
	return out
}

// exportedWorlds chains the skeleton's bind TRS (with joint j's local
// replaced by override when given) into world matrices.
func exportedWorlds(sk *mesh.Skeleton, j int, override *mesh.Mat4) []mesh.Mat4 {
	w := make([]mesh.Mat4, len(sk.Joints))
	for i, jt := range sk.Joints {
		l := mesh.TRS(v3(jt.BindT), [4]float64{float64(jt.BindR[0]), float64(jt.BindR[1]), float64(jt.BindR[2]), float64(jt.BindR[3])}, v3(jt.BindS))
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

func v3(v mesh.Vec3) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }

func mat32(m [16]float32) mesh.Mat4 {
	var out mesh.Mat4
	for i, v := range m {
		out[i] = float64(v)
	}
	return out
}

// The exported skeleton in bind pose moves the exported mesh-space vertices
// exactly where glTF skinning of the source puts them: Σ w·(jointWorld ·
// inverseBind)·p, computed from the source with qmuntal/gltf's reader.
func TestCorpusBindPose(t *testing.T) {
	corpusFiles(t, "gltf")
	// quad_skin: assimp output, three influence sets, matrix nodes and
	// non-joint nodes between every joint and its parent
	for _, file := range []string{"CesiumMan/glTF/CesiumMan.gltf", "CesiumMan/glTF-Binary/CesiumMan.glb", "SimpleSkin/simple_skin.gltf", "Fox/glTF/Fox.gltf", "assimp_quad_skin/quad_skin.glb"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(corpusDir, "gltf", file)
			s, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref := openReference(t, path)
			skin := ref.doc.Skins[0]
			ibm := ref.floats(t, *skin.InverseBindMatrices)
			var sm *mesh.Submesh
			var prim *qgltf.Primitive
			for _, n := range ref.doc.Nodes {
				if n.Skin != nil && n.Mesh != nil {
					prim = ref.doc.Meshes[*n.Mesh].Primitives[0]
				}
			}
			sm = &s.Submeshes[0]
			pos, err := modeler.ReadPosition(ref.doc, ref.doc.Accessors[prim.Attributes["POSITION"]], nil)
			if err != nil {
				t.Fatal(err)
			}
			// every JOINTS_n/WEIGHTS_n set: the source's full influences
			var joints [][][4]uint16
			var weights [][][4]float32
			for k := 0; ; k++ {
				ja, ok := prim.Attributes[fmt.Sprintf("JOINTS_%d", k)]
				if !ok {
					break
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
			refSkin := make([]mesh.Mat4, len(skin.Joints))
			for i, node := range skin.Joints {
				var m [16]float32
				copy(m[:], ibm[16*i:])
				refSkin[i] = ref.world[node].Mul(mat32(m))
			}
			ew := exportedWorlds(s.Skeleton, -1, nil)
			expSkin := make([]mesh.Mat4, len(ew))
			for j := range ew {
				expSkin[j] = ew[j].Mul(mat32(s.Skeleton.Joints[j].InverseBind))
			}
			for j := range expSkin {
				if d := maxDiff(expSkin[j], refSkin[j]); d > 1e-3 {
					t.Logf("joint %d: skin matrix differs by %g\n got %v\nwant %v", j, d, expSkin[j], refSkin[j])
				}
			}
			if len(pos) != len(sm.Positions) {
				t.Fatalf("%d vertices, source has %d", len(sm.Positions), len(pos))
			}
			blend := func(ms []mesh.Mat4, js [][4]uint16, ws [][4]float32, p mesh.Vec3) [3]float64 {
				var out [3]float64
				var sum float64
				for set := range ws {
					for c := range ws[set] {
						sum += float64(ws[set][c])
					}
				}
				for set := range ws {
					for c, w := range ws[set] {
						if w == 0 {
							continue
						}
						q := ms[js[set][c]].Point(p)
						for k := range out {
							out[k] += float64(w) / sum * float64(q[k])
						}
					}
				}
				return out
			}
			lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
			want := make([][3]float64, len(pos))
			for v := range pos {
				var js [][4]uint16
				var ws [][4]float32
				for set := range joints {
					js, ws = append(js, joints[set][v]), append(ws, weights[set][v])
				}
				want[v] = blend(refSkin, js, ws, mesh.Vec3(pos[v]))
				for k := range lo {
					lo[k], hi[k] = min(lo[k], want[v][k]), max(hi[k], want[v][k])
				}
			}
			size := math.Sqrt((hi[0]-lo[0])*(hi[0]-lo[0]) + (hi[1]-lo[1])*(hi[1]-lo[1]) + (hi[2]-lo[2])*(hi[2]-lo[2]))
			worst := 0.0
			for v := range pos {
				got := blend(expSkin, [][4]uint16{sm.Joints[v]}, [][4]float32{sm.Weights[v]}, sm.Positions[v])
				worst = max(worst, math.Sqrt((got[0]-want[v][0])*(got[0]-want[v][0])+(got[1]-want[v][1])*(got[1]-want[v][1])+(got[2]-want[v][2])*(got[2]-want[v][2])))
			}
			t.Logf("model size %.4g, worst vertex error %.3g (%.2g of the size)", size, worst, worst/size)
			if worst > 1e-4*size {
				t.Errorf("bind pose differs by %g, more than 1e-4 of the model size %g", worst, size)
			}
		})
	}
}

// Every imported channel, sampled at its keys, puts its joint where the
// source animation puts the joint's node: the joint's world matrix with
// that key applied (everything else at rest) matches the source's, which
// covers joints whose values were composed with non-joint ancestors. Key
// times are copied exactly.
func TestCorpusClipsAtKeys(t *testing.T) {
	corpusFiles(t, "gltf")
	for _, file := range []string{"CesiumMan/glTF/CesiumMan.gltf", "Fox/glTF-Binary/Fox.glb", "SimpleSkin/simple_skin.gltf"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join(corpusDir, "gltf", file)
			s, err := Load(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref := openReference(t, path)
			jointOf := map[int]int{}
			for i, n := range ref.doc.Skins[0].Joints {
				jointOf[n] = i
			}
			checked := 0
			for ai, a := range ref.doc.Animations {
				next := 0
				for ci, c := range a.Channels {
					if c.Target.Path == qgltf.TRSWeights || c.Target.Node == nil {
						continue
					}
					if _, ok := jointOf[*c.Target.Node]; !ok {
						continue
					}
					ch := s.Animations[ai].Channels[next]
					next++
					smp := a.Samplers[c.Sampler]
					times, values := ref.floats(t, smp.Input), ref.floats(t, smp.Output)
					if len(ch.Times) != len(times) {
						t.Fatalf("animation %d channel %d: %d keys, want %d", ai, ci, len(ch.Times), len(times))
					}
					node := *c.Target.Node
					comps := ch.Path.Components()
					for k, tm := range times {
						if ch.Times[k] != tm {
							t.Fatalf("animation %d channel %d key %d: time %v, want %v", ai, ci, k, ch.Times[k], tm)
						}
						src := values[k*comps : (k+1)*comps]
						want := mesh.Identity()
						if p := ref.parent[node]; p >= 0 {
							want = ref.world[p]
						}
						want = want.Mul(ref.localTRS(node, ch.Path, src))
						jt := s.Skeleton.Joints[ch.Joint]
						tt, rr, ss := v3(jt.BindT), [4]float64{float64(jt.BindR[0]), float64(jt.BindR[1]), float64(jt.BindR[2]), float64(jt.BindR[3])}, v3(jt.BindS)
						v := ch.Values[k*comps : (k+1)*comps]
						switch ch.Path {
						case mesh.PathTranslation:
							tt = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
						case mesh.PathRotation:
							rr = [4]float64{float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])}
						case mesh.PathScale:
							ss = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
						}
						l := mesh.TRS(tt, rr, ss)
						got := exportedWorlds(s.Skeleton, ch.Joint, &l)[ch.Joint]
						for e := range got {
							if math.Abs(got[e]-want[e]) > 1e-4*max(1, math.Abs(want[e])) {
								t.Fatalf("animation %d channel %d (%s) key %d: world\n got %v\nwant %v", ai, ci, c.Target.Path, k, got, want)
							}
						}
						checked++
					}
				}
				if next != len(s.Animations[ai].Channels) {
					t.Fatalf("animation %d: %d imported channels, %d matched", ai, len(s.Animations[ai].Channels), next)
				}
			}
			t.Logf("%d keys checked", checked)
		})
	}
}

func maxDiff(a, b mesh.Mat4) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// Canonicalizing imported skinned and morphing submeshes keeps every
// corner's influences and deltas (the weld treats them as streams).
func TestCorpusCanonicalizeKeepsDeformStreams(t *testing.T) {
	corpusFiles(t, "gltf")
	for _, file := range []string{"CesiumMan/glTF/CesiumMan.gltf", "Fox/glTF/Fox.gltf", "assimp_quad_skin/quad_skin.glb", "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", "MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf"} {
		s, err := Load(filepath.Join(corpusDir, "gltf", file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range s.Submeshes {
			in := s.Submeshes[i]
			out := in
			r, err := mesh.Canonicalize(&out, mesh.CanonicalOptions{KeepDegenerate: true})
			if err != nil {
				t.Fatalf("%s submesh %d: %v", file, i, err)
			}
			if len(out.Indices) != len(in.Indices) {
				t.Fatalf("%s submesh %d: %d indices, want %d", file, i, len(out.Indices), len(in.Indices))
			}
			for c := range in.Indices {
				iv, ov := in.Indices[c], out.Indices[c]
				if in.Joints != nil && (in.Joints[iv] != out.Joints[ov] || in.Weights[iv] != out.Weights[ov]) {
					t.Fatalf("%s submesh %d corner %d: influences changed", file, i, c)
				}
				for k := range in.Morphs {
					if in.Morphs[k].Positions[iv] != out.Morphs[k].Positions[ov] {
						t.Fatalf("%s submesh %d corner %d: target %d delta changed", file, i, c, k)
					}
				}
			}
			t.Logf("%s submesh %d: vertices %d → %d", file, i, r.VerticesBefore, r.VerticesAfter)
		}
	}
}
