package payload

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// meshcheckScript returns the path of ../shared/tools/meshcheck.py relative
// to the repository root, or skips the test when it or python3 is missing.
func meshcheckScript(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: skipping the independent meshcheck.py check")
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Skip("no working directory")
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		if filepath.Dir(dir) == dir {
			t.Skip("repository root not found")
		}
		dir = filepath.Dir(dir)
	}
	script := filepath.Join(dir, "..", "shared", "tools", "meshcheck.py")
	if _, err := os.Stat(script); err != nil {
		t.Skip("../shared/tools/meshcheck.py not found")
	}
	return script
}

// meshcheck writes each payload under its name (the extension selects the
// checker's kind: .payload static, .skmv skinned), runs meshcheck.py --json
// on all of them at once, and returns the parsed result per name.
func meshcheck(t *testing.T, files map[string][]byte) map[string]map[string]any {
	t.Helper()
	script := meshcheckScript(t)
	dir := t.TempDir()
	args := []string{script, "--json"}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	out, _ := exec.Command("python3", args...).CombinedOutput()
	res := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("meshcheck output %q: %v", out, err)
		}
		res[filepath.Base(r["file"].(string))] = r
	}
	for name := range files {
		r, ok := res[name]
		if !ok {
			t.Fatalf("meshcheck said nothing about %s:\n%s", name, out)
		}
		if r["ok"] != true {
			t.Errorf("meshcheck rejects %s: %v", name, r["error"])
		}
	}
	return res
}
