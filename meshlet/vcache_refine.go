package meshlet

// Exact local search on a triangle order for a FIFO vertex cache: the
// post-pass of OptimizeVertexCache.
//
// The greedy emitter leaves misses that a look-ahead would avoid, mostly
// refetches: vertices that were cached for an earlier triangle and pushed
// out before their last triangle came. For each refetch the refiner tries
// a few moves of whole triangles that could avoid it:
//   - the refetching triangle, alone or with one or two neighbours in the
//     order, moved back to just after (or before) an earlier triangle that
//     used the vertex;
//   - a short run of triangles with misses, between a recent earlier use
//     and the refetch, moved to just after the refetch, so that fewer
//     misses push the vertex out in between.
// Each move is scored exactly. The refiner keeps the FIFO state before
// every position; it simulates the new order from the first changed
// position until its FIFO equals the current order's at the same point
// (from there on both orders behave alike) and applies the move only if
// the new order has strictly fewer misses up to there. Inside a moved-back
// span the states often agree again soon after the run: then the rest of
// the span replays unchanged and is skipped, so far moves cost little.
// The pass never adds a miss; a move whose FIFO does not converge within
// the limits below is dropped. After a move the sweep looks again from
// the move's first position (at most vcacheBacktrack back), since the
// move can open others there. Moves are tried in a fixed order and the
// first that gains is applied, so the output depends on the input alone.

// Search limits, chosen on the bench meshes for ACMR against time:
// vcacheRunMax triangles in a moved run; earlier uses up to vcacheWindow
// positions back; a run moved more than vcacheNear back must itself miss
// less at its new place; inside a moved-back span the FIFO must agree
// again within vcacheSpanMax triangles, and past a span within
// vcacheHorizon. Runs moved past a refetch start at most vcacheBetweenMax
// positions before it, for refetches whose earlier use is at most
// vcacheBetweenNear back. A simulation gives up once the new order is
// more than vcacheBehindSpan misses behind within the span, or
// vcacheBehindTail behind past it (such moves rarely catch up; giving up
// only ever drops a move). After a move the sweep goes back at most
// vcacheBacktrack positions.
const (
	vcacheRunMax      = 3
	vcacheWindow      = 1024
	vcacheNear        = 64
	vcacheSpanMax     = 64
	vcacheHorizon     = 96
	vcacheBetweenMax  = 16
	vcacheBetweenNear = 32
	vcacheBehindSpan  = 1
	vcacheBehindTail  = 1
	vcacheBacktrack   = 16
)

// vcacheUsesMax bounds the triangles of a refetched vertex whose
// positions are searched for earlier uses: a vertex with more is not a
// refetch the pass tries to remove. Scanning all uses of every refetch
// costs O(valence) each, quadratic in the valence of a fan's centre;
// authored and scanned meshes have no vertex near this many triangles.
const vcacheUsesMax = 64

// vcacheRefiner holds an order being refined. For every position p it
// keeps the misses of the triangle there and the FIFO state before it.
// The cache holds exactly the last vcacheSize vertices that missed (a
// vertex enters only on a miss, so they are distinct, and a hit does not
// reorder a FIFO), so the state is the vcacheSize log entries before
// log[at[p]]. An applied move appends the new states of the positions it
// changed to the log and points them there; the log is simulated afresh
// once it outgrows 4n entries.
type vcacheRefiner struct {
	tris [][3]uint32 // the order
	miss []uint8     // misses of the triangle at each position
	at   []uint32    // log[at[p]-vcacheSize : at[p]] is the FIFO before p
	log  []uint32

	// Triangle ids (input order) at each position, each id's position,
	// and each vertex's triangle ids: adj[first[v]:first[v+1]].
	id, pos, adj, first []uint32

	// Evaluation scratch. A vertex is cached while clock-stamp[v] <=
	// vcacheSize; clock never goes back, so stamps left by earlier
	// evaluations read as not cached.
	stamp []uint64
	clock uint64
	base  uint64 // clock at the start of the simulation
	// The simulation's log (the state it started from, then its misses)
	// and the misses of each triangle it simulated; a move that jumps
	// over a replayed part keeps the part before in head.
	nlog, headLog   []uint32
	nmiss, headMiss []uint8
	runTris         [][3]uint32
	runID           []uint32
	targets         []int
	lastStart       int
	// work counts use-list entries scanned and triangles simulated, the
	// invariant the complexity tests bound.
	work int
}

