package simplify

import (
	"math"
	"runtime"

	"github.com/meshcook/meshcook/internal/par"
)

// Regions. On a large mesh a pass commits most of its collapses in up to
// maxRegions regions at once. Every class belongs to one region (see
// partition), and a candidate whose two classes have their whole fans in
// one region is that region's to walk: such a collapse reads and writes
// only classes of its region (fans, tolerance bounds, pass links), so
// regions walk in parallel without locks. Regions take the candidates
// ranked before the pass's triangle goal, in rank order, under the pass's
// error goal; then one final walk goes over the whole order, with the
// totals of all regions, and takes what they left: candidates across
// region borders and everything ranked later, where the order across the
// whole mesh decides which triangles go. The region count depends only on
// the triangle count (one per defaultRegionTris, from two), so output is the
// same for every GOMAXPROCS, and a smaller mesh is walked by the final walk
// alone, exactly as before regions existed.
const (
	defaultRegionTris = 16384
	maxRegions        = 8
)

// walk is one walk over candidates in rank order and its totals.
type walk struct {
	order    []uint32 // positions in s.sorted, unless all
	all      bool     // walk every candidate
	cap      int      // a region's share of the triangle goal (not all)
	deferred []float64
	maxErr   float64
	maxCost  float64
	removed  int
	done     int
	invalid  int
	work     int64  // work units (see work.go)
	nextPoll int64  // work at which to check the context next
	stopped  bool   // the context was done
	touch    uint32 // sink of prefetch's loads (see prefetch.go)
}

// scratch is one goroutine's state for validity and bound checks.
type scratch struct {
	mark []uint32
	md   []float64
	gen  uint32
	opp  []uint32
	fanX []uint32 // validBound: the fan vertices with a midpoint distance
}

// scratchFor returns goroutine w's scratch, sized for n classes.
func (s *state) scratchFor(w int) *scratch {
	for len(s.scratch) <= w {
		s.scratch = append(s.scratch, &scratch{})
	}
	sc := s.scratch[w]
	if len(sc.mark) < s.n {
		sc.mark = make([]uint32, s.n)
		sc.md = make([]float64, s.n)
		sc.gen = 0
	}
	return sc
}

// performCollapses commits collapses in rank order and returns how many;
// floor raises the pass goal for deferrals (see collapseTo).
func (s *state) performCollapses(triGoal int, floor float64) int {
	for i := range s.cremap {
		s.cremap[i] = uint32(i)
		s.ccur[i] = uint32(i)
	}
	clear(s.clock)
	clear(s.spent)
	if cap(s.visited) < len(s.sorted) {
		s.visited = make([]bool, len(s.sorted))
	}
	s.visited = s.visited[:len(s.sorted)]
	clear(s.visited)
	final := walk{all: true, deferred: s.deferred[:0], maxErr: s.maxErr, maxCost: s.maxCost}
	if n := s.splitRegions(triGoal); n > 1 {
		walks := s.walks[:n]
		workers := min(n, runtime.GOMAXPROCS(0))
		for w := range workers {
			s.scratchFor(w) // allocated here: the workers only read the list
		}
		par.Workers(n, workers, func(w, r int) {
			s.walkOrder(s.scratch[w], &walks[r], triGoal, floor)
		})
		stopped := false
		for r := range walks {
			w := &walks[r]
			final.deferred = append(final.deferred, w.deferred...)
			final.maxErr = maxf(final.maxErr, w.maxErr)
			final.maxCost = maxf(final.maxCost, w.maxCost)
			final.removed += w.removed
			final.done += w.done
			final.invalid += w.invalid
			s.work += w.work
			stopped = stopped || w.stopped
		}
		if stopped && s.stop() {
			return 0
		}
	}
	s.walkOrder(s.scratchFor(0), &final, triGoal, floor)
	s.work += final.work
	if final.stopped && s.stop() {
		return 0
	}
	s.deferred = final.deferred
	s.maxErr, s.maxCost = final.maxErr, final.maxCost
	s.removed = final.removed
	return final.done
}

