package mesh

import "testing"

// BenchmarkCanonicalizeSphere: a 256×512 UV sphere (262k triangles, seam and
// pole duplicates, no normals or tangents) through the whole pipeline.
func BenchmarkCanonicalizeSphere(b *testing.B) {
	src := uvSphere(256, 512)
	b.ReportAllocs()
	for b.Loop() {
		s := clone(src)
		if _, err := Canonicalize(s, CanonicalOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
