package cnb

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// meshcheckScript returns ../shared/tools/meshcheck.py relative to the
// repository root, or skips the test when it or python3 is missing.
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

// meshcheck runs meshcheck.py --json on paths and returns one result per
// path, failing the test for any file it rejects.
func meshcheck(t *testing.T, paths ...string) []map[string]any {
	t.Helper()
	script := meshcheckScript(t)
	out, _ := exec.Command("python3", append([]string{script, "--json"}, paths...)...).CombinedOutput()
	var res []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("meshcheck output %q: %v", out, err)
		}
		if r["ok"] != true {
			t.Errorf("meshcheck rejects %s: %v", r["file"], r["error"])
		}
		res = append(res, r)
	}
	if len(res) != len(paths) {
		t.Fatalf("meshcheck gave %d results for %d files:\n%s", len(res), len(paths), out)
	}
	return res
}

// writeWorld writes blob images as dir/data/0, 1, … and returns the paths.
func writeWorld(t *testing.T, blobs [][]byte) []string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, b := range blobs {
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// hexLines renders b as lowercase hex, 16 bytes per line.
func hexLines(b []byte) string {
	var sb strings.Builder
	for len(b) > 0 {
		n := min(16, len(b))
		sb.WriteString(hex.EncodeToString(b[:n]))
		sb.WriteByte('\n')
		b = b[n:]
	}
	return sb.String()
}

func parseHexLines(t *testing.T, s string) []byte {
	t.Helper()
	var out []byte
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		b, err := hex.DecodeString(line)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// golden compares b with testdata/name (hex), rewriting it under -update.
func golden(t *testing.T, name string, b []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(hexLines(b)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if w := parseHexLines(t, string(want)); !bytes.Equal(w, b) {
		t.Errorf("%s: bytes differ from the pinned golden file (a deliberate format change needs -update)", name)
	}
}
