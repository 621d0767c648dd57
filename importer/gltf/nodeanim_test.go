package gltf

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/importer/rig"
	"github.com/meshcook/meshcook/mesh"
)

// nodeAnimScene is a file without skins: a static root R (translated) with
// an animated child W (STEP scale, LINEAR translation, CUBICSPLINE
// rotation) that carries the quad through a static child Q; and a static
// quad S beside them. It returns the quad's local corners.
func nodeAnimScene(b *builder) {
	p := quad(b)
	m := b.mesh("quad", p)
	b.node(obj{"name": "R", "translation": []float64{1, 0, 0}, "children": []int{1}})                // 0
	b.node(obj{"name": "W", "translation": []float64{0, 1, 0}, "children": []int{2}})                // 1
	b.node(obj{"name": "Q", "mesh": m, "translation": []float64{0, 0, 3}})                           // 2
	b.node(obj{"name": "S", "mesh": m, "rotation": []float64{0, math.Sqrt(0.5), 0, math.Sqrt(0.5)}}) // 3
	b.extra["scenes"] = []obj{{"nodes": []int{0, 3}}}
	b.extra["scene"] = 0
	times := b.floats("SCALAR", 0, 1, 2)
	s2 := float32(math.Sqrt(0.5))
	b.extra["animations"] = []obj{{"name": "go", "samplers": []obj{
		{"input": times, "output": b.floats("VEC3", 1, 1, 1, 2, 2, 2, 1, 1, 1), "interpolation": "STEP"},
		{"input": times, "output": b.floats("VEC3", 0, 1, 0, 4, 1, 0, 4, 5, 0)},
		{"input": times, "interpolation": "CUBICSPLINE", "output": b.floats("VEC4",
			0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0,
			0, 0, 1, 0, 0, 0, s2, s2, 0, 0, 0, 0,
			0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)},
	}, "channels": []obj{
		{"sampler": 0, "target": obj{"node": 1, "path": "scale"}},
		{"sampler": 1, "target": obj{"node": 1, "path": "translation"}},
		{"sampler": 2, "target": obj{"node": 1, "path": "rotation"}},
	}}}
}

// Animated non-joint nodes become a rigid skeleton (rig): the animated
// node and its ancestors are joints, the quad under it binds to its joint,
// the static quad to the static joint, and posing the imported scene at
// any time gives the positions the node transforms give.
func TestNodeAnimationBecomesRigidSkin(t *testing.T) {
	b := newBuilder()
	nodeAnimScene(b)
	s := mustGLB(t, b)
	require.NotNil(t, s.Skeleton)
	var names []string
	for _, j := range s.Skeleton.Joints {
		names = append(names, j.Name)
	}
	assert.Equal(t, []string{rig.StaticJoint, "R", "W"}, names)
	require.Len(t, s.Submeshes, 2)
	assert.Equal(t, [4]uint16{2, 0, 0, 0}, s.Submeshes[0].Joints[0])
	assert.Equal(t, [4]uint16{0, 0, 0, 0}, s.Submeshes[1].Joints[0])
	require.Len(t, s.Animations, 1)
	a := s.Animations[0]
	require.Len(t, a.Channels, 3)
	assert.Equal(t, float32(2), a.Duration)
	assert.Empty(t, s.Warnings)
	checkDeform(t, s)

	local := []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}
	rest := s.Submeshes[1].Positions
	for _, tm := range []float32{0, 0.25, 0.5, 0.99, 1, 1.5, 2, 3} {
		// W's transform at tm, by hand
		var sc float64 = 1
		if tm >= 1 && tm < 2 {
			sc = 2
		}
		var tr [3]float64
		switch {
		case tm <= 1:
			tr = [3]float64{4 * float64(tm), 1, 0}
		case tm <= 2:
			tr = [3]float64{4, 1 + 4*(float64(tm)-1), 0}
		default:
			tr = [3]float64{4, 5, 0}
		}
		q := mesh.Sample(&a.Channels[2], tm)
		w := mesh.TRS([3]float64{1, 0, 0}, [4]float64{0, 0, 0, 1}, [3]float64{1, 1, 1}).
			Mul(mesh.TRS(tr, [4]float64{q[0], q[1], q[2], q[3]}, [3]float64{sc, sc, sc})).
			Mul(mesh.TRS([3]float64{0, 0, 3}, [4]float64{0, 0, 0, 1}, [3]float64{1, 1, 1}))
		posed := mesh.Pose(s, 0, tm)
		for v, p := range local {
			want := w.Point(p)
			for c := range 3 {
				assert.InDelta(t, want[c], posed[0][v][c], 1e-5, "t=%v vertex %d", tm, v)
				assert.InDelta(t, rest[v][c], posed[1][v][c], 1e-6, "the static quad stays")
			}
		}
	}
}

// The cubic rotation's middle key is a quarter turn about z: at t = 1 the
// sample is exactly the key (so mesh.Sample is checked against the file).
func TestNodeAnimationCubicKeyValue(t *testing.T) {
	b := newBuilder()
	nodeAnimScene(b)
	s := mustGLB(t, b)
	got := mesh.Sample(&s.Animations[0].Channels[2], 1)
	assert.InDeltaSlice(t, []float64{0, 0, math.Sqrt(0.5), math.Sqrt(0.5)}, got, 1e-6)
}

// Channels on a node no scene root reaches are dropped and counted.
func TestNodeAnimationOutsideSceneDropped(t *testing.T) {
	b := newBuilder()
	nodeAnimScene(b)
	b.node(obj{"name": "elsewhere"}) // 4: not in scene 0
	anim := b.extra["animations"].([]obj)[0]
	anim["channels"] = append(anim["channels"].([]obj), obj{"sampler": 1, "target": obj{"node": 4, "path": "translation"}})
	s := mustGLB(t, b)
	assert.Equal(t, []mesh.Drop{{What: "animation channels on nodes outside the imported scene", Count: 1}}, s.Drops)
	assert.Len(t, s.Animations[0].Channels, 3)
}
