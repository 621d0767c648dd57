package fbx

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoadLargest imports the largest FBX file of the corpus (by
// bytes; today the 1.3 MB ASCII box with a base64 texture split over many
// strings) and, as a geometry-heavy case, the skinned
// animation_with_skeleton.fbx.
func BenchmarkLoadLargest(b *testing.B) {
	dir := corpusDir(b, "fbx")
	var largest string
	var size int64
	for _, f := range fbxFiles(b, dir) {
		if st, err := os.Stat(f); err == nil && st.Size() > size {
			largest, size = f, st.Size()
		}
	}
	if largest == "" {
		b.Skip("no FBX in the corpus")
	}
	for _, f := range []string{largest, filepath.Join(dir, "assimp_skeleton", "animation_with_skeleton.fbx")} {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Skip(err)
		}
		b.Run(filepath.Base(f), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(data, f, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
