package ktx2

import (
	"container/heap"
	"math/bits"
	"slices"

	"github.com/meshcook/meshcook/internal/par"
)

// ETC1S encoder: vector quantization of every block of every level (and
// alpha slice) into one global endpoint codebook and one selector codebook,
// as BasisLZ stores them (basislz.go).
//
// An ETC1S block is one 5:5:5 base color, one intensity table and 16 2-bit
// selectors; every pixel is base + modifier[table][selector] in all three
// channels, clamped. This file gathers the blocks, sizes the codebooks and
// holds the clustering primitives (tree VQ, the endpoint refit on fixed
// selectors); etc1s_fit.go fits an endpoint to a set of pixels and
// etc1s_vq.go runs the passes (block fits, endpoint clusters and their
// reassignment, selector clusters and their reassignment, final refit).
// Tree VQ splits the cluster with the largest distortion along its
// principal axis (integer arithmetic, ties to the lower cluster number),
// so the result is the same on every machine and for any GOMAXPROCS;
// per-block work runs in parallel and writes only its own block's slots.

// maxCodebook is the largest codebook the reference transcoder accepts.
const maxCodebook = 16128

// etc1sEndpoint is a base color (5 bits per channel) and intensity table.
type etc1sEndpoint struct {
	c [3]uint8
	t uint8
}

// colors returns the four colors an endpoint decodes to, by selector.
func (e etc1sEndpoint) colors() [4][3]int32 {
	var out [4][3]int32
	for s := range 4 {
		for c := range 3 {
			out[s][c] = min(255, max(0, expand5(int32(e.c[c]))+etc1Inten[e.t][s]))
		}
	}
	return out
}

// etc1sSlice is one slice's blocks: a level's RGB, or its alpha in all
// three channels.
type etc1sSlice struct {
	bw, bh int
	first  int // index of its first block in the flat block list
}

// codebookSizes returns the endpoint and selector codebook sizes for n
// blocks at a quality: k/1024 of the blocks with k = 4 + 508·(q/100)²
// (0.4% at quality 1, 5.5% at 30, 13% at 50, 32% at 80, 50% at 100), at
// least 1, at most n and maxCodebook − 4 (the selector codebook may gain
// the four flat entries).
func codebookSizes(n, quality int) (int, int) {
	num := 4 + 508*quality*quality/10000
	k := max(1, min(maxCodebook-4, (n*num+1023)/1024))
	k = min(k, n)
	return k, k
}

// encodeETC1S returns the BasisLZ global data and every level's slice
// bytes (RGB slice, then alpha slice when alpha) for a full mip chain.
func encodeETC1S(levels []Level, alpha bool, quality int) ([]byte, [][]byte, error) {
	// Flat block list: level by level, RGB slice then alpha slice.
	var slices_ []etc1sSlice
	var px [][16][3]uint8
	for p := range levels {
		lv := &levels[p]
		bw, bh := blockGrid(lv.Width, lv.Height)
		for pass := range 1 + bit(alpha) {
			slices_ = append(slices_, etc1sSlice{bw: bw, bh: bh, first: len(px)})
			base := len(px)
			px = append(px, make([][16][3]uint8, bw*bh)...)
			par.Ranges(bh, rowsPerPiece, func(_, lo, hi int) {
				var b [16][4]uint8
				for by := lo; by < hi; by++ {
					for bx := range bw {
						blockPixels(lv, bx, by, &b)
						out := &px[base+by*bw+bx]
						for i := range 16 {
							if pass == 0 {
								out[i] = [3]uint8{b[i][0], b[i][1], b[i][2]}
							} else {
								out[i] = [3]uint8{b[i][3], b[i][3], b[i][3]}
							}
						}
					}
				}
			})
		}
	}
	enc := newETC1SEncoder(px, slices_, quality)
	enc.run()
	eps, sels, blocks := enc.output()
	return writeBasisLZ(eps, sels, slices_, blocks, alpha, len(levels))
}

// etc1sBlockRef is a block's codebook indices.
type etc1sBlockRef struct{ ep, sel int }

