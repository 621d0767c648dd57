package gltf

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

// corpusDir is the shared asset corpus, relative to this package's folder.
const corpusDir = "../../../shared/corpus"

// corpusFiles lists every .gltf/.glb under corpusDir/sub, sorted, or skips
// the test when the corpus is absent.
func corpusFiles(t *testing.T, sub string) []string {
	t.Helper()
	root := filepath.Join(corpusDir, sub)
	if _, err := os.Stat(root); err != nil {
		t.Skipf("corpus not present at %s (%v); the shared corpus is read in place, never copied", root, err)
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := strings.ToLower(filepath.Ext(p)); !d.IsDir() && (ext == ".gltf" || ext == ".glb") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Skipf("no glTF files under %s", root)
	}
	return files
}

// loadNoPanic runs Load and turns a panic into a test failure.
func loadNoPanic(t *testing.T, path string) (scene *mesh.Scene, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", path, r)
			scene, err = nil, fmt.Errorf("panic")
		}
	}()
	return Load(path, Options{})
}

// Every valid sample imports, except those that require a compression
// extension, which must be refused by name.
func TestCorpusValid(t *testing.T) {
	for _, path := range corpusFiles(t, "gltf") {
		scene, err := loadNoPanic(t, path)
		if err != nil {
			if errors.Is(err, ErrUnsupportedExtension) && strings.Contains(err.Error(), "unsupported required extension") &&
				(strings.Contains(err.Error(), "draco") || strings.Contains(err.Error(), "meshopt")) {
				t.Logf("%s: refused as expected: %v", path, err)
				continue
			}
			t.Errorf("%s: %v", path, err)
			continue
		}
		checkScene(t, path, scene)
		tris := 0
		for i := range scene.Submeshes {
			tris += scene.Submeshes[i].TriangleCount()
		}
		t.Logf("%s: %d submeshes, %d triangles, %d materials, %d images, warnings %q",
			path, len(scene.Submeshes), tris, len(scene.Materials), len(scene.Images), scene.Warnings)
	}
}

// Broken and edge-case files either import or fail with a one-line error
// naming the file; none may panic.
func TestCorpusEdge(t *testing.T) {
	for _, path := range corpusFiles(t, "edge") {
		scene, err := loadNoPanic(t, path)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "gltf: "+path+": ") || strings.ContainsAny(msg, "\n\r") {
				t.Errorf("%s: malformed error %q", path, msg)
			}
			continue
		}
		checkScene(t, path, scene)
	}
}

// checkScene asserts mesh's contracts on an imported scene.
func checkScene(t *testing.T, name string, s *mesh.Scene) {
	t.Helper()
	for i := range s.Submeshes {
		sm := &s.Submeshes[i]
		n := len(sm.Positions)
		if len(sm.Indices)%3 != 0 {
			t.Errorf("%s: submesh %d (%s): %d indices", name, i, sm.Name, len(sm.Indices))
		}
		for _, v := range sm.Indices {
			if int(v) >= n {
				t.Errorf("%s: submesh %d (%s): index %d >= %d vertices", name, i, sm.Name, v, n)
				break
			}
		}
		for _, l := range []int{len(sm.Normals), len(sm.Tangents), len(sm.UV0), len(sm.Colors)} {
			if l != 0 && l != n {
				t.Errorf("%s: submesh %d (%s): stream of %d, %d positions", name, i, sm.Name, l, n)
			}
		}
		for _, p := range sm.Positions {
			if !p.IsFinite() {
				t.Errorf("%s: submesh %d (%s): non-finite position", name, i, sm.Name)
				break
			}
		}
		for _, v := range sm.Normals {
			if l := v.Length(); l != 0 && math.Abs(float64(l)-1) > 1e-4 {
				t.Errorf("%s: submesh %d (%s): normal %v of length %v", name, i, sm.Name, v, l)
				break
			}
		}
		if sm.Material < -1 || sm.Material >= len(s.Materials) {
			t.Errorf("%s: submesh %d (%s): material %d of %d", name, i, sm.Name, sm.Material, len(s.Materials))
		}
	}
	for i, m := range s.Materials {
		for _, tex := range []int{m.BaseColorTexture, m.MetallicRoughnessTexture, m.NormalTexture, m.OcclusionTexture, m.EmissiveTexture} {
			if tex < -1 || tex >= len(s.Images) {
				t.Errorf("%s: material %d: texture %d of %d images", name, i, tex, len(s.Images))
			}
		}
	}
}
