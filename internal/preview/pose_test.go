package preview

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/mesh"
)

// twoBones is a root at the origin and a child one unit up; vertex 0 sits
// at (0, 2, 0) on the child, vertex 1 at (1, 0, 0) on the root.
func twoBones() (*hmesh.File, *Model) {
	id := [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	down := id
	down[13] = -1 // inverse bind of a joint at (0, 1, 0)
	f := &hmesh.File{
		Joints: []hmesh.Joint{
			{InverseBind: id, BindR: [4]float32{0, 0, 0, 1}, BindS: [3]float32{1, 1, 1}, Parent: -1},
			{InverseBind: down, BindT: [3]float32{0, 1, 0}, BindR: [4]float32{0, 0, 0, 1}, BindS: [3]float32{1, 1, 1}, Parent: 0},
		},
		Skin: []hmesh.SkinVertex{{Joints: [4]uint16{1}, Weights: [4]float32{1}}, {Joints: [4]uint16{0}, Weights: [4]float32{1}}},
	}
	m := &Model{Positions: [][3]float32{{0, 2, 0}, {1, 0, 0}}, Normals: [][3]float32{{1, 0, 0}, {0, 0, 1}}}
	return f, m
}

func TestPoseBlendsKeysAndSkins(t *testing.T) {
	// Why: --clip/--time must move vertices as the clip's joints move:
	// linear rotation keys blend (90° about Z over one second), step keys
	// hold, times clamp to the clip.
	s := float32(math.Sqrt(0.5))
	clip := &hanim.Clip{Name: "bend", Duration: 1, Channels: []hanim.Channel{
		{Joint: 1, Path: mesh.PathRotation, Interp: hanim.InterpLinear, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 0, 0, s, s}},
		{Joint: 0, Path: mesh.PathTranslation, Interp: hanim.InterpStep, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 5, 0, 0}},
	}}
	for _, c := range []struct {
		t      float64
		v0, v1 [3]float64
		n0     [3]float64
	}{
		{0, [3]float64{0, 2, 0}, [3]float64{1, 0, 0}, [3]float64{1, 0, 0}},
		{0.5, [3]float64{-math.Sqrt(0.5), 1 + math.Sqrt(0.5), 0}, [3]float64{1, 0, 0}, [3]float64{math.Sqrt(0.5), math.Sqrt(0.5), 0}},
		{1, [3]float64{5 - 1, 1, 0}, [3]float64{6, 0, 0}, [3]float64{0, 1, 0}},
		{7, [3]float64{5 - 1, 1, 0}, [3]float64{6, 0, 0}, [3]float64{0, 1, 0}}, // clamped to the duration
	} {
		f, m := twoBones()
		require.NoError(t, Pose(m, f, clip, c.t))
		for k := range 3 {
			assert.InDelta(t, c.v0[k], m.Positions[0][k], 1e-5, "t=%v vertex 0", c.t)
			assert.InDelta(t, c.v1[k], m.Positions[1][k], 1e-5, "t=%v vertex 1", c.t)
			assert.InDelta(t, c.n0[k], m.Normals[0][k], 1e-5, "t=%v normal 0", c.t)
		}
	}
}

func TestPoseRefusesBadInput(t *testing.T) {
	// Why: a clip for another skeleton, or a mesh without a skin, is an
	// error naming the problem.
	f, m := twoBones()
	bad := &hanim.Clip{Name: "x", Duration: 1, Channels: []hanim.Channel{{Joint: 9, Path: mesh.PathScale, Times: []float32{0}, Values: []float32{1, 1, 1}}}}
	assert.ErrorContains(t, Pose(m, f, bad, 0), "animates joint 9 of 2")
	f.Skin = nil
	assert.ErrorContains(t, Pose(m, f, &hanim.Clip{}, 0), "not skinned")
}
