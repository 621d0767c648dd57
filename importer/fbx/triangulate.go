package fbx

// Polygon triangulation. Triangles pass through; a quad is split along its
// shorter diagonal unless that split folds (a triangle facing away from the
// quad's normal, i.e. the diagonal leaves a concave quad), in which case
// the other diagonal is used; larger polygons are ear-clipped in the plane
// of their Newell normal (the best-fit plane). Corners keep the polygon's
// winding, so front faces stay front faces.

import "math"

type vec3d [3]float64

func sub3(a, b vec3d) vec3d   { return vec3d{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot3(a, b vec3d) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross3(a, b vec3d) vec3d {
	return vec3d{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// quadTieEpsilon is the relative squared-length margin by which the 1–3
// diagonal must be shorter to be chosen over 0–2.
const quadTieEpsilon = 1e-5

// maxEarClip is the largest polygon ear-clipped (O(n²) per polygon or
// worse); bigger ones are fanned and counted in a warning.
const maxEarClip = 4096

// earClipBudget bounds the ear tests (point-in-triangle checks) spent on
// one scene, about a second of work: a hostile file of many large
// spiral-shaped n-gons is fanned, with a warning, once it is spent.
const earClipBudget = 1 << 28

// newell returns the polygon's (unnormalised) Newell normal.
func newell(p []vec3d) vec3d {
	var n vec3d
	for i := range p {
		a, b := p[i], p[(i+1)%len(p)]
		n[0] += (a[1] - b[1]) * (a[2] + b[2])
		n[1] += (a[2] - b[2]) * (a[0] + b[0])
		n[2] += (a[0] - b[0]) * (a[1] + b[1])
	}
	return n
}

// triangulate appends the triangles of polygon p (as corner indices into
// p) to out, charging ear tests to *budget. fanned reports a fan fallback
// for an oversized polygon or a spent budget.
func triangulate(p []vec3d, out []int32, budget *int) (res []int32, fanned bool) {
	n := len(p)
	switch {
	case n < 3:
		return out, false
	case n == 3:
		return append(out, 0, 1, 2), false
	case n == 4:
		return append(out, quad(p)...), false
	case n <= maxEarClip && *budget > 0:
		return earClip(p, out, budget), false
	}
	for i := 1; i+1 < n; i++ {
		out = append(out, 0, int32(i), int32(i+1))
	}
	return out, true
}

// quad picks the diagonal of a quad.
func quad(p []vec3d) []int32 {
	nrm := newell(p)
	faces := func(a, b, c int) bool {
		return dot3(cross3(sub3(p[b], p[a]), sub3(p[c], p[a])), nrm) > 0
	}
	valid02 := faces(0, 1, 2) && faces(0, 2, 3)
	valid13 := faces(0, 1, 3) && faces(1, 2, 3)
	d02, d13 := sub3(p[2], p[0]), sub3(p[3], p[1])
	// "Shorter" by a clear margin: equal diagonals (squares, rectangles)
	// must not flip on rounding noise, or the same quad stored in two
	// files with a last-bit difference would triangulate differently.
	use13 := valid13 && (!valid02 || dot3(d13, d13) < dot3(d02, d02)*(1-quadTieEpsilon))
	if use13 {
		return []int32{0, 1, 3, 1, 2, 3}
	}
	return []int32{0, 1, 2, 0, 2, 3}
}

// earClip triangulates a simple polygon projected on its best-fit plane.
// Self-intersecting or degenerate input still yields n-2 triangles: when no
// ear is found the most convex corner is clipped.
func earClip(p []vec3d, out []int32, budget *int) []int32 {
	n := len(p)
	nrm := newell(p)
	// Basis (u, v) of the plane with u × v along the normal, so the
	// polygon's winding projects counter-clockwise.
	ax := 0
	for i := 1; i < 3; i++ {
		if math.Abs(nrm[i]) > math.Abs(nrm[ax]) {
			ax = i
		}
	}
	var helper vec3d
	helper[(ax+1)%3] = 1
	u := cross3(helper, nrm)
	v := cross3(nrm, u)
	pts := make([][2]float64, n)
	for i, q := range p {
		pts[i] = [2]float64{dot3(q, u), dot3(q, v)}
	}
	cross2 := func(a, b, c int) float64 {
		return (pts[b][0]-pts[a][0])*(pts[c][1]-pts[a][1]) - (pts[b][1]-pts[a][1])*(pts[c][0]-pts[a][0])
	}
	// inside reports whether q lies in triangle abc (counter-clockwise),
	// edges included.
	inside := func(q, a, b, c int) bool {
		return cross2(a, b, q) >= 0 && cross2(b, c, q) >= 0 && cross2(c, a, q) >= 0
	}
	next := make([]int, n)
	prev := make([]int, n)
	for i := range n {
		next[i], prev[i] = (i+1)%n, (i+n-1)%n
	}
	same := func(a, b int) bool { return pts[a] == pts[b] }
	left, cur := n, 0
	for left > 3 {
		found := -1
		bestI, best := cur, math.Inf(-1)
		for k, i := 0, cur; k < left; k, i = k+1, next[i] {
			a, c := prev[i], next[i]
			area := cross2(a, i, c)
			if area > best {
				bestI, best = i, area
			}
			if area <= 0 {
				continue
			}
			ear := true
			for j := next[c]; j != a; j = next[j] {
				*budget--
				if !same(j, a) && !same(j, i) && !same(j, c) && inside(j, a, i, c) {
					ear = false
					break
				}
			}
			if ear {
				found = i
				break
			}
		}
		if found < 0 {
			found = bestI
		}
		a, c := prev[found], next[found]
		out = append(out, int32(a), int32(found), int32(c))
		next[a], prev[c] = c, a
		left--
		cur = c
	}
	a := cur
	return append(out, int32(prev[a]), int32(a), int32(next[a]))
}