// vcacheNone pads the log before the first miss; no vertex has its number.
const vcacheNone = ^uint32(0)

// refineVertexCache improves the order of the triangle list indices (all
// below vertexCount) in place; it never adds misses of a vcacheSize-entry
// FIFO. Inputs past 2^28 triangles, whose log positions could outgrow
// uint32, are left as they are.
func refineVertexCache(indices []uint32, vertexCount int) {
	if len(indices) < 6 || len(indices)/3 > 1<<28 {
		return
	}
	r := newVcacheRefiner(indices, vertexCount)
	r.sweep()
	for t, v := range r.tris {
		copy(indices[3*t:3*t+3], v[:])
	}
}

func newVcacheRefiner(indices []uint32, vertexCount int) *vcacheRefiner {
	n := len(indices) / 3
	r := &vcacheRefiner{
		tris:  make([][3]uint32, n),
		miss:  make([]uint8, n),
		at:    make([]uint32, n+1),
		id:    make([]uint32, n),
		pos:   make([]uint32, n),
		adj:   make([]uint32, 3*n),
		first: make([]uint32, vertexCount+1),
		stamp: make([]uint64, vertexCount),
		clock: 2 * vcacheSize,
	}
	for t := range r.tris {
		r.tris[t] = [3]uint32{indices[3*t], indices[3*t+1], indices[3*t+2]}
		r.id[t], r.pos[t] = uint32(t), uint32(t)
		for _, v := range r.tris[t] {
			r.first[v+1]++
		}
	}
	for v := 0; v < vertexCount; v++ {
		r.first[v+1] += r.first[v]
	}
	fill := append([]uint32(nil), r.first[:vertexCount]...)
	for t, tv := range r.tris {
		for _, v := range tv {
			r.adj[fill[v]] = uint32(t)
			fill[v]++
		}
	}
	r.rebuild()
	return r
}

// rebuild simulates the whole order into a fresh log.
func (r *vcacheRefiner) rebuild() {
	log := r.log[:0]
	for i := 0; i < vcacheSize; i++ {
		log = append(log, vcacheNone)
	}
	clock := r.clock
	for p, t := range r.tris {
		r.at[p] = uint32(len(log))
		m := uint8(0)
		for _, v := range t {
			if clock-r.stamp[v] > vcacheSize {
				r.stamp[v] = clock
				clock++
				log = append(log, v)
				m++
			}
		}
		r.miss[p] = m
	}
	r.at[len(r.tris)] = uint32(len(log))
	r.log = log
	r.clock = clock + 2*vcacheSize
}

// misses is the miss count of the order.
func (r *vcacheRefiner) misses() int {
	s := 0
	for _, m := range r.miss {
		s += int(m)
	}
	return s
}

// state is the FIFO before position p, oldest first.
func (r *vcacheRefiner) state(p int) []uint32 {
	return r.log[r.at[p]-vcacheSize : r.at[p]]
}

// sweep tries the moves for every refetch in order of position; it
// reports whether any was applied.
func (r *vcacheRefiner) sweep() bool {
	n := len(r.tris)
	improved := false
	for p := 0; p < n; p++ {
		if r.miss[p] != 0 && r.movesAt(p) {
			improved = true
			// Look again from the move's first position (not far back):
			// it can open further moves there.
			p = max(r.lastStart, p-vcacheBacktrack) - 1
		}
		if len(r.log) > 4*n+1024 {
			r.rebuild()
		}
	}
	return improved
}

