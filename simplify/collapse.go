package simplify

import (
	"math"
	"runtime"
	"slices"

	"github.com/meshcook/meshcook/internal/par"
)

// collapseTo runs collapse passes until the result holds at most target
// indices or no allowed collapse is left under the error limit. Each pass
// lists the candidate edges, ranks them by quadric error, and commits the
// cheapest ones that touch no vertex already moved in this pass (so ranks
// stay valid without a priority queue), as meshoptimizer does. It returns
// the context's error if that stopped it (checked at every pass and
// within walks, see work.go).
func (s *state) collapseTo(target int) error {
	s.nextFloor = 0
	for len(s.result) > target {
		if s.stop() {
			return s.err
		}
		s.work += int64(len(s.result) / 3) // listing, sorting, remapping
		s.adjOff, s.adj = buildAdjacency(s.result, s.n, s.remap, s.adjOff, s.adj)
		s.pickCollapses()
		if len(s.coll) == 0 {
			return nil
		}
		s.sortCollapses()
		// Deferrals (see tolerance.go): a pass that deferred every
		// candidate retries with its goal raised to the first quarter of the
		// deferred costs, and a pass that removed less than a quarter of its
		// goal raises the next pass's goal the same way, so passes never
		// trickle.
		goal := (len(s.result) - target) / 3
		nd := s.performCollapses(goal, s.nextFloor)
		for nd == 0 && len(s.deferred) > 0 && s.err == nil {
			nd = s.performCollapses(goal, s.deferredFloor())
		}
		if s.err != nil {
			return s.err
		}
		s.nextFloor = 0
		if s.removed < goal/4 && len(s.deferred) > 0 {
			s.nextFloor = s.deferredFloor()
		}
		if nd == 0 {
			return nil
		}
		s.updateQuadrics()
		remapLoop(s.loop, s.cremap, s.remap, s.qver)
		remapLoop(s.loopbk, s.cremap, s.remap, s.qver)
		s.remapResult()
	}
	return nil
}

// deferredFloor is the pass goal that admits the cheapest quarter of the
// collapses the last pass deferred.
func (s *state) deferredFloor() float64 {
	slices.Sort(s.deferred)
	return passErrorBound * s.deferred[len(s.deferred)/4]
}

// isLoopKind reports kinds whose edges are constrained to their loop.
func isLoopKind(k uint8) bool { return k == kindBorder || k == kindSeam }

// parChunk is how many triangles one goroutine handles at a time in the
// steps that run on several (listing and ranking candidates, quadrics,
// compaction); parBlock chunks form a block, which bounds the buffers of
// the steps that join per-chunk results.
const (
	parChunk = 4096
	parBlock = 8
	sortPart = 65536 // fewest keys per part of the parallel sort
)

// pickCollapses lists every edge that may collapse in at least one
// direction, in triangle order, with its error and direction (see
// rankRange). The triangles go in blocks of parBlock chunks: the chunks
// of a block run on up to GOMAXPROCS goroutines into their own lists,
// which are then appended in chunk order, so the result is the one a
// single goroutine gives and the lists stay small. Ranking is independent
// per candidate (each owns its corner's edge cache and reads state that
// does not change meanwhile).
func (s *state) pickCollapses() {
	tris := len(s.result) / 3
	if s.coll == nil {
		// About one candidate per edge, half the corners on a closed mesh:
		// allocate once instead of growing through the first pass.
		s.coll = make([]collapse, 0, tris*3/2+16)
	}
	s.coll = s.coll[:0]
	if s.chunkColl == nil {
		s.chunkColl = make([][]collapse, parBlock)
	}
	for block := 0; block < tris; block += parBlock * parChunk {
		n := par.Ranges(min(tris-block, parBlock*parChunk), parChunk, func(k, lo, hi int) {
			list := s.pickRange(s.chunkColl[k][:0], 3*(block+lo), 3*(block+hi))
			s.rankRange(list)
			s.chunkColl[k] = list
		})
		for _, l := range s.chunkColl[:n] {
			s.coll = append(s.coll, l...)
		}
	}
}

