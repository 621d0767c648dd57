package rig

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// cube is a unit cube's eight corners in its node's local space.
func cube() []mesh.Vec3 {
	var p []mesh.Vec3
	for i := range 8 {
		p = append(p, mesh.Vec3{float32(i & 1), float32(i >> 1 & 1), float32(i >> 2 & 1)})
	}
	return p
}

// world composes the local TRS of node i and its ancestors, with the
// rotation of node rotNode replaced by q.
func world(nodes []Node, i, rotNode int, q [4]float64) mesh.Mat4 {
	m := mesh.Identity()
	for j := i; j >= 0; j = nodes[j].Parent {
		r := nodes[j].R
		if j == rotNode {
			r = q
		}
		m = mesh.TRS(nodes[j].T, r, nodes[j].S).Mul(m)
	}
	return m
}

// zRot is a rotation by angle radians about +Z.
func zRot(angle float64) [4]float64 {
	return [4]float64{0, 0, math.Sin(angle / 2), math.Cos(angle / 2)}
}

// A tree of a static root, an animated node, a static child carrying a
// cube under it, and a separate static cube: the rest pose draws the baked
// scene, and a sampled time moves only the animated cube, exactly as the
// node transforms say.
func TestApplyPosesLikeTheNodeTree(t *testing.T) {
	id := [4]float64{0, 0, 0, 1}
	one := [3]float64{1, 1, 1}
	nodes := []Node{
		{Name: "root", Parent: -1, T: [3]float64{1, 0, 0}, R: id, S: one},
		{Name: "spinner", Parent: 0, T: [3]float64{0, 1, 0}, R: zRot(0.3), S: [3]float64{2, 2, 2}},
		{Name: "arm", Parent: 1, T: [3]float64{0, 2, 0}, R: id, S: one},
		{Name: "statue", Parent: -1, T: [3]float64{5, 0, 0}, R: zRot(1), S: one},
	}
	local := cube()
	bake := func(node int) mesh.Submesh {
		w := world(nodes, node, -1, id)
		s := mesh.Submesh{Material: -1}
		for _, p := range local {
			s.Positions = append(s.Positions, w.Point(p))
		}
		return s
	}
	scene := &mesh.Scene{
		Submeshes:  []mesh.Submesh{bake(2), bake(3)},
		Animations: []mesh.Animation{{Name: "spin"}},
	}
	rest := [][]mesh.Vec3{append([]mesh.Vec3(nil), scene.Submeshes[0].Positions...), append([]mesh.Vec3(nil), scene.Submeshes[1].Positions...)}
	q0, q1 := zRot(0), zRot(math.Pi/2)
	ch := Channel{Animation: 0, Node: 1, Channel: mesh.Channel{
		Path: mesh.PathRotation, Interp: mesh.InterpLinear, Times: []float32{0, 2},
		Values: []float32{float32(q0[0]), float32(q0[1]), float32(q0[2]), float32(q0[3]), float32(q1[0]), float32(q1[1]), float32(q1[2]), float32(q1[3])},
	}}
	res, err := Apply(scene, Input{Nodes: nodes, Parts: []Part{{0, 2}, {1, 3}}, Channels: []Channel{ch}})
	require.NoError(t, err)
	assert.Equal(t, Result{Joints: 3, Animated: 1, Bound: 1, Static: 1, Channels: 1}, res)

	sk := scene.Skeleton
	require.NotNil(t, sk)
	names := []string{}
	for _, j := range sk.Joints {
		names = append(names, j.Name)
	}
	assert.Equal(t, []string{StaticJoint, "root", "spinner"}, names)
	assert.Equal(t, -1, sk.Joints[1].Parent)
	assert.Equal(t, 1, sk.Joints[2].Parent)
	assert.Equal(t, [4]uint16{2, 0, 0, 0}, scene.Submeshes[0].Joints[0], "the arm's cube binds to its nearest animated ancestor")
	assert.Equal(t, [4]uint16{0, 0, 0, 0}, scene.Submeshes[1].Joints[0], "the statue binds to the static joint")
	assert.Equal(t, 2, scene.Animations[0].Channels[0].Joint)
	assert.Equal(t, float32(2), scene.Animations[0].Duration)

	// before the first key the channel holds its first value, which is not
	// the rest rotation: check a true rest pose with no clip instead
	for si, got := range mesh.Pose(scene, -1, 0) {
		for v := range got {
			assertNear(t, rest[si][v], got[v], 1e-5)
		}
	}
	for _, tm := range []float32{0, 0.5, 1.3, 2, 3} {
		s := math.Min(float64(tm)/2, 1)
		want := world(nodes, 2, 1, zRot(s*math.Pi/2))
		posed := mesh.Pose(scene, 0, tm)
		for v, p := range local {
			assertNear(t, want.Point(p), posed[0][v], 1e-5)
			assertNear(t, rest[1][v], posed[1][v], 1e-5)
		}
	}
}

func assertNear(t *testing.T, want, got mesh.Vec3, tol float64) {
	t.Helper()
	for c := range want {
		if math.Abs(float64(want[c]-got[c])) > tol {
			t.Fatalf("got %v, want %v (±%g)", got, want, tol)
		}
	}
}

