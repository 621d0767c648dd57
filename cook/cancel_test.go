package cook

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigHeightfield writes a side×side heightfield of pseudo-random heights
// (2·(side-1)² triangles, with generated normals and tangents) into dir.
func bigHeightfield(t *testing.T, dir string, side int) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, side, side))
	x := uint32(12345)
	for i := range img.Pix {
		x = x*1664525 + 1013904223
		img.Pix[i] = byte(x >> 24)
	}
	writePNG(t, filepath.Join(dir, "big.png"), img)
	writeFile(t, filepath.Join(dir, "big.heightfield.json"), []byte(`{"size": [100, 100], "elevation": [0, 10], "image": "big.png"}`))
}

// A cancelled context stops a cook inside its long loops (canonicalize,
// vertex-cache order, LODs, meshlets, bounds), not after them: cancelled
// 20 ms into each stage, Run returns an error wrapping context.Canceled
// soon after, and writes nothing.
// The bound on the time is generous; the test logs what it measured.
func TestCancelStopsLongStages(t *testing.T) {
	if testing.Short() {
		t.Skip("cooks a heightfield of 717,602 triangles")
	}
	dir := t.TempDir()
	bigHeightfield(t, dir, 600)
	jobs, err := Plan([]string{dir})
	require.NoError(t, err)
	for _, stage := range []string{StageCanonicalize, StageReorder, StageLODs, StageMeshlets, StageBounds} {
		ctx, cancel := context.WithCancel(context.Background())
		var once sync.Once
		var mu sync.Mutex
		var at time.Time
		opts := DefaultOptions()
		opts.OutDir = t.TempDir()
		opts.StageProgress = func(e StageEvent) {
			if e.Stage == stage {
				once.Do(func() {
					time.AfterFunc(20*time.Millisecond, func() {
						mu.Lock()
						at = time.Now()
						mu.Unlock()
						cancel()
					})
				})
			}
		}
		start := time.Now()
		_, err := Run(ctx, jobs, opts)
		end := time.Now()
		cancel()
		require.ErrorIs(t, err, context.Canceled, "cancelled in %s", stage)
		mu.Lock()
		cancelled := at
		mu.Unlock()
		took := end.Sub(cancelled)
		t.Logf("cancelled 20 ms into %s (%v after the start): Run returned %v later", stage, cancelled.Sub(start).Round(time.Millisecond), took.Round(time.Millisecond))
		assert.Less(t, took, 15*time.Second, "cancelled at %s", stage)
		ents, err := os.ReadDir(opts.OutDir)
		require.NoError(t, err)
		assert.Empty(t, ents, "a cancelled cook writes nothing")
	}
}
