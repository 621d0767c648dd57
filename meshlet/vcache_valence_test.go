package meshlet

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fanIndices is n triangles around vertex 0 (valence n), over n+1 vertices.
func fanIndices(n int) ([]uint32, int) {
	idx := make([]uint32, 0, 3*n)
	for k := range n {
		idx = append(idx, 0, uint32(1+k), uint32(1+(k+1)%n))
	}
	return idx, n + 1
}

// vcacheWork runs the greedy search and the refine pass on idx and
// returns the work each counted per triangle.
func vcacheWork(t *testing.T, idx []uint32, vc int) (greedy, refine float64) {
	out, g, err := greedyVertexCache(context.Background(), idx, vc, newVcacheTables())
	require.NoError(t, err)
	require.Equal(t, sortedTriangles(idx), sortedTriangles(out))
	r := newVcacheRefiner(out, vc)
	r.sweep()
	n := float64(len(idx) / 3)
	return float64(g) / n, float64(r.work) / n
}

// The vertex cache is linear in valence: on a fan around one vertex its
// work per triangle (live-list entries visited, use lists scanned and
// triangles simulated) stays within 2× a grid's of the same size and does
// not grow with the fan (it grew linearly before candidate lists were
// bounded: a 200k-triangle fan took over a minute).
func TestVertexCacheLinearInValence(t *testing.T) {
	var fanG, fanR []float64
	for _, side := range []int{50, 100, 200} {
		grid, gvc := gridIndices(side)
		grid = shuffleTriangles(grid, 1)
		fan, fvc := fanIndices(len(grid) / 3)
		gg, gr := vcacheWork(t, grid, gvc)
		fg, fr := vcacheWork(t, fan, fvc)
		t.Logf("%d triangles: grid greedy %.1f refine %.1f per triangle, fan greedy %.1f refine %.1f", len(grid)/3, gg, gr, fg, fr)
		assert.LessOrEqual(t, fg, 2*gg, "greedy work on the fan")
		assert.LessOrEqual(t, fr, 2*max(gr, 1), "refine work on the fan")
		fanG, fanR = append(fanG, fg), append(fanR, fr)
	}
	// Quadrupling the fan keeps the work per triangle flat.
	assert.LessOrEqual(t, fanG[2], 1.1*fanG[0])
	assert.LessOrEqual(t, fanR[2], 1.1*max(fanR[0], 1))
}
