package fbx

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

var update = flag.Bool("update", false, "rewrite testdata fixtures from their generators")

// rigScene is a skeleton as artists' files have it: bones listed child
// before parent (Knee before Hip), the first root under a rotated,
// translated non-joint node (Armature), a second root (Tail) at the scene
// root, a LimbNode no cluster names (Spine, under Hip) and an unskinned
// mesh (Sword) parented under a bone. Clusters list Tail, Knee, Hip, and
// bind at the current pose.
func rigScene(v int) []*Node {
	ry90 := func(tx, ty, tz float64) mesh.Mat4 {
		return mesh.Mat4{0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, tx, ty, tz, 1}
	}
	tr := func(tx, ty, tz float64) mesh.Mat4 { return translate([3]float64{tx, ty, tz}) }
	worlds := map[string]mesh.Mat4{
		"Hip":  ry90(0, 0, 4), // Armature T(0,0,5)·Ry(90) · T(1,0,0)
		"Knee": ry90(0, 2, 4), // … · T(0,2,0)
		"Tail": tr(3, 0, 0),
	}
	cluster := func(id int64, bone string, idx []int32, w []float64) *Node {
		link := worlds[bone]
		inv := inverse(link)
		return n("Deformer", id, "SubDeformer::"+bone, "Cluster",
			n("Indexes", idx), n("Weights", w),
			n("Transform", inv[:]), n("TransformLink", link[:]))
	}
	hip := worlds["Hip"]
	vec := func(name string, x, y, z float64) *Node { return P(name, name, x, y, z) }
	objects := []*Node{
		geometryNode(100, "Body", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, []int32{0, 1, 2, ^3}),
		geometryNode(101, "Blade", []float64{0, 0, 0, 0.5, 0, 0, 0, 0.5, 0}, []int32{0, 1, ^2}),
		modelNode(200, "Body", "Mesh"),
		modelNode(201, "Knee", "LimbNode", vec("Lcl Translation", 0, 2, 0)),
		modelNode(202, "Spine", "LimbNode", vec("Lcl Translation", 0, 1, 0)),
		modelNode(203, "Hip", "LimbNode", vec("Lcl Translation", 1, 0, 0)),
		modelNode(204, "Tail", "LimbNode", vec("Lcl Translation", 3, 0, 0)),
		modelNode(205, "Armature", "Null", vec("Lcl Translation", 0, 0, 5), vec("Lcl Rotation", 0, 90, 0)),
		modelNode(206, "Sword", "Mesh", vec("Lcl Translation", 0, 0.5, 0)),
		n("Deformer", int64(300), "Deformer::Skin", "Skin"),
		cluster(310, "Tail", []int32{1, 2}, []float64{1, 0.5}),
		cluster(311, "Knee", []int32{2, 3}, []float64{0.5, 1}),
		cluster(312, "Hip", []int32{0}, []float64{1}),
		n("Pose", int64(400), "Pose::BIND_POSES", "BindPose", n("Type", "BindPose"), n("NbPoseNodes", int32(1)),
			n("PoseNode", n("Node", int64(203)), n("Matrix", hip[:]))),
	}
	conns := [][]any{
		{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)},
		{"OO", int64(205), int64(0)}, {"OO", int64(203), int64(205)},
		{"OO", int64(201), int64(203)}, {"OO", int64(202), int64(203)},
		{"OO", int64(204), int64(0)},
		{"OO", int64(206), int64(201)}, {"OO", int64(101), int64(206)},
		{"OO", int64(300), int64(100)},
		{"OO", int64(310), int64(300)}, {"OO", int64(204), int64(310)},
		{"OO", int64(311), int64(300)}, {"OO", int64(201), int64(311)},
		{"OO", int64(312), int64(300)}, {"OO", int64(203), int64(312)},
	}
	return doc7(v, nil, objects, conns)
}

// TestSkeletonOrder: joints come parents first (by depth, then name, then
// file order, as `import` writes them), the non-joint node above a root is baked into its bind,
// and a mesh under a bone is bound rigidly to it; the bind pose
// reproduces every imported vertex.
func TestSkeletonOrder(t *testing.T) {
	for _, opts := range []Options{{PreserveSpace: true}, {}} {
		sc := decodeAll(t, rigScene, opts)
		sk := sc.Skeleton
		require.NotNil(t, sk)
		var names []string
		var parents []int
		for _, j := range sk.Joints {
			names = append(names, j.Name)
			parents = append(parents, j.Parent)
		}
		require.Equal(t, []string{"Hip", "Tail", "Knee"}, names)
		require.Equal(t, []int{-1, -1, 0}, parents)
		require.Less(t, bindSkinError(sc), 1e-6)

		require.Len(t, sc.Submeshes, 2)
		sword := sc.Submeshes[1]
		require.Equal(t, "Sword", sword.Name)
		for v := range sword.Positions {
			require.Equal(t, [4]uint16{2, 0, 0, 0}, sword.Joints[v])
			require.Equal(t, mesh.Vec4{1, 0, 0, 0}, sword.Weights[v])
		}
		if !opts.PreserveSpace {
			continue
		}
		// Hip's bind is Armature · Hip local: T(0,0,4), Ry(90).
		hip := sk.Joints[0]
		require.InDeltaSlice(t, []float32{0, 0, 4}, hip.BindT[:], 1e-6)
		require.InDeltaSlice(t, []float32{0, 0.70710677, 0, 0.70710677}, hip.BindR[:], 1e-6)
		// The sword sits where the file puts it: Knee world · T(0,0.5,0).
		require.InDeltaSlice(t, []float32{0, 2.5, 4}, sword.Positions[0][:], 1e-6)
		// Body corner 1 is Tail's with weight 1; corner 2 is shared.
		body := sc.Submeshes[0]
		require.Equal(t, [4]uint16{1, 0, 0, 0}, body.Joints[1])
		require.Equal(t, [4]uint16{1, 2, 0, 0}, body.Joints[2]) // ties keep cluster order
	}
}

// TestSkinFixture keeps testdata/skin_child_first.fbx (rigScene as ASCII
// 7.5, read by the CLI's cook-and-import test) equal to its generator.
func TestSkinFixture(t *testing.T) {
	path := filepath.Join("testdata", "skin_child_first.fbx")
	want := writeASCII(7500, rigScene(7500))
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, want, 0o644))
	}
	got, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./importer/fbx -run TestSkinFixture -update")
	require.Equal(t, string(want), string(got), "fixture differs from rigScene; rerun with -update")
}
