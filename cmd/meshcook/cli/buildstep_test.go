package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// copyTree copies src into a fresh folder and returns it.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Without a terminal, each asset logs one line; --quiet silences them; a
// warm cook logs cache hits and reports them in --json.
func TestCookLogsAndCacheReport(t *testing.T) {
	src := copyTree(t, samplesDir(t))
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := run(t, "cook", src, "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	line := regexp.MustCompile(`(?m)^cooked models/chair \([0-9.]+ ms\)$`)
	if !line.MatchString(stderr) {
		t.Errorf("no log line for models/chair in:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), ".meshcook-cache")); err != nil {
		t.Errorf("default cache folder beside the outputs: %v", err)
	}
	code, stdout, stderr := run(t, "cook", src, "-o", out, "--json", "--quiet")
	if code != ExitOK || strings.Contains(stderr, "cached ") {
		t.Fatalf("exit %d, quiet stderr: %s", code, stderr)
	}
	var rep struct {
		CacheHits, CacheMisses int
		BytesWritten           int64
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.CacheHits != 4 || rep.CacheMisses != 0 || rep.BytesWritten != 0 {
		t.Errorf("warm --json: %+v", rep)
	}
	code, stdout, stderr = run(t, "cook", src, "-o", out, "--stats")
	if code != ExitOK || !strings.Contains(stderr, "cached models/chair") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"meshlets", "jobs:          4 (4 cache hits, 0 misses, 0 failed)", "bytes written: 0", "peak Go heap:", "allocated:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--stats lacks %q:\n%s", want, stdout)
		}
	}
	// --no-cache cooks everything and reports no cache figures.
	code, stdout, _ = run(t, "cook", src, "-o", out, "--json", "--no-cache", "-q")
	if code != ExitOK || !strings.Contains(stdout, `"cacheMisses": 0`) || !strings.Contains(stdout, `"cacheHits": 0`) {
		t.Errorf("--no-cache: exit %d\n%s", code, stdout)
	}
}

// --check exits 0 on fresh outputs and 1 listing what differs, writing
// nothing.
func TestCookCheck(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if code, _, stderr := run(t, "cook", samplesDir(t), "-o", out, "-q"); code != ExitOK {
		t.Fatal(stderr)
	}
	if code, stdout, stderr := run(t, "cook", samplesDir(t), "-o", out, "--check", "-q"); code != ExitOK {
		t.Fatalf("check of fresh outputs: exit %d\n%s%s", code, stdout, stderr)
	}
	os.Remove(filepath.Join(out, "box.hmesh"))
	os.WriteFile(filepath.Join(out, "extra.hmesh"), []byte("x"), 0o644)
	code, stdout, stderr := run(t, "cook", samplesDir(t), "-o", out, "--check", "-q")
	if code != ExitFailure || !strings.HasSuffix(stdout, "\nmissing box.hmesh\nstale extra.hmesh\n") || !strings.Contains(stderr, "2 files differ") {
		t.Errorf("exit %d\nstdout %q\nstderr %s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "box.hmesh")); err == nil {
		t.Error("--check wrote box.hmesh")
	}
}

// --depfile lists every output with the files it read, escaped for make,
// and the depfile itself with every input (Make uses it as the stamp).
func TestCookDepfile(t *testing.T) {
	src := copyTree(t, samplesDir(t))
	spaced := filepath.Join(filepath.Dir(src), "my assets")
	if err := os.Rename(src, spaced); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	dep := filepath.Join(t.TempDir(), "cook.d")
	if code, _, stderr := run(t, "cook", filepath.Join(spaced, "box.gltf"), "-o", out, "--depfile", dep, "-q"); code != ExitOK {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(dep)
	if err != nil {
		t.Fatal(err)
	}
	esc := strings.ReplaceAll(spaced, " ", `\ `)
	want := ""
	for _, o := range []string{filepath.Join(out, "box.hmesh"), filepath.Join(out, "box.hmat"), filepath.Join(out, "box", "checker.ktx2"), dep} {
		want += o + ": \\\n  " + esc + "/box.gltf \\\n  " + esc + "/box.bin \\\n  " + esc + "/checker.png\n"
	}
	if string(b) != want {
		t.Errorf("depfile:\n%s\nwant:\n%s", b, want)
	}
}

// --root names a file as if its root folder were cooked, so a per-asset
// cook writes the folder cook's bytes.
func TestCookRootMatchesFolderCook(t *testing.T) {
	all := filepath.Join(t.TempDir(), "all")
	one := filepath.Join(t.TempDir(), "one")
	if code, _, stderr := run(t, "cook", samplesDir(t), "-o", all, "-q", "--no-cache"); code != ExitOK {
		t.Fatal(stderr)
	}
	if code, _, stderr := run(t, "cook", "--root", samplesDir(t), filepath.Join(samplesDir(t), "models", "chair.glb"), "-o", one, "-q", "--no-cache"); code != ExitOK {
		t.Fatal(stderr)
	}
	got := readTree(t, one)
	if len(got) != 2 {
		t.Fatalf("outputs %v", got)
	}
	want := readTree(t, all)
	for name, b := range got {
		if string(want[name]) != string(b) {
			t.Errorf("%s differs from the folder cook's", name)
		}
	}
	if code, _, _ := run(t, "cook", "--root", filepath.Join(samplesDir(t), "models"), filepath.Join(samplesDir(t), "box.gltf"), "-o", one, "-q"); code != ExitBadInput {
		t.Errorf("a file outside --root: exit %d, want %d", code, ExitBadInput)
	}
}
