package meshlet

import (
	"context"
	"math"

	"github.com/meshcook/meshcook/internal/par"
)

// Bounds constants.
const (
	// coneMinSpread is meshoptimizer's limit: when min dot(normal, axis) <=
	// 0.1 (some normal is more than ~84° off the axis) the cone could cull
	// almost nothing and is disabled (cutoff 1).
	coneMinSpread = 0.1
	// coneSafety widens the cone (subtracts from min dot) to absorb the
	// float32 rounding of axis, cutoff and sphere, so the stored cone stays
	// conservative. It costs under 0.3° of cone on flat meshlets.
	coneSafety = 1e-5
	// coneAverageNear: the normal average is tried as the cone axis only
	// when the normals' ball gives a min dot above 1-coneAverageNear (a
	// cone under 0.8°) (see normalCone).
	coneAverageNear = 1e-4
)

// Bounds are a meshlet's culling data, as MLBN stores them (plus the apex).
type Bounds struct {
	// Center and Radius: a sphere containing every vertex of the meshlet,
	// measured in float64 from the float32 values stored here.
	Center [3]float32
	Radius float32
	// ConeApex, ConeAxis, ConeCutoff: the normal cone. When ConeCutoff < 1
	// the axis is unit length and, for any camera position cam with
	//   dot(Center-cam, ConeAxis) >= ConeCutoff*|Center-cam| + Radius,
	// every non-degenerate triangle of the meshlet faces away from cam
	// (counter-clockwise front faces). With the apex the test is
	//   dot(normalize(ConeApex-cam), ConeAxis) >= ConeCutoff.
	// ConeCutoff == 1 means no cone (axis and apex are zero).
	ConeApex   [3]float32
	ConeAxis   [3]float32
	ConeCutoff float32
}

// boundsScratch holds buffers reused across meshlets.
type boundsScratch struct {
	pts, tmp, normals [][3]float64
	corners           [][3]float64 // first corner of each non-degenerate triangle
	shuffle           shuffleCache
}

// ComputeAllBounds returns ComputeBounds for every meshlet of r, in order.
func ComputeAllBounds(r Result, positions [][3]float32) []Bounds {
	out, _ := ComputeAllBoundsContext(context.Background(), r, positions)
	return out
}

