package ktx2

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testRand is a small xorshift generator for test blocks.
type testRand uint32

func (r *testRand) next() uint32 {
	x := uint32(*r)
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	*r = testRand(x)
	return x
}

// upTo returns a value in 0..n-1.
func (r *testRand) upTo(n int) int { return int(r.next()>>8) % n }

// testBlock is a deterministic block of one of the shapes textures have,
// by seed: noise, a gradient with a little noise, a two-color edge, a grey
// gradient (opaque or not), a gradient with varying alpha, a solid block
// with a few pixels off.
func testBlock(seed uint32) [16][4]uint8 {
	r := testRand(seed*2654435761 + 12345)
	r.next()
	var px [16][4]uint8
	var base, dx, dy [4]int
	for c := range 4 {
		base[c] = r.upTo(256)
		dx[c], dy[c] = r.upTo(33)-16, r.upTo(33)-16
	}
	amp := r.upTo(9)
	noise := func() int { return r.upTo(2*amp+1) - amp }
	set := func(i, c, v int) { px[i][c] = uint8(min(255, max(0, v))) }
	kind := seed % 6
	var other [4]int
	for c := range 4 {
		other[c] = r.upTo(256)
	}
	ex, ey, ec := r.upTo(9)-4, r.upTo(9)-4, r.upTo(5)-2
	for i := range 16 {
		x, y := i%4, i/4
		for c := range 4 {
			grad := base[c] + dx[c]*x + dy[c]*y + noise()
			switch kind {
			case 0:
				set(i, c, r.upTo(256))
			case 1, 3, 4:
				set(i, c, grad)
			case 2:
				v := base[c]
				if ex*(2*x-3)+ey*(2*y-3) > ec {
					v = other[c]
				}
				set(i, c, v+noise())
			case 5:
				set(i, c, base[c])
				if r.upTo(8) == 0 {
					set(i, c, base[c]+r.upTo(41)-20)
				}
			}
		}
		if kind == 3 {
			px[i][1], px[i][2] = px[i][0], px[i][0]
		}
		if kind != 4 && (kind != 3 || seed%12 < 6) {
			px[i][3] = 255
		}
	}
	return px
}

// The encoder writes the same blocks as before its searches were pruned
// and its rounds cut short: a hash of the blocks and decoded pixels of
// many test blocks at every effort, pinned from the unpruned encoder.
func TestUASTCBlocksPinned(t *testing.T) {
	want := map[uastcEffort]string{
		uastcFast: "77abdd36356cc74ab7fb7f98b521c623cdb85d4111c565b7d8fd1f28712e55ed",
		uastcGood: "9a94a07c184fe2dbf9c63538955a108addf7f0d5e1d9567eb0da08ea26be41d5",
		uastcBest: "56295cf7eceb82443989c30683c91b744788372fe62a8a49e2e2a8db39aaf8d5",
	}
	for eff := uastcFast; eff <= uastcBest; eff++ {
		h := sha256.New()
		for seed := range uint32(6000) {
			px := testBlock(seed)
			blk, dec := encodeUASTC(&px, eff)
			h.Write(blk[:])
			for i := range dec {
				h.Write(dec[i][:])
			}
		}
		assert.Equal(t, want[eff], hex.EncodeToString(h.Sum(nil)), "effort %d", eff)
	}
}

// bestPatternsRef is bestPatterns as a plain sum per pattern and subset.
func bestPatternsRef(px *[16][4]uint8, k int) []int {
	var cs [len(patterns2)]int64
	for p := range patterns2 {
		var s, s2 [2][3]int64
		var cnt [2]int64
		for i := range 16 {
			g := patterns2[p][i]
			cnt[g]++
			for c := range 3 {
				v := int64(px[i][c])
				s[g][c] += v
				s2[g][c] += v * v
			}
		}
		for g := range 2 {
			for c := range 3 {
				if cnt[g] > 0 {
					cs[p] += s2[g][c] - s[g][c]*s[g][c]/cnt[g]
				}
			}
		}
	}
	var out []int
	for range k {
		b := -1
		for p := range cs {
			if cs[p] >= 0 && (b < 0 || cs[p] < cs[b]) {
				b = p
			}
		}
		cs[b] = -1
		out = append(out, b)
	}
	return out
}

