package clusterlod

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// A closed sphere builds levels that halve up to one terminal cluster.
func TestBuildSphereReachesOneCluster(t *testing.T) {
	opts := DefaultOptions()
	in, h := build(t, bumpySphere(120, 240), opts)
	checkDAG(t, in, h, opts)
	require.Greater(t, h.Levels, 5)
	require.Zero(t, h.StuckGroups)
	top := h.Groups[len(h.Groups)-1]
	require.Equal(t, int(top.Depth)+1, h.Levels)
	require.EqualValues(t, 1, top.Count, "one cluster at the top")
	tris := len(in.Meshlets.Triangles) / 3
	require.Less(t, len(h.Coarse.Triangles)/3, int(1.05*float64(tris)), "DAG above 2.05x the source")
}

// Every cut, for random cameras and thresholds, is watertight: it adds no
// open edge over LOD0 (a closed sphere: none at all) and no non-manifold
// edge.
func TestCutIsCrackFree(t *testing.T) {
	opts := DefaultOptions()
	m := bumpySphere(80, 160)
	in, h := build(t, m, opts)
	pid := positionIDs(m.pos)
	rng := rand.New(rand.NewPCG(1, 2))
	levelsSeen := map[int]bool{}
	for range 60 {
		cam := randomCamera(rng)
		tau := math.Pow(10, -4+3*rng.Float64())
		cut := Cut(h.Clusters, h.Groups, cam, tau)
		require.NotEmpty(t, cut)
		open, nm, _ := cutEdges(in, h, cut, pid)
		require.Zero(t, open, "cut at tau %g has open edges", tau)
		require.Zero(t, nm, "cut at tau %g has non-manifold edges", tau)
		for _, c := range cut {
			levelsSeen[int(h.Groups[h.Clusters[c].Group].Depth)] = true
		}
	}
	require.Greater(t, len(levelsSeen), 3, "cuts should mix levels")
}

// Open meshes: a cut's open edges all run along LOD0's border (a
// hemisphere's rim, simplified along itself), never through the surface.
func TestCutKeepsOpenBordersOnly(t *testing.T) {
	opts := DefaultOptions()
	full := bumpySphere(80, 160)
	var m testMesh
	m.pos = full.pos
	for t := 0; t < len(full.idx); t += 3 {
		if full.pos[full.idx[t]][1] > 0.02 || full.pos[full.idx[t+1]][1] > 0.02 || full.pos[full.idx[t+2]][1] > 0.02 {
			m.idx = append(m.idx, full.idx[t:t+3]...)
		}
	}
	in, h := build(t, m, opts)
	checkDAG(t, in, h, opts)
	pid := positionIDs(m.pos)
	all := make([]int, len(in.Meshlets.Meshlets))
	for i := range all {
		all[i] = i
	}
	n0, _, lod0Open := cutEdges(in, h, all, pid)
	require.NotEmpty(t, lod0Open)
	onBorder := map[uint32]bool{}
	for e := range lod0Open {
		onBorder[e[0]], onBorder[e[1]] = true, true
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 40 {
		cam := randomCamera(rng)
		tau := math.Pow(10, -4+3*rng.Float64())
		cut := Cut(h.Clusters, h.Groups, cam, tau)
		n, nm, open := cutEdges(in, h, cut, pid)
		require.Zero(t, nm)
		require.LessOrEqual(t, n, n0)
		// The rim may be simplified along itself, never torn inside.
		for e := range open {
			require.True(t, onBorder[e[0]] && onBorder[e[1]], "cut at tau %g opened edge %v inside the surface", tau, e)
		}
	}
}

// The same input gives the same hierarchy for every GOMAXPROCS.
func TestBuildSameForEveryGOMAXPROCS(t *testing.T) {
	opts := DefaultOptions()
	m := bumpySphere(60, 120)
	old := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(old)
	_, want := build(t, m, opts)
	for _, p := range []int{2, 3, 8} {
		runtime.GOMAXPROCS(p)
		_, got := build(t, m, opts)
		require.Equal(t, want, got, "GOMAXPROCS %d", p)
	}
}
