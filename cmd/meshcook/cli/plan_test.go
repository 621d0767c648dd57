package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
)

// builtBinary is the meshcook binary built once per test process for the
// tests that run it as a child (Ninja edges, SIGKILL).
var builtBinary struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

func meshcookBinary(t *testing.T) string {
	t.Helper()
	b := &builtBinary
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "meshcook-bin-")
		if err != nil {
			b.err = err
			return
		}
		b.path = filepath.Join(dir, "meshcook")
		cmd := exec.Command("go", "build", "-o", b.path, "./cmd/meshcook")
		cmd.Dir = testkit.RepoRoot(t)
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("go build: %v\n%s", b.err, b.out)
	}
	return b.path
}

// ninjaOrSkip finds ninja; CI must have it (.ci/run installs it).
func ninjaOrSkip(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("ninja")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ninja not found under CI (.ci/run installs ninja-build)")
		}
		t.Skip("ninja not found (apt-get install ninja-build); skipping the Ninja round trip")
	}
	return p
}

// plan --ninja writes one edge per asset; ninja cooks the folder cook's
// bytes, a second run does nothing, and changing a referenced buffer
// re-cooks exactly that asset.
func TestPlanNinja(t *testing.T) {
	ninja := ninjaOrSkip(t)
	bin := meshcookBinary(t)
	work := t.TempDir()
	src := filepath.Join(work, "my assets")
	if err := os.Rename(copyTree(t, samplesDir(t)), src); err != nil {
		t.Fatal(err)
	}
	build := filepath.Join(work, "build", "build.ninja")
	cooked := filepath.Join(work, "cooked")
	code, stdout, stderr := run(t, "plan", "--ninja", src, "-o", build, "--cook-out", cooked, "--meshcook", bin)
	if code != ExitOK || !strings.Contains(stdout, "4 assets") {
		t.Fatalf("plan: exit %d\n%s%s", code, stdout, stderr)
	}
	text, _ := os.ReadFile(build)
	if n := strings.Count(string(text), ": cook "); n != 4 {
		t.Errorf("%d cook edges, want 4:\n%s", n, text)
	}
	ninjaRun := func() string {
		t.Helper()
		cmd := exec.Command(ninja, "-f", build)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("ninja: %v\n%s", err, out)
		}
		return string(out)
	}
	if out := ninjaRun(); !strings.Contains(out, "[4/4]") {
		t.Errorf("first ninja run:\n%s", out)
	}
	if out := ninjaRun(); !strings.Contains(out, "no work to do") {
		t.Errorf("second ninja run did work:\n%s", out)
	}
	// The per-asset cooks wrote what one folder cook writes.
	whole := filepath.Join(t.TempDir(), "whole")
	if code, _, stderr := run(t, "cook", src, "-o", whole, "-q", "--no-cache"); code != ExitOK {
		t.Fatal(stderr)
	}
	got, want := readTree(t, cooked), readTree(t, whole)
	if len(got) != len(want) {
		t.Errorf("ninja wrote %d files, the folder cook %d", len(got), len(want))
	}
	for name, b := range want {
		if string(got[name]) != string(b) {
			t.Errorf("%s differs between the ninja build and the folder cook", name)
		}
	}
	// One byte of box.bin: only box re-cooks, then nothing again.
	bb, _ := os.ReadFile(filepath.Join(src, "box.bin"))
	bb[0] ^= 1
	os.WriteFile(filepath.Join(src, "box.bin"), bb, 0o644)
	if out := ninjaRun(); !strings.Contains(out, "[1/1] cook box") {
		t.Errorf("after editing box.bin:\n%s", out)
	}
	if out := ninjaRun(); !strings.Contains(out, "no work to do") {
		t.Errorf("after the re-cook ninja still has work:\n%s", out)
	}
}

