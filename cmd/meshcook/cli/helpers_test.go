package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the module root (two levels above this package).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// sharedDir returns ../shared beside the repository, or skips the test
// with a clear message when it is absent (as on a user's machine).
func sharedDir(t testing.TB, sub string) string {
	t.Helper()
	d := filepath.Join(repoRoot(t), "..", "shared", sub)
	if _, err := os.Stat(d); err != nil {
		t.Skipf("%s not present (shared corpus/tools are only on project machines): %v", d, err)
	}
	return d
}

// run executes one meshcook command line in-process.
func run(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// meshcheck runs the independent reader over files and fails the test on
// any file it rejects. Skips when python3 or the script is missing.
func meshcheck(t *testing.T, files []string) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	script := filepath.Join(sharedDir(t, "tools"), "meshcheck.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found; the independent meshcheck cannot run")
	}
	const batch = 200
	for len(files) > 0 {
		n := min(batch, len(files))
		cmd := exec.Command(py, append([]string{script, "--json"}, files[:n]...)...)
		out, err := cmd.Output()
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r map[string]any
			if json.Unmarshal([]byte(line), &r) != nil {
				continue
			}
			if ok, _ := r["ok"].(bool); !ok {
				t.Errorf("meshcheck rejects %v", line)
			}
		}
		if err != nil && !t.Failed() {
			t.Errorf("meshcheck failed: %v\n%s", err, out)
		}
		files = files[n:]
	}
}

// outputsUnder lists every file below dir.
func outputsUnder(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// readTree maps each file's path relative to dir to its bytes.
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, p := range outputsUnder(t, dir) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = b
	}
	return m
}
