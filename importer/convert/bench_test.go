package convert

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/meshcook/meshcook/nwb"
)

// BenchmarkImport times the whole import of the corpus's largest FBX
// files by bytes and by geometry: Load, Prepare, nwb.FromScene and
// nwb.Marshal, as `meshcook import` runs them.
func BenchmarkImport(b *testing.B) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "fbx")
	for _, rel := range []string{
		"assimp_embedded_textures/box_embedded_texture_fragmented.fbx", // 1.3 MB, mostly an embedded image
		"assimp_skeleton/animation_with_skeleton.fbx",                  // 2112 skinned triangles
		"ufbx_blender_282_suzanne/blender_282_suzanne_and_transform_7400_binary.fbx",
	} {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if _, err := os.Stat(path); err != nil {
			b.Skipf("%s not present (the shared corpus is only on project machines)", path)
		}
		b.Run(filepath.Base(rel), func(b *testing.B) {
			for b.Loop() {
				src, err := Load(path, DefaultOptions())
				if err != nil {
					b.Fatal(err)
				}
				sc, _, err := Prepare(src, DefaultOptions())
				if err != nil {
					b.Fatal(err)
				}
				files, err := nwb.FromScene(sc, nwb.ExportOptions{Output: "x.nwb"})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := nwb.Marshal(files[0].Doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
