package fbx

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// jointGlobals composes each joint's bind-pose global transform from the
// local T, R, S chain.
func jointGlobals(sk *mesh.Skeleton) []mesh.Mat4 {
	g := make([]mesh.Mat4, len(sk.Joints))
	done := make([]bool, len(sk.Joints))
	var eval func(i int) mesh.Mat4
	eval = func(i int) mesh.Mat4 {
		if done[i] {
			return g[i]
		}
		j := sk.Joints[i]
		local := mesh.TRS(
			[3]float64{float64(j.BindT[0]), float64(j.BindT[1]), float64(j.BindT[2])},
			[4]float64{float64(j.BindR[0]), float64(j.BindR[1]), float64(j.BindR[2]), float64(j.BindR[3])},
			[3]float64{float64(j.BindS[0]), float64(j.BindS[1]), float64(j.BindS[2])})
		if j.Parent >= 0 {
			local = eval(j.Parent).Mul(local)
		}
		g[i], done[i] = local, true
		return local
	}
	for i := range g {
		eval(i)
	}
	return g
}

// bindSkinError is the largest distance between a vertex and its skinned
// position in the bind pose (Σ w · G · IB · p), relative to the model size.
func bindSkinError(sc *mesh.Scene) float64 {
	g := jointGlobals(sc.Skeleton)
	worst := 0.0
	for _, s := range sc.Submeshes {
		if s.Joints == nil {
			continue
		}
		lo, hi := mesh.Vec3{}, mesh.Vec3{}
		for i, p := range s.Positions {
			if i == 0 {
				lo, hi = p, p
			}
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], p[c]), max(hi[c], p[c])
			}
		}
		size := float64(hi.Sub(lo).Length())
		for i, p := range s.Positions {
			var acc vec3d
			for k := range 4 {
				w := float64(s.Weights[i][k])
				if w == 0 {
					continue
				}
				j := s.Joints[i][k]
				var ib mesh.Mat4
				for e, v := range sc.Skeleton.Joints[j].InverseBind {
					ib[e] = float64(v)
				}
				q := point(g[j].Mul(ib), float64(p[0]), float64(p[1]), float64(p[2]))
				for c := range 3 {
					acc[c] += w * q[c]
				}
			}
			d := sub3(acc, vec3d{float64(p[0]), float64(p[1]), float64(p[2])})
			worst = max(worst, math.Sqrt(dot3(d, d))/size)
		}
	}
	return worst
}

// skinScene: a quad under a mesh model translated by (0,0,10), two chained
// bones, clusters with TransformLink = the bones' worlds and Transform =
// inverse(TransformLink) · mesh world (bone space, as files store it);
// corner 3 has five influences, corner 2 none.
func skinScene(v int) []*Node {
	mat := func(tx, ty, tz float64) []float64 {
		return []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, tx, ty, tz, 1}
	}
	cluster := func(id int64, name string, idx []int32, w []float64, link []float64) *Node {
		return n("Deformer", id, "SubDeformer::"+name, "Cluster",
			n("Indexes", idx), n("Weights", w), n("Transform", mat(-link[12], -link[13], 10)), n("TransformLink", link))
	}
	objects := []*Node{
		geometryNode(100, "G", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, []int32{0, 1, 2, ^3}),
		modelNode(200, "Body", "Mesh", P("Lcl Translation", "Lcl Translation", 0.0, 0.0, 10.0)),
		modelNode(201, "Hip", "LimbNode", P("Lcl Translation", "Lcl Translation", 1.0, 0.0, 0.0)),
		modelNode(202, "Knee", "LimbNode", P("Lcl Translation", "Lcl Translation", 0.0, 2.0, 0.0)),
		n("Deformer", int64(300), "Deformer::Skin", "Skin"),
		cluster(310, "Knee", []int32{0, 1, 3}, []float64{0.25, 1, 0.1}, mat(1, 2, 0)),
		cluster(311, "Hip", []int32{0, 3}, []float64{0.75, 0.3}, mat(1, 0, 0)),
		cluster(312, "Hip", []int32{3}, []float64{0.2}, mat(1, 0, 0)),
		cluster(313, "Hip", []int32{3}, []float64{0.05}, mat(1, 0, 0)),
		cluster(314, "Hip", []int32{3}, []float64{0.4}, mat(1, 0, 0)),
	}
	conns := [][]any{
		{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)},
		{"OO", int64(201), int64(0)}, {"OO", int64(202), int64(201)},
		{"OO", int64(300), int64(100)},
		{"OO", int64(310), int64(300)}, {"OO", int64(202), int64(310)},
	}
	for _, c := range []int64{311, 312, 313, 314} {
		conns = append(conns, []any{"OO", c, int64(300)}, []any{"OO", int64(201), c})
	}
	return doc7(v, nil, objects, conns)
}

