package simplify

// prefetchAhead is how many candidates ahead of the one it looks at a walk
// touches the candidate it will look at then (see prefetch).
const prefetchAhead = 8

// prefetch loads the start of the candidate at position p of w's order
// and returns a word of it, which the walk folds into a sink so the load
// is not dropped. Walks read candidates in rank order, which is random in
// the candidate list, and each read used to miss the cache after the
// previous candidate's fan walks: loading ahead overlaps the misses with
// that work. It changes no result.
func (s *state) prefetch(w *walk, p int) uint32 {
	ci := p
	if !w.all {
		ci = int(w.order[p])
	}
	return s.coll[uint32(s.sorted[ci])].v0
}
