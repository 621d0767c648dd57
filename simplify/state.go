package simplify

import (
	"context"
	"math"
	"math/bits"
	"runtime"

	"github.com/meshcook/meshcook/internal/par"
)

// Vertex kinds decide which collapses are allowed (see canCollapse).
const (
	kindManifold uint8 = iota // no open edge, one wedge
	kindBorder                // one wedge, exactly one open edge in and one out
	kindSeam                  // two wedges whose open edges pair up by position
	kindLocked                // anything else, user locks, LockBorder borders
	kindCount
)

// noVertex marks an absent loop link.
const noVertex = ^uint32(0)

// Tuned constants (tuned on grids, spheres and seamed cylinders so that
// borders and seams stay put while flat interiors collapse freely).
const (
	// borderWeight scales the edge planes along open borders; borders are
	// silhouettes, so moving along them must cost more than inside.
	borderWeight = 10.0
	// seamWeight scales the edge planes along attribute seams; seam
	// collapses are already constrained topologically.
	seamWeight = 1.0
	// flipCos rejects a collapse when a surviving triangle's normal turns
	// by more than ~75 degrees (cos = 0.25). The pure test (90 degrees)
	// lets a series of near-90 turns flip a triangle over several passes.
	flipCos = 0.25
	// passErrorBound: a pass takes collapses up to this factor times the
	// error of the collapse at its goal rank. meshoptimizer uses 1.5; here
	// deferrals already hold back collapses whose measured bounds cost more
	// than their ranks, and 2.5 gave fewer passes (12-25% less time) and
	// lower sampled Hausdorff errors on 15 of the 18 bench-compare rows
	// (the other three stayed at 0.82-0.98x meshoptimizer's). 2.0 and 3.0
	// were each worse on some row: the optimum is flat but noisy.
	passErrorBound = 2.5
	// maxDeferred: a pass stops walking once it has deferred this many
	// collapses per edge of its goal; their costs already set the next goal
	// (see collapseTo), and walking on only re-measures fans that the next
	// pass measures again. Without it, a pass whose ranks all lag their
	// bounds measured every fan of the mesh (half the work on FlightHelmet).
	maxDeferred = 8
	// raiseSlack: with weighted attributes, after each level's first pass,
	// a collapse whose measured cost exceeds its rank by more than this
	// factor is deferred to the next pass even under the pass goal (see
	// walkOrder), unless it costs no more than the pass has already
	// committed. Measured on the bench-compare rows: 1.5 left bunny-sub2's
	// 0.5 level (normals weighted) at 1.01x meshoptimizer's error, 1.25
	// brought it to 0.98x.
	raiseSlack = 1.25
)

// canCollapse[from][to]: a collapse keeps the target's kind, so a vertex may
// only move onto a vertex of its own kind (along its loop) or a locked one;
// manifold vertices may move anywhere.
var canCollapse = [kindCount][kindCount]bool{
	kindManifold: {true, true, true, true},
	kindBorder:   {false, true, false, true},
	kindSeam:     {false, false, true, true},
	kindLocked:   {false, false, false, false},
}

// canCollapsePermissive is canCollapse under Options.Permissive: a seam
// vertex may also move off its seam onto a manifold vertex.
var canCollapsePermissive = func() [kindCount][kindCount]bool {
	t := canCollapse
	t[kindSeam][kindManifold] = true
	return t
}()

// hasOpposite[k0][k1]: an edge between such vertices has a twin half-edge
// (in the position-welded mesh), so it is listed once instead of twice.
var hasOpposite = [kindCount][kindCount]bool{
	kindManifold: {true, true, true, true},
	kindBorder:   {true, false, true, false},
	kindSeam:     {true, true, true, true},
	kindLocked:   {true, false, true, false},
}

// halfEdge is one triangle corner seen from a vertex: the vertex's triangle
// continues to next and comes back from prev.
type halfEdge struct{ next, prev uint32 }

// collapse moves v0 (class r0) onto v1 (class r1); bidi marks edges that
// may go either way until ranking picks the cheaper direction. The walks
// read candidates in rank order through sorted, so the classes are kept
// here rather than looked up there.
type collapse struct {
	v0, v1 uint32
	r0, r1 uint32
	slot   uint32 // its entry in ecache, or noSlot (see edgecache.go)
	bidi   bool
	err    float64 // rank: the larger of qerr and the tolerance bound squared
	qerr   float64 // quadric error, what the error limit applies to
	attr   float64 // the attribute part of qerr
}

