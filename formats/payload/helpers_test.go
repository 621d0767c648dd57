package payload

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

// meshcheck writes each payload under its name (the extension selects the
// checker's kind: .payload static, .skmv skinned), runs meshcheck.py --json
// on all of them at once, and returns the parsed result per name.
func meshcheck(t *testing.T, files map[string][]byte) map[string]map[string]any {
	t.Helper()
	script := testkit.Meshcheck(t)
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