// splitRegions deals the pass's candidates out to regions (see defaultRegionTris)
// and returns the region count; 1 leaves every candidate to the final walk.
func (s *state) splitRegions(triGoal int) int {
	n := min(len(s.result)/3/s.regionTris, maxRegions)
	if n <= 1 {
		return 1
	}
	if cap(s.region) < s.n {
		s.region = make([]uint8, s.n)
		s.regionOf = make([]uint8, s.n)
	}
	if s.regions != n {
		s.regions = n
		s.partition(n)
	}
	// Interior flags of every class, on up to GOMAXPROCS goroutines (each
	// class's flag depends only on its fan and regionOf).
	region := s.region[:s.n]
	par.Ranges(s.n, parChunk, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			region[r] = s.interiorRegion(s.regionOf, uint32(r))
		}
	})
	if cap(s.walks) < n {
		s.walks = make([]walk, n)
	}
	s.walks = s.walks[:n]
	for r := range s.walks {
		w := &s.walks[r]
		*w = walk{order: w.order[:0], deferred: w.deferred[:0], maxErr: s.maxErr, maxCost: s.maxCost}
	}
	// Up to the goal rank a pass seldom reaches its triangle goal (most
	// candidates there are blocked by an earlier neighbour, invalid or
	// deferred), so the regions walk those, each removing at most its share
	// of the goal (its share of those ranks), so that together they never
	// pass it; beyond, the pass order decides which region gets the
	// remaining triangles.
	limit := min(len(s.sorted), triGoal)
	for k := range limit {
		c := s.ranked(k)
		g := region[c.r0]
		if g != noRegion && region[c.r1] == g {
			s.walks[g].order = append(s.walks[g].order, uint32(k))
		}
	}
	for r := range s.walks {
		w := &s.walks[r]
		w.cap = int(int64(triGoal) * int64(len(w.order)) / int64(max(limit, 1)))
	}
	return n
}

// noRegion marks a class whose fan crosses a region border.
const noRegion = 0xff

// interiorRegion is of[r] when every class of r's fan is in the same
// region, else noRegion.
func (s *state) interiorRegion(of []uint8, r uint32) uint8 {
	g := of[r]
	for _, e := range s.adj[s.adjOff[r]:s.adjOff[r+1]] {
		if of[e.next] != g || of[e.prev] != g {
			return noRegion
		}
	}
	return g
}

// partition assigns every class to one of n regions: ranges of the class
// numbering, or slabs of equal class count along the longest axis,
// whichever left more candidates inside one region the first time
// (numbering ranges follow the index buffer, which keeps separate parts
// apart; slabs keep a single large part compact). The choice holds for
// the rest of the simplification; only the region count changes.
func (s *state) partition(n int) {
	of := s.regionOf[:s.n]
	switch s.scheme {
	case schemeRanges:
		s.rangeRegions(of, n)
	case schemeSlabs:
		s.slabRegions(of, n)
	default:
		s.rangeRegions(of, n)
		ranges := s.interiorCandidates(of)
		slabs := make([]uint8, s.n)
		s.scheme = schemeRanges
		if s.slabRegions(slabs, n) && s.interiorCandidates(slabs) > ranges {
			copy(of, slabs)
			s.scheme = schemeSlabs
		}
	}
}

// Region schemes (see partition).
const (
	schemeUndecided = iota
	schemeRanges
	schemeSlabs
)

// rangeRegions splits the class numbering into n equal ranges.
func (s *state) rangeRegions(of []uint8, n int) {
	for r := range of {
		of[r] = uint8(uint64(r) * uint64(n) / uint64(s.n))
	}
}

// slabRegions splits the classes into n slabs of about equal class count
// along the longest axis of their box (counted in 4096 bins), or returns
// false for a flat extent along every axis.
func (s *state) slabRegions(of []uint8, n int) bool {
	const bins = 4096
	lo, hi := vec3{1, 1, 1}, vec3{}
	for r := range s.n {
		if s.used[r] && s.remap[r] == uint32(r) {
			for j := range 3 {
				lo[j], hi[j] = min(lo[j], s.pos[r][j]), max(hi[j], s.pos[r][j])
			}
		}
	}
	axis := 0
	for j := 1; j < 3; j++ {
		if hi[j]-lo[j] > hi[axis]-lo[axis] {
			axis = j
		}
	}
	span := hi[axis] - lo[axis]
	if !(span > 0) {
		return false
	}
	bin := func(r int) int { return max(0, min(int((s.pos[r][axis]-lo[axis])/span*bins), bins-1)) }
	var hist [bins]int
	total := 0
	for r := range s.n {
		if s.used[r] && s.remap[r] == uint32(r) {
			hist[bin(r)]++
			total++
		}
	}
	var slabOf [bins]uint8
	sum := 0
	for b, h := range hist {
		slabOf[b] = uint8(min(sum*n/max(total, 1), n-1))
		sum += h
	}
	for r := range of {
		of[r] = slabOf[bin(r)]
	}
	return true
}

