package bake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/meshpack"
)

// FuzzParseCatalog: any bytes either fail with a "bake: catalog: " error or
// give a catalog that bakes (when small enough to bake quickly) into a pack
// the reader accepts.
func FuzzParseCatalog(f *testing.F) {
	for _, name := range []string{"buildings.json", "equipment.json"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "catalog", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"version": 1, "entries": [{"name": "a", "states": [{"name": "s", "parts": [{"primitive": "torus", "tube": 0.2, "segments": 8}]}]}]}`))
	f.Add([]byte(`{"version": 1, "family": "rigged", "entries": [{"name": "a/b", "states": [{"name": "s", "parts": [{"primitive": "capsule", "bones": [[1, 0.5], [2, 0.5]], "matrix": [1,0,0,0, 0,-1,0,0, 0,0,1,0]}]}]}]}`))
	f.Add([]byte(`{"version": 1, "family": "rigged", "entries": [{"name": "a/b", "states": [{"name": "s", "parts": [{"source": "skinned/knight.gltf", "mesh": "Body", "role": 2}, {"primitive": "box", "bone": 1}]}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseCatalog(strings.NewReader(string(b)))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "bake: catalog") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		work := 0
		for _, e := range c.Entries {
			for _, s := range e.States {
				for _, p := range s.Parts {
					work += p.Shape.Segments
					if p.Source != nil {
						work += 1 << 20 // would read files: parse only
					}
				}
			}
		}
		if work > 2000 {
			return
		}
		p, _, err := BakeCatalog(context.Background(), c, Options{Tolerance: 0.01})
		if err != nil {
			t.Fatalf("a valid catalog does not bake: %v", err)
		}
		file, err := meshpack.Marshal(p)
		if err != nil {
			t.Fatalf("baked pack does not marshal: %v", err)
		}
		if _, err := meshpack.Decode(file); err != nil {
			t.Fatalf("baked pack does not decode: %v", err)
		}
	})
}