// Every animated node's ancestors come before it, and nothing below an
// animated node that is not itself animated becomes a joint.
func TestApplySkeletonIsParentsFirst(t *testing.T) {
	id := [4]float64{0, 0, 0, 1}
	one := [3]float64{1, 1, 1}
	// node 0's parent is node 3, listed after it
	nodes := []Node{
		{Name: "leaf", Parent: 3, R: id, S: one},
		{Name: "below", Parent: 0, R: id, S: one},
		{Name: "other", Parent: -1, R: id, S: one},
		{Name: "top", Parent: -1, R: id, S: one},
	}
	scene := &mesh.Scene{
		Submeshes:  []mesh.Submesh{{Positions: cube()}},
		Animations: []mesh.Animation{{}, {}},
	}
	move := func(anim, node int) Channel {
		return Channel{Animation: anim, Node: node, Channel: mesh.Channel{
			Path: mesh.PathTranslation, Interp: mesh.InterpStep, Times: []float32{0.5}, Values: []float32{1, 2, 3},
		}}
	}
	res, err := Apply(scene, Input{Nodes: nodes, Parts: []Part{{0, 1}}, Channels: []Channel{move(1, 0), move(0, 2)}})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Joints, "top, leaf, other: no static joint, 'below' is not animated")
	var got []string
	for _, j := range scene.Skeleton.Joints {
		got = append(got, j.Name)
	}
	assert.Equal(t, []string{"top", "leaf", "other"}, got)
	assert.Equal(t, 0, scene.Skeleton.Joints[1].Parent)
	assert.Equal(t, [4]uint16{1, 0, 0, 0}, scene.Submeshes[0].Joints[3])
	assert.Equal(t, 1, scene.Animations[1].Channels[0].Joint)
	assert.Equal(t, 2, scene.Animations[0].Channels[0].Joint)
	assert.Equal(t, float32(0.5), scene.Animations[0].Duration)
}

func TestApplyWithoutChannelsChangesNothing(t *testing.T) {
	scene := &mesh.Scene{Submeshes: []mesh.Submesh{{Positions: cube()}}}
	res, err := Apply(scene, Input{Nodes: []Node{{Parent: 5}}})
	require.NoError(t, err)
	assert.Equal(t, Result{}, res)
	assert.Nil(t, scene.Skeleton)
	assert.Nil(t, scene.Submeshes[0].Joints)
}

func TestApplyRefuses(t *testing.T) {
	id := [4]float64{0, 0, 0, 1}
	one := [3]float64{1, 1, 1}
	good := func() (*mesh.Scene, Input) {
		return &mesh.Scene{Submeshes: []mesh.Submesh{{Positions: cube()}}, Animations: []mesh.Animation{{}}},
			Input{
				Nodes: []Node{{Name: "a", Parent: -1, R: id, S: one}, {Name: "b", Parent: 0, R: id, S: one}},
				Parts: []Part{{0, 1}},
				Channels: []Channel{{Animation: 0, Node: 1, Channel: mesh.Channel{
					Path: mesh.PathScale, Interp: mesh.InterpLinear, Times: []float32{0, 1}, Values: []float32{1, 1, 1, 2, 2, 2},
				}}},
			}
	}
	cases := []struct {
		name   string
		break_ func(*mesh.Scene, *Input)
		want   string
	}{
		{"skinned", func(s *mesh.Scene, _ *Input) { s.Skeleton = &mesh.Skeleton{} }, "already skinned"},
		{"parent out of range", func(_ *mesh.Scene, in *Input) { in.Nodes[1].Parent = 7 }, "node 1: parent 7"},
		{"parent loop", func(_ *mesh.Scene, in *Input) { in.Nodes[0].Parent = 1 }, "loop"},
		{"non-finite rest", func(_ *mesh.Scene, in *Input) { in.Nodes[0].T[1] = math.Inf(1) }, "not finite"},
		{"part submesh", func(_ *mesh.Scene, in *Input) { in.Parts[0].Submesh = 3 }, "submesh 3 out of range"},
		{"part twice", func(_ *mesh.Scene, in *Input) { in.Parts = append(in.Parts, Part{0, 0}) }, "two nodes"},
		{"channel animation", func(_ *mesh.Scene, in *Input) { in.Channels[0].Animation = 1 }, "animation 1 out of range"},
		{"channel node", func(_ *mesh.Scene, in *Input) { in.Channels[0].Node = -1 }, "node -1 out of range"},
		{"weights path", func(_ *mesh.Scene, in *Input) { in.Channels[0].Path = mesh.PathWeights }, "not a node transform path"},
		{"value count", func(_ *mesh.Scene, in *Input) { in.Channels[0].Values = in.Channels[0].Values[:5] }, "5 values for 2 keys"},
		{"decreasing time", func(_ *mesh.Scene, in *Input) { in.Channels[0].Times = []float32{1, 0} }, "ascending"},
		{"singular rest", func(_ *mesh.Scene, in *Input) { in.Nodes[0].S = [3]float64{0, 1, 1} }, "singular"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scene, in := good()
			c.break_(scene, &in)
			_, err := Apply(scene, in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Nil(t, scene.Submeshes[0].Joints, "a refused Apply leaves the scene as it was")
			assert.Empty(t, scene.Animations[0].Channels)
		})
	}
}
