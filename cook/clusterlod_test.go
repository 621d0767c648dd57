package cook

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/internal/testkit"
)

// cookTree cooks src with edit applied and returns every output file.
func cookTree(t *testing.T, src string, edit func(*Options)) map[string]string {
	t.Helper()
	jobs, err := Plan([]string{src})
	require.NoError(t, err)
	opts := DefaultOptions()
	opts.OutDir = t.TempDir()
	opts.Textures.Mode = TexturesRGBA8 // the textures are not under test here
	edit(&opts)
	rep, err := Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	return readTree(t, opts.OutDir)
}

// --cluster-lod adds the CL** chunks to each .hmesh and changes nothing
// else: dropping them re-encodes the bytes of a cook without the option;
// every other output is identical; the hierarchy covers every submesh and
// is the same bytes at GOMAXPROCS 1 and 4. FlightHelmet has six submeshes
// with normals and UVs.
func TestCookClusterLOD(t *testing.T) {
	src := filepath.Join(testkit.Shared(t, "corpus/gltf/FlightHelmet"), "FlightHelmet.gltf")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	plain := cookTree(t, src, func(o *Options) {})
	clod := cookTree(t, src, func(o *Options) { o.ClusterLOD = true })
	runtime.GOMAXPROCS(4)
	clod4 := cookTree(t, src, func(o *Options) { o.ClusterLOD = true })
	require.Equal(t, len(clod), len(clod4))
	for name, b := range clod {
		require.True(t, b == clod4[name], "%s differs between GOMAXPROCS 1 and 4", name)
	}

	require.Equal(t, len(plain), len(clod))
	meshes := 0
	for name, b := range plain {
		if !strings.HasSuffix(name, ".hmesh") {
			require.True(t, b == clod[name], "%s changed", name)
			continue
		}
		meshes++
		f, err := hmesh.Decode([]byte(clod[name]))
		require.NoError(t, err)
		c := f.ClusterLOD
		require.NotNil(t, c, name)
		require.Len(t, c.Submeshes, len(f.Submeshes))
		for i, s := range c.Submeshes {
			require.Positive(t, s.GroupCount, "submesh %d", i)
			if f.Submeshes[i].MeshletCount > 16 {
				require.Greater(t, s.LevelCount, uint32(1), "submesh %d", i)
			}
		}
		f.ClusterLOD = nil
		again, err := hmesh.Encode(f)
		require.NoError(t, err)
		require.True(t, string(again) == b, "%s without its CL** chunks differs from the plain cook", name)
	}
	require.Positive(t, meshes)
}

// meshcook.json's "clusterLod" sets Options.ClusterLOD; absent keeps it.
func TestProjectClusterLOD(t *testing.T) {
	for _, c := range []struct {
		json string
		want bool
	}{
		{`{"sources": ["*.glb"], "options": {"clusterLod": true}}`, true},
		{`{"sources": ["*.glb"], "options": {"clusterLod": false}}`, false},
		{`{"sources": ["*.glb"]}`, false},
	} {
		pr, err := ParseProject([]byte(c.json))
		require.NoError(t, err)
		opts := DefaultOptions()
		require.NoError(t, pr.Apply(&opts))
		require.Equal(t, c.want, opts.ClusterLOD, c.json)
	}
}
