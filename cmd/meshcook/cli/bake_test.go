package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/internal/testkit"
)

// exampleCatalog copies testdata/catalog/buildings.json into a temp folder
// (tests edit it) and returns its path.
func exampleCatalog(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "testdata", "catalog", "buildings.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "buildings.json")
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// bake writes a valid pack that the independent checker accepts; a second
// bake is byte-identical and leaves the file alone.
func TestBakeWritesValidPack(t *testing.T) {
	cat := exampleCatalog(t)
	out := filepath.Join(t.TempDir(), "sub", "buildings.smpk")
	code, stdout, stderr := run(t, "bake", cat, "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "roman_home/damaged") || !strings.Contains(stdout, "× fewer") || !strings.Contains(stdout, "written") {
		t.Errorf("report:\n%s", stdout)
	}
	first, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := meshpack.Decode(first)
	if err != nil {
		t.Fatalf("reader rejects the pack: %v", err)
	}
	if len(p.Entries) != 9 {
		t.Errorf("%d entries", len(p.Entries))
	}

	st, _ := os.Stat(out)
	code, stdout, _ = run(t, "bake", cat, "-o", out)
	again, _ := os.ReadFile(out)
	st2, _ := os.Stat(out)
	if code != ExitOK || !bytes.Equal(first, again) || !strings.Contains(stdout, "unchanged") || !st2.ModTime().Equal(st.ModTime()) {
		t.Errorf("second bake: exit %d, identical %v, report %q", code, bytes.Equal(first, again), stdout)
	}
	// No temp files left behind.
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("output folder holds %d files", len(entries))
	}
	packMeshcheck(t, out) // last: it skips when the checker cannot run
}

// packMeshcheck runs the independent checker over a pack. meshcheck.py
// needs the zstd command for zstd frames; without it the check is skipped
// (CI installs it: apt-get install zstd).
func packMeshcheck(t *testing.T, files ...string) {
	t.Helper()
	if _, err := exec.LookPath("zstd"); err != nil {
		testkit.Missing(t, "zstd command not found; meshcheck needs it for packs (apt-get install zstd)")
	}
	meshcheck(t, files)
}

// --check passes on a fresh pack, fails with exit 1 naming the entries
// after a catalog edit, and writes nothing.
func TestBakeCheck(t *testing.T) {
	cat := exampleCatalog(t)
	out := filepath.Join(t.TempDir(), "buildings.smpk")
	if code, _, stderr := run(t, "bake", cat, "-o", out); code != ExitOK {
		t.Fatalf("bake: %s", stderr)
	}
	before, _ := os.ReadFile(out)
	code, stdout, stderr := run(t, "bake", cat, "-o", out, "--check")
	if code != ExitOK || !strings.Contains(stdout, "equals a fresh bake") {
		t.Fatalf("fresh pack: exit %d\n%s%s", code, stdout, stderr)
	}
	// Make the watch tower's roof taller.
	src, _ := os.ReadFile(cat)
	edited := strings.Replace(string(src), `"scale": [ 4.2, 1.8, 4.2 ], "segments": 64`, `"scale": [ 4.2, 2.0, 4.2 ], "segments": 64`, 1)
	if edited == string(src) {
		t.Fatal("edit did not apply")
	}
	os.WriteFile(cat, []byte(edited), 0o644)
	code, stdout, stderr = run(t, "bake", cat, "-o", out, "--check")
	if code != ExitFailure {
		t.Fatalf("edited catalog: exit %d, want %d\n%s%s", code, ExitFailure, stdout, stderr)
	}
	if !strings.Contains(stderr, "in 1 entries: watch_tower/intact") || !strings.Contains(stdout, "watch_tower/intact: ") {
		t.Errorf("does not name the differing entry:\nstdout %s\nstderr %s", stdout, stderr)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(before, after) {
		t.Error("--check rewrote the pack")
	}
	// JSON form lists the same entry.
	code, stdout, _ = run(t, "bake", cat, "-o", out, "--check", "--json")
	var res struct {
		OK    bool `json:"ok"`
		Diffs []struct {
			Name   string `json:"name"`
			Reason string `json:"reason"`
		} `json:"diffs"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != ExitFailure || res.OK || len(res.Diffs) != 1 || res.Diffs[0].Name != "watch_tower/intact" {
		t.Errorf("--check --json: exit %d %+v (%v)\n%s", code, res, err, stdout)
	}
	// A missing pack fails the check too.
	code, _, stderr = run(t, "bake", cat, "-o", filepath.Join(t.TempDir(), "none.smpk"), "--check")
	if code != ExitFailure || !strings.Contains(stderr, "in 9 entries") {
		t.Errorf("missing pack: exit %d %s", code, stderr)
	}
}

// --json pins the report's field names.
func TestBakeJSONFields(t *testing.T) {
	cat := exampleCatalog(t)
	out := filepath.Join(t.TempDir(), "b.smpk")
	code, stdout, stderr := run(t, "bake", cat, "-o", out, "--json", "--tolerance", "0.002")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &top); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	var rep map[string]json.RawMessage
	json.Unmarshal(top["report"], &rep)
	var entries []map[string]json.RawMessage
	json.Unmarshal(rep["entries"], &entries)
	if len(entries) == 0 {
		t.Fatalf("no entries:\n%s", stdout)
	}
	got := strings.Join(append(append(keys(top), keys(rep)...), keys(entries[0])...), " ")
	want := "changed output report " +
		"entries family limited_parts max_bound reduction source_triangles sources tolerance triangles_after triangles_before " +
		"limited_parts name parts source_meshes source_triangles triangles_after triangles_before vertices"
	if got != want {
		t.Errorf("JSON fields\n got %s\nwant %s", got, want)
	}
	if string(rep["tolerance"]) != "0.002" {
		t.Errorf("tolerance %s", rep["tolerance"])
	}
}

func keys(m map[string]json.RawMessage) []string {
	var k []string
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// Usage errors exit 2, bad catalogs 3, unwritable outputs 4.
func TestBakeExitCodes(t *testing.T) {
	cat := exampleCatalog(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"version": 1, "entries": [{"name": "a", "states": [{"name": "s", "parts": [{"primitive": "cube"}]}]}]}`), 0o644)
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	corrupt := filepath.Join(dir, "corrupt.smpk")
	os.WriteFile(corrupt, []byte("SMPK\x02\x00\x00\x00"), 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bake"}, ExitUsage, "exactly one catalog"},
		{[]string{"bake", cat}, ExitUsage, "-o OUT.smpk is required"},
		{[]string{"bake", cat, "-o", "x.smpk", "--tolerance", "0"}, ExitUsage, "tolerance 0 m"},
		{[]string{"bake", cat, "-o", "x.smpk", "--tolerance", "abc"}, ExitUsage, "invalid argument"},
		{[]string{"bake", bad, "-o", filepath.Join(dir, "x.smpk")}, ExitBadInput, `unknown primitive "cube"`},
		{[]string{"bake", filepath.Join(dir, "missing.json"), "-o", filepath.Join(dir, "x.smpk")}, ExitBadInput, "no such file"},
		{[]string{"bake", cat, "-o", corrupt, "--check"}, ExitBadInput, "meshpack: offset 0x0"},
		{[]string{"bake", cat, "-o", filepath.Join(blocker, "x.smpk")}, ExitOutput, "bake: "},
	}
	for _, c := range cases {
		code, _, stderr := run(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d containing %q", c.args[1:], code, stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.smpk")); err == nil {
		t.Error("a failed bake wrote its output")
	}
}

