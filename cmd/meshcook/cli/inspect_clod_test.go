package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
)

// cook --cluster-lod writes a hierarchy meshcheck still reads; inspect
// summarizes it (levels, clusters per level, cuts whose triangles shrink
// as the error grows), --error cuts at the given thresholds, and a file
// without a hierarchy has no clusterLod key and refuses --error.
func TestInspectClusterLOD(t *testing.T) {
	src := filepath.Join(testkit.RepoRoot(t), "testdata", "samples", "terrain.gltf")
	out, plain := t.TempDir(), t.TempDir()
	code, _, stderr := run(t, "cook", "--quiet", "--cluster-lod", "-o", out, src)
	require.Zero(t, code, stderr)
	code, _, stderr = run(t, "cook", "--quiet", "-o", plain, src)
	require.Zero(t, code, stderr)
	hm := filepath.Join(out, "terrain.hmesh")
	meshcheck(t, []string{hm})

	code, stdout, stderr := run(t, "inspect", "--json", hm)
	require.Zero(t, code, stderr)
	var s hmeshSummary
	require.NoError(t, json.Unmarshal([]byte(stdout), &s))
	c := s.ClusterLOD
	require.NotNil(t, c)
	require.Greater(t, c.Levels, 2)
	require.Len(t, c.ClustersPerLevel, c.Levels)
	require.EqualValues(t, s.Meshlets, c.ClustersPerLevel[0])
	require.EqualValues(t, s.Triangles, c.TrianglesPerLvl[0])
	require.Len(t, c.Cuts, len(defaultCutErrors))
	for i := 1; i < len(c.Cuts); i++ {
		require.LessOrEqual(t, c.Cuts[i].Triangles, c.Cuts[i-1].Triangles)
	}
	require.Less(t, c.Cuts[len(c.Cuts)-1].Triangles, int(s.Triangles))

	code, stdout, stderr = run(t, "inspect", "--error", "0.003,1", hm)
	require.Zero(t, code, stderr)
	require.Contains(t, stdout, "cluster LOD: ")
	require.Contains(t, stdout, "error 0.003: ")
	require.Contains(t, stdout, "error 1: ")

	code, stdout, _ = run(t, "inspect", "--json", filepath.Join(plain, "terrain.hmesh"))
	require.Zero(t, code)
	require.False(t, strings.Contains(stdout, "clusterLod"))
	code, _, stderr = run(t, "inspect", "--error", "0.002", filepath.Join(plain, "terrain.hmesh"))
	require.Equal(t, ExitBadInput, code)
	require.Contains(t, stderr, "no cluster hierarchy")
	code, _, _ = run(t, "inspect", "--error", "-1", hm)
	require.Equal(t, ExitUsage, code)
}
