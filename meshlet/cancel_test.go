package meshlet

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callsCtx is a context whose Err is nil for its first n calls and
// context.Canceled after them: it stops a function at its (n+1)th look,
// so a test can tell checks inside a loop from the one at the start.
type callsCtx struct {
	context.Context
	left atomic.Int64
}

func afterCalls(n int64) *callsCtx {
	c := &callsCtx{Context: context.Background()}
	c.left.Store(n)
	return c
}

func (c *callsCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// The vertex-cache searches look at their context as they go, not only
// before they start: past the first look they stop with an error wrapping
// context.Canceled; with looks to spare they give the plain result.
func TestVertexCacheContext(t *testing.T) {
	idx, pos := grid(200) // 79,202 triangles: several checks
	for name, fn := range map[string]func(context.Context, []uint32, int) ([]uint32, error){
		"refined": OptimizeVertexCacheContext, "greedy": OptimizeVertexCacheGreedyContext,
	} {
		for _, n := range []int64{0, 1, 3} {
			out, err := fn(afterCalls(n), idx, len(pos))
			require.ErrorIs(t, err, context.Canceled, "%s, %d looks", name, n)
			assert.Nil(t, out)
			assert.Contains(t, err.Error(), "meshlet: ")
		}
		out, err := fn(afterCalls(1000), idx, len(pos))
		require.NoError(t, err)
		want := OptimizeVertexCacheGreedy(idx, len(pos))
		if name == "refined" {
			want = OptimizeVertexCache(idx, len(pos))
		}
		assert.Equal(t, want, out, name)
	}
}

// Build in parts looks at its context before each part; bounds before
// each chunk of meshlets.
func TestBuildAndBoundsContext(t *testing.T) {
	idx, pos := grid(270) // 144,722 triangles: two parts
	opts := DefaultOptions()
	for _, n := range []int64{0, 1} {
		_, err := BuildContext(afterCalls(n), idx, pos, opts)
		require.ErrorIs(t, err, context.Canceled, "%d looks", n)
	}
	r, err := BuildContext(afterCalls(1000), idx, pos, opts)
	require.NoError(t, err)
	want := mustBuild(t, idx, pos, opts)
	assert.Equal(t, want, r)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b, err := ComputeAllBoundsContext(ctx, r, pos)
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, b)
	b, err = ComputeAllBoundsContext(context.Background(), r, pos)
	require.NoError(t, err)
	assert.Equal(t, ComputeAllBounds(r, pos), b)
}
