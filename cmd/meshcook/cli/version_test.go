package cli

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/internal/testkit"
)

// `meshcook version` names the cache toolchain and every format it writes.
func TestVersionPrintsToolchainAndFormats(t *testing.T) {
	code, stdout, stderr := run(t, "version")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stdout, "cache toolchain: "+cook.Toolchain()+"\n")
	for _, f := range cook.WrittenFormats() {
		assert.Contains(t, stdout, "  "+f.Name+" v")
	}
	code, stdout, _ = run(t, "version", "--json")
	require.Equal(t, ExitOK, code)
	var v versionInfo
	require.NoError(t, json.Unmarshal([]byte(stdout), &v))
	assert.Equal(t, cook.Toolchain(), v.Toolchain)
	assert.Equal(t, cook.ExeHash(), v.Exe)
	assert.True(t, strings.HasSuffix(v.Toolchain, "exe/"+v.Exe))
}

// Two builds of one commit, from checkouts at different paths, with the
// farm recipe (docs/build-integration.md "Identical binaries": same Go,
// -trimpath, -buildvcs=false, CGO_ENABLED=0) are byte-identical, hold
// neither checkout's path, and so name the same cache toolchain: their
// cache entries are shared.
func TestFarmBuildsAreIdentical(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meshcook twice")
	}
	repo := testkit.RepoRoot(t)
	tmp := t.TempDir()
	var bins [][]byte
	var dirs, toolchains []string
	for _, where := range []string{"a/src", "b/a/much/longer/checkout/path/meshcook"} {
		dir := filepath.Join(tmp, filepath.FromSlash(where))
		copyModule(t, repo, dir)
		bin := filepath.Join(tmp, strings.ReplaceAll(where, "/", "_")+".bin")
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", bin, "./cmd/meshcook")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		b, err := os.ReadFile(bin)
		require.NoError(t, err)
		bins, dirs = append(bins, b), append(dirs, dir)
		out, err = exec.Command(bin, "version", "--json").Output()
		require.NoError(t, err)
		var v versionInfo
		require.NoError(t, json.Unmarshal(out, &v))
		toolchains = append(toolchains, v.Toolchain)
	}
	assert.True(t, bytes.Equal(bins[0], bins[1]), "the two builds differ")
	for i, d := range dirs {
		assert.False(t, bytes.Contains(bins[i], []byte(d)), "the binary holds its checkout path %s", d)
	}
	assert.Equal(t, toolchains[0], toolchains[1])
}

// copyModule copies what `go build` reads (go.mod, go.sum, every .go file
// outside testdata, node_modules and dot folders) from repo to dst.
func copyModule(t *testing.T, repo, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		if d.IsDir() {
			if n := d.Name(); rel != "." && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") && rel != "go.mod" && rel != "go.sum" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	}))
}