// edgeCache keeps the quadric errors of the edge v0→v1 listed at one
// corner of the result across passes: collapseError(v0, v1) in q01 and,
// for an edge that may go either way, collapseError(v1, v0) in q10. Each is
// valid while ver0 (ver1) is qver of v0's (v1's) class plus one: a
// collapse error only changes when the moving class's quadrics (it was a
// collapse target) or its loop links (read by seamPartner) change, and both
// bump qver (the positions and attributes it reads never change). The
// cache moves with its triangle when remapResult compacts the result; an
// edge whose corners were remapped starts afresh (see edgecache.go). Reuse
// is exact: the cached value is the one collapseError would return.
type edgeCache struct {
	ver0, ver1 uint32
	q01, q10   float64
}

// edgeAttr is the attribute part of an edgeCache entry's errors (a01 of
// q01, a10 of q10), kept beside it (state.eattr) only when attributes are
// weighted: without them the parts are 0 and the cache is 24 bytes an
// entry instead of 40. An entry's validity is its edgeCache's versions,
// which are written with it.
type edgeAttr struct{ a01, a10 float64 }

// state is one simplification in progress. All positions are normalized to
// the unit extent; all errors inside are squared normalized distances.
type state struct {
	n       int
	rules   *[16]uint8 // edgeRules or edgeRulesPermissive
	permit  bool       // Options.Permissive
	pos     []vec3
	extent  float64
	absUnit bool // report errors in position units

	remap  []uint32 // vertex → first vertex with the same position
	wedge  []uint32 // cyclic list of vertices sharing a position
	kind   []uint8
	pinned []bool // locked by the user or by LockBorder (kept by sloppy too)
	used   []bool
	loop   []uint32 // border/seam: the next vertex along the open edge loop
	loopbk []uint32 // border/seam: the previous vertex along the loop

	vq   []quadric // geometric quadric per position (indexed by remap)
	k    int       // weighted attribute count per vertex
	attr []float64 // n*k weighted attribute values
	aq   []quadric // attribute quadric per vertex
	ag   []gradient

	result  []uint32
	maxErr  float64 // largest committed collapse (quadric) error
	maxCost float64 // largest committed cost (quadric or tolerance)
	limit   float64 // squared error limit

	// per-pass scratch
	adjOff     []uint32
	adj        []halfEdge
	coll       []collapse
	chunkColl  [][]collapse   // pickCollapses: one candidate list per chunk
	chunkKept  []int          // remapResult: surviving indices per chunk
	sorted     []uint64       // candidates in rank order: key<<32 | index in coll (see ranked)
	keys       []uint64       // sort scratch (sorted is one of keys and keysTmp)
	sortHist   [][2048]uint32 // sort scratch: digit counts per part
	keysTmp    []uint64
	cremap     []uint32
	ccur       []uint32 // per class: its class after this pass's collapses so far
	clock      []bool
	scratch    []*scratch  // per goroutine of performCollapses
	walks      []walk      // per region (see defaultRegionTris)
	region     []uint8     // per class: its region, when its whole fan is in it
	regionOf   []uint8     // per class: its region (see partition)
	regions    int         // how many regions regionOf holds
	scheme     int         // how regionOf is drawn (see partition)
	regionTris int         // triangles per region (defaultRegionTris, or less in tests)
	visited    []bool      // per candidate: a walk of this pass went past it
	ecache     []edgeCache // two per triangle of result (see edgecache.go)
	eattr      []edgeAttr  // beside ecache when s.k > 0, else nil
	eslot      []uint8     // per triangle of result: the corners its entries hold
	qver       []uint32    // per class: bumped when collapseError inputs change

	// tolerance bounds (see tolerance.go)
	tl        []tolerance // per class (see tolerance.go)
	deferred  []float64   // costs of the collapses this pass deferred
	nextFloor float64     // goal floor for the next pass
	removed   int         // triangles the last pass removed

	// work bounds and cancellation (see work.go)
	ctx    context.Context  // Background unless SimplifyContext/ChainContext
	onPoll func(work int64) // tests: called at every check of ctx
	work   int64            // work units of the finished walks and passes
	err    error            // set when ctx stopped the simplification
	spent  []uint32         // per class: fan triangles walked this pass
	prog   progress         // Options.Progress (see progress.go)
}

