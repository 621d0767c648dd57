// Package bazel holds meshcook's Bazel rules (defs.bzl, not Go) and the
// test that builds the example workspace with a real Bazel.
package bazel

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/davtest"
	"github.com/meshcook/meshcook/internal/testkit"
)

// spawn is one entry of Bazel's --execution_log_json_file.
type spawn struct {
	Mnemonic       string `json:"mnemonic"`
	RemoteCacheHit bool   `json:"remoteCacheHit"`
	ActualOutputs  []struct {
		Path string `json:"path"`
	} `json:"actualOutputs"`
}

// The example workspace (bazel/example) cooks testdata/samples with the
// rules, over the prebuilt binary, with nginx WebDAV as Bazel's remote
// cache: the first output base cooks every asset and the world; a second,
// fresh output base gets every MeshCook action from the remote cache, with
// byte-identical outputs, which are also what `meshcook cook` writes for
// the samples folder. Bazel presents the inputs as symlinks into the
// source tree (the path policy follows them). linux-sandbox cannot run on
// these machines, so actions run standalone.
func TestExampleWorkspaceRemoteCache(t *testing.T) {
	bazel, err := exec.LookPath("bazel")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bazel not found (CI installs Debian's bazel-bootstrap): %v", err)
		}
		t.Skipf("bazel not found (apt-get install bazel-bootstrap): %v", err)
	}
	if testing.Short() {
		t.Skip("builds with Bazel (about a minute)")
	}
	repo := testkit.RepoRoot(t)
	srv := davtest.Start(t)
	tmp := t.TempDir()

	// The binary every action runs, built the way docs/build-integration.md
	// tells farms to, as a repository overriding @meshcook_bin.
	binRepo := filepath.Join(tmp, "bin")
	require.NoError(t, os.MkdirAll(binRepo, 0o755))
	meshcook := filepath.Join(binRepo, "meshcook")
	build := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", meshcook, "./cmd/meshcook")
	build.Dir = repo
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.WriteFile(filepath.Join(binRepo, "WORKSPACE"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(binRepo, "BUILD.bazel"), []byte(`exports_files(["meshcook"])`+"\n"), 0o644))

	// samples.BUILD is what plan --bazel writes for the samples today.
	planned := filepath.Join(tmp, "samples.BUILD")
	plan := exec.Command(meshcook, "plan", "--bazel", "testdata/samples", "--package", "testdata/samples", "-o", planned, "--world", "world")
	plan.Dir = repo
	out, err = plan.CombinedOutput()
	require.NoError(t, err, "%s", out)
	want, err := os.ReadFile(planned)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(repo, "bazel", "example", "samples.BUILD"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "bazel/example/samples.BUILD is stale: rerun the plan command in bazel/example/WORKSPACE")

	userRoot := filepath.Join(tmp, "bazel-root")
	bazelBuild := func(outputBase string) ([]spawn, string) {
		t.Helper()
		logFile := filepath.Join(tmp, filepath.Base(outputBase)+".exec.json")
		startup := []string{"--output_user_root=" + userRoot, "--output_base=" + outputBase, "--max_idle_secs=60"}
		t.Cleanup(func() {
			stop := exec.Command(bazel, append(startup, "shutdown")...)
			stop.Dir = filepath.Join(repo, "bazel", "example")
			stop.Run()
		})
		args := append(append([]string{}, startup...), "build",
			"--symlink_prefix=/", // no convenience links in the source tree
			"--spawn_strategy=standalone",
			"--remote_cache="+srv.URL,
			"--override_repository=meshcook_bin="+binRepo,
			"--execution_log_json_file="+logFile,
			"//:all")
		cmd := exec.Command(bazel, args...)
		cmd.Dir = filepath.Join(repo, "bazel", "example")
		start := time.Now()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		t.Logf("bazel build in %s: %.1f s", filepath.Base(outputBase), time.Since(start).Seconds())
		f, err := os.Open(logFile)
		require.NoError(t, err)
		defer f.Close()
		var spawns []spawn
		dec := json.NewDecoder(f)
		for {
			var s spawn
			if err := dec.Decode(&s); errors.Is(err, io.EOF) {
				break
			} else {
				require.NoError(t, err)
			}
			if s.Mnemonic == "MeshCook" {
				spawns = append(spawns, s)
			}
		}
		return spawns, filepath.Join(outputBase, "execroot", "meshcook_example", "bazel-out", "k8-fastbuild", "bin", "external", "samples")
	}

	first, bin1 := bazelBuild(filepath.Join(tmp, "ob1"))
	require.Len(t, first, 5, "four assets and the world")
	for _, s := range first {
		assert.False(t, s.RemoteCacheHit, "a cold remote cache")
	}
	second, bin2 := bazelBuild(filepath.Join(tmp, "ob2"))
	require.Len(t, second, 5)
	for _, s := range second {
		assert.True(t, s.RemoteCacheHit, "every MeshCook action is a remote cache hit: %+v", s.ActualOutputs)
	}
	tree1, tree2 := readTree(t, bin1), readTree(t, bin2)
	require.NotEmpty(t, tree1)
	assert.Equal(t, tree1, tree2, "the second output base's outputs are byte-identical")

	// The asset trees hold exactly what a folder cook writes, the world
	// tree what a folder cook of the world writes.
	cookDir := func(flags ...string) map[string]string {
		dir := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command(meshcook, append([]string{"cook", "testdata/samples", "-o", dir, "--no-cache", "-q"}, flags...)...)
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return readTree(t, dir)
	}
	assets, world := map[string]string{}, map[string]string{}
	for name, b := range tree1 {
		tree, rest, _ := strings.Cut(name, ".cooked/")
		if tree == "world" {
			world[rest] = b
		} else {
			assets[rest] = b
		}
	}
	assert.Equal(t, cookDir(), assets)
	assert.Equal(t, cookDir("--target", "cnb"), world)
}

// readTree maps every file under dir to its bytes.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	return m
}
