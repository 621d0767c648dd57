package cli

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/internal/testkit"
)

func samplesDir(t testing.TB) string {
	return filepath.Join(testkit.RepoRoot(t), "testdata", "samples")
}

// The README's first command works and every output passes both our own
// validator and the independent reader written from the spec.
func TestCookSamplesValidates(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := run(t, "cook", samplesDir(t), "-o", out)
	if code != ExitOK {
		t.Fatalf("cook exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	want := []string{"box.hmat", "box.hmesh", "box/checker.ktx2", "models/chair.hmat", "models/chair.hmesh", "strips.hmat", "strips.hmesh", "terrain.hmat", "terrain.hmesh"}
	var got []string
	for name := range readTree(t, out) {
		got = append(got, name)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("outputs %v, want %v", got, want)
	}
	if !strings.Contains(stderr, "strips.glb") || !strings.Contains(stderr, "1 points/lines") {
		t.Errorf("expected one counted warning for the POINTS primitive in strips.glb, stderr: %s", stderr)
	}
	files := outputsUnder(t, out)
	code, stdout, _ = run(t, append([]string{"validate"}, files...)...)
	if code != ExitOK {
		t.Fatalf("validate exit %d: %s", code, stdout)
	}
	meshcheck(t, files)
}

// formats.md's chair example: materials ["Wood","","Leather","Wood"], the
// seat uses 2 and the legs 0, so MTRL holds leather then material_0, and the
// seat's submesh gets slot 0.
func TestCookChairMaterialRefs(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, "cook", samplesDir(t), "-o", out); code != ExitOK {
		t.Fatalf("cook: %s", stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "models", "chair.hmesh"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := hmesh.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	fnv64 := func(s string) uint64 { h := fnv.New64a(); h.Write([]byte(s)); return h.Sum64() }
	want := []uint64{fnv64("models/chair/leather"), fnv64("models/chair/material_0")}
	if !reflect.DeepEqual(f.Materials, want) {
		t.Errorf("MTRL = %x, want %x", f.Materials, want)
	}
	if len(f.Submeshes) != 2 { // the seat, and the four legs merged into one draw
		t.Fatalf("%d submeshes, want 2", len(f.Submeshes))
	}
	if f.Submeshes[0].MaterialSlot != 0 || f.Submeshes[1].MaterialSlot != 1 {
		t.Errorf("slots %d, %d; want 0, 1", f.Submeshes[0].MaterialSlot, f.Submeshes[1].MaterialSlot)
	}
	hm, err := os.ReadFile(filepath.Join(out, "models", "chair.hmat"))
	if err != nil {
		t.Fatal(err)
	}
	if len(hm) != 16+96*2 || binary.LittleEndian.Uint32(hm[8:]) != 2 {
		t.Errorf(".hmat is %d bytes with count %d, want 2 rows", len(hm), binary.LittleEndian.Uint32(hm[8:]))
	}
}

// The mirrored leg (negative x scale) keeps its triangles facing outwards:
// every triangle of the chair's legs faces away from the leg's centre
// (--keep-nodes: one submesh per leg, so each submesh's centre is its leg's).
func TestCookMirroredNodeKeepsOutwardWinding(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, "cook", filepath.Join(samplesDir(t), "models", "chair.glb"), "-o", out, "--keep-nodes"); code != ExitOK {
		t.Fatalf("cook: %s", stderr)
	}
	b, _ := os.ReadFile(filepath.Join(out, "chair.hmesh"))
	f, err := hmesh.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for s, sm := range f.Submeshes {
		c := sm.Bounds.Center
		for i := sm.FirstIndex; i < sm.FirstIndex+sm.IndexCount; i += 3 {
			p0 := f.Vertices[f.Indices[i]].Position
			p1 := f.Vertices[f.Indices[i+1]].Position
			p2 := f.Vertices[f.Indices[i+2]].Position
			e1 := [3]float32{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}
			e2 := [3]float32{p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]}
			n := [3]float32{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
			out := (p0[0]-c[0])*n[0] + (p0[1]-c[1])*n[1] + (p0[2]-c[2])*n[2]
			if out <= 0 {
				t.Fatalf("submesh %d triangle %d faces inwards", s, (i-sm.FirstIndex)/3)
			}
		}
	}
}

// `cook --json` field names are a contract for build tools.
func TestCookJSONFieldNames(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := run(t, "cook", samplesDir(t), "-o", out, "--json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout)
	}
	keys := func(raw json.RawMessage) []string {
		var arr []map[string]any
		if err := json.Unmarshal(raw, &arr); err != nil || len(arr) == 0 {
			t.Fatalf("want a non-empty array, got %s", raw)
		}
		var k []string
		for name := range arr[0] {
			k = append(k, name)
		}
		sort.Strings(k)
		return k
	}
	var top []string
	for k := range rep {
		top = append(top, k)
	}
	sort.Strings(top)
	checks := []struct {
		what string
		got  []string
		want []string
	}{
		{"top level", top, []string{"bytesWritten", "cacheHits", "cacheMisses", "dropped", "errors", "meshes", "outputs", "stages", "warnings"}},
		{"outputs", keys(rep["outputs"]), []string{"bytes", "changed", "inputs", "kind", "name", "path", "xxh3"}},
		{"stages", keys(rep["stages"]), []string{"ms", "name"}},
		{"meshes", keys(rep["meshes"]), []string{"avgMeshletTris", "avgMeshletVerts", "clips", "degenerateDropped", "draws", "drawsBefore", "generatedNormals", "generatedTangents", "joints", "lods", "meshlets", "name", "source", "submeshes", "textures", "triangles", "vertices"}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s fields %v, want %v", c.what, c.got, c.want)
		}
	}
	var meshes []struct{ Lods []map[string]any }
	json.Unmarshal(rep["meshes"], &meshes)
	if len(meshes) == 0 || len(meshes[0].Lods) != 2 {
		t.Fatalf("want 2 default LOD levels per mesh, got %s", rep["meshes"])
	}
	var lodKeys []string
	for k := range meshes[0].Lods[0] {
		lodKeys = append(lodKeys, k)
	}
	sort.Strings(lodKeys)
	if want := []string{"error", "ratio", "short", "sloppy", "stalled", "triangles"}; !reflect.DeepEqual(lodKeys, want) {
		t.Errorf("lods fields %v, want %v", lodKeys, want)
	}
	var stages []struct{ Name string }
	json.Unmarshal(rep["stages"], &stages)
	var names []string
	for _, s := range stages {
		names = append(names, s.Name)
	}
	if want := []string{"import", "canonicalize", "reorder", "lods", "meshlets", "bounds", "textures", "pack", "validate", "write"}; !reflect.DeepEqual(names, want) {
		t.Errorf("stages %v, want %v", names, want)
	}
}

// Same inputs give byte-identical outputs: twice, and with 1 or 4 workers.
func TestCookDeterministic(t *testing.T) {
	var trees []map[string][]byte
	for _, j := range []string{"1", "4", "4"} {
		out := t.TempDir()
		if code, _, stderr := run(t, "cook", samplesDir(t), "-o", out, "-j", j); code != ExitOK {
			t.Fatalf("cook -j %s: %s", j, stderr)
		}
		trees = append(trees, readTree(t, out))
	}
	for i := 1; i < len(trees); i++ {
		if !reflect.DeepEqual(trees[0], trees[i]) {
			t.Fatalf("cook %d differs from cook 0", i)
		}
	}
}

// A second cook of unchanged sources rewrites nothing: outputs report
// changed=false and keep their modification time.
func TestCookUnchangedOutputsNotRewritten(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, "cook", samplesDir(t), "-o", out); code != ExitOK {
		t.Fatal(stderr)
	}
	p := filepath.Join(out, "box.hmesh")
	old := time.Unix(1_000_000_000, 0)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "cook", samplesDir(t), "-o", out, "--json")
	if code != ExitOK {
		t.Fatal(stderr)
	}
	if strings.Contains(stdout, `"changed": true`) {
		t.Errorf("second cook reports changed outputs:\n%s", stdout)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !st.ModTime().Equal(old) {
		t.Errorf("box.hmesh was rewritten (mtime %v)", st.ModTime())
	}
}

func TestExitCodes(t *testing.T) {
	tmp := t.TempDir()
	garbage := filepath.Join(tmp, "garbage.hmesh")
	os.WriteFile(garbage, []byte("HMSH\x02\x00\x00\x00 not really"), 0o644)
	blocker := filepath.Join(tmp, "file")
	os.WriteFile(blocker, []byte("x"), 0o644)
	badSource := filepath.Join(tmp, "broken.gltf")
	os.WriteFile(badSource, []byte(`{"asset":{"version":"2.0"},"meshes":[{"primitives":[{"attributes":{}}]}],"nodes":[{"mesh":0}]}`), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		msg  string // substring of stderr
	}{
		{"no args", []string{"cook"}, ExitUsage, "at least one"},
		{"missing -o", []string{"cook", samplesDir(t)}, ExitUsage, "-o DIR is required"},
		{"unknown flag", []string{"cook", "--nope"}, ExitUsage, "unknown flag"},
		{"unknown command", []string{"bake-a-cake"}, ExitUsage, "unknown command"},
		{"bad meshlet limit", []string{"cook", samplesDir(t), "-o", tmp, "--meshlet-verts", "300"}, ExitUsage, ""},
		{"missing source", []string{"cook", filepath.Join(tmp, "nope.glb"), "-o", tmp}, ExitBadInput, "nope.glb"},
		{"broken source", []string{"cook", badSource, "-o", filepath.Join(tmp, "o1")}, ExitBadInput, "broken.gltf"},
		{"validate garbage", []string{"validate", garbage}, ExitBadInput, ""},
		{"inspect garbage", []string{"inspect", garbage}, ExitBadInput, "garbage.hmesh"},
		{"output under a file", []string{"cook", samplesDir(t), "-o", filepath.Join(blocker, "out")}, ExitOutput, ""},
		{"version", []string{"version"}, ExitOK, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := run(t, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, stdout, stderr)
			}
			if !strings.Contains(stderr, c.msg) {
				t.Errorf("stderr %q does not mention %q", stderr, c.msg)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tmp, "o1")); err == nil && len(outputsUnder(t, filepath.Join(tmp, "o1"))) > 0 {
		t.Errorf("a failed source left outputs behind")
	}
}

// inspect shows what a cooked file holds; --dump is stable text.
func TestInspect(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, "cook", samplesDir(t), "-o", out); code != ExitOK {
		t.Fatal(stderr)
	}
	p := filepath.Join(out, "box.hmesh")
	code, stdout, _ := run(t, "inspect", p)
	if code != ExitOK || !strings.Contains(stdout, "triangles 12") || !strings.Contains(stdout, "meshlets 1") {
		t.Errorf("inspect: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, "inspect", p, "--json")
	var s map[string]any
	if code != ExitOK || json.Unmarshal([]byte(stdout), &s) != nil || s["triangles"] != float64(12) {
		t.Errorf("inspect --json: exit %d\n%s", code, stdout)
	}
	// Terrain gets two reduced levels; inspect measures their error.
	code, stdout, _ = run(t, "inspect", filepath.Join(out, "terrain.hmesh"), "--json")
	var ts struct {
		Triangles int
		Lods      []struct {
			Level, Triangles int
			Error            float64
		}
	}
	if code != ExitOK || json.Unmarshal([]byte(stdout), &ts) != nil || len(ts.Lods) != 2 {
		t.Fatalf("inspect terrain --json: exit %d\n%s", code, stdout)
	}
	for i, l := range ts.Lods {
		prev := ts.Triangles
		if i > 0 {
			prev = ts.Lods[i-1].Triangles
		}
		if l.Level != i+1 || l.Triangles >= prev || l.Error <= 0 || l.Error > 0.05 {
			t.Errorf("LOD%d: %+v (previous level %d triangles)", i+1, l, prev)
		}
	}
	_, d1, _ := run(t, "inspect", p, "--dump")
	_, d2, _ := run(t, "inspect", p, "--dump")
	if d1 == "" || d1 != d2 {
		t.Errorf("dump empty or unstable")
	}
	if !bytes.Contains([]byte(d1), []byte("MLET")) && !bytes.Contains([]byte(strings.ToLower(d1)), []byte("meshlet")) {
		t.Errorf("dump does not show meshlets:\n%s", d1)
	}
}
