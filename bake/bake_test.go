package bake

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/tessellate"
)

var example = filepath.Join("..", "testdata", "catalog", "buildings.json")

func bakeExample(t *testing.T) ([]byte, Report) {
	t.Helper()
	b, rep, err := Bake(context.Background(), example, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return b, rep
}

// The example catalog bakes to a valid pack holding every entry/state,
// with fewer triangles than the authors' counts and per-material ranges.
func TestBakeExample(t *testing.T) {
	b, rep := bakeExample(t)
	p, err := meshpack.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !meshpack.IsCompressed(b) || p.Family != meshpack.Static {
		t.Fatalf("not a zstd static pack")
	}
	want := []string{"roman_home/intact", "roman_home/damaged", "watch_tower/intact", "watch_tower/damaged",
		"well/intact", "well/damaged", "palisade_gate/intact", "palisade_gate/open", "palisade_gate/damaged"}
	if len(p.Entries) != len(want) || len(rep.Entries) != len(want) {
		t.Fatalf("%d entries, %d report lines, want %d", len(p.Entries), len(rep.Entries), len(want))
	}
	sumBefore, sumAfter := 0, 0
	for i, e := range p.Entries {
		r := rep.Entries[i]
		if e.Name != want[i] || r.Name != want[i] {
			t.Errorf("entry %d is %q (report %q), want %q", i, e.Name, r.Name, want[i])
		}
		if r.TrianglesAfter != len(e.Indices)/3 || r.Vertices != len(e.Static) {
			t.Errorf("%s: report says %d tris/%d verts, pack holds %d/%d", e.Name, r.TrianglesAfter, r.Vertices, len(e.Indices)/3, len(e.Static))
		}
		if r.TrianglesAfter > r.TrianglesBefore {
			t.Errorf("%s: %d → %d triangles", e.Name, r.TrianglesBefore, r.TrianglesAfter)
		}
		sumBefore += r.TrianglesBefore
		sumAfter += r.TrianglesAfter
		checkRanges(t, &e)
	}
	if sumBefore != rep.TrianglesBefore || sumAfter != rep.TrianglesAfter {
		t.Errorf("totals %d → %d, entries sum to %d → %d", rep.TrianglesBefore, rep.TrianglesAfter, sumBefore, sumAfter)
	}
	// Pinned: a change here is a change to tessellation or to the catalog
	// (and docs/catalog.md quotes these numbers).
	if rep.TrianglesBefore != 96032 || rep.TrianglesAfter != 60112 {
		t.Errorf("example catalog: %d → %d triangles, pinned 96032 → 60112", rep.TrianglesBefore, rep.TrianglesAfter)
	}
	// Parts whose authors asked for too few segments keep the request and
	// are counted; the bound says how far they are off.
	if limited := rep.MaxBound > DefaultOptions().Tolerance; limited != (rep.LimitedParts > 0) {
		t.Errorf("%d limited parts, max bound %.5f m", rep.LimitedParts, rep.MaxBound)
	}
	t.Logf("example catalog: %d → %d triangles (%.2f× fewer)", rep.TrianglesBefore, rep.TrianglesAfter, rep.Reduction)
}

// checkRanges: ranges tile the indices in ascending material order, and
// every vertex a range uses carries that range's material id.
func checkRanges(t *testing.T, e *meshpack.Entry) {
	t.Helper()
	next := uint32(0)
	last := float32(-1)
	for k, r := range e.Ranges {
		if r.FirstIndex != next || r.IndexCount == 0 || r.IndexCount%3 != 0 {
			t.Errorf("%s: range %d %+v does not follow index %d", e.Name, k, r, next)
		}
		id := e.Static[e.Indices[r.FirstIndex]].Material[0]
		if id <= last {
			t.Errorf("%s: range %d material %v after %v", e.Name, k, id, last)
		}
		last = id
		for _, x := range e.Indices[r.FirstIndex : r.FirstIndex+r.IndexCount] {
			if e.Static[x].Material[0] != id {
				t.Fatalf("%s: range %d mixes materials", e.Name, k)
			}
		}
		next += r.IndexCount
	}
	if int(next) != len(e.Indices) {
		t.Errorf("%s: ranges cover %d of %d indices", e.Name, next, len(e.Indices))
	}
}

// Baking twice gives the same bytes.
func TestBakeDeterministic(t *testing.T) {
	a, _ := bakeExample(t)
	b, _ := bakeExample(t)
	if !bytes.Equal(a, b) {
		t.Fatal("two bakes of the same catalog differ")
	}
}

// The independent checker accepts the baked pack.
func TestMeshcheckAcceptsBake(t *testing.T) {
	b, rep := bakeExample(t)
	meshcheckPack(t, "buildings.smpk", b, len(rep.Entries), rep.TrianglesAfter)
}

// Check passes on a fresh pack and names the entries a catalog edit
// changes, adds or removes.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	cat := filepath.Join(dir, "c.json")
	src, err := os.ReadFile(example)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(cat, src, 0o644)
	pack := filepath.Join(dir, "c.smpk")
	b, _, err := Bake(context.Background(), cat, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(pack, b, 0o644)
	res, err := Check(context.Background(), cat, pack, DefaultOptions())
	if err != nil || !res.OK() || !res.Identical {
		t.Fatalf("fresh pack: %+v, %v", res.Diffs, err)
	}
	// Widen the well's shaft: both well states change, nothing else.
	edited := strings.Replace(string(src), `"scale": [ 1.9, 0.9, 1.9 ]`, `"scale": [ 2.0, 0.9, 2.0 ]`, 1)
	if edited == string(src) {
		t.Fatal("edit did not apply")
	}
	os.WriteFile(cat, []byte(edited), 0o644)
	res, err = Check(context.Background(), cat, pack, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if got := diffNames(res); got != "well/intact well/damaged" {
		t.Errorf("after editing the well: diffs %q", got)
	}
	// A missing pack differs in every entry.
	res, _ = Check(context.Background(), cat, filepath.Join(dir, "none.smpk"), DefaultOptions())
	if len(res.Diffs) != 9 || res.Diffs[0].Reason != "missing from the pack" {
		t.Errorf("missing pack: %+v", res.Diffs)
	}
	// A different tolerance changes the round entries.
	res, _ = Check(context.Background(), example, pack, Options{Tolerance: 0.01})
	if res.OK() {
		t.Error("a 1 cm bake equals the 1.5 mm pack")
	}
	// A corrupt pack is an error, not a diff.
	os.WriteFile(pack, []byte("SMPK garbage"), 0o644)
	if _, err := Check(context.Background(), cat, pack, DefaultOptions()); !errors.Is(err, meshpack.ErrFormat) {
		t.Errorf("corrupt pack: %v", err)
	}
}

func diffNames(r CheckResult) string {
	var s []string
	for _, d := range r.Diffs {
		s = append(s, d.Name)
	}
	return strings.Join(s, " ")
}

// States resolve extends/drop; the report counts before at the authors'
// segments; a tighter tolerance never gives fewer triangles.
func TestCatalogSemantics(t *testing.T) {
	c, err := ParseCatalog(strings.NewReader(`{"version": 1, "entries": [{"name": "hut", "states": [
		{"name": "intact", "parts": [
			{"name": "post", "primitive": "cylinder", "scale": [0.2, 2, 0.2], "segments": 64},
			{"name": "roof", "primitive": "cone", "translate": [0, 1.5, 0], "scale": [2, 1, 2], "material": 2}]},
		{"name": "damaged", "extends": "intact", "drop": ["roof"], "parts": [
			{"primitive": "sphere", "scale": [0.5, 0.5, 0.5], "segments": 16, "color": [1, 0, 0]}]}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	st := c.Entries[0].States[1]
	if len(st.Parts) != 2 || st.Parts[0].Name != "post" || st.Parts[1].Color != [4]float32{1, 0, 0, 1} {
		t.Fatalf("damaged parts %+v", st.Parts)
	}
	if c.Entries[0].States[0].Parts[1].Shape.Segments != DefaultSegments {
		t.Error("default segments not applied")
	}
	p, rep, err := BakeCatalog(context.Background(), c, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	post, _ := tessellate.TessellateAt(c.Entries[0].States[0].Parts[0].Shape, 64)
	roof, _ := tessellate.TessellateAt(c.Entries[0].States[0].Parts[1].Shape, 32)
	if want := post.TriangleCount() + roof.TriangleCount(); rep.Entries[0].TrianglesBefore != want {
		t.Errorf("before = %d, want %d", rep.Entries[0].TrianglesBefore, want)
	}
	if len(p.Entries[0].Ranges) != 2 || len(p.Entries[1].Ranges) != 1 {
		t.Errorf("ranges %v / %v", p.Entries[0].Ranges, p.Entries[1].Ranges)
	}
	_, fine, _ := BakeCatalog(context.Background(), c, Options{Tolerance: 0.0002})
	if fine.TrianglesAfter < rep.TrianglesAfter {
		t.Errorf("0.2 mm: %d triangles, 1.5 mm: %d", fine.TrianglesAfter, rep.TrianglesAfter)
	}
	if _, _, err := BakeCatalog(context.Background(), c, Options{}); err == nil {
		t.Error("zero tolerance accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := BakeCatalog(ctx, c, DefaultOptions()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled bake: %v", err)
	}
}

// Each bad catalog fails with a CatalogError saying where.
func TestInvalidCatalogs(t *testing.T) {
	part := `{"primitive": "box"}`
	wrap := func(states string) string {
		return `{"version": 1, "entries": [{"name": "a", "states": [` + states + `]}]}`
	}
	one := func(p string) string { return wrap(`{"name": "s", "parts": [` + p + `]}`) }
	cases := []struct{ name, src, want string }{
		{"syntax", `{"version": 1, "entries": [}`, "byte 28"},
		{"no version", `{"entries": []}`, "version: missing"},
		{"version 2", `{"version": 2, "entries": []}`, "version: 2, want 1"},
		{"unknown field", one(`{"primitive": "box", "colour": [1,1,1]}`), `unknown field "colour"`},
		{"unknown primitive", one(`{"primitive": "cube"}`), `parts[0]: tessellate: unknown primitive "cube"`},
		{"bad name", `{"version": 1, "entries": [{"name": "A/B", "states": []}]}`, `entries[0] "A/B": name must match`},
		{"dup entry", `{"version": 1, "entries": [{"name": "a", "states": [{"name": "s", "parts": [` + part + `]}]}, {"name": "a", "states": []}]}`, "duplicate of entries[0]"},
		{"no states", `{"version": 1, "entries": [{"name": "a", "states": []}]}`, "no states"},
		{"no parts", wrap(`{"name": "s", "parts": []}`), "no parts"},
		{"dup state", wrap(`{"name": "s", "parts": [` + part + `]}, {"name": "s", "parts": [` + part + `]}`), "duplicate state"},
		{"extends later", wrap(`{"name": "s", "extends": "t", "parts": [` + part + `]}, {"name": "t", "parts": [` + part + `]}`), `extends "t"`},
		{"drop missing", wrap(`{"name": "s", "parts": [` + part + `]}, {"name": "t", "extends": "s", "drop": ["x"]}`), `drop "x"`},
		{"drop alone", wrap(`{"name": "s", "drop": ["x"], "parts": [` + part + `]}`), "drop without extends"},
		{"dup part", one(`{"name": "p", "primitive": "box"}, {"name": "p", "primitive": "box"}`), `two parts named "p"`},
		{"segments 2", one(`{"primitive": "sphere", "segments": 2}`), "segments 2 outside"},
		{"matrix and scale", one(`{"primitive": "box", "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0], "scale": [1,1,1]}`), "exclusive"},
		{"singular", one(`{"primitive": "box", "scale": [1, 0, 1]}`), "singular"},
		{"huge", one(`{"primitive": "box", "translate": [1e9, 0, 0]}`), "beyond"},
		{"top on box", one(`{"primitive": "box", "top": 0.5}`), `"top" applies to tapered_cylinder only`},
		{"torus tube", one(`{"primitive": "torus", "tube": 0.4}`), "tube 0.4 outside"},
		{"color", one(`{"primitive": "box", "color": [1, 1]}`), "2 components"},
		{"negative color", one(`{"primitive": "box", "color": [1, -1, 1]}`), "color[1]"},
		{"material", one(`{"primitive": "box", "material": -1}`), "material -1"},
		{"palette", one(`{"primitive": "box", "palette": 300}`), "palette 300"},
		{"trailing", `{"version": 1, "entries": []} {}`, "data after"},
		{"wrong type", `{"version": "1"}`, "byte"},
	}
	for _, c := range cases {
		_, err := ParseCatalog(strings.NewReader(c.src))
		var ce *CatalogError
		if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bake: catalog: ") {
			t.Errorf("%s: error %v, want a CatalogError containing %q", c.name, err, c.want)
		}
	}
}

// Right-angle rotations are exact, so a rotated box keeps exact extents.
func TestRightAngleRotationExact(t *testing.T) {
	for _, deg := range []float64{0, 90, 180, 270, -90, 360, 450} {
		c, s := sinCosDeg(deg)
		if c*c+s*s != 1 || (c != 0 && s != 0) {
			t.Errorf("%v°: cos %v sin %v", deg, c, s)
		}
	}
}

// A rigged catalog bakes to an .rmpk whose vertices carry each part's
// bones, weights and colour role, under <species>/<lod>/<skin>/<archetype>
// keys.
func TestBakeRiggedExample(t *testing.T) {
	path := filepath.Join("..", "testdata", "catalog", "equipment.json")
	b, rep, err := Bake(context.Background(), path, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, err := meshpack.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if p.Family != meshpack.Rigged || rep.Family != "rigged" {
		t.Fatalf("family %s / report %q", p.Family, rep.Family)
	}
	names := []string{"humanoid/0/3/troops/roman/swordsman", "humanoid/0/3/troops/roman/spearman", "humanoid/1/3/troops/roman/swordsman"}
	for i, e := range p.Entries {
		if e.Name != names[i] {
			t.Errorf("entry %d %q, want %q", i, e.Name, names[i])
		}
		if len(e.Static) != 0 || len(e.Rigged) == 0 {
			t.Fatalf("%s: %d static, %d rigged vertices", e.Name, len(e.Static), len(e.Rigged))
		}
		blended := 0
		for _, v := range e.Rigged {
			var sum float32
			for _, w := range v.BoneWeights {
				sum += w
			}
			if sum != 1 {
				t.Fatalf("%s: weights sum to %v", e.Name, sum)
			}
			if v.BoneWeights[1] > 0 {
				blended++
				if v.BoneIndices != [4]uint8{0, 2, 0, 0} || v.ColorRole != 3 {
					t.Fatalf("%s: belt vertex %+v", e.Name, v)
				}
			}
		}
		if blended == 0 {
			t.Errorf("%s: no belt vertices blend two joints", e.Name)
		}
	}
	if len(p.Entries) != len(names) || rep.TrianglesAfter >= rep.TrianglesBefore {
		t.Errorf("%d entries, %d → %d triangles", len(p.Entries), rep.TrianglesBefore, rep.TrianglesAfter)
	}
	t.Logf("equipment catalog: %d → %d triangles (%.2f× fewer)", rep.TrianglesBefore, rep.TrianglesAfter, rep.Reduction)
	// A static pack is a family mismatch for --check, not an error.
	static, _ := bakeExample(t)
	res, err := ComparePacks(static, b)
	if err != nil || res.OK() || !strings.Contains(res.Diffs[0].Reason, "the pack is static") {
		t.Errorf("static vs rigged: %+v %v", res.Diffs, err)
	}
}

func TestInvalidRiggedParts(t *testing.T) {
	one := func(family, p string) string {
		return `{"version": 1, "family": "` + family + `", "entries": [{"name": "a/0", "states": [{"name": "s", "parts": [` + p + `]}]}]}`
	}
	cases := []struct{ name, src, want string }{
		{"bone in static", one("static", `{"primitive": "box", "bone": 1}`), `need "family": "rigged"`},
		{"no bone", one("rigged", `{"primitive": "box"}`), "needs bone or bones"},
		{"both", one("rigged", `{"primitive": "box", "bone": 1, "bones": [[1, 1]]}`), "exclusive"},
		{"bone 256", one("rigged", `{"primitive": "box", "bone": 256}`), "bone 256 outside"},
		{"five", one("rigged", `{"primitive": "box", "bones": [[0,0.2],[1,0.2],[2,0.2],[3,0.2],[4,0.2]]}`), "5 bone influences"},
		{"sum", one("rigged", `{"primitive": "box", "bones": [[0, 0.5], [1, 0.4]]}`), "sum to 0.9"},
		{"fraction bone", one("rigged", `{"primitive": "box", "bones": [[0.5, 1]]}`), "not an integer"},
		{"color", one("rigged", `{"primitive": "box", "bone": 0, "color": [1, 0, 0]}`), "use role"},
		{"role", one("rigged", `{"primitive": "box", "bone": 0, "role": 300}`), "role 300"},
		{"family", one("skinned", `{"primitive": "box"}`), `family: "skinned"`},
	}
	for _, c := range cases {
		_, err := ParseCatalog(strings.NewReader(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}
