package ktx2

import (
	"math"
	"slices"

	"github.com/meshcook/meshcook/internal/par"
)

// etc1sEncoder quantizes every block of a texture (all levels, RGB and
// alpha slices) into one endpoint and one selector codebook:
//
//  1. each block is fitted alone (fitETC1S);
//  2. the blocks are split into endpoint clusters by tree VQ on their
//     fitted low and high colors, each cluster's endpoint fitted on all
//     its pixels; then, in refinement passes, every block moves to the
//     endpoint that codes it best among its candidates (the clusters
//     grouped with its own, and those of its four neighbours), and the
//     changed clusters are refitted;
//  3. every block's ideal selectors under its endpoint are split into
//     selector clusters by tree VQ on the modifiers they pick; each
//     cluster's entry takes, pixel by pixel, the selector with the least
//     error summed over its blocks; in refinement passes every block
//     moves to the entry that codes it best among its candidates (as for
//     endpoints, plus the four flat entries) and the entries are
//     recomputed;
//  4. endpoints are refitted on the selectors their blocks now use, the
//     selectors reassigned once more under them, and unused codebook
//     entries dropped.
//
// Per-block work runs in parallel and writes only its own block's slots;
// clustering is sequential integer arithmetic with fixed tie-breaks
// (candidates in a fixed order, the current one kept on ties), so the
// result does not depend on GOMAXPROCS.
type etc1sEncoder struct {
	px       [][16][3]uint8
	nbr      [][4]int32 // left, right, above, below in the same slice; -1 none
	ke, ks   int
	eff      fitEffort // per-block fit
	effC     fitEffort // cluster fit
	epPasses int
	selPass  int

	epOf  []int32
	eps   []etc1sEndpoint
	selOf []int32
	sels  [][16]uint8
	// flat are the indices of the four constant selector entries in sels
	// (-1 until reassignSelectors adds them); selectorEntries leaves them
	// as they are, so the codebook grows by at most four.
	flat [4]int32
}

// Candidate group sizes: a block compares its own cluster's group.
const (
	epGroup  = 16
	selGroup = 32
)

func newETC1SEncoder(px [][16][3]uint8, sl []etc1sSlice, quality int) *etc1sEncoder {
	e := &etc1sEncoder{px: px, nbr: make([][4]int32, len(px)), flat: [4]int32{-1, -1, -1, -1}}
	for _, s := range sl {
		for by := range s.bh {
			for bx := range s.bw {
				i := s.first + by*s.bw + bx
				n := [4]int32{-1, -1, -1, -1}
				if bx > 0 {
					n[0] = int32(i - 1)
				}
				if bx+1 < s.bw {
					n[1] = int32(i + 1)
				}
				if by > 0 {
					n[2] = int32(i - s.bw)
				}
				if by+1 < s.bh {
					n[3] = int32(i + s.bw)
				}
				e.nbr[i] = n
			}
		}
	}
	e.ke, e.ks = codebookSizes(len(px), quality)
	// Block fits only seed the clustering (every cluster is refitted on
	// its pixels), so they get one refinement of the two best tables;
	// the neighbour search is kept for quality 90 and up.
	e.eff = fitEffort{refines: 1, tables: 2, neighbors: quality >= 90}
	e.effC = fitEffort{refines: 3, tables: 3, neighbors: quality >= 90}
	e.epPasses, e.selPass = 1, 1
	if quality >= 50 {
		e.epPasses, e.selPass = 2, 2
	}
	return e
}

func (e *etc1sEncoder) run() {
	n := len(e.px)
	// 1. Each block alone.
	fit := make([]etc1sEndpoint, n)
	par.Ranges(n, 256, func(_, lo, hi int) {
		var p etc1sPixels
		for i := lo; i < hi; i++ {
			p.reset(e.px[i : i+1])
			fit[i], _ = p.fit(e.eff)
		}
	})
	// 2. Endpoint clusters.
	e.epOf = treeVQ(n, 6, func(i int, out []int32) { lowHigh(fit[i], out) }, e.ke)
	e.eps = make([]etc1sEndpoint, maxOf(e.epOf)+1)
	e.fitClusters(nil)
	for range e.epPasses {
		if !e.reassignEndpoints() {
			break
		}
	}
	// 3. Selector clusters.
	errs := e.selectorErrors(nil)
	e.selOf = treeVQ(n, 16, func(i int, out []int32) {
		t := e.eps[e.epOf[i]].t
		for j := range 16 {
			out[j] = etc1Inten[t][argmin4(&errs[i][j])]
		}
	}, e.ks)
	e.sels = make([][16]uint8, maxOf(e.selOf)+1)
	e.selectorEntries(errs)
	for range e.selPass {
		e.reassignSelectors(errs)
		e.selectorEntries(errs)
	}
	// 4. Endpoints on the final selectors, then selectors once more.
	members := groupMembers(e.epOf, int32(len(e.eps)))
	par.Each(len(members), func(k int) {
		if len(members[k]) > 0 {
			e.eps[k] = refitEndpoint(e.px, members[k], e.selOf, e.sels, e.eps[k])
		}
	})
	errs = e.selectorErrors(errs) // in place: 256 bytes per block
	e.reassignSelectors(errs)
	e.selectorEntries(errs)
}

