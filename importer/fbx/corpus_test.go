package fbx

import (
	"bufio"
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

// corpusDir is ../shared/corpus relative to the repository root.
func corpusDir(t testing.TB, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not present at %s (shared corpus is checked out beside the repository)", dir)
	}
	return dir
}

func fbxFiles(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".fbx") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// refusedCorpus lists valid-corpus files we refuse, with the reason. It is
// empty: every FBX under corpus/fbx imports.
var refusedCorpus = map[string]string{}

// noMeshCorpus lists valid files that import but legitimately hold no
// triangles.
var noMeshCorpus = map[string]string{
	"maya_anim_light_7500_binary.fbx":         "only an animated light",
	"blender_279_edge_vertex_7400_binary.fbx": "loose vertices only (no faces)",
}

func TestCorpusImports(t *testing.T) {
	dir := corpusDir(t, "fbx")
	files := fbxFiles(t, dir)
	if len(files) == 0 {
		t.Skip("no FBX files in the corpus")
	}
	for _, f := range files {
		base := filepath.Base(f)
		t.Run(base, func(t *testing.T) {
			sc, err := Load(f, Options{})
			if why, ok := refusedCorpus[base]; ok {
				if err == nil {
					t.Fatalf("expected refusal (%s), imported", why)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tris := 0
			for i := range sc.Submeshes {
				s := &sc.Submeshes[i]
				if err := s.Validate(); err != nil {
					t.Fatal(err)
				}
				if s.Joints != nil && (len(s.Joints) != len(s.Positions) || len(s.Weights) != len(s.Positions)) {
					t.Fatalf("%s: skin streams of the wrong length", s.Name)
				}
				for _, w := range s.Weights {
					if sum := w[0] + w[1] + w[2] + w[3]; math.Abs(float64(sum)-1) > 1e-5 {
						t.Fatalf("%s: weights sum to %v", s.Name, sum)
					}
				}
				if s.Material >= len(sc.Materials) {
					t.Fatalf("%s: material %d of %d", s.Name, s.Material, len(sc.Materials))
				}
				tris += s.TriangleCount()
				// The cook's canonicalization accepts every submesh.
				c := *s
				if _, err := mesh.Canonicalize(&c, mesh.CanonicalOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			if _, empty := noMeshCorpus[base]; empty != (tris == 0) {
				t.Fatalf("%d triangles; listed as meshless: %v", tris, empty)
			}
		})
	}
}

// unitsDiffer lists scenes whose versions declare different units, so
// they agree only in the file's own space (PreserveSpace).
var unitsDiffer = map[string]string{
	"blender_279_default": "the 6.1 export has no UnitScaleFactor (centimetres by default), the 7.4 one declares metres",
}

// TestCorpusBinaryASCIIAgree: where a scene exists as both ASCII and
// binary (ufbx's *_<version>_ascii.fbx / *_<version>_binary.fbx, and the
// same scene at several versions), every version gives the same mesh:
// positions within 1e-5, same triangles.
func TestCorpusBinaryASCIIAgree(t *testing.T) {
	for _, preserve := range []bool{false, true} {
		name := "converted"
		if preserve {
			name = "preserved"
		}
		t.Run(name, func(t *testing.T) { testAgree(t, Options{PreserveSpace: preserve}) })
	}
}

func testAgree(t *testing.T, opts Options) {
	dir := corpusDir(t, "fbx")
	groups := map[string][]string{}
	for _, f := range fbxFiles(t, dir) {
		base := strings.TrimSuffix(filepath.Base(f), ".fbx")
		i := strings.LastIndexByte(base, '_')
		if i < 0 || (base[i+1:] != "ascii" && base[i+1:] != "binary") {
			continue
		}
		j := strings.LastIndexByte(base[:i], '_')
		if j < 0 {
			continue
		}
		scene := filepath.Join(filepath.Dir(f), base[:j])
		groups[scene] = append(groups[scene], f)
	}
	pairs := 0
	for scene, files := range groups {
		if len(files) < 2 {
			continue
		}
		hasASCII, hasBinary := false, false
		for _, f := range files {
			hasASCII = hasASCII || strings.HasSuffix(f, "_ascii.fbx")
			hasBinary = hasBinary || strings.HasSuffix(f, "_binary.fbx")
		}
		if !hasASCII || !hasBinary {
			continue
		}
		pairs++
		t.Run(filepath.Base(scene), func(t *testing.T) {
			if why, ok := unitsDiffer[filepath.Base(scene)]; ok && !opts.PreserveSpace {
				t.Skip(why)
			}
			ref, err := Load(files[0], opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files[1:] {
				got, err := Load(f, opts)
				if err != nil {
					t.Fatal(err)
				}
				if len(got.Submeshes) != len(ref.Submeshes) {
					t.Fatalf("%s: %d submeshes, %s: %d", files[0], len(ref.Submeshes), f, len(got.Submeshes))
				}
				for i := range ref.Submeshes {
					a, b := &ref.Submeshes[i], &got.Submeshes[i]
					if a.TriangleCount() != b.TriangleCount() || len(a.Positions) != len(b.Positions) {
						t.Fatalf("%s submesh %d: %d triangles, %d vertices; %s: %d, %d", files[0], i,
							a.TriangleCount(), len(a.Positions), f, b.TriangleCount(), len(b.Positions))
					}
					for k := range a.Positions {
						for c := 0; c < 3; c++ {
							if d := math.Abs(float64(a.Positions[k][c] - b.Positions[k][c])); d > 1e-5 {
								t.Fatalf("%s vs %s: submesh %d vertex %d differs by %g", files[0], f, i, k, d)
							}
						}
					}
					if !slices.Equal(a.Indices, b.Indices) {
						t.Fatalf("%s vs %s: submesh %d indices differ", files[0], f, i)
					}
				}
			}
		})
	}
	if pairs == 0 {
		t.Skip("no ASCII/binary pairs in the corpus")
	}
}

// objPositions reads the positions an OBJ's faces use.
func objPositions(t *testing.T, path string) []vec3d {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var verts, used []vec3d
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "v":
			var v vec3d
			for i := range 3 {
				v[i], _ = strconv.ParseFloat(f[1+i], 64)
			}
			verts = append(verts, v)
		case "f":
			for _, c := range f[1:] {
				i, _ := strconv.Atoi(strings.SplitN(c, "/", 2)[0])
				if i < 0 {
					i = len(verts) + i + 1
				}
				used = append(used, verts[i-1])
			}
		}
	}
	return used
}

// TestCorpusMatchesOBJ compares imported positions with the OBJ the FBX's
// author exported beside it (ufbx's reference files, in the FBX's own
// space), as ufbx's tests do: the OBJ positions, put through the same space
// conversion, and the imported positions must be the same set within 1e-4
// of the model size. Sets, not triangles, so triangulation does not matter.
func TestCorpusMatchesOBJ(t *testing.T) {
	dir := corpusDir(t, "fbx")
	compared := 0
	for _, f := range fbxFiles(t, dir) {
		obj := objFor(f)
		if obj == "" {
			continue
		}
		compared++
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := Decode(data, f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			doc, _ := Parse(data, Options{})
			conv := newScene(doc, Options{}.withDefaults()).conversion()
			var want []vec3d
			for _, p := range objPositions(t, obj) {
				want = append(want, point(conv, p[0], p[1], p[2]))
			}
			var got []vec3d
			for _, s := range sc.Submeshes {
				for _, p := range s.Positions {
					got = append(got, vec3d{float64(p[0]), float64(p[1]), float64(p[2])})
				}
			}
			lo, hi := bbox(want)
			d := sub3(hi, lo)
			tol := 1e-4 * math.Sqrt(dot3(d, d))
			if missing := unmatched(want, got, tol); missing >= 0 {
				t.Fatalf("OBJ position %v has no imported position within %g", want[missing], tol)
			}
			if extra := unmatched(got, want, tol); extra >= 0 {
				t.Fatalf("imported position %v has no OBJ position within %g", got[extra], tol)
			}
		})
	}
	if compared == 0 {
		t.Skip("no FBX with an OBJ reference in the corpus")
	}
}

// objFor returns the OBJ reference of an FBX: <scene>.obj beside
// <scene>_<version>_<ascii|binary>.fbx.
func objFor(fbx string) string {
	base := strings.TrimSuffix(filepath.Base(fbx), ".fbx")
	for range 2 {
		i := strings.LastIndexByte(base, '_')
		if i < 0 {
			return ""
		}
		base = base[:i]
	}
	p := filepath.Join(filepath.Dir(fbx), base+".obj")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func bbox(p []vec3d) (lo, hi vec3d) {
	lo = vec3d{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = vec3d{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, v := range p {
		for i := range 3 {
			lo[i], hi[i] = min(lo[i], v[i]), max(hi[i], v[i])
		}
	}
	return lo, hi
}

// unmatched returns the index of the first a with no b within tol, or -1.
func unmatched(a, b []vec3d, tol float64) int {
	for i, p := range a {
		ok := false
		for _, q := range b {
			d := sub3(p, q)
			if dot3(d, d) <= tol*tol {
				ok = true
				break
			}
		}
		if !ok {
			return i
		}
	}
	return -1
}

// TestBrokenCorpus: every file under edge/fbx_broken is refused with an
// error naming the problem, or imported when it is merely unusual; never a
// panic.
func TestBrokenCorpus(t *testing.T) {
	dir := corpusDir(t, filepath.Join("edge", "fbx_broken"))
	// Expected outcome per file: an error substring, or "" to import.
	want := map[string]string{
		"assimp_cubes_with_outofrange_float.fbx":        "",                 // a 75-digit float literal in Vertices
		"assimp_transparentTest_corrupt.fbx":            "bad magic",        // NULs replaced by spaces
		"ufbx_fuzz_0000.fbx":                            "",                 // fuzz seed: complete nodes, no footer
		"ufbx_fuzz_0133.fbx":                            "list length says", // property list length corrupt
		"ufbx_fuzz_0241.fbx":                            "past end of file", // end offset corrupt
		"ufbx_fuzz_0455.fbx":                            "bad magic",        // magic byte flipped
		"ufbx_fuzz_0606.fbx":                            "",                 // flipped byte inside a value
		"ufbx_fuzz_0660.fbx":                            "bad magic",        // magic byte flipped
		"ufbx_maya_bad_face_6100_ascii.fbx":             "",                 // 1- and 2-corner faces skipped, warned
		"ufbx_maya_leading_comma_7500_ascii.fbx":        "",                 // leading commas tolerated
		"ufbx_synthetic_broken_material_6100_ascii.fbx": "",                 // material mapping oddity
		"ufbx_synthetic_missing_version_6100_ascii.fbx": "",                 // no "; FBX" banner; FBXVersion present
		"ufbx_synthetic_sets_reorder_6100_ascii.fbx":    "",                 // layer sets out of order
	}
	files := fbxFiles(t, dir)
	for _, f := range files {
		base := filepath.Base(f)
		t.Run(base, func(t *testing.T) {
			_, err := Load(f, Options{})
			exp, known := want[base]
			if !known {
				// New corpus files: only "no panic, and a located error".
				if err != nil && !strings.Contains(err.Error(), base) {
					t.Fatalf("error does not name the file: %v", err)
				}
				return
			}
			switch {
			case exp == "" && err != nil:
				t.Fatalf("expected import, got %v", err)
			case exp != "" && err == nil:
				t.Fatalf("expected an error containing %q, imported", exp)
			case exp != "" && !strings.Contains(err.Error(), exp):
				t.Fatalf("error %q does not contain %q", err, exp)
			case exp != "" && !errors.Is(err, ErrFormat):
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
		})
	}
}

// TestCorpusEmbeddedTextures: assimp's ASCII files embed PNGs as base64,
// once in one string and once split over two separately padded strings.
func TestCorpusEmbeddedTextures(t *testing.T) {
	dir := corpusDir(t, filepath.Join("fbx", "assimp_embedded_textures"))
	for _, name := range []string{"box.FBX", "box_embedded_texture_fragmented.fbx"} {
		sc, err := Load(filepath.Join(dir, name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Images) != 1 || !bytes.HasPrefix(sc.Images[0].Data, []byte("\x89PNG\r\n\x1a\n")) ||
			sc.Images[0].MimeType != "image/png" {
			t.Fatalf("%s: images %d, first data %d bytes", name, len(sc.Images), len(sc.Images[0].Data))
		}
		if len(sc.Materials) != 1 || sc.Materials[0].BaseColorTexture != 0 {
			t.Fatalf("%s: material %+v", name, sc.Materials)
		}
	}
}
