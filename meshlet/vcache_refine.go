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

// Search limits, measured on the bench meshes (ACMR against time): runs
// of up to vcacheRunMax triangles, earlier uses up to vcacheWindow
// positions back, convergence within vcacheHorizon triangles past the
// change. Variables only so that experiments can set them.
var (
	vcacheRunMax  = 3
	vcacheWindow  = 64
	vcacheHorizon = 96
	vcacheSweeps  = 1
	vcacheSlack   = 1
	vcacheSlack2  = 1
	vcacheMode    = 3
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
	stamp []uint64
	clock uint64
	cand  [][3]uint32 // candidate order of the changed span
	// candOld[k] is the current misses of cand[k] where it is not moved
	// (0 for moved triangles, whose misses are credit).
	candOld []uint8
	credit  int
	nlog    []uint32 // the state before the span, then the new misses
	nmiss   []uint8  // misses of each simulated triangle
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
		if r.miss[p] == 0 {
			continue
		}
		// Earlier uses of the vertices p misses.
		st := r.state(p)
		targets := r.targets[:0]
		near := -1
		for _, v := range r.tris[p] {
			if inState(st, v) {
				continue
			}
			for k := p - 1; k >= max(0, p-vcacheWindow); k-- {
				t := r.tris[k]
				if t[0] == v || t[1] == v || t[2] == v {
					targets = appendTarget(targets, k+1)
					targets = appendTarget(targets, k)
					near = max(near, k)
				}
			}
		}
		r.targets = targets
		if len(targets) == 0 {
			continue
		}
		if r.movesAt(p, near) {
			improved = true
		}
		if len(r.log) > 8*n+1024 {
			r.rebuild()
		}
	}
	return improved
}

func (r *vcacheRefiner) movesAt(p, near int) bool {
	n := len(r.tris)
	for l := 1; l <= vcacheRunMax; l++ {
		// The run [a, a+l) holding p, to before an earlier use's
		// position.
		for a := max(0, p-l+1); a <= p && a+l <= n; a++ {
			for _, j := range r.targets {
				if j >= a {
					continue
				}
				r.moveRun(j, a+l, a-j, l, 0)
				if r.try(j, a+l) {
					return true
				}
			}
		}
		if vcacheMode&2 != 0 {
			// Runs between the nearest earlier use and p, to after p.
			for b := near + 1; b+l <= p; b++ {
				r.moveRun(b, p+1, 0, l, p+1-b)
				if r.try(b, p+1) {
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

// moveRun sets the candidate to tris[s:e] with its run [s+a, s+a+l)
// moved to offset b of the span (b counts positions of the span as it is
// now, so b = e-s puts the run last).
func (r *vcacheRefiner) moveRun(s, e, a, l, b int) {
	c, co := r.cand[:0], r.candOld[:0]
	span := r.tris[s:e]
	run := span[a : a+l]
	r.credit = 0
	for i := 0; i <= len(span); i++ {
		if i == b {
			c = append(c, run...)
			for range run {
				co = append(co, 0)
			}
		}
		if i == len(span) {
			break
		}
		if i >= a && i < a+l {
			r.credit += int(r.miss[s+i])
			continue
		}
		c = append(c, span[i])
		co = append(co, r.miss[s+i])
	}
	r.cand, r.candOld = c, co
}

// try scores replacing tris[s:e] by the candidate (the same triangles in
// another order): it simulates the candidate and then the current order
// past e until the FIFO matches the current order's, and applies the
// change only if that strictly lowers the misses.
func (r *vcacheRefiner) try(s, e int) bool {
	base := r.clock
	st := r.state(s)
	nlog := append(r.nlog[:0], st...)
	for k, v := range st {
		if v != vcacheNone {
			r.stamp[v] = base - vcacheSize + uint64(k)
		}
	}
	clock := base
	nmiss := r.nmiss[:0]
	old := r.credit
	ok, bail := false, false
	q := e
	for k, t := range r.cand {
		m := uint8(0)
		for _, v := range t {
			if clock-r.stamp[v] > vcacheSize {
				r.stamp[v] = clock
				clock++
				nlog = append(nlog, v)
				m++
			}
		}
		nmiss = append(nmiss, m)
		old += int(r.candOld[k])
		if int(clock-base) > old+vcacheSlack2 {
			bail = true
			break
		}
	}
	for end := min(len(r.tris), e+vcacheHorizon); !bail; q++ {
		if q == len(r.tris) || r.sameState(nlog, q) {
			ok = int(clock-base) < old
			break
		}
		if q == end || int(clock-base) >= old+vcacheSlack {
			break
		}
		m := uint8(0)
		for _, v := range r.tris[q] {
			if clock-r.stamp[v] > vcacheSize {
				r.stamp[v] = clock
				clock++
				nlog = append(nlog, v)
				m++
			}
		}
		nmiss = append(nmiss, m)
		old += int(r.miss[q])
	}
	r.clock = clock + 2*vcacheSize
	r.nlog, r.nmiss = nlog, nmiss
	if !ok {
		return false
	}
	copy(r.tris[s:e], r.cand)
	copy(r.miss[s:q], nmiss)
	off := uint32(len(r.log)) + vcacheSize
	r.log = append(r.log, nlog...)
	for p := s; p < q; p++ {
		if p > s {
			r.at[p] = off
		}
		off += uint32(r.miss[p])
	}
	return true
}

// sameState reports whether the FIFO at the end of nlog is the current
// order's before position q.
func (r *vcacheRefiner) sameState(nlog []uint32, q int) bool {
	cur := r.state(q)
	tail := nlog[len(nlog)-vcacheSize:]
	for k := vcacheSize - 1; k >= 0; k-- {
		if cur[k] != tail[k] {
			return false
		}
	}
	return true
}
