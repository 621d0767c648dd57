package ktx2

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sharpPattern is a w×h test card like the corpus's hardest ETC1S images
// (TextureTransformTest, VertexColorTest): saturated color checks with
// one-pixel grid lines and dark glyph-like strokes crossing block edges.
func sharpPattern(w, h int) Level {
	colors := [][3]byte{{255, 0, 0}, {0, 200, 0}, {0, 0, 255}, {255, 255, 0}, {255, 0, 255}, {0, 255, 255}, {255, 255, 255}, {30, 30, 30}}
	px := make([]byte, w*h*4)
	for y := range h {
		for x := range w {
			c := colors[(x/24+3*(y/24))%len(colors)]
			switch {
			case x%24 == 0 || y%24 == 0:
				c = [3]byte{0, 0, 0}
			case (x+y)%37 < 2 || (x-y+1000)%53 < 2:
				c = [3]byte{20, 10, 60}
			}
			copy(px[(y*w+x)*4:], []byte{c[0], c[1], c[2], 255})
		}
	}
	return Level{Width: w, Height: h, Pixels: px}
}

// etc1sPSNR encodes base as ETC1S at quality q and returns its size and
// the level-0 PSNR of this package's decoder (TestBasisTranscoder checks
// that three's transcoder decodes the same pixels).
func etc1sPSNR(t *testing.T, base Level, q int) (int, float64) {
	t.Helper()
	lv, err := MipChain(base, KindColor)
	require.NoError(t, err)
	b, err := EncodeBasis(lv, KindColor, testWriter, Options{Codec: CodecETC1S, Quality: q})
	require.NoError(t, err)
	f, err := Decode(b)
	require.NoError(t, err)
	return len(b), psnr(base.Pixels, f.Levels[0].Pixels)
}

// perBlockPSNR is the level-0 PSNR (over RGBA, as psnr) of coding every
// block of base with its own endpoint and selectors (fitETC1S at its
// highest effort): what ETC1S reaches without codebooks.
func perBlockPSNR(base Level) float64 {
	var se int64
	for by := range (base.Height + 3) / 4 {
		for bx := range (base.Width + 3) / 4 {
			var b [16][4]uint8
			blockPixels(&base, bx, by, &b)
			var o [16][3]uint8
			for i := range 16 {
				o[i] = [3]uint8{b[i][0], b[i][1], b[i][2]}
			}
			_, e := fitETC1S([][16][3]uint8{o}, fitEffort{refines: 3, tables: 8, neighbors: true})
			se += e
		}
	}
	return 10 * math.Log10(255*255*float64(len(base.Pixels))/float64(se))
}

// On sharp-edged color patterns, where one base color per block limits
// ETC1S itself, the shared codebooks at the default quality cost at most
// 0.5 dB against coding each block alone, and more quality never costs
// PSNR. (The corpus images of this kind are gated at 30 dB through three's
// transcoder in TestBasisTranscoder.)
func TestETC1SSharpEdges(t *testing.T) {
	base := sharpPattern(200, 136)
	limit := perBlockPSNR(base)
	t.Logf("every block alone: PSNR %.2f dB", limit)
	prev := 0.0
	for _, q := range []int{10, 50, DefaultQuality, 100} {
		n, db := etc1sPSNR(t, base, q)
		t.Logf("quality %3d: %6d bytes, PSNR %.2f dB", q, n, db)
		assert.GreaterOrEqual(t, db, prev-0.05, "quality %d", q)
		prev = db
		if q == DefaultQuality {
			assert.GreaterOrEqual(t, db, limit-0.5, "default quality against every block alone")
		}
	}
}