// pickRange appends the candidates of result[lo:hi] to list.
func (s *state) pickRange(list []collapse, lo, hi int) []collapse {
	tris := s.result
	if list == nil {
		list = make([]collapse, 0, (hi-lo)/2+16)
	}
	for t := lo; t+2 < hi; t += 3 {
		start := len(list)
		v := [4]uint32{tris[t], tris[t+1], tris[t+2], tris[t]}
		for e := 0; e < 3; e++ {
			i0, i1 := v[e], v[e+1]
			r0, r1 := s.remap[i0], s.remap[i1]
			if r0 == r1 {
				continue
			}
			k0, k1 := s.kind[i0], s.kind[i1]
			rule := s.rules[(k0<<2|k1)&15]
			if rule&(ruleForward|ruleBackward) == 0 {
				continue
			}
			if rule&ruleTwin != 0 && r1 > r0 {
				continue // the twin half-edge lists it
			}
			// Border and seam vertices move only along their own loop; an
			// edge between two loop vertices that is not a loop edge would
			// pinch the loop.
			if isLoopKind(k0) && k1 != kindManifold && s.loop[i0] != i1 {
				continue
			}
			if isLoopKind(k1) && k0 != kindManifold && s.loopbk[i1] != i0 {
				continue
			}
			corner := uint32(e) // claimSlots turns it into its slot
			switch rule & (ruleForward | ruleBackward) {
			case ruleForward | ruleBackward:
				list = append(list, collapse{v0: i0, v1: i1, r0: r0, r1: r1, slot: corner, bidi: true})
			case ruleForward:
				list = append(list, collapse{v0: i0, v1: i1, r0: r0, r1: r1, slot: corner})
			default:
				list = append(list, collapse{v0: i1, v1: i0, r0: r1, r1: r0, slot: corner})
			}
		}
		if len(list) > start {
			s.claimSlots(t/3, list[start:])
		}
	}
	return list
}

// Edge rule bits, by the kinds of an edge's two ends (edgeRules).
const (
	ruleForward  = 1 << iota // canCollapse[k0][k1]
	ruleBackward             // canCollapse[k1][k0]
	ruleTwin                 // hasOpposite[k0][k1]
)

// edgeRules[k0<<2|k1] packs canCollapse both ways and hasOpposite for an
// edge from a vertex of kind k0 to one of kind k1, so that listing the
// candidates reads one byte per edge; edgeRulesPermissive does the same
// for canCollapsePermissive. Never modified.
var (
	edgeRules           = packRules(&canCollapse)
	edgeRulesPermissive = packRules(&canCollapsePermissive)
)

func packRules(can *[kindCount][kindCount]bool) (r [16]uint8) {
	for k0 := range kindCount {
		for k1 := range kindCount {
			var b uint8
			if can[k0][k1] {
				b |= ruleForward
			}
			if can[k1][k0] {
				b |= ruleBackward
			}
			if hasOpposite[k0][k1] {
				b |= ruleTwin
			}
			r[k0<<2|k1] = b
		}
	}
	return r
}

// seamPartner returns the wedge that the other side of seam vertex i0 moves
// onto when i0 moves onto i1, or noVertex when the seam does not pair up.
func (s *state) seamPartner(i0, i1 uint32) uint32 {
	s0 := s.wedge[i0]
	var s1 uint32
	switch {
	case s.loop[i0] == i1:
		s1 = s.loopbk[s0]
	case s.loopbk[i0] == i1:
		s1 = s.loop[s0]
	default:
		return noVertex
	}
	if s1 == noVertex || s.remap[s1] != s.remap[i1] {
		return noVertex
	}
	return s1
}

// seamTarget is where the other wedge of seam vertex i0 goes when i0
// moves onto i1: its seam partner along the loop, or under
// Options.Permissive, off the seam onto a manifold i1, i1 itself (both
// wedges merge into i1's one). noVertex when the move is not allowed.
func (s *state) seamTarget(i0, i1 uint32) uint32 {
	if s1 := s.seamPartner(i0, i1); s1 != noVertex {
		return s1
	}
	if s.permit && s.kind[i1] == kindManifold {
		return i1
	}
	return noVertex
}

// collapseError is the cost of moving i0 onto i1: the geometric quadric of
// i0's position at i1, plus the attribute quadrics of every wedge that
// moves; attr is the attribute part of it.
func (s *state) collapseError(i0, i1 uint32) (e, attr float64) {
	e = s.vq[s.remap[i0]].distanceError(&s.pos[i1])
	var s0, s1 uint32 = noVertex, noVertex
	if s.kind[i0] == kindSeam {
		s0, s1 = s.wedge[i0], s.seamTarget(i0, i1)
		if s1 == noVertex {
			return math.Inf(1), 0
		}
	}
	if s.k > 0 {
		attr = s.attrError(i0, i1)
		if s0 != noVertex {
			attr += s.attrError(s0, s1)
		}
		e += attr
	}
	if math.IsNaN(e) {
		return math.Inf(1), 0
	}
	return e, attr
}

