package meshlet

// Vertex cache and vertex fetch optimization for the classic indexed path
// (IDXS), and analyzers that measure the result.
//
// Based on Tom Forsyth, "Linear-Speed Vertex Cache Optimisation" (2006), in
// the form meshoptimizer gives it: a greedy emitter that scores each vertex
// by its position in a simulated cache and by how many unemitted triangles
// still use it, and always emits the best-scoring triangle touching the
// cache. Three changes of ours, and score tables tuned by our own search
// (see newVcacheTables):
//   - The scores model the cache as most-recently-used first, but a real
//     (and the measured) cache is FIFO: a hit does not refresh a vertex.
//     So the search also runs the FIFO, and a candidate triangle loses
//     vcacheTables.missPenalty for each of its vertices the FIFO does not
//     hold.
//   - Triangles are renumbered by their lowest vertex index before the
//     search: ties and restarts then follow the vertex order, which
//     authored meshes lay out coherently, and score updates touch memory
//     in order.
//   - Dead ends restart from the most recently used vertex with triangles
//     left (as Sander et al.'s Tipsify does) instead of from input order.
//
// The greedy order then goes through an exact local search
// (vcache_refine.go): for each refetched vertex it tries moving the
// refetching triangle and its neighbours back next to an earlier use of
// the vertex, or moving short runs out from between the two uses, scores
// each move by simulating the FIFO until it agrees with the current
// order's again, and keeps only moves that remove misses. It never adds a
// miss. On the bench meshes it removes 1-3% of the greedy order's misses
// (bunny 3.0%, FlightHelmet 0.9%, bunny-sub4 2.0%); OptimizeVertexCache
// then takes about 3-4 times as long as the greedy pass alone.
//
// OptimizeVertexCacheSplitContext (vcache_split.go) runs the greedy pass
// on every core: buffers of more than 65,536 triangles are cut into that
// many-triangle spatial parts (the k-d split of Build, split.go), ordered
// independently and concatenated in part order, so the output does not
// depend on GOMAXPROCS. On the 1.19M-triangle bench mesh (19 parts) that
// costs 0.3% ACMR against one greedy run (0.6674 against 0.6656, shuffled
// input 0.6683 against 0.6657; meshoptimizer 0.6868), for the same CPU
// time: the split and the copies cost what the parts' smaller working
// sets save. 32k-triangle parts cost 0.5%, 128k 0.15% (and leave meshes
// of 65-131k triangles on one core).

import (
	"context"
	"fmt"
)

// The simulated cache is 16 entries, the size ACMR is reported at; live
// counts above vcacheValenceMax score as vcacheValenceMax.
const (
	vcacheSize       = 16
	vcacheValenceMax = 12
)

// vcacheTables holds the vertex scores: cache[p] for cache position p-1
// (p = 0: not cached), live[v] for v live triangles; and the candidate
// penalty per vertex missing from the FIFO.
type vcacheTables struct {
	cache       [vcacheSize + 1]float32
	live        [vcacheValenceMax + 1]float32
	missPenalty float32
}

// newVcacheTables returns our score tables and FIFO miss penalty. They
// come from TestTuneVertexCacheTables (vcache_tune_test.go, flag
// -tune-vcache): a random local search over all 29 values at once (16
// cache positions, live counts 1-12, the miss penalty), minimising mean
// ACMR at 16 entries, per mesh relative to our previous tables, on
// shuffled generated meshes (regular, rectangular and randomly split
// grids, tori, tubes, UV spheres with pole fans, icospheres, random edge
// flips, subdivided irregular meshes, random subsets, UV-seam charts, thin
// strips, many-part buffers, scrambled vertex numbering; two generator
// seeds) and two corpus meshes (CesiumMan, Fox). No outside table was
// used. The search started from our previous tables (Forsyth's published
// formula tuned by an earlier version of the search; previousVcacheTables
// in the tests) with a penalty of 0.5, and ran in stages: 10 minutes with
// three restarts (the unperturbed one won); 10 minutes more after tubes
// and tall grids joined the training set; 150 s on the open regular grids
// alone (-tune-vcache-only=grid,rect-grid,tall-grid,charts-grid), which
// the full-set optimum served worst; 7 minutes on the full set again; 8
// minutes with each mesh's excess over the previous tables' ACMR costing
// 3 times extra (-tune-vcache-regress=3). A third generator seed and two
// other corpus meshes are held out (TestVertexCacheTablesHeldOut: 0.976 of
// the previous tables' ACMR; 0.970 on five further seeds); the bench
// meshes were in neither set. Starting
// from the best of a random search over Forsyth's formula's parameters,
// or from perturbed starts, ended worse on the held-out set. The values
// stay as the search printed them: the greedy order is chaotic, and
// rounding to 3 decimals moves ACMR by up to 0.7%.
func newVcacheTables() *vcacheTables {
	return &vcacheTables{
		cache:       [vcacheSize + 1]float32{0, 0.5445198, 0.7832145, 0.33152953, 0.90689564, 0.66974014, 0.6222925, 0.567583, 0.8815316, 0.72729474, 0.9021683, 0.62192893, 0.7249619, 0.70807636, 0.66386795, 0.551361, 0.48622558},
		live:        [vcacheValenceMax + 1]float32{0, 2.059702, 1.4254842, 1.200654, 1.0251172, 0.8409303, 0.7178558, 0.94245404, 0.72163683, 0.50195354, 1.9417771, 0.9667823, 2.6044116},
		missPenalty: 0.284358,
	}
}

