package hmesh

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/meshcook/meshcook/internal/par"
)

// Tolerances shared with tools/meshcheck.py, so that a file Validate accepts
// also passes the independent checker.
const (
	// boundsRelEps: vertices may lie this far (relative to the largest
	// |BNDS AABB coordinate|, at least 1) outside the mesh and submesh bounds.
	boundsRelEps = 1e-4
	// Meshlet spheres: |p - c| <= r*(1+sphereRelEps) + sphereAbsEps.
	sphereRelEps = 1e-4
	sphereAbsEps = 1e-5
	// coneAxisEps: an active cone's axis must be unit within this.
	coneAxisEps = 1e-3
	// coneDotEps: slack on dot(triangle normal, axis) >= sqrt(1 - cutoff²).
	coneDotEps = 1e-3
	// weightSumEps: skin weights must sum to 1 within this.
	weightSumEps = 1e-3
)

// validator checks one File. base maps a chunk to its absolute file offset
// when the File came from bytes (Decode), so errors carry exact offsets;
// it is nil for an in-memory File and errors then have Offset -1.
type validator struct {
	f    *File
	base map[FourCC]int64
}

func (v *validator) errf(id FourCC, rel int64, format string, args ...any) error {
	off := int64(-1)
	if b, ok := v.base[id]; ok {
		off = b + rel
	}
	return errAt(off, id, nil, format, args...)
}

// validateChunk is the element count of one parallel chunk of a check.
const validateChunk = 1 << 14

