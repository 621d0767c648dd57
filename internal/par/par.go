// Package par runs independent pieces of one computation on up to
// GOMAXPROCS goroutines. Which goroutine runs which piece varies from run
// to run, so callers write only to each piece's own outputs and combine
// them in a fixed order: results then do not depend on GOMAXPROCS.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers runs fn(w, i) for i in 0..n-1 on up to workers goroutines (the
// caller's included; at most n); w numbers the goroutine, so fn can keep
// per-goroutine scratch state indexed by it.
func Workers(n, workers int, fn func(w, i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			fn(0, i)
		}
		return
	}
	var next atomic.Int32
	work := func(w int) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			fn(w, i)
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Go(func() { work(w) })
	}
	work(0)
	wg.Wait()
}

// Each runs fn(i) for i in 0..n-1 on up to GOMAXPROCS goroutines.
func Each(n int, fn func(i int)) {
	Workers(n, runtime.GOMAXPROCS(0), func(_, i int) { fn(i) })
}

// Ranges splits 0..n-1 into consecutive ranges of at most size elements
// and runs fn(k, lo, hi) for range k = [lo, hi) on up to GOMAXPROCS
// goroutines. It returns the number of ranges.
func Ranges(n, size int, fn func(k, lo, hi int)) int {
	if n <= 0 {
		return 0
	}
	size = max(size, 1)
	k := (n + size - 1) / size
	Each(k, func(i int) {
		lo := i * size
		fn(i, lo, min(lo+size, n))
	})
	return k
}