// newState prepares positions, topology, vertex kinds and quadrics. Input
// must have passed validate.
func newState(indices []uint32, positions [][3]float32, attrs Attributes, opts *Options) *state {
	n := len(positions)
	s := &state{ctx: context.Background(), n: n, absUnit: opts.Absolute, regionTris: defaultRegionTris, rules: &edgeRules, permit: opts.Permissive}
	if opts.Permissive {
		s.rules = &edgeRulesPermissive
	}
	if opts.regionTris > 0 {
		s.regionTris = opts.regionTris
	}
	s.used = make([]bool, n)
	for _, v := range indices {
		s.used[v] = true
	}
	s.normalize(positions)
	s.buildRemap(positions)

	// Degenerate triangles (two corners at one position) carry no area and
	// confuse the open-edge classification; drop them up front.
	s.result = make([]uint32, 0, len(indices))
	for t := 0; t+2 < len(indices); t += 3 {
		a, b, c := indices[t], indices[t+1], indices[t+2]
		if s.remap[a] != s.remap[b] && s.remap[a] != s.remap[c] && s.remap[b] != s.remap[c] {
			s.result = append(s.result, a, b, c)
		}
	}
	s.classify(opts)
	s.ecache = make([]edgeCache, 2*len(s.result)/3)
	s.eslot = make([]uint8, len(s.result)/3)
	for i := range s.eslot {
		s.eslot[i] = eslotEmpty
	}
	s.qver = make([]uint32, n)

	limit := float64(opts.TargetError)
	if opts.Absolute {
		limit /= s.extent
	}
	s.limit = limit * limit

	s.setupAttributes(attrs, opts.AttributeWeights)
	if s.k > 0 {
		s.eattr = make([]edgeAttr, len(s.ecache))
	}
	s.fillQuadrics()

	s.adjOff = make([]uint32, n+1)
	s.cremap = make([]uint32, n)
	s.ccur = make([]uint32, n)
	s.clock = make([]bool, n)
	s.spent = make([]uint32, n)
	s.tl = make([]tolerance, n)
	return s
}

// normalize maps referenced positions into [0,1]³ by the longest AABB side.
func (s *state) normalize(positions [][3]float32) {
	lo := vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, p := range positions {
		if !s.used[i] {
			continue
		}
		for j := range 3 {
			lo[j] = min(lo[j], float64(p[j]))
			hi[j] = max(hi[j], float64(p[j]))
		}
	}
	ext := 0.0
	for j := range 3 {
		ext = math.Max(ext, hi[j]-lo[j])
	}
	if !(ext > 0) {
		ext = 1 // empty or a single point: nothing to scale
		lo = vec3{}
	}
	s.extent = ext
	s.pos = make([]vec3, len(positions))
	for i, p := range positions {
		if s.used[i] {
			for j := range 3 {
				s.pos[i][j] = (float64(p[j]) - lo[j]) / ext
			}
		}
	}
}

