package cli

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/cook"
)

// syncBuffer is a bytes.Buffer safe for the bar's ticker goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The bar names the running asset, its stage and the fraction done, and
// its seconds keep moving while a stage runs without new events.
func TestStageLineMovesDuringAStage(t *testing.T) {
	ev := cook.StageEvent{Job: cook.Job{Name: "models/chair"}, Stage: cook.StageLODs, Done: 1, Total: 4, Elapsed: 2 * time.Second}
	assert.Equal(t, "models/chair: lods 25% 2s", stageLine(ev, 0))
	assert.Equal(t, "models/chair: lods 25% 5s", stageLine(ev, 3*time.Second), "a running stage's seconds grow with the time since its event")
	ev.Finished = true
	assert.Equal(t, "models/chair: lods 25% 2s", stageLine(ev, 3*time.Second), "a finished stage keeps its time")
}

// Without any new event the ticker redraws the bar: the stage's seconds
// move at least once a second.
func TestStageBarRedrawsWithoutEvents(t *testing.T) {
	var out syncBuffer
	bar := newStageBar(&out, 1)
	bar.Event(cook.StageEvent{Job: cook.Job{Name: "big"}, Stage: cook.StageReorder, Total: 10})
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "big: reorder 0% 1s") },
		5*time.Second, 50*time.Millisecond, "the bar never showed the stage's second second: %q", out.String())
	bar.Stop()
}

// Piped stderr gets one line per stage that took at least a second.
func TestLogSlowStages(t *testing.T) {
	var out bytes.Buffer
	var mu sync.Mutex
	log := logSlowStages(&out, &mu)
	job := cook.Job{Name: "big"}
	log(cook.StageEvent{Job: job, Stage: cook.StageLODs, Done: 1, Total: 2, Elapsed: 3 * time.Second})
	log(cook.StageEvent{Job: job, Stage: cook.StageMeshlets, Done: 2, Total: 2, Elapsed: 200 * time.Millisecond, Finished: true})
	log(cook.StageEvent{Job: job, Stage: cook.StageLODs, Done: 2, Total: 2, Elapsed: 3200 * time.Millisecond, Finished: true})
	assert.Equal(t, "big: lods 3.2 s\n", out.String())
}