// ComputeAllBoundsContext is ComputeAllBounds that stops when ctx is
// done, with nil and an error wrapping ctx.Err(); it checks ctx before
// each chunk of boundsChunk meshlets.
func ComputeAllBoundsContext(ctx context.Context, r Result, positions [][3]float32) ([]Bounds, error) {
	out := make([]Bounds, len(r.Meshlets))
	// Meshlets are independent: chunks of them on up to GOMAXPROCS
	// goroutines, each with its own scratch.
	par.Ranges(len(r.Meshlets), boundsChunk, func(_, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		var sc boundsScratch
		for m := lo; m < hi; m++ {
			out[m] = computeBounds(r, m, positions, &sc)
		}
	})
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

// boundsChunk is the meshlet count of one parallel chunk of bounds.
const boundsChunk = 512

// ComputeBounds returns the bounding sphere and normal cone of meshlet m of
// r (meshopt_computeMeshletBounds semantics, with the minimum sphere and the
// tightest cone axis; see Bounds). Zero-area triangles are left out of the
// cone. m out of range, ranges of r that point past its slices or past
// positions, or a non-finite vertex position give zero Bounds rather than
// a panic or garbage: r is expected to come from Build over the same
// positions (which Build has checked).
func ComputeBounds(r Result, m int, positions [][3]float32) Bounds {
	var sc boundsScratch
	return computeBounds(r, m, positions, &sc)
}

func computeBounds(r Result, m int, positions [][3]float32, sc *boundsScratch) Bounds {
	if m < 0 || m >= len(r.Meshlets) {
		return Bounds{}
	}
	ml := r.Meshlets[m]
	vo, vn := uint64(ml.VertexOffset), uint64(ml.VertexCount)
	to, tn := uint64(ml.TriangleOffset), uint64(ml.TriangleCount)
	if vo+vn > uint64(len(r.Vertices)) || 3*(to+tn) > uint64(len(r.Triangles)) {
		return Bounds{}
	}
	// The points widened to float64, stored by index into a buffer
	// sized once (append's growth path spilled the loop's registers).
	sc.pts = resize(sc.pts, int(vn))
	pts := sc.pts[:vn]
	for i, v := range r.Vertices[vo : vo+vn] {
		if uint64(v) >= uint64(len(positions)) {
			return Bounds{}
		}
		p := &positions[v]
		x, y, z := p[0], p[1], p[2]
		// x-x is 0 exactly for finite x and NaN otherwise (finite32).
		if x-x != 0 || y-y != 0 || z-z != 0 {
			return Bounds{}
		}
		pts[i] = [3]float64{float64(x), float64(y), float64(z)}
	}
	tris := r.Triangles[3*to : 3*(to+tn)]
	for _, l := range tris {
		if uint64(l) >= vn {
			return Bounds{}
		}
	}
	var b Bounds
	b.Center, b.Radius, sc.tmp = enclosingSphere(sc.pts, sc.tmp, &sc.shuffle)
	b.ConeApex, b.ConeAxis, b.ConeCutoff = normalCone(tris, b.Center, sc)
	return b
}

// normalCone computes the normal cone of the triangles (local corner
// triples into sc.pts) in float64: the axis is the centre of the normals'
// minimum enclosing ball (the axis of the smallest cone when it is
// narrower than a hemisphere) or, on nearly flat meshlets when it is
// better (larger min dot), the normalised normal average; cutoff and apex as
// meshopt_computeMeshletBounds, the cone widened by coneSafety.
func normalCone(tris []uint8, center [3]float32, sc *boundsScratch) (apex, axis [3]float32, cutoff float32) {
	none := func() ([3]float32, [3]float32, float32) { return [3]float32{}, [3]float32{}, 1 }
	// Unit normals of non-degenerate triangles, computed as meshcheck does
	// (cross(p1-p0, p2-p0) over its length). The loops of this function
	// are written out in scalars, with dot3's and cross's roundings and
	// order: Go keeps [3]float64 locals in memory, not in registers.
	var sx, sy, sz float64
	pts := sc.pts
	// At most one normal and corner per triangle: stored by index into
	// buffers sized once instead of appended.
	nt := len(tris) / 3
	normals, corners := resize(sc.normals, nt)[:nt], resize(sc.corners, nt)[:nt]
	m := 0
	for i := 0; i+2 < len(tris); i += 3 {
		p0, p1, p2 := &pts[tris[i]], &pts[tris[i+1]], &pts[tris[i+2]]
		x0, y0, z0 := p0[0], p0[1], p0[2]
		ax, ay, az := p1[0]-x0, p1[1]-y0, p1[2]-z0
		bx, by, bz := p2[0]-x0, p2[1]-y0, p2[2]-z0
		nx := float64(ay*bz) - float64(az*by)
		ny := float64(az*bx) - float64(ax*bz)
		nz := float64(ax*by) - float64(ay*bx)
		l := math.Sqrt(float64(nx*nx) + float64(ny*ny) + float64(nz*nz))
		if !(l > 0) || l > math.MaxFloat64 { // l is not NaN past the first test
			continue
		}
		nx, ny, nz = nx/l, ny/l, nz/l
		normals[m] = [3]float64{nx, ny, nz}
		corners[m] = [3]float64{x0, y0, z0}
		m++
		sx += nx
		sy += ny
		sz += nz
	}
	normals, corners = normals[:m], corners[:m]
	sc.normals, sc.corners = normals, corners
	sum := [3]float64{sx, sy, sz}
	if len(normals) == 0 {
		return none()
	}
	// Candidate axes, rounded to float32 as stored; the spread is measured
	// against the stored axis.
	minDot := func(a [3]float32) float64 {
		ax, ay, az := float64(a[0]), float64(a[1]), float64(a[2])
		md := 1.0
		for i := range normals {
			n := &normals[i]
			if d := float64(n[0]*ax) + float64(n[1]*ay) + float64(n[2]*az); d < md { // math.Min without its call: d is never NaN
				md = d
			}
		}
		return md
	}
	unit32 := func(v [3]float64) ([3]float32, bool) {
		l := math.Sqrt(dot3(v, v))
		if !(l > 1e-12) {
			return [3]float32{}, false
		}
		return [3]float32{float32(v[0] / l), float32(v[1] / l), float32(v[2] / l)}, true
	}
	// The ball's centre is the optimal axis (up to rounding) whenever the
	// cone is narrower than a hemisphere; the average can beat it only
	// where the normals nearly coincide and the ball's circumcentres are
	// ill-conditioned, so it is tried only there (when the ball's spread
	// is within coneAverageNear of 1) or when the ball gives no axis.
	// Over the corpus meshes at three meshlet limits (122,688 meshlets)
	// and the 1.19M-triangle bench mesh the average won once (10 normals,
	// min dot 1-3e-9 against 1-2e-8), and that is kept; its pass over the
	// normals was 8% of the bounds' time.
	mindp := math.Inf(-1)
	var nb ball
	nb, sc.tmp = sc.shuffle.minBallOf(normals, sc.tmp)
	if a, ok := unit32(nb.c); ok {
		axis, mindp = a, minDot(a)
	}
	if mindp > 1-coneAverageNear || math.IsInf(mindp, -1) {
		if a, ok := unit32(sum); ok {
			if md := minDot(a); md >= mindp { // ties go to the average
				axis, mindp = a, md
			}
		}
	}
	if !(mindp > coneMinSpread) {
		return none()
	}
	mindp -= coneSafety
	c := math.Sqrt(1 - float64(mindp*mindp))
	cutoff = float32(c)
	if float64(cutoff) < c {
		cutoff = math.Nextafter32(cutoff, 2)
	}
	if cutoff >= 1 {
		return none()
	}
	// Apex: the point on center - t*axis (t >= 0) behind every triangle's
	// plane, as meshoptimizer places it.
	a0, a1, a2 := float64(axis[0]), float64(axis[1]), float64(axis[2])
	c0, c1, c2 := float64(center[0]), float64(center[1]), float64(center[2])
	maxt := 0.0
	corners = corners[:len(normals)]
	for i := range normals {
		n, p := &normals[i], &corners[i]
		n0, n1, n2 := n[0], n[1], n[2]
		num := float64((c0-p[0])*n0) + float64((c1-p[1])*n1) + float64((c2-p[2])*n2)
		if t := num / (float64(a0*n0) + float64(a1*n1) + float64(a2*n2)); t > maxt {
			maxt = t
		}
	}
	apex = [3]float32{float32(c0 - float64(a0*maxt)), float32(c1 - float64(a1*maxt)), float32(c2 - float64(a2*maxt))}
	return apex, axis, cutoff
}

// enclosingSphere returns the minimum sphere containing every point
// (minBall). The radius is then measured from the float32 centre and
// rounded up so every point is inside in float64 arithmetic on the stored
// values, so a rounding slip of minBall costs tightness, never
// containment. scratch is reused. (Ritter's sphere was computed beside it
// as a safety net and kept when smaller: over the corpus meshes at three
// meshlet limits (122,688 meshlets) and the 1.19M-triangle bench mesh it
// was smaller 7 times, by under 2e-13 of the radius, on 3- and 4-point
// meshlets of Cube.gltf and texcoord_crash.gltf whose minimum ball is
// the midpoint of two corners, where Ritter's centre carried rounding
// noise (1.3e-13 for 0) and the ball's has none; it and its two
// farthest-point passes were 17% of the bounds' time.)
func enclosingSphere(pts [][3]float64, scratch [][3]float64, shuffle *shuffleCache) ([3]float32, float32, [][3]float64) {
	if len(pts) == 0 {
		return [3]float32{}, 0, scratch
	}
	var mb ball
	mb, scratch = shuffle.minBallOf(pts, scratch)
	c := mb.c
	c32 := [3]float32{float32(c[0]), float32(c[1]), float32(c[2])}
	c64 := [3]float64{float64(c32[0]), float64(c32[1]), float64(c32[2])}
	bd := 0.0
	cx, cy, cz := c64[0], c64[1], c64[2]
	for i := range pts {
		p := &pts[i]
		dx, dy, dz := p[0]-cx, p[1]-cy, p[2]-cz
		if d := float64(dx*dx) + float64(dy*dy) + float64(dz*dz); d > bd { // dist2d; math.Max without its call: d is never NaN
			bd = d
		}
	}
	worst := math.Sqrt(bd)
	r32 := float32(worst)
	for float64(r32) < worst {
		r32 = math.Nextafter32(r32, float32(math.Inf(1)))
	}
	return c32, r32, scratch
}

func dist2d(a, b [3]float64) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return float64(dx*dx) + float64(dy*dy) + float64(dz*dz)
}
