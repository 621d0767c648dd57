package meshlet

// Exact local search on a triangle order for a FIFO vertex cache: the
// post-pass of OptimizeVertexCache.
//
// The greedy emitter leaves misses a look-ahead would avoid; the costliest
// are refetches, vertices that were cached for an earlier triangle and
// pushed out before their last triangle came. For each refetch the
// refiner tries a few moves of whole triangles that could avoid it: the
// refetching triangle (with up to two neighbours in the order) moved back
// to just after an earlier triangle that used the vertex, or a short run
// of triangles between that earlier use and the refetch moved to after the
// refetch, so that fewer misses push the vertex out in between. Each move
// is scored exactly: the refiner simulates the new order from the first
// changed position until the FIFO is again the same as in the current
// order (from there on both behave alike), and applies the move only if
// that span has strictly fewer misses. So the pass never raises the miss
// count, and a move that does not converge within vcacheHorizon
// triangles of the changed span is dropped.

// Search limits, chosen on the bench meshes (ACMR against time, see the
// file comment in vcache.go): runs of up to vcacheRunMax triangles;
// earlier uses up to vcacheWindow positions back; runs moved past a
// refetch from at most vcacheBetweenMax positions before it; a move must
// converge within vcacheHorizon triangles past its span. A simulation
// gives up once the new order is more than vcacheBehindSpan misses behind
// within the span, or vcacheBehindTail behind past it: such moves rarely
// catch up, and giving up only ever drops a move.
const ( // vcache search limits
	vcacheRunMax     = 3
	vcacheWindow     = 64
	vcacheBetweenMax = 16
	vcacheHorizon    = 96
	vcacheBehindSpan = 1
	vcacheBehindTail = 1
	vcacheSweeps     = 1
)

// vcacheRefiner holds an order being refined. For every position p it
// keeps the misses of the triangle there and the FIFO state before it.
// The cache holds exactly the last vcacheSize vertices that missed (a
// vertex enters only on a miss, so they are distinct, and a hit does not
// reorder a FIFO), so the state is the vcacheSize log entries before
// log[at[p]]. The log only grows: an applied move appends the new states
// of the positions it changed and points them there.
type vcacheRefiner struct {
	tris []([3]uint32) // the order
	miss []uint8       // misses of the triangle at each position
	at   []uint32      // log[at[p]-vcacheSize : at[p]] is the FIFO before p
	log  []uint32

	// Evaluation scratch. A vertex is cached while clock-stamp[v] <=
	// vcacheSize; clock never goes back, so stamps left by earlier
	// evaluations read as not cached.
	stamp   []uint64
	clock   uint64
	base    uint64      // clock at the start of the simulation
	cand    [][3]uint32 // the run of an applied move
	nlog    []uint32    // the state before the span, then the new misses
	nmiss   []uint8     // misses of each simulated triangle
	targets []int
}

// vcacheNone pads the log before the first miss; no vertex has its number.
const vcacheNone = ^uint32(0)

// refineVertexCache improves the order of the triangle list indices (all
// below vertexCount) in place; it never adds misses of a vcacheSize-entry
// FIFO.
func refineVertexCache(indices []uint32, vertexCount int) {
	n := len(indices) / 3
	if n < 2 {
		return
	}
	r := &vcacheRefiner{
		tris:  make([][3]uint32, n),
		miss:  make([]uint8, n),
		at:    make([]uint32, n+1),
		stamp: make([]uint64, vertexCount),
		clock: 2 * vcacheSize,
	}
	for t := range r.tris {
		r.tris[t] = [3]uint32{indices[3*t], indices[3*t+1], indices[3*t+2]}
	}
	r.rebuild()
	for sweep := 0; sweep < vcacheSweeps; sweep++ {
		if !r.sweep() {
			break
		}
	}
	for t, v := range r.tris {
		copy(indices[3*t:3*t+3], v[:])
	}
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

// sweep tries the moves for every refetch once; it reports whether any
// was applied.
func (r *vcacheRefiner) sweep() bool {
	n := len(r.tris)
	improved := false
	for p := 0; p < n; p++ {
		if r.miss[p] != 0 && r.movesAt(p) {
			improved = true
		}
		if len(r.log) > 8*n+1024 {
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
		near := -1
		for k := p - 1; k >= max(0, p-vcacheWindow); k-- {
			t := r.tris[k]
			if t[0] == v || t[1] == v || t[2] == v {
				targets = appendTarget(targets, k+1)
				targets = appendTarget(targets, k)
				near = max(near, k)
			}
		}
		if near >= 0 && (nnear == 0 || nears[nnear-1] != near) {
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
	from := s // nlog and nmiss start at this position of the new order
	r.load(s)
	if front {
		diff += r.run(r0, r1)
		if r.clock == r.base {
			// The run hits throughout, so the FIFO does not change
			// over it, and the rest of the span replays as it is now:
			// only the run's misses at its old place are gone.
			from = e
			r.load(e - l)
		} else if !r.runRest(k0, k1, &diff) {
			return r.reject()
		}
	} else {
		if !r.runRest(k0, k1, &diff) {
			return r.reject()
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
		m := r.step(r.tris[q])
		diff += int(m) - int(r.miss[q])
	}
	if diff >= 0 {
		return r.reject()
	}

	// Rotate the span and store the new misses and states.
	run := append(r.cand[:0], r.tris[r0:r1]...)
	r.cand = run
	if front {
		copy(r.tris[s+l:e], r.tris[s:e-l])
		copy(r.tris[s:s+l], run)
		if from == e {
			copy(r.miss[s+l:e], r.miss[s:e-l])
			copy(r.at[s+l:e+1], r.at[s:e-l+1])
			for p := s; p < s+l; p++ {
				r.miss[p] = 0
				r.at[p] = r.at[s]
			}
		}
	} else {
		copy(r.tris[s:e-l], r.tris[s+l:e])
		copy(r.tris[e-l:e], run)
	}
	copy(r.miss[from:q], r.nmiss)
	off := uint32(len(r.log)) + vcacheSize
	r.log = append(r.log, r.nlog...)
	for p := from; p < q; p++ {
		if p > from {
			r.at[p] = off
		}
		off += uint32(r.miss[p])
	}
	r.reject()
	return true
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

// runRest simulates tris[a:b] in place of their current misses; it
// reports false as soon as the new order is more than vcacheBehindSpan
// misses behind.
func (r *vcacheRefiner) runRest(a, b int, diff *int) bool {
	d := *diff
	for k := a; k < b; k++ {
		d += int(r.step(r.tris[k])) - int(r.miss[k])
		if d > vcacheBehindSpan {
			return false
		}
	}
	*diff = d
	return true
}

// sameState reports whether the FIFO at the end of nlog is the current
// order's before position q.
func (r *vcacheRefiner) sameState(q int) bool {
	cur := r.state(q)
	tail := r.nlog[len(r.nlog)-vcacheSize:]
	for k := vcacheSize - 1; k >= 0; k-- {
		if cur[k] != tail[k] {
			return false
		}
	}
	return true
}
