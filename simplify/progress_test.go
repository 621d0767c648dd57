package simplify

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// progressLog records Options.Progress calls and checks their invariants.
type progressLog struct {
	t     *testing.T
	calls [][2]int
}

func (l *progressLog) fn(done, total int) {
	if n := len(l.calls); n > 0 {
		assert.Greater(l.t, done, l.calls[n-1][0], "done must grow")
		assert.Equal(l.t, l.calls[n-1][1], total, "total must not change")
	}
	assert.GreaterOrEqual(l.t, done, 0)
	assert.LessOrEqual(l.t, done, total)
	l.calls = append(l.calls, [2]int{done, total})
}

func TestChainProgress(t *testing.T) {
	m := grid(120, 120, func(x, y float64) float64 { return 0.1 * math.Sin(7*x) * math.Cos(5*y) })
	ratios := []float32{0.5, 0.25, 0.1}
	plain, err := Chain(m.idx, m.pos, m.attrs, ratios, Options{TargetError: 1})
	require.NoError(t, err)

	log := &progressLog{t: t}
	got, err := Chain(m.idx, m.pos, m.attrs, ratios, Options{TargetError: 1, Progress: log.fn})
	require.NoError(t, err)
	assert.Equal(t, plain, got, "Progress must not change the levels")

	inTris := len(m.idx) / 3
	total := inTris - int(float64(inTris)*0.1)
	require.GreaterOrEqual(t, len(log.calls), 4, "a report per pass of every level: %v", log.calls)
	last := log.calls[len(log.calls)-1]
	assert.Equal(t, [2]int{total, total}, last, "the last report is done == total")
	// Reports in the middle: some pass ended between the first and the
	// last level.
	var mid bool
	for _, c := range log.calls {
		if c[0] > total/4 && c[0] < total*3/4 {
			mid = true
		}
	}
	assert.True(t, mid, "no report between a quarter and three quarters: %v", log.calls)
}

func TestSimplifyProgressStalled(t *testing.T) {
	// A tight error limit stops collapse above the target: the last report
	// still says done == total, so a bar finishes.
	m := sphere(40, 80)
	log := &progressLog{t: t}
	res, err := SimplifyContext(context.Background(), m.idx, m.pos, m.attrs, Options{TargetIndexCount: 3, TargetError: 1e-4, Progress: log.fn})
	require.NoError(t, err)
	require.True(t, res.Stalled)
	require.NotEmpty(t, log.calls)
	last := log.calls[len(log.calls)-1]
	assert.Equal(t, last[0], last[1])
	assert.Equal(t, len(m.idx)/3-1, last[1])
}
