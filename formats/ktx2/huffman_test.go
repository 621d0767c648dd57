package ktx2

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tables of every shape round-trip through writeTable/readHuffTable, and
// symbols through put/get: one used symbol, two, skewed, flat, long zero
// runs, runs of equal lengths, and a skew deep enough to hit the 16-bit
// limit.
func TestHuffmanRoundTrip(t *testing.T) {
	cases := map[string][]uint32{}
	cases["one"] = []uint32{0, 0, 5}
	cases["none"] = []uint32{0, 0, 0}
	cases["two"] = []uint32{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9}
	flat := make([]uint32, 300)
	for i := range flat {
		flat[i] = 7
	}
	cases["flat"] = flat
	sparse := make([]uint32, 2000)
	for i := 0; i < len(sparse); i += 97 {
		sparse[i] = uint32(i + 1)
	}
	cases["sparse"] = sparse
	fib := make([]uint32, 40)
	a, b := uint32(1), uint32(1)
	for i := range fib {
		fib[i] = a
		a, b = b, a+b
		if a > 1<<30 {
			a = 1 << 30
		}
	}
	cases["fibonacci"] = fib
	for name, freq := range cases {
		h := newHuffCode(freq)
		for _, l := range h.lens {
			assert.LessOrEqual(t, int(l), maxCodeLen, name)
		}
		var w bitWriter
		h.writeTable(&w)
		var syms []int
		for s, f := range freq {
			if f > 0 {
				for range min(f, 3) {
					syms = append(syms, s)
				}
			}
		}
		for _, s := range syms {
			h.put(&w, s)
		}
		r := &bitReader{b: w.bytes()}
		d, err := readHuffTable(r)
		require.NoError(t, err, name)
		for _, s := range syms {
			require.Equal(t, s, d.get(r), name)
		}
		assert.False(t, r.eof, name)
	}
}
