package meshlet

import "math"

// Scoring constants (meshoptimizer's values, tuned there on scanned and
// authored meshes for the 64/124 limits).
const (
	// minConeFactor keeps the normal term of the score positive when a
	// triangle is exactly aligned with the meshlet cone and ConeWeight is 1.
	minConeFactor = 1e-3
	// expectedRadiusScale turns sqrt(average triangle area * MaxTriangles)
	// into the radius a full meshlet is expected to have; distance in the
	// score is measured in units of it.
	expectedRadiusScale = 0.5
)

// vertexGainWeight rewards a candidate whose one new vertex completes other
// triangles too (their other corners are already in): its score is divided
// by 1 + vertexGainWeight*(completed-1). Vertex-limited meshlets then hold
// more triangles: 1.5% fewer meshlets than meshoptimizer over grids,
// spheres, terrain and scanned meshes at 64/124, for ~1% larger spheres;
// 0.05 gave -1%, 0.3 gave -1.8% with up to 7% larger spheres.
const vertexGainWeight = 0.1

// Seeding (meshoptimizer's values): each closed meshlet offers a few
// border triangles as seeds for later meshlets; the pool is capped.
const (
	maxSeeds        = 256
	seedsPerMeshlet = 4
	noTriangle      = math.MaxUint32
)

// expandCap is the most unused triangles one vertex contributes to the
// candidates (and to seed search). Manifold meshes stay far below it (UV
// sphere poles reach a few hundred); it keeps fans around one vertex and
// duplicate-heavy soups from making every step scan the whole mesh.
const expandCap = 256

// maxCandidates caps the candidate list of one meshlet. A meshlet's live
// candidates are its triangles' border ring, a few hundred at most even at
// 256/512 limits; random triangles over few vertices would otherwise make
// every step scan tens of thousands.
const maxCandidates = 1024

// kdAfterScans bounds the linear scans of the spatial fallback: once they
// have visited this many points per triangle of the mesh, a k-d tree
// answers the remaining queries. 4 keeps manifold meshes (a few queries
// per part) tree-free and triangle soups (a query per triangle) O(n log n).
const kdAfterScans = 4

// fallbackReach is how far (in expected meshlet radii from the meshlet's
// centroid) the nearest unused triangle may lie for the spatial fallback
// to add it to the meshlet; farther, the meshlet closes instead of
// spanning a gap. Unbounded (meshoptimizer) merges the leftovers of
// separate pieces into wide meshlets; 3 gave 2-9% smaller mean spheres on
// the benchmark meshes for at most as many meshlets as meshoptimizer
// (1 and 2 cost 0.5-1.5% more meshlets, 4 kept 0.5% wider spheres).
const fallbackReach = 3.0

// Topological priorities of a candidate triangle, lower is better. They
// always beat the geometric score. A triangle two of whose corners have
// just one other unused triangle left ranks one step better than its new
// vertex count says (meshoptimizer 1.x): it is about to become dangling.
const (
	prioNoNewVertex = 0 // all corners already in the meshlet
	prioDangling    = 1 // a corner has no other unused triangle left
	prioNewVertex   = 2 // + number of new vertices (1..3) otherwise
)

// triGeom is what scoring needs of a triangle: its centroid and its unit
// geometric normal (zero for a zero-area triangle).
type triGeom struct {
	c, n [3]float32
}

// cand is a candidate triangle with what pick needs of it, so that the
// scans, which revisit each candidate many times, walk memory in order:
// only the corners' live counts are looked up per scan. For the near list
// (cands), addVertex keeps inside and w up to date as the meshlet grows
// (through triState.pos) and add marks entries dead when they are used;
// far entries (farCands) carry t and g only and are ranked from the mesh
// arrays.
type cand struct {
	t      uint32
	w      uint32    // when inside == 2: the corner not in the meshlet
	v      [3]uint32 // the corners
	g      triGeom
	inside uint8 // corners in the meshlet (as triState.inside; see candDegenerate)
	flags  uint8 // candDegenerate, candDead
}

// Flags of a near candidate: a degenerate triangle (repeated corner)
// keeps 3 minus its new vertex count in inside instead of its corner
// count (see setDegenerate); a dead one is used (dropped lazily, see
// compact).
const (
	candDegenerate uint8 = 1 << iota
	candDead
)

// builder holds the state of one greedy build (the whole mesh, or one part
// of a large mesh; see split.go). Vertex ids are dense, 0..nv-1.
type builder struct {
	idx  []uint32
	opts Options
	geom []triGeom

	adjOff []uint32 // vertex v's triangles are adjTri[adjOff[v]:adjOff[v]+adjLen[v]]
	adjTri []uint32
	adjLen []uint32 // entries of v's list not yet removed (a prefix)
	live   []uint32 // unused triangles referencing each vertex (per corner)
	// liveCls[v] is live[v]'s class for priorities (see liveClass).
	liveCls []uint8
	// lastAlive[v] is the xor of the unused triangles around v (per
	// corner): the last one when live[v] is 1.
	lastAlive []uint32

	emitted   []bool
	remaining int
	nextFirst int // no triangle before it is unused

	// The spatial fallback's k-d tree over the centroids of the triangles
	// still unused when it is first needed (built lazily: manifold meshes
	// rarely need it). kdTri maps tree points to triangles, kdPoint back
	// (-1: not in the tree).
	kd      *kdTree
	kdTri   []uint32
	kdPoint []int32
	grid    *cellGrid // nearest within reach, built on first use
	// Before the tree: the unused triangles (lazily compacted) that
	// nearestUnused scans when there is no grid, and how many points (and
	// grid cells) the scans have visited.
	pool      []uint32
	poolReady bool
	scanned   int

	expectedRadius float64
	// Flex mode: a meshlet of at least minTris triangles closes early when
	// the next triangle's centroid is farther than splitDist from its
	// centroid (splitDist 0: never).
	minTris   int
	splitDist float64
	corner    [3]float32 // minimum corner of the triangle centroids
	farCorner [3]float32 // and the maximum one
	seeds     []uint32   // pool of seed triangles for new meshlets

	// Current meshlet.
	local []int16 // per vertex: local index in the current meshlet, -1 if absent
	verts []uint32
	ltris []uint8
	// Candidates: unused triangles touching the meshlet (lazy: may hold
	// used ones). cands holds those with two or more corners in the
	// meshlet or a corner about to dangle, far those that touched it with
	// one corner when found; pick looks at far only when nothing in cands
	// fits.
	cands    []cand
	ncand    int      // the near list's length as the cap counts it (see promote)
	ndead    int      // dead entries in cands
	inexact  bool     // a new vertex had more than expandCap unused triangles: inside may undercount
	far      []uint32 // (entries built into farCands when looked at)
	farCands []cand
	ready    []uint32 // triangles whose corners are all in the meshlet (lazy)
	sel      []uint32 // the candidates pick scores: indices in cands or farCands
	// Per triangle, its state in the current meshlet (see triState).
	// Completion tracking: completes[w].n counts unused triangles that
	// adding vertex w would complete (valid when completes[w].stamp ==
	// serial).
	tstate    []triState
	completes []completion
	serial    uint32
	sumC      [3]float64
	sumN      [3]float64

	out Result
}

