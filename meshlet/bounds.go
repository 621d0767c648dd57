package meshlet

import "math"

// Bounds constants.
const (
	// coneMinSpread is meshoptimizer's limit: when some triangle normal is
	// within acos(0.1) ≈ 84° of perpendicular to the average... i.e. when
	// min dot(normal, axis) <= 0.1, the cone could cull almost nothing and
	// is disabled (cutoff 1).
	coneMinSpread = 0.1
	// coneSafety widens the cone (subtracts from min dot) to absorb the
	// float32 rounding of axis, cutoff and sphere, so the stored cone stays
	// conservative. It costs under 0.3° of cone on flat meshlets.
	coneSafety = 1e-5
	// sphereRefineIterations is how many Bădoiu–Clarkson steps refine the
	// Ritter sphere; 64 points converge to within ~1% in this many.
	sphereRefineIterations = 100
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

// ComputeAllBounds returns ComputeBounds for every meshlet of r, in order.
func ComputeAllBounds(r Result, positions [][3]float32) []Bounds {
	out := make([]Bounds, len(r.Meshlets))
	var pts [][3]float64
	for m := range r.Meshlets {
		out[m], pts = computeBounds(r, m, positions, pts)
	}
	return out
}

// ComputeBounds returns the bounding sphere and normal cone of meshlet m of
// r (meshopt_computeMeshletBounds semantics; see Bounds). Zero-area
// triangles are left out of the cone. m out of range, or ranges of r that
// point past its slices or past positions, give zero Bounds rather than a
// panic: r is expected to come from Build over the same positions.
func ComputeBounds(r Result, m int, positions [][3]float32) Bounds {
	b, _ := computeBounds(r, m, positions, nil)
	return b
}

func computeBounds(r Result, m int, positions [][3]float32, pts [][3]float64) (Bounds, [][3]float64) {
	if m < 0 || m >= len(r.Meshlets) {
		return Bounds{}, pts
	}
	ml := r.Meshlets[m]
	vo, vn := uint64(ml.VertexOffset), uint64(ml.VertexCount)
	to, tn := uint64(ml.TriangleOffset), uint64(ml.TriangleCount)
	if vo+vn > uint64(len(r.Vertices)) || 3*(to+tn) > uint64(len(r.Triangles)) {
		return Bounds{}, pts
	}
	verts := r.Vertices[vo : vo+vn]
	pts = pts[:0]
	for _, v := range verts {
		if uint64(v) >= uint64(len(positions)) {
			return Bounds{}, pts
		}
		p := positions[v]
		pts = append(pts, [3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
	}
	for _, l := range r.Triangles[3*to : 3*(to+tn)] {
		if uint64(l) >= vn {
			return Bounds{}, pts
		}
	}
	var b Bounds
	b.Center, b.Radius = enclosingSphere(pts)
	b.ConeApex, b.ConeAxis, b.ConeCutoff = normalCone(r.Triangles[3*to:3*(to+tn)], pts, b.Center)
	return b, pts
}

// normalCone computes the cone of triangle normals (tris are local corner
// triples into pts) with meshoptimizer's cutoff and apex, widened by
// coneSafety, in float64.
func normalCone(tris []uint8, pts [][3]float64, center [3]float32) (apex, axis [3]float32, cutoff float32) {
	// Unit normals of non-degenerate triangles, computed exactly as meshcheck
	// does (float64 from float32 positions).
	var sum [3]float64
	type tri struct{ p0, n [3]float64 }
	var ts []tri
	for i := 0; i+2 < len(tris); i += 3 {
		p0, p1, p2 := pts[tris[i]], pts[tris[i+1]], pts[tris[i+2]]
		var e1, e2 [3]float64
		for k := 0; k < 3; k++ {
			e1[k] = p1[k] - p0[k]
			e2[k] = p2[k] - p0[k]
		}
		n := [3]float64{
			float64(e1[1]*e2[2]) - float64(e1[2]*e2[1]),
			float64(e1[2]*e2[0]) - float64(e1[0]*e2[2]),
			float64(e1[0]*e2[1]) - float64(e1[1]*e2[0]),
		}
		l := math.Sqrt(float64(n[0]*n[0]) + float64(n[1]*n[1]) + float64(n[2]*n[2]))
		if !(l > 0) || math.IsInf(l, 0) {
			continue
		}
		n = [3]float64{n[0] / l, n[1] / l, n[2] / l}
		ts = append(ts, tri{p0, n})
		for k := 0; k < 3; k++ {
			sum[k] += n[k]
		}
	}
	none := func() ([3]float32, [3]float32, float32) { return [3]float32{}, [3]float32{}, 1 }
	l := math.Sqrt(float64(sum[0]*sum[0]) + float64(sum[1]*sum[1]) + float64(sum[2]*sum[2]))
	if len(ts) == 0 || !(l > 0) {
		return none()
	}
	// The stored float32 axis is what culling uses; measure the spread
	// against it, and renormalise in float64 for the dot products.
	axis = [3]float32{float32(sum[0] / l), float32(sum[1] / l), float32(sum[2] / l)}
	a := [3]float64{float64(axis[0]), float64(axis[1]), float64(axis[2])}
	mindp := 1.0
	for _, t := range ts {
		dp := float64(t.n[0]*a[0]) + float64(t.n[1]*a[1]) + float64(t.n[2]*a[2])
		mindp = math.Min(mindp, dp)
	}
	if mindp <= coneMinSpread {
		return none()
	}
	mindp -= coneSafety
	c := math.Sqrt(1 - mindp*mindp)
	cutoff = float32(c)
	if float64(cutoff) < c {
		cutoff = math.Nextafter32(cutoff, 2)
	}
	if cutoff >= 1 {
		return none()
	}
	// Apex: the point on center - t*axis (t >= 0) behind every triangle's
	// plane, as meshoptimizer places it.
	cc := [3]float64{float64(center[0]), float64(center[1]), float64(center[2])}
	maxt := 0.0
	for _, t := range ts {
		dc := float64((cc[0]-t.p0[0])*t.n[0]) + float64((cc[1]-t.p0[1])*t.n[1]) + float64((cc[2]-t.p0[2])*t.n[2])
		dn := float64(a[0]*t.n[0]) + float64(a[1]*t.n[1]) + float64(a[2]*t.n[2])
		if tt := dc / dn; tt > maxt {
			maxt = tt
		}
	}
	for k := 0; k < 3; k++ {
		apex[k] = float32(cc[k] - float64(a[k]*maxt))
	}
	return apex, axis, cutoff
}

// enclosingSphere returns a small sphere containing every point: Ritter's
// sphere, refined by Bădoiu–Clarkson steps (move the centre towards the
// farthest point by a shrinking fraction), keeping the smallest radius seen.
// The radius is then measured from the float32 centre and rounded up so
// every point is inside in float64 arithmetic on the stored values.
func enclosingSphere(pts [][3]float64) ([3]float32, float32) {
	if len(pts) == 0 {
		return [3]float32{}, 0
	}
	farthest := func(c [3]float64) (int, float64) {
		bi, bd := 0, -1.0
		for i, p := range pts {
			if d := dist2d(p, c); d > bd {
				bi, bd = i, d
			}
		}
		return bi, math.Sqrt(bd)
	}
	// Ritter: the widest pair of axis extremes, then grow to cover all.
	var lo, hi [3]int
	for i, p := range pts {
		for k := 0; k < 3; k++ {
			if p[k] < pts[lo[k]][k] {
				lo[k] = i
			}
			if p[k] > pts[hi[k]][k] {
				hi[k] = i
			}
		}
	}
	axisK, best := 0, -1.0
	for k := 0; k < 3; k++ {
		if d := dist2d(pts[lo[k]], pts[hi[k]]); d > best {
			axisK, best = k, d
		}
	}
	p, q := pts[lo[axisK]], pts[hi[axisK]]
	c := [3]float64{(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2}
	r := math.Sqrt(best) / 2
	for _, x := range pts {
		if d := math.Sqrt(dist2d(x, c)); d > r {
			nr := (r + d) / 2
			s := (nr - r) / d
			for k := 0; k < 3; k++ {
				c[k] += (x[k] - c[k]) * s
			}
			r = nr
		}
	}
	_, r = farthest(c)
	bestC, bestR := c, r
	// Bădoiu–Clarkson refinement from the Ritter centre.
	for i := 1; i <= sphereRefineIterations; i++ {
		f, d := farthest(c)
		if d < bestR {
			bestC, bestR = c, d
		}
		s := 1 / float64(i+1)
		for k := 0; k < 3; k++ {
			c[k] += (pts[f][k] - c[k]) * s
		}
	}
	if _, d := farthest(c); d < bestR {
		bestC = c
	}
	// Exact cover of the stored float32 values.
	c32 := [3]float32{float32(bestC[0]), float32(bestC[1]), float32(bestC[2])}
	cc := [3]float64{float64(c32[0]), float64(c32[1]), float64(c32[2])}
	_, worst := farthest(cc)
	r32 := float32(worst)
	for float64(r32) < worst {
		r32 = math.Nextafter32(r32, float32(math.Inf(1)))
	}
	return c32, r32
}

func dist2d(a, b [3]float64) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return float64(dx*dx) + float64(dy*dy) + float64(dz*dz)
}