// interiorCandidates counts the pass's candidates inside one region of of
// (s.region is its scratch).
func (s *state) interiorCandidates(of []uint8) int {
	region := s.region[:s.n]
	par.Ranges(s.n, parChunk, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			region[r] = s.interiorRegion(of, uint32(r))
		}
	})
	k := 0
	for i := range s.sorted {
		c := s.ranked(i)
		g := s.region[c.r0]
		if g != noRegion && s.region[c.r1] == g {
			k++
		}
	}
	return k
}

// walkOrder commits w's candidates in rank order, skipping those an
// earlier walk of the pass went past, until triGoal triangles are removed
// or costs pass the error goal. The goal edge is the one at rank triGoal/2
// of the whole pass, moved back by the invalid collapses seen (a region
// scales its count up by its share), since they should not set it; a
// region defers at most its share of the pass's deferrals, and stops at the
// error goal even before a sixth of the goal is removed (the final walk
// then goes on past it, as one walk would).
func (s *state) walkOrder(sc *scratch, w *walk, triGoal int, floor float64) {
	// A region's share of the pass: its part of the candidates.
	num, den, count := 1, 1, len(s.sorted)
	if !w.all {
		num, den, count = len(s.sorted), len(w.order), len(w.order)
	}
	if den == 0 {
		return
	}
	share := func(x int) int { return int(int64(x) * int64(den) / int64(num)) }
	// With weighted attributes, past the first pass of a level (a goal
	// under half the triangles) and on a pass's first walk, collapses
	// whose fresh cost exceeds their rank by more than raiseSlack are
	// re-ranked in the next pass instead of committed: the pass goal alone
	// (passErrorBound above the goal edge) let the costliest of them set a
	// level's error.
	strict := s.k > 0 && floor == 0 && 2*triGoal < len(s.result)/3
	for j := range count {
		if w.work++; w.work >= w.nextPoll {
			w.nextPoll = w.work + pollWork
			if s.poll(s.work + w.work) {
				w.stopped = true
				return
			}
		}
		ci := j
		if !w.all {
			ci = int(w.order[j])
		}
		if p := j + prefetchAhead; p < count {
			w.touch += s.prefetch(w, p)
		}
		if s.visited[ci] {
			continue
		}
		c := s.ranked(ci)
		if w.removed >= triGoal || !w.all && w.removed+2 > w.cap {
			break
		}
		if c.qerr > s.limit {
			continue // the error limit is on the quadric error alone
		}
		// Most collapses remove two triangles; the error of the edge at
		// that rank, with slack for collapses blocked by their neighbours,
		// bounds the pass so that it does not take costly edges while
		// cheaper ones would appear after re-ranking.
		edgeGoal := triGoal/2 + int(int64(w.invalid)*int64(num)/int64(den))
		errGoal := math.Inf(1)
		if edgeGoal < len(s.sorted) {
			errGoal = passErrorBound * s.ranked(edgeGoal).err
		}
		if c.err > errGoal && c.err > w.maxCost && (w.removed > triGoal/6 || !w.all) {
			break
		}
		s.visited[ci] = true
		i0, i1 := c.v0, c.v1
		r0, r1 := c.r0, c.r1
		if s.clock[r0] || s.clock[r1] || !s.admit(w, r0, r1) {
			continue
		}
		ok, loc := s.validBound(sc, r0, r1)
		if !ok {
			w.invalid++ // an invalid collapse should not set the error goal
			continue
		}
		// The rank is a lower bound; the tolerance bound of the collapse in
		// the mesh as it is now may cost more. Over the pass goal, or (when
		// strict) over raiseSlack times its rank, defer it to a later pass
		// where it ranks by that cost. The fresh bound adds to the
		// attribute part of the quadric error: it measures geometry only,
		// so a large attribute error must not hide it.
		bnd := s.tl[r0].tol + loc
		cost := maxf(c.err, c.attr+bnd*bnd)
		if cost > w.maxCost && (cost > maxf(errGoal, floor) || strict && cost > raiseSlack*c.err) {
			w.deferred = append(w.deferred, cost)
			if len(w.deferred) > share(maxDeferred*(edgeGoal+1)) {
				break // enough to set the next goal (see collapseTo)
			}
			continue
		}
		kind := s.kind[i0]
		if kind == kindSeam {
			s1 := s.seamTarget(i0, i1)
			if s1 == noVertex {
				continue
			}
			s.cremap[s.wedge[i0]] = s1
		}
		s.cremap[i0] = i1
		s.ccur[r0] = r1
		s.qver[r1]++ // its quadrics grow in updateQuadrics
		s.clock[r0], s.clock[r1] = true, true
		if kind == kindBorder {
			w.removed++
		} else {
			w.removed += 2
		}
		w.done++
		s.spreadTolerance(r0, r1, bnd)
		w.work += int64(s.adjOff[r0+1] - s.adjOff[r0])
		w.maxErr = maxf(w.maxErr, c.qerr)
		w.maxCost = maxf(w.maxCost, cost)
	}
}

