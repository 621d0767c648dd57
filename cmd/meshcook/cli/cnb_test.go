package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/internal/testkit"
)

func worldProject(t testing.TB) string {
	return filepath.Join(testkit.RepoRoot(t), "testdata", "world", "meshcook.json")
}

// cookWorld cooks the testdata/world project with extra flags into a new
// folder and fails the test unless it exits 0.
func cookWorld(t *testing.T, extra ...string) string {
	t.Helper()
	out := t.TempDir()
	args := append([]string{"cook", worldProject(t), "-o", out}, extra...)
	if code, stdout, stderr := run(t, args...); code != ExitOK {
		t.Fatalf("cook exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	return out
}

// The project cooks into a world that passes meshcheck (blob 0 with its
// overflow blobs, and each overflow blob) and `meshcook validate` (blobs
// and lock).
func TestCookWorldProjectValidates(t *testing.T) {
	out := cookWorld(t)
	files := outputsUnder(t, out)
	var names []string
	for _, f := range files {
		rel, _ := filepath.Rel(out, f)
		names = append(names, filepath.ToSlash(rel))
	}
	sort.Strings(names)
	if want := []string{"data/0", "data/1", "data/2", "world-lock.json"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("outputs %v, want %v (project targets: cnb only; scenes level_one and pad in blobs 1 and 2)", names, want)
	}
	code, stdout, _ := run(t, append([]string{"validate", "--json"}, files...)...)
	if code != ExitOK {
		t.Fatalf("validate exit %d: %s", code, stdout)
	}
	var checks []fileCheck
	if err := json.Unmarshal([]byte(stdout), &checks); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, c := range checks {
		rel, _ := filepath.Rel(out, c.File)
		kinds[filepath.ToSlash(rel)] = c.Kind
	}
	if kinds["data/0"] != "cnb" || kinds["data/2"] != "cnb" || kinds["world-lock.json"] != "lock" {
		t.Errorf("kinds %v", kinds)
	}
	var blobs []string
	for _, f := range files {
		if strings.Contains(filepath.ToSlash(f), "/data/") {
			blobs = append(blobs, f)
		}
	}
	meshcheck(t, blobs)
}

// The cooked bytes of the fixed world are pinned: any change to them must
// be a deliberate format change (go test -run TestCookWorldGolden -update
// rewrites testdata/world/golden.sha256).
func TestCookWorldGolden(t *testing.T) {
	// RGBA8 textures: the golden pins the world's layout, not the Basis
	// encoders' tuning (TestCookWorldProjectValidates cooks the default
	// Basis textures into a world).
	out := cookWorld(t, "--textures", "rgba8")
	var b strings.Builder
	tree := readTree(t, out)
	names := make([]string, 0, len(tree))
	for n := range tree {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sum := sha256.Sum256(tree[n])
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), n)
	}
	golden := filepath.Join(testkit.RepoRoot(t), "testdata", "world", "golden.sha256")
	if *updateDocs { // the package's -update flag
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("cooked world differs from %s (a deliberate change? rerun with -update):\ngot:\n%swant:\n%s", golden, b.String(), want)
	}

	// Blob 0's metadata as text, so a change shows what moved.
	code, dump, stderr := run(t, "inspect", "--dump", filepath.Join(out, "data", "0"))
	if code != ExitOK {
		t.Fatalf("inspect --dump: %s", stderr)
	}
	goldenMeta := filepath.Join(testkit.RepoRoot(t), "testdata", "world", "golden.meta.txt")
	if *updateDocs {
		if err := os.WriteFile(goldenMeta, []byte(dump), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantMeta, err := os.ReadFile(goldenMeta)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if dump != string(wantMeta) {
		t.Errorf("blob 0 metadata differs from %s:\ngot:\n%s\nwant:\n%s", goldenMeta, dump, wantMeta)
	}
}

// The same project gives byte-identical worlds with one worker or four.
func TestCookWorldDeterministic(t *testing.T) {
	a := readTree(t, cookWorld(t, "-j", "1"))
	b := readTree(t, cookWorld(t, "-j", "4"))
	if !reflect.DeepEqual(a, b) {
		t.Error("world bytes depend on -j")
	}
}

// A small ceiling spans several blobs; every one passes validate and
// meshcheck, and the world loads back to the same resources (by stable
// name, kind, handle and bytes) as with the default ceiling.
func TestCookWorldSmallCeiling(t *testing.T) {
	big := cookWorld(t)
	small := cookWorld(t, "--blob-ceiling", "2KiB")
	var blobs []string
	for _, f := range outputsUnder(t, small) {
		if strings.Contains(filepath.ToSlash(f), "/data/") {
			blobs = append(blobs, f)
		}
	}
	if len(blobs) < 5 {
		t.Fatalf("%d blobs under a 2 KiB ceiling, want several", len(blobs))
	}
	if code, stdout, _ := run(t, append([]string{"validate"}, append(blobs, filepath.Join(small, "world-lock.json"))...)...); code != ExitOK {
		t.Fatalf("validate: %s", stdout)
	}
	meshcheck(t, blobs)
	if a, b := worldResources(t, big), worldResources(t, small); !reflect.DeepEqual(a, b) {
		t.Error("the split world's resources differ from the single-ceiling world's")
	}
}

// worldResources reads a world through its lock: "name kind handle" →
// the resource's payload (or data) bytes.
func worldResources(t *testing.T, out string) map[string][]byte {
	t.Helper()
	lb, err := os.ReadFile(filepath.Join(out, cook.WorldLockName))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := cook.ParseWorldLock(lb)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := cook.CheckWorld(out, lock)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[uint32][]byte{}
	for i, bl := range lock.Blobs {
		b, _ := os.ReadFile(filepath.Join(out, bl.Path))
		sections[uint32(i)] = b[16+leU64(b[8:16]):]
	}
	got := map[string][]byte{}
	for _, lr := range lock.Resources {
		for _, r := range meta.Resources {
			if r.Kind.String() == lr.Kind && r.Handle == lr.Handle {
				key := fmt.Sprintf("%s %s %d %s", lr.Name, lr.Kind, lr.Handle, lr.Scene)
				if r.Payload != nil {
					got[key] = sections[r.Payload.BlobIndex][r.Payload.Offset : r.Payload.Offset+r.Payload.Len]
				} else {
					got[key] = r.Data
				}
			}
		}
	}
	if len(got) != len(lock.Resources) {
		t.Fatalf("%d of %d lock resources found in blob 0", len(got), len(lock.Resources))
	}
	return got
}

func leU64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// Bad project files exit 3 naming the file; a project file must be the
// only PATH.
func TestCookProjectErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.gltf"), []byte("{}"), 0o644)
	for _, c := range []struct{ json, want string }{
		{`{"sources": ["*.gltf"`, "unexpected EOF"},
		{`{"sources": ["*.gltf"], "scene": []}`, `unknown field "scene"`},
		{`{"sources": ["[*.gltf"]}`, "syntax error in pattern"},
		{`{"sources": ["*.glb"]}`, "matches no source"},
	} {
		p := filepath.Join(dir, "meshcook.json")
		os.WriteFile(p, []byte(c.json), 0o644)
		code, _, stderr := run(t, "cook", p, "-o", t.TempDir())
		if code != ExitBadInput || !strings.Contains(stderr, p) || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 3 naming %s and %q", c.json, code, stderr, p, c.want)
		}
	}
	code, _, _ := run(t, "cook", worldProject(t), samplesDir(t), "-o", t.TempDir())
	if code != ExitUsage {
		t.Errorf("project plus another PATH: exit %d, want %d", code, ExitUsage)
	}
	code, _, _ = run(t, "cook", worldProject(t), "-o", t.TempDir(), "--blob-ceiling", "lots")
	if code != ExitUsage {
		t.Errorf("bad --blob-ceiling: exit %d, want %d", code, ExitUsage)
	}
}