// bestPatterns (block sums minus subset 1's) ranks the patterns as the
// plain per-subset sums do.
func TestBestPatternsMatchesSums(t *testing.T) {
	for seed := range uint32(20000) {
		px := testBlock(seed)
		require.Equal(t, bestPatternsRef(&px, 4), bestPatterns(&px, 4), "seed %d", seed)
	}
}

// etc1SubTableRef is etc1SubTable for subblock sub of a flip, trying all
// four modifiers of every table for every pixel.
func etc1SubTableRef(px *[16][4]uint8, flip, sub int) (uint8, int64) {
	var sum [3]int32
	var off []int32
	for i := range 16 {
		in := i%4 < 2
		if flip == 1 {
			in = i/4 < 2
		}
		if in != (sub == 0) {
			continue
		}
		off = append(off, int32(px[i][0])+int32(px[i][1])+int32(px[i][2]))
		for c := range 3 {
			sum[c] += int32(px[i][c])
		}
	}
	for c := range 3 {
		b := expand5((sum[c]*31 + 1020) / (8 * 255))
		for j := range off {
			off[j] -= b
		}
	}
	best, bestE := uint8(0), int64(math.MaxInt64)
	for tb := range uint8(8) {
		var e int64
		for _, o := range off {
			d := int64(math.MaxInt64)
			for _, m := range etc1Inten[tb] {
				d = min(d, int64(3*m-o)*int64(3*m-o))
			}
			e += d
		}
		if e < bestE {
			best, bestE = tb, e
		}
	}
	return best, bestE
}

// etc1SubTable (the nearest of a, b to |offset|, over the listed pixels)
// picks the table and cost the search over all four modifiers does.
func TestETC1SubTableMatchesAllModifiers(t *testing.T) {
	for seed := range uint32(20000) {
		px := testBlock(seed)
		for flip := range 2 {
			for sub := range 2 {
				wt, we := etc1SubTableRef(&px, flip, sub)
				gt, ge := etc1SubTable(&px, &etc1SubsetPixels[flip][sub])
				require.Equal(t, wt, gt, "seed %d flip %d sub %d", seed, flip, sub)
				require.Equal(t, we, ge, "seed %d flip %d sub %d", seed, flip, sub)
			}
		}
	}
}

// A fit given a limit returns what the unlimited fit returns when that
// is below the limit, and an error of at least the limit otherwise.
func TestUASTCFitLimit(t *testing.T) {
	for seed := range uint32(3000) {
		px := testBlock(seed)
		opaque := true
		for i := range px {
			opaque = opaque && px[i][3] == 255
		}
		modes := []int{10, 11, 12, 13, 14}
		if opaque {
			modes = []int{0, 1, 5, 6, 18}
		}
		for _, m := range modes {
			for ccs := range 4 {
				if uastcModes[m].planes == 1 && ccs > 0 {
					break
				}
				full := blockFit{px: &px}
				b, e := full.fitMode(m, ccs, math.MaxInt64)
				for _, limit := range []int64{1, e / 2, e, e + 1, 2*e + 7} {
					lim := blockFit{px: &px}
					lb, le := lim.fitMode(m, ccs, limit)
					if e < limit {
						require.Equal(t, e, le, "seed %d mode %d limit %d", seed, m, limit)
						require.Equal(t, b, lb, "seed %d mode %d limit %d", seed, m, limit)
					} else {
						require.GreaterOrEqual(t, le, limit, "seed %d mode %d", seed, m)
					}
				}
			}
		}
		if !opaque {
			continue
		}
		for pat := range patterns2 {
			var sb subsets2
			sb.init(&px, pat)
			for _, m := range []int{2, 4} {
				b, e := sb.fit(&px, m, math.MaxInt64)
				for _, limit := range []int64{1, e / 2, e, e + 1} {
					lb, le := sb.fit(&px, m, limit)
					if e < limit {
						require.Equal(t, e, le, "seed %d pattern %d mode %d", seed, pat, m)
						require.Equal(t, b, lb, "seed %d pattern %d mode %d", seed, pat, m)
					} else {
						require.GreaterOrEqual(t, le, limit, "seed %d pattern %d mode %d", seed, pat, m)
					}
				}
			}
		}
	}
}
