package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refreshSrc has duplicate normals (2 -> 1) and positions (4 -> 3), LF
// line endings and a comment outside the lists.
const refreshSrc = "// hero mesh\nmesh asset;\n\nasset.positions = [\n    [0, 0, 0],\n    [1, 0, 0],\n    [0, 1, 0],\n    [1, 0, 0],\n];\nasset.normals = [[0, 0, 1], [0, 0, 1]];\nasset.tangents = [[1, 0, 0, 1]];\nasset.uv0 = [[0, 0]];\nasset.colors = [[1, 1, 1, 1]];\nasset.vertex_refs = [[0, 0, 0, 0, 0], [1, 1, 0, 0, 0], [2, 0, 0, 0, 0], [3, 1, 0, 0, 0]];\nasset.indices = [[0, 1, 2], [1, 3, 2]];\n"

const refreshWant = "// hero mesh\nmesh asset;\n\nasset.positions = [\n    [0, 0, 0],\n    [0, 1, 0],\n    [1, 0, 0],\n];\nasset.normals = [\n    [0, 0, 1],\n];\nasset.tangents = [[1, 0, 0, 1]];\nasset.uv0 = [[0, 0]];\nasset.colors = [[1, 1, 1, 1]];\nasset.vertex_refs = [\n    [0, 0, 0, 0, 0],\n    [2, 0, 0, 0, 0],\n    [1, 0, 0, 0, 0],\n    [2, 0, 0, 0, 0],\n];\nasset.indices = [[0, 1, 2], [1, 3, 2]];\n"

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRefreshInPlaceNeedsForce(t *testing.T) {
	p := writeFile(t, t.TempDir(), "hero.nwb", refreshSrc)
	code, _, stderr := run(t, "refresh", p)
	if code != ExitUsage || !strings.Contains(stderr, "needs --force") {
		t.Fatalf("code %d, stderr %q", code, stderr)
	}
	if readFile(t, p) != refreshSrc {
		t.Fatal("file changed without --force")
	}

	code, stdout, stderr := run(t, "refresh", p, "--force")
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if got := readFile(t, p); got != refreshWant {
		t.Fatalf("refreshed file:\n%s\nwant:\n%s", got, refreshWant)
	}
	for _, want := range []string{"Refreshed " + p, "  input: " + p, "  positions: 4 -> 3", "  normals: 2 -> 1", "  skin: 0 -> 0", "  vertex_refs: 4 -> 4", "  indices: 6 -> 6"} {
		if !strings.Contains(stdout, want+"\n") {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}

	// A second refresh is a no-op and the file keeps its bytes.
	if code, _, stderr := run(t, "refresh", p, "--force"); code != ExitOK || readFile(t, p) != refreshWant {
		t.Fatalf("second refresh: code %d %s", code, stderr)
	}
}

func TestRefreshOutput(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "hero.nwb", refreshSrc)
	out := filepath.Join(dir, "out", "hero.nwb")
	code, stdout, stderr := run(t, "refresh", in, "-o", out)
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if readFile(t, in) != refreshSrc || readFile(t, out) != refreshWant {
		t.Fatal("-o must leave the input alone and write the canonical form")
	}
	if !strings.HasPrefix(stdout, "Refreshed "+out+"\n  input: "+in+"\n") {
		t.Fatalf("report: %q", stdout)
	}
	// An existing output needs --force.
	if code, _, stderr := run(t, "refresh", in, "-o", out); code != ExitUsage || !strings.Contains(stderr, "--force") {
		t.Fatalf("existing -o: code %d %q", code, stderr)
	}
	if code, _, _ := run(t, "refresh", in, "-o", out, "--force"); code != ExitOK {
		t.Fatalf("existing -o with --force: code %d", code)
	}
}

