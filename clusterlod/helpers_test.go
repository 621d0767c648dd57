package clusterlod

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

// testMesh is a triangle list with optional attributes.
type testMesh struct {
	pos   [][3]float32
	idx   []uint32
	attrs simplify.Attributes
}

// bumpySphere is a closed manifold UV sphere (poles welded, no seam) of
// rings×segs quads with a deterministic bumpy radius.
func bumpySphere(rings, segs int) testMesh {
	var m testMesh
	m.pos = append(m.pos, [3]float32{0, 1, 0})
	for r := 1; r < rings; r++ {
		th := math.Pi * float64(r) / float64(rings)
		for s := range segs {
			ph := 2 * math.Pi * float64(s) / float64(segs)
			rad := 1 + 0.05*math.Sin(7*th)*math.Cos(5*ph)
			m.pos = append(m.pos, [3]float32{
				float32(rad * math.Sin(th) * math.Cos(ph)), float32(rad * math.Cos(th)), float32(rad * math.Sin(th) * math.Sin(ph)),
			})
		}
	}
	m.pos = append(m.pos, [3]float32{0, -1, 0})
	south := uint32(len(m.pos) - 1)
	at := func(r, s int) uint32 { return uint32(1 + (r-1)*segs + s%segs) }
	for s := range segs {
		m.idx = append(m.idx, 0, at(1, s+1), at(1, s))
		m.idx = append(m.idx, south, at(rings-1, s), at(rings-1, s+1))
	}
	for r := 1; r < rings-1; r++ {
		for s := range segs {
			a, b, c, d := at(r, s), at(r, s+1), at(r+1, s), at(r+1, s+1)
			m.idx = append(m.idx, a, b, d, a, d, c)
		}
	}
	return m
}

// unweld gives every triangle corner its own vertex (flat shading: one
// normal per face), so every position is a seam of many wedges.
func unweld(src testMesh) testMesh {
	var m testMesh
	for t := 0; t < len(src.idx); t += 3 {
		a, b, c := src.pos[src.idx[t]], src.pos[src.idx[t+1]], src.pos[src.idx[t+2]]
		n := faceNormal(a, b, c)
		for _, p := range [][3]float32{a, b, c} {
			m.idx = append(m.idx, uint32(len(m.pos)))
			m.pos = append(m.pos, p)
			m.attrs.Normals = append(m.attrs.Normals, n)
		}
	}
	return m
}

