package par

import (
	"runtime"
	"sync/atomic"
	"testing"
)

func TestWorkersRunsEachIndexOnce(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 7, 100} {
		const n = 1000
		var hits [n]atomic.Int32
		var badWorker atomic.Bool
		Workers(n, workers, func(w, i int) {
			if w < 0 || w >= max(workers, 1) {
				badWorker.Store(true)
			}
			hits[i].Add(1)
		})
		for i := range hits {
			if h := hits[i].Load(); h != 1 {
				t.Fatalf("workers %d: index %d ran %d times", workers, i, h)
			}
		}
		if badWorker.Load() {
			t.Fatalf("workers %d: worker number out of range", workers)
		}
	}
}

func TestRangesCoverInOrder(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	for _, tc := range []struct{ n, size, want int }{{0, 4, 0}, {1, 4, 1}, {8, 4, 2}, {9, 4, 3}, {5, 0, 5}} {
		seen := make([]int32, tc.n)
		los := make([]int, max(tc.want, 1))
		k := Ranges(tc.n, tc.size, func(k, lo, hi int) {
			los[k] = lo
			for i := lo; i < hi; i++ {
				seen[i]++
			}
		})
		if k != tc.want {
			t.Fatalf("Ranges(%d, %d) = %d ranges, want %d", tc.n, tc.size, k, tc.want)
		}
		for i, s := range seen {
			if s != 1 {
				t.Fatalf("Ranges(%d, %d): element %d covered %d times", tc.n, tc.size, i, s)
			}
		}
		for i := 1; i < k; i++ {
			if los[i] <= los[i-1] {
				t.Fatalf("Ranges(%d, %d): range %d starts at %d, not after %d", tc.n, tc.size, i, los[i], los[i-1])
			}
		}
	}
}