func (s *state) attrError(i0, i1 uint32) float64 {
	k := s.k
	return attributeError(&s.aq[i0], s.ag[int(i0)*k:int(i0+1)*k], &s.pos[i1], s.attr[int(i1)*k:int(i1+1)*k])
}

// rankError is the ranking cost of moving i0 onto i1: its quadric error
// qerr or the square of its known tolerance bound, whichever is larger.
func (s *state) rankError(i0, i1 uint32, qerr float64) float64 {
	t := s.rankTolerance(s.remap[i0], s.remap[i1])
	return maxf(qerr, t*t)
}

// cachedError is collapseError(i0, i1), reused from an earlier pass when
// the corner still holds the same edge and nothing collapseError reads about
// i0's class has changed since (see edgeCache).
func (s *state) cachedError(i0, i1 uint32, q, a *float64, ver *uint32) (float64, float64) {
	v := s.qver[s.remap[i0]]
	if *ver == v+1 {
		return *q, *a
	}
	*q, *a = s.collapseError(i0, i1)
	*ver = v + 1
	return *q, *a
}

// rankRange computes each candidate's error and picks its direction.
func (s *state) rankRange(list []collapse) {
	var none edgeCache
	var noAttr edgeAttr
	for i := range list {
		c := &list[i]
		ec, ea := s.cacheFor(c.slot, &none, &noAttr)
		q, a := s.cachedError(c.v0, c.v1, &ec.q01, &ea.a01, &ec.ver0)
		e := s.rankError(c.v0, c.v1, q)
		if c.bidi {
			rq, ra := s.cachedError(c.v1, c.v0, &ec.q10, &ea.a10, &ec.ver1)
			if r := s.rankError(c.v1, c.v0, rq); r < e {
				c.v0, c.v1, c.r0, c.r1, e, q, a = c.v1, c.v0, c.r1, c.r0, r, rq, ra
			}
		}
		c.qerr = q
		c.attr = a
		c.err = e
	}
}

// sortCollapses orders candidates by error with a stable LSD radix sort on
// the float32 bits (3 passes of 11 bits): exact, stable, deterministic. It
// sorts packed key<<32|index words, so every pass reads contiguous memory,
// and leaves them in sorted: the walks read the candidates through it (see
// ranked) instead of a copy of the list in rank order, which would hold
// all of them twice. Each pass splits the keys into consecutive parts that
// count and scatter on up to GOMAXPROCS goroutines, part p writing each
// digit's keys after those of the parts before it; a stable sort has one
// result, so the parts (which depend on GOMAXPROCS) do not change it.
func (s *state) sortCollapses() {
	m := len(s.coll)
	if cap(s.keys) < m {
		s.keys = make([]uint64, m)
		s.keysTmp = make([]uint64, m)
	}
	keys, tmp := s.keys[:m], s.keysTmp[:m]
	parts := max(1, min(runtime.GOMAXPROCS(0), m/sortPart))
	if cap(s.sortHist) < parts {
		s.sortHist = make([][2048]uint32, parts)
	}
	hist := s.sortHist[:parts]
	bounds := func(p int) (int, int) { return p * m / parts, (p + 1) * m / parts }
	par.Workers(parts, parts, func(_, p int) {
		lo, hi := bounds(p)
		for i := lo; i < hi; i++ {
			keys[i] = uint64(sortKey(s.coll[i].err))<<32 | uint64(i)
		}
	})
	for d := range 3 {
		shift := 32 + 11*uint(d)
		// Count each part's digits, then turn the counts into each part's
		// first slot per digit: digit-major, part-minor, which keeps the
		// sort stable.
		par.Workers(parts, parts, func(_, p int) {
			lo, hi := bounds(p)
			h := &hist[p]
			*h = [2048]uint32{}
			for _, k := range keys[lo:hi] {
				h[(k>>shift)&2047]++
			}
		})
		sum := uint32(0)
		for b := range 2048 {
			for p := range hist {
				h := hist[p][b]
				hist[p][b] = sum
				sum += h
			}
		}
		par.Workers(parts, parts, func(_, p int) {
			lo, hi := bounds(p)
			h := &hist[p]
			for _, k := range keys[lo:hi] {
				b := (k >> shift) & 2047
				tmp[h[b]] = k
				h[b]++
			}
		})
		keys, tmp = tmp, keys
	}
	s.sorted = keys
}

