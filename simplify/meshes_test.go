package simplify

import (
	"math"
	"testing"
)

// testMesh is a generated mesh with optional attribute streams.
type testMesh struct {
	pos   [][3]float32
	idx   []uint32
	attrs Attributes
}

// grid is an open nx×ny quad grid in the XY plane with height(x, y) as Z.
func grid(nx, ny int, height func(x, y float64) float64) testMesh {
	var m testMesh
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			x, y := float64(i)/float64(nx), float64(j)/float64(ny)
			z := 0.0
			if height != nil {
				z = height(x, y)
			}
			m.pos = append(m.pos, [3]float32{float32(x), float32(y), float32(z)})
			m.attrs.UV0 = append(m.attrs.UV0, [2]float32{float32(x), float32(y)})
		}
	}
	at := func(i, j int) uint32 { return uint32(j*(nx+1) + i) }
	for j := range ny {
		for i := range nx {
			a, b, c, d := at(i, j), at(i+1, j), at(i+1, j+1), at(i, j+1)
			m.idx = append(m.idx, a, b, c, a, c, d)
		}
	}
	return m
}

// sphere is a closed, fully welded UV sphere of radius 1: one vertex per
// pole, the longitude seam shared (no attribute seam).
func sphere(rings, segs int) testMesh {
	var m testMesh
	m.pos = append(m.pos, [3]float32{0, 0, 1})
	for r := 1; r < rings; r++ {
		th := math.Pi * float64(r) / float64(rings)
		for s := range segs {
			ph := 2 * math.Pi * float64(s) / float64(segs)
			m.pos = append(m.pos, [3]float32{
				float32(math.Sin(th) * math.Cos(ph)), float32(math.Sin(th) * math.Sin(ph)), float32(math.Cos(th)),
			})
		}
	}
	m.pos = append(m.pos, [3]float32{0, 0, -1})
	south := uint32(len(m.pos) - 1)
	at := func(r, s int) uint32 { return uint32(1 + (r-1)*segs + s%segs) }
	for s := range segs {
		m.idx = append(m.idx, 0, at(1, s), at(1, s+1))
	}
	for r := 1; r < rings-1; r++ {
		for s := range segs {
			a, b, c, d := at(r, s), at(r+1, s), at(r+1, s+1), at(r, s+1)
			m.idx = append(m.idx, a, b, c, a, c, d)
		}
	}
	for s := range segs {
		m.idx = append(m.idx, at(rings-1, s), south, at(rings-1, s+1))
	}
	m.attrs.Normals = append(m.attrs.Normals, m.pos...)
	return m
}

// cylinder is a closed, capped cylinder (radius 1, height 2) with a UV seam:
// the side's first column is duplicated (u = 0 and u = 1, bit-identical
// positions) and the caps have their own vertices (hard edge seams).
func cylinder(rings, segs int) testMesh {
	var m testMesh
	add := func(p [3]float32, n [3]float32, uv [2]float32) uint32 {
		m.pos = append(m.pos, p)
		m.attrs.Normals = append(m.attrs.Normals, n)
		m.attrs.UV0 = append(m.attrs.UV0, uv)
		return uint32(len(m.pos) - 1)
	}
	ring := func(s int) (float32, float32) {
		ph := 2 * math.Pi * float64(s%segs) / float64(segs)
		return float32(math.Cos(ph)), float32(math.Sin(ph))
	}
	side := make([][]uint32, rings+1)
	for r := 0; r <= rings; r++ {
		z := float32(-1 + 2*float64(r)/float64(rings))
		for s := 0; s <= segs; s++ {
			x, y := ring(s)
			side[r] = append(side[r], add([3]float32{x, y, z}, [3]float32{x, y, 0},
				[2]float32{float32(s) / float32(segs), float32(r) / float32(rings)}))
		}
	}
	for r := range rings {
		for s := range segs {
			a, b, c, d := side[r][s], side[r][s+1], side[r+1][s+1], side[r+1][s]
			m.idx = append(m.idx, a, b, c, a, c, d)
		}
	}
	for _, cap := range []struct {
		z   float32
		top bool
	}{{-1, false}, {1, true}} {
		nz := float32(-1)
		if cap.top {
			nz = 1
		}
		center := add([3]float32{0, 0, cap.z}, [3]float32{0, 0, nz}, [2]float32{0.5, 0.5})
		var rim []uint32
		for s := range segs {
			x, y := ring(s)
			rim = append(rim, add([3]float32{x, y, cap.z}, [3]float32{0, 0, nz}, [2]float32{0.5 + x/2, 0.5 + y/2}))
		}
		for s := range segs {
			a, b := rim[s], rim[(s+1)%segs]
			if cap.top {
				m.idx = append(m.idx, center, a, b)
			} else {
				m.idx = append(m.idx, center, b, a)
			}
		}
	}
	return m
}

