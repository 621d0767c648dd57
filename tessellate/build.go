package tessellate

import (
	"math"

	"github.com/meshcook/meshcook/mesh"
)

// row is one ring of a surface of revolution: radius rho at height y, the
// unit-space normal's radial and axial parts, and what the ring's UVs are.
type row struct {
	rho, y, nr, ny float64
	v              float64 // texture v (0 at the top of the profile)
	planar         bool    // cap disc: UVs are the unit XZ coordinates
	surface        surface // timber surface kind
}

// strip is a run of rows tessellated together; consecutive strips share no
// vertices (a crease, a cap).
type strip []row

// builder accumulates one part's mesh in unit space and places it.
type builder struct {
	p      Part
	t      Transform
	normal [3][3]float64 // cofactor matrix of the linear part, sign-fixed
	grain  grainFrame
	m      Mesh
}

func build(p Part, n, rings int) Mesh {
	b := &builder{p: p, t: p.Transform}
	b.normal = normalMatrix(p.Transform)
	switch p.Kind {
	case Box:
		b.grain = newGrainFrame(p, boxGrainAxis(p.Transform), [3]float64{}, 0.5)
		b.box()
	default:
		strips := profile(p, n, rings)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range strips {
			for _, r := range s {
				lo, hi = math.Min(lo, r.y), math.Max(hi, r.y)
			}
		}
		b.grain = newGrainFrame(p, 1, [3]float64{0, (lo + hi) / 2, 0}, (hi-lo)/2)
		cs, sn := angles(n)
		for _, s := range strips {
			b.lathe(s, n, cs, sn)
		}
	}
	if p.Transform.Det() < 0 {
		idx := b.m.Indices
		for i := 0; i+2 < len(idx); i += 3 {
			idx[i+1], idx[i+2] = idx[i+2], idx[i+1]
		}
	}
	return b.m
}

// profile returns the strips of a round primitive, each ordered so that
// walking down the rows the outward normal is (-dy, drho): top to bottom
// on an outer wall, centre to rim on a top cap, rim to centre underneath.
func profile(p Part, n, rings int) []strip {
	switch p.Kind {
	case Sphere:
		c, s := angles(2 * rings)
		st := make(strip, rings+1)
		for j := 0; j <= rings; j++ {
			st[j] = row{rho: 0.5 * s[j], y: 0.5 * c[j], nr: s[j], ny: c[j], v: float64(j) / float64(rings), surface: roundSide}
		}
		return []strip{st}
	case Capsule:
		c, s := angles(4 * rings)
		half := p.Length / 2
		var st strip
		for j := 0; j <= rings; j++ {
			st = append(st, row{rho: 0.5 * s[j], y: half + float64(0.5*c[j]), nr: s[j], ny: c[j], surface: roundSide})
		}
		from := 1
		if half > 0 {
			from = 0
		}
		for j := from; j <= rings; j++ {
			// bottom hemisphere: polar angle π/2 + that of row j from the
			// equator, so (cos, sin) = (-s, c) mirrored.
			k := rings - j
			st = append(st, row{rho: 0.5 * s[k], y: -half - float64(0.5*c[k]), nr: s[k], ny: -c[k], surface: roundSide})
		}
		arcV(st)
		return []strip{st}
	case Torus:
		c, s := angles(rings)
		major := 0.5 - p.Tube
		st := make(strip, rings+1)
		for j := 0; j <= rings; j++ {
			// α = π/2 − 2πj/k: start on top of the tube, go outward, down,
			// in and back up.
			st[j] = row{rho: major + float64(p.Tube*s[j]), y: p.Tube * c[j], nr: s[j], ny: c[j], v: float64(j) / float64(rings), surface: roundSide}
			if s[j] == 1 {
				st[j].rho = 0.5 // the outer extent, exactly
			}
		}
		return []strip{st}
	}
	// Cylinder, cone, tapered cylinder.
	top := 1.0
	switch p.Kind {
	case Cone:
		top = 0
	case TaperedCylinder:
		top = p.Top
	}
	rb, rt := 0.5, 0.5*top
	nr, ny := 1.0, rb-rt
	l := math.Hypot(nr, ny)
	nr, ny = nr/l, ny/l
	side := roundSide
	if rt == 0 {
		side = hewnPoint
	}
	strips := []strip{{
		{rho: rt, y: 0.5, nr: nr, ny: ny, v: 0, surface: side},
		{rho: rb, y: -0.5, nr: nr, ny: ny, v: 1, surface: side},
	}}
	if rt > 0 {
		strips = append(strips, strip{
			{rho: 0, y: 0.5, ny: 1, planar: true, surface: endGrain},
			{rho: rt, y: 0.5, ny: 1, planar: true, surface: endGrain},
		})
	}
	strips = append(strips, strip{
		{rho: rb, y: -0.5, ny: -1, planar: true, surface: endGrain},
		{rho: 0, y: -0.5, ny: -1, planar: true, surface: endGrain},
	})
	return strips
}

