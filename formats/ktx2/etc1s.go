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

// treeVQ groups n items with dims (at most 16) integer features into at
// most k clusters: starting from one, it repeatedly splits the cluster
// with the largest squared distortion at its mean along its principal
// axis. It returns each item's cluster number (numbered in creation
// order).
//
// Items with the same features are the same to every step but one: they
// add alike to a cluster's sums and covariance and fall on the same side
// of a split. So the sums run over a cluster's distinct feature rows
// weighted by their item counts, and only the item lists are walked per
// item; the degenerate split (all items on one side: the list is halved)
// is the one that can part equal items, and recounts its halves' rows.
// The sums (per feature, of squares, of products) add up over a split, so
// only the half with fewer rows is summed, the other is the parent's
// minus it; the covariance about the mean comes from them exactly.
func treeVQ(n, dims int, feat func(i int, out []int32), k int) []int32 {
	f := make([]int32, n*dims)
	for i := range n {
		feat(i, f[i*dims:(i+1)*dims])
	}
	q := newVQ(f, dims)
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	cl := []vqCluster{q.cluster(all)}
	h := &vqHeap{}
	heap.Push(h, vqEntry{cl[0].distortion(), 0})
	for len(cl) < k && h.Len() > 0 {
		e := heap.Pop(h).(vqEntry)
		if e.dist == 0 {
			break
		}
		left, right := q.split(&cl[e.id])
		cl[e.id] = left
		cl = append(cl, right)
		heap.Push(h, vqEntry{left.distortion(), e.id})
		heap.Push(h, vqEntry{right.distortion(), int32(len(cl) - 1)})
	}
	of := make([]int32, n)
	for g := range cl {
		for _, i := range cl[g].items {
			of[i] = int32(g)
		}
	}
	return of
}

// vq is treeVQ's state: the distinct feature rows and each item's row.
// A split parts its cluster's item and row lists in place (the halves
// are the two ends of the parent's lists, each in the parent's order),
// so the clusters' lists share the arrays the first cluster made.
type vq struct {
	dims  int
	rows  []int32 // distinct rows, dims each, in first-use order
	rowOf []int32 // item → row
	left  []bool  // scratch by row: the split side
	count []int32 // scratch by row: items counted (zero between uses)
	cov   []int64 // scratch: a split's covariance
	tmp   []int32 // scratch: a partition's right side
	slab  []int64 // where new clusters' sums are carved from
}

func newVQ(f []int32, dims int) *vq {
	n := len(f) / dims
	q := &vq{dims: dims, rows: make([]int32, 0, len(f)), rowOf: make([]int32, n), cov: make([]int64, dims*dims), tmp: make([]int32, 2*n)}
	// Open addressing over the distinct rows: slot holds row+1, 0 empty.
	slots := make([]int32, 1<<bits.Len(uint(2*n)))
	mask := uint32(len(slots) - 1)
	nrows := int32(0)
	for i := range n {
		row := f[i*dims : (i+1)*dims]
		h := uint32(2166136261)
		for _, v := range row {
			h = (h ^ uint32(v)) * 16777619
		}
		for h &= mask; ; h = (h + 1) & mask {
			r := slots[h] - 1
			if r < 0 {
				r = nrows
				nrows++
				slots[h] = r + 1
				q.rows = append(q.rows, row...)
			} else if !slices.Equal(q.row(r), row) {
				continue
			}
			q.rowOf[i] = r
			break
		}
	}
	q.left = make([]bool, nrows)
	q.count = make([]int32, nrows)
	return q
}

// vqCluster is a cluster's items (ascending), its distinct rows with
// their item counts, and its sums: per feature, and of the products of
// every two features (mom, the upper triangle row by row: (0,0), (0,1),
// … (0,dims−1), (1,1), …; its diagonal holds the squares).
type vqCluster struct {
	items []int32
	rows  []int32
	cnt   []int32
	sum   []int64
	mom   []int64
}

// sums returns zeroed sum and mom slices for a new cluster, carved from
// the slab.
func (q *vq) sums() ([]int64, []int64) {
	ns, nm := q.dims, q.dims*(q.dims+1)/2
	if len(q.slab) < ns+nm {
		q.slab = make([]int64, 256*(ns+nm))
	}
	s := q.slab[: ns+nm : ns+nm]
	q.slab = q.slab[ns+nm:]
	return s[:ns], s[ns:]
}

func (q *vq) row(r int32) []int32 { return q.rows[int(r)*q.dims : (int(r)+1)*q.dims] }

// cluster makes the cluster of items, counting their rows.
func (q *vq) cluster(items []int32) vqCluster {
	c := vqCluster{items: items}
	c.sum, c.mom = q.sums()
	for _, i := range items {
		r := q.rowOf[i]
		if q.count[r] == 0 {
			c.rows = append(c.rows, r)
		}
		q.count[r]++
	}
	c.cnt = make([]int32, len(c.rows))
	for j, r := range c.rows {
		c.cnt[j] = q.count[r]
		q.count[r] = 0
		q.addRow(&c, r, int64(c.cnt[j]))
	}
	return c
}

// addRow adds w items of row r to c's sums.
func (q *vq) addRow(c *vqCluster, r int32, w int64) {
	f := q.row(r)
	mom := c.mom
	for a, v := range f {
		wv := w * int64(v)
		c.sum[a] += wv
		rest := f[a:]
		dst := mom[:len(rest)]
		for b, u := range rest {
			dst[b] += wv * int64(u)
		}
		mom = mom[len(rest):]
	}
}