// buildRemap welds referenced vertices with bit-identical positions (-0 and
// +0 are the same) into position classes: remap points at the first member,
// wedge links the members in a cycle. Lookups go through an open-addressing
// table (quadratic probing) over vertex ids, sized to a power of two.
func (s *state) buildRemap(positions [][3]float32) {
	s.remap = make([]uint32, s.n)
	s.wedge = make([]uint32, s.n)
	key := func(i uint32) [3]uint32 {
		var k [3]uint32
		for j, x := range positions[i] {
			if x != 0 { // -0 and +0 are one position
				k[j] = math.Float32bits(x)
			}
		}
		return k
	}
	hash := func(k [3]uint32) uint32 {
		h := (k[0] ^ k[0]>>17) * 73856093
		h ^= (k[1] ^ k[1]>>17) * 19349663
		h ^= (k[2] ^ k[2]>>17) * 83492791
		return h
	}
	// Vertices at one position share their hash, so each goroutine owns
	// the positions whose hash falls in its range (the top bits) and
	// walks every vertex in index order, keeping only its own: each
	// position's vertices are linked in index order by one goroutine, as
	// one walk over all of them would, and the goroutines write disjoint
	// entries.
	ranges := 1
	if s.n >= remapParallelVertices {
		ranges = 1 << bits.Len(uint(min(runtime.GOMAXPROCS(0), maxRemapRanges)-1))
	}
	shift := uint(32 - bits.Len(uint(ranges-1))) // range of hash h: h >> shift
	par.Each(ranges, func(g int) {
		size := 1
		for size < (s.n+s.n/4)/ranges+1 {
			size *= 2
		}
		table := make([]uint32, size)
		for i := range table {
			table[i] = noVertex
		}
		mask := uint32(size - 1)
		for i := range uint32(s.n) {
			if !s.used[i] {
				if g == 0 {
					s.remap[i], s.wedge[i] = i, i
				}
				continue
			}
			k := key(i)
			h := hash(k)
			if ranges > 1 && int(h>>shift) != g {
				continue
			}
			s.remap[i], s.wedge[i] = i, i
			b := h & mask
			for probe := uint32(1); ; probe++ {
				r := table[b]
				if r == noVertex {
					table[b] = i
					break
				}
				if key(r) == k {
					s.remap[i] = r
					s.wedge[i] = s.wedge[r]
					s.wedge[r] = i
					break
				}
				b = (b + probe) & mask
			}
		}
	})
}

// buildRemap's split: meshes of remapParallelVertices vertices or more
// are grouped on up to maxRemapRanges goroutines (a power of two, by the
// top bits of the position hash).
const (
	remapParallelVertices = 1 << 16
	maxRemapRanges        = 8
)

// classify finds open (unpaired) half-edges in the unwelded mesh and sorts
// each position into manifold, border, seam or locked, after meshoptimizer's
// classifyVertices. An open half-edge with a partner at the same positions
// but other wedges is a seam; one without any partner is a border.
func (s *state) classify(opts *Options) {
	n := s.n
	off, adj := buildAdjacency(s.result, n, nil, nil, nil)
	// A half-edge v→t is open unless its twin t→v exists. The twin's
	// triangle is in v's own fan, arriving at v from t (prev == t), so
	// each vertex needs only its fan: stamp the fan's prev vertices, then
	// test each next against the stamps. Linear in the fans whatever the
	// valences (three vertices shared by two million duplicate triangles
	// cost two million steps, not their square).
	openOut := make([]uint32, n)
	openIn := make([]uint32, n)
	for i := range openOut {
		openOut[i], openIn[i] = noVertex, noVertex
	}
	// openOut[v]: target of v's single open outgoing half-edge, noVertex if
	// none, v itself if several; openIn likewise for incoming.
	stamp := make([]uint32, n) // v+1 where the vertex arrives at v
	for v := range uint32(n) {
		fan := adj[off[v]:off[v+1]]
		s.work += 2 * int64(len(fan))
		for _, e := range fan {
			stamp[e.prev] = v + 1
		}
		for _, e := range fan {
			t := e.next
			if stamp[t] == v+1 {
				continue
			}
			if openOut[v] == noVertex {
				openOut[v] = t
			} else {
				openOut[v] = v
			}
			if openIn[t] == noVertex {
				openIn[t] = v
			} else {
				openIn[t] = t
			}
		}
	}
	single := func(v, x uint32) bool { return x != noVertex && x != v }

	s.kind = make([]uint8, n)
	for i := range uint32(n) {
		if s.remap[i] != i {
			s.kind[i] = s.kind[s.remap[i]] // representatives come first
			continue
		}
		k := kindLocked
		switch w := s.wedge[i]; {
		case !s.used[i]:
		case w == i:
			if openIn[i] == noVertex && openOut[i] == noVertex {
				k = kindManifold
			} else if single(i, openIn[i]) && single(i, openOut[i]) {
				k = kindBorder
			}
		case s.wedge[w] == i:
			// A seam: each wedge has one open edge in and out, and they
			// pair up across the seam by position.
			if single(i, openIn[i]) && single(i, openOut[i]) && single(w, openIn[w]) && single(w, openOut[w]) &&
				s.remap[openIn[i]] == s.remap[openOut[w]] && s.remap[openOut[i]] == s.remap[openIn[w]] &&
				s.remap[openIn[i]] != s.remap[openOut[i]] {
				k = kindSeam
			}
		}
		s.kind[i] = k
	}
	s.loop, s.loopbk = openOut, openIn

	// User locks pin the whole position class.
	s.pinned = make([]bool, n)
	for i, l := range opts.Locked {
		if l && s.used[i] {
			s.pinned[s.remap[i]] = true
		}
	}
	for i := range n {
		r := s.remap[i]
		if opts.LockBorder && s.kind[r] == kindBorder {
			s.pinned[r] = true
		}
		if s.pinned[r] {
			s.pinned[i] = true
			s.kind[i] = kindLocked
		}
	}
}