// arcV sets v to the unit-space arc length from the first row, over the
// whole profile length.
func arcV(st strip) {
	total := 0.0
	d := make([]float64, len(st))
	for j := 1; j < len(st); j++ {
		total += math.Hypot(st[j].rho-st[j-1].rho, st[j].y-st[j-1].y)
		d[j] = total
	}
	for j := range st {
		if total > 0 {
			st[j].v = d[j] / total
		}
	}
}

// angles returns cos and sin of 2πi/n for i = 0..n. When n is a multiple
// of 4 the quarter turns are exact (0, ±1) and the four quadrants are exact
// mirrors of the first, so extents and symmetry survive rounding.
func angles(n int) (c, s []float64) {
	c, s = make([]float64, n+1), make([]float64, n+1)
	if n%4 != 0 {
		for i := 0; i <= n; i++ {
			a := 2 * math.Pi * float64(i) / float64(n)
			c[i], s[i] = math.Cos(a), math.Sin(a)
		}
		c[0], s[0], c[n], s[n] = 1, 0, 1, 0
		return c, s
	}
	q := n / 4
	for i := 0; i <= q; i++ {
		switch i {
		case 0:
			c[i], s[i] = 1, 0
		case q:
			c[i], s[i] = 0, 1
		default:
			c[i] = math.Cos(math.Pi / 2 * float64(i) / float64(q))
			s[i] = math.Cos(math.Pi / 2 * float64(q-i) / float64(q))
		}
	}
	for i := 0; i <= q; i++ {
		c[i+q], s[i+q] = -s[i], c[i]
		c[i+2*q], s[i+2*q] = -c[i], -s[i]
		c[i+3*q], s[i+3*q] = s[i], -c[i]
	}
	c[n], s[n] = 1, 0
	return c, s
}

// lathe emits one strip: n+1 vertices per ring (the seam column repeats for
// UVs), n per pole (one per triangle, at the triangle's middle angle so a
// cone's apex shades smoothly), and the triangles between rings.
func (b *builder) lathe(st strip, n int, cs, sn []float64) {
	var mc, ms []float64 // angles at half steps, for poles
	for _, r := range st {
		if r.rho == 0 && mc == nil {
			mc, ms = angles(2 * n)
		}
	}
	first := make([]uint32, len(st))
	for j, r := range st {
		first[j] = uint32(len(b.m.Positions))
		if r.rho == 0 {
			for i := 0; i < n; i++ {
				b.ringVertex(r, 0, 0, mc[2*i+1], ms[2*i+1], (float64(i)+0.5)/float64(n))
			}
			continue
		}
		for i := 0; i <= n; i++ {
			b.ringVertex(r, cs[i], sn[i], cs[i], sn[i], float64(i)/float64(n))
		}
	}
	for j := 0; j+1 < len(st); j++ {
		a, c := st[j], st[j+1]
		fa, fc := first[j], first[j+1]
		for i := 0; i < n; i++ {
			ui, ui1 := uint32(i), uint32(i+1)
			switch {
			case a.rho == 0 && c.rho == 0:
			case a.rho == 0:
				b.tri(fa+ui, fc+ui1, fc+ui)
			case c.rho == 0:
				b.tri(fa+ui, fa+ui1, fc+ui)
			default:
				b.tri(fa+ui, fc+ui1, fc+ui)
				b.tri(fa+ui, fa+ui1, fc+ui1)
			}
		}
	}
}