// validBound is collapseValid(r0, r1) and, when valid, the local bound of
// the collapse (see tolerance.go): the larger of the distance from r0 to
// the triangles around r0 with r0 replaced by r1 (those that survive; the
// edge length when none does) and the distance from the midpoint of each
// new edge r1-x to the nearer of the old triangles around r0 that contain
// x. The bound is cached per class until r0's neighbourhood changes; when
// it is not cached, one walk over r0's fan computes both.
func (s *state) validBound(sc *scratch, r0, r1 uint32) (bool, float64) {
	t := &s.tl[r0]
	if t.holds(r1) {
		return s.collapseValid(sc, r0, r1), t.loc
	}
	gen := sc.nextGen()
	sc.opp, sc.fanX = sc.opp[:0], sc.fanX[:0]
	p0, p1 := s.pos[r0], s.pos[r1]
	fan := s.adj[s.adjOff[r0]:s.adjOff[r0+1]]
	near := math.Inf(1)
	for _, e := range fan {
		a, b := s.cur(e.next), s.cur(e.prev)
		if a == b || a == r0 || b == r0 {
			continue // removed earlier in this pass
		}
		pa, pb := s.pos[a], s.pos[b]
		if a == r1 || b == r1 {
			x := a
			if a == r1 {
				x = b
			}
			sc.opp = append(sc.opp, x)
			sc.mark[r1] = gen
			sc.markDistance(x, gen, pointTriangle2(midpoint(p1, s.pos[x]), p0, pa, pb))
			continue
		}
		if flips(p0, p1, pa, pb) {
			return false, 0
		}
		near = minf(near, pointTriangle2(p0, p1, pa, pb))
		sc.markDistance(a, gen, pointTriangle2(midpoint(p1, pa), p0, pa, pb))
		sc.markDistance(b, gen, pointTriangle2(midpoint(p1, pb), p0, pa, pb))
	}
	if !s.linkValid(sc, r0, r1, gen) {
		return false, 0
	}
	if math.IsInf(near, 1) {
		d := p0.sub(p1)
		near = d.dot(d)
	}
	worst := near
	for _, x := range sc.fanX {
		worst = maxf(worst, sc.md[x])
	}
	d := math.Sqrt(worst)
	t = &s.tl[r0]
	t.to, t.cacheOf, t.loc = r1, t.ver+1, d
	return true, d
}

// markDistance keeps the smallest distance d seen for x in this generation.
func (sc *scratch) markDistance(x, gen uint32, d float64) {
	if sc.mark[x] != gen {
		sc.mark[x], sc.md[x] = gen, d
		sc.fanX = append(sc.fanX, x)
	} else if d < sc.md[x] {
		sc.md[x] = d
	}
}

