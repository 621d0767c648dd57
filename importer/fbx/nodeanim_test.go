package fbx

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/importer/rig"
	"github.com/meshcook/meshcook/mesh"
)

// nodeAnimScene is the unit quad under a model whose X translation goes
// from 0 to 3 over one second, with no skin; a light and a second UV set
// are there to be counted.
func nodeAnimScene(v int) []*Node {
	nodes := quadScene(v, nil)
	objects, conns := nodes[3], nodes[4]
	g := objects.Children[0]
	uv := func(i int32) *Node {
		return n("LayerElementUV", i, n("MappingInformationType", "ByPolygonVertex"), n("ReferenceInformationType", "Direct"),
			n("UV", []float64{0, 0, 1, 0, 1, 1, 0, 1}))
	}
	g.Children = append(g.Children, uv(0), uv(1), n("LayerElementEdgeCrease", int32(0)))
	objects.Children = append(objects.Children,
		n("AnimationStack", int64(900), "AnimStack::Slide", "", props70(P("LocalStart", "KTime", int64(0)), P("LocalStop", "KTime", int64(sec)))),
		n("AnimationLayer", int64(901), "AnimLayer::Base", ""),
		n("AnimationCurveNode", int64(910), "AnimCurveNode::T", "", props70(P("d|X", "Number", 0.0), P("d|Y", "Number", 0.0), P("d|Z", "Number", 0.0))),
		curveObj(911, []int64{0, sec}, []float32{0, 3}, nil, nil),
		n("NodeAttribute", int64(950), "NodeAttribute::Lamp", "Light"),
		n("Model", int64(951), "Model::Lamp", "Light", props70()),
	)
	for _, c := range [][]any{{"OO", int64(901), int64(900)}, {"OO", int64(910), int64(901)}, {"OP", int64(910), int64(200), "Lcl Translation"},
		{"OP", int64(911), int64(910), "d|X"}, {"OO", int64(951), int64(0)}, {"OO", int64(950), int64(951)}} {
		conns.Children = append(conns.Children, n("C", c...))
	}
	return nodes
}

// Animated nodes that are not bones go through importer/rig: the quad is
// bound rigidly to its node's joint and the clip moves it; StaticNodes
// keeps it static with the animation counted. Lights and the second UV set
// are counted drops.
func TestNodeAnimationThroughRig(t *testing.T) {
	sc := decodeAll(t, nodeAnimScene, Options{PreserveSpace: true})
	require.NotNil(t, sc.Skeleton)
	require.Len(t, sc.Animations, 1)
	a := sc.Animations[0]
	require.Equal(t, "Slide", a.Name)
	quad := -1
	for j, jt := range sc.Skeleton.Joints {
		if jt.Name == "QuadModel" {
			quad = j
		}
		require.NotEqual(t, rig.StaticJoint, jt.Name) // the only mesh is a part
	}
	require.GreaterOrEqual(t, quad, 0)
	for v := range sc.Submeshes[0].Positions {
		require.Equal(t, [4]uint16{uint16(quad)}, sc.Submeshes[0].Joints[v])
	}
	tr := findChannel(t, a, quad, mesh.PathTranslation)
	require.InDelta(t, 1.5, channelAt(tr, 0.5)[0], 1e-6)
	require.Contains(t, sc.Drops, mesh.Drop{What: "lights", Count: 1})
	require.Contains(t, sc.Drops, mesh.Drop{What: "uv sets after the first", Count: 1})
	require.Contains(t, sc.Drops, mesh.Drop{What: "geometry layers EdgeCrease", Count: 1})

	sc = decodeAll(t, nodeAnimScene, Options{PreserveSpace: true, StaticNodes: true})
	require.Nil(t, sc.Skeleton)
	require.Contains(t, sc.Drops, mesh.Drop{What: "animated nodes that are not skin joints (node animation, counted per clip)", Count: 1})
}