// Flags given on the command line override the project: --target hmesh
// writes .hmesh files and no world.
func TestCookProjectFlagOverrides(t *testing.T) {
	out := cookWorld(t, "--target", "hmesh", "--lods", "")
	tree := readTree(t, out)
	if _, ok := tree["props/box.hmesh"]; !ok {
		t.Errorf("no props/box.hmesh in %d outputs", len(tree))
	}
	if _, ok := tree["world-lock.json"]; ok {
		t.Error("world written although --target hmesh overrides the project's cnb")
	}
}

// validate catches a changed overflow blob through blob 0 and through the
// lock; inspect lists the world's resources by stable name.
func TestValidateInspectWorld(t *testing.T) {
	out := cookWorld(t)
	blob0 := filepath.Join(out, "data", "0")
	code, stdout, _ := run(t, "inspect", blob0)
	if code != ExitOK || !strings.Contains(stdout, "terrain/hills.heightfield/0") || !strings.Contains(stdout, "physics budget: 2 fixed") {
		t.Errorf("inspect exit %d:\n%s", code, stdout)
	}
	code, stdout, _ = run(t, "inspect", "--json", filepath.Join(out, "world-lock.json"))
	if code != ExitOK || !strings.Contains(stdout, `"name": "levels/one/chair/leather"`) {
		t.Errorf("inspect lock exit %d:\n%s", code, stdout)
	}
	if code, stdout, _ := run(t, "inspect", "--dump", blob0); code != ExitOK || !strings.Contains(stdout, "resources") {
		t.Errorf("inspect --dump exit %d:\n%s", code, stdout)
	}

	// A standalone payload cut out of the world validates and inspects.
	lb, _ := os.ReadFile(filepath.Join(out, "world-lock.json"))
	lock, _ := cook.ParseWorldLock(lb)
	meta, err := cook.CheckWorld(out, lock)
	if err != nil {
		t.Fatal(err)
	}
	b0, _ := os.ReadFile(blob0)
	sec := b0[16+leU64(b0[8:16]):]
	loc := meta.Resources[0].Payload
	pl := filepath.Join(t.TempDir(), "chair.payload")
	os.WriteFile(pl, sec[loc.Offset:loc.Offset+loc.Len], 0o644)
	if loc.BlobIndex == 0 {
		if code, stdout, _ := run(t, "validate", pl); code != ExitOK {
			t.Errorf("validate payload: %s", stdout)
		}
		if code, stdout, _ := run(t, "inspect", pl); code != ExitOK || !strings.Contains(stdout, "static mesh payload") {
			t.Errorf("inspect payload exit %d: %s", code, stdout)
		}
	}

	b1 := filepath.Join(out, "data", "1")
	orig, _ := os.ReadFile(b1)
	bad := bytes.Clone(orig)
	bad[len(bad)-3] = 0x7f // a vertex float becomes NaN-ish or an index goes out of range
	bad[len(bad)-4] = 0xff
	os.WriteFile(b1, bad, 0o644)
	for _, f := range []string{blob0, filepath.Join(out, "world-lock.json")} {
		if code, stdout, _ := run(t, "validate", f); code != ExitBadInput || !strings.Contains(stdout, "FAIL") {
			t.Errorf("validate %s after corrupting data/1: exit %d\n%s", f, code, stdout)
		}
	}
}