// ranked is the candidate at rank i of the pass (see sortCollapses).
func (s *state) ranked(i int) *collapse { return &s.coll[uint32(s.sorted[i])] }

// sortKey is the radix sort key of a rank: its float32 bits, which order
// like the values for ranks >= 0.
func sortKey(err float64) uint32 { return math.Float32bits(float32(err)) }

// updateQuadrics folds each moved vertex's quadrics into its target.
func (s *state) updateQuadrics() {
	k := s.k
	for i, t := range s.cremap {
		if t == uint32(i) {
			continue
		}
		r0, r1 := s.remap[i], s.remap[t]
		if uint32(i) == r0 { // once per position class
			s.vq[r1].add(&s.vq[r0])
		}
		if k > 0 {
			s.aq[t].add(&s.aq[i])
			addGradients(s.ag[int(t)*k:int(t+1)*k], s.ag[i*k:(i+1)*k])
		}
	}
}

// remapLoop redirects loop links through this pass's collapses and bumps
// qver of every class whose links changed (seamPartner reads them).
func remapLoop(loop, cremap, remap, qver []uint32) {
	for i, l := range loop {
		if l == noVertex {
			continue
		}
		r := cremap[l]
		if r == uint32(i) {
			// The loop edge i→l collapsed onto i: skip over l.
			if loop[l] != noVertex {
				r = cremap[loop[l]]
			} else {
				r = noVertex
			}
		}
		if r != l {
			loop[i] = r
			qver[remap[i]]++
		}
	}
}

// remapResult rewrites the triangles and drops the ones that collapsed.
// Chunks of triangles compact in place on up to GOMAXPROCS goroutines
// (each writes only its own range), then slide down in chunk order.
func (s *state) remapResult() {
	tris := len(s.result) / 3
	chunks := (tris + parChunk - 1) / parChunk
	if cap(s.chunkKept) < chunks {
		s.chunkKept = make([]int, chunks)
	}
	kept := s.chunkKept[:chunks]
	par.Ranges(tris, parChunk, func(k, lo, hi int) {
		kept[k] = s.remapRange(3*lo, 3*hi)
	})
	w := 0
	for k, n := range kept {
		lo := 3 * k * parChunk
		if w != lo {
			copy(s.result[w:w+n], s.result[lo:lo+n])
			copy(s.ecache[2*w/3:2*(w+n)/3], s.ecache[2*lo/3:2*(lo+n)/3])
			if s.eattr != nil {
				copy(s.eattr[2*w/3:2*(w+n)/3], s.eattr[2*lo/3:2*(lo+n)/3])
			}
			copy(s.eslot[w/3:(w+n)/3], s.eslot[lo/3:(lo+n)/3])
		}
		w += n
	}
	s.result = s.result[:w]
	s.ecache = s.ecache[:2*w/3]
	if s.eattr != nil {
		s.eattr = s.eattr[:2*w/3]
	}
	s.eslot = s.eslot[:w/3]
}

// remapRange compacts the surviving triangles of result[lo:hi] to its
// start and returns how many indices they hold.
func (s *state) remapRange(lo, hi int) int {
	tris := s.result[lo:hi]
	ec := s.ecache[2*lo/3 : 2*hi/3]
	var ea []edgeAttr
	if s.eattr != nil {
		ea = s.eattr[2*lo/3 : 2*hi/3]
	}
	es := s.eslot[lo/3 : hi/3]
	w := 0
	for t := 0; t+2 < len(tris); t += 3 {
		old := [3]uint32{tris[t], tris[t+1], tris[t+2]}
		a, b, c := s.cremap[old[0]], s.cremap[old[1]], s.cremap[old[2]]
		ra, rb, rc := s.remap[a], s.remap[b], s.remap[c]
		if ra == rb || ra == rc || rb == rc {
			continue
		}
		tris[w], tris[w+1], tris[w+2] = a, b, c
		moveCache(ec, ea, es, t/3, w/3, old, [3]uint32{a, b, c})
		w += 3
	}
	return w
}
