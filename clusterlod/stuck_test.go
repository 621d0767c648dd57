package clusterlod

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireCrackFree asserts that cuts of h over random cameras and
// thresholds add no open edge over LOD0 and no non-manifold edge (edges
// over position classes, so seams do not count as borders).
func requireCrackFree(t *testing.T, m testMesh, in Input, h *Hierarchy, seed uint64) {
	t.Helper()
	pid := positionIDs(m.pos)
	all := make([]int, len(in.Meshlets.Meshlets))
	for i := range all {
		all[i] = i
	}
	_, nm0, open0 := cutEdges(in, h, all, pid)
	require.Zero(t, nm0, "LOD0 itself is non-manifold")
	rng := rand.New(rand.NewPCG(seed, 7))
	for range 40 {
		cam := randomCamera(rng)
		tau := math.Pow(10, -4+3*rng.Float64())
		cut := Cut(h.Clusters, h.Groups, cam, tau)
		require.NotEmpty(t, cut)
		_, nm, open := cutEdges(in, h, cut, pid)
		require.Zero(t, nm, "cut at tau %g has non-manifold edges", tau)
		for e := range open {
			require.True(t, open0[e], "cut at tau %g opened edge %v", tau, e)
		}
	}
}

// A flat-shaded sphere (every corner its own vertex: every position is a
// seam of six wedges) cannot simplify without crossing seams: the groups
// that stay above the stuck fraction are flagged, terminal, and every cut
// is still crack-free, including next to stuck groups.
func TestStuckGroupsFlatShaded(t *testing.T) {
	opts := DefaultOptions()
	opts.Weights.Normal = 1
	m := unweld(bumpySphere(40, 80))
	in, h := build(t, m, opts)
	checkDAG(t, in, h, opts)
	require.Positive(t, h.StuckGroups)
	requireCrackFree(t, m, in, h, 11)
	for _, g := range h.Groups {
		if g.Stuck {
			require.True(t, math.IsInf(float64(g.Error), 1))
		}
	}
}

// UV seams every 8 segments: groups across a seam simplify along it (or
// permissively across it); every cut stays crack-free over positions.
func TestUVSeamedCrackFree(t *testing.T) {
	opts := DefaultOptions()
	opts.Weights.UV = 1
	m := uvSeamed(60, 120, 8)
	in, h := build(t, m, opts)
	checkDAG(t, in, h, opts)
	requireCrackFree(t, m, in, h, 12)
	require.Greater(t, h.Levels, 3)
}

// With permissive retries off and attributes that forbid every collapse
// (flat shading, no permissive, a huge normal weight), groups get stuck:
// they are counted, flagged and terminal, and the cut stays LOD0.
func TestStuckGroupsCounted(t *testing.T) {
	opts := DefaultOptions()
	opts.Weights.Normal = 1e6
	m := unweld(bumpySphere(20, 40))
	in, h := build(t, m, opts)
	checkDAG(t, in, h, opts)
	stuck := 0
	for _, g := range h.Groups {
		if g.Stuck {
			stuck++
		}
	}
	require.Positive(t, stuck)
	require.Equal(t, stuck, h.StuckGroups)
	requireCrackFree(t, m, in, h, 13)
}

// Degenerate groups: a single meshlet (one terminal group of one
// cluster), and many disconnected small pieces (leftover groups merged by
// distance), all valid and crack-free.
func TestDegenerateGroups(t *testing.T) {
	opts := DefaultOptions()
	one := bumpySphere(4, 8)
	in, h := build(t, one, opts)
	checkDAG(t, in, h, opts)
	require.Len(t, in.Meshlets.Meshlets, 1)
	require.Len(t, h.Groups, 1)
	require.Equal(t, 1, h.Levels)
	require.True(t, math.IsInf(float64(h.Groups[0].Error), 1))
	require.Len(t, h.Nodes, 2) // root over one level's leaf

	m := pieces(40, 8, 16)
	in, h = build(t, m, opts)
	checkDAG(t, in, h, opts)
	requireCrackFree(t, m, in, h, 14)
	require.Greater(t, h.Levels, 1)
}

// capFlat flat-shades the triangles of m above y = cut (their corners get
// their own vertices and face normals) and gives the rest smooth normals.
func capFlat(src testMesh, cut float32) testMesh {
	m := testMesh{pos: append([][3]float32(nil), src.pos...)}
	m.attrs.Normals = append(m.attrs.Normals, src.pos...)
	for t := 0; t < len(src.idx); t += 3 {
		tri := src.idx[t : t+3]
		a, b, c := src.pos[tri[0]], src.pos[tri[1]], src.pos[tri[2]]
		if a[1] <= cut && b[1] <= cut && c[1] <= cut {
			m.idx = append(m.idx, tri...)
			continue
		}
		n := faceNormal(a, b, c)
		for _, p := range [][3]float32{a, b, c} {
			m.idx = append(m.idx, uint32(len(m.pos)))
			m.pos = append(m.pos, p)
			m.attrs.Normals = append(m.attrs.Normals, n)
		}
	}
	return m
}

// Groups that get stuck at one level keep their clusters for good: the
// positions they share with clusters that go on simplifying stay locked
// at every later level, so cuts that mix them with coarse neighbours
// have no crack.
func TestStuckNeighboursStayWatertight(t *testing.T) {
	opts := DefaultOptions()
	opts.Weights.Normal = 1
	m := capFlat(bumpySphere(60, 120), 0.5)
	in, h := build(t, m, opts)
	checkDAG(t, in, h, opts)
	require.Positive(t, h.StuckGroups)
	require.Greater(t, h.Levels, 3)
	requireCrackFree(t, m, in, h, 15)
}

// Monotonicity over every (cluster, refined group) pair, for random
// cameras: the projected error of a cluster's group is never below the
// projected error of the group it was simplified from, so a cut never
// draws a cluster together with one it replaces.
func TestProjectedErrorMonotonic(t *testing.T) {
	opts := DefaultOptions()
	rng := rand.New(rand.NewPCG(5, 6))
	checks := 0
	for _, m := range []testMesh{bumpySphere(80, 160), uvSeamed(40, 80, 8), pieces(12, 10, 20), capFlat(bumpySphere(40, 80), 0.5)} {
		_, h := build(t, m, opts)
		for range 30 {
			cam := randomCamera(rng)
			for c, cl := range h.Clusters {
				if cl.Refined == NoGroup {
					continue
				}
				g, r := h.Groups[cl.Group], h.Groups[cl.Refined]
				pg, pr := cam.Projected(g.Center, g.Radius, g.Error), cam.Projected(r.Center, r.Radius, r.Error)
				require.GreaterOrEqual(t, pg, pr*(1-1e-6), "cluster %d: group %d projects below refined %d", c, cl.Group, cl.Refined)
				checks++
			}
		}
	}
	require.Greater(t, checks, 1000)
}