func TestRefreshCheck(t *testing.T) {
	dir := t.TempDir()
	dirty := writeFile(t, dir, "dirty.nwb", refreshSrc)
	clean := writeFile(t, dir, "clean.nwb", refreshWant)

	code, stdout, stderr := run(t, "refresh", "--check", clean)
	if code != ExitOK || stdout != clean+": canonical\n" {
		t.Fatalf("clean: code %d stdout %q stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "refresh", "--check", clean, dirty)
	if code != ExitFailure {
		t.Fatalf("dirty: code %d, want %d", code, ExitFailure)
	}
	for _, want := range []string{dirty + ": not canonical", "  positions: 4 -> 3", "  normals: 2 -> 1", "rewritten: asset.positions, asset.normals, asset.vertex_refs"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "1 of 2 files are not canonical") {
		t.Errorf("stderr: %q", stderr)
	}
	if readFile(t, dirty) != refreshSrc {
		t.Fatal("--check wrote the file")
	}
}

func TestRefreshRejections(t *testing.T) {
	dir := t.TempDir()
	extra := writeFile(t, dir, "extra.nwb", strings.Replace(refreshSrc, "asset.indices", "asset.lightmap = [[0, 0]];\nasset.indices", 1))
	broken := writeFile(t, dir, "broken.nwb", "mesh asset;\nasset.positions = [1, 2 x];\n")
	noMesh := writeFile(t, dir, "skel.nwb", "skeleton asset;\nasset.joints = [{ \"name\": \"root\" }];\n")
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{extra, "--force"}, ExitBadInput, "unsupported field 'asset.lightmap' would be dropped by refresh"},
		{[]string{broken, "--force"}, ExitBadInput, "broken.nwb:2:25: expected ',' or ']' in list, found identifier 'x'"},
		{[]string{noMesh, "--force"}, ExitBadInput, "no mesh declaration"},
		{[]string{filepath.Join(dir, "missing.nwb"), "--force"}, ExitBadInput, "missing.nwb"},
		{[]string{filepath.Join(dir, "hero.fbx"), "--force"}, ExitUsage, "not a .nwb source"},
		{[]string{extra, broken, "-o", filepath.Join(dir, "o.nwb")}, ExitUsage, "-o takes one input"},
		{[]string{extra, "--check", "--force"}, ExitUsage, "--check writes nothing"},
		{[]string{}, ExitUsage, "name at least one .nwb file"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, append([]string{"refresh"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("refresh %v: code %d stderr %q; want code %d containing %q", c.args, code, stderr, c.code, c.msg)
		}
		if n := strings.Count(stderr, "meshcook: "); n != 1 {
			t.Errorf("refresh %v: %d error lines, want the error once: %q", c.args, n, stderr)
		}
	}
	if readFile(t, extra) == "" {
		t.Fatal("rejected file was emptied")
	}
}

// Several failing files: each is printed once, then a summary.
func TestRefreshSeveralFailures(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.nwb", "mesh asset;\nasset.x = 1;\n")
	b := writeFile(t, dir, "b.nwb", "model asset;\n")
	code, _, stderr := run(t, "refresh", a, b, "--force")
	if code != ExitBadInput || !strings.Contains(stderr, "2 of 2 files failed") || strings.Count(stderr, "meshcook: ") != 3 {
		t.Fatalf("code %d stderr %q", code, stderr)
	}
}

// --keep-positions leaves positions alone (a skin in another file indexes
// them); the other streams are still deduplicated.
func TestRefreshKeepPositions(t *testing.T) {
	p := writeFile(t, t.TempDir(), "mesh.nwb", refreshSrc)
	code, stdout, stderr := run(t, "refresh", p, "--force", "--keep-positions")
	if code != ExitOK {
		t.Fatalf("code %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "  positions: 4 -> 4\n") || !strings.Contains(stdout, "  normals: 2 -> 1\n") {
		t.Fatalf("report:\n%s", stdout)
	}
	if got := readFile(t, p); !strings.Contains(got, "asset.positions = [\n    [0, 0, 0],\n    [1, 0, 0],\n    [0, 1, 0],\n    [1, 0, 0],\n];") {
		t.Fatalf("positions were rewritten:\n%s", got)
	}
}

// Issue #19: a refresh killed with -9 left a full-size .hero.nwb.tmp-<digits>
// that no later refresh removed. The next refresh of that file removes the
// temps of writers that are gone (the legacy form, and one of a process
// that has exited) and leaves other files' alone.
func TestRefreshRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "hero.nwb", refreshSrc)
	legacy := writeFile(t, dir, ".hero.nwb.tmp-1234567890", refreshSrc)
	other := writeFile(t, dir, ".villain.nwb.tmp-1234567890", refreshSrc)
	code, _, stderr := run(t, "refresh", p, "--force")
	if code != ExitOK {
		t.Fatalf("refresh: %d %s", code, stderr)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("stale temp %s left: %v", legacy, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another file's temp was removed: %v", err)
	}
	// A refresh that changes nothing still cleans up.
	writeFile(t, dir, ".hero.nwb.tmp-42", "x")
	if code, _, stderr := run(t, "refresh", p, "--force"); code != ExitOK {
		t.Fatalf("second refresh: %d %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".hero.nwb.tmp-42")); !os.IsNotExist(err) {
		t.Errorf("stale temp left after a no-op refresh: %v", err)
	}
}
