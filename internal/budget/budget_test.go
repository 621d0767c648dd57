package budget

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each check passes at its limit, refuses one past it with an *Error that
// names the file, the count, the limit and the flag; zero fields default.
func TestChecks(t *testing.T) {
	b := Budget{Triangles: 10, ImagePixels: 100, DecodedBytes: 1000}
	require.NoError(t, b.CheckTriangles("a.glb", 10))
	require.NoError(t, b.CheckImage("a.glb", "image 0", 10, 10))
	require.NoError(t, b.CheckDecoded("a.fbx", 1000))

	err := b.CheckTriangles("a.glb", 11)
	require.ErrorIs(t, err, ErrExceeded)
	assert.Equal(t, "budget: a.glb: triangles 11 is more than the limit of 10 (raise it with --max-triangles)", err.Error())
	err = b.CheckImage("a.glb", `image 0 ("c")`, 11, 10)
	require.ErrorIs(t, err, ErrExceeded)
	assert.Contains(t, err.Error(), "11×10")
	assert.Contains(t, err.Error(), FlagImagePixels)
	err = b.CheckDecoded("", 1001)
	require.ErrorIs(t, err, ErrExceeded)
	assert.Equal(t, "budget: decoded bytes 1001 is more than the limit of 1000 (raise it with --max-decoded-bytes)", err.Error())
	assert.Error(t, b.CheckImage("x", "image", -1, 5))

	var zero Budget
	assert.Equal(t, Default(), zero.OrDefault())
	require.NoError(t, zero.CheckTriangles("x", DefaultTriangles))
	require.Error(t, zero.CheckTriangles("x", DefaultTriangles+1))
	assert.Equal(t, 3*DefaultTriangles, zero.MaxCorners())
	assert.Equal(t, 1<<31-1, Budget{Triangles: 1 << 40}.MaxCorners())
}

// The pool never lets reservations add up past its total, serves a
// request larger than the whole pool alone, and stops waiting when the
// context is cancelled.
func TestPool(t *testing.T) {
	p := NewPool(100)
	ctx := context.Background()
	var inUse, peak atomic.Int64
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n := int64(10 + 30*(i%3)) // 10, 40, 70, and one of 500 below
			if i == 7 {
				n = 500
			}
			release, err := p.Acquire(ctx, n)
			if !assert.NoError(t, err) {
				return
			}
			cur := inUse.Add(min(n, 100))
			for {
				old := peak.Load()
				if cur <= old || peak.CompareAndSwap(old, cur) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			inUse.Add(-min(n, 100))
			release()
			release() // a second call is harmless
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, peak.Load(), int64(100))
	assert.Equal(t, int64(0), p.used)

	hold, err := p.Acquire(ctx, 100)
	require.NoError(t, err)
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		_, err := p.Acquire(cctx, 1)
		done <- err
	}()
	time.Sleep(5 * time.Millisecond)
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	hold()

	var nilPool *Pool
	r, err := nilPool.Acquire(ctx, 1<<40)
	require.NoError(t, err)
	r()
	assert.Nil(t, PoolFrom(ctx))
	assert.Same(t, p, PoolFrom(WithPool(ctx, p)))
}
