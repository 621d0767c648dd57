package meshlet

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The cached shuffle order gives minBall's ball to the bit, for every
// point count the cache serves and past it (the points end in minBall's
// order), and leaves its input as it was.
func TestShuffleCacheMinBallOfMatchesMinBall(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var c shuffleCache
	var dst [][3]float64
	for _, n := range []int{1, 2, 3, 4, 5, 17, 64, 124, 255, 256, 511, 512, 513, 700, 64, 3} {
		src := make([][3]float64, n)
		for i := range src {
			src[i] = [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		}
		keep := append([][3]float64(nil), src...)
		moved := append([][3]float64(nil), src...)
		want := minBall(moved)
		var got ball
		got, dst = c.minBallOf(src, dst)
		require.Equal(t, want, got, "n=%d", n)
		// The same start order: move-to-front left the points in the
		// same final order too.
		require.Equal(t, moved, dst[:n], "n=%d", n)
		require.Equal(t, keep, src, "n=%d: input reordered", n)
	}
}