// A rigged catalog bakes to an .rmpk that the reader and meshcheck accept.
func TestBakeRigged(t *testing.T) {
	cat := filepath.Join(testkit.RepoRoot(t), "testdata", "catalog", "equipment.json")
	out := filepath.Join(t.TempDir(), "equipment.rmpk")
	code, stdout, stderr := run(t, "bake", cat, "-o", out)
	if code != ExitOK || strings.Contains(stderr, "usually named") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(out)
	p, err := meshpack.Decode(b)
	if err != nil || p.Family != meshpack.Rigged || p.Entries[0].Name != "humanoid/0/3/troops/roman/swordsman" {
		t.Fatalf("pack: %v", err)
	}
	if code, _, _ := run(t, "bake", cat, "-o", out, "--check"); code != ExitOK {
		t.Errorf("--check on a fresh rigged pack: exit %d", code)
	}
	packMeshcheck(t, out)
}

// A rigged catalog with source parts (a skinned glTF beside it) bakes to a
// pack that meshcheck accepts; --check passes, then fails with exit 1
// naming the entries after the source file changes; a source that leaves
// the catalog's folder is bad input.
func TestBakeSourceParts(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "skinned"), 0o755)
	for _, f := range []string{"knight.json", "skinned/knight.gltf"} {
		b, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "testdata", "catalog", filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, filepath.FromSlash(f)), b, 0o644)
	}
	cat := filepath.Join(dir, "knight.json")
	out := filepath.Join(dir, "out", "knight.rmpk")
	code, stdout, stderr := run(t, "bake", cat, "-o", out, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	var res bakeJSON
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Report.SourceTriangles == 0 || res.Report.Family != "rigged" ||
		!slices.Equal(res.Report.Sources, []string{"skinned/knight.gltf"}) {
		t.Fatalf("report %+v (%v)", res.Report, err)
	}
	b, _ := os.ReadFile(out)
	if p, err := meshpack.Decode(b); err != nil || p.Family != meshpack.Rigged || len(p.Entries) != 3 {
		t.Fatalf("pack: %v", err)
	}
	if code, _, stderr := run(t, "bake", cat, "-o", out, "--check"); code != ExitOK {
		t.Fatalf("--check on a fresh pack: exit %d %s", code, stderr)
	}
	src := filepath.Join(dir, "skinned", "knight.gltf")
	gltf, _ := os.ReadFile(src)
	edited := strings.Replace(string(gltf), `"material": 1`, `"material": 0`, 1)
	if edited == string(gltf) {
		t.Fatal("edit did not apply")
	}
	os.WriteFile(src, []byte(edited), 0o644)
	code, _, stderr = run(t, "bake", cat, "-o", out, "--check")
	if code != ExitFailure || !strings.Contains(stderr, "in 2 entries: humanoid/0/1/heroes/knight/base, humanoid/0/1/heroes/knight/armed") {
		t.Errorf("--check after a source edit: exit %d %s", code, stderr)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(after, b) {
		t.Error("--check wrote the pack")
	}
	os.WriteFile(cat, []byte(`{"version": 1, "family": "rigged", "entries": [{"name": "a/0", "states": [{"name": "s", "parts": [{"source": "../knight.gltf"}]}]}]}`), 0o644)
	if code, _, stderr := run(t, "bake", cat, "-o", out); code != ExitBadInput || !strings.Contains(stderr, "leaves the catalog's folder") {
		t.Errorf("escaping source: exit %d %s", code, stderr)
	}
	packMeshcheck(t, out)
}