// meshletRadius is the radius a full meshlet of the given triangle count
// is expected to have on a mesh of n triangles with the given total double
// area; distance in the score is measured in units of it.
func meshletRadius(area2 float64, n, tris int) float64 {
	r := math.Sqrt(area2/2/float64(n)*float64(tris)) * expectedRadiusScale
	if !(r > 0) || math.IsInf(r, 0) {
		return 1
	}
	return r
}

// scoreTriangles is the triangle count the expected radius is based on:
// MaxTriangles, or MinTriangles in flex mode (as meshoptimizer's
// buildMeshletsFlex).
func (o Options) scoreTriangles() int {
	if o.MinTriangles > 0 {
		return o.MinTriangles
	}
	return o.MaxTriangles
}

// build clusterizes indices (3 per triangle, each < len(positions)).
func build(indices []uint32, positions [][3]float32, opts Options) Result {
	var b builder
	geom := make([]triGeom, len(indices)/3)
	area := computeGeom(indices, positions, geom)
	b.reset(indices, len(positions), geom, opts, meshletRadius(area, len(geom), opts.scoreTriangles()))
	b.corner, b.farCorner = geomBox(geom)
	b.out = Result{
		Meshlets:  make([]Meshlet, 0, len(indices)/3/max(opts.MaxTriangles/2, 1)+1),
		Vertices:  make([]uint32, 0, len(indices)/4+3),
		Triangles: make([]uint8, 0, len(indices)),
	}
	b.run()
	return b.out
}

// computeGeom fills geom with each triangle's centroid and unit normal and
// returns the sum of the triangles' double areas: the centroid is the mean
// of the corners in float64 rounded to float32, the normal the cross
// product (p1-p0)×(p2-p0) in float64 over its length (twice the area, as
// meshcheck computes it), written out so that it runs in registers.
func computeGeom(indices []uint32, positions [][3]float32, geom []triGeom) float64 {
	var area float64
	indices = indices[:3*len(geom)]
	for t := range geom {
		tri := indices[3*t : 3*t+3 : 3*t+3]
		p0, p1, p2 := &positions[tri[0]], &positions[tri[1]], &positions[tri[2]]
		x0, y0, z0 := float64(p0[0]), float64(p0[1]), float64(p0[2])
		x1, y1, z1 := float64(p1[0]), float64(p1[1]), float64(p1[2])
		x2, y2, z2 := float64(p2[0]), float64(p2[1]), float64(p2[2])
		ax, ay, az := x1-x0, y1-y0, z1-z0
		bx, by, bz := x2-x0, y2-y0, z2-z0
		nx := float64(ay*bz) - float64(az*by)
		ny := float64(az*bx) - float64(ax*bz)
		nz := float64(ax*by) - float64(ay*bx)
		l := math.Sqrt(float64(nx*nx) + float64(ny*ny) + float64(nz*nz))
		area += l
		var n0, n1, n2 float32
		if l > 0 {
			inv := 1 / l
			n0, n1, n2 = float32(nx*inv), float32(ny*inv), float32(nz*inv)
		}
		geom[t] = triGeom{
			c: [3]float32{float32((x0 + x1 + x2) / 3), float32((y0 + y1 + y2) / 3), float32((z0 + z1 + z2) / 3)},
			n: [3]float32{n0, n1, n2},
		}
	}
	return area
}

// minMax widens lo..hi (lo <= hi) to hold v. Box loops keep their six
// bounds in scalars and call it per axis: a [3]float32 would live in
// memory.
func minMax(v, lo, hi float32) (float32, float32) {
	if v < lo {
		lo = v
	} else if v > hi {
		hi = v
	}
	return lo, hi
}

// geomBox is the bounding box of the triangles' centroids (at least one).
func geomBox(geom []triGeom) (mn, mx [3]float32) {
	c := &geom[0].c
	mnx, mny, mnz, mxx, mxy, mxz := c[0], c[1], c[2], c[0], c[1], c[2]
	for i := 1; i < len(geom); i++ {
		c := &geom[i].c
		mnx, mxx = minMax(c[0], mnx, mxx)
		mny, mxy = minMax(c[1], mny, mxy)
		mnz, mxz = minMax(c[2], mnz, mxz)
	}
	return [3]float32{mnx, mny, mnz}, [3]float32{mxx, mxy, mxz}
}