func (t *vcacheTables) score(cachePos int, live uint32) float32 {
	return t.cache[cachePos+1] + t.live[min(live, vcacheValenceMax)]
}

// OptimizeVertexCache returns indices reordered (whole triangles, corner
// order kept) so consecutive triangles reuse vertices still in a small
// post-transform cache. indices is a triangle list over vertexCount
// vertices (an index past vertexCount leaves the order unchanged); the
// input is not modified. Deterministic.
func OptimizeVertexCache(indices []uint32, vertexCount int) []uint32 {
	out, _ := OptimizeVertexCacheContext(context.Background(), indices, vertexCount)
	return out
}

// OptimizeVertexCacheContext is OptimizeVertexCache that stops when ctx is
// done, with nil and an error wrapping ctx.Err(). It checks ctx before it
// starts, every vcacheCheckEvery triangles of the search and before the
// refine pass.
func OptimizeVertexCacheContext(ctx context.Context, indices []uint32, vertexCount int) ([]uint32, error) {
	out, _, err := greedyVertexCache(ctx, indices, vertexCount, newVcacheTables())
	if err != nil {
		return nil, err
	}
	for _, v := range out {
		if int(v) >= vertexCount {
			return out, nil // the input order
		}
	}
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	refineVertexCache(out, vertexCount)
	return out, nil
}

// OptimizeVertexCacheGreedy is OptimizeVertexCache without the refine
// pass (vcache_refine.go): the greedy order alone, in about 40% of the
// time on large meshes, with 1-3% more misses.
func OptimizeVertexCacheGreedy(indices []uint32, vertexCount int) []uint32 {
	return optimizeVertexCache(indices, vertexCount, newVcacheTables())
}

// OptimizeVertexCacheGreedyContext is OptimizeVertexCacheGreedy that stops
// when ctx is done, as OptimizeVertexCacheContext does.
func OptimizeVertexCacheGreedyContext(ctx context.Context, indices []uint32, vertexCount int) ([]uint32, error) {
	out, _, err := greedyVertexCache(ctx, indices, vertexCount, newVcacheTables())
	if err != nil {
		return nil, err
	}
	return out, nil
}

// vcacheCheckEvery is how many triangles the greedy search emits between
// two looks at its context (a few milliseconds of work).
const vcacheCheckEvery = 1 << 14

// ctxErr is ctx's error wrapped for this package's callers.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("meshlet: %w", err)
	}
	return nil
}

// A triangle of the search is its corners (tv[t]) and, per corner, its
// place in that vertex's live list (slot[t], so removing it is O(1)), in
// two arrays: candidate comparisons read the corners only.

// vcacheVert is one vertex of the search: its live triangles are
// adj[first : first+live].
type vcacheVert struct {
	first, live uint32
}

// vcacheHot is what a candidate comparison reads of each corner, side by
// side: the vertex's current score, and its FIFO stamp (it is in the FIFO
// while misses-stamp <= vcacheSize, unsigned arithmetic).
type vcacheHot struct {
	score float32
	stamp uint32
}