// The codebooks never exceed the sizes the quality asks for (plus the four
// flat selector entries), however often the refinement passes run.
func TestETC1SCodebookBounds(t *testing.T) {
	lv, err := MipChain(sharpPattern(64, 64), KindColor)
	require.NoError(t, err)
	var sl []etc1sSlice
	var px [][16][3]uint8
	for p := range lv {
		bw, bh := blockGrid(lv[p].Width, lv[p].Height)
		sl = append(sl, etc1sSlice{bw: bw, bh: bh, first: len(px)})
		var b [16][4]uint8
		for by := range bh {
			for bx := range bw {
				blockPixels(&lv[p], bx, by, &b)
				var o [16][3]uint8
				for i := range 16 {
					o[i] = [3]uint8{b[i][0], b[i][1], b[i][2]}
				}
				px = append(px, o)
			}
		}
	}
	for _, k := range []int{1, 2, 7, 40} {
		e := newETC1SEncoder(px, sl, 80)
		e.ke, e.ks = k, k
		e.run()
		eps, sels, blocks := e.output()
		assert.LessOrEqual(t, len(eps), k, "endpoints at k=%d", k)
		assert.LessOrEqual(t, len(sels), k+4, "selectors at k=%d", k)
		for _, b := range blocks {
			require.Less(t, b.ep, len(eps))
			require.Less(t, b.sel, len(sels))
		}
	}
	for _, n := range []int{1, 5, 1000, 1 << 20} {
		for _, q := range []int{MinQuality, DefaultQuality, MaxQuality} {
			ke, ks := codebookSizes(n, q)
			assert.True(t, ke >= 1 && ke <= min(n, maxCodebook-4) && ks == ke, "n %d quality %d: %d, %d", n, q, ke, ks)
		}
	}
}

// fitETC1S never does worse than the best table at the blocks' rounded
// mean color (its starting points), and finds an exact fit for pixels one
// endpoint decodes to without clamping.
func TestFitETC1S(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var blocks [][16][3]uint8
		for range 1 + rng.IntN(3) {
			var b [16][3]uint8
			for j := range b {
				for c := range 3 {
					b[j][c] = uint8(rng.IntN(256))
				}
			}
			blocks = append(blocks, b)
		}
		p := newETC1SPixels(blocks)
		var mean [3]uint8
		for c := range 3 {
			mean[c] = uint8(min(31, divRound(p.sum[c]*31, p.n*255)))
		}
		start := int64(math.MaxInt64)
		for tb := range 8 {
			start = min(start, p.evalOnly(etc1sEndpoint{c: mean, t: uint8(tb)}, math.MaxInt64))
		}
		for _, eff := range []fitEffort{{refines: 1, tables: 2}, {refines: 3, tables: 3, neighbors: true}} {
			e, err := fitETC1S(blocks, eff)
			assert.LessOrEqual(t, err, start)
			assert.Equal(t, p.evalOnly(e, math.MaxInt64), err, "reported error is the endpoint's")
		}
	}
	// An endpoint in the middle of the range, pixels on its four colors.
	for tb := range 8 {
		want := etc1sEndpoint{c: [3]uint8{12, 16, 19}, t: uint8(tb)}
		col := want.colors()
		var b [16][3]uint8
		for j := range b {
			s := (j*7 + tb) % 4
			b[j] = [3]uint8{uint8(col[s][0]), uint8(col[s][1]), uint8(col[s][2])}
		}
		_, err := fitETC1S([][16][3]uint8{b}, fitEffort{refines: 3, tables: 3, neighbors: true})
		assert.Zero(t, err, "table %d", tb)
	}
}

