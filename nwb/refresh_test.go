package nwb

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/mesh"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Refresh output against hand-derived goldens, LF and CRLF.
func TestRefreshGolden(t *testing.T) {
	cases := []struct {
		in     string
		before Counts
		after  Counts
	}{
		{"refresh/dups_lf", Counts{4, 4, 4, 4, 4, 0, 4, 6}, Counts{4, 2, 3, 4, 1, 0, 4, 6}},
		{"refresh/dups_crlf", Counts{4, 4, 4, 4, 4, 0, 4, 6}, Counts{4, 2, 3, 4, 1, 0, 4, 6}},
		{"refresh/skinned_dups", Counts{7, 4, 2, 4, 2, 3, 7, 9}, Counts{6, 2, 2, 4, 2, 3, 7, 9}},
	}
	for _, c := range cases {
		src := readTestdata(t, c.in+".nwb")
		want := readTestdata(t, c.in+".golden.nwb")
		got, rep, err := Refresh(src, c.in+".nwb", RefreshOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: refresh output:\n%s", c.in, got)
		}
		if rep.Before != c.before || rep.After != c.after {
			t.Errorf("%s: counts %+v -> %+v, want %+v -> %+v", c.in, rep.Before, rep.After, c.before, c.after)
		}
		// The golden is canonical: refreshing it again is a no-op.
		again, _, err := Refresh(want, c.in, RefreshOptions{})
		if err != nil || !bytes.Equal(again, want) {
			t.Errorf("%s: refresh of the golden is not a no-op (%v)", c.in, err)
		}
		if ok, summary, err := Check(want, c.in, RefreshOptions{}); !ok || err != nil {
			t.Errorf("%s: Check of the golden: %v %q %v", c.in, ok, summary, err)
		}
	}
	// The CRLF files are the LF files with CRLF line endings.
	lf, crlf := readTestdata(t, "refresh/dups_lf.golden.nwb"), readTestdata(t, "refresh/dups_crlf.golden.nwb")
	if !bytes.Equal(toCRLF(lf), crlf) || bytes.Contains(lf, []byte("\r")) {
		t.Error("dups_crlf.golden.nwb must be dups_lf.golden.nwb with CRLF endings")
	}
}

