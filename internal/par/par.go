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

// First splits 0..n-1 into ranges as Ranges does, runs find(lo, hi) on
// each on up to GOMAXPROCS goroutines, and returns the smallest index any
// range reported, or -1. find returns the first index in [lo, hi) that
// holds what the caller looks for (a bad element), or -1: First then
// returns what one loop over 0..n-1 in order would stop at, whatever
// GOMAXPROCS. Ranges after one that found an index may be skipped.
func First(n, size int, find func(lo, hi int) int) int {
	if n <= 0 {
		return -1
	}
	size = max(size, 1)
	k := (n + size - 1) / size
	if k == 1 {
		return find(0, n)
	}
	var found atomic.Int64 // the lowest range that found one, k when none yet
	found.Store(int64(k))
	hits := make([]int, k)
	Each(k, func(i int) {
		hits[i] = -1
		if int64(i) > found.Load() {
			return // an earlier range already has one
		}
		lo := i * size
		if hits[i] = find(lo, min(lo+size, n)); hits[i] >= 0 {
			for {
				f := found.Load()
				if int64(i) >= f || found.CompareAndSwap(f, int64(i)) {
					break
				}
			}
		}
	})
	for _, h := range hits {
		if h >= 0 {
			return h
		}
	}
	return -1
}
