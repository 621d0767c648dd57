package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/meshcook/meshcook/cook"
)

// stageBar is cook's progress bar on a terminal: assets done of total, and
// as its description the running asset, its stage, the fraction of the
// stage done and the seconds the stage has run. A ticker redraws it every
// stageBarTick, so the seconds move during a long stage even when no
// stage event arrives.
type stageBar struct {
	bar *progressbar.ProgressBar

	mu   sync.Mutex
	last cook.StageEvent // the latest event of any running job
	at   time.Time       // when it arrived
	has  bool

	stop chan struct{}
	done sync.WaitGroup
}

const stageBarTick = 250 * time.Millisecond

func newStageBar(w io.Writer, jobs int) *stageBar {
	b := &stageBar{
		bar: progressbar.NewOptions(jobs,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("cooking"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString("assets"),
			progressbar.OptionClearOnFinish()),
		stop: make(chan struct{}),
	}
	b.done.Add(1)
	go func() {
		defer b.done.Done()
		t := time.NewTicker(stageBarTick)
		defer t.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-t.C:
				b.redraw()
			}
		}
	}()
	return b
}

// Event records a stage event (cook.Options.StageProgress) and redraws.
func (b *stageBar) Event(ev cook.StageEvent) {
	b.mu.Lock()
	b.last, b.at, b.has = ev, time.Now(), true
	b.mu.Unlock()
	b.redraw()
}

// JobDone moves the bar (cook.Options.Progress).
func (b *stageBar) JobDone(done int) { _ = b.bar.Set(done) }

func (b *stageBar) redraw() {
	b.mu.Lock()
	desc, ok := b.describe(time.Now())
	b.mu.Unlock()
	if ok {
		b.bar.Describe(desc)
	}
}

// describe is the bar's description at now: "chair: lods 40% 3s".
func (b *stageBar) describe(now time.Time) (string, bool) {
	if !b.has {
		return "", false
	}
	return stageLine(b.last, now.Sub(b.at)), true
}

// stageLine is one stage's progress: name, stage, percent done, and the
// stage's seconds so far (since adds the time since the event arrived
// while the stage still runs).
func stageLine(ev cook.StageEvent, since time.Duration) string {
	elapsed := ev.Elapsed
	if !ev.Finished {
		elapsed += since
	}
	pct := 0
	if ev.Total > 0 {
		pct = 100 * ev.Done / ev.Total
	}
	return fmt.Sprintf("%s: %s %d%% %.0fs", ev.Job.Name, ev.Stage, pct, elapsed.Seconds())
}

// Stop ends the ticker and clears the bar.
func (b *stageBar) Stop() {
	close(b.stop)
	b.done.Wait()
	_ = b.bar.Finish()
}

// slowStage is the stage time from which piped stderr gets a line.
const slowStage = time.Second

// logSlowStages returns a StageProgress hook that writes one line per
// stage of a job that took at least slowStage, when it finishes:
// "chair: lods 3.2 s". mu serializes it with the per-asset lines.
func logSlowStages(w io.Writer, mu *sync.Mutex) func(cook.StageEvent) {
	return func(ev cook.StageEvent) {
		if !ev.Finished || ev.Elapsed < slowStage {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "%s: %s %.1f s\n", ev.Job.Name, ev.Stage, ev.Elapsed.Seconds())
	}
}