func TestRefreshReport(t *testing.T) {
	_, rep, err := Refresh(readTestdata(t, "refresh/dups_lf.nwb"), "in.nwb", RefreshOptions{Output: "out.nwb"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Refreshed out.nwb\n  input: in.nwb\n  positions: 4 -> 4\n  normals: 4 -> 2\n  tangents: 4 -> 3\n  uv0: 4 -> 4\n  colors: 4 -> 1\n  skin: 0 -> 0\n  vertex_refs: 4 -> 4\n  indices: 6 -> 6\n"
	if rep.String() != want {
		t.Fatalf("report:\n%s\nwant:\n%s", rep, want)
	}
	if strings.Join(rep.Rewritten, ",") != "asset.normals,asset.tangents,asset.colors,asset.vertex_refs" {
		t.Fatalf("rewritten %v", rep.Rewritten)
	}
}

// Every byte outside the rewritten lists is kept: compare the input and
// output with each rewritten list cut out.
func TestRefreshKeepsOtherBytes(t *testing.T) {
	src := readTestdata(t, "refresh/dups_lf.nwb")
	out, _, err := Refresh(src, "in.nwb", RefreshOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cut := func(b []byte) string {
		f, err := Parse(b, "x")
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		m := f.Decl("asset").Value.Map()
		// Cut from the end so earlier offsets stay valid.
		for _, field := range []string{"vertex_refs", "colors", "tangents", "normals"} {
			v := m.Get(field).Val
			s = s[:v.Off] + "<list>" + s[v.End:]
		}
		return s
	}
	if a, b := cut(src), cut(out); a != b {
		t.Fatalf("bytes outside the lists changed:\n%s\n---\n%s", a, b)
	}
}

// Every writer golden (import output) is canonical: refresh is a no-op.
func TestImportThenRefreshIsNoop(t *testing.T) {
	n := 0
	filepath.WalkDir(filepath.Join("testdata", "assets"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		src, _ := os.ReadFile(p)
		f, err := Parse(src, p)
		if err != nil {
			t.Fatal(err)
		}
		hasMesh := false
		for _, d := range f.Decls {
			hasMesh = hasMesh || d.Type == "mesh"
		}
		if !hasMesh {
			return nil
		}
		n++
		out, rep, err := Refresh(src, p, RefreshOptions{})
		if err != nil || !bytes.Equal(out, src) || len(rep.Rewritten) != 0 {
			t.Errorf("%s: refresh changed an imported file (%v, rewrote %v)", p, err, rep.Rewritten)
		}
		return nil
	})
	if n < 4 {
		t.Fatalf("only %d writer goldens with meshes", n)
	}
}

// The dedup rules of nwb.md §2, one by one.
func TestDedupStream(t *testing.T) {
	negZero := float32(math.Copysign(0, -1))
	cases := []struct {
		why   string
		flat  []float32
		k     int
		out   []float32
		remap []uint32 // nil: unchanged
	}{
		{"no duplicates keeps the original order", []float32{3, 1, 2}, 1, []float32{3, 1, 2}, nil},
		{"-0 equals +0; the lowest source index wins", []float32{negZero, 5, 0}, 1, []float32{negZero, 5}, []uint32{0, 1, 0}},
		{"sorted by u32 bit pattern: negatives after positives", []float32{-1, 2, -1, 1}, 1, []float32{1, 2, -1}, []uint32{2, 1, 2, 0}},
		{"components compared in order", []float32{1, 2, 0, 9, 1, 2, 0, 1}, 2, []float32{0, 1, 0, 9, 1, 2}, []uint32{2, 1, 2, 0}},
		{"no epsilon: nearby values stay apart", []float32{1, math.Nextafter32(1, 2), 1}, 1, []float32{1, math.Nextafter32(1, 2)}, []uint32{0, 1, 0}},
	}
	for _, c := range cases {
		out, remap := dedupStream(c.flat, c.k)
		if !equalBits(out, c.out) || !equalU32(remap, c.remap) {
			t.Errorf("%s: got %v %v, want %v %v", c.why, out, remap, c.out, c.remap)
		}
	}
	// NaN never reaches dedup (streams are finite), but equal bits merge.
}

func equalBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func equalU32(a, b []uint32) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRefreshLineEndingsAndBOM(t *testing.T) {
	src := readTestdata(t, "refresh/dups_lf.nwb")
	want := readTestdata(t, "refresh/dups_crlf.golden.nwb")
	// One CRLF anywhere makes the whole output CRLF.
	mixed := bytes.Replace(src, []byte("mesh asset;\n"), []byte("mesh asset;\r\n"), 1)
	out, rep, err := Refresh(mixed, "m.nwb", RefreshOptions{})
	if err != nil || !bytes.Equal(out, want) || !rep.LineEndingsFixed {
		t.Fatalf("mixed endings: %v fixed=%v\n%q", err, rep.LineEndingsFixed, out)
	}
	// A BOM is stripped; Check reports it even when nothing else changes.
	canon := readTestdata(t, "refresh/dups_lf.golden.nwb")
	withBOM := append([]byte{0xEF, 0xBB, 0xBF}, canon...)
	out, rep, err = Refresh(withBOM, "b.nwb", RefreshOptions{})
	if err != nil || !bytes.Equal(out, canon) || !rep.BOMRemoved {
		t.Fatalf("BOM: %v removed=%v", err, rep.BOMRemoved)
	}
	ok, summary, err := Check(withBOM, "b.nwb", RefreshOptions{})
	if ok || err != nil || !strings.Contains(summary, "UTF-8 BOM would be removed") || !strings.Contains(summary, "first difference at line 1") {
		t.Fatalf("Check with BOM: %v %q %v", ok, summary, err)
	}
}

func TestCheckSummary(t *testing.T) {
	ok, summary, err := Check(readTestdata(t, "refresh/dups_crlf.nwb"), "d.nwb", RefreshOptions{})
	if err != nil || ok {
		t.Fatalf("%v %v", ok, err)
	}
	want := "d.nwb: not canonical\n  normals: 4 -> 2\n  tangents: 4 -> 3\n  colors: 4 -> 1\n  rewritten: asset.normals, asset.tangents, asset.colors, asset.vertex_refs\n  first difference at line 12\n"
	if summary != want {
		t.Fatalf("summary:\n%s\nwant:\n%s", summary, want)
	}
}

func TestRefreshKeepPositions(t *testing.T) {
	src := readTestdata(t, "refresh/skinned_dups.nwb")
	_, rep, err := Refresh(src, "s.nwb", RefreshOptions{KeepPositions: true})
	if err != nil || rep.After.Positions != 7 {
		t.Fatalf("%v positions after %d, want 7", err, rep.After.Positions)
	}
}

// The rejections of nwb.md §2, each with its message.
func TestRefreshRejects(t *testing.T) {
	base := string(readTestdata(t, "refresh/dups_lf.nwb"))
	skinned := string(readTestdata(t, "refresh/skinned_dups.nwb"))
	cases := []struct{ why, src, want string }{
		{"field outside the seven", base + "asset.lightmap = [[0, 0]];\n", "nwb: t.nwb:28:7: unsupported field 'asset.lightmap' would be dropped by refresh"},
		{"no mesh", "skeleton asset;\nasset.joints = [{ \"name\": \"r\" }];\n", "nwb: t.nwb: no mesh declaration to refresh"},
		{"two skins for one mesh", strings.Replace(skinned, "skin body_skin;", "skin body_skin;\nskin other;\nother.mesh = body;", 1), "nwb: t.nwb:5:1: mesh 'body' has more than one skin ('body_skin' and 'other')"},
		{"invalid mesh", strings.Replace(base, "[3, 2, 3, 3, 3]", "[3, 9, 3, 3, 3]", 1), "nwb: t.nwb:25:9: Mesh meta 'project/t': vertex_refs: normals index 9 out of range (4 entries)"},
		{"syntax error", base + "asset.x", "nwb: t.nwb:28:8: expected assignment operator after 'asset.x', found end of file"},
		{"list built with +=", strings.Replace(base, "asset.tangents = [", "asset.tangents = [[0, 1, 0, 1]];\nasset.tangents += [", 1), "nwb: t.nwb:13:18: 'asset.tangents' is not a single list literal (built with += or an expression), so refresh cannot rewrite it"},
	}
	for _, c := range cases {
		_, _, err := Refresh([]byte(c.src), "t.nwb", RefreshOptions{})
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.why, err, c.want)
		}
	}
	// A list built with += that needs no rewrite is fine.
	ok := strings.Replace(base, "asset.uv0 = [[0, 0], [1, 0],", "asset.uv0 = [[0, 0]];\nasset.uv0 += [[1, 0],", 1)
	if _, _, err := Refresh([]byte(ok), "t.nwb", RefreshOptions{}); err != nil {
		t.Errorf("+= list without duplicates: %v", err)
	}
}

// Refresh never changes geometry: every triangle corner reads the same
// attributes (up to -0 = +0) before and after, on random meshes full of
// duplicates; and the result is a fixed point.
func TestRefreshPreservesCorners(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func(vals []float32) float32 { return vals[rng.IntN(len(vals))] }
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 0.25, -2}
	for iter := 0; iter < 40; iter++ {
		m := &Mesh{}
		nStream, nRefs, nIdx := 1+rng.IntN(12), 1+rng.IntN(10), 3*(1+rng.IntN(6))
		for i := 0; i < nStream; i++ {
			m.Positions = append(m.Positions, mesh.Vec3{pick(vals), pick(vals), pick(vals)})
			m.Normals = append(m.Normals, mesh.Vec3{pick(vals), pick(vals), 1})
			m.Tangents = append(m.Tangents, mesh.Vec4{1, pick(vals), 0, pick([]float32{1, -1})})
			m.UV0 = append(m.UV0, mesh.Vec2{pick(vals), pick(vals)})
			m.Colors = append(m.Colors, mesh.Vec4{pick(vals), 1, 1, 1})
		}
		n := len(m.Positions)
		for i := 0; i < nRefs; i++ {
			m.VertexRefs = append(m.VertexRefs, VertexRef{uint32(rng.IntN(n)), uint32(rng.IntN(n)), uint32(rng.IntN(n)), uint32(rng.IntN(n)), uint32(rng.IntN(n))})
		}
		for i := 0; i < nIdx; i++ {
			m.Indices = append(m.Indices, uint32(rng.IntN(len(m.VertexRefs))))
		}
		src, err := Marshal(&Document{Assets: []*Asset{{Kind: KindMesh, Name: "asset", Mesh: m}}})
		if err != nil {
			t.Fatal(err)
		}
		if iter%2 == 1 {
			src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
		}
		out, _, err := Refresh(src, "r.nwb", RefreshOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before, err1 := LoadScene(src, "r.nwb", "")
		after, err2 := LoadScene(out, "r.nwb", "")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		b, a := before.Submeshes[0], after.Submeshes[0]
		for c := range b.Indices {
			i, j := b.Indices[c], a.Indices[c]
			if b.Positions[i] != a.Positions[j] || b.Normals[i] != a.Normals[j] || b.Tangents[i] != a.Tangents[j] || b.UV0[i] != a.UV0[j] || b.Colors[i] != a.Colors[j] {
				t.Fatalf("iteration %d corner %d changed:\n%s\n---\n%s", iter, c, src, out)
			}
		}
		if again, _, _ := Refresh(out, "r.nwb", RefreshOptions{}); !bytes.Equal(again, out) {
			t.Fatalf("iteration %d: refresh is not a fixed point", iter)
		}
		if crlf := bytes.Contains(src, []byte("\r\n")); crlf != bytes.Contains(out, []byte("\r\n")) || (!crlf && bytes.Contains(out, []byte("\r"))) {
			t.Fatalf("iteration %d: line endings changed style", iter)
		}
	}
}

// Issue #19: comments inside a list refresh rewrites (inline, whole-line,
// and a /* */ holding "];") used to vanish, and --check did not say so.
// Refresh now refuses, naming the list and the line; comments elsewhere,
// and in lists it does not rewrite, stay.
func TestRefreshRefusesToDropComments(t *testing.T) {
	base := string(readTestdata(t, "refresh/dups_lf.nwb"))
	for why, src := range map[string]string{
		"inline":     strings.Replace(base, "    [1, 0, 0, -1],", "    [1, 0, 0, -1], // flipped", 1),
		"whole line": strings.Replace(base, "    [1, 0, 0, -1],", "    // the flipped one\n    [1, 0, 0, -1],", 1),
		"block":      strings.Replace(base, "    [1, 0, 0, -1],", "    /* keep ]; this */ [1, 0, 0, -1],", 1),
	} {
		_, _, err := Refresh([]byte(src), "t.nwb", RefreshOptions{})
		require.Error(t, err, why)
		assert.Contains(t, err.Error(), "nwb: t.nwb:1", why)
		assert.Contains(t, err.Error(), "refresh would drop 1 comment(s) inside 'asset.tangents'", why)
		_, _, err = Check([]byte(src), "t.nwb", RefreshOptions{})
		assert.ErrorContains(t, err, "would drop", "--check names the loss: %s", why)
	}
	// A comment in a list that needs no rewrite (uv0) is kept.
	src := strings.Replace(base, "asset.uv0 = [[0, 0],", "asset.uv0 = [[0, 0], // corner\n", 1)
	out, _, err := Refresh([]byte(src), "t.nwb", RefreshOptions{})
	require.NoError(t, err)
	assert.Contains(t, string(out), "// corner")
	assert.Contains(t, string(out), "// three copies of +Z", "a comment after the list stays")
	n, _ := commentsIn([]byte(`[1, "a // not a comment", 2]`))
	assert.Zero(t, n)
}
