package meshlet

// Vertex cache and vertex fetch optimization for the classic indexed path
// (IDXS), and analyzers that measure the result.
//
// Based on Tom Forsyth, "Linear-Speed Vertex Cache Optimisation" (2006): a
// greedy emitter that scores each vertex by its position in a simulated
// cache and by how many unemitted triangles still use it, and always emits
// the best-scoring triangle touching the cache; dead ends restart from the
// most recently used vertex with triangles left (as Sander et al.'s
// Tipsy does), else from input order.

// The simulated cache is 16 entries, the size ACMR is reported at.
const (
	vcacheSize       = 16
	vcacheValenceMax = 32 // live counts above this score as this
)

// vcacheTables holds the vertex scores: cache[p] for cache position p-1
// (p = 0: not cached), live[v] for v live triangles.
type vcacheTables struct {
	cache [vcacheSize + 1]float32
	live  [vcacheValenceMax + 1]float32
}

// newVcacheTables returns the tuned score tables. They started from
// Forsyth's published parameters (forsythTables in the tests: last
// triangle 0.75, decay power 1.5, valence boost 2·v^-0.5) and were tuned by
// TestTuneVertexCacheTables (random local search, 120 s) to minimise mean
// ACMR at 16 entries over shuffled grids, UV spheres and an irregular grid:
// 0.706 → 0.658. The benchmark meshes (bunny, FlightHelmet) were not in the
// tuning set.
func newVcacheTables() *vcacheTables {
	return &vcacheTables{
		cache: [vcacheSize + 1]float32{0, 0.72230357, 0.6840706, 0.3583988, 0.9755654, 0.7353462, 0.77600193, 0.66273284, 0.76784295, 0.72799397, 0.601242, 0.66452646, 0.06964223, 0.6468131, 0.4006249, 0.1815453, 0.09956961},
		live: [vcacheValenceMax + 1]float32{0, 1.9811999, 1.4142135, 1.198662, 1, 0.86249936, 0.769178, 0.8033698, 0.8554583, 0.8041753, 0.618568, 0.63675886, 0.64557403, 0.393882, 0.28320047, 0.5163978, 0.5,
			0.44643128, 0.57269245, 0.46294925, 0.4472136, 0.35210362, 0.3520779, 0.24014807, 0.36366358, 0.33000848, 0.39223227, 0.30001873, 0.47543555, 0.42413333, 0.39784324, 0.2779867, 0.3559048},
	}
}

func (t *vcacheTables) score(cachePos int, live uint32) float32 {
	if live == 0 {
		return -1 // no triangles left: never attractive
	}
	return t.cache[cachePos+1] + t.live[min(live, vcacheValenceMax)]
}

// OptimizeVertexCache returns indices reordered (whole triangles, corner
// order kept) so consecutive triangles reuse vertices still in a small
// post-transform cache. indices is a triangle list over vertexCount
// vertices; the input is not modified. Deterministic.
func OptimizeVertexCache(indices []uint32, vertexCount int) []uint32 {
	return optimizeVertexCache(indices, vertexCount, newVcacheTables())
}