// unweld gives every triangle corner its own vertex (flat shading), so every
// position has several wedges and edge collapse cannot move anything.
func unweld(m testMesh) testMesh {
	var u testMesh
	for _, v := range m.idx {
		u.pos = append(u.pos, m.pos[v])
		u.idx = append(u.idx, uint32(len(u.idx)))
	}
	return u
}

// ---- invariant helpers ----

type posKey [3]float32

func edgeKey(a, b posKey) [2]posKey { return [2]posKey{a, b} }

// directedEdges counts half-edges by position.
func directedEdges(m testMesh, idx []uint32) map[[2]posKey]int {
	e := make(map[[2]posKey]int)
	for t := 0; t+2 < len(idx); t += 3 {
		for k := range 3 {
			a, b := posKey(m.pos[idx[t+k]]), posKey(m.pos[idx[t+(k+1)%3]])
			e[edgeKey(a, b)]++
		}
	}
	return e
}

// requireClosed asserts every half-edge (by position) is matched by exactly
// one opposite half-edge and used once: a closed, consistently wound
// 2-manifold without T-cracks.
func requireClosed(t *testing.T, m testMesh, idx []uint32) {
	t.Helper()
	e := directedEdges(m, idx)
	for k, c := range e {
		if c != 1 || e[edgeKey(k[1], k[0])] != 1 {
			t.Fatalf("edge %v→%v used %d times, opposite %d times", k[0], k[1], c, e[edgeKey(k[1], k[0])])
		}
	}
}

// borderEdges returns the half-edges (by position) without an opposite.
func borderEdges(m testMesh, idx []uint32) map[[2]posKey]bool {
	e := directedEdges(m, idx)
	out := make(map[[2]posKey]bool)
	for k := range e {
		if e[edgeKey(k[1], k[0])] == 0 {
			out[k] = true
		}
	}
	return out
}

// requireValid asserts the output is a triangle list over vertices the
// input referenced.
func requireValid(t testing.TB, in, out []uint32, n int) {
	t.Helper()
	if len(out)%3 != 0 {
		t.Fatalf("output index count %d not a multiple of 3", len(out))
	}
	if len(out) > len(in) {
		t.Fatalf("output has %d indices, input %d", len(out), len(in))
	}
	ref := make([]bool, n)
	for _, v := range in {
		ref[v] = true
	}
	for i, v := range out {
		if int(v) >= n || !ref[v] {
			t.Fatalf("output index %d = %d is not an input vertex", i, v)
		}
	}
}

func sub3(a, b [3]float32) [3]float64 {
	return [3]float64{float64(a[0] - b[0]), float64(a[1] - b[1]), float64(a[2] - b[2])}
}

func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func faceNormal(m testMesh, a, b, c uint32) [3]float64 {
	return cross3(sub3(m.pos[b], m.pos[a]), sub3(m.pos[c], m.pos[a]))
}

