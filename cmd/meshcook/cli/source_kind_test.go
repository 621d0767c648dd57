package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/internal/testkit"
)

// validate and inspect accept sources: they import them as a cook would,
// fail (exit 3) where the cook refuses, and report what the cook sees,
// including what it would drop.
func TestValidateAndInspectSources(t *testing.T) {
	corpus := testkit.Shared(t, "corpus")
	glb := filepath.Join(corpus, "gltf", "Fox", "glTF-Binary", "Fox.glb")
	gltf := filepath.Join(corpus, "gltf", "MeshPrimitiveModes", "MeshPrimitiveModes.gltf")
	fbx := filepath.Join(corpus, "fbx", "assimp_box", "box.fbx")
	draco := filepath.Join(corpus, "gltf", "Box", "glTF-Draco", "Box_Draco.glb")
	meshopt := filepath.Join(corpus, "gltf", "quantization_misc", "BoxMeshopt.glb")

	code, stdout, _ := run(t, "validate", "--json", glb, gltf, fbx, meshopt)
	require.Equal(t, ExitOK, code, stdout)
	var checks []fileCheck
	require.NoError(t, json.Unmarshal([]byte(stdout), &checks))
	require.Len(t, checks, 4)
	assert.Equal(t, []string{"gltf", "gltf", "fbx", "gltf"}, []string{checks[0].Kind, checks[1].Kind, checks[2].Kind, checks[3].Kind})

	code, stdout, _ = run(t, "validate", glb, draco)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, stdout, "FAIL "+draco+": gltf: "+draco+": unsupported required extension \"KHR_draco_mesh_compression\"")

	code, stdout, stderr := run(t, "inspect", "--json", gltf)
	require.Equal(t, ExitOK, code, stderr)
	var info cook.SourceInfo
	require.NoError(t, json.Unmarshal([]byte(stdout), &info))
	assert.Equal(t, 3, info.DrawsBefore)
	assert.Equal(t, 1, info.Draws)
	assert.Equal(t, 16, info.Triangles)
	assert.Equal(t, []cook.DropReport{{Source: "MeshPrimitiveModes.gltf", What: "points/lines primitives", Count: 4}}, info.Dropped)

	code, stdout, _ = run(t, "inspect", "--json", glb)
	require.Equal(t, ExitOK, code)
	require.NoError(t, json.Unmarshal([]byte(stdout), &info))
	assert.Equal(t, 24, info.Joints)
	assert.Equal(t, 3, info.Clips)
	assert.Equal(t, 0, info.EmptyClips)
	assert.Equal(t, 1, info.Skinned)

	code, stdout, _ = run(t, "inspect", gltf)
	require.Equal(t, ExitOK, code)
	assert.Contains(t, stdout, "gltf source: 1 draws (3 submeshes before merging)")
	assert.Contains(t, stdout, "dropped: 4 points/lines primitives")

	code, _, stderr = run(t, "inspect", draco)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, stderr, "unsupported required extension")
}