// movesAt tries the moves for the vertices triangle p misses that an
// earlier triangle used, and applies the first that removes misses.
func (r *vcacheRefiner) movesAt(p int) bool {
	st := r.state(p)
	targets := r.targets[:0]
	var nears [3]int // the latest earlier use of each refetched vertex
	nnear := 0
	for _, v := range r.tris[p] {
		if inState(st, v) {
			continue
		}
		uses := r.adj[r.first[v]:r.first[v+1]]
		if len(uses) > vcacheUsesMax {
			continue // see vcacheUsesMax
		}
		near := -1
		r.work += len(uses)
		for _, t := range uses {
			k := int(r.pos[t])
			if k < p && k >= p-vcacheWindow {
				targets = appendTarget(targets, k+1)
				targets = appendTarget(targets, k)
				near = max(near, k)
			}
		}
		if near >= 0 && p-near <= vcacheBetweenNear && (nnear == 0 || nears[nnear-1] != near) {
			nears[nnear] = near
			nnear++
		}
	}
	r.targets = targets
	n := len(r.tris)
	for l := 1; l <= vcacheRunMax; l++ {
		// The run [a, a+l) holding p, to before an earlier use's
		// position (or just after it).
		for a := max(0, p-l+1); a <= p && a+l <= n; a++ {
			for _, j := range targets {
				if j < a && r.try(j, a+l, l, true) {
					return true
				}
			}
		}
		// Runs with misses between the latest earlier use and p, to
		// just after p: fewer misses push the vertex out in between.
		for _, near := range nears[:nnear] {
			for b := max(near+1, p-vcacheBetweenMax); b+l <= p; b++ {
				credit := 0
				for _, m := range r.miss[b : b+l] {
					credit += int(m)
				}
				if credit > 0 && r.try(b, p+1, l, false) {
					return true
				}
			}
		}
	}
	return false
}

func appendTarget(ts []int, j int) []int {
	for _, t := range ts {
		if t == j {
			return ts
		}
	}
	return append(ts, j)
}

func inState(st []uint32, v uint32) bool {
	for _, u := range st {
		if u == v {
			return true
		}
	}
	return false
}

// try scores rotating tris[s:e] by l: with front, the run of its last l
// triangles moves to its start, otherwise the run of its first l
// triangles moves to its end. It simulates the new order and then the
// current one past e until the FIFO matches the current order's, and
// applies the move only if that strictly lowers the misses.
func (r *vcacheRefiner) try(s, e, l int, front bool) bool {
	// The new order of the span is tris[r0:r1] (the run) and tris[k0:k1]
	// (the rest), in that order with front.
	r0, r1, k0, k1 := s, s+l, s+l, e
	if front {
		r0, r1, k0, k1 = e-l, e, s, e-l
	}
	diff := 0 // misses of the new order less the current one's so far
	for k := r0; k < r1; k++ {
		diff -= int(r.miss[k])
	}
	jump := -1 // with front: the rest replays as it is from here on
	r.load(s)
	if front {
		diff += r.run(r0, r1)
		if e-s > vcacheNear && diff >= 0 {
			return r.reject()
		}
		if r.clock == r.base {
			jump = k0 // the run hits throughout: the FIFO is unchanged
		}
		for k := k0; k < k1 && jump < 0; k++ {
			diff += int(r.step(r.tris[k])) - int(r.miss[k])
			if diff > vcacheBehindSpan || k-k0 >= vcacheSpanMax {
				return r.reject()
			}
			if r.sameState(k + 1) {
				jump = k + 1
			}
		}
		if jump >= 0 {
			// Only the run's misses at its old place are left to
			// compare: go on from there with the FIFO the current
			// order has before the run.
			r.headLog, r.nlog = r.nlog, r.headLog
			r.headMiss, r.nmiss = r.nmiss, r.headMiss
			r.load(e - l)
		}
	} else {
		for k := k0; k < k1; k++ {
			diff += int(r.step(r.tris[k])) - int(r.miss[k])
			if diff > vcacheBehindSpan {
				return r.reject()
			}
		}
		diff += r.run(r0, r1)
	}
	if diff > vcacheBehindSpan {
		return r.reject()
	}
	q := e
	for end := min(len(r.tris), e+vcacheHorizon); ; q++ {
		if q == len(r.tris) || r.sameState(q) {
			break
		}
		if q == end || diff >= vcacheBehindTail {
			return r.reject()
		}
		diff += int(r.step(r.tris[q])) - int(r.miss[q])
	}
	if diff >= 0 {
		return r.reject()
	}

	// Rotate the span and store the new misses and states.
	run := append(r.runTris[:0], r.tris[r0:r1]...)
	runID := append(r.runID[:0], r.id[r0:r1]...)
	r.runTris, r.runID = run, runID
	if front {
		copy(r.tris[s+l:e], r.tris[s:e-l])
		copy(r.tris[s:s+l], run)
		copy(r.id[s+l:e], r.id[s:e-l])
		copy(r.id[s:s+l], runID)
	} else {
		copy(r.tris[s:e-l], r.tris[s+l:e])
		copy(r.tris[e-l:e], run)
		copy(r.id[s:e-l], r.id[s+l:e])
		copy(r.id[e-l:e], runID)
	}
	for p := s; p < e; p++ {
		r.pos[r.id[p]] = uint32(p)
	}
	r.lastStart = s
	if jump >= 0 {
		// Positions jump+l..e-1 hold what jump..e-l-1 held, with the
		// same misses and FIFO states.
		copy(r.miss[jump+l:e], r.miss[jump:e-l])
		copy(r.at[jump+l:e+1], r.at[jump:e-l+1])
		r.store(s, jump+l, r.headLog, r.headMiss)
		r.store(e, q, r.nlog, r.nmiss)
	} else {
		r.store(s, q, r.nlog, r.nmiss)
	}
	r.reject()
	return true
}

