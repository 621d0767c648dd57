package par

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

// First gives what one loop in order would stop at, for every goroutine
// count and range size, with hits in several ranges or none.
func TestFirstIsTheLowestHit(t *testing.T) {
	const n = 10007
	for _, hits := range [][]int{nil, {0}, {n - 1}, {5000, 17, 9000}, {4096, 4095}} {
		bad := make([]bool, n)
		want := -1
		for _, h := range hits {
			bad[h] = true
			if want < 0 || h < want {
				want = h
			}
		}
		for _, procs := range []int{1, 2, 8} {
			prev := runtime.GOMAXPROCS(procs)
			for _, size := range []int{1, 7, 4096, n, 2 * n} {
				got := First(n, size, func(lo, hi int) int {
					for i := lo; i < hi; i++ {
						if bad[i] {
							return i
						}
					}
					return -1
				})
				assert.Equal(t, want, got, "hits %v, GOMAXPROCS %d, size %d", hits, procs, size)
			}
			runtime.GOMAXPROCS(prev)
		}
	}
	require.Equal(t, -1, First(0, 4, func(int, int) int { return 0 }))
}