func TestPlanEscapes(t *testing.T) {
	if got := ninjaPath("a b/c:d$e"); got != "a$ b/c$:d$$e" {
		t.Errorf("ninjaPath = %q", got)
	}
	for in, want := range map[string]string{"plain/path.gltf": "plain/path.gltf", "my dir/x": "'my dir/x'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
	if code, _, _ := run(t, "plan", samplesDir(t), "-o", "x"); code != ExitUsage {
		t.Errorf("plan without --ninja: exit %d", code)
	}
	if code, _, _ := run(t, "plan", "--ninja", "--make", samplesDir(t), "-o", "x", "--cook-out", "y"); code != ExitUsage {
		t.Errorf("plan --ninja --make: exit %d", code)
	}
	words, err := splitShellWords(`--lods 0.5 'a b' "c \"d\"" e\ f`)
	require.NoError(t, err)
	assert.Equal(t, []string{"--lods", "0.5", "a b", `c "d"`, "e f"}, words)
	_, err = splitShellWords(`'open`)
	assert.Error(t, err)
	assert.Equal(t, `a\ b\#$$`, depEscapeMake("a b#$"))
}

// planTree is the samples plus a skinned, animated corpus source: with
// --target hmesh,msh7 its cooks write every kind of per-asset output
// (.hmesh, .hmat, .ktx2, .hanim, .msh7).
func planTree(t *testing.T) (work, src string) {
	t.Helper()
	work = t.TempDir()
	src = filepath.Join(work, "my assets")
	require.NoError(t, os.Rename(copyTree(t, samplesDir(t)), src))
	skin, err := os.ReadFile(filepath.Join(testkit.Shared(t, "corpus"), "gltf", "SimpleSkin", "simple_skin.gltf"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(src, "simple_skin.gltf"), skin, 0o644))
	return work, src
}

// declaredOutputs lists the outputs of a build.ninja's cook edges.
func declaredOutputs(t *testing.T, text string) []string {
	var outs []string
	for _, line := range strings.Split(text, "\n") {
		head, _, ok := strings.Cut(line, ": cook ")
		if !ok || !strings.HasPrefix(head, "build ") {
			continue
		}
		head = strings.ReplaceAll(strings.TrimPrefix(head, "build "), "$ ", "\x00")
		for _, f := range strings.Fields(head) {
			outs = append(outs, strings.ReplaceAll(strings.ReplaceAll(f, "\x00", " "), "$:", ":"))
		}
	}
	return outs
}

// Every output a cook writes is declared by its edge, found by cooking
// (not by extension): deleting a .ktx2, .hanim or .msh7 makes ninja
// re-cook that asset and nothing else. Editing a source re-plans the
// build file first.
func TestPlanNinjaDeclaresEveryOutput(t *testing.T) {
	ninja := ninjaOrSkip(t)
	bin := meshcookBinary(t)
	work, src := planTree(t)
	build := filepath.Join(work, "build", "build.ninja")
	cooked := filepath.Join(work, "cooked")
	code, stdout, stderr := run(t, "plan", "--ninja", src, "-o", build, "--cook-out", cooked, "--meshcook", bin,
		"--cook-flags", "--target hmesh,msh7")
	require.Equal(t, ExitOK, code, stdout+stderr)
	text, err := os.ReadFile(build)
	require.NoError(t, err)

	ninjaRun := func() string {
		t.Helper()
		cmd := exec.Command(ninja, "-f", build)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	ninjaRun()
	var written []string
	for name := range readTree(t, cooked) {
		written = append(written, filepath.Join(cooked, filepath.FromSlash(name)))
	}
	assert.ElementsMatch(t, written, declaredOutputs(t, string(text)), "declared outputs = what the cooks wrote")
	assert.Contains(t, ninjaRun(), "no work to do")

	for _, name := range []string{"box/checker.ktx2", "simple_skin.hanim", "simple_skin.0.msh7", "models/chair.hmat"} {
		before, err := os.ReadFile(filepath.Join(cooked, filepath.FromSlash(name)))
		require.NoError(t, err)
		require.NoError(t, os.Remove(filepath.Join(cooked, filepath.FromSlash(name))))
		out := ninjaRun()
		assert.Contains(t, out, "[1/1] cook ", "rm %s: %s", name, out)
		after, err := os.ReadFile(filepath.Join(cooked, filepath.FromSlash(name)))
		require.NoError(t, err, "rm %s: not re-cooked:\n%s", name, out)
		assert.Equal(t, before, after)
		assert.Contains(t, ninjaRun(), "no work to do")
	}

	// A source edit re-plans (the plan edge) and re-cooks that asset.
	g, err := os.ReadFile(filepath.Join(src, "box.gltf"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(src, "box.gltf"), append(g, ' '), 0o644))
	out := ninjaRun()
	assert.Contains(t, out, "plan ")
	assert.Contains(t, out, "cook box")
	assert.Contains(t, ninjaRun(), "no work to do")
}

// plan --make: GNU make cooks the folder cook's bytes through grouped
// targets, a second make has nothing to do, and deleting any output
// re-cooks its asset.
func TestPlanMake(t *testing.T) {
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make not found")
	}
	bin := meshcookBinary(t)
	work, src := planTree(t)
	mk := filepath.Join(work, "build", "cook.mk")
	cooked := filepath.Join(work, "cooked")
	code, stdout, stderr := run(t, "plan", "--make", src, "-o", mk, "--cook-out", cooked, "--meshcook", bin)
	require.Equal(t, ExitOK, code, stdout+stderr)
	makeRun := func() string {
		t.Helper()
		cmd := exec.Command(makeBin, "-f", mk, "-j", "2")
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	makeRun()
	whole := filepath.Join(t.TempDir(), "whole")
	code, _, stderr = run(t, "cook", src, "-o", whole, "-q", "--no-cache")
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, readTree(t, whole), readTree(t, cooked))
	assert.Contains(t, makeRun(), "Nothing to be done")

	for _, name := range []string{"box/checker.ktx2", "simple_skin.hanim"} {
		require.NoError(t, os.Remove(filepath.Join(cooked, filepath.FromSlash(name))))
		out := makeRun()
		assert.Equal(t, 1, strings.Count(out, "cook "), "rm %s: %s", name, out)
		assert.FileExists(t, filepath.Join(cooked, filepath.FromSlash(name)))
		assert.Contains(t, makeRun(), "Nothing to be done")
	}
	// A referenced file's edit re-cooks only its asset.
	bb, err := os.ReadFile(filepath.Join(src, "box.bin"))
	require.NoError(t, err)
	bb[0] ^= 1
	require.NoError(t, os.WriteFile(filepath.Join(src, "box.bin"), bb, 0o644))
	out := makeRun()
	assert.Equal(t, 1, strings.Count(out, "cook "), out)
	assert.Contains(t, out, "cook box\n")
	assert.Contains(t, makeRun(), "Nothing to be done")
}

// plan --bazel lists each source's references as data, relative to the
// package; a source outside the package is refused.
func TestPlanBazel(t *testing.T) {
	work, src := planTree(t)
	out := filepath.Join(src, "BUILD.bazel")
	code, stdout, stderr := run(t, "plan", "--bazel", src, "-o", out, "--world", "all")
	require.Equal(t, ExitOK, code, stdout+stderr)
	text, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(text), "meshcook_asset(\n    name = \"box\",\n    src = \"box.gltf\",\n    data = [\n        \"box.bin\",\n        \"checker.png\",\n    ],\n)\n")
	assert.Contains(t, string(text), "meshcook_asset(\n    name = \"simple_skin\",\n    src = \"simple_skin.gltf\",\n)\n")
	assert.Contains(t, string(text), "meshcook_world(\n    name = \"all\",\n")
	assert.Equal(t, 5, strings.Count(string(text), "meshcook_asset("))

	code, _, stderr = run(t, "plan", "--bazel", src, "-o", filepath.Join(work, "elsewhere", "BUILD"), "--package", filepath.Join(work, "elsewhere"))
	assert.Equal(t, ExitBadInput, code, stderr)
	assert.Contains(t, stderr, "not inside the BUILD file's package folder")
}