// requireNoFlips asserts each output triangle faces the same way as the
// input surface around its corners (area-weighted input vertex normals,
// summed by position).
func requireNoFlips(t *testing.T, m testMesh, out []uint32) {
	t.Helper()
	vn := make(map[posKey][3]float64)
	for i := 0; i+2 < len(m.idx); i += 3 {
		n := faceNormal(m, m.idx[i], m.idx[i+1], m.idx[i+2])
		for k := range 3 {
			p := posKey(m.pos[m.idx[i+k]])
			s := vn[p]
			vn[p] = [3]float64{s[0] + n[0], s[1] + n[1], s[2] + n[2]}
		}
	}
	for i := 0; i+2 < len(out); i += 3 {
		n := faceNormal(m, out[i], out[i+1], out[i+2])
		var ref [3]float64
		for k := range 3 {
			s := vn[posKey(m.pos[out[i+k]])]
			ref = [3]float64{ref[0] + s[0], ref[1] + s[1], ref[2] + s[2]}
		}
		if d := n[0]*ref[0] + n[1]*ref[1] + n[2]*ref[2]; !(d > 0) {
			t.Fatalf("triangle %d (%d %d %d) flipped: dot %g", i/3, out[i], out[i+1], out[i+2], d)
		}
	}
}

// bounds returns the AABB of the referenced positions.
func bounds(m testMesh, idx []uint32) (lo, hi [3]float64) {
	for j := range 3 {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for _, v := range idx {
		for j := range 3 {
			lo[j] = math.Min(lo[j], float64(m.pos[v][j]))
			hi[j] = math.Max(hi[j], float64(m.pos[v][j]))
		}
	}
	return lo, hi
}

// requireBoundsKept asserts the AABB shrank by at most slack × error ×
// extent on every side.
func requireBoundsKept(t *testing.T, m testMesh, out []uint32, relErr float64, slack float64) {
	t.Helper()
	lo0, hi0 := bounds(m, m.idx)
	lo1, hi1 := bounds(m, out)
	ext := 0.0
	for j := range 3 {
		ext = math.Max(ext, hi0[j]-lo0[j])
	}
	tol := slack*relErr*ext + 1e-6*ext
	for j := range 3 {
		if lo1[j]-lo0[j] > tol || hi0[j]-hi1[j] > tol {
			t.Fatalf("axis %d: bounds [%g %g] → [%g %g], allowed shrink %g (error %g)", j, lo0[j], hi0[j], lo1[j], hi1[j], tol, relErr)
		}
	}
}

// cube is a closed cube [0,n]³ with every face an n×n quad grid, welded by
// position: its edges are creases, not borders.
func cube(n int) testMesh {
	var m testMesh
	ids := map[[3]float32]uint32{}
	vert := func(p [3]float32) uint32 {
		if id, ok := ids[p]; ok {
			return id
		}
		ids[p] = uint32(len(m.pos))
		m.pos = append(m.pos, p)
		return ids[p]
	}
	// Each face: an origin corner and two axes whose cross product points out.
	faces := []struct{ o, u, v [3]int }{
		{[3]int{0, 0, 0}, [3]int{0, 1, 0}, [3]int{1, 0, 0}}, // z = 0, normal -z
		{[3]int{0, 0, 1}, [3]int{1, 0, 0}, [3]int{0, 1, 0}}, // z = n, normal +z
		{[3]int{0, 0, 0}, [3]int{1, 0, 0}, [3]int{0, 0, 1}}, // y = 0, normal -y
		{[3]int{0, 1, 0}, [3]int{0, 0, 1}, [3]int{1, 0, 0}}, // y = n, normal +y
		{[3]int{0, 0, 0}, [3]int{0, 0, 1}, [3]int{0, 1, 0}}, // x = 0, normal -x
		{[3]int{1, 0, 0}, [3]int{0, 1, 0}, [3]int{0, 0, 1}}, // x = n, normal +x
	}
	for _, f := range faces {
		at := func(i, j int) uint32 {
			var p [3]float32
			for k := range 3 {
				p[k] = float32(f.o[k]*n + f.u[k]*i + f.v[k]*j)
			}
			return vert(p)
		}
		for j := range n {
			for i := range n {
				a, b, c, d := at(i, j), at(i+1, j), at(i+1, j+1), at(i, j+1)
				m.idx = append(m.idx, a, b, c, a, c, d)
			}
		}
	}
	return m
}