// lowHigh writes an endpoint's darkest and brightest colors.
func lowHigh(ep etc1sEndpoint, out []int32) {
	c := ep.colors()
	for k := range 3 {
		out[k], out[3+k] = c[0][k], c[3][k]
	}
}

func argmin4(v *[4]int32) int {
	best := 0
	for s := 1; s < 4; s++ {
		if v[s] < v[best] {
			best = s
		}
	}
	return best
}

// fitClusters refits the endpoint of every cluster (or of those marked
// in only) on all the pixels of its blocks.
func (e *etc1sEncoder) fitClusters(only []bool) {
	members := groupMembers(e.epOf, int32(len(e.eps)))
	par.Each(len(members), func(k int) {
		if len(members[k]) == 0 || (only != nil && !only[k]) {
			return
		}
		bl := make([][16][3]uint8, len(members[k]))
		for j, i := range members[k] {
			bl[j] = e.px[i]
		}
		p := newETC1SPixels(bl)
		fit, err := p.fit(e.effC)
		// A refit keeps the old endpoint when that codes the new members
		// better, so a pass never makes a cluster worse.
		if only != nil {
			if p.evalOnly(e.eps[k], err) <= err {
				return
			}
		}
		e.eps[k] = fit
	})
}

// clusterGroups groups k items (codebook entries) into groups of at most
// size: tree VQ on their features into k/size clusters, whose members,
// cluster after cluster, are cut into runs of size. It returns each
// item's group and each group's members.
func clusterGroups(k, dims, size int, feat func(i int, out []int32)) ([]int32, [][]int) {
	of := treeVQ(k, dims, feat, (k+size-1)/size)
	var groups [][]int
	for _, m := range groupMembers(of, maxOf(of)+1) {
		for len(m) > 0 {
			h := min(size, len(m))
			groups = append(groups, m[:h])
			m = m[h:]
		}
	}
	gOf := make([]int32, k)
	for g, m := range groups {
		for _, i := range m {
			gOf[i] = int32(g)
		}
	}
	return gOf, groups
}

// reassignEndpoints moves every block to its best candidate endpoint and
// refits the clusters that changed; it reports whether any block moved.
func (e *etc1sEncoder) reassignEndpoints() bool {
	n := len(e.px)
	gOf, groups := clusterGroups(len(e.eps), 6, epGroup, func(i int, out []int32) { lowHigh(e.eps[i], out) })
	next := make([]int32, n)
	par.Ranges(n, 256, func(_, lo, hi int) {
		var p etc1sPixels
		for i := lo; i < hi; i++ {
			cur := e.epOf[i]
			p.reset(e.px[i : i+1])
			best, bestErr := cur, p.evalOnly(e.eps[cur], math.MaxInt64)
			// A block does not move to a larger table: its selectors
			// are quantized next, which costs more with larger steps.
			try := func(c int32) {
				if c == cur || bestErr == 0 || e.eps[c].t > e.eps[cur].t {
					return
				}
				if err := p.evalOnly(e.eps[c], bestErr); err < bestErr {
					best, bestErr = c, err
				}
			}
			for _, c := range groups[gOf[cur]] {
				try(int32(c))
			}
			// A neighbour's endpoint in the same group was just tried
			// (trying one again never moves the block).
			for _, nb := range e.nbr[i] {
				if nb >= 0 && gOf[e.epOf[nb]] != gOf[cur] {
					try(e.epOf[nb])
				}
			}
			next[i] = best
		}
	})
	changed := make([]bool, len(e.eps))
	moved := false
	for i, c := range next {
		if c != e.epOf[i] {
			changed[c], changed[e.epOf[i]] = true, true
			moved = true
		}
	}
	if !moved {
		return false
	}
	e.epOf = next
	e.fitClusters(changed)
	e.compactEndpoints()
	return true
}

// compactEndpoints drops endpoint clusters no block uses.
func (e *etc1sEncoder) compactEndpoints() {
	used := make([]int32, len(e.eps))
	for _, c := range e.epOf {
		used[c] = 1
	}
	var k int32
	for i := range used {
		if used[i] == 1 {
			e.eps[k] = e.eps[i]
			used[i] = k
			k++
		}
	}
	e.eps = e.eps[:k]
	for i, c := range e.epOf {
		e.epOf[i] = used[c]
	}
}