// firstError runs check over [0, n) in chunks of validateChunk, in
// parallel (up to GOMAXPROCS), and returns the error of the lowest chunk
// that failed: check returns the first failure of its range in order, so
// that is the error a loop in order would return first, whatever the core
// count. A chunk after a failing one may still run; checks only read.
func firstError(n int, check func(lo, hi int) error) error {
	if n <= validateChunk {
		return check(0, n)
	}
	errs := make([]error, (n+validateChunk-1)/validateChunk)
	par.Ranges(n, validateChunk, func(k, lo, hi int) { errs[k] = check(lo, hi) })
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Validate checks every count, range and index of f: DESC against the
// slices (see SyncDesc), the index width rule, indices < vertexCount,
// meshlet limits and ranges inside MLVR/MLTR, local indices < the meshlet's
// vertexCount, MLVR entries < vertexCount, meshlet spheres holding their
// vertices and normal cones that never cull a front face, submeshes tiling
// IDXS and MLET in order with their meshlets holding exactly their triangles
// (ValidateMeshletCoverage), material slots, finite floats, vertices inside
// BNDS and their submesh's bounds, skin weights and joint indices, joint
// parents preceding children, and LOD ranges. It never modifies f.
func Validate(f *File) error {
	if f == nil {
		return &FormatError{Offset: -1, Msg: "nil file"}
	}
	return validate(f, nil)
}

func validate(f *File, base map[FourCC]int64) error {
	v := &validator{f: f, base: base}
	for _, step := range []func() error{
		v.desc, v.bounds, v.vertices, v.indices, v.meshlets, v.submeshes,
		v.coverage, v.skin, v.joints, v.lods, v.morphs, v.clusterLOD,
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) desc() error {
	f, d := v.f, v.f.Desc
	counts := []struct {
		name  string
		rel   int64
		desc  uint32
		slice int
		what  string
	}{
		{"vertexCount", 0, d.VertexCount, len(f.Vertices), "vertices"},
		{"indexCount", 4, d.IndexCount, len(f.Indices), "indices"},
		{"meshletCount", 8, d.MeshletCount, len(f.Meshlets), "meshlets"},
		{"meshletCount", 8, d.MeshletCount, len(f.MeshletBounds), "meshlet bounds"},
		{"submeshCount", 12, d.SubmeshCount, len(f.Submeshes), "submeshes"},
		{"materialCount", 16, d.MaterialCount, len(f.Materials), "materials"},
	}
	for _, c := range counts {
		if uint64(c.slice) != uint64(c.desc) {
			return v.errf(ChunkDESC, c.rel, "%s %d but %d %s (call SyncDesc)", c.name, c.desc, c.slice, c.what)
		}
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"MLVR", len(f.MeshletVertices)}, {"MLTR", len(f.MeshletTriangles)}, {"LODI", len(f.LodIndices)}, {"LODT", len(f.Lods)}} {
		if uint64(c.n) > math.MaxUint32 {
			return v.errf(0, -1, "%s has %d entries, more than a u32 can count", c.name, c.n)
		}
	}
	if d.VertexStride != VertexSize {
		return v.errf(ChunkDESC, 20, "vertexStride %d, want %d", d.VertexStride, VertexSize)
	}
	if w := indexWidthFor(uint64(d.VertexCount)); d.IndexWidth != w {
		return v.errf(ChunkDESC, 22, "indexWidth %d for %d vertices, want %d", d.IndexWidth, d.VertexCount, w)
	}
	if d.MeshletMaxVerts < MinMeshletVerts || d.MeshletMaxVerts > MaxMeshletVerts {
		return v.errf(ChunkDESC, 24, "meshletMaxVerts %d outside [%d, %d]", d.MeshletMaxVerts, MinMeshletVerts, MaxMeshletVerts)
	}
	if d.MeshletMaxTris < MinMeshletTris || d.MeshletMaxTris > MaxMeshletTris {
		return v.errf(ChunkDESC, 28, "meshletMaxTris %d outside [%d, %d]", d.MeshletMaxTris, MinMeshletTris, MaxMeshletTris)
	}
	if d.IndexCount%3 != 0 {
		return v.errf(ChunkDESC, 4, "indexCount %d is not a multiple of 3", d.IndexCount)
	}
	return nil
}

func finite(xs ...float32) bool {
	for _, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

func boundsFinite(b Bounds) bool {
	return finite(b.Min[:]...) && finite(b.Max[:]...) && finite(b.Center[:]...) && finite(b.Radius)
}

// boundsEps is meshcheck's slack: 1e-4 × max(1, largest |BNDS AABB coordinate|).
func (v *validator) boundsEps() float64 {
	m := 1.0
	b := v.f.Bounds
	for k := range 3 {
		m = max(m, math.Abs(float64(b.Min[k])), math.Abs(float64(b.Max[k])))
	}
	return boundsRelEps * m
}

func dist(p, c [3]float32) float64 {
	dx, dy, dz := float64(p[0])-float64(c[0]), float64(p[1])-float64(c[1]), float64(p[2])-float64(c[2])
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// inside reports whether p lies in b's AABB and sphere, with slack eps.
func inside(p [3]float32, b Bounds, eps float64) bool {
	for k := range 3 {
		if float64(p[k]) < float64(b.Min[k])-eps || float64(p[k]) > float64(b.Max[k])+eps {
			return false
		}
	}
	return dist(p, b.Center) <= float64(b.Radius)+eps
}

func (v *validator) bounds() error {
	if !boundsFinite(v.f.Bounds) {
		return v.errf(ChunkBNDS, 0, "bounds not finite")
	}
	if v.f.Bounds.Radius < 0 {
		return v.errf(ChunkBNDS, 36, "negative sphere radius %g", v.f.Bounds.Radius)
	}
	return nil
}

func (v *validator) vertices() error {
	eps := v.boundsEps()
	return firstError(len(v.f.Vertices), func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			x := &v.f.Vertices[i]
			rel := int64(i) * VertexSize
			if !finite(x.Position[:]...) || !finite(x.UV[:]...) {
				return v.errf(ChunkVTXS, rel, "vertex %d not finite", i)
			}
			if !inside(x.Position, v.f.Bounds, eps) {
				return v.errf(ChunkVTXS, rel, "vertex %d %v outside BNDS", i, x.Position)
			}
		}
		return nil
	})
}

func (v *validator) indices() error {
	vc := uint32(len(v.f.Vertices))
	w := int64(v.f.Desc.IndexWidth)
	return firstError(len(v.f.Indices), func(lo, hi int) error {
		for i, x := range v.f.Indices[lo:hi] {
			if x >= vc {
				return v.errf(ChunkIDXS, int64(lo+i)*w, "index %d is %d, not < vertexCount %d", lo+i, x, vc)
			}
		}
		return nil
	})
}

func (v *validator) meshlets() error {
	f := v.f
	vc := uint32(len(f.Vertices))
	err := firstError(len(f.MeshletVertices), func(lo, hi int) error {
		for i, x := range f.MeshletVertices[lo:hi] {
			if x >= vc {
				return v.errf(ChunkMLVR, 4*int64(lo+i), "entry %d is %d, not < vertexCount %d", lo+i, x, vc)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(f.MeshletTriangles)%3 != 0 {
		return v.errf(ChunkMLTR, 0, "%d bytes is not a whole number of triangles", len(f.MeshletTriangles))
	}
	// Meshlets go 64 to an element of firstError: one is up to a few
	// hundred vertices and triangles of work.
	return firstError((len(f.Meshlets)+63)/64, func(lo, hi int) error {
		for k := lo * 64; k < min(hi*64, len(f.Meshlets)); k++ {
			if err := v.meshlet(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// meshlet checks meshlet k: limits, ranges, local indices, bounds.
func (v *validator) meshlet(k int) error {
	f := v.f
	nTris := uint64(len(f.MeshletTriangles) / 3)
	maxV, maxT := f.Desc.MeshletMaxVerts, f.Desc.MeshletMaxTris
	m := f.Meshlets[k]
	rel := int64(k) * MeshletSize
	switch {
	case m.VertexCount < 1 || m.VertexCount > maxV:
		return v.errf(ChunkMLET, rel, "meshlet %d: %d vertices, want 1..%d", k, m.VertexCount, maxV)
	case m.TriangleCount < 1 || m.TriangleCount > maxT:
		return v.errf(ChunkMLET, rel, "meshlet %d: %d triangles, want 1..%d", k, m.TriangleCount, maxT)
	case uint64(m.VertexOffset)+uint64(m.VertexCount) > uint64(len(f.MeshletVertices)):
		return v.errf(ChunkMLET, rel, "meshlet %d: vertex range [%d, +%d) past MLVR (%d entries)", k, m.VertexOffset, m.VertexCount, len(f.MeshletVertices))
	case uint64(m.TriangleOffset)+uint64(m.TriangleCount) > nTris:
		return v.errf(ChunkMLET, rel, "meshlet %d: triangle range [%d, +%d) past MLTR (%d triangles)", k, m.TriangleOffset, m.TriangleCount, nTris)
	}
	t0 := int(m.TriangleOffset) * 3
	for j, l := range f.MeshletTriangles[t0 : t0+int(m.TriangleCount)*3] {
		if uint32(l) >= m.VertexCount {
			return v.errf(ChunkMLTR, int64(t0+j), "meshlet %d: local index %d not < its vertexCount %d", k, l, m.VertexCount)
		}
	}
	return v.meshletBounds(k, m)
}

// meshletBounds checks meshlet k's sphere holds its vertices and its normal
// cone, when active (cutoff < 1), never culls a front-facing triangle: for a
// camera far away in direction d the apex-free test culls when
// dot(-d, axis) >= cutoff, so every triangle normal n must satisfy
// dot(n, axis) >= sqrt(1 - cutoff²) (and cutoff must not be negative).
func (v *validator) meshletBounds(k int, m Meshlet) error {
	f := v.f
	verts := f.MeshletVertices[m.VertexOffset : m.VertexOffset+m.VertexCount]
	tris := f.MeshletTriangles[m.TriangleOffset*3 : (m.TriangleOffset+m.TriangleCount)*3]
	return v.clusterBounds(ChunkMLBN, int64(k)*MeshletBoundsSize, "meshlet", k, f.MeshletBounds[k], verts, tris)
}

// clusterBounds checks one meshlet's (or cluster's) sphere and cone
// against its vertices (global ids) and local triangles; rel is the
// record's offset in chunk id.
func (v *validator) clusterBounds(id FourCC, rel int64, what string, k int, b MeshletBounds, verts []uint32, tris []uint8) error {
	f := v.f
	if !finite(b.Center[:]...) || !finite(b.Radius) || !finite(b.ConeAxis[:]...) || !finite(b.ConeCutoff) || b.Radius < 0 {
		return v.errf(id, rel, "%s %d: bounds not finite or negative radius", what, k)
	}
	r := float64(b.Radius)
	for _, g := range verts {
		if dist(f.Vertices[g].Position, b.Center) > r*(1+sphereRelEps)+sphereAbsEps {
			return v.errf(id, rel, "%s %d: vertex %d outside its bounding sphere", what, k, g)
		}
	}
	cut := float64(b.ConeCutoff)
	if cut >= 1 {
		return nil
	}
	a := [3]float64{float64(b.ConeAxis[0]), float64(b.ConeAxis[1]), float64(b.ConeAxis[2])}
	if l := math.Sqrt(a[0]*a[0] + a[1]*a[1] + a[2]*a[2]); math.Abs(l-1) >= coneAxisEps {
		return v.errf(id, rel+16, "%s %d: cone axis length %g, want 1", what, k, l)
	}
	need := math.Inf(1)
	if cut >= 0 {
		need = math.Sqrt(1-cut*cut) - coneDotEps
	}
	degenerate := 1e-12 * max(1, r*r)
	for t := range len(tris) / 3 {
		tri := tris[3*t : 3*t+3]
		p0 := f.Vertices[verts[tri[0]]].Position
		p1 := f.Vertices[verts[tri[1]]].Position
		p2 := f.Vertices[verts[tri[2]]].Position
		var e1, e2 [3]float64
		for j := range 3 {
			e1[j] = float64(p1[j]) - float64(p0[j])
			e2[j] = float64(p2[j]) - float64(p0[j])
		}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		ln := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if !(ln > degenerate) {
			continue
		}
		if dot := (n[0]*a[0] + n[1]*a[1] + n[2]*a[2]) / ln; dot < need {
			return v.errf(id, rel+28, "%s %d: cone (cutoff %g) culls triangle %d from cameras it faces (normal·axis %.4f)", what, k, cut, t, dot)
		}
	}
	return nil
}

func (v *validator) submeshes() error {
	f := v.f
	eps := v.boundsEps()
	var nextIndex, nextMeshlet uint64
	for s, sm := range f.Submeshes {
		rel := int64(s) * SubMeshSize
		switch {
		case uint64(sm.FirstIndex) != nextIndex:
			return v.errf(ChunkSUBM, rel, "submesh %d: firstIndex %d leaves a gap or overlap (want %d)", s, sm.FirstIndex, nextIndex)
		case uint64(sm.FirstMeshlet) != nextMeshlet:
			return v.errf(ChunkSUBM, rel+8, "submesh %d: firstMeshlet %d leaves a gap or overlap (want %d)", s, sm.FirstMeshlet, nextMeshlet)
		case sm.IndexCount%3 != 0:
			return v.errf(ChunkSUBM, rel+4, "submesh %d: indexCount %d not a multiple of 3", s, sm.IndexCount)
		case uint64(sm.FirstIndex)+uint64(sm.IndexCount) > uint64(len(f.Indices)):
			return v.errf(ChunkSUBM, rel+4, "submesh %d: index range past IDXS (%d indices)", s, len(f.Indices))
		case uint64(sm.FirstMeshlet)+uint64(sm.MeshletCount) > uint64(len(f.Meshlets)):
			return v.errf(ChunkSUBM, rel+12, "submesh %d: meshlet range past MLET (%d meshlets)", s, len(f.Meshlets))
		case sm.MaterialSlot != NoMaterial && uint64(sm.MaterialSlot) >= uint64(len(f.Materials)):
			return v.errf(ChunkSUBM, rel+16, "submesh %d: materialSlot %d not < materialCount %d", s, sm.MaterialSlot, len(f.Materials))
		case sm.BaseVertex != 0:
			return v.errf(ChunkSUBM, rel+20, "submesh %d: baseVertex %d, must be 0 in v2", s, sm.BaseVertex)
		case !boundsFinite(sm.Bounds) || sm.Bounds.Radius < 0:
			return v.errf(ChunkSUBM, rel+24, "submesh %d: bounds not finite or negative radius", s)
		}
		idx := f.Indices[sm.FirstIndex : sm.FirstIndex+sm.IndexCount]
		err := firstError(len(idx), func(lo, hi int) error {
			for _, i := range idx[lo:hi] {
				if !inside(f.Vertices[i].Position, sm.Bounds, eps) {
					return v.errf(ChunkSUBM, rel+24, "submesh %d: vertex %d outside its bounds", s, i)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		nextIndex += uint64(sm.IndexCount)
		nextMeshlet += uint64(sm.MeshletCount)
	}
	if nextIndex != uint64(len(f.Indices)) || nextMeshlet != uint64(len(f.Meshlets)) {
		return v.errf(ChunkSUBM, 0, "submeshes cover %d of %d indices and %d of %d meshlets", nextIndex, len(f.Indices), nextMeshlet, len(f.Meshlets))
	}
	return nil
}

// ValidateMeshletCoverage checks that each submesh's meshlets hold exactly
// the submesh's triangles: the same multiset of triangles, each compared as
// its sorted vertex triple (winding and rotation are free). It runs in
// O(n log n) and is safe on any File: out-of-range references are errors.
func ValidateMeshletCoverage(f *File) error {
	if f == nil {
		return &FormatError{Offset: -1, Msg: "nil file"}
	}
	return (&validator{f: f}).coverage()
}

type tri [3]uint32

func sortedTri(a, b, c uint32) tri {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b, c = c, b
	}
	if a > b {
		a, b = b, a
	}
	return tri{a, b, c}
}

// sortTris sorts ts (each sorted within, corners below vertexCount) in
// cmpTri order: a counting sort by the smallest corner into scratch, then
// each run of equal smallest corners by the other two, which is linear in
// the triangle count for meshes of bounded valence where a comparison sort
// is O(n log n). It returns the sorted slice and the spare buffer.
func sortTris(ts, scratch []tri, vertexCount int) (sorted, spare []tri) {
	for _, t := range ts {
		if int(t[2]) >= vertexCount {
			slices.SortFunc(ts, cmpTri) // not reached after v.indices
			return ts, scratch
		}
	}
	start := make([]uint32, vertexCount+1)
	for _, t := range ts {
		start[t[0]+1]++
	}
	for i := 1; i <= vertexCount; i++ {
		start[i] += start[i-1]
	}
	scratch = slices.Grow(scratch[:0], len(ts))[:len(ts)]
	for _, t := range ts {
		scratch[start[t[0]]] = t
		start[t[0]]++
	}
	sortRuns(scratch)
	return scratch, ts
}

// bucketTris is sortTris without the unsorted copy: it returns the count
// triangles each yields (each sorted within, every corner below
// vertexCount) in cmpTri order, counted by smallest corner on a first
// call of each and placed straight into dst's memory on a second.
func bucketTris(dst []tri, count, vertexCount int, each func(put func(tri))) []tri {
	start := make([]uint32, vertexCount+1)
	each(func(t tri) { start[t[0]+1]++ })
	for i := 1; i <= vertexCount; i++ {
		start[i] += start[i-1]
	}
	dst = slices.Grow(dst[:0], count)[:count]
	each(func(t tri) {
		dst[start[t[0]]] = t
		start[t[0]]++
	})
	sortRuns(dst)
	return dst
}

// sortRuns sorts each run of one smallest corner of ts, which is ordered
// by smallest corner, by the other two.
func sortRuns(ts []tri) {
	lo := 0
	for lo < len(ts) {
		hi := lo + 1
		for hi < len(ts) && ts[hi][0] == ts[lo][0] {
			hi++
		}
		if run := ts[lo:hi]; len(run) > 1 {
			sortRun(run)
		}
		lo = hi
	}
}

// sortRun sorts one run of sortTris in cmpTri order: by insertion when it
// is short, as nearly all are (a vertex is the smallest corner of a few
// triangles), where slices.SortFunc's call and set-up cost more than the
// sort. Equal triangles are equal values, so the result is the same
// either way.
func sortRun(run []tri) {
	if len(run) > 12 {
		slices.SortFunc(run, cmpTri)
		return
	}
	for i := 1; i < len(run); i++ {
		t := run[i]
		j := i
		for ; j > 0 && (run[j-1][1] > t[1] || run[j-1][1] == t[1] && run[j-1][2] > t[2]); j-- {
			run[j] = run[j-1]
		}
		run[j] = t
	}
}

func cmpTri(x, y tri) int {
	if c := cmp.Compare(x[0], y[0]); c != 0 {
		return c
	}
	if c := cmp.Compare(x[1], y[1]); c != 0 {
		return c
	}
	return cmp.Compare(x[2], y[2])
}

func (v *validator) coverage() error {
	f := v.f
	var want, got []tri
	var spare [2][]tri // sortTris's buffers, one per side
	for s, sm := range f.Submeshes {
		rel := int64(s) * SubMeshSize
		ie := uint64(sm.FirstIndex) + uint64(sm.IndexCount)
		me := uint64(sm.FirstMeshlet) + uint64(sm.MeshletCount)
		if ie > uint64(len(f.Indices)) || me > uint64(len(f.Meshlets)) || sm.IndexCount%3 != 0 {
			return v.errf(ChunkSUBM, rel, "submesh %d: range past IDXS or MLET", s)
		}
		// The index side (which cannot fail) is gathered and sorted on
		// another goroutine while this one does the meshlet side, for
		// submeshes big enough to pay for it. Each side is bucket-sorted
		// in place (bucketTris) when its corners are in range, as they are
		// after v.indices and v.meshlets, and gathered then sorted
		// otherwise (ValidateMeshletCoverage on a bad File).
		idx := f.Indices[sm.FirstIndex:ie]
		wantSide := func() {
			if !slices.ContainsFunc(idx, func(i uint32) bool { return int(i) >= len(f.Vertices) }) {
				want = bucketTris(want, len(idx)/3, len(f.Vertices), func(put func(tri)) {
					for t := 0; t < len(idx); t += 3 {
						put(sortedTri(idx[t], idx[t+1], idx[t+2]))
					}
				})
				return
			}
			want = slices.Grow(want[:0], len(idx)/3)
			for t := 0; t < len(idx); t += 3 {
				want = append(want, sortedTri(idx[t], idx[t+1], idx[t+2]))
			}
			want, spare[0] = sortTris(want, spare[0], len(f.Vertices))
		}
		var wg sync.WaitGroup
		if len(idx) > 3*validateChunk {
			wg.Go(wantSide)
		} else {
			wantSide()
		}
		n, inRange, err := v.meshletTriCount(sm.FirstMeshlet, me)
		switch {
		case err != nil:
		case inRange:
			got = bucketTris(got, n, len(f.Vertices), func(put func(tri)) { v.eachMeshletTri(sm.FirstMeshlet, me, put) })
		default:
			got, err = v.meshletTris(got[:0], sm.FirstMeshlet, me)
			if err == nil {
				got, spare[1] = sortTris(got, spare[1], len(f.Vertices))
			}
		}
		wg.Wait()
		if err != nil {
			return err
		}
		if len(want) != len(got) {
			return v.errf(ChunkSUBM, rel, "submesh %d: its meshlets hold %d triangles, its index range %d", s, len(got), len(want))
		}
		for i := range want {
			if want[i] != got[i] {
				return v.errf(ChunkSUBM, rel, "submesh %d: its meshlets do not hold exactly its triangles (first difference: indices %v, meshlets %v)", s, want[i], got[i])
			}
		}
	}
	return nil
}

// meshletTriCount checks meshlets [first, end) as meshletTris does
// (the same first error) and counts their triangles; inRange reports
// whether every MLVR entry they use is below vertexCount.
func (v *validator) meshletTriCount(first uint32, end uint64) (n int, inRange bool, err error) {
	f := v.f
	inRange = true
	for k := uint64(first); k < end; k++ {
		m := f.Meshlets[k]
		ve := uint64(m.VertexOffset) + uint64(m.VertexCount)
		te := 3 * (uint64(m.TriangleOffset) + uint64(m.TriangleCount))
		if ve > uint64(len(f.MeshletVertices)) || te > uint64(len(f.MeshletTriangles)) {
			return 0, false, v.errf(ChunkMLET, int64(k)*MeshletSize, "meshlet %d: range past MLVR or MLTR", k)
		}
		verts := f.MeshletVertices[m.VertexOffset:ve]
		for _, l := range f.MeshletTriangles[3*uint64(m.TriangleOffset) : te] {
			if int(l) >= len(verts) {
				return 0, false, v.errf(ChunkMLET, int64(k)*MeshletSize, "meshlet %d: local index past its vertexCount", k)
			}
		}
		if inRange && slices.ContainsFunc(verts, func(g uint32) bool { return int(g) >= len(f.Vertices) }) {
			inRange = false
		}
		n += int(m.TriangleCount)
	}
	return n, inRange, nil
}

// eachMeshletTri calls put with each triangle of meshlets [first, end),
// as its sorted vertex triple; meshletTriCount has checked them.
func (v *validator) eachMeshletTri(first uint32, end uint64, put func(tri)) {
	f := v.f
	for k := uint64(first); k < end; k++ {
		m := f.Meshlets[k]
		verts := f.MeshletVertices[m.VertexOffset : uint64(m.VertexOffset)+uint64(m.VertexCount)]
		local := f.MeshletTriangles[3*uint64(m.TriangleOffset) : 3*(uint64(m.TriangleOffset)+uint64(m.TriangleCount))]
		for t := 0; t < len(local); t += 3 {
			put(sortedTri(verts[local[t]], verts[local[t+1]], verts[local[t+2]]))
		}
	}
}

// meshletTris appends the triangles of meshlets [first, end), each as its
// sorted vertex triple, to got.
func (v *validator) meshletTris(got []tri, first uint32, end uint64) ([]tri, error) {
	f := v.f
	// Presized: the meshlets' triangle counts, bounded by MLTR's size (a
	// bad count fails below).
	n := 0
	for k := uint64(first); k < end; k++ {
		n += int(f.Meshlets[k].TriangleCount)
	}
	got = slices.Grow(got, min(n, len(f.MeshletTriangles)/3))
	for k := uint64(first); k < end; k++ {
		m := f.Meshlets[k]
		ve := uint64(m.VertexOffset) + uint64(m.VertexCount)
		te := 3 * (uint64(m.TriangleOffset) + uint64(m.TriangleCount))
		if ve > uint64(len(f.MeshletVertices)) || te > uint64(len(f.MeshletTriangles)) {
			return got, v.errf(ChunkMLET, int64(k)*MeshletSize, "meshlet %d: range past MLVR or MLTR", k)
		}
		verts := f.MeshletVertices[m.VertexOffset:ve]
		local := f.MeshletTriangles[3*uint64(m.TriangleOffset) : te]
		for t := 0; t < len(local); t += 3 {
			a, b, c := local[t], local[t+1], local[t+2]
			if int(a) >= len(verts) || int(b) >= len(verts) || int(c) >= len(verts) {
				return got, v.errf(ChunkMLET, int64(k)*MeshletSize, "meshlet %d: local index past its vertexCount", k)
			}
			got = append(got, sortedTri(verts[a], verts[b], verts[c]))
		}
	}
	return got, nil
}

func (v *validator) skin() error {
	f := v.f
	if f.Skin == nil {
		return nil
	}
	if len(f.Skin) != len(f.Vertices) {
		return v.errf(ChunkSKIN, 0, "%d skin vertices for %d vertices", len(f.Skin), len(f.Vertices))
	}
	if f.Joints == nil {
		return v.errf(ChunkSKIN, 0, "SKIN without SKEL")
	}
	nj := len(f.Joints)
	for i, s := range f.Skin {
		rel := int64(i) * SkinVertexSize
		for _, j := range s.Joints {
			if int(j) >= nj {
				return v.errf(ChunkSKIN, rel, "skin vertex %d: joint %d not < jointCount %d", i, j, nj)
			}
		}
		if !finite(s.Weights[:]...) {
			return v.errf(ChunkSKIN, rel+8, "skin vertex %d: weights not finite", i)
		}
		sum := 0.0
		for _, w := range s.Weights {
			if w < 0 {
				return v.errf(ChunkSKIN, rel+8, "skin vertex %d: negative weight %g", i, w)
			}
			sum += float64(w)
		}
		if math.Abs(sum-1) >= weightSumEps {
			return v.errf(ChunkSKIN, rel+8, "skin vertex %d: weights sum to %g, want 1", i, sum)
		}
	}
	return nil
}

func (v *validator) joints() error {
	for j, x := range v.f.Joints {
		rel := int64(j) * JointSize
		if x.Parent < -1 || int64(x.Parent) >= int64(j) {
			return v.errf(ChunkSKEL, rel+104, "joint %d: parent %d must be -1 or precede it", j, x.Parent)
		}
		if !finite(x.InverseBind[:]...) || !finite(x.BindT[:]...) || !finite(x.BindR[:]...) || !finite(x.BindS[:]...) {
			return v.errf(ChunkSKEL, rel, "joint %d: not finite", j)
		}
	}
	return nil
}

func (v *validator) lods() error {
	f := v.f
	if !f.hasLods() {
		return nil
	}
	sc := uint64(len(f.Submeshes))
	if want := uint64(f.LodCount) * sc; uint64(len(f.Lods)) != want {
		return v.errf(ChunkLODT, 0, "%d LOD rows, want lodCount %d × submeshCount %d", len(f.Lods), f.LodCount, sc)
	}
	vc := uint32(len(f.Vertices))
	err := firstError(len(f.LodIndices), func(lo, hi int) error {
		for i, x := range f.LodIndices[lo:hi] {
			if x >= vc {
				return v.errf(ChunkLODI, 4*int64(lo+i), "entry %d is %d, not < vertexCount %d", lo+i, x, vc)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	lc := uint64(f.LodCount)
	for s := range sc {
		prev := f.Submeshes[s].IndexCount
		for l := range lc {
			row := s*lc + l
			x := f.Lods[row]
			rel := LodHeaderSize + MeshLodSize*int64(row)
			if x.IndexCount%3 != 0 || uint64(x.FirstIndex)+uint64(x.IndexCount) > uint64(len(f.LodIndices)) {
				return v.errf(ChunkLODT, rel, "LOD %d of submesh %d: range [%d, +%d) past LODI (%d entries) or not whole triangles", l+1, s, x.FirstIndex, x.IndexCount, len(f.LodIndices))
			}
			if x.IndexCount == 0 {
				continue // stalled: reuse the previous level
			}
			if x.IndexCount > prev {
				return v.errf(ChunkLODT, rel, "LOD %d of submesh %d has %d indices, more than the level before (%d)", l+1, s, x.IndexCount, prev)
			}
			prev = x.IndexCount
		}
	}
	return nil
}

// String summarizes d on one line.
func (d Desc) String() string {
	return fmt.Sprintf("vertices=%d indices=%d meshlets=%d submeshes=%d materials=%d stride=%d indexWidth=%d flags=%#x meshletMax=%d/%d",
		d.VertexCount, d.IndexCount, d.MeshletCount, d.SubmeshCount, d.MaterialCount, d.VertexStride, d.IndexWidth, d.Flags, d.MeshletMaxVerts, d.MeshletMaxTris)
}