func faceNormal(a, b, c [3]float32) [3]float32 {
	u := [3]float64{float64(b[0] - a[0]), float64(b[1] - a[1]), float64(b[2] - a[2])}
	v := [3]float64{float64(c[0] - a[0]), float64(c[1] - a[1]), float64(c[2] - a[2])}
	n := [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
	l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
	if l == 0 {
		return [3]float32{0, 1, 0}
	}
	return [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
}

// uvSeamed gives the sphere UVs with a seam every `every` segments:
// vertices on a seam column are split into two wedges with different U.
func uvSeamed(rings, segs, every int) testMesh {
	src := bumpySphere(rings, segs)
	m := testMesh{pos: append([][3]float32(nil), src.pos...)}
	m.attrs.UV0 = make([][2]float32, len(m.pos))
	for i, p := range m.pos {
		m.attrs.UV0[i] = [2]float32{float32(math.Atan2(float64(p[2]), float64(p[0]))), p[1]}
	}
	// duplicate seam-column vertices for triangles on the seam's right side
	dup := map[uint32]uint32{}
	for t := 0; t < len(src.idx); t += 3 {
		tri := src.idx[t : t+3]
		col := -1
		for _, v := range tri {
			if v != 0 && int(v) != len(src.pos)-1 {
				c := (int(v) - 1) % segs
				if col < 0 || c > col {
					col = c
				}
			}
		}
		out := [3]uint32{tri[0], tri[1], tri[2]}
		for k, v := range tri {
			if v == 0 || int(v) == len(src.pos)-1 {
				continue
			}
			c := (int(v) - 1) % segs
			if c%every == 0 && col != c { // right of the seam column
				d, ok := dup[v]
				if !ok {
					d = uint32(len(m.pos))
					m.pos = append(m.pos, m.pos[v])
					m.attrs.UV0 = append(m.attrs.UV0, [2]float32{m.attrs.UV0[v][0] + 10, m.attrs.UV0[v][1]})
					dup[v] = d
				}
				out[k] = d
			}
		}
		m.idx = append(m.idx, out[:]...)
	}
	return m
}

// pieces is n disconnected small spheres along a line.
func pieces(n, rings, segs int) testMesh {
	var m testMesh
	for k := range n {
		s := bumpySphere(rings, segs)
		base := uint32(len(m.pos))
		for _, p := range s.pos {
			m.pos = append(m.pos, [3]float32{p[0]*0.3 + float32(k), p[1] * 0.3, p[2] * 0.3})
		}
		for _, i := range s.idx {
			m.idx = append(m.idx, i+base)
		}
	}
	return m
}

// build runs meshlets, bounds and Build with opts.
func build(t testing.TB, m testMesh, opts Options) (Input, *Hierarchy) {
	t.Helper()
	r, err := meshlet.Build(m.idx, m.pos, opts.Meshlet)
	require.NoError(t, err)
	in := Input{Positions: m.pos, Attrs: m.attrs, Meshlets: r, Bounds: meshlet.ComputeAllBounds(r, m.pos)}
	h, err := Build(context.Background(), in, opts)
	require.NoError(t, err)
	return in, h
}

// clusterTris returns cluster c's triangles as vertex ids.
func clusterTris(in Input, h *Hierarchy, c int) []uint32 {
	if c < len(in.Meshlets.Meshlets) {
		return expand(in.Meshlets, in.Meshlets.Meshlets[c])
	}
	return expand(h.Coarse, h.Coarse.Meshlets[c-len(in.Meshlets.Meshlets)])
}

// checkDAG asserts Build's contracts on h.
func checkDAG(t testing.TB, in Input, h *Hierarchy, opts Options) {
	t.Helper()
	m := len(in.Meshlets.Meshlets)
	require.Len(t, h.Clusters, m+len(h.Coarse.Meshlets))
	require.Len(t, h.CoarseBounds, len(h.Coarse.Meshlets))
	seen := make([]int, len(h.Clusters))
	refinedBy := make([]int, len(h.Groups))
	for gi, g := range h.Groups {
		require.Positive(t, g.Count, "group %d empty", gi)
		for _, c := range h.Members[g.First : g.First+g.Count] {
			seen[c]++
			require.Equal(t, uint32(gi), h.Clusters[c].Group)
		}
	}
	for c, cl := range h.Clusters {
		require.Equal(t, 1, seen[c], "cluster %d in %d groups", c, seen[c])
		g := h.Groups[cl.Group]
		if c < m {
			require.Equal(t, uint32(NoGroup), cl.Refined)
			require.Zero(t, g.Depth)
			continue
		}
		require.NotEqual(t, uint32(NoGroup), cl.Refined)
		r := h.Groups[cl.Refined]
		refinedBy[cl.Refined]++
		require.Equal(t, g.Depth, r.Depth+1, "cluster %d depth", c)
		require.LessOrEqual(t, r.Error, g.Error, "cluster %d: error decreases upwards", c)
		d := math.Sqrt(dist2(to64(g.Center), to64(r.Center)))
		require.LessOrEqual(t, d+float64(r.Radius), float64(g.Radius)*(1+1e-6), "cluster %d: refined sphere outside", c)
		ml := h.Coarse.Meshlets[c-m]
		require.LessOrEqual(t, int(ml.VertexCount), opts.Meshlet.MaxVertices)
		require.LessOrEqual(t, int(ml.TriangleCount), opts.Meshlet.MaxTriangles)
	}
	for gi, g := range h.Groups {
		require.Equal(t, math.IsInf(float64(g.Error), 1), refinedBy[gi] == 0, "group %d: terminal iff nothing refines it", gi)
	}
}

// cutEdges counts, over positions, the cut's open and non-manifold edges.
func cutEdges(in Input, h *Hierarchy, cut []int, posID []uint32) (open, nonManifold int, openSet map[[2]uint32]bool) {
	count := map[[2]uint32]int{}
	for _, c := range cut {
		tris := clusterTris(in, h, c)
		for t := 0; t < len(tris); t += 3 {
			for k := range 3 {
				a, b := posID[tris[t+k]], posID[tris[t+(k+1)%3]]
				if a == b {
					continue
				}
				count[[2]uint32{min(a, b), max(a, b)}]++
			}
		}
	}
	openSet = map[[2]uint32]bool{}
	for e, n := range count {
		switch {
		case n == 1:
			open++
			openSet[e] = true
		case n > 2:
			nonManifold++
		}
	}
	return open, nonManifold, openSet
}

func randomCamera(rng *rand.Rand) Camera {
	d := 1.5 + 20*rng.Float64()
	th, ph := math.Acos(2*rng.Float64()-1), 2*math.Pi*rng.Float64()
	p := [3]float32{float32(d * math.Sin(th) * math.Cos(ph)), float32(d * math.Cos(th)), float32(d * math.Sin(th) * math.Sin(ph))}
	return NewCamera(p, math.Pi/3, 1e-3)
}
