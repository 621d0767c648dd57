package mesh

import (
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/meshcook/meshcook/internal/testkit"
)

// corpusDir is ../shared/corpus relative to the repository root.
func corpusDir(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		testkit.Missing(t, "corpus not available at %s: %v", dir, err)
	}
	return dir
}

// readPrimitives reads every indexed triangle primitive of a glTF document
// into submeshes (positions, normals, tangents, indices), with the texture
// coordinate set uvAttr (TEXCOORD_n) as UV0.
func readPrimitives(doc *gltf.Document, uvAttr string) ([]*Submesh, error) {
	var out []*Submesh
	for _, m := range doc.Meshes {
		for _, p := range m.Primitives {
			if p.Mode != gltf.PrimitiveTriangles || p.Indices == nil || *p.Indices >= len(doc.Accessors) {
				continue
			}
			acc := func(name string) *gltf.Accessor {
				if i, ok := p.Attributes[name]; ok && i < len(doc.Accessors) {
					return doc.Accessors[i]
				}
				return nil
			}
			if acc(gltf.POSITION) == nil {
				continue
			}
			s := &Submesh{Name: m.Name}
			pos, err := modeler.ReadPosition(doc, acc(gltf.POSITION), nil)
			if err != nil {
				return nil, err
			}
			for _, v := range pos {
				s.Positions = append(s.Positions, Vec3(v))
			}
			if a := acc(gltf.NORMAL); a != nil {
				ns, err := modeler.ReadNormal(doc, a, nil)
				if err != nil {
					return nil, err
				}
				for _, v := range ns {
					s.Normals = append(s.Normals, Vec3(v))
				}
			}
			if a := acc(gltf.TANGENT); a != nil {
				ts, err := modeler.ReadTangent(doc, a, nil)
				if err != nil {
					return nil, err
				}
				for _, v := range ts {
					s.Tangents = append(s.Tangents, Vec4(v))
				}
			}
			if a := acc(uvAttr); a != nil {
				uv, err := modeler.ReadTextureCoord(doc, a, nil)
				if err != nil {
					return nil, err
				}
				for _, v := range uv {
					s.UV0 = append(s.UV0, Vec2(v))
				}
			}
			if s.Indices, err = modeler.ReadIndices(doc, doc.Accessors[*p.Indices], nil); err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	return out, nil
}

func loadPrimitives(t *testing.T, path, uvAttr string) []*Submesh {
	t.Helper()
	doc, err := gltf.Open(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	prims, err := readPrimitives(doc, uvAttr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return prims
}

// Blender's glTF exporter writes MikkTSpace tangents; regenerating them
// from the same positions, normals and UVs checks our grouping, weighting
// and sign convention against the reference implementation.
//
// MultiUVTest's tangents were made from its second UV set, and match ours
// from that set in direction and sign. VertexColorTest's exporter wrote
// w = +1 on every vertex, even on a face whose UVs are mirrored relative to
// the others, and MikkTSpace's (1,0,0) placeholder on faces whose UVs have
// no area; there only the directions of the well-mapped triangles compare.
func TestTangentsMatchBlenderExport(t *testing.T) {
	dir := corpusDir(t)
	cases := []struct {
		file, uv  string
		checkSign bool
	}{
		{"MultiUVTest/MultiUVTest.gltf", gltf.TEXCOORD_1, true},
		{"VertexColorTest/VertexColorTest.gltf", gltf.TEXCOORD_0, false},
	}
	for _, tc := range cases {
		for pi, ref := range loadPrimitives(t, filepath.Join(dir, "gltf", tc.file), tc.uv) {
			if ref.Tangents == nil || ref.Normals == nil || ref.UV0 == nil {
				continue
			}
			s := clone(ref)
			s.Tangents = nil
			if err := GenerateTangents(s); err != nil {
				t.Fatal(err)
			}
			// Both index buffers list the same triangles: compare per corner.
			compared, signs, worst := 0, 0, 1.0
			for c := range s.Indices {
				tri := ref.Indices[c/3*3 : c/3*3+3]
				a, b, d := ref.UV0[tri[0]], ref.UV0[tri[1]], ref.UV0[tri[2]]
				if (b[0]-a[0])*(d[1]-a[1])-(b[1]-a[1])*(d[0]-a[0]) == 0 {
					continue // no usable mapping: the exporter wrote a placeholder
				}
				got, want := s.Tangents[s.Indices[c]], ref.Tangents[ref.Indices[c]]
				compared++
				if got[3] != want[3] {
					signs++
				}
				worst = math.Min(worst, float64(got[0]*want[0]+got[1]*want[1]+got[2]*want[2]))
			}
			t.Logf("%s primitive %d: %d corners compared, worst direction cos %.7f, %d sign differences", tc.file, pi, compared, worst, signs)
			if compared == 0 || worst < 0.9999 || (tc.checkSign && signs != 0) {
				t.Errorf("%s primitive %d: worst direction cos %.7f, %d sign differences over %d corners", tc.file, pi, worst, signs, compared)
			}
		}
	}
}

// Every indexed triangle primitive of the glTF corpus canonicalizes
// without error and keeps the invariants FuzzCanonicalize checks, both as
// stored and with its normals and tangents stripped (so they are generated).
func TestCanonicalizeCorpus(t *testing.T) {
	dir := corpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "gltf", "*", "*.gl*"))
	more, _ := filepath.Glob(filepath.Join(dir, "gltf", "*", "*", "*.gl*"))
	files = append(files, more...)
	passes := 0
	for _, f := range files {
		doc, err := gltf.Open(f)
		if err != nil || len(doc.ExtensionsRequired) > 0 {
			continue // compressed or unreadable here; the importer's tests cover those
		}
		prims, err := readPrimitives(doc, gltf.TEXCOORD_0)
		if err != nil {
			continue
		}
		for _, in := range prims {
			for _, strip := range []bool{false, true} {
				src := clone(in)
				if strip {
					src.Normals, src.Tangents = nil, nil
				}
				s := clone(src)
				r, err := Canonicalize(s, CanonicalOptions{})
				if (err != nil) != (src.Validate() != nil) {
					t.Fatalf("%s %q: %v", f, in.Name, err)
				}
				if err != nil {
					continue
				}
				checkCanonical(t, src, s, CanonicalOptions{}, r)
				passes++
			}
		}
	}
	if passes == 0 {
		t.Skip("no readable glTF primitives in the corpus")
	}
	t.Logf("%d primitive passes over %d files", passes, len(files))
}