// selectorErrors returns, per block, pixel and selector, the squared
// error under the block's endpoint, in errs when it is not nil.
func (e *etc1sEncoder) selectorErrors(errs [][16][4]int32) [][16][4]int32 {
	n := len(e.px)
	if errs == nil {
		errs = make([][16][4]int32, n)
	}
	par.Ranges(n, 1024, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			col := e.eps[e.epOf[i]].colors()
			for j := range 16 {
				for s := range 4 {
					var d2 int32
					for c := range 3 {
						d := col[s][c] - int32(e.px[i][j][c])
						d2 += d * d
					}
					errs[i][j][s] = d2
				}
			}
		}
	})
	return errs
}

// selectorEntries sets each selector cluster's entry to the selector with
// the least summed error per pixel over its blocks (clusters without
// blocks and the flat entries keep theirs).
func (e *etc1sEncoder) selectorEntries(errs [][16][4]int32) {
	members := groupMembers(e.selOf, int32(len(e.sels)))
	par.Each(len(members), func(k int) {
		if len(members[k]) == 0 || slices.Contains(e.flat[:], int32(k)) {
			return
		}
		for j := range 16 {
			var sum [4]int64
			for _, i := range members[k] {
				for s := range 4 {
					sum[s] += int64(errs[i][j][s])
				}
			}
			best := 0
			for s := 1; s < 4; s++ {
				if sum[s] < sum[best] {
					best = s
				}
			}
			e.sels[k][j] = uint8(best)
		}
	})
}

// reassignSelectors moves every block to its best candidate selector
// entry: the entries grouped with its own, its neighbours' and the four
// flat ones (added to the codebook on the first call when missing).
func (e *etc1sEncoder) reassignSelectors(errs [][16][4]int32) {
	for s := range 4 {
		if e.flat[s] >= 0 {
			continue
		}
		var f [16]uint8
		for j := range f {
			f[j] = uint8(s)
		}
		k := slices.Index(e.sels, f)
		if k < 0 {
			k = len(e.sels)
			e.sels = append(e.sels, f)
		}
		e.flat[s] = int32(k)
	}
	gOf, groups := clusterGroups(len(e.sels), 16, selGroup, func(i int, out []int32) {
		for j := range 16 {
			out[j] = int32(e.sels[i][j])
		}
	})
	n := len(e.px)
	next := make([]int32, n)
	par.Ranges(n, 1024, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			er := &errs[i]
			cost := func(k int32, limit int32) int32 {
				s := &e.sels[k]
				var t int32
				for j := range 16 {
					t += er[j][s[j]&3] // entries are 0..3; the mask drops the bounds check
					if t > limit {
						return t
					}
				}
				return t
			}
			cur := e.selOf[i]
			best, bestErr := cur, cost(cur, math.MaxInt32)
			try := func(k int32) {
				if k == cur || bestErr == 0 {
					return
				}
				if c := cost(k, bestErr); c < bestErr {
					best, bestErr = k, c
				}
			}
			for _, k := range groups[gOf[cur]] {
				try(int32(k))
			}
			for _, nb := range e.nbr[i] {
				if nb >= 0 && gOf[e.selOf[nb]] != gOf[cur] {
					try(e.selOf[nb])
				}
			}
			for _, k := range e.flat {
				try(k)
			}
			next[i] = best
		}
	})
	e.selOf = next
}

// output returns the codebooks without unused or duplicate entries, the
// endpoints sorted by color so their DPCM deltas are small, and each
// block's indices.
func (e *etc1sEncoder) output() ([]etc1sEndpoint, [][16]uint8, []etc1sBlockRef) {
	e.compactEndpoints()
	order := make([]int, len(e.eps))
	for i := range order {
		order[i] = i
	}
	luma := func(p etc1sEndpoint) int { return 2*int(p.c[1]) + int(p.c[0]) + int(p.c[2]) }
	slices.SortStableFunc(order, func(a, b int) int { return luma(e.eps[a]) - luma(e.eps[b]) })
	rank := make([]int32, len(order))
	eps := make([]etc1sEndpoint, len(order))
	for r, k := range order {
		rank[k] = int32(r)
		eps[r] = e.eps[k]
	}
	// Selectors: first use order, identical entries merged.
	selIdx := make([]int32, len(e.sels))
	for i := range selIdx {
		selIdx[i] = -1
	}
	seen := map[[16]uint8]int32{}
	var sels [][16]uint8
	blocks := make([]etc1sBlockRef, len(e.px))
	for i := range blocks {
		k := e.selOf[i]
		if selIdx[k] < 0 {
			v, ok := seen[e.sels[k]]
			if !ok {
				v = int32(len(sels))
				seen[e.sels[k]] = v
				sels = append(sels, e.sels[k])
			}
			selIdx[k] = v
		}
		blocks[i] = etc1sBlockRef{ep: int(rank[e.epOf[i]]), sel: int(selIdx[k])}
	}
	return eps, sels, blocks
}
