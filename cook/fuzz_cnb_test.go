package cook

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshcook/meshcook/internal/budget"
)

// The project, lock and heightfield readers take untrusted bytes: they
// return errors, never panic, and whatever they accept is consistent.
func FuzzParseProject(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "testdata", "world", ProjectFileName)); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"sources": ["**/*.glb"], "scenes": [{"name": "a", "sources": ["a/**"]}]}`))
	f.Add([]byte(`{"sources": ["[a"]}`))
	f.Add([]byte(`{"sources": ["a"], "options": {"lodRatios": [0.5], "lodDistances": [1]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		pr, err := ParseProject(b)
		if err != nil {
			return
		}
		for _, g := range pr.Sources {
			if checkGlob(g) != nil {
				t.Fatalf("accepted bad glob %q", g)
			}
			matchGlob(g, "a/b/c.glb")
		}
	})
}

func FuzzParseWorldLock(f *testing.F) {
	l := &WorldLock{Format: WorldLockFormat, Version: 1,
		Blobs:     []LockBlob{{Path: "data/0", SHA256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", PayloadBytes: 3}},
		Resources: []LockResource{{Name: "a/0", Kind: "Mesh"}, {Name: "a/0", Kind: "Texture"}, {Name: "a/m", Kind: "Material", Scene: "s"}}}
	b, err := encodeLock(l)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"format": "meshcook-world-lock", "version": 1, "blobs": [], "resources": []}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseWorldLock(b)
		if err != nil {
			return
		}
		again, err := encodeLock(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseWorldLock(again); err != nil {
			t.Fatalf("re-encoded lock refused: %v", err)
		}
	})
}

func FuzzHeightfieldSource(f *testing.F) {
	f.Add([]byte(`{"size": [8, 4], "elevation": [0, 1], "rows": 3, "cols": 4, "samples": [0, 0.25, 0.5, 0.75, 0.25, 0.5, 0.75, 1, 0, 0, 0, 0]}`))
	f.Add([]byte(`{"size": [1, 1], "elevation": [0, 1], "image": "missing.png"}`))
	f.Add([]byte(`{"size": [1e308, 1e-308], "elevation": [-1e308, 1e308], "rows": 2, "cols": 2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.heightfield.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := loadHeightfield(p, false, budget.Default())
		if err != nil {
			return
		}
		if err := s.Submeshes[0].Validate(); err != nil {
			t.Fatalf("accepted source makes an invalid submesh: %v", err)
		}
	})
}

// CheckWorldImages reads blobs the validator is handed from disk: any
// bytes give an error or a world, never a panic.
func FuzzCheckWorldImages(f *testing.F) {
	jobs, err := Plan([]string{filepath.Join(samplesDir(), "box.gltf")})
	if err != nil {
		f.Fatal(err)
	}
	opts := DefaultOptions()
	opts.Targets = []string{TargetCNB}
	opts.LOD.Ratios = []float32{0.5}
	var all []cnbResource
	for _, j := range jobs {
		r := cookJob(context.Background(), j, opts)
		if r.err != nil {
			f.Fatal(r.err)
		}
		all = append(all, r.cnb...)
	}
	opts.BlobCeiling = 0 // one payload per blob: blob 0 holds metadata and the mesh
	w, err := buildWorld(all, opts)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(w.images[0], []byte(nil))
	if len(w.images) > 1 {
		f.Add(w.images[0], w.images[1])
	}
	f.Fuzz(func(t *testing.T, b0, b1 []byte) {
		images := [][]byte{b0}
		if b1 != nil {
			images = append(images, b1)
		}
		meta, err := CheckWorldImages(images)
		if err == nil && meta == nil {
			t.Fatal("no error and no metadata")
		}
	})
}