// buildAdjacency lists, per vertex (per position class when remap is set),
// the half-edges of the triangles around it. off and adj are reused when
// large enough.
func buildAdjacency(tris []uint32, n int, remap []uint32, off []uint32, adj []halfEdge) ([]uint32, []halfEdge) {
	if cap(off) < n+1 {
		off = make([]uint32, n+1)
	}
	off = off[:n+1]
	clear(off)
	if remap == nil {
		for _, v := range tris {
			off[v+1]++
		}
	} else {
		for _, v := range tris {
			off[remap[v]+1]++
		}
	}
	for i := 1; i <= n; i++ {
		off[i] += off[i-1]
	}
	if cap(adj) < len(tris) {
		adj = make([]halfEdge, len(tris))
	}
	adj = adj[:len(tris)]
	// Fill using off[v] as a cursor, then shift back.
	for t := 0; t+2 < len(tris); t += 3 {
		a, b, c := tris[t], tris[t+1], tris[t+2]
		if remap != nil {
			a, b, c = remap[a], remap[b], remap[c]
		}
		adj[off[a]] = halfEdge{b, c}
		off[a]++
		adj[off[b]] = halfEdge{c, a}
		off[b]++
		adj[off[c]] = halfEdge{a, b}
		off[c]++
	}
	copy(off[1:], off[:n])
	off[0] = 0
	return off, adj
}

// setupAttributes copies the weighted attribute streams into s.attr.
func (s *state) setupAttributes(attrs Attributes, w Weights) {
	type stream struct {
		get    func(i int) []float32
		weight float64
		comps  int
	}
	var streams []stream
	if attrs.Normals != nil && w.Normal > 0 {
		streams = append(streams, stream{func(i int) []float32 { return attrs.Normals[i][:] }, float64(w.Normal), 3})
	}
	if attrs.UV0 != nil && w.UV > 0 {
		streams = append(streams, stream{func(i int) []float32 { return attrs.UV0[i][:] }, float64(w.UV), 2})
	}
	if attrs.Colors != nil && w.Color > 0 {
		streams = append(streams, stream{func(i int) []float32 { return attrs.Colors[i][:] }, float64(w.Color), 4})
	}
	for _, st := range streams {
		s.k += st.comps
	}
	if s.k == 0 {
		return
	}
	s.attr = make([]float64, s.n*s.k)
	for i := range s.n {
		if !s.used[i] {
			continue
		}
		o := i * s.k
		for _, st := range streams {
			for _, x := range st.get(i) {
				s.attr[o] = float64(x) * st.weight
				o++
			}
		}
	}
}

