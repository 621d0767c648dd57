package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/cook"
)

// emptyTree is the samples plus testdata/empty: flat.gltf (one triangle
// whose corners coincide: no triangles once canonicalized) and moving.gltf
// (the same, with a clip moving its node).
func emptyTree(t *testing.T) (work, src string) {
	t.Helper()
	work = t.TempDir()
	src = filepath.Join(work, "src")
	require.NoError(t, os.Rename(copyTree(t, samplesDir(t)), src))
	for _, name := range []string{"flat.gltf", "moving.gltf"} {
		b, err := os.ReadFile(filepath.Join("testdata", "empty", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(src, name), b, 0o644))
	}
	return work, src
}

// A source with no triangles cooks with exit 0 and writes no mesh outputs
// (its .hanim when it has clips), one counted drop in --json naming it;
// --strict exits 3; --check of the cooked folder agrees; the outputs
// validate.
func TestCookEmptySource(t *testing.T) {
	work, src := emptyTree(t)
	out := filepath.Join(work, "out")
	code, stdout, stderr := run(t, "cook", src, "-o", out, "--json", "--target", "hmesh,msh7")
	require.Equal(t, ExitOK, code, stderr)
	var rep cook.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	var empty []string
	for _, d := range rep.Dropped {
		if d.What == cook.EmptyDrop {
			assert.Equal(t, 1, d.Count)
			empty = append(empty, d.Source)
		}
	}
	assert.Equal(t, []string{"flat.gltf", "moving.gltf"}, empty)
	tree := readTree(t, out)
	assert.Contains(t, tree, "moving.hanim", "the clip is still written")
	for name := range tree {
		if name != "moving.hanim" {
			assert.NotRegexp(t, `^(flat|moving)[./]`, name, "no mesh output of an empty source")
		}
	}
	code, stdout, _ = run(t, append([]string{"validate"}, outputsUnder(t, out)...)...)
	assert.Equal(t, ExitOK, code, stdout)

	code, stdout, stderr = run(t, "cook", src, "-o", out, "--check", "--target", "hmesh,msh7")
	assert.Equal(t, ExitOK, code, "check agrees with the cook: %s%s", stdout, stderr)

	strictOut := filepath.Join(work, "strict")
	code, _, stderr = run(t, "cook", filepath.Join(src, "flat.gltf"), "-o", strictOut, "--strict")
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, stderr, "no triangles: no mesh written")
	_, err := os.Stat(strictOut)
	if err == nil {
		assert.Empty(t, readTree(t, strictOut), "--strict writes nothing")
	}
}

// plan declares exactly what the cooks write: no edge for a source that
// writes nothing, only the .hanim for one whose clips remain.
func TestPlanEmptySource(t *testing.T) {
	work, src := emptyTree(t)
	build := filepath.Join(work, "build", "build.ninja")
	cooked := filepath.Join(work, "cooked")
	code, stdout, stderr := run(t, "plan", "--ninja", src, "-o", build, "--cook-out", cooked,
		"--meshcook", "meshcook-not-run", "--cook-flags", "--target hmesh,msh7")
	require.Equal(t, ExitOK, code, stdout+stderr)
	assert.Contains(t, stderr, "flat.gltf: no triangles: no mesh written (no edge)")
	text, err := os.ReadFile(build)
	require.NoError(t, err)
	declared := declaredOutputs(t, string(text))
	assert.Contains(t, declared, filepath.Join(cooked, "moving.hanim"))
	for _, p := range declared {
		r, err := filepath.Rel(cooked, p)
		require.NoError(t, err)
		if slices.Contains([]string{"flat", "moving"}, stem(r)) {
			assert.Equal(t, "moving.hanim", r, "no phantom outputs of the empty sources")
		}
	}

	// The cook of the same folder writes what plan declared.
	out := filepath.Join(work, "out")
	code, _, stderr = run(t, "cook", src, "-o", out, "--target", "hmesh,msh7")
	require.Equal(t, ExitOK, code, stderr)
	var written []string
	for name := range readTree(t, out) {
		written = append(written, filepath.Join(cooked, filepath.FromSlash(name)))
	}
	assert.ElementsMatch(t, written, declared)

	if ninja, err := exec.LookPath("ninja"); err == nil {
		bin := meshcookBinary(t)
		code, stdout, stderr = run(t, "plan", "--ninja", src, "-o", build, "--cook-out", cooked,
			"--meshcook", bin, "--cook-flags", "--target hmesh,msh7")
		require.Equal(t, ExitOK, code, stdout+stderr)
		cmd := exec.Command(ninja, "-f", build)
		cmd.Dir = work
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		cmd = exec.Command(ninja, "-f", build)
		cmd.Dir = work
		b, err = cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		assert.Contains(t, string(b), "no work to do", "every declared output was written")
	}
}

// stem is a relative output path's first component without extensions.
func stem(rel string) string {
	first := filepath.ToSlash(rel)
	for i, c := range first {
		if c == '/' || c == '.' {
			return first[:i]
		}
	}
	return first
}