// treeVQRef is treeVQ over the items themselves: every split recomputes
// the mean and covariance item by item, and the distortion likewise.
func treeVQRef(n, dims int, f []int32, k int) []int32 {
	mean := func(items []int32) []int64 {
		m := make([]int64, dims)
		for _, i := range items {
			for c := range dims {
				m[c] += int64(f[int(i)*dims+c])
			}
		}
		for c := range m {
			m[c] = divRound(16*m[c], int64(len(items)))
		}
		return m
	}
	dist := func(items []int32) int64 {
		if len(items) < 2 {
			return 0
		}
		m := mean(items)
		var d int64
		for _, i := range items {
			for c := range dims {
				x := 16*int64(f[int(i)*dims+c]) - m[c]
				d += x * x
			}
		}
		return d
	}
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	cl := [][]int32{all}
	h := &vqHeap{}
	heap.Push(h, vqEntry{dist(all), 0})
	for len(cl) < k && h.Len() > 0 {
		e := heap.Pop(h).(vqEntry)
		if e.dist == 0 {
			break
		}
		items := cl[e.id]
		m := mean(items)
		cov := make([]int64, dims*dims)
		for _, i := range items {
			for a := range dims {
				for b := a; b < dims; b++ {
					cov[a*dims+b] += (16*int64(f[int(i)*dims+a]) - m[a]) * (16*int64(f[int(i)*dims+b]) - m[b])
				}
			}
		}
		v := principalAxis(cov, dims)
		var left, right []int32
		for _, i := range items {
			var p int64
			for c := range dims {
				p += (16*int64(f[int(i)*dims+c]) - m[c]) * v[c]
			}
			if p < 0 {
				left = append(left, i)
			} else {
				right = append(right, i)
			}
		}
		if len(left) == 0 || len(right) == 0 {
			left, right = slices.Clone(items[:len(items)/2]), slices.Clone(items[len(items)/2:])
		}
		cl[e.id] = left
		cl = append(cl, right)
		heap.Push(h, vqEntry{dist(left), e.id})
		heap.Push(h, vqEntry{dist(right), int32(len(cl) - 1)})
	}
	of := make([]int32, n)
	for g, items := range cl {
		for _, i := range items {
			of[i] = int32(g)
		}
	}
	return of
}

// treeVQ over distinct rows with counts clusters as the item-by-item
// splits do: features drawn from few or many values (many equal rows, as
// ETC1S's endpoint features have), including splits that put every item
// on one side.
func TestTreeVQMatchesItemByItem(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for round := range 600 {
		dims := []int{1, 2, 6, 16}[round%4]
		n := 1 + rng.IntN(400)
		values := 1 + rng.IntN([]int{2, 5, 40, 256}[round/4%4])
		scale := []int{1, 255 / values}[round/16%2] // 1: one dominant row with a few off by one
		rows := 1 + rng.IntN(n)
		f := make([]int32, n*dims)
		pool := make([]int32, rows*dims)
		for i := range pool {
			pool[i] = int32(rng.IntN(values)*scale) - int32(rng.IntN(2)*128)
		}
		for i := range n {
			r := rng.IntN(rows)
			if scale == 1 && rng.IntN(50) > 0 {
				r = 0
			}
			copy(f[i*dims:(i+1)*dims], pool[r*dims:])
		}
		k := 1 + rng.IntN(n+5)
		got := treeVQ(n, dims, func(i int, out []int32) { copy(out, f[i*dims:(i+1)*dims]) }, k)
		require.Equal(t, treeVQRef(n, dims, f, k), got, "round %d: n %d dims %d k %d", round, n, dims, k)
	}
}

// evalLine (selectors from the line's midpoints) scores and counts as the
// search over the four colors does, for endpoints that do not clamp, and
// stops past the limit where it does.
func TestETC1SEvalLineMatchesColors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tried := 0
	for round := range 4000 {
		blocks := make([][16][3]uint8, 1+rng.IntN(4))
		lo, span := rng.IntN(256), 1+rng.IntN(256)
		for i := range blocks {
			for j := range 16 {
				for c := range 3 {
					blocks[i][j][c] = uint8(min(255, lo+rng.IntN(span)))
				}
			}
		}
		p := newETC1SPixels(blocks)
		e := etc1sEndpoint{c: [3]uint8{uint8(rng.IntN(32)), uint8(rng.IntN(32)), uint8(rng.IntN(32))}, t: uint8(rng.IntN(8))}
		want, wantCnt := p.evalClamped(e, math.MaxInt64)
		for _, limit := range []int64{math.MaxInt64, want, want - 1, want / 3, 0} {
			got, cnt, ok := p.evalLine(e, limit)
			if !ok {
				break
			}
			tried++
			if limit >= want {
				require.Equal(t, want, got, "round %d", round)
				require.Equal(t, wantCnt, cnt, "round %d", round)
			} else {
				require.Greater(t, got, limit, "round %d", round)
				lt, _ := p.evalClamped(e, limit)
				require.Greater(t, lt, limit, "round %d", round)
			}
		}
	}
	require.Greater(t, tried, 1000)
}
