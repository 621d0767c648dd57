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
				var lum [16]int32
				var sum [3]int32
				for i := range 16 {
					lum[i] = int32(px[i][0]) + int32(px[i][1]) + int32(px[i][2])
				}
				for _, i := range etc1SubsetPixels[flip][sub] {
					for c := range 3 {
						sum[c] += int32(px[i][c])
					}
				}
				gt, ge := etc1SubTable(&lum, &etc1SubsetPixels[flip][sub], &sum)
				require.Equal(t, wt, gt, "seed %d flip %d sub %d", seed, flip, sub)
				require.Equal(t, we, ge, "seed %d flip %d sub %d", seed, flip, sub)
			}
		}
	}
}

// etc1HintsFor (subblock sums from quadrant sums) picks the flip and
// tables the reference's costs pick, the first flip on a tie.
func TestETC1HintsMatchRef(t *testing.T) {
	for seed := range uint32(20000) {
		px := testBlock(seed)
		want := etc1Hints{diff: true}
		bestE := int64(-1)
		for flip := range 2 {
			t0, e0 := etc1SubTableRef(&px, flip, 0)
			t1, e1 := etc1SubTableRef(&px, flip, 1)
			if bestE < 0 || e0+e1 < bestE {
				bestE, want.flip, want.inten0, want.inten1 = e0+e1, flip == 1, t0, t1
			}
		}
		require.Equal(t, want, etc1HintsFor(&px), "seed %d", seed)
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

// pickWeightsRef is pickWeights as first written: n channels, t by a
// division, the neighbours of k0 within the table by a loop.
func pickWeightsRef(x *[16][4]int32, cnt, n int, dl, dh *[4]int32, wt []int32, stop int64) ([16]uint8, [16][4]int32, int64) {
	levels := len(wt)
	var pal [32][4]int32
	for k := range levels {
		for c := range n {
			pal[k][c] = astcInterp(dl[c], dh[c], wt[k])
		}
	}
	var dv [4]int32
	var dd int32
	for c := range n {
		dv[c] = dh[c] - dl[c]
		dd += dv[c] * dv[c]
	}
	var w [16]uint8
	var dec [16][4]int32
	var total int64
	for i := range cnt {
		var p int32
		for c := range n {
			p += (x[i][c] - dl[c]) * dv[c]
		}
		t := 0
		if p >= dd && dd > 0 {
			t = 64
		} else if p > 0 {
			t = int((64*p + dd/2) / dd)
		}
		k0 := int(nearestTable[levels][t])
		bestK, bestE := 0, int32(-1)
		for k := max(0, k0-1); k <= min(levels-1, k0+1); k++ {
			var e int32
			for c := range n {
				d := pal[k][c] - x[i][c]
				e += d * d
			}
			if bestE < 0 || e < bestE {
				bestK, bestE = k, e
			}
		}
		w[i] = uint8(bestK)
		dec[i] = pal[bestK]
		if total += int64(bestE); total >= stop {
			break
		}
	}
	return w, dec, total
}

// pickWeights (all four lanes, sentinel neighbours, t by a multiply)
// picks the weights, colors and error the reference does, partial sums
// included, for lines and pixels near and far from them.
func TestPickWeightsMatchesRef(t *testing.T) {
	r := testRand(7)
	for it := range 200000 {
		n, cnt, bits := 1+r.upTo(4), 1+r.upTo(16), 1+r.upTo(5)
		var dl, dh [4]int32
		var x [16][4]int32
		for c := range n {
			dl[c], dh[c] = int32(r.upTo(256)), int32(r.upTo(256))
			if it%7 == 0 {
				dh[c] = dl[c] // one point
			}
			if it%5 == 1 {
				dl[c], dh[c] = 255*int32(r.upTo(2)), 255*int32(r.upTo(2)) // the longest lines
			}
		}
		for i := range cnt {
			f := int32(r.upTo(97)) - 16 // along the line, a little past its ends
			for c := range n {
				v := dl[c] + (dh[c]-dl[c])*f/64 + int32(r.upTo(2*(it%9)+1)-it%9)
				if it%11 == 0 {
					v = int32(r.upTo(256))
				}
				x[i][c] = min(255, max(0, v))
			}
		}
		stop := int64(math.MaxInt64)
		if it%3 == 0 {
			stop = int64(r.upTo(20000))
		}
		wt := uastcWeights[bits]
		ww, wd, we := pickWeightsRef(&x, cnt, n, &dl, &dh, wt, stop)
		gw, gd, ge := pickWeights(&x, cnt, &dl, &dh, wt, stop)
		require.Equal(t, we, ge, "case %d", it)
		require.Equal(t, ww, gw, "case %d", it)
		require.Equal(t, wd, gd, "case %d", it)
	}
}

// divisor's multiply rounds 64·p/dd as the division does: every p for
// the small divisors and the largest ones, spot checks between.
func TestDivisorMatchesDivision(t *testing.T) {
	check := func(dd, p int32) {
		if want, got := int((64*p+dd/2)/dd), newDivisor(dd).round64(p, dd); want != got {
			require.Equal(t, want, got, "p %d dd %d", p, dd)
		}
	}
	const maxDD = 4 * 255 * 255
	for dd := int32(1); dd <= maxDD; dd++ {
		if dd <= 2048 || dd > maxDD-64 {
			for p := int32(1); p < dd; p++ {
				check(dd, p)
			}
			continue
		}
		// The p just below and at each multiple of dd/64 (where the
		// rounding changes), and the ends.
		for _, p := range []int32{1, dd - 1, dd / 2, dd/2 + 1} {
			check(dd, p)
		}
		for q := int32(1); q < 64; q += 1 + q%7 {
			b := (q*dd - dd/2 + 63) / 64
			for p := max(1, b-1); p <= min(dd-1, b+1); p++ {
				check(dd, p)
			}
		}
	}
}

// lineStartRef is lineStart as first written, over n channels: the seed of a fit of n channels of the first cnt
// pixels of x (values 0..255): the extreme projections on their principal
// axis (integer covariance, power iteration), or their mean when flat.
func lineStartRef(x *[16][4]int32, cnt, n int) lineSeed {
	// Sums and covariance (×cnt) of the channels, in one pass over the
	// upper triangle.
	N := int64(cnt)
	var s [4]int64
	var sxy [4][4]int64
	for i := range cnt {
		p := &x[i]
		for a := range n {
			va := int64(p[a])
			s[a] += va
			for bb := a; bb < n; bb++ {
				sxy[a][bb] += va * int64(p[bb])
			}
		}
	}
	var cov [4][4]int64
	for a := range n {
		for bb := a; bb < n; bb++ {
			cov[a][bb] = N*sxy[a][bb] - s[a]*s[bb]
			cov[bb][a] = cov[a][bb]
		}
	}
	// Power iteration from the channel with the largest variance; a
	// vector the step maps to itself is kept by every later step.
	var v [4]int64
	big := 0
	for c := range n {
		if cov[c][c] > cov[big][big] {
			big = c
		}
	}
	v[big] = 4096
	for range 6 {
		var nv [4]int64
		var m int64
		for a := range n {
			for bb := range n {
				nv[a] += cov[a][bb] * v[bb] >> 12
			}
			m = max(m, abs64(nv[a]))
		}
		if m == 0 {
			break
		}
		same := true
		for a := range n {
			na := nv[a] * 4096 / m
			same = same && na == v[a]
			v[a] = na
		}
		if same {
			break
		}
	}
	var vv int64
	for c := range n {
		vv += v[c] * v[c]
	}
	// Endpoints at the extreme projections (or the mean for a flat group).
	var sd lineSeed
	if vv == 0 || cov[big][big] == 0 {
		for c := range n {
			sd.e0[c] = int32(divRound(s[c], N))
			sd.e1[c] = sd.e0[c]
		}
		return sd
	}
	pmin, pmax := int64(1)<<62, -int64(1)<<62
	for i := range cnt {
		var p int64
		for c := range n {
			p += (N*int64(x[i][c]) - s[c]) * v[c]
		}
		pmin, pmax = min(pmin, p), max(pmax, p)
	}
	for c := range n {
		sd.e0[c] = clamp255(divRound(s[c]*vv+pmin*v[c], N*vv))
		sd.e1[c] = clamp255(divRound(s[c]*vv+pmax*v[c], N*vv))
	}
	return sd
}

// lineStart (all four lanes, 32-bit sums, the projections' extremes from
// x·v) seeds every fit as the n-channel reference does.
func TestLineStartMatchesRef(t *testing.T) {
	r := testRand(11)
	for it := range 100000 {
		n, cnt := 1+r.upTo(4), 1+r.upTo(16)
		var x [16][4]int32
		var base, d [4]int
		for c := range n {
			base[c], d[c] = r.upTo(256), r.upTo(65)-32
		}
		amp := r.upTo(40)
		for i := range cnt {
			f := r.upTo(16) - 8
			for c := range n {
				v := base[c] + d[c]*f + r.upTo(2*amp+1) - amp
				if it%13 == 0 {
					v = base[c] // flat
				}
				x[i][c] = int32(min(255, max(0, v)))
			}
		}
		require.Equal(t, lineStartRef(&x, cnt, n), lineStart(&x, cnt), "case %d n %d cnt %d", it, n, cnt)
	}
}
