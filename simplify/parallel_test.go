package simplify

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The blocked, chunked steps must give exactly what one sequential sweep
// gives, on a mesh of more than one block.
func TestBlockedStepsMatchOneSweep(t *testing.T) {
	m := sphere(140, 128)
	if n := len(m.idx) / 3; n <= parBlock*parChunk {
		t.Fatalf("test mesh has %d triangles, want more than one block", n)
	}
	opts := Options{TargetError: 1, AttributeWeights: Weights{Normal: 0.5}}
	_, s, err := prepare(context.Background(), m.idx, m.pos, m.attrs, opts)
	if err != nil {
		t.Fatal(err)
	}

	// Quadrics: the face and attribute sums in triangle order.
	vq := make([]quadric, s.n)
	aq := make([]quadric, s.n)
	ag := make([]gradient, s.n*s.k)
	g := make([]gradient, s.k)
	for f := 0; f+2 < len(s.result); f += 3 {
		a, b, c := s.result[f], s.result[f+1], s.result[f+2]
		var q quadric
		q.addTriangle(s.pos[a], s.pos[b], s.pos[c])
		for _, v := range [3]uint32{a, b, c} {
			vq[s.remap[v]].add(&q)
		}
		attributeQuadric(&q, g, s.pos[a], s.pos[b], s.pos[c],
			s.attr[int(a)*s.k:int(a+1)*s.k], s.attr[int(b)*s.k:int(b+1)*s.k], s.attr[int(c)*s.k:int(c+1)*s.k])
		for _, v := range [3]uint32{a, b, c} {
			aq[v].add(&q)
			for j := range g {
				d := &ag[int(v)*s.k+j]
				d.gx += g[j].gx
				d.gy += g[j].gy
				d.gz += g[j].gz
				d.gd += g[j].gd
			}
		}
	}
	// The sphere has no border, so fillQuadrics adds no edge quadrics.
	if !slices.Equal(vq, s.vq) || !slices.Equal(aq, s.aq) || !slices.Equal(ag, s.ag) {
		t.Fatal("blocked quadric sums differ from one sequential sweep")
	}

	// Candidates: listed and ranked block by block, against one range.
	s.adjOff, s.adj = buildAdjacency(s.result, s.n, s.remap, s.adjOff, s.adj)
	s.pickCollapses()
	want := s.pickRange(nil, 0, len(s.result))
	clear(s.ecache)
	s.rankRange(want)
	if len(want) == 0 || !slices.Equal(s.coll, want) {
		t.Fatalf("blocked candidates (%d) differ from one sweep's (%d)", len(s.coll), len(want))
	}
}

// On a mesh of several defaultRegionTris, the first pass walks regions in
// parallel and every region commits collapses; the result keeps the
// invariants of a sequential walk (closed, no flips, bounds, target met).
func TestRegionsWalkLargeMeshes(t *testing.T) {
	for _, m := range []testMesh{sphere(160, 256), cylinder(96, 384)} {
		opts := Options{TargetError: 1, AttributeWeights: Weights{Normal: 0.5, UV: 0.5}}
		_, s, err := prepare(context.Background(), m.idx, m.pos, m.attrs, opts)
		if err != nil {
			t.Fatal(err)
		}
		s.adjOff, s.adj = buildAdjacency(s.result, s.n, s.remap, s.adjOff, s.adj)
		s.pickCollapses()
		s.sortCollapses()
		goal := len(s.result) / 3 / 2
		done := s.performCollapses(goal, 0)
		n := len(s.walks)
		if want := min(len(m.idx)/3/defaultRegionTris, maxRegions); n != want || n < 2 {
			t.Fatalf("%d triangles: %d regions, want %d (at least 2)", len(m.idx)/3, n, want)
		}
		inRegions, removed := 0, 0
		for r, w := range s.walks {
			if w.done == 0 {
				t.Errorf("region %d of %d committed nothing (%d candidates)", r, n, len(w.order))
			}
			if w.removed > w.cap {
				t.Errorf("region %d removed %d triangles, over its share %d", r, w.removed, w.cap)
			}
			inRegions += w.done
			removed += w.removed
		}
		if removed > goal || s.removed > goal+1 {
			t.Errorf("regions removed %d triangles and the pass %d, goal %d", removed, s.removed, goal)
		}
		if inRegions > done || inRegions < done/2 {
			t.Errorf("regions committed %d of the pass's %d collapses", inRegions, done)
		}

		requireClosed(t, m, m.idx)
		for _, ratio := range []float64{0.5, 0.1} {
			target := int(float64(len(m.idx)/3)*ratio) * 3
			opts.TargetIndexCount = target
			r := mustSimplify(t, m, opts)
			if r.Stalled || len(r.Indices) > target || len(r.Indices) < target-6 {
				t.Fatalf("ratio %v: %d indices, target %d", ratio, len(r.Indices), target)
			}
			requireClosed(t, m, r.Indices)
			requireNoFlips(t, m, r.Indices)
			requireBoundsKept(t, m, r.Indices, float64(r.Error), 2)
		}
	}
}