func optimizeVertexCache(indices []uint32, vertexCount int, tables *vcacheTables) []uint32 {
	triCount := len(indices) / 3
	out := make([]uint32, 0, triCount*3)
	if triCount == 0 {
		return out
	}

	// Adjacency: triangles of each vertex (CSR).
	live := make([]uint32, vertexCount)
	for _, v := range indices[:triCount*3] {
		live[v]++
	}
	offsets := make([]uint32, vertexCount+1)
	for v := 0; v < vertexCount; v++ {
		offsets[v+1] = offsets[v] + live[v]
	}
	adj := make([]uint32, offsets[vertexCount])
	fill := append([]uint32(nil), offsets[:vertexCount]...)
	for t := 0; t < triCount; t++ {
		for k := 0; k < 3; k++ {
			v := indices[3*t+k]
			adj[fill[v]] = uint32(t)
			fill[v]++
		}
	}

	// Initial scores.
	vscore := make([]float32, vertexCount)
	for v := range vscore {
		vscore[v] = tables.score(-1, live[v])
	}
	tscore := make([]float32, triCount)
	for t := range tscore {
		tscore[t] = vscore[indices[3*t]] + vscore[indices[3*t+1]] + vscore[indices[3*t+2]]
	}
	emitted := make([]bool, triCount)

	var cache, next [vcacheSize + 3]uint32
	cacheLen := 0
	deadEnd := make([]uint32, 0, 64) // vertices that may still have live triangles
	inputCursor := 0                 // next triangle in input order for dead ends
	current := 0                     // start with the first triangle

	for {
		// Emit current.
		emitted[current] = true
		a, b, c := indices[3*current], indices[3*current+1], indices[3*current+2]
		out = append(out, a, b, c)
		if len(out) == triCount*3 {
			break
		}

		// New cache: the triangle's vertices, then old entries not among them.
		n := 0
		for _, v := range [3]uint32{a, b, c} {
			next[n] = v
			n++
			deadEnd = append(deadEnd, v)
		}
		for i := 0; i < cacheLen; i++ {
			v := cache[i]
			if v != a && v != b && v != c {
				next[n] = v
				n++
			}
		}
		// Remove the emitted triangle from its vertices' live lists.
		for _, v := range [3]uint32{a, b, c} {
			list := adj[offsets[v] : offsets[v]+live[v]]
			for i, t := range list {
				if t == uint32(current) {
					list[i] = list[len(list)-1]
					break
				}
			}
			live[v]--
		}

		// Rescore everything that was or is in the cache and its triangles;
		// pick the best live triangle adjacent to the new cache.
		best, bestScore := -1, float32(0)
		for i := 0; i < n; i++ {
			v := next[i]
			pos := i
			if i >= vcacheSize {
				pos = -1 // pushed out
			}
			ns := tables.score(pos, live[v])
			delta := ns - vscore[v]
			vscore[v] = ns
			for _, t := range adj[offsets[v] : offsets[v]+live[v]] {
				tscore[t] += delta
				if pos >= 0 && (best < 0 || tscore[t] > bestScore || (tscore[t] == bestScore && int(t) < best)) {
					best, bestScore = int(t), tscore[t]
				}
			}
		}
		cacheLen = min(n, vcacheSize)
		copy(cache[:cacheLen], next[:cacheLen])

		if best < 0 {
			best = nextDeadEnd(&deadEnd, live, adj, offsets)
		}
		if best < 0 {
			for emitted[inputCursor] {
				inputCursor++
			}
			best = inputCursor
		}
		current = best
	}
	return out
}

// nextDeadEnd pops recently used vertices until one still has a live
// triangle and returns its first one (-1 when none is left).
func nextDeadEnd(stack *[]uint32, live, adj, offsets []uint32) int {
	s := *stack
	for len(s) > 0 {
		v := s[len(s)-1]
		s = s[:len(s)-1]
		if live[v] > 0 {
			*stack = s
			return int(adj[offsets[v]])
		}
	}
	*stack = s
	return -1
}

// OptimizeVertexFetchRemap returns remap[old] = new numbering vertices in
// order of first use by indices (unreferenced vertices get ^uint32(0)), and
// the number of referenced vertices. Applying it makes index reads walk the
// vertex buffer forwards.
func OptimizeVertexFetchRemap(indices []uint32, vertexCount int) ([]uint32, int) {
	remap := make([]uint32, vertexCount)
	for i := range remap {
		remap[i] = ^uint32(0)
	}
	next := uint32(0)
	for _, v := range indices {
		if remap[v] == ^uint32(0) {
			remap[v] = next
			next++
		}
	}
	return remap, int(next)
}

// VertexCacheStats is what AnalyzeVertexCache measures.
type VertexCacheStats struct {
	Misses int
	// ACMR is the average cache miss ratio: misses per triangle (0.5 is
	// ideal for large regular meshes, 3 is worst).
	ACMR float64
	// ATVR is the average transformed vertex ratio: misses per referenced
	// vertex (1 is ideal).
	ATVR float64
}

// AnalyzeVertexCache simulates a FIFO post-transform cache of cacheSize
// entries over the triangle list.
func AnalyzeVertexCache(indices []uint32, vertexCount int, cacheSize int) VertexCacheStats {
	var st VertexCacheStats
	if len(indices) < 3 || cacheSize <= 0 {
		return st
	}
	// stamp[v] is the miss counter value when v entered the cache; v stays
	// cached until cacheSize later misses have pushed it out, i.e. while
	// misses - stamp[v] <= cacheSize (classic FIFO trick).
	stamp := make([]int, vertexCount)
	for i := range stamp {
		stamp[i] = -1 << 30
	}
	seen := make([]bool, vertexCount)
	unique := 0
	for _, v := range indices[:len(indices)/3*3] {
		if !seen[v] {
			seen[v] = true
			unique++
		}
		if st.Misses-stamp[v] > cacheSize {
			stamp[v] = st.Misses
			st.Misses++
		}
	}
	st.ACMR = float64(st.Misses) / float64(len(indices)/3)
	st.ATVR = float64(st.Misses) / float64(unique)
	return st
}
