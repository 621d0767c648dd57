package meshlet

import (
	"context"
	"testing"
)

// BenchmarkOptimizeVertexCacheSplitLarge orders a shuffled ~1M-triangle
// UV sphere in 64k-triangle parts on GOMAXPROCS threads (the cook's
// vertex-cache path for big buffers).
func BenchmarkOptimizeVertexCacheSplitLarge(b *testing.B) {
	idx, pos := uvSphere(708, 708) // 2·708·707 = 1,001,112 triangles
	in := shuffleTriangles(idx, 4)
	b.ReportAllocs()
	b.SetBytes(int64(4 * len(in)))
	for b.Loop() {
		if _, err := OptimizeVertexCacheSplitContext(context.Background(), in, pos); err != nil {
			b.Fatal(err)
		}
	}
}