func midpoint(a, b vec3) vec3 {
	return vec3{(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5, (a[2] + b[2]) * 0.5}
}

// cur is the position class that class r belongs to after this pass's
// collapses so far.
func (s *state) cur(r uint32) uint32 { return s.ccur[r] }

// collapseValid checks, in the welded mesh as modified so far this pass,
// that moving class r0 onto r1 keeps the surface a manifold (the link
// condition of Dey et al.: the common neighbours of r0 and r1 are exactly
// the apexes of the triangles on edge r0-r1, and the two apexes do not close
// a tetrahedron) and flips no surviving triangle around r0.
func (s *state) collapseValid(sc *scratch, r0, r1 uint32) bool {
	gen := sc.nextGen()
	sc.opp = sc.opp[:0]
	p0, p1 := s.pos[r0], s.pos[r1]
	for _, e := range s.adj[s.adjOff[r0]:s.adjOff[r0+1]] {
		a, b := s.cur(e.next), s.cur(e.prev)
		if a == b || a == r0 || b == r0 {
			continue // removed earlier in this pass
		}
		sc.mark[a], sc.mark[b] = gen, gen
		if a == r1 || b == r1 {
			if a == r1 {
				sc.opp = append(sc.opp, b)
			} else {
				sc.opp = append(sc.opp, a)
			}
			continue
		}
		if flips(p0, p1, s.pos[a], s.pos[b]) {
			return false
		}
	}
	return s.linkValid(sc, r0, r1, gen)
}

// flips reports whether triangle (p0, pa, pb) turns its normal by more
// than the flip threshold (flipCos) when p0 moves to p1.
func flips(p0, p1, pa, pb vec3) bool {
	// n0 = (pa-p0)×(pb-p0), n1 = (pa-p1)×(pb-p1), in scalars (vec3 values
	// stay in memory), the same operations as vec3.cross and vec3.dot.
	ax, ay, az := pa[0]-p0[0], pa[1]-p0[1], pa[2]-p0[2]
	bx, by, bz := pb[0]-p0[0], pb[1]-p0[1], pb[2]-p0[2]
	n0x := float64(ay*bz) - float64(az*by)
	n0y := float64(az*bx) - float64(ax*bz)
	n0z := float64(ax*by) - float64(ay*bx)
	ax, ay, az = pa[0]-p1[0], pa[1]-p1[1], pa[2]-p1[2]
	bx, by, bz = pb[0]-p1[0], pb[1]-p1[1], pb[2]-p1[2]
	n1x := float64(ay*bz) - float64(az*by)
	n1y := float64(az*bx) - float64(ax*bz)
	n1z := float64(ax*by) - float64(ay*bx)
	d := mul(n0x, n1x) + mul(n0y, n1y) + mul(n0z, n1z)
	l0 := mul(n0x, n0x) + mul(n0y, n0y) + mul(n0z, n0z)
	l1 := mul(n1x, n1x) + mul(n1y, n1y) + mul(n1z, n1z)
	return d <= 0 || d*d <= flipCos*flipCos*(l0*l1)
}

// linkValid is the link condition of collapseValid, once every vertex of
// r0's surviving fan is marked with gen and sc.opp holds the apexes of the
// triangles on edge r0-r1.
func (s *state) linkValid(sc *scratch, r0, r1, gen uint32) bool {
	for _, e := range s.adj[s.adjOff[r1]:s.adjOff[r1+1]] {
		a, b := s.cur(e.next), s.cur(e.prev)
		if a == b || a == r1 || b == r1 {
			continue
		}
		for _, x := range [2]uint32{a, b} {
			if x != r0 && sc.mark[x] == gen && !contains(sc.opp, x) {
				return false
			}
		}
	}
	if len(sc.opp) == 2 && sc.opp[0] != sc.opp[1] &&
		s.hasTriangle(r0, r1, sc.opp[0], sc.opp[1]) && s.hasTriangle(r1, r0, sc.opp[0], sc.opp[1]) {
		return false
	}
	return true
}

// hasTriangle reports a live triangle (r, x, y) around class r, in the mesh
// as modified so far this pass, that does not also touch class other. It
// rescans the fan: only the rare two-apex case of collapseValid asks.
func (s *state) hasTriangle(r, other, x, y uint32) bool {
	for _, e := range s.adj[s.adjOff[r]:s.adjOff[r+1]] {
		a, b := s.cur(e.next), s.cur(e.prev)
		if a == b || a == r || b == r || a == other || b == other {
			continue
		}
		if a == x && b == y || a == y && b == x {
			return true
		}
	}
	return false
}

// nextGen starts a new generation of sc.mark.
func (sc *scratch) nextGen() uint32 {
	sc.gen++
	if sc.gen == 0 { // wrapped: reset the marks
		clear(sc.mark)
		sc.gen = 1
	}
	return sc.gen
}

func contains(list []uint32, x uint32) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}
