package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

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
	if code != ExitOK || !strings.Contains(stdout, "4 edges") {
		t.Fatalf("plan: exit %d\n%s%s", code, stdout, stderr)
	}
	text, _ := os.ReadFile(build)
	if n := strings.Count(string(text), "\nbuild "); n != 4 {
		t.Errorf("%d build edges, want 4:\n%s", n, text)
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
}
