package corpus_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/msh7"
	"github.com/meshcook/meshcook/importer/fbx"
	"github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/meshlet"
)

// shared is the shared folder beside the repository root (this package is
// three levels below the root).
const shared = "../../../../shared"

// sources lists the corpus files of one kind, sorted, or skips when the
// corpus is absent. The corpus is read in place, never copied.
func sources(t *testing.T, sub string, exts ...string) []string {
	t.Helper()
	root := filepath.Join(shared, "corpus", sub)
	if _, err := os.Stat(root); err != nil {
		testkit.Missing(t, "corpus not present at %s (%v)", root, err)
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		for _, e := range exts {
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), e) {
				files = append(files, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// cook turns one canonical submesh into an MSH7 payload the way the cook
// target does: meshlet.Build at 96/126, bounds passed straight through.
func cook(s *mesh.Submesh, skel *mesh.Skeleton) (*msh7.File, int, error) {
	pos := make([][3]float32, len(s.Positions))
	for i, p := range s.Positions {
		pos[i] = p
	}
	r, err := meshlet.Build(s.Indices, pos, meshlet.Options{MaxVertices: msh7.MaxVertices, MaxTriangles: msh7.MaxTriangles, ConeWeight: 0.25})
	if err != nil {
		return nil, 0, err
	}
	bounds := meshlet.ComputeAllBounds(r, pos)
	in := msh7.SubmeshInput(s, skel)
	for i, m := range r.Meshlets {
		b := bounds[i]
		in.Meshlets = append(in.Meshlets, msh7.InputMeshlet{
			Vertices:  r.Vertices[m.VertexOffset : m.VertexOffset+m.VertexCount],
			Triangles: r.Triangles[3*m.TriangleOffset : 3*(m.TriangleOffset+m.TriangleCount)],
			Bounds:    &msh7.SourceBounds{Center: b.Center, Radius: b.Radius, ConeAxis: b.ConeAxis, ConeCutoff: b.ConeCutoff},
		})
	}
	f, err := msh7.Build(in)
	return f, len(r.Meshlets), err
}

// Every triangle submesh of the glTF and FBX corpus canonicalizes, builds,
// encodes, decodes, and passes tools/meshcheck.py.
func TestCorpusBuilds(t *testing.T) {
	var scenes []struct {
		path  string
		scene *mesh.Scene
	}
	for _, p := range sources(t, "gltf", ".gltf", ".glb") {
		s, err := gltf.Load(p, gltf.Options{})
		if err != nil {
			t.Logf("%s: not imported (%v)", p, err)
			continue
		}
		scenes = append(scenes, struct {
			path  string
			scene *mesh.Scene
		}{p, s})
	}
	for _, p := range sources(t, "fbx", ".fbx") {
		s, err := fbx.Load(p, fbx.Options{})
		if err != nil {
			t.Logf("%s: not imported (%v)", p, err)
			continue
		}
		scenes = append(scenes, struct {
			path  string
			scene *mesh.Scene
		}{p, s})
	}
	dir := t.TempDir()
	var written []string
	var tris, meshlets, cones, bytesOut, skinned, fromFBX int
	for _, sc := range scenes {
		for i := range sc.scene.Submeshes {
			s := sc.scene.Submeshes[i]
			if len(s.Indices) == 0 {
				continue
			}
			if _, err := mesh.Canonicalize(&s, mesh.CanonicalOptions{}); err != nil {
				t.Logf("%s #%d: not canonical (%v)", sc.path, i, err)
				continue
			}
			if len(s.Indices) == 0 {
				continue
			}
			f, n, err := cook(&s, sc.scene.Skeleton)
			if err != nil {
				t.Errorf("%s #%d: %v", sc.path, i, err)
				continue
			}
			b, err := msh7.Encode(f)
			if err != nil {
				t.Errorf("%s #%d: Encode: %v", sc.path, i, err)
				continue
			}
			if _, err := msh7.Decode(b); err != nil {
				t.Errorf("%s #%d: Decode: %v", sc.path, i, err)
				continue
			}
			if err := conesHoldNormals(f); err != nil {
				t.Errorf("%s #%d: %v", sc.path, i, err)
			}
			out := filepath.Join(dir, fmt.Sprintf("%03d_%s_%d.msh7", len(written), filepath.Base(sc.path), i))
			if err := os.WriteFile(out, b, 0o644); err != nil {
				t.Fatal(err)
			}
			written = append(written, out)
			if f.Class == msh7.ClassSkinned {
				skinned++
			}
			if strings.EqualFold(filepath.Ext(sc.path), ".fbx") {
				fromFBX++
			}
			tris += len(s.Indices) / 3
			meshlets += n
			bytesOut += len(b)
			for _, bd := range f.Bounds {
				if bd.Cone != 0 {
					cones++
				}
			}
		}
	}
	if len(written) == 0 {
		t.Skip("no corpus submesh built")
	}
	t.Logf("%d submeshes (%d from FBX, %d skinned), %d triangles → %d meshlets (%d with a cone), %d bytes",
		len(written), fromFBX, skinned, tris, meshlets, cones, bytesOut)

	tool := filepath.Join(shared, "tools", "meshcheck.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		testkit.Missing(t, "python3 not on PATH; meshcheck cannot run")
	}
	if _, err := os.Stat(tool); err != nil {
		testkit.Missing(t, "meshcheck not at %s", tool)
	}
	res, err := exec.Command(py, append([]string{tool, "--json"}, written...)...).Output()
	sc := bufio.NewScanner(bytes.NewReader(res))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var r struct {
			File  string `json:"file"`
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("meshcheck output %q: %v", sc.Text(), err)
		}
		n++
		if !r.OK {
			t.Errorf("%s: meshcheck: %s", filepath.Base(r.File), r.Error)
		}
	}
	if n != len(written) {
		t.Fatalf("meshcheck reported %d of %d files (%v)", n, len(written), err)
	}
}

// conesHoldNormals checks every enabled cone of f, as decoded, against the
// unit normals of its meshlet's non-degenerate triangles (positions read
// back through the file's own references).
func conesHoldNormals(f *msh7.File) error {
	for m, d := range f.Meshlets {
		axis, cut, ok := msh7.DecodeCone(f.Bounds[m].Cone)
		if !ok {
			continue
		}
		refs, err := f.DecodeRefs(m)
		if err != nil {
			return err
		}
		pos := func(c int) [3]float64 {
			lv := f.LocalVertices[int(d.LocalVertexOffset)+int(f.Primitives[3*int(d.PrimitiveOffset)+c])]
			p := f.Positions[refs.Positions[lv.Position]]
			return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
		}
		for tri := 0; tri < d.PrimitiveCount(); tri++ {
			p0, p1, p2 := pos(3*tri), pos(3*tri+1), pos(3*tri+2)
			e1 := [3]float64{p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]}
			e2 := [3]float64{p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]}
			n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
			l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
			if !(l > 0) {
				continue
			}
			if dot := (n[0]*axis[0] + n[1]*axis[1] + n[2]*axis[2]) / l; dot < cut {
				return fmt.Errorf("meshlet %d triangle %d: normal dot %v below the packed cutoff %v", m, tri, dot, cut)
			}
		}
	}
	return nil
}
