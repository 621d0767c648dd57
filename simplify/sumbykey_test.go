package simplify

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// sumByKey's ranges cover every key exactly once, for every goroutine
// count and key count, and small blocks stay on one call.
func TestSumByKeyCoversEveryKeyOnce(t *testing.T) {
	for _, procs := range []int{1, 2, 3, 7} {
		prev := runtime.GOMAXPROCS(procs)
		for _, n := range []int{parChunk, parChunk + 1, 3*parChunk + 7, 100003} {
			var mu sync.Mutex
			seen := make([]int, n)
			calls := 0
			sumByKey(n, parChunk, func(lo, hi uint32) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				for k := lo; k < hi; k++ {
					seen[k]++
				}
			})
			for k, c := range seen {
				require.Equalf(t, 1, c, "GOMAXPROCS %d, %d keys: key %d summed %d times", procs, n, k, c)
			}
			require.Equal(t, procs, calls, "one range per goroutine")
		}
		calls := 0
		sumByKey(100003, parChunk-1, func(lo, hi uint32) {
			calls++
			require.Equal(t, uint32(0), lo)
			require.Equal(t, uint32(100003), hi)
		})
		require.Equal(t, 1, calls, "a block under parChunk faces is summed in one call")
		runtime.GOMAXPROCS(prev)
	}
}
