package meshlet

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Meshes over partTriangles go through the parallel split: every contract
// of Build still holds (each triangle once with its winding, limits,
// first-use numbering, bounds).
func TestBuildSplitInvariants(t *testing.T) {
	gi, gp := grid(260) // 134,162 triangles: 2 parts
	// Three far-apart spheres interleaved in the index buffer (134,100
	// triangles): 2 parts, each holding pieces of several spheres.
	var si []uint32
	var sp [][3]float32
	a, ap := uvSphere(150, 150)
	for k := 0; k < 3; k++ {
		base := uint32(len(sp))
		for _, p := range ap {
			sp = append(sp, [3]float32{p[0] + float32(5*k), p[1], p[2]})
		}
		for _, v := range a {
			si = append(si, v+base)
		}
	}
	for _, mc := range []meshCase{{"grid260", gi, gp}, {"spheres", si, sp}} {
		for _, o := range []Options{DefaultOptions(), {MaxVertices: 128, MaxTriangles: 256, ConeWeight: 0.5, MinTriangles: 64, SplitFactor: 1}} {
			t.Run(fmt.Sprintf("%s/%d-%d", mc.name, o.MaxVertices, o.MaxTriangles), func(t *testing.T) {
				if len(mc.idx)/3 <= partTriangles {
					t.Fatalf("%d triangles do not exercise the split", len(mc.idx)/3)
				}
				r := mustBuild(t, mc.idx, mc.pos, o)
				checkResult(t, mc.idx, mc.pos, o, r)
			})
		}
	}
}

// The partition and the join order do not depend on GOMAXPROCS: the
// output is byte-identical with 1, 2 and 4 threads.
func TestBuildSplitDeterministicAcrossGOMAXPROCS(t *testing.T) {
	idx, pos := grid(300) // 178,802 triangles: 2 parts
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	want := mustBuild(t, idx, pos, DefaultOptions())
	for _, procs := range []int{2, 4} {
		runtime.GOMAXPROCS(procs)
		if got := mustBuild(t, idx, pos, DefaultOptions()); !reflect.DeepEqual(got, want) {
			t.Fatalf("GOMAXPROCS %d: output differs from GOMAXPROCS 1", procs)
		}
	}
}

// Splitting costs few meshlets: at most 1% more than one greedy run over
// the whole mesh (measured with 128k-triangle parts: 11 (0.6%) for
// grid300's 2 parts, whose one seam crosses the whole grid, 0 for
// sphere300's 2, 42 (0.4%) for the 940k-triangle benchmark mesh's 8).
func TestBuildSplitMeshletCost(t *testing.T) {
	gi, gp := grid(300)
	si, sp := uvSphere(300, 300)
	for _, mc := range []meshCase{{"grid300", gi, gp}, {"sphere300", si, sp}} {
		split := mustBuild(t, mc.idx, mc.pos, DefaultOptions())
		single := build(mc.idx, mc.pos, DefaultOptions())
		parts := (len(mc.idx)/3 + partTriangles - 1) / partTriangles
		t.Logf("%s: %d parts, %d meshlets split, %d in one run", mc.name, parts, len(split.Meshlets), len(single.Meshlets))
		if len(split.Meshlets)*100 > len(single.Meshlets)*101 {
			t.Errorf("%s: %d meshlets split vs %d in one run (%d parts)", mc.name, len(split.Meshlets), len(single.Meshlets), parts)
		}
	}
}

// kdSplit gives parts of balanced size that are separated along the first
// split axis, and depends only on its input (not on the items' order).
func TestKDSplitBalancedAndSeparated(t *testing.T) {
	g := lcg(9)
	n := 10000
	cent := make([][3]float32, n)
	for i := range cent {
		// Many duplicate coordinates force the id tie-break.
		cent[i] = [3]float32{float32(g.next() % 50), float32(g.next()%20) * 0.5, 0}
	}
	items := func(reverse bool) []splitItem {
		s := make([]splitItem, n)
		for i := range s {
			id := i
			if reverse {
				id = n - 1 - i
			}
			s[i] = splitItem{cent[id], uint32(id)}
		}
		return s
	}
	for _, parts := range []int{2, 3, 7} {
		label := make([]uint32, n)
		kdSplit(items(false), 0, parts, label)
		count := make([]int, parts)
		for _, p := range label {
			count[p]++
		}
		for p, c := range count {
			if c < n/parts-1 || c > n/parts+1 {
				t.Fatalf("%d parts: part %d has %d of %d triangles", parts, p, c, n)
			}
		}
		// First split: x is the widest axis; (x, id) of the left half all
		// below those of the right half.
		left := parts / 2
		maxL, minR := splitItem{c: [3]float32{-1}}, splitItem{c: [3]float32{1e9}}
		for i, p := range label {
			it := splitItem{cent[i], uint32(i)}
			if int(p) < left && maxL.less(&it, 0) {
				maxL = it
			}
			if int(p) >= left && it.less(&minR, 0) {
				minR = it
			}
		}
		if !maxL.less(&minR, 0) {
			t.Fatalf("%d parts: left half reaches %v, right half starts at %v", parts, maxL, minR)
		}
		again := make([]uint32, n)
		kdSplit(items(true), 0, parts, again)
		if !slices.Equal(label, again) {
			t.Fatalf("%d parts: labels depend on the order of the items", parts)
		}
	}
}