// vcacheCandidates bounds how many live triangles of one cached vertex
// are compared per step: the first vcacheCandidates of its live list.
// Every step then costs O(vcacheSize·vcacheCandidates) whatever the
// valence, so the search is linear in the triangle count (without the
// bound, a vertex used by n triangles costs O(n) per step it stays
// cached: quadratic on a fan). Authored and scanned meshes rarely have a
// vertex with more live triangles, so their order does not change.
const vcacheCandidates = 32

// optimizeVertexCache is the greedy search.
func optimizeVertexCache(indices []uint32, vertexCount int, tables *vcacheTables) []uint32 {
	out, _, _ := greedyVertexCache(context.Background(), indices, vertexCount, tables)
	return out
}

// greedyVertexCache is the greedy search; work counts the live-list
// entries it visited (candidate comparisons and removals), the invariant
// the complexity tests bound. A done ctx stops it with ctx's error.
func greedyVertexCache(ctx context.Context, indices []uint32, vertexCount int, tables *vcacheTables) (out []uint32, work int, err error) {
	var s vcacheScratch
	return s.greedy(ctx, indices, vertexCount, tables, make([]uint32, 0, len(indices)/3*3))
}

// vcacheScratch is the greedy search's working memory, kept by a caller
// that runs many searches (vcachePartWorker) so each reuses the last
// one's buffers.
type vcacheScratch struct {
	verts   []vcacheVert
	start   []uint32
	tv      [][3]uint32
	slot    [][3]uint32
	adj     []uint32
	hot     []vcacheHot
	emitted []bool
	deadEnd []uint32
}