// store sets the misses of positions from..to-1 and points their FIFO
// states (but from's, which is unchanged) into log, appended to the log.
func (r *vcacheRefiner) store(from, to int, log []uint32, miss []uint8) {
	copy(r.miss[from:to], miss)
	off := uint32(len(r.log)) + vcacheSize
	r.log = append(r.log, log...)
	for p := from; p < to; p++ {
		if p > from {
			r.at[p] = off
		}
		off += uint32(r.miss[p])
	}
}

// load starts a simulation from the current order's FIFO before p.
func (r *vcacheRefiner) load(p int) {
	r.clock += 2 * vcacheSize
	r.base = r.clock
	st := r.state(p)
	r.nlog = append(r.nlog[:0], st...)
	r.nmiss = r.nmiss[:0]
	for k, v := range st {
		if v != vcacheNone {
			r.stamp[v] = r.base - vcacheSize + uint64(k)
		}
	}
}

// reject ends a simulation; it returns false.
func (r *vcacheRefiner) reject() bool {
	r.clock += 2 * vcacheSize
	return false
}

// step simulates triangle t and returns its misses.
func (r *vcacheRefiner) step(t [3]uint32) uint8 {
	r.work++
	m := uint8(0)
	for _, v := range t {
		if r.clock-r.stamp[v] > vcacheSize {
			r.stamp[v] = r.clock
			r.clock++
			r.nlog = append(r.nlog, v)
			m++
		}
	}
	r.nmiss = append(r.nmiss, m)
	return m
}

// run simulates tris[a:b] and returns their misses.
func (r *vcacheRefiner) run(a, b int) int {
	m := 0
	for k := a; k < b; k++ {
		m += int(r.step(r.tris[k]))
	}
	return m
}

// sameState reports whether the FIFO at the end of nlog is the current
// order's before position q.
func (r *vcacheRefiner) sameState(q int) bool {
	// The newest entries differ most of the time: check them first.
	a, b := int(r.at[q]), len(r.nlog)
	if r.log[a-1] != r.nlog[b-1] {
		return false
	}
	cur := r.log[a-vcacheSize : a]
	tail := r.nlog[b-vcacheSize : b]
	for k := range cur {
		if cur[k] != tail[k] {
			return false
		}
	}
	return true
}
