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

	"github.com/meshcook/meshcook/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// meshcheck runs meshcheck.py --json on paths and returns one result per
// path, failing the test for any file it rejects.
func meshcheck(t *testing.T, paths ...string) []map[string]any {
	t.Helper()
	script := testkit.Meshcheck(t)
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