// greedy is greedyVertexCache on s's buffers, appending the order to
// out[:0] (which should have room for every index).
func (s *vcacheScratch) greedy(ctx context.Context, indices []uint32, vertexCount int, tables *vcacheTables, out []uint32) (_ []uint32, work int, err error) {
	if err := ctxErr(ctx); err != nil {
		return nil, 0, err
	}
	triCount := len(indices) / 3
	out = out[:0]
	for _, v := range indices[:triCount*3] {
		if int(v) >= vertexCount {
			return append(out, indices[:triCount*3]...), 0, nil
		}
	}
	if triCount == 0 {
		return out, 0, nil
	}

	// Renumber triangles by their lowest vertex (stable counting sort), and
	// count each vertex's triangles on the way.
	s.verts = resize(s.verts, vertexCount)
	s.start = resize(s.start, vertexCount+1)
	verts, start := s.verts, s.start
	clear(verts)
	clear(start)
	for t := 0; t < triCount; t++ {
		a, b, c := indices[3*t], indices[3*t+1], indices[3*t+2]
		verts[a].live++
		verts[b].live++
		verts[c].live++
		start[min(a, b, c)+1]++
	}
	for v := 0; v < vertexCount; v++ {
		start[v+1] += start[v]
	}
	s.tv = resize(s.tv, triCount)
	s.slot = resize(s.slot, triCount)
	tv, slot := s.tv, s.slot
	for t := 0; t < triCount; t++ {
		a, b, c := indices[3*t], indices[3*t+1], indices[3*t+2]
		m := min(a, b, c)
		tv[start[m]] = [3]uint32{a, b, c}
		start[m]++
	}

	// Adjacency: triangles of each vertex (CSR), in renumbered order; start
	// is reused as the fill cursor.
	offset := uint32(0)
	for v := range verts {
		verts[v].first = offset
		start[v] = offset
		offset += verts[v].live
	}
	s.adj = resize(s.adj, int(offset))
	adj := s.adj
	for t := range tv {
		for k, v := range tv[t] {
			slot[t][k] = start[v] - verts[v].first
			adj[start[v]] = uint32(t)
			start[v]++
		}
	}

	// Initial scores; nothing is in the FIFO. A triangle's score is the
	// sum of its vertices' current scores, added up when it is compared.
	s.hot = resize(s.hot, vertexCount)
	hot := s.hot
	for v := range verts {
		hot[v] = vcacheHot{tables.score(-1, verts[v].live), ^uint32(vcacheSize)}
	}
	s.emitted = resize(s.emitted, triCount)
	emitted := s.emitted
	clear(emitted)

	penalty := tables.missPenalty
	var cache, next [vcacheSize + 3]uint32
	cacheLen := 0
	misses := uint32(0)      // FIFO misses so far
	deadEnd := s.deadEnd[:0] // vertices that may still have live triangles
	inputCursor := 0         // next triangle in (renumbered) order for dead ends
	current := 0             // start with the first triangle

	for {
		// Emit current.
		emitted[current] = true
		ct := tv[current]
		out = append(out, ct[0], ct[1], ct[2])
		if len(out) == triCount*3 {
			break
		}
		if len(out)%(3*vcacheCheckEvery) == 0 {
			if err := ctxErr(ctx); err != nil {
				return nil, work, err
			}
		}
		for _, v := range ct {
			if misses-hot[v].stamp > vcacheSize {
				hot[v].stamp = misses
				misses++
			}
		}

		// New cache: the triangle's vertices, then old entries not among them.
		copy(next[:3], ct[:])
		deadEnd = append(deadEnd, ct[:]...)
		n := 3
		for _, v := range cache[:cacheLen] {
			if v != ct[0] && v != ct[1] && v != ct[2] {
				next[n] = v
				n++
			}
		}
		// Remove the emitted triangle from its vertices' live lists: the
		// last entry takes its slot.
		for k, v := range ct {
			removeLive(tv, slot, verts, adj, uint32(current), k, v)
			work++
		}

		// Rescore everything that was or is in the cache; pick the best
		// live triangle adjacent to the new cache by score less the FIFO
		// miss penalty (ties: the lowest number). A triangle is compared
		// as soon as one of its vertices is rescored, before its later
		// vertices are: like meshoptimizer, and the tables are tuned for
		// it (comparing only final scores raises ACMR by 3-4% on the
		// bench meshes).
		best, bestScore := -1, float32(0)
		for i, v := range next[:n] {
			vt := &verts[v]
			if i >= vcacheSize {
				hot[v].score = tables.score(-1, vt.live) // pushed out
				continue
			}
			hot[v].score = tables.score(i, vt.live)
			list := adj[vt.first : vt.first+min(vt.live, vcacheCandidates)]
			work += len(list)
			for _, t := range list {
				u := &tv[t]
				h0, h1, h2 := &hot[u[0]], &hot[u[1]], &hot[u[2]]
				s := h0.score + h1.score + h2.score
				// The penalty only lowers s: skip triangles that lose anyway.
				if best >= 0 && (s < bestScore || (s == bestScore && int(t) > best)) {
					continue
				}
				if misses-h0.stamp > vcacheSize {
					s -= penalty
				}
				if misses-h1.stamp > vcacheSize {
					s -= penalty
				}
				if misses-h2.stamp > vcacheSize {
					s -= penalty
				}
				if best < 0 || s > bestScore || (s == bestScore && int(t) < best) {
					best, bestScore = int(t), s
				}
			}
		}
		cacheLen = min(n, vcacheSize)
		copy(cache[:cacheLen], next[:cacheLen])

		if best < 0 {
			best = nextDeadEnd(&deadEnd, verts, adj)
		}
		if best < 0 {
			for emitted[inputCursor] {
				inputCursor++
			}
			best = inputCursor
		}
		current = best
	}
	s.deadEnd = deadEnd
	return out, work, nil
}

// removeLive takes triangle t, whose corner k is vertex v, out of v's live
// list: the list's last entry moves into its slot.
func removeLive(tv, slot [][3]uint32, verts []vcacheVert, adj []uint32, t uint32, k int, v uint32) {
	vt := &verts[v]
	vt.live--
	at, last := slot[t][k], vt.live
	moved := adj[vt.first+last]
	adj[vt.first+at] = moved
	// The moved entry's corner at v is the one whose slot was last (a
	// degenerate triangle can use v at two corners; a removed corner's
	// slot is cleared, so it never matches).
	mv, ms := &tv[moved], &slot[moved]
	for c := range mv {
		if mv[c] == v && ms[c] == last {
			ms[c] = at
			break
		}
	}
	slot[t][k] = ^uint32(0) // removed: matches no list position
}

// nextDeadEnd pops recently used vertices until one still has a live
// triangle and returns its first one (-1 when none is left).
func nextDeadEnd(stack *[]uint32, verts []vcacheVert, adj []uint32) int {
	s := *stack
	for len(s) > 0 {
		v := s[len(s)-1]
		s = s[:len(s)-1]
		if verts[v].live > 0 {
			*stack = s
			return int(adj[verts[v].first])
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