// ringVertex places one vertex: position at angle (c, s), normal at angle
// (nc, ns) (they differ only at poles), u the column fraction.
func (b *builder) ringVertex(r row, c, s, nc, ns, u float64) {
	p := [3]float64{r.rho * c, r.y, r.rho * s}
	n := [3]float64{r.nr * nc, r.ny, r.nr * ns}
	uv := [2]float64{u, r.v}
	if r.planar {
		uv = [2]float64{p[0] + 0.5, p[2] + 0.5}
	}
	var fraction float64
	switch r.surface {
	case endGrain:
		fraction = r.rho / 0.5
	default:
		fraction = u
	}
	b.vertex(p, n, uv, r.surface, fraction)
}

// box emits the 6 faces of the unit cube, 4 vertices each.
func (b *builder) box() {
	g := b.grain.axis
	for a := 0; a < 3; a++ {
		for _, sgn := range [2]float64{1, -1} {
			bi, ci := (a+1)%3, (a+2)%3
			base := uint32(len(b.m.Positions))
			for k, uv := range [4][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
				if sgn < 0 {
					uv = [4][2]float64{{0, 0}, {0, 1}, {1, 1}, {1, 0}}[k]
				}
				var p, n [3]float64
				p[a], p[bi], p[ci] = 0.5*sgn, uv[0]-0.5, uv[1]-0.5
				n[a] = sgn
				surf, fraction := sawnFace, 0.0
				if a == g {
					// End grain: the radius fraction is distance from the
					// face centre over the half diagonal, 1 at every corner.
					surf, fraction = endGrain, 1
				} else {
					across := 3 - a - g
					fraction = (p[across] + 0.5) * length(b.t.Dir(unitAxis(across)))
				}
				b.vertex(p, n, [2]float64{uv[0], 1 - uv[1]}, surf, fraction)
			}
			b.tri(base, base+1, base+2)
			b.tri(base, base+2, base+3)
		}
	}
}

// vertex transforms one unit-space vertex into the mesh.
func (b *builder) vertex(p, n [3]float64, uv [2]float64, surf surface, fraction float64) {
	w := b.t.Point(p)
	b.m.Positions = append(b.m.Positions, mesh.Vec3{float32(w[0]), float32(w[1]), float32(w[2])})
	var wn [3]float64
	for r := 0; r < 3; r++ {
		wn[r] = float64(b.normal[r][0]*n[0]) + float64(b.normal[r][1]*n[1]) + float64(b.normal[r][2]*n[2])
	}
	if l := length(wn); l > 0 {
		wn = [3]float64{wn[0] / l, wn[1] / l, wn[2] / l}
	}
	b.m.Normals = append(b.m.Normals, mesh.Vec3{float32(wn[0]), float32(wn[1]), float32(wn[2])})
	if b.p.Timber {
		uv = b.grain.uv(w, surf, fraction)
	}
	b.m.UVs = append(b.m.UVs, mesh.Vec2{float32(uv[0]), float32(uv[1])})
}

func (b *builder) tri(i, j, k uint32) { b.m.Indices = append(b.m.Indices, i, j, k) }

// normalMatrix returns the cofactor matrix of the linear part times the
// determinant's sign: the inverse transpose up to a positive scale, which
// is all a direction that is normalised afterwards needs.
func normalMatrix(t Transform) [3][3]float64 {
	l := func(r, c int) float64 { return t[r][c] }
	var m [3][3]float64
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			r1, r2 := (r+1)%3, (r+2)%3
			c1, c2 := (c+1)%3, (c+2)%3
			m[r][c] = float64(l(r1, c1)*l(r2, c2)) - float64(l(r1, c2)*l(r2, c1))
		}
	}
	if t.Det() < 0 {
		for r := range m {
			for c := range m[r] {
				m[r][c] = -m[r][c]
			}
		}
	}
	return m
}

func length(v [3]float64) float64 { return math.Sqrt(dot(v, v)) }

func unitAxis(k int) [3]float64 {
	var e [3]float64
	e[k] = 1
	return e
}