// The parallel radix sort is the stable sort by key, whatever the part
// count: many equal keys (ties keep candidate order) and keys across the
// whole float32 range.
func TestSortCollapsesStableForEveryGOMAXPROCS(t *testing.T) {
	const m = 5*sortPart + 123
	rng := rand.New(rand.NewPCG(1, 2))
	s := &state{remap: make([]uint32, m)}
	for i := range s.remap {
		s.remap[i] = uint32(i)
	}
	s.coll = make([]collapse, m)
	for i := range s.coll {
		var err float64
		switch i % 3 {
		case 0:
			err = float64(rng.IntN(40)) // ties
		case 1:
			err = float64(math.Float32frombits(rng.Uint32N(0x7f800001))) // 0 to +Inf
		default:
			err = rng.Float64() // ties after rounding to float32
		}
		s.coll[i] = collapse{v0: uint32(i), v1: uint32(i), err: err}
	}
	want := make([]uint32, m)
	for i := range want {
		want[i] = uint32(i)
	}
	slices.SortStableFunc(want, func(a, b uint32) int {
		return cmp.Compare(float32(s.coll[a].err), float32(s.coll[b].err))
	})
	for _, procs := range []int{1, 2, 5} {
		prev := runtime.GOMAXPROCS(procs)
		s.sortCollapses()
		runtime.GOMAXPROCS(prev)
		for i := range s.sorted {
			if c := s.ranked(i); c.v0 != want[i] {
				t.Fatalf("GOMAXPROCS %d: rank %d holds candidate %d, want %d", procs, i, c.v0, want[i])
			}
		}
	}
}

// The edge cache is exact: after passes that collapsed, compacted and
// moved entries, every candidate ranked from the cache carries the errors
// collapseError computes afresh, with weighted attributes (their parts
// kept beside the cache, eattr) and without (no eattr at all).
func TestEdgeCacheMatchesFreshErrors(t *testing.T) {
	bumpy := func(x, y float64) float64 { return 0.05 * math.Sin(9*x) * math.Cos(7*y) }
	for _, c := range []struct {
		name  string
		m     testMesh
		w     Weights
		attrs bool
	}{
		{"positions only", grid(80, 70, bumpy), Weights{}, false},
		{"normals and uv", sphere(64, 96), Weights{Normal: 0.5, UV: 0.5}, true},
		{"seams", seamedGrid(60), Weights{UV: 1}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := Options{TargetError: 1, AttributeWeights: c.w}
			_, s, err := prepare(context.Background(), c.m.idx, c.m.pos, c.m.attrs, opts)
			require.NoError(t, err)
			require.Equal(t, c.attrs, s.eattr != nil, "attribute parts kept only when weighted")
			require.NoError(t, s.collapseTo(len(s.result)/2/3*3))
			s.adjOff, s.adj = buildAdjacency(s.result, s.n, s.remap, s.adjOff, s.adj)
			s.pickCollapses()
			require.NotEmpty(t, s.coll)
			cached := 0
			for i := range s.coll {
				cd := &s.coll[i]
				if cd.slot != noSlot {
					cached++
				}
				q, a := s.collapseError(cd.v0, cd.v1)
				require.Equalf(t, q, cd.qerr, "candidate %d (%d→%d): cached quadric error", i, cd.v0, cd.v1)
				require.Equalf(t, a, cd.attr, "candidate %d (%d→%d): cached attribute error", i, cd.v0, cd.v1)
			}
			require.Positive(t, cached)
		})
	}
}

// buildRemap groups the vertices of each position on up to eight
// goroutines; for every GOMAXPROCS each vertex must map to the first
// vertex at its position, and each position's wedge list must run from
// that first vertex through the others in reverse index order (as one
// walk linking them in index order leaves it), with -0 and +0 one
// position and unused vertices left alone.
func TestBuildRemapMatchesOneWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 3*remapParallelVertices + 99
	pos := make([][3]float32, n)
	used := make([]bool, n)
	for i := range pos {
		pos[i] = [3]float32{float32(rng.IntN(200)), float32(rng.IntN(200)), float32(rng.IntN(4))}
		if i%11 == 0 {
			pos[i][2] = float32(math.Copysign(0, -1)) // -0 joins +0
		}
		used[i] = i%13 != 0
	}
	groups := map[[3]float32][]uint32{}
	for i, p := range pos {
		if !used[i] {
			continue
		}
		for j := range p {
			if p[j] == 0 {
				p[j] = 0 // +0
			}
		}
		groups[p] = append(groups[p], uint32(i))
	}
	wantRemap, wantWedge := make([]uint32, n), make([]uint32, n)
	for i := range wantRemap {
		wantRemap[i], wantWedge[i] = uint32(i), uint32(i)
	}
	for _, m := range groups {
		for j, v := range m {
			wantRemap[v] = m[0]
			if j > 0 {
				wantWedge[v] = m[j-1]
			}
		}
		wantWedge[m[0]] = m[len(m)-1]
	}
	for _, procs := range []int{1, 2, 3, 8} {
		prev := runtime.GOMAXPROCS(procs)
		s := &state{n: n, used: used}
		s.buildRemap(pos)
		runtime.GOMAXPROCS(prev)
		// The first difference only: a diff of whole slices this long
		// would take minutes to print.
		for i := range n {
			require.Equalf(t, wantRemap[i], s.remap[i], "GOMAXPROCS %d: remap of vertex %d", procs, i)
			require.Equalf(t, wantWedge[i], s.wedge[i], "GOMAXPROCS %d: wedge of vertex %d", procs, i)
		}
	}
}