// selectK puts exactly the k smallest (coordinate, id) pairs first.
func TestSelectK(t *testing.T) {
	g := lcg(4)
	cmp := func(a, b splitItem) int {
		if a.less(&b, 1) {
			return -1
		}
		return 1
	}
	for _, n := range []int{1, 2, 31, 33, 100, 5000} {
		s := make([]splitItem, n)
		for i := range s {
			s[i] = splitItem{[3]float32{0, float32(g.next() % 7), 0}, uint32(i)}
		}
		sorted := slices.Clone(s)
		slices.SortFunc(sorted, cmp)
		for _, k := range []int{0, n / 3, n / 2, n - 1, n} {
			c := slices.Clone(s)
			selectK(c, k, 1)
			head := slices.Clone(c[:k])
			slices.SortFunc(head, cmp)
			if !slices.Equal(head, sorted[:k]) {
				t.Fatalf("n %d k %d: the first k are not the k smallest", n, k)
			}
		}
	}
}

// selectHist puts exactly the k smallest (coordinate, id) pairs first,
// over ranges large enough to
// take the histogram path, with many ties and a bucket-boundary-heavy
// distribution.
func TestSelectHist(t *testing.T) {
	g := lcg(9)
	cmp := func(a, b splitItem) int {
		if a.less(&b, 2) {
			return -1
		}
		return 1
	}
	for _, n := range []int{histMin, 3*histMin + 7} {
		for _, spread := range []uint32{5, 1 << 20} {
			s := make([]splitItem, n)
			for i := range s {
				s[i] = splitItem{[3]float32{0, 0, float32(g.next()%spread) - 3}, uint32(i)}
			}
			mn, mx := centroidBox(s)
			sorted := slices.Clone(s)
			slices.SortFunc(sorted, cmp)
			for _, k := range []int{0, 1, n / 3, n / 2, n - 1, n} {
				c := slices.Clone(s)
				selectHist(c, k, 2, float64(mn[2]), float64(mx[2])-float64(mn[2]))
				head := slices.Clone(c[:k])
				slices.SortFunc(head, cmp)
				if !slices.Equal(head, sorted[:k]) {
					t.Fatalf("n %d spread %d k %d: the first k are not the k smallest", n, spread, k)
				}
				all := slices.Clone(c)
				slices.SortFunc(all, cmp)
				if !slices.Equal(all, sorted) {
					t.Fatalf("n %d spread %d k %d: items lost or duplicated", n, spread, k)
				}
			}
		}
	}
}

// Above kdParallelItems kdSplit splits the two halves of each level on two
// goroutines; the labels must be those of the plain recursion, on inputs
// with ties, clusters and an uneven part count.
func TestKDSplitParallelMatchesSerial(t *testing.T) {
	var serial func(items []splitItem, first, parts int, label []uint32)
	serial = func(items []splitItem, first, parts int, label []uint32) {
		if parts == 1 {
			for i := range items {
				label[items[i].id] = uint32(first)
			}
			return
		}
		k, left := kdDivide(items, parts)
		serial(items[:k], first, left, label)
		serial(items[k:], first+left, parts-left, label)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 5*kdParallelItems + 321
	items := make([]splitItem, n)
	for i := range items {
		c := [3]float32{rng.Float32(), rng.Float32() * 3, rng.Float32() * 0.5}
		if i%7 == 0 {
			c = [3]float32{float32(i % 5), 1, 0} // ties and clusters
		}
		items[i] = splitItem{c, uint32(i)}
	}
	for _, parts := range []int{2, 7, 19, 64} {
		want, got := make([]uint32, n), make([]uint32, n)
		serial(slices.Clone(items), 0, parts, want)
		kdSplit(slices.Clone(items), 0, parts, got)
		require.Equalf(t, want, got, "%d parts", parts)
	}
}