// mean16 returns 16 × the mean of feature a, rounded.
func (c *vqCluster) mean16(a int) int64 {
	return divRound(16*c.sum[a], int64(len(c.items)))
}

// distortion is the summed squared distance (×256) of the items to their
// mean m: Σ (16f − m)² = 256·Σf² − Σ over features of (32·sum − n·m)·m,
// Σf² being the diagonal of mom.
func (c *vqCluster) distortion() int64 {
	n := int64(len(c.items))
	if n < 2 {
		return 0
	}
	var sq int64
	for a, k := 0, 0; a < len(c.sum); a, k = a+1, k+len(c.sum)-a {
		sq += c.mom[k]
	}
	d := 256 * sq
	for a := range c.sum {
		m := c.mean16(a)
		d -= (32*c.sum[a] - n*m) * m
	}
	return d
}

// split splits c at its mean along the principal axis of its features;
// items on the axis's low side go left. A degenerate split halves the
// item list. c is spent: its lists and sums pass to the halves.
func (q *vq) split(c *vqCluster) (vqCluster, vqCluster) {
	dims := q.dims
	var mm [16]int64
	m := mm[:dims]
	for a := range m {
		m[a] = c.mean16(a)
	}
	// Σ (16f_a − m_a)(16f_b − m_b) = 256·Σf_a·f_b − 16·(m_a·S_b + m_b·S_a)
	// + n·m_a·m_b over the items.
	n := int64(len(c.items))
	cov := q.cov
	k := 0
	for a := range dims {
		for b := a; b < dims; b++ {
			cov[a*dims+b] = 256*c.mom[k] - 16*(m[a]*c.sum[b]+m[b]*c.sum[a]) + n*m[a]*m[b]
			k++
		}
	}
	va := principalAxis(cov, dims)
	v := va[:dims]
	var nLeft, rowsLeft int
	for j, r := range c.rows {
		var p int64
		for a, x := range q.row(r) {
			p += (16*int64(x) - m[a]) * v[a]
		}
		q.left[r] = p < 0
		if p < 0 {
			nLeft += int(c.cnt[j])
			rowsLeft++
		}
	}
	if nLeft == 0 || nLeft == len(c.items) {
		h := len(c.items) / 2
		return q.cluster(c.items[:h:h]), q.cluster(c.items[h:])
	}
	// The half with fewer rows is summed anew; the other takes over the
	// parent's sums, less those (the parent is not split again).
	var l, rt vqCluster
	small, big := &l, &rt
	if rowsLeft > len(c.rows)-rowsLeft {
		small, big = &rt, &l
	}
	small.sum, small.mom = q.sums()
	big.sum, big.mom = c.sum, c.mom
	// Items, then rows with their counts, parted in place: the left
	// ones kept in order at the front, the right ones through tmp.
	nl, nr := 0, 0
	for _, i := range c.items {
		if q.left[q.rowOf[i]] {
			c.items[nl] = i
			nl++
		} else {
			q.tmp[nr] = i
			nr++
		}
	}
	copy(c.items[nl:], q.tmp[:nr])
	l.items, rt.items = c.items[:nl:nl], c.items[nl:]
	nl, nr = 0, 0
	tmpCnt := q.tmp[len(c.rows):]
	smallLeft := small == &l
	for j, r := range c.rows {
		w := c.cnt[j]
		if q.left[r] == smallLeft {
			q.addRow(small, r, int64(w))
		}
		if q.left[r] {
			c.rows[nl], c.cnt[nl] = r, w
			nl++
		} else {
			q.tmp[nr], tmpCnt[nr] = r, w
			nr++
		}
	}
	copy(c.rows[nl:], q.tmp[:nr])
	copy(c.cnt[nl:], tmpCnt[:nr])
	l.rows, rt.rows = c.rows[:nl:nl], c.rows[nl:]
	l.cnt, rt.cnt = c.cnt[:nl:nl], c.cnt[nl:]
	for a := range big.sum {
		big.sum[a] -= small.sum[a]
	}
	for k := range big.mom {
		big.mom[k] -= small.mom[k]
	}
	return l, rt
}

// principalAxis returns the principal axis (×2^12) of a dims×dims
// covariance whose upper triangle is filled, in its first dims entries:
// five steps of power iteration from the axis of the largest variance,
// the matrix first scaled so its products with the axis stay far inside
// int64. It fills the lower triangle and scales cov in place.
func principalAxis(cov []int64, dims int) [16]int64 {
	var maxDiag int64
	for a := range dims {
		maxDiag = max(maxDiag, cov[a*dims+a])
		for b := range a {
			cov[a*dims+b] = cov[b*dims+a]
		}
	}
	shift := max(0, bits.Len64(uint64(maxDiag))-30)
	for i := range cov {
		cov[i] >>= shift
	}
	var v, nv [16]int64
	big := 0
	for c := range dims {
		if cov[c*dims+c] > cov[big*dims+big] {
			big = c
		}
	}
	v[big] = 1 << 12
	for range 5 {
		var mx int64
		for a := range dims {
			var s int64
			for b, c := range cov[a*dims : (a+1)*dims] {
				s += c * v[b&15]
			}
			nv[a] = s
			mx = max(mx, abs64(s))
		}
		if mx == 0 {
			break
		}
		// An axis the step maps to itself stays through the others.
		same := true
		for a := range dims {
			na := nv[a] * (1 << 12) / mx
			same = same && na == v[a]
			v[a] = na
		}
		if same {
			break
		}
	}
	return v
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
