package fbx

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// Property60 builds a Properties60 entry.
func prop60(name, typ string, vals ...any) *Node {
	return n("Property", append([]any{name, typ, "A"}, vals...)...)
}

// skin61Scene is skinScene in FBX 6.1's layout: objects keyed by
// "Class::Name", the geometry inside its mesh Model, the Skin deformer
// connected to that Model, clusters as SubDeformers, and a Take turning
// Knee about Z from 0° to 90° over one second.
func skin61Scene(v int) []*Node {
	mat := func(tx, ty, tz float64) []float64 {
		return []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, tx, ty, tz, 1}
	}
	model := func(name, sub string, ps ...*Node) *Node {
		return n("Model", "Model::"+name, sub, n("Version", int32(232)), n("Properties60", ps))
	}
	body := model("Body", "Mesh", prop60("Lcl Translation", "Lcl Translation", 0.0, 0.0, 10.0))
	body.Children = append(body.Children, n("Vertices", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}), n("PolygonVertexIndex", []int32{0, 1, 2, ^3}))
	cluster := func(bone string, idx []int32, w []float64, link []float64) *Node {
		return n("Deformer", "SubDeformer::Cluster "+bone, "Cluster", n("Version", int32(100)),
			n("Indexes", idx), n("Weights", w), n("Transform", mat(-link[12], -link[13], 10)), n("TransformLink", link))
	}
	objects := []*Node{
		body,
		model("Hip", "Limb", prop60("Lcl Translation", "Lcl Translation", 1.0, 0.0, 0.0)),
		model("Knee", "Limb", prop60("Lcl Translation", "Lcl Translation", 0.0, 2.0, 0.0)),
		n("Deformer", "Deformer::Skin Body", "Skin", n("Version", int32(101))),
		cluster("Knee", []int32{1, 2}, []float64{1, 1}, mat(1, 2, 0)),
		cluster("Hip", []int32{0, 3}, []float64{1, 1}, mat(1, 0, 0)),
	}
	conn := func(a, b string) *Node { return n("Connect", "OO", a, b) }
	takes := n("Takes", n("Current", "Take 001"), n("Take", "Take 001",
		n("FileName", "Take_001.tak"), n("LocalTime", int64(0), int64(ticksPerSecond)),
		n("Model", "Model::Knee", n("Version", 1.1), n("Channel", "Transform",
			n("Channel", "R", n("Channel", "Z", n("Default", 0.0), n("KeyVer", int32(4005)), n("KeyCount", int32(2)),
				n("Key", int64(0), 0.0, "L", int64(ticksPerSecond), 90.0, "L")))))))
	return []*Node{
		n("FBXHeaderExtension", n("FBXHeaderVersion", int32(1003)), n("FBXVersion", int32(v))),
		n("Objects", objects),
		n("Connections",
			conn("Model::Body", "Model::Scene"), conn("Model::Hip", "Model::Scene"), conn("Model::Knee", "Model::Hip"),
			conn("Deformer::Skin Body", "Model::Body"),
			conn("SubDeformer::Cluster Knee", "Deformer::Skin Body"), conn("Model::Knee", "SubDeformer::Cluster Knee"),
			conn("SubDeformer::Cluster Hip", "Deformer::Skin Body"), conn("Model::Hip", "SubDeformer::Cluster Hip")),
		takes,
	}
}

// FBX 6.1 skins (Deformer/SubDeformer on the mesh Model) and Takes import
// like their 7.x forms, in ASCII and binary.
func TestSkin61AndTake(t *testing.T) {
	for name, data := range map[string][]byte{
		"a6100.fbx": writeASCII(6100, skin61Scene(6100)),
		"b6100.fbx": writeBinary(6100, skin61Scene(6100), false),
	} {
		sc, err := Decode(data, name, Options{PreserveSpace: true})
		require.NoError(t, err, name)
		require.NotNil(t, sc.Skeleton, name)
		require.Len(t, sc.Skeleton.Joints, 2, name)
		require.Equal(t, "Hip", sc.Skeleton.Joints[0].Name)
		require.Equal(t, 0, sc.Skeleton.Joints[1].Parent)
		require.Less(t, bindSkinError(sc), 1e-6, name)
		require.Equal(t, [4]uint16{1, 0, 0, 0}, sc.Submeshes[0].Joints[1], name)

		require.Len(t, sc.Animations, 1, name)
		a := sc.Animations[0]
		require.Equal(t, "Take 001", a.Name)
		require.InDelta(t, 1.0, a.Duration, 1e-6)
		rot := findChannel(t, a, 1, mesh.PathRotation) // Knee
		q := channelAt(rot, 0.5)
		require.InDeltaSlice(t, []float64{0, 0, math.Sin(math.Pi / 8), math.Cos(math.Pi / 8)}, q, 2e-4, name)
	}
}
