package cook

import (
	"context"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
)

// Stages run concurrently inside one job (submeshes, the LOD chain beside
// meshlets and bounds, data-parallel chunks, textures, validation), joined
// in a fixed order: every output byte is the same at GOMAXPROCS 1, 2 and
// 8. FlightHelmet has six submeshes, the largest past the simplifier's
// region threshold, and fifteen textures; every target is written.
func TestCookSameForEveryGOMAXPROCS(t *testing.T) {
	src := filepath.Join(testkit.Shared(t, "corpus/gltf/FlightHelmet"), "FlightHelmet.gltf")
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var want map[string]string
	for _, procs := range []int{1, 2, 8} {
		runtime.GOMAXPROCS(procs)
		jobs, err := Plan([]string{src})
		require.NoError(t, err)
		opts := DefaultOptions()
		opts.OutDir = t.TempDir()
		opts.Targets = KnownTargets()
		rep, err := Run(context.Background(), jobs, opts)
		require.NoError(t, err)
		require.Empty(t, rep.Errors)
		got := readTree(t, opts.OutDir)
		require.NotEmpty(t, got)
		if want == nil {
			want = got
			continue
		}
		require.Equal(t, len(want), len(got), "GOMAXPROCS %d: output count", procs)
		for name, b := range want {
			assert.True(t, b == got[name], "GOMAXPROCS %d: %s differs from GOMAXPROCS 1", procs, name)
		}
	}
}

// Every stage of a job reports progress: each one ends with a Finished
// event whose Done is its Total, after events that never go backwards. The
// LOD chain moves within its stage (the terrain is one submesh: without
// the simplifier's reports it would sit at 0% until the chain returned).
func TestStageProgressEvents(t *testing.T) {
	src := filepath.Join(testkit.RepoRoot(t), "testdata", "samples", "terrain.gltf")
	jobs, err := Plan([]string{src})
	require.NoError(t, err)
	opts := DefaultOptions()
	opts.OutDir = t.TempDir()
	var mu sync.Mutex
	last := map[string]StageEvent{}
	finished := map[string]int{}
	partial := map[string]int{}
	opts.StageProgress = func(ev StageEvent) {
		mu.Lock()
		defer mu.Unlock()
		prev, seen := last[ev.Stage]
		assert.True(t, !seen || ev.Done >= prev.Done, "%s went back from %d to %d", ev.Stage, prev.Done, ev.Done)
		assert.LessOrEqual(t, ev.Done, ev.Total, ev.Stage)
		last[ev.Stage] = ev
		if !ev.Finished && ev.Done > 0 && ev.Done < ev.Total {
			partial[ev.Stage]++
		}
		if ev.Finished {
			finished[ev.Stage]++
			assert.Equal(t, ev.Total, ev.Done, ev.Stage)
		}
	}
	rep, err := Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	for _, stage := range stageOrder {
		if stage == StageWrite {
			continue // committed by runJob, timed in the report only
		}
		assert.Equal(t, 1, finished[stage], "stage %s finished events", stage)
	}
	assert.GreaterOrEqual(t, partial[StageLODs], 2, "lods events between 0% and 100%")
}