// reset prepares b for a build over indices (vertex ids < nv) with the
// triangles' geometry and the expected meshlet radius, reusing b's buffers
// from an earlier build (stamps stay valid: serial only grows).
func (b *builder) reset(indices []uint32, nv int, geom []triGeom, opts Options, radius float64) {
	n := len(indices) / 3
	b.idx, b.opts, b.geom = indices, opts, geom
	b.live = resize(b.live, nv)
	b.lastAlive = resize(b.lastAlive, nv)
	clear(b.lastAlive)
	b.emitted = resize(b.emitted, n)
	clear(b.emitted)
	b.remaining, b.nextFirst = n, 0
	b.kd, b.grid, b.poolReady, b.scanned = nil, nil, false, 0
	b.seeds = b.seeds[:0]
	b.local = resize(b.local, nv)
	for i := range b.local {
		b.local[i] = -1
	}
	b.tstate = growStamps(b.tstate, n)
	b.completes = growStamps(b.completes, nv)
	b.serial++
	b.verts, b.ltris, b.cands, b.far, b.ready = b.verts[:0], b.ltris[:0], b.cands[:0], b.far[:0], b.ready[:0]
	b.ncand, b.ndead, b.inexact = 0, 0, false
	b.sumC, b.sumN = [3]float64{}, [3]float64{}
	b.expectedRadius = radius
	b.minTris, b.splitDist = 0, 0
	if opts.SplitFactor > 0 {
		b.minTris = max(opts.MinTriangles, 1)
		b.splitDist = float64(opts.SplitFactor) * radius
	}
	// Vertex → triangle adjacency (CSR), one entry per corner.
	// Counts first (with lastAlive, an xor, in any order); the running
	// sum leaves adjOff[v] at the end of v's list, and the fill walks the
	// triangles backwards, moving it to the start, so every list holds
	// its triangles in increasing order.
	b.adjOff = resize(b.adjOff, nv+1)
	clear(b.adjOff)
	adjOff, lastAlive := b.adjOff[:nv+1], b.lastAlive[:nv]
	indices = indices[:3*n]
	for t := 0; t < n; t++ {
		tri := indices[3*t : 3*t+3 : 3*t+3]
		a, c1, c2 := tri[0], tri[1], tri[2]
		adjOff[a]++
		adjOff[c1]++
		adjOff[c2]++
		lastAlive[a] ^= uint32(t)
		lastAlive[c1] ^= uint32(t)
		lastAlive[c2] ^= uint32(t)
	}
	b.adjLen = resize(b.adjLen, nv)
	b.liveCls = resize(b.liveCls, nv)
	live, adjLen, cls := b.live[:nv], b.adjLen[:nv], b.liveCls[:nv]
	sum := uint32(0)
	for v := range live {
		c := adjOff[v]
		live[v], adjLen[v], cls[v] = c, c, liveClass(c)
		sum += c
		adjOff[v] = sum
	}
	adjOff[nv] = sum
	b.adjTri = resize(b.adjTri, len(indices))
	adjTri := b.adjTri[:len(indices)]
	for t := n - 1; t >= 0; t-- {
		tri := indices[3*t : 3*t+3 : 3*t+3]
		a, c1, c2 := tri[0], tri[1], tri[2]
		o := adjOff[a] - 1
		adjOff[a], adjTri[o] = o, uint32(t)
		o = adjOff[c1] - 1
		adjOff[c1], adjTri[o] = o, uint32(t)
		o = adjOff[c2] - 1
		adjOff[c2], adjTri[o] = o, uint32(t)
	}
}

