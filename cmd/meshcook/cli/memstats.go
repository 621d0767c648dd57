package cli

import (
	"fmt"
	"io"
	"runtime/metrics"
	"sync"
	"time"
)

// memSampler records the Go runtime's peak memory figures during a cook
// for --stats: runtime/metrics gives current values only, so a goroutine
// samples them every memSampleEvery and keeps the maxima.
type memSampler struct {
	stop chan struct{}
	done sync.WaitGroup

	mu          sync.Mutex
	peakHeap    uint64 // heap objects, live and not yet swept
	peakRuntime uint64 // everything the runtime has mapped and not released
	samples     []metrics.Sample
}

const memSampleEvery = 5 * time.Millisecond

const (
	metricHeapObjects = "/memory/classes/heap/objects:bytes"
	metricTotal       = "/memory/classes/total:bytes"
	metricReleased    = "/memory/classes/heap/released:bytes"
	metricAllocs      = "/gc/heap/allocs:bytes"
	metricGCs         = "/gc/cycles/total:gc-cycles"
)

func startMemSampler() *memSampler {
	m := &memSampler{stop: make(chan struct{})}
	for _, name := range []string{metricHeapObjects, metricTotal, metricReleased, metricAllocs, metricGCs} {
		m.samples = append(m.samples, metrics.Sample{Name: name})
	}
	m.sample()
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		t := time.NewTicker(memSampleEvery)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.sample()
			}
		}
	}()
	return m
}

func (m *memSampler) sample() {
	m.mu.Lock()
	defer m.mu.Unlock()
	metrics.Read(m.samples)
	heap, total, released := m.value(0), m.value(1), m.value(2)
	m.peakHeap = max(m.peakHeap, heap)
	m.peakRuntime = max(m.peakRuntime, total-min(released, total))
}

func (m *memSampler) value(i int) uint64 {
	if m.samples[i].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return m.samples[i].Value.Uint64()
}

// Stop ends sampling (after one last sample) and prints the figures.
func (m *memSampler) Stop(w io.Writer) {
	close(m.stop)
	m.done.Wait()
	m.sample()
	m.mu.Lock()
	defer m.mu.Unlock()
	const mib = 1 << 20
	fmt.Fprintf(w, "peak Go heap:  %.1f MiB (objects, live or unswept; sampled every %s)\n", float64(m.peakHeap)/mib, memSampleEvery)
	fmt.Fprintf(w, "peak Go total: %.1f MiB (all memory the Go runtime held from the OS)\n", float64(m.peakRuntime)/mib)
	fmt.Fprintf(w, "allocated:     %.1f MiB in total, %d GC cycles\n", float64(m.value(3))/mib, m.value(4))
	if rss, ok := peakRSS(); ok {
		fmt.Fprintf(w, "peak RSS:      %.1f MiB (getrusage)\n", float64(rss)/mib)
	}
}
