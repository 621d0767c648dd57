package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNewcomerMessages pins the messages a first cook on a fresh clone
// meets: each is one line, names what is wrong and carries no Go syntax.
func TestNewcomerMessages(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(empty, 0o755))
	textGLB := filepath.Join(dir, "text.glb")
	require.NoError(t, os.WriteFile(textGLB, []byte(`{"asset":{"version":"2.0"}}`), 0o644))
	aFile := filepath.Join(dir, "afile")
	require.NoError(t, os.WriteFile(aFile, []byte("x"), 0o644))
	box := filepath.Join(samplesDir(t), "box.gltf")
	// A folder where an output goes: the rename fails the way a
	// permission error does (root, which runs CI, passes permission checks).
	blocked := filepath.Join(dir, "blocked")
	require.NoError(t, os.MkdirAll(filepath.Join(blocked, "box.hmesh", "x"), 0o755))

	for _, tc := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"no sources names every kind", []string{"cook", empty, "-o", filepath.Join(dir, "out")}, ExitBadInput,
			[]string{"cook: no sources under " + empty + " (", ".gltf", ".glb", ".fbx", ".nwb", ".heightfield.json"}},
		{"plan: no sources", []string{"plan", "--ninja", empty, "-o", filepath.Join(dir, "b.ninja"), "--cook-out", filepath.Join(dir, "out")}, ExitBadInput,
			[]string{"plan: no sources under " + empty + " (", ".fbx", ".nwb"}},
		{"text named .glb", []string{"cook", textGLB, "-o", filepath.Join(dir, "out")}, ExitBadInput,
			[]string{textGLB + ": not a GLB (bad magic"}},
		{"-o names a file", []string{"cook", samplesDir(t), "-o", aFile}, ExitOutput,
			[]string{"cook: " + aFile + ": is a file, not a folder"}},
		{"a write error names the output, not its temp", []string{"cook", box, "-o", blocked, "--no-cache"}, ExitOutput,
			[]string{filepath.Join(blocked, "box.hmesh") + ": "}},
		{"-j -1", []string{"cook", box, "-o", filepath.Join(dir, "out"), "-j", "-1"}, ExitUsage,
			[]string{"cook: -j -1: want 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			errLines := 0
			for _, l := range lines {
				if strings.HasPrefix(l, "meshcook: ") {
					errLines++
				}
			}
			assert.Equal(t, 1, errLines, "one error line, got %q", stderr)
			for _, w := range tc.want {
				assert.Contains(t, stderr, w)
			}
			assert.NotContains(t, stderr, "[", "no Go slice brackets")
			assert.NotContains(t, stderr, "json:", "no raw JSON parser error")
			assert.NotContains(t, stderr, ".tmp-", "no temp file names")
		})
	}
	_, err := os.Stat(filepath.Join(dir, "out"))
	assert.True(t, os.IsNotExist(err), "refused cooks write nothing")
}

// --version is what `version` prints first, not a usage error.
func TestVersionFlag(t *testing.T) {
	code, stdout, stderr := run(t, "--version")
	require.Equal(t, ExitOK, code, stderr)
	_, first, _ := run(t, "version")
	assert.Equal(t, strings.SplitN(first, "\n", 2)[0]+"\n", stdout)
}
