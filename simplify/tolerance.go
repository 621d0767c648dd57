package simplify

// Tolerance bounds. Quadric errors average squared plane distances, so they
// say little about the largest deviation, which is what a viewer (and the
// Hausdorff distance) sees. Each position class therefore also carries tol,
// a running bound on how far the surface it now stands for has drifted, in
// the spirit of Guéziec's tolerance volumes (Surface Simplification Inside a
// Tolerance Volume, 1996), measured rather than proven:
//
//   - moving r0 onto r1 costs tol[r0] plus its local bound: the distance
//     from r0 to the new fan around r1 (the removed point, orig→simplified)
//     and from the midpoints of the new edges to the old fan (the new
//     surface, simplified→orig);
//   - after the collapse r1 carries at least that bound and every fan
//     vertex fanTolerance of it, since moving any of them later reshapes
//     the triangles that now cover the removed point.
//
// A collapse's cost is the larger of its quadric error and its bound
// squared. Local bounds need the current fan, so ranking uses the last
// bound computed for the same move while the neighbourhood is unchanged
// (tol alone otherwise), and performCollapses defers collapses whose fresh
// cost exceeds the pass goal to a later pass.

// fanTolerance is the share of a collapse's bound that its fan vertices
// inherit (1 is conservative and over-penalizes the neighbourhood; 0 lets
// neighbours erase the removed point unnoticed).
const fanTolerance = 0.5

// tolerance is one class's bound and cache, packed so that ranking touches
// one cache line per class.
type tolerance struct {
	tol     float64 // distance bound of the surface the class stands for
	loc     float64 // cached local bound of moving it onto to
	to      uint32  // target of the cached local bound
	ver     uint32  // bumped when the class's neighbourhood changes
	cacheOf uint32  // ver+1 when loc was computed (0: none)
}

// holds reports that loc is the local bound of moving the class onto r1
// in its current neighbourhood.
func (t *tolerance) holds(r1 uint32) bool { return t.to == r1 && t.cacheOf == t.ver+1 }

// rankTolerance is the best known bound for moving r0 onto r1 at ranking
// time: tol plus the cached local bound when still valid, else tol.
func (s *state) rankTolerance(r0, r1 uint32) float64 {
	t := &s.tl[r0]
	if t.holds(r1) {
		return t.tol + t.loc
	}
	return t.tol
}

// spreadTolerance records a committed collapse r0→r1 with bound bnd. Call
// it after cremap holds the collapse.
func (s *state) spreadTolerance(r0, r1 uint32, bnd float64) {
	s.tl[r1].tol = maxf(s.tl[r1].tol, bnd)
	s.tl[r1].ver++
	share := fanTolerance * bnd
	for _, e := range s.adj[s.adjOff[r0]:s.adjOff[r0+1]] {
		a, b := s.cur(e.next), s.cur(e.prev)
		s.tl[a].tol = maxf(s.tl[a].tol, share)
		s.tl[b].tol = maxf(s.tl[b].tol, share)
		s.tl[a].ver++
		s.tl[b].ver++
	}
}

// pointTriangle2 is the squared distance from p to triangle abc, by the
// closest-point regions of Ericson (Real-Time Collision Detection, 5.1.5).
// It only feeds bounds, so its products are not guarded against fusion.
func pointTriangle2(p, a, b, c vec3) float64 {
	abx, aby, abz := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	acx, acy, acz := c[0]-a[0], c[1]-a[1], c[2]-a[2]
	apx, apy, apz := p[0]-a[0], p[1]-a[1], p[2]-a[2]
	d1 := abx*apx + aby*apy + abz*apz
	d2 := acx*apx + acy*apy + acz*apz
	if d1 <= 0 && d2 <= 0 {
		return apx*apx + apy*apy + apz*apz // vertex a
	}
	bpx, bpy, bpz := p[0]-b[0], p[1]-b[1], p[2]-b[2]
	d3 := abx*bpx + aby*bpy + abz*bpz
	d4 := acx*bpx + acy*bpy + acz*bpz
	if d3 >= 0 && d4 <= d3 {
		return bpx*bpx + bpy*bpy + bpz*bpz // vertex b
	}
	cpx, cpy, cpz := p[0]-c[0], p[1]-c[1], p[2]-c[2]
	d5 := abx*cpx + aby*cpy + abz*cpz
	d6 := acx*cpx + acy*cpy + acz*cpz
	vc := d1*d4 - d3*d2
	vb := d5*d2 - d1*d6
	va := d3*d6 - d5*d4
	var u, v float64 // closest point a + u·ab + v·ac
	switch {
	case vc <= 0 && d1 >= 0 && d3 <= 0: // edge ab
		u = d1 / (d1 - d3)
	case d6 >= 0 && d5 <= d6: // vertex c
		return cpx*cpx + cpy*cpy + cpz*cpz
	case vb <= 0 && d2 >= 0 && d6 <= 0: // edge ac
		v = d2 / (d2 - d6)
	case va <= 0 && d4-d3 >= 0 && d5-d6 >= 0: // edge bc
		w := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		u, v = 1-w, w
	default: // interior
		den := 1 / (va + vb + vc)
		u, v = vb*den, vc*den
	}
	qx := apx - abx*u - acx*v
	qy := apy - aby*u - acy*v
	qz := apz - abz*u - acz*v
	return qx*qx + qy*qy + qz*qz
}