// fillQuadrics accumulates face, border/seam edge and attribute quadrics.
func (s *state) fillQuadrics() {
	s.vq = make([]quadric, s.n)
	tris := s.result
	// Each triangle's quadrics are computed on up to GOMAXPROCS goroutines,
	// a block of parBlock chunks at a time, then summed into its vertices
	// in triangle order, each vertex by one goroutine (sumByKey): the sums
	// are the same whatever the goroutine count, and the buffers hold one
	// block.
	k := s.k
	nf := len(tris) / 3
	face := make([]quadric, min(nf, parBlock*parChunk))
	for block := 0; block < nf; block += len(face) {
		fb := face[:min(nf-block, len(face))]
		par.Ranges(len(fb), parChunk, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				t := 3 * (block + i)
				fb[i] = quadric{}
				fb[i].addTriangle(s.pos[tris[t]], s.pos[tris[t+1]], s.pos[tris[t+2]])
			}
		})
		sumByKey(s.n, len(fb), func(lo, hi uint32) {
			for i := range fb {
				t := 3 * (block + i)
				for _, v := range [3]uint32{s.remap[tris[t]], s.remap[tris[t+1]], s.remap[tris[t+2]]} {
					if v >= lo && v < hi {
						s.vq[v].add(&fb[i])
					}
				}
			}
		})
	}
	for t := 0; t+2 < len(tris); t += 3 {
		for e := range 3 {
			i0, i1, i2 := tris[t+e], tris[t+(e+1)%3], tris[t+(e+2)%3]
			k0, k1 := s.kind[i0], s.kind[i1]
			b0 := k0 == kindBorder || k0 == kindSeam
			b1 := k1 == kindBorder || k1 == kindSeam
			// Edges of a border/seam loop, including those that end at a
			// locked corner, so that corners keep their cost.
			if !b0 && !b1 {
				continue
			}
			if b0 && s.loop[i0] != i1 || b1 && s.loopbk[i1] != i0 {
				continue
			}
			if hasOpposite[k0][k1] && s.remap[i1] > s.remap[i0] {
				continue // seam edges appear on both sides; count once
			}
			w := seamWeight
			if k0 == kindBorder || k1 == kindBorder {
				w = borderWeight
			} else if s.permit {
				continue // Permissive: seams may be crossed, so they cost nothing to leave
			}
			var q quadric
			q.addEdge(s.pos[i0], s.pos[i1], s.pos[i2], w)
			s.vq[s.remap[i0]].add(&q)
			s.vq[s.remap[i1]].add(&q)
		}
	}
	if k == 0 {
		return
	}
	s.aq = make([]quadric, s.n)
	s.ag = make([]gradient, s.n*k)
	ag := make([]gradient, len(face)*k)
	for block := 0; block < nf; block += len(face) {
		fb := face[:min(nf-block, len(face))]
		par.Ranges(len(fb), parChunk, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				t := 3 * (block + i)
				a, b, c := tris[t], tris[t+1], tris[t+2]
				attributeQuadric(&fb[i], ag[i*k:(i+1)*k], s.pos[a], s.pos[b], s.pos[c],
					s.attr[int(a)*k:int(a+1)*k], s.attr[int(b)*k:int(b+1)*k], s.attr[int(c)*k:int(c+1)*k])
			}
		})
		sumByKey(s.n, len(fb), func(lo, hi uint32) {
			for i := range fb {
				t := 3 * (block + i)
				q, g := &fb[i], ag[i*k:(i+1)*k]
				for _, v := range [3]uint32{tris[t], tris[t+1], tris[t+2]} {
					if v < lo || v >= hi {
						continue
					}
					s.aq[v].add(q)
					addGradients(s.ag[int(v)*k:int(v+1)*k], g)
				}
			}
		})
	}
}

// sumByKey runs add(lo, hi) over consecutive ranges of the keys 0..n-1,
// on up to GOMAXPROCS goroutines, for a block of faces faces: each call
// adds every face of the block into the keys (vertices) in [lo, hi) it
// touches, in face order. A key is therefore summed in the same order by
// whichever goroutine owns it, so the sums are the same for every
// goroutine count, while each goroutine writes only its own keys. Every
// goroutine reads the whole block; the writes, scattered 80-byte adds,
// are what it splits. A block of fewer than parChunk faces is summed on
// the calling goroutine.
func sumByKey(n, faces int, add func(lo, hi uint32)) {
	w := runtime.GOMAXPROCS(0)
	if w <= 1 || faces < parChunk || n < parChunk {
		add(0, uint32(n))
		return
	}
	par.Ranges(n, (n+w-1)/w, func(_, lo, hi int) { add(uint32(lo), uint32(hi)) })
}

// addGradients adds the attribute gradients src into dst, term by term.
func addGradients(dst, src []gradient) {
	for j := range dst {
		dst[j].gx += src[j].gx
		dst[j].gy += src[j].gy
		dst[j].gz += src[j].gz
		dst[j].gd += src[j].gd
	}
}

// reportError converts a normalized distance to the caller's units.
func (s *state) reportError(e float64) float32 {
	if s.absUnit {
		e *= s.extent
	}
	return float32(e)
}
