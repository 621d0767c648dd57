package clusterlod

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Each group is simplified and split on a compacted copy of its own
// vertices: the same mesh inside a vertex array with 262,144 unused
// vertices costs a few per-level tables more (position classes, locks, one
// worker table), not a whole-array allocation per group, and gives the
// same hierarchy.
func TestGroupCostIsLocal(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	opts := DefaultOptions()
	m := bumpySphere(60, 120)
	in, small := build(t, m, opts)
	const pad = 1 << 18
	big := testMesh{pos: make([][3]float32, pad, pad+len(m.pos))}
	for i := range big.pos {
		big.pos[i] = [3]float32{float32(i), -5, 0} // unreferenced
	}
	big.pos = append(big.pos, m.pos...)
	for _, v := range m.idx {
		big.idx = append(big.idx, v+pad)
	}
	bin, bigH := build(t, big, opts)
	require.Equal(t, len(small.Groups), len(bigH.Groups))
	require.Equal(t, small.Levels, bigH.Levels)

	var h *Hierarchy
	a := allocated(func() { h, _ = Build(t.Context(), in, opts) })
	b := allocated(func() { h, _ = Build(t.Context(), bin, opts) })
	require.NotNil(t, h)
	extra := float64(b) - float64(a)
	perVertex := extra / pad
	t.Logf("groups %d levels %d: %d B vs %d B, %.1f B per unused vertex", len(small.Groups), small.Levels, a, b, perVertex)
	// Per-level tables are a few bytes per vertex per level (plus the
	// position-class map once); copying even just the positions (12 B a
	// vertex) for every group would cost twice this bound or more.
	require.Less(t, perVertex, float64(16*small.Levels+64))
	require.Less(t, perVertex, float64(12*len(small.Groups))/2)
}
