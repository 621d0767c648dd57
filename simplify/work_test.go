package simplify

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fan is n triangles around one centre vertex: a flat disc whose centre
// has valence n, with constant normals (the worst case for per-vertex
// work: every spoke is a candidate edge of the centre).
func fan(n int) testMesh {
	m := testMesh{pos: [][3]float32{{0, 0, 0}}}
	for k := range n {
		a := 2 * math.Pi * float64(k) / float64(n)
		m.pos = append(m.pos, [3]float32{float32(math.Cos(a)), float32(math.Sin(a)), 0})
	}
	for k := range n {
		m.idx = append(m.idx, 0, uint32(1+k), uint32(1+(k+1)%n))
	}
	for range m.pos {
		m.attrs.Normals = append(m.attrs.Normals, [3]float32{0, 0, 1})
	}
	return m
}

// chainWork runs the cook's default chain on m and returns the levels and
// the work units spent (see work.go).
func chainWork(t *testing.T, m testMesh) ([]Level, int64) {
	t.Helper()
	p := &probe{}
	levels, err := Chain(m.idx, m.pos, m.attrs, DefaultRatios(), Options{AttributeWeights: Weights{Normal: 0.5}, probe: p})
	require.NoError(t, err)
	for _, l := range levels {
		requireValid(t, m.idx, l.Indices, len(m.pos))
		assert.LessOrEqual(t, float64(l.Error), DefaultTargetError*(1+1e-6), "level %v", l.Ratio)
	}
	return levels, p.work
}

// Work around a vertex of huge valence stays linear in the triangles: a
// fan takes about as much work per triangle as a grid of the same size
// and four times the fan four times the work (it was quadratic: a 200k
// fan never finished), and it still reaches every level's target (the
// rim collapses along its border while the centre waits).
func TestFanWorkLinear(t *testing.T) {
	const n = 8000
	small, wSmall := chainWork(t, fan(n))
	big, wBig := chainWork(t, fan(4*n))
	g := grid(63, 63, nil) // 7938 triangles
	g.attrs = Attributes{Normals: make([][3]float32, len(g.pos))}
	for i := range g.attrs.Normals {
		g.attrs.Normals[i] = [3]float32{0, 0, 1}
	}
	_, wGrid := chainWork(t, g)

	for i, levels := range [][]Level{small, big} {
		in := n << (2 * i)
		for _, l := range levels {
			want := int(float64(in) * float64(l.Ratio))
			assert.False(t, l.Short, "fan %d level %v short", in, l.Ratio)
			assert.LessOrEqual(t, len(l.Indices)/3, want, "fan %d level %v", in, l.Ratio)
		}
	}
	perTri := func(w int64, tris int) float64 { return float64(w) / float64(tris) }
	t.Logf("work per triangle: fan %d %.1f, fan %d %.1f, grid %.1f", n, perTri(wSmall, n), 4*n, perTri(wBig, 4*n), perTri(wGrid, len(g.idx)/3))
	assert.Less(t, float64(wBig), 6*float64(wSmall), "4× the fan: work %d vs %d, want about 4× (quadratic would be 16×)", wBig, wSmall)
	assert.Less(t, perTri(wBig, 4*n), 4*perTri(wGrid, len(g.idx)/3), "fan work per triangle against a grid's")
}

// A context done before the start stops Simplify and Chain with an error
// that wraps its cause, and no result.
func TestSimplifyContextDone(t *testing.T) {
	m := sphere(24, 48)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := SimplifyContext(ctx, m.idx, m.pos, m.attrs, Options{TargetIndexCount: 300})
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, r.Indices)
	levels, err := ChainContext(ctx, m.idx, m.pos, m.attrs, DefaultRatios(), Options{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, levels)

	dl, stop := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer stop()
	_, err = SimplifyContext(dl, m.idx, m.pos, m.attrs, Options{})
	require.True(t, errors.Is(err, context.DeadlineExceeded), "error %v", err)
}

// Cancelled in the middle of the work (by the probe, at a work count the
// run passes: on a large mesh, where regions walk on several goroutines,
// and on the fan), the simplification returns the context's error after
// at most a few polls' worth of further work, for Simplify and Chain.
func TestSimplifyContextStopsWithinBoundedWork(t *testing.T) {
	big := sphere(160, 256)
	for _, tc := range []struct {
		name  string
		m     testMesh
		chain bool
	}{
		{"sphere", big, false},
		{"sphere chain", big, true},
		{"fan chain", fan(20000), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{TargetIndexCount: len(tc.m.idx) / 3 / 10 * 3, AttributeWeights: Weights{Normal: 0.5}}
			run := func(ctx context.Context, o Options) error {
				if tc.chain {
					_, err := ChainContext(ctx, tc.m.idx, tc.m.pos, tc.m.attrs, []float32{0.5, 0.25, 0.1}, o)
					return err
				}
				_, err := SimplifyContext(ctx, tc.m.idx, tc.m.pos, tc.m.attrs, o)
				return err
			}
			full := &probe{}
			o := opts
			o.probe = full
			require.NoError(t, run(context.Background(), o))
			require.Greater(t, full.work, int64(8*pollWork), "the mesh is too small to stop midway")

			at := full.work / 2
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var cancelledAt atomic.Int64
			p := &probe{onPoll: func(work int64) {
				if work >= at && cancelledAt.CompareAndSwap(0, work) {
					cancel()
				}
			}}
			o = opts
			o.probe = p
			err := run(ctx, o)
			require.ErrorIs(t, err, context.Canceled)
			require.NotZero(t, cancelledAt.Load(), "never cancelled")
			// Region walks poll on their own counts, so the total may be
			// a few polls past the cancelling one (one per goroutine).
			assert.Less(t, p.work-cancelledAt.Load(), int64(4*pollWork)+int64(len(tc.m.idx)/3), "work after the cancel")
		})
	}
}

// dupTriangles is n copies of one triangle on three vertices: every vertex
// has valence n (a 47 KB FBX of two million such copies is a #19 recipe).
func dupTriangles(n int) testMesh {
	m := testMesh{pos: [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}}
	m.idx = make([]uint32, 0, 3*n)
	for range n {
		m.idx = append(m.idx, 0, 1, 2)
	}
	m.attrs = Attributes{Normals: [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}}
	return m
}

// Classifying vertices whose fans are huge is linear in the fans: four
// times the duplicates is about four times the work (it was quadratic:
// each half-edge's twin was searched in a fan as long as the mesh, and
// two million duplicates never finished). Nothing can collapse, so every
// level keeps the input's triangles, and each is valid.
func TestDuplicateTrianglesWorkLinear(t *testing.T) {
	const n = 20000
	small, wSmall := chainWork(t, dupTriangles(n))
	big, wBig := chainWork(t, dupTriangles(4*n))
	for i, levels := range [][]Level{small, big} {
		for _, l := range levels {
			assert.LessOrEqual(t, len(l.Indices)/3, n<<(2*i), "level %v", l.Ratio)
		}
	}
	t.Logf("work: %d duplicates %d, %d duplicates %d", n, wSmall, 4*n, wBig)
	assert.Less(t, float64(wBig), 6*float64(wSmall), "4× the duplicates: work %d vs %d, want about 4× (quadratic would be 16×)", wBig, wSmall)
}