// growStamps returns s with length n; entries it adds are zero, older ones
// are kept (they hold serials of finished builds, all below the next one).
func growStamps[T any](s []T, n int) []T {
	if cap(s) >= n {
		old := len(s)
		s = s[:n]
		if n > old {
			clear(s[old:])
		}
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// triState is a triangle's state in the meshlet numbered stamp; when
// stamp is not the current serial, every other field reads as zero (one
// record per triangle, so the growth loop touches one cache line per
// adjacent triangle instead of one per flag).
type triState struct {
	stamp  uint32
	inside uint8  // corners in the meshlet
	cand   bool   // in the candidate lists (cands or far)
	pos    uint16 // 1 + its index in cands, 0 when not there
}

// completion is a vertex's completion count and the meshlet it is for.
type completion struct {
	stamp, n uint32
}

// state returns triangle u's record for the current meshlet, cleared
// first when it belongs to an earlier one.
func (b *builder) state(u uint32) *triState {
	st := &b.tstate[u]
	if st.stamp != b.serial {
		*st = triState{stamp: b.serial}
	}
	return st
}

// run is the main loop: grow the current meshlet from its best adjacent
// candidate that fits; when candidates exist but none fits (or, in flex
// mode, the best is too far), close the meshlet and start the next one
// from the best seed; when the meshlet has no adjacent candidate at all,
// take the nearest unused triangle (k-d tree), closing the meshlet first if
// even that does not fit.
func (b *builder) run() {
	b.add(b.initialSeed())
	for b.remaining > 0 {
		fit := b.pick()
		if fit >= 0 && (b.splitDist == 0 || !b.splits(uint32(fit))) {
			b.add(uint32(fit))
			continue
		}
		fallback := fit
		if fit < 0 && !b.hasLiveCandidate() {
			// Spatial fallback: nothing adjacent is left; the nearest
			// unused triangle within reach joins if it fits.
			if t := b.nearestInReach(b.center()); t != noTriangle {
				if b.fits(t) && !b.splits(t) {
					b.add(t)
					continue
				}
				fallback = int32(t)
			}
		}
		b.collectSeeds()
		seed := b.selectSeed() // independent of the meshlet being closed
		if seed < 0 {
			seed = fallback
		}
		if seed < 0 {
			seed = b.bestAny()
		}
		if seed < 0 {
			// No seed on a used border and nothing within reach: the
			// nearest unused triangle anywhere starts the next meshlet.
			seed = int32(b.nearestUnused(b.center()))
		}
		b.flush()
		b.add(uint32(seed))
	}
	b.flush()
}

// hasLiveCandidate reports whether an unused triangle touches the meshlet
// (in either candidate list).
func (b *builder) hasLiveCandidate() bool {
	if len(b.cands) > b.ndead {
		return true
	}
	for _, u := range b.far {
		if !b.emitted[u] {
			return true
		}
	}
	return false
}

// splits reports whether flex mode closes the meshlet instead of adding t:
// the meshlet holds at least minTris triangles and t, which adds a vertex,
// lies farther than splitDist from the meshlet centroid.
func (b *builder) splits(t uint32) bool {
	if b.splitDist == 0 || len(b.ltris)/3 < b.minTris || b.newVertices(t) == 0 {
		return false
	}
	c := b.center()
	return dist2([3]float64{float64(c[0]), float64(c[1]), float64(c[2])}, b.geom[t].c) > float64(b.splitDist*b.splitDist)
}

// nearestInReach returns the unused triangle whose centroid is nearest q
// within fallbackReach expected radii (the lowest index on ties), or
// noTriangle; the grid is built on first use.
func (b *builder) nearestInReach(q [3]float32) uint32 {
	if b.grid == nil {
		b.grid = newCellGrid(b.geom, b.emitted, b.remaining, fallbackReach*b.expectedRadius, b.corner, b.farCorner)
	}
	return b.grid.nearest(q, b.geom, b.emitted)
}

// poolNearest returns the unused triangle whose centroid is nearest q
// with a squared distance of at most r2 (the lowest index on ties), or
// noTriangle. It scans the pool of unused triangles (built on first use,
// in index order), dropping the used ones it meets.
func (b *builder) poolNearest(q [3]float32, r2 float64) uint32 {
	if !b.poolReady {
		b.pool = b.pool[:0]
		for t, used := range b.emitted {
			if !used {
				b.pool = append(b.pool, uint32(t))
			}
		}
		b.poolReady = true
	}
	qd := [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
	b.scanned += len(b.pool)
	best, bestD := uint32(noTriangle), r2
	j := 0
	for _, t := range b.pool {
		if b.emitted[t] {
			continue
		}
		b.pool[j] = t
		j++
		if d := sqDist(qd[0], qd[1], qd[2], &b.geom[t].c); d < bestD || (d == bestD && best == noTriangle) {
			best, bestD = t, d
		}
	}
	b.pool = b.pool[:j]
	return best
}

// initialSeed is the triangle whose centroid is nearest the minimum corner
// of the centroids' box (b.corner, set with the box by the caller; first
// in input order on ties): starting in a corner lets meshlets sweep the
// surface instead of growing out from the middle and leaving slivers.
func (b *builder) initialSeed() uint32 {
	c := b.corner
	qx, qy, qz := float64(c[0]), float64(c[1]), float64(c[2])
	best, bestD := 0, math.Inf(1)
	geom := b.geom
	for i := range geom {
		if d := sqDist(qx, qy, qz, &geom[i].c); d < bestD {
			best, bestD = i, d
		}
	}
	return uint32(best)
}

// nearestUnused returns the unused triangle whose centroid is nearest q
// (the lowest index on ties, with or without the tree). The first queries
// scan: the fallback grid's rings outwards from q (it exists whenever run
// asks: nothing was within reach), or else every unused triangle; most
// meshes need a handful per part, far cheaper than a tree. Once the scans
// have visited kdAfterScans cells and points per triangle, the k-d tree
// is built over the triangles still unused, so scattered input stays
// O(n log n).
func (b *builder) nearestUnused(q [3]float32) uint32 {
	if b.kd == nil && b.scanned < kdAfterScans*len(b.emitted) {
		best := uint32(noTriangle)
		if b.grid != nil {
			// The fallback grid holds every unused triangle (it was
			// built before they were used): its ring scan meets the
			// nearest pieces first instead of visiting them all.
			var visited int
			best, visited = b.grid.nearestAny(q, b.geom, b.emitted)
			b.scanned += visited
		} else {
			best = b.poolNearest(q, math.Inf(1))
		}
		if best != noTriangle {
			return best
		}
		return b.firstUnused()
	}
	if b.kd == nil {
		b.kdPoint = resize(b.kdPoint, len(b.emitted))
		b.kdTri = b.kdTri[:0]
		pts := make([][3]float32, 0, b.remaining)
		for t, used := range b.emitted {
			b.kdPoint[t] = -1
			if !used {
				b.kdPoint[t] = int32(len(pts))
				b.kdTri = append(b.kdTri, uint32(t))
				pts = append(pts, b.geom[t].c)
			}
		}
		b.kd = newKDTree(pts)
	}
	if p := b.kd.nearest(q); p >= 0 {
		return b.kdTri[p]
	}
	return b.firstUnused()
}

// liveSum is how many unused triangles still touch t's corners (t counted
// once per corner): low means t sits in a corner of the unused region.
func (b *builder) liveSum(t uint32) uint32 {
	return b.live[b.idx[3*t]] + b.live[b.idx[3*t+1]] + b.live[b.idx[3*t+2]]
}

func (b *builder) cornerDist(t uint32) float64 {
	c := b.corner
	return sqDist(float64(c[0]), float64(c[1]), float64(c[2]), &b.geom[t].c)
}

// collectSeeds adds up to seedsPerMeshlet seed triangles from the border of
// the meshlet being closed: per meshlet vertex its unused triangle with the
// lowest liveSum, keeping the lowest (ties: nearest the corner). The pool is
// pruned of used triangles and capped at maxSeeds.
func (b *builder) collectSeeds() {
	j := 0
	for _, t := range b.seeds {
		if !b.emitted[t] {
			b.seeds[j] = t
			j++
		}
	}
	b.seeds = b.seeds[:min(j, maxSeeds-seedsPerMeshlet)]
	var best [seedsPerMeshlet]uint32
	var bestLive [seedsPerMeshlet]uint32
	var bestDist [seedsPerMeshlet]float64
	for i := range best {
		best[i], bestLive[i], bestDist[i] = noTriangle, math.MaxUint32, math.Inf(1)
	}
	for _, v := range b.verts {
		if b.live[v] == 0 {
			continue // nothing unused around v (its list need not be walked)
		}
		nb, nbLive := uint32(noTriangle), uint32(math.MaxUint32)
		for _, u := range b.aliveAdjacent(v) {
			if l := b.liveSum(u); l < nbLive {
				nb, nbLive = u, l
			}
		}
		if nb == noTriangle {
			continue
		}
		d := b.cornerDist(nb)
		for i := range best {
			if best[i] == nb {
				break
			}
			// Approximate replacement (the slots are unsorted), as meshoptimizer.
			if nbLive < bestLive[i] || (nbLive == bestLive[i] && d <= bestDist[i]) {
				best[i], bestLive[i], bestDist[i] = nb, nbLive, d
				break
			}
		}
	}
	for _, t := range best {
		if t != noTriangle {
			b.seeds = append(b.seeds, t)
		}
	}
}

// selectSeed returns the unused pool seed with the lowest liveSum (ties:
// nearest the corner, then first in the pool), or -1.
func (b *builder) selectSeed() int32 {
	best, bestLive, bestDist := int32(-1), uint32(math.MaxUint32), math.Inf(1)
	for _, t := range b.seeds {
		if b.emitted[t] {
			continue
		}
		l := b.liveSum(t)
		if l > bestLive {
			continue
		}
		if d := b.cornerDist(t); l < bestLive || d < bestDist {
			best, bestLive, bestDist = int32(t), l, d
		}
	}
	return best
}

func (b *builder) firstUnused() uint32 {
	for b.emitted[b.nextFirst] {
		b.nextFirst++
	}
	return uint32(b.nextFirst)
}

// newVertices counts the distinct corners of t not yet in the meshlet.
func (b *builder) newVertices(t uint32) int {
	i := 3 * int(t)
	tri := b.idx[i : i+3 : i+3]
	a, c1, c2 := tri[0], tri[1], tri[2]
	n := 0
	if b.local[a] < 0 {
		n++
	}
	if b.local[c1] < 0 && c1 != a {
		n++
	}
	if b.local[c2] < 0 && c2 != a && c2 != c1 {
		n++
	}
	return n
}

func (b *builder) fits(t uint32) bool {
	return len(b.ltris)/3 < b.opts.MaxTriangles && len(b.verts)+b.newVertices(t) <= b.opts.MaxVertices
}

// center is the meshlet centroid (mean of its triangle centroids).
func (b *builder) center() [3]float32 {
	inv := 1 / float64(len(b.ltris)/3)
	return [3]float32{float32(b.sumC[0] * inv), float32(b.sumC[1] * inv), float32(b.sumC[2] * inv)}
}

// axis is the normalised sum of the meshlet's triangle normals, or zero.
func (b *builder) axis() [3]float32 {
	s := b.sumN
	l := math.Sqrt(float64(s[0]*s[0]) + float64(s[1]*s[1]) + float64(s[2]*s[2]))
	if l == 0 {
		return [3]float32{}
	}
	return [3]float32{float32(s[0] / l), float32(s[1] / l), float32(s[2] / l)}
}

// pick returns the best candidate that fits, -1 when none does. Order:
// topological priority, then geometric score, then first found. A
// triangle that adds no vertex wins outright: those come off the ready
// stack in O(1) (the scan still finds any the stack missed because a
// vertex's list was capped). The scan computes priorities first and
// scores only the fitting candidates of the best priority.
func (b *builder) pick() int32 {
	triRoom := len(b.ltris)/3 < b.opts.MaxTriangles
	if !triRoom {
		return -1
	}
	for len(b.ready) > 0 {
		t := b.ready[len(b.ready)-1]
		b.ready = b.ready[:len(b.ready)-1]
		if !b.emitted[t] {
			return int32(t)
		}
	}
	room := b.opts.MaxVertices - len(b.verts)
	var t int32
	var sel []uint32
	near := true
	if b.inexact {
		b.compact()
		b.sel, t, b.ncand = b.scanExact(b.sel[:0], b.cands, room, false)
		sel = b.sel
	} else {
		var n int
		n, t = b.scanNear(room)
		sel = b.sel[:n]
	}
	if t < 0 && len(sel) == 0 {
		b.materializeFar()
		b.sel, t, _ = b.scanExact(b.sel[:0], b.farCands, room, true)
		sel = b.sel
		near = false
	}
	if t >= 0 {
		return t
	}
	list := b.cands
	if !near {
		list = b.farCands
	}
	switch len(sel) {
	case 0:
		return -1
	case 1:
		return int32(list[sel[0]].t)
	}
	// sc.score, inlined by hand: this loop runs for every step.
	sc := b.scorer()
	cx, cy, cz, invR := sc.c[0], sc.c[1], sc.c[2], sc.invR
	ax, ay, az, w, omw := sc.ax[0], sc.ax[1], sc.ax[2], sc.w, sc.omw
	completes, serial := b.completes, b.serial
	fit, fitScore := int32(-1), float32(0)
	for _, k := range sel {
		cd := &list[k]
		dx := float64(cd.g.c[0]) - cx
		dy := float64(cd.g.c[1]) - cy
		dz := float64(cd.g.c[2]) - cz
		d := float64(math.Sqrt(float64(dx*dx)+float64(dy*dy)+float64(dz*dz)) * invR)
		spread := float32(cd.g.n[0]*ax) + float32(cd.g.n[1]*ay) + float32(cd.g.n[2]*az)
		cone := 1 - float32(spread*w)
		if cone < minConeFactor {
			cone = minConeFactor
		}
		s := float32(1+float32(float32(d)*omw)) * cone
		if cd.inside == 2 {
			// One new vertex: discount, inlined.
			if c := completes[cd.w]; c.stamp == serial && c.n > 1 {
				s = float32(float64(s) / (1 + vertexGainWeight*float64(c.n-1)))
			}
		}
		if fit < 0 || s < fitScore {
			fit, fitScore = int32(cd.t), s
		}
	}
	return fit
}

// scanNear is pick's first pass over the near list: it collects into
// b.sel[:n] the fitting candidates of the best priority, ranked from the
// entries alone. A candidate that adds no vertex (one the ready stack
// missed) is returned as t (else t is -1). The list is compacted first
// when most of it is dead.
func (b *builder) scanNear(room int) (n int, t int32) {
	if b.ndead > 8 && 2*b.ndead > len(b.cands) {
		b.compact()
	}
	fitPrio := math.MaxInt
	nlive := 0
	cands, cls := b.cands, b.liveCls
	// sel has room for every entry, so the loop stores without append's
	// growth path (and the registers that path spills).
	if cap(b.sel) < len(cands) {
		b.sel = make([]uint32, 0, 2*len(cands))
	}
	sel := b.sel[:len(cands)]
	for i := range cands {
		cd := &cands[i]
		f := cd.flags
		if f&candDead != 0 {
			continue
		}
		nlive++
		nv := 3 - int(cd.inside)
		if nv == 0 {
			// Missed by the ready stack: take it now. The cap counts
			// the entries after it as the lazy list kept them.
			b.ncand = nlive - 1 + len(cands) - i - 1
			return 0, int32(cd.t)
		}
		if nv > room {
			continue
		}
		// priorityOf from the corners' live classes.
		k := uint(cls[cd.v[0]]) + uint(cls[cd.v[1]]) + uint(cls[cd.v[2]])
		prio := prioNewVertex + nv - int(k>>3&1)
		if k&3 != 0 {
			prio = prioDangling
		}
		if prio > fitPrio {
			continue
		}
		if prio < fitPrio {
			fitPrio, n = prio, 0
		}
		sel[n] = uint32(i)
		n++
	}
	b.ncand = nlive
	return n, -1
}

// compact drops the dead entries from cands, keeping the order, and
// renumbers the others' positions.
func (b *builder) compact() {
	if b.ndead == 0 {
		return
	}
	j := 0
	cands := b.cands
	for i := range cands {
		if cands[i].flags&candDead != 0 {
			continue
		}
		if i != j {
			cands[j] = cands[i]
			b.tstate[cands[j].t].pos = uint16(j + 1)
		}
		j++
	}
	b.cands = b.cands[:j]
	b.ndead = 0
}

// setDegenerate sets inside and w of degenerate candidate cd from its
// distinct corners (inside counts a repeated corner twice), so that
// 3-inside is its new vertex count as for any other candidate.
func (b *builder) setDegenerate(cd *cand) {
	nv, w := b.newCorner(cd.t)
	cd.inside, cd.w = uint8(3-nv), w
}

// newCorner returns how many distinct corners of t are not in the meshlet
// and, when that is one, which.
func (b *builder) newCorner(t uint32) (int, uint32) {
	i := 3 * int(t)
	tri := b.idx[i : i+3 : i+3]
	a, c1, c2 := tri[0], tri[1], tri[2]
	n, w := 0, uint32(0)
	if b.local[c2] < 0 && c2 != a && c2 != c1 {
		n, w = n+1, c2
	}
	if b.local[c1] < 0 && c1 != a {
		n, w = n+1, c1
	}
	if b.local[a] < 0 {
		n, w = n+1, a
	}
	return n, w
}

// scanExact is scanNear for a list whose entries are not kept up to
// date (farCands, or cands when inside may undercount): it ranks the
// unused entries from the mesh arrays, and sets the inside and w of each
// entry it selects from them (as scanNear finds them in the near list;
// nothing else reads them in either list). skipNear skips triangles that
// are also in cands. n is the count the near list's cap uses (see
// scanNear).
func (b *builder) scanExact(sel []uint32, cands []cand, room int, skipNear bool) (_ []uint32, t int32, n int) {
	live, emitted := b.live, b.emitted
	fitPrio := math.MaxInt
	for i := range cands {
		cd := &cands[i]
		if emitted[cd.t] {
			continue
		}
		n++
		if st := &b.tstate[cd.t]; skipNear && st.stamp == b.serial && st.pos != 0 {
			continue
		}
		nv, w := b.newCorner(cd.t)
		if nv == 0 {
			return sel, int32(cd.t), n - 1 + len(cands) - i - 1
		}
		if nv > room {
			continue
		}
		j := 3 * int(cd.t)
		tri := b.idx[j : j+3 : j+3]
		prio := priorityOf(live[tri[0]], live[tri[1]], live[tri[2]], nv)
		if prio > fitPrio {
			continue
		}
		if prio < fitPrio {
			fitPrio, sel = prio, sel[:0]
		}
		cd.inside, cd.w = uint8(3-nv), w
		sel = append(sel, uint32(i))
	}
	return sel, -1, n
}

// priority is the topological priority of candidate t that adds nv > 0
// vertices.
func (b *builder) priority(t uint32, nv int) int {
	i := 3 * int(t)
	tri := b.idx[i : i+3 : i+3]
	return priorityOf(b.live[tri[0]], b.live[tri[1]], b.live[tri[2]], nv)
}

// liveClass codes a live count for scanNear's priorities: 1 for 1, 4 for
// 2, 16 for more (0 for 0), so that the sum k of a triangle's three
// classes counts its corners with one live triangle in k&3 (dangling when
// not zero) and those with two in k>>2&3 (nearly dangling when at least
// 2: bit 3), as priorityOf distinguishes them.
func liveClass(l uint32) uint8 {
	return "\x00\x01\x04\x10"[min(l, 3)]
}

// priorityOf is priority for corners with live counts l0, l1, l2.
func priorityOf(l0, l1, l2 uint32, nv int) int {
	// Nearly dangling (two corners have one other triangle left) ranks one
	// step better; dangling (a corner has none) ranks prioDangling.
	nearly := b2i(b2i(l0 == 2)+b2i(l1 == 2)+b2i(l2 == 2) >= 2)
	dangling := b2i(l0 == 1 || l1 == 1 || l2 == 1)
	p := prioNewVertex + nv - nearly
	return p - (p-prioDangling)*dangling
}

// discount applies the completion bonus to score s of a candidate whose
// one new vertex is w: when w also completes other triangles, prefer it.
func (b *builder) discount(s float32, w uint32) float32 {
	if c := b.completes[w]; c.stamp == b.serial && c.n > 1 {
		return float32(float64(s) / (1 + vertexGainWeight*float64(c.n-1)))
	}
	return s
}

// bestAny returns the best live candidate whether it fits or not (same
// order as pick), -1 when the meshlet has none: the seed of last resort
// when a meshlet closes with an empty seed pool.
func (b *builder) bestAny() int32 {
	best, bestPrio, bestScore := int32(-1), math.MaxInt, float32(0)
	sc := b.scorer()
	b.materializeFar()
	for i := range len(b.cands) + len(b.farCands) {
		var cd *cand
		if i < len(b.cands) {
			cd = &b.cands[i]
		} else {
			cd = &b.farCands[i-len(b.cands)]
		}
		if b.emitted[cd.t] {
			continue
		}
		nv, w := b.newCorner(cd.t)
		prio := prioNoNewVertex
		if nv > 0 {
			prio = b.priority(cd.t, nv)
		}
		if prio > bestPrio {
			continue
		}
		s := sc.score(&cd.g)
		if nv == 1 {
			s = b.discount(s, w)
		}
		if prio < bestPrio || s < bestScore {
			best, bestPrio, bestScore = int32(cd.t), prio, s
		}
	}
	return best
}

// scorer holds what the geometric score needs of the meshlet, converted
// once per pick: its centroid (widened to float64), its axis, ConeWeight w
// and 1-w, and 1/expected radius.
type scorer struct {
	c      [3]float64
	ax     [3]float32
	w, omw float32
	invR   float64
}

// scorer returns the current meshlet's scorer: center and axis, written
// out in scalars (the same roundings).
func (b *builder) scorer() scorer {
	w := b.opts.ConeWeight
	inv := 1 / float64(len(b.ltris)/3)
	sc := scorer{
		c: [3]float64{
			float64(float32(b.sumC[0] * inv)),
			float64(float32(b.sumC[1] * inv)),
			float64(float32(b.sumC[2] * inv)),
		},
		w:    w,
		omw:  1 - w,
		invR: 1 / b.expectedRadius,
	}
	nx, ny, nz := b.sumN[0], b.sumN[1], b.sumN[2]
	if l := math.Sqrt(float64(nx*nx) + float64(ny*ny) + float64(nz*nz)); l != 0 {
		sc.ax = [3]float32{float32(nx / l), float32(ny / l), float32(nz / l)}
	}
	return sc
}

// score is meshoptimizer's geometric score of a triangle with geometry g:
// distance from the meshlet centroid in expected radii, discounted by
// ConeWeight, times a factor that favours normals close to the meshlet
// axis. Lower is better. Every product is rounded explicitly, so no fused
// multiply-add can change a choice.
func (sc *scorer) score(g *triGeom) float32 {
	dx := float64(g.c[0]) - sc.c[0]
	dy := float64(g.c[1]) - sc.c[1]
	dz := float64(g.c[2]) - sc.c[2]
	d := float64(math.Sqrt(float64(dx*dx)+float64(dy*dy)+float64(dz*dz)) * sc.invR)
	ax, tn := &sc.ax, &g.n
	spread := float32(tn[0]*ax[0]) + float32(tn[1]*ax[1]) + float32(tn[2]*ax[2])
	cone := 1 - float32(spread*sc.w)
	if cone < minConeFactor {
		cone = minConeFactor
	}
	return float32(1+float32(float32(d)*sc.omw)) * cone
}

// aliveAdjacent returns up to expandCap unused triangles around v,
// swap-removing the used ones it meets from v's list so later calls do not
// see them again (amortised O(1) per removal).
func (b *builder) aliveAdjacent(v uint32) []uint32 {
	off, n := b.adjOff[v], b.adjLen[v]
	lst := b.adjTri[off : off+n : off+n]
	emitted := b.emitted
	i := 0
	for i < len(lst) && i < expandCap {
		if emitted[lst[i]] {
			last := len(lst) - 1
			lst[i] = lst[last]
			lst = lst[:last]
			continue
		}
		i++
	}
	b.adjLen[v] = uint32(len(lst))
	return lst[:i]
}

// add appends triangle t to the current meshlet (the caller checked it fits).
func (b *builder) add(t uint32) {
	i := 3 * int(t) // int: uint32 arithmetic would need wraparound checks
	tri := b.idx[i : i+3 : i+3]
	a, c1, c2 := tri[0], tri[1], tri[2]
	// New corners join first, in corner order (addVertex reads only the
	// meshlet's vertices and the triangle states, not the live counts),
	// so the bookkeeping below runs without calls.
	if b.local[a] < 0 {
		b.addVertex(a)
	}
	if b.local[c1] < 0 {
		b.addVertex(c1)
	}
	if b.local[c2] < 0 {
		b.addVertex(c2)
	}
	local := b.local
	b.ltris = append(b.ltris, uint8(local[a]), uint8(local[c1]), uint8(local[c2]))
	live, lastAlive, cls := b.live, b.lastAlive, b.liveCls
	for _, v := range tri {
		l := live[v] - 1
		live[v] = l
		if l < 3 {
			cls[v] = liveClass(l)
		}
		lastAlive[v] ^= t
	}
	b.emitted[t] = true
	b.remaining--
	if st := &b.tstate[t]; st.stamp == b.serial && st.pos != 0 {
		b.cands[st.pos-1].flags |= candDead
		st.pos = 0
		b.ndead++
	}
	// A far candidate whose corner has no other unused triangle left is
	// about to dangle: pick must see it.
	for _, v := range tri {
		if live[v] == 1 {
			u := lastAlive[v]
			if st := &b.tstate[u]; st.stamp == b.serial && st.cand {
				b.promote(st, u)
			}
		}
	}
	if b.kd != nil {
		b.kd.remove(b.kdPoint[t])
	}
	g := &b.geom[t]
	b.sumC[0] += float64(g.c[0])
	b.sumC[1] += float64(g.c[1])
	b.sumC[2] += float64(g.c[2])
	b.sumN[0] += float64(g.n[0])
	b.sumN[1] += float64(g.n[1])
	b.sumN[2] += float64(g.n[2])
}

// addVertex adds vertex v to the meshlet (its local index is the next
// one) and records that it joined: each unused triangle around it has
// one more corner inside. At one it becomes a far candidate; at two its
// remaining corner would complete it (counted in completes) and it joins
// the near list; at three it is ready (adds no vertex). Near entries get
// their new corner count.
func (b *builder) addVertex(v uint32) {
	b.local[v] = int16(len(b.verts))
	b.verts = append(b.verts, v)
	tstate, emitted, serial := b.tstate, b.emitted, b.serial
	// aliveAdjacent, inlined by hand and fused with the loop: the alive
	// entries are handled in the order aliveAdjacent returns them.
	off, n := b.adjOff[v], b.adjLen[v]
	lst := b.adjTri[off : off+n : off+n]
	i := 0
	for i < len(lst) && i < expandCap {
		u := lst[i]
		if emitted[u] {
			last := len(lst) - 1
			lst[i] = lst[last]
			lst = lst[:last]
			continue
		}
		i++
		st := &tstate[u]
		if st.stamp != serial {
			*st = triState{stamp: serial}
		}
		st.inside++
		in := st.inside
		if st.pos != 0 {
			if cd := &b.cands[st.pos-1]; cd.flags&candDegenerate == 0 {
				cd.inside = in
			} else {
				b.setDegenerate(cd)
			}
		}
		switch in {
		case 1:
			st.cand = true
			if len(b.far) < maxCandidates {
				b.far = append(b.far, u)
			}
		case 2:
			j := 3 * int(u)
			tri := b.idx[j : j+3 : j+3]
			a, c1, c2 := tri[0], tri[1], tri[2]
			// w: the first corner not in the meshlet (none for a
			// triangle whose corners are all v).
			local := b.local
			w, out := a, local[a] < 0
			if !out {
				w, out = c1, local[c1] < 0
				if !out {
					w, out = c2, local[c2] < 0
				}
			}
			if out {
				c := &b.completes[w]
				if c.stamp != serial {
					*c = completion{stamp: serial}
				}
				c.n++
			}
			if st.pos != 0 {
				if out {
					b.cands[st.pos-1].w = w
				}
				continue
			}
			// promote, inlined.
			if b.ncand >= maxCandidates {
				continue
			}
			b.ncand++
			b.cands = append(b.cands, cand{t: u, v: [3]uint32{a, c1, c2}, g: b.geom[u], inside: 2, w: w})
			if a == c1 || a == c2 || c1 == c2 {
				cd := &b.cands[len(b.cands)-1]
				cd.flags = candDegenerate
				b.setDegenerate(cd)
			}
			st.pos = uint16(len(b.cands))
		case 3:
			b.ready = append(b.ready, u)
		}
	}
	b.adjLen[v] = uint32(len(lst))
	if i == expandCap && len(lst) > expandCap {
		b.inexact = true
	}
}

// materializeFar drops used triangles from far and fills farCands with
// the entries of the others, in order.
func (b *builder) materializeFar() {
	j := 0
	b.farCands = b.farCands[:0]
	for _, u := range b.far {
		if !b.emitted[u] {
			b.far[j] = u
			j++
			b.farCands = append(b.farCands, b.candidate(u))
		}
	}
	b.far = b.far[:j]
}

// candidate returns the far entry of triangle u.
func (b *builder) candidate(u uint32) cand {
	return cand{t: u, g: b.geom[u]}
}

// promote puts candidate u (st: its current record) into cands (once per
// meshlet) with its state. The cap counts entries as a list compacted at
// every scan holds them (ncand), so it does not depend on when dead
// entries are dropped.
func (b *builder) promote(st *triState, u uint32) {
	if st.pos != 0 || b.ncand >= maxCandidates {
		return
	}
	b.ncand++
	i := 3 * int(u)
	tri := b.idx[i : i+3 : i+3]
	a, c1, c2 := tri[0], tri[1], tri[2]
	cd := cand{t: u, v: [3]uint32{a, c1, c2}, g: b.geom[u], inside: st.inside}
	if a == c1 || a == c2 || c1 == c2 {
		cd.flags |= candDegenerate
		b.setDegenerate(&cd)
	} else if st.inside == 2 {
		_, cd.w = b.newCorner(u)
	}
	b.cands = append(b.cands, cd)
	st.pos = uint16(len(b.cands))
}

// flush closes the current meshlet: appends it to the result and resets
// the per-meshlet state. Triangles stay in the order they were added and
// local vertices are already numbered by first use (add numbers a vertex
// when its first triangle arrives), so no reorder or renumbering pass is
// needed: growth from adjacency already emits neighbouring triangles
// together (see doc.go for the measurement that retired the reorder).
func (b *builder) flush() {
	if len(b.ltris) == 0 {
		return
	}
	b.out.Meshlets = append(b.out.Meshlets, Meshlet{
		VertexOffset:   uint32(len(b.out.Vertices)),
		VertexCount:    uint32(len(b.verts)),
		TriangleOffset: uint32(len(b.out.Triangles) / 3),
		TriangleCount:  uint32(len(b.ltris) / 3),
	})
	b.out.Vertices = append(b.out.Vertices, b.verts...)
	b.out.Triangles = append(b.out.Triangles, b.ltris...)
	for _, v := range b.verts {
		b.local[v] = -1
	}
	b.verts = b.verts[:0]
	b.ltris = b.ltris[:0]
	b.cands = b.cands[:0]
	b.ncand, b.ndead, b.inexact = 0, 0, false
	b.far = b.far[:0]
	b.ready = b.ready[:0]
	b.serial++
	b.sumC = [3]float64{}
	b.sumN = [3]float64{}
}

// resize returns s with length n, reusing its storage when large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

func b2i(x bool) int {
	if x {
		return 1
	}
	return 0
}
