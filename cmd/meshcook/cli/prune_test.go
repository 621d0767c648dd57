package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cook --prune removes the outputs of deleted or renamed sources that an
// earlier --prune cook recorded (also across cooks without --prune in
// between), never a file meshcook did not write or one changed since, and
// not while a source fails.
func TestCookPrune(t *testing.T) {
	dir := t.TempDir()
	src, out := copyTree(t, samplesDir(t)), filepath.Join(dir, "out")
	cookIt := func(extra ...string) (int, string, string) {
		return run(t, append([]string{"cook", src, "-o", out, "--textures", "rgba8"}, extra...)...)
	}
	code, _, stderr := cookIt("--prune")
	require.Equal(t, ExitOK, code, stderr)
	for _, f := range []string{"box.hmesh", "box.hmat", "box/checker.ktx2", "strips.hmesh"} {
		require.FileExists(t, filepath.Join(out, filepath.FromSlash(f)))
	}
	// Files meshcook did not write, one named like an output.
	mine := map[string][]byte{"notes.txt": []byte("mine"), "models/extra.hmesh": []byte("not meshcook's")}
	for n, b := range mine {
		require.NoError(t, os.WriteFile(filepath.Join(out, filepath.FromSlash(n)), b, 0o644))
	}

	// Delete box (and its texture), rename strips; cook without --prune:
	// nothing is removed.
	require.NoError(t, os.Remove(filepath.Join(src, "box.gltf")))
	require.NoError(t, os.Rename(filepath.Join(src, "strips.glb"), filepath.Join(src, "strips2.glb")))
	code, _, stderr = cookIt()
	require.Equal(t, ExitOK, code, stderr)
	assert.FileExists(t, filepath.Join(out, "box.hmesh"))
	assert.FileExists(t, filepath.Join(out, "strips2.hmesh"))

	// A failing source: prune is skipped, with a warning.
	bad := filepath.Join(src, "broken.gltf")
	require.NoError(t, os.WriteFile(bad, []byte("{"), 0o644))
	code, _, stderr = cookIt("--prune")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, stderr, "--prune skipped: 1 sources failed")
	assert.FileExists(t, filepath.Join(out, "box.hmesh"))
	require.NoError(t, os.Remove(bad))

	// An output changed since meshcook wrote it stays.
	require.NoError(t, os.WriteFile(filepath.Join(out, "strips.hmat"), []byte("edited"), 0o644))

	code, stdout, stderr := cookIt("--prune")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, "pruned 4 outputs no source produces: box.hmat, box.hmesh, box/checker.ktx2, strips.hmesh\n")
	assert.Contains(t, stderr, "strips.hmat changed since meshcook wrote it; left in place")
	for _, gone := range []string{"box.hmesh", "box.hmat", "box/checker.ktx2", "box", "strips.hmesh"} {
		assert.NoFileExists(t, filepath.Join(out, filepath.FromSlash(gone)))
		assert.NoDirExists(t, filepath.Join(out, filepath.FromSlash(gone)))
	}
	assert.FileExists(t, filepath.Join(out, "strips.hmat"))
	for n, b := range mine {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(n)))
		require.NoError(t, err)
		assert.Equal(t, b, got)
	}
	for _, kept := range []string{"strips2.hmesh", "terrain.hmesh", "models/chair.hmesh"} {
		assert.FileExists(t, filepath.Join(out, filepath.FromSlash(kept)))
	}

	// Again: nothing left to prune.
	code, stdout, stderr = cookIt("--prune")
	require.Equal(t, ExitOK, code, stderr)
	assert.NotContains(t, stdout, "pruned")

	for _, flag := range []string{"--no-cache", "--check", "--dry-run"} {
		code, _, stderr := cookIt("--prune", flag)
		assert.Equal(t, ExitUsage, code, flag)
		assert.Contains(t, stderr, "--prune", flag)
	}
}