func TestSkin(t *testing.T) {
	sc := decodeAll(t, skinScene, Options{PreserveSpace: true})
	sk := sc.Skeleton
	if sk == nil || len(sk.Joints) != 2 {
		t.Fatalf("skeleton %+v", sk)
	}
	// The clusters name Knee (310) before its parent Hip; joints are
	// parents first: Hip 0, Knee 1.
	hip, knee := sk.Joints[0], sk.Joints[1]
	require.Equal(t, "Hip", hip.Name)
	require.Equal(t, "Knee", knee.Name)
	require.Equal(t, -1, hip.Parent)
	require.Equal(t, 0, knee.Parent)
	require.Equal(t, mesh.Vec3{0, 2, 0}, knee.BindT)
	require.Equal(t, mesh.Vec3{1, 0, 0}, hip.BindT)
	require.Equal(t, mesh.Vec4{0, 0, 0, 1}, knee.BindR)
	// Inverse bind of Knee: Transform(bone space) · inverse(mesh world)
	// = translate(-1,-2,10) · translate(0,0,-10).
	ib := knee.InverseBind
	require.Equal(t, []float32{1, -1, -2, 0}, []float32{ib[0], ib[12], ib[13], ib[14]})
	s := sc.Submeshes[0]
	// Corner 0: Hip 0.75, Knee 0.25.
	require.Equal(t, [4]uint16{0, 1, 0, 0}, s.Joints[0])
	require.Equal(t, mesh.Vec4{0.75, 0.25, 0, 0}, s.Weights[0])
	// Corner 2 has no weights: joint 0 (the root), weight 1.
	require.Equal(t, [4]uint16{}, s.Joints[2])
	require.Equal(t, mesh.Vec4{1, 0, 0, 0}, s.Weights[2])
	// Corner 3: five influences 0.1 (knee), 0.3, 0.2, 0.05, 0.4 (hip):
	// keep 0.4, 0.3, 0.2, 0.1 and renormalise by 1.0.
	w := s.Weights[3]
	require.Equal(t, [4]uint16{0, 0, 0, 1}, s.Joints[3])
	require.InDelta(t, 0.4, w[0], 1e-6)
	require.InDelta(t, 0.1, w[3], 1e-6)
	if e := bindSkinError(sc); e > 1e-5 {
		t.Fatalf("bind pose skinning moves vertices by %g of the model size", e)
	}
	// The same holds after the space conversion.
	sc = decodeAll(t, skinScene, Options{})
	if e := bindSkinError(sc); e > 1e-5 {
		t.Fatalf("converted: bind pose skinning moves vertices by %g", e)
	}
}

// TestCorpusSkins: the corpus's skinned files have skeletons whose bind
// pose reproduces the imported mesh.
func TestCorpusSkins(t *testing.T) {
	dir := corpusDir(t, "fbx")
	for _, name := range []string{"assimp_skeleton/huesitos.fbx", "assimp_skeleton/animation_with_skeleton.fbx"} {
		t.Run(name, func(t *testing.T) {
			sc, err := Load(filepath.Join(dir, name), Options{})
			if err != nil {
				t.Skip(err)
			}
			if sc.Skeleton == nil || len(sc.Skeleton.Joints) == 0 {
				t.Fatal("no skeleton")
			}
			if e := bindSkinError(sc); e > 1e-3 {
				t.Fatalf("bind pose skinning moves vertices by %g of the model size", e)
			}
		})
	}
}
