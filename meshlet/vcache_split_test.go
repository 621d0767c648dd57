package meshlet

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A buffer of at most one part is ordered exactly as the greedy search
// orders it.
func TestOptimizeVertexCacheSplitOnePartIsGreedy(t *testing.T) {
	idx, pos := grid(150) // 44,402 triangles
	idx = shuffleTriangles(idx, 3)
	out, err := OptimizeVertexCacheSplitContext(context.Background(), idx, pos)
	require.NoError(t, err)
	assert.Equal(t, OptimizeVertexCacheGreedy(idx, len(pos)), out)
}

// Parts keep every triangle (corner order too), cost little ACMR against
// one greedy run, and the bytes do not depend on GOMAXPROCS.
func TestOptimizeVertexCacheSplitParts(t *testing.T) {
	idx, pos := grid(301) // 180,000 triangles: 3 parts
	for _, shuffled := range []bool{false, true} {
		in := idx
		if shuffled {
			in = shuffleTriangles(idx, 5)
		}
		prev := runtime.GOMAXPROCS(1)
		one, err := OptimizeVertexCacheSplitContext(context.Background(), in, pos)
		runtime.GOMAXPROCS(prev)
		require.NoError(t, err)
		require.Equal(t, sortedTriangles(in), sortedTriangles(one))
		for _, procs := range []int{2, 8} {
			prev := runtime.GOMAXPROCS(procs)
			got, err := OptimizeVertexCacheSplitContext(context.Background(), in, pos)
			runtime.GOMAXPROCS(prev)
			require.NoError(t, err)
			require.Equal(t, one, got, "GOMAXPROCS %d, shuffled %v", procs, shuffled)
		}
		whole := AnalyzeVertexCache(OptimizeVertexCacheGreedy(in, len(pos)), len(pos), 16)
		split := AnalyzeVertexCache(one, len(pos), 16)
		t.Logf("shuffled %v: ACMR one run %.4f, parts %.4f", shuffled, whole.ACMR, split.ACMR)
		assert.Less(t, split.ACMR, 1.01*whole.ACMR, "shuffled %v", shuffled)
		assert.NotEqual(t, OptimizeVertexCacheGreedy(in, len(pos)), one, "one part only?")
	}
}

// Small parts exercise the split on small meshes: many parts, the
// remainder part, parts of scrambled vertex numbering; each part is a
// contiguous run of the output whose triangles are spatially together.
func TestSplitVertexCacheSmallParts(t *testing.T) {
	idx, pos := grid(64) // 7,938 triangles
	in := shuffleTriangles(idx, 9)
	shuffled := AnalyzeVertexCache(in, len(pos), 16).ACMR // about 3
	// Even one triangle a part gives the k-d split's order, which is
	// spatially coherent.
	for part, most := range map[int]float64{1: 1.0, 7: 1.0, 1000: 0.72, 4096: 0.7} {
		out, _, err := splitVertexCache(context.Background(), in, pos, part)
		require.NoError(t, err)
		require.Equal(t, sortedTriangles(in), sortedTriangles(out), "part %d", part)
		st := AnalyzeVertexCache(out, len(pos), 16)
		t.Logf("part %d: ACMR %.3f (input %.3f)", part, st.ACMR, shuffled)
		assert.Less(t, st.ACMR, most, "part %d", part)
	}
}

// An index past the vertex count leaves the order as it is; empty and
// short buffers come back as they are.
func TestOptimizeVertexCacheSplitInvalidAndEmpty(t *testing.T) {
	idx, pos := grid(20)
	bad := append([]uint32(nil), idx...)
	bad[7] = uint32(len(pos))
	out, _, err := splitVertexCache(context.Background(), bad, pos, 16)
	require.NoError(t, err)
	assert.Equal(t, bad, out)
	out, err = OptimizeVertexCacheSplitContext(context.Background(), []uint32{0, 1}, pos)
	require.NoError(t, err)
	assert.Empty(t, out)
}

// A done context stops the split (before it starts and inside the parts)
// with an error wrapping context.Canceled.
func TestOptimizeVertexCacheSplitContext(t *testing.T) {
	idx, pos := grid(64)
	for _, n := range []int64{0, 1, 2} {
		out, _, err := splitVertexCache(afterCalls(n), idx, pos, 1000)
		require.ErrorIs(t, err, context.Canceled, "%d looks", n)
		assert.Nil(t, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := OptimizeVertexCacheSplitContext(ctx, idx, pos)
	require.ErrorIs(t, err, context.Canceled)
}

// Parts keep the search linear in valence: a fan cut into parts costs
// per triangle at most 2× a grid's of the same size.
func TestSplitVertexCacheLinearInValence(t *testing.T) {
	gidx, gpos := grid(201) // 80,000 triangles
	gidx = shuffleTriangles(gidx, 1)
	n := len(gidx) / 3
	fidx, _ := fanIndices(n)
	fpos := make([][3]float32, n+1)
	for k := 1; k <= n; k++ {
		a := 2 * 3.141592653589793 * float64(k) / float64(n)
		fpos[k] = [3]float32{float32(math.Cos(a)), float32(math.Sin(a)), 0}
	}
	_, gw, err := splitVertexCache(context.Background(), gidx, gpos, 1<<14)
	require.NoError(t, err)
	_, fw, err := splitVertexCache(context.Background(), fidx, fpos, 1<<14)
	require.NoError(t, err)
	t.Logf("work per triangle: grid %.1f, fan %.1f", float64(gw)/float64(n), float64(fw)/float64(n))
	assert.Positive(t, gw)
	assert.LessOrEqual(t, fw, 2*gw)
}

// Non-finite positions cost order quality only: the output is still a
// permutation of the triangles, the same on every run.
func TestSplitVertexCacheNonFinitePositions(t *testing.T) {
	idx, pos := grid(64)
	pos = append([][3]float32(nil), pos...)
	for i := 0; i < len(pos); i += 7 {
		pos[i][i%3] = float32(math.NaN())
		if i%2 == 0 {
			pos[i][(i+1)%3] = float32(math.Inf(1 - 2*(i%4/2)))
		}
	}
	out, _, err := splitVertexCache(context.Background(), idx, pos, 1000)
	require.NoError(t, err)
	require.Equal(t, sortedTriangles(idx), sortedTriangles(out))
	again, _, err := splitVertexCache(context.Background(), idx, pos, 1000)
	require.NoError(t, err)
	assert.Equal(t, out, again)
}
