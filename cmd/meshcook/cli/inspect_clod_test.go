package cli

import (
	"bytes"
	"encoding/json"
	"image/color"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/preview"
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

// inspect --png draws a cluster hierarchy's cut (--view cut, and last in
// the default picture) at --error with every cluster coloured by its
// level: the pixels are the level shades of levels the file has, coarser
// ones as the threshold grows (the terrain's hierarchy has one group per
// level above 0, so each cut is one level; the preview tests draw mixed
// levels), and the bytes repeat. A file without a hierarchy refuses the view, and
// --png takes one threshold.
func TestInspectPNGClusterCut(t *testing.T) {
	src := filepath.Join(testkit.RepoRoot(t), "testdata", "samples", "terrain.gltf")
	out, plain := t.TempDir(), t.TempDir()
	code, _, stderr := run(t, "cook", "--quiet", "--cluster-lod", "-o", out, src)
	require.Zero(t, code, stderr)
	hm := filepath.Join(out, "terrain.hmesh")
	code, stdout, stderr := run(t, "inspect", "--json", hm)
	require.Zero(t, code, stderr)
	var s hmeshSummary
	require.NoError(t, json.Unmarshal([]byte(stdout), &s))
	shade := map[color.Color]int{} // colour -> level
	for l := s.ClusterLOD.Levels - 1; l >= 0; l-- {
		for c := range 3 {
			shade[preview.CutColor(l, c)] = l
		}
	}
	prevTop := -1
	for _, tau := range []string{"0.001", "0.004", "0.016", "0.064"} {
		b := inspectPNG(t, hm, "--view", "cut", "--size", "160", "--error", tau)
		require.Equal(t, b, inspectPNG(t, hm, "--view", "cut", "--size", "160", "--error", tau))
		img, err := png.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		levels := map[int]bool{}
		top := 0
		for y := 20; y < 160; y++ { // below the label
			for x := range 160 {
				c := img.At(x, y)
				if c == color.Color(preview.Background) {
					continue
				}
				l, ok := shade[c]
				require.True(t, ok, "error %s: pixel (%d, %d) %v is no level's shade", tau, x, y, c)
				levels[l] = true
				top = max(top, l)
			}
		}
		require.Len(t, levels, 1, "error %s", tau)
		require.Greater(t, top, prevTop, "error %s: a larger threshold draws a coarser level", tau)
		prevTop = top
	}
	code, _, _ = run(t, "inspect", hm, "--png", filepath.Join(t.TempDir(), "p.png"), "--error", "0.001,0.002")
	require.Equal(t, ExitUsage, code)

	code, _, stderr = run(t, "cook", "--quiet", "-o", plain, src)
	require.Zero(t, code, stderr)
	code, _, stderr = run(t, "inspect", filepath.Join(plain, "terrain.hmesh"), "--png", filepath.Join(t.TempDir(), "p.png"), "--view", "cut")
	require.Equal(t, ExitBadInput, code)
	require.Contains(t, stderr, "no cluster hierarchy")
}