func maxOf(v []int32) int32 {
	var m int32
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// groupMembers lists the items of each group in item order.
func groupMembers(of []int32, k int32) [][]int {
	out := make([][]int, k)
	for i, g := range of {
		out[g] = append(out[g], i)
	}
	return out
}

// refitEndpoint re-derives an endpoint for blocks whose selectors are
// fixed: per table, the base color is the least-squares one (mean of
// pixel − modifier), rounded to 5 bits, and ±1 around it per channel is
// tried; the endpoint with the least exact error wins (the old one on
// ties). Every pixel decodes to one color per selector and channel, so
// the pixels are reduced once to a count, sum and sum of squares per
// selector and channel, and the exact error of a candidate is
// cnt·col² − 2·col·sum + sum2, whatever the cluster size.
func refitEndpoint(px [][16][3]uint8, idx []int, selOf []int32, sels [][16]uint8, old etc1sEndpoint) etc1sEndpoint {
	var cnt, sum, sum2 [4][3]int64
	for _, i := range idx {
		s := &sels[selOf[i]]
		for j := range 16 {
			for c := range 3 {
				v := int64(px[i][j][c])
				cnt[s[j]][c]++
				sum[s[j]][c] += v
				sum2[s[j]][c] += v * v
			}
		}
	}
	errOf := func(e etc1sEndpoint) int64 {
		col := e.colors()
		var total int64
		for sel := range 4 {
			for c := range 3 {
				v := int64(col[sel][c])
				total += cnt[sel][c]*v*v - 2*v*sum[sel][c] + sum2[sel][c]
			}
		}
		return total
	}
	best, bestErr := old, errOf(old)
	for t := range 8 {
		var base [3]uint8
		for c := range 3 {
			var sc, n int64
			for sel := range 4 {
				sc += sum[sel][c] - cnt[sel][c]*int64(etc1Inten[t][sel])
				n += cnt[sel][c]
			}
			base[c] = uint8(min(31, max(0, divRound(sc*31, max(1, n)*255))))
		}
		for c := range 3 {
			for _, d := range []int{0, -1, 1} {
				cand := etc1sEndpoint{c: base, t: uint8(t)}
				v := int(base[c]) + d
				if v < 0 || v > 31 {
					continue
				}
				cand.c[c] = uint8(v)
				if e := errOf(cand); e < bestErr {
					best, bestErr = cand, e
					base = cand.c
				}
			}
		}
	}
	return best
}

// treeVQ groups n items with dims integer features into at most k
// clusters: starting from one, it repeatedly splits the cluster with the
// largest squared distortion at its mean along its principal axis. It
// returns each item's cluster number (numbered in creation order).
func treeVQ(n, dims int, feat func(i int, out []int32), k int) []int32 {
	f := make([]int32, n*dims)
	for i := range n {
		feat(i, f[i*dims:(i+1)*dims])
	}
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	cl := [][]int32{all}
	h := &vqHeap{}
	heap.Push(h, vqEntry{distortion(f, dims, all), 0})
	for len(cl) < k && h.Len() > 0 {
		e := heap.Pop(h).(vqEntry)
		if e.dist == 0 {
			break
		}
		left, right := splitCluster(f, dims, cl[e.id])
		cl[e.id] = left
		cl = append(cl, right)
		heap.Push(h, vqEntry{distortion(f, dims, left), e.id})
		heap.Push(h, vqEntry{distortion(f, dims, right), int32(len(cl) - 1)})
	}
	of := make([]int32, n)
	for g, items := range cl {
		for _, i := range items {
			of[i] = int32(g)
		}
	}
	return of
}

// vqEntry is a cluster waiting to be split; the heap pops the largest
// distortion first, the lower cluster number on ties.
type vqEntry struct {
	dist int64
	id   int32
}

type vqHeap []vqEntry

func (h vqHeap) Len() int { return len(h) }
func (h vqHeap) Less(i, j int) bool {
	if h[i].dist != h[j].dist {
		return h[i].dist > h[j].dist
	}
	return h[i].id < h[j].id
}
func (h vqHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *vqHeap) Push(x any)   { *h = append(*h, x.(vqEntry)) }
func (h *vqHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// mean16 returns 16 × the mean of each feature over items, rounded.
func mean16(f []int32, dims int, items []int32) []int64 {
	out := make([]int64, dims)
	for _, i := range items {
		for c := range dims {
			out[c] += int64(f[int(i)*dims+c])
		}
	}
	for c := range out {
		out[c] = divRound(16*out[c], int64(len(items)))
	}
	return out
}

// distortion is the summed squared distance (×256) of items to their mean.
func distortion(f []int32, dims int, items []int32) int64 {
	if len(items) < 2 {
		return 0
	}
	m := mean16(f, dims, items)
	var d int64
	for _, i := range items {
		for c := range dims {
			x := 16*int64(f[int(i)*dims+c]) - m[c]
			d += x * x
		}
	}
	return d
}

// splitCluster splits items at their mean along the principal axis of
// their features (power iteration on the integer covariance); items on
// the axis's low side go left. A degenerate split halves the list.
func splitCluster(f []int32, dims int, items []int32) ([]int32, []int32) {
	m := mean16(f, dims, items)
	cov := make([]int64, dims*dims)
	d := make([]int64, dims) // one item's offset from the mean
	for _, i := range items {
		row := f[int(i)*dims:]
		for a := range dims {
			d[a] = 16*int64(row[a]) - m[a]
		}
		for a, da := range d {
			for b := a; b < dims; b++ {
				cov[a*dims+b] += da * d[b]
			}
		}
	}
	var maxDiag int64
	for a := range dims {
		maxDiag = max(maxDiag, cov[a*dims+a])
		for b := range a {
			cov[a*dims+b] = cov[b*dims+a]
		}
	}
	// Scale so products with the 2^12 axis stay far inside int64.
	shift := max(0, bits.Len64(uint64(maxDiag))-30)
	for i := range cov {
		cov[i] >>= shift
	}
	v := make([]int64, dims)
	big := 0
	for c := range dims {
		if cov[c*dims+c] > cov[big*dims+big] {
			big = c
		}
	}
	v[big] = 1 << 12
	nv := make([]int64, dims)
	for range 5 {
		var mx int64
		for a := range dims {
			var s int64
			for b := range dims {
				s += cov[a*dims+b] * v[b]
			}
			nv[a] = s
			mx = max(mx, abs64(s))
		}
		if mx == 0 {
			break
		}
		for a := range dims {
			v[a] = nv[a] * (1 << 12) / mx
		}
	}
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
		h := len(items) / 2
		return slices.Clone(items[:h]), slices.Clone(items[h:])
	}
	return left, right
}
