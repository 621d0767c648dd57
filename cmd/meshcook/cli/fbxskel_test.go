package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/internal/testkit"
)

// An FBX skeleton listed child before parent, with a root under a non-joint
// node, a second root and a mesh under a bone (importer/fbx's
// skin_child_first.fbx fixture) cooks, and `import` then `cook` of the .nwb
// gives the same joints in the same order with the same bind pose.
func TestCookAndImportAgreeOnFBXSkeleton(t *testing.T) {
	src := filepath.Join(testkit.RepoRoot(t), "importer", "fbx", "testdata", "skin_child_first.fbx")
	dir := t.TempDir()
	code, stdout, stderr := run(t, "cook", src, "-o", filepath.Join(dir, "direct"), "--no-cache")
	require.Equal(t, ExitOK, code, stdout+stderr)
	direct := readHMesh(t, filepath.Join(dir, "direct", "skin_child_first.hmesh"))

	bunch := filepath.Join(dir, "rig.nwb")
	importOK(t, src, "-o", bunch, "-m", "Body") // the rigidly bound Sword has no skin deformer (nwb.md §3)
	doc := readDoc(t, bunch)
	var names, parents []string
	for _, a := range doc.Assets {
		if a.Skeleton != nil {
			for _, j := range a.Skeleton.Joints {
				names, parents = append(names, j.Name), append(parents, j.Parent)
			}
		}
	}
	require.Equal(t, []string{"Hip", "Tail", "Knee"}, names)
	require.Equal(t, []string{"", "", "Hip"}, parents)

	code, stdout, stderr = run(t, "cook", bunch, "-o", filepath.Join(dir, "viaNWB"), "--no-cache")
	require.Equal(t, ExitOK, code, stdout+stderr)
	imported := readHMesh(t, filepath.Join(dir, "viaNWB", "rig.hmesh"))
	require.Len(t, imported.Joints, len(direct.Joints))
	for j := range direct.Joints {
		a, b := direct.Joints[j], imported.Joints[j]
		require.Equal(t, a.Parent, b.Parent, "joint %d parent", j)
		require.InDeltaSlice(t, a.BindT[:], b.BindT[:], 1e-5, "joint %d bind translation", j)
		require.InDeltaSlice(t, a.BindR[:], b.BindR[:], 1e-5, "joint %d bind rotation", j)
		require.InDeltaSlice(t, a.InverseBind[:], b.InverseBind[:], 1e-5, "joint %d inverse bind", j)
	}
}

func readHMesh(t *testing.T, path string) *hmesh.File {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	f, err := hmesh.Decode(b)
	require.NoError(t, err)
	return f
}

// The corpus's skinned FBX files: cooking the FBX and cooking its import
// give the same joints in the same order with the same bind pose.
func TestCookAndImportAgreeOnCorpusSkeletons(t *testing.T) {
	for _, name := range []string{"huesitos", "animation_with_skeleton"} {
		t.Run(name, func(t *testing.T) {
			src := corpusFile(t, "assimp_skeleton/"+name+".fbx")
			dir := t.TempDir()
			code, stdout, stderr := run(t, "cook", src, "-o", filepath.Join(dir, "direct"), "--no-cache")
			require.Equal(t, ExitOK, code, stdout+stderr)
			direct := readHMesh(t, filepath.Join(dir, "direct", name+".hmesh"))
			bunch := filepath.Join(dir, name+".nwb")
			importOK(t, src, "-o", bunch)
			code, stdout, stderr = run(t, "cook", bunch, "-o", filepath.Join(dir, "viaNWB"), "--no-cache")
			require.Equal(t, ExitOK, code, stdout+stderr)
			imported := readHMesh(t, filepath.Join(dir, "viaNWB", name+".hmesh"))
			require.Len(t, imported.Joints, len(direct.Joints))
			for j := range direct.Joints {
				a, b := direct.Joints[j], imported.Joints[j]
				require.Equal(t, a.Parent, b.Parent, "joint %d parent", j)
				require.InDeltaSlice(t, a.BindT[:], b.BindT[:], 1e-5, "joint %d bind translation", j)
				require.InDeltaSlice(t, a.BindR[:], b.BindR[:], 1e-5, "joint %d bind rotation", j)
			}
		})
	}
}