// validate and inspect recognise cache segments (CNC magic) and skinned
// payloads (SKMV magic) and refuse a truncated world blob with its offset.
func TestValidateInspectCacheAndSkinned(t *testing.T) {
	dir := t.TempDir()
	seg, err := cnb.EncodeCache(&cnb.CacheMeta{Toolchain: "test", Entries: []cnb.CacheEntry{{Kind: cnb.CachePayload, Key: "k", Offset: 0, Len: 3}}}, []byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	segPath := filepath.Join(dir, "segment.cnc")
	os.WriteFile(segPath, seg, 0o644)
	sk, err := payload.EncodeSkinned(&payload.Skinned{
		Vertices: []payload.SkinnedVertex{{Weights: [4]float32{1}}, {Weights: [4]float32{1}}, {Weights: [4]float32{1}}},
		Indices:  []uint16{0, 1, 2},
		Joints:   []payload.Joint{{Name: "root", Parent: -1, Scale: [3]float32{1, 1, 1}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	skPath := filepath.Join(dir, "rig.bin") // recognised by magic, not extension
	os.WriteFile(skPath, sk, 0o644)
	code, stdout, _ := run(t, "validate", "--json", segPath, skPath)
	if code != ExitOK || !strings.Contains(stdout, `"kind": "cnb_cache"`) || !strings.Contains(stdout, `"kind": "skmv"`) {
		t.Errorf("validate exit %d:\n%s", code, stdout)
	}
	if code, stdout, _ := run(t, "inspect", segPath); code != ExitOK || !strings.Contains(stdout, `toolchain "test", 1 entries`) {
		t.Errorf("inspect cache exit %d:\n%s", code, stdout)
	}
	if code, stdout, _ := run(t, "inspect", skPath); code != ExitOK || !strings.Contains(stdout, "1 joints") {
		t.Errorf("inspect skinned exit %d:\n%s", code, stdout)
	}

	out := cookWorld(t)
	b0, _ := os.ReadFile(filepath.Join(out, "data", "0"))
	cut := filepath.Join(dir, "0")
	os.WriteFile(cut, b0[:40], 0o644)
	code, stdout, _ = run(t, "validate", cut)
	if code != ExitBadInput || !strings.Contains(stdout, "cnb: offset 0x") {
		t.Errorf("truncated blob: exit %d:\n%s", code, stdout)
	}
}

// `inspect --json` of a world blob: the field names are a contract.
func TestInspectWorldJSONFields(t *testing.T) {
	out := cookWorld(t)
	code, stdout, _ := run(t, "inspect", "--json", filepath.Join(out, "data", "0"))
	if code != ExitOK {
		t.Fatalf("inspect exit %d", code)
	}
	var s map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"file", "kind", "kinds", "maxBlobIndex", "payloadBytes", "physicsBudget", "resources", "sceneGroups"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("fields %v, want %v", keys, want)
	}
	var res []map[string]any
	json.Unmarshal(s["resources"], &res)
	if len(res) == 0 || res[0]["name"] != "levels/one/chair/0" {
		t.Errorf("resources not by stable name: %v", res)
	}
	var rk []string
	for k := range res[0] {
		rk = append(rk, k)
	}
	sort.Strings(rk)
	if want := []string{"blob", "bytes", "handle", "kind", "name", "offset"}; !reflect.DeepEqual(rk, want) {
		t.Errorf("resource fields %v, want %v", rk, want)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]uint64{"0": 0, "4096": 4096, "2KiB": 2048, "12 MiB": 12 << 20, "1GiB": 1 << 30} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "-1", "1.5GiB", "1GB", "99999999999GiB"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
	for _, v := range []uint64{0, 1, 1023, 1024, 3 << 20, 1 << 30, 5<<30 + 1} {
		if got, err := parseSize(formatSize(v)); err != nil || got != v {
			t.Errorf("formatSize(%d) = %q reads back as %d, %v", v, formatSize(v), got, err)
		}
	}
}
