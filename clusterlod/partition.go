package clusterlod

import (
	"math"
	"slices"
)

// adjacency is the cluster graph of one level in CSR form: clusters are
// adjacent when they share position classes, weighted by how many.
type adjacency struct {
	off []int32 // cluster k's neighbours are nbr[off[k]:off[k+1]]
	nbr []int32
	w   []int32
	deg []int64 // total weight of each cluster's edges
}

// buildAdjacency lists, for every position class used by two or more
// clusters of the level, every pair of those clusters. The clusters of
// each position class are listed once (counting sort, in cluster order);
// each cluster's neighbours are then counted in a dense per-cluster table
// and listed in cluster order.
func (b *builder) buildAdjacency(level []pending) adjacency {
	n := len(level)
	classes := len(b.frozen)
	// (position, cluster) once per pair: stamp[p] is the last cluster +1
	// that listed p.
	stamp := make([]int32, classes)
	first := make([]int32, classes+1)
	var uses []uint32 // per cluster, its distinct classes (cluster order)
	useOff := make([]int32, n+1)
	for k := range level {
		for _, v := range level[k].indices {
			p := b.pos[v]
			if stamp[p] == int32(k)+1 {
				continue
			}
			stamp[p] = int32(k) + 1
			uses = append(uses, p)
			first[p+1]++
		}
		useOff[k+1] = int32(len(uses))
	}
	for p := range classes {
		first[p+1] += first[p]
	}
	// byClass[first[p]:first[p+1]] are the clusters using p, ascending.
	byClass := make([]int32, len(uses))
	fill := slices.Clone(first[:classes])
	for k := range n {
		for _, p := range uses[useOff[k]:useOff[k+1]] {
			byClass[fill[p]] = int32(k)
			fill[p]++
		}
	}
	adj := adjacency{off: make([]int32, n+1), deg: make([]int64, n)}
	weight := make([]int32, n)
	var touched []int32
	for a := range n {
		touched = touched[:0]
		for _, p := range uses[useOff[a]:useOff[a+1]] {
			for _, c := range byClass[first[p]:first[p+1]] {
				if int(c) == a {
					continue
				}
				if weight[c] == 0 {
					touched = append(touched, c)
				}
				weight[c]++
			}
		}
		slices.Sort(touched)
		for _, c := range touched {
			adj.nbr = append(adj.nbr, c)
			adj.w = append(adj.w, weight[c])
			adj.deg[a] += int64(weight[c])
			weight[c] = 0
		}
		adj.off[a+1] = int32(len(adj.nbr))
	}
	return adj
}

// partition splits the level into groups of about GroupSize clusters
// (indices into level, in the order they joined). A group grows from a
// seed by taking the neighbour with the largest share of its shared
// positions inside the group (closest to the group's centroid on ties,
// then lowest index); the next seed is the not-yet-grouped neighbour of
// the grouped clusters with the fewest free neighbours, so groups sweep
// the surface. Groups of at most a quarter of GroupSize then merge into
// the adjacent group they share most with, or else the spatially nearest
// group (disconnected pieces), while the result stays within 4/3 of
// GroupSize.
func (b *builder) partition(level []pending) [][]int {
	n := len(level)
	size := b.opts.GroupSize
	if n <= size {
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	adj := b.buildAdjacency(level)
	assigned := make([]int32, n)
	for i := range assigned {
		assigned[i] = -1
	}
	gain := make([]int64, n)
	inCand := make([]bool, n)
	var groups [][]int
	var frontier, cands []int
	nextFree := 0
	left := n

	freeNeighbours := func(k int) int {
		c := 0
		for e := adj.off[k]; e < adj.off[k+1]; e++ {
			if assigned[adj.nbr[e]] < 0 {
				c++
			}
		}
		return c
	}
	for left > 0 {
		// Seed.
		seed := -1
		bestFree := math.MaxInt
		kept := frontier[:0]
		for _, k := range frontier {
			if assigned[k] >= 0 {
				continue
			}
			kept = append(kept, k)
			if f := freeNeighbours(k); f < bestFree || (f == bestFree && k < seed) {
				seed, bestFree = k, f
			}
		}
		frontier = kept
		if seed < 0 {
			for assigned[nextFree] >= 0 {
				nextFree++
			}
			seed = nextFree
		}

		// Grow.
		gid := int32(len(groups))
		group := []int{}
		var sum [3]float64
		add := func(k int) {
			assigned[k] = gid
			left--
			group = append(group, k)
			for j := range 3 {
				sum[j] += level[k].lc[j]
			}
			for e := adj.off[k]; e < adj.off[k+1]; e++ {
				nb := int(adj.nbr[e])
				if assigned[nb] >= 0 {
					continue
				}
				if !inCand[nb] {
					inCand[nb] = true
					cands = append(cands, nb)
				}
				gain[nb] += int64(adj.w[e])
			}
		}
		add(seed)
		for len(group) < size {
			best, bestScore, bestDist := -1, -1.0, 0.0
			inv := 1 / float64(len(group))
			centroid := [3]float64{sum[0] * inv, sum[1] * inv, sum[2] * inv}
			kept := cands[:0]
			for _, k := range cands {
				if assigned[k] >= 0 {
					inCand[k] = false
					gain[k] = 0
					continue
				}
				kept = append(kept, k)
				score := float64(gain[k]) / float64(adj.deg[k])
				d := dist2(level[k].lc, centroid)
				if score > bestScore || (score == bestScore && (d < bestDist || (d == bestDist && k < best))) {
					best, bestScore, bestDist = k, score, d
				}
			}
			cands = kept
			if best < 0 {
				break
			}
			add(best)
		}
		for _, k := range cands {
			if assigned[k] < 0 {
				frontier = append(frontier, k)
			}
			inCand[k] = false
			gain[k] = 0
		}
		cands = cands[:0]
		groups = append(groups, group)
	}
	return b.mergeLeftovers(level, groups, assigned, adj)
}

// mergeLeftovers merges small groups (see partition) and drops the emptied
// ones, keeping the others' order.
func (b *builder) mergeLeftovers(level []pending, groups [][]int, assigned []int32, adj adjacency) [][]int {
	size := b.opts.GroupSize
	small, most := size/4, size+size/3
	centroid := func(g []int) [3]float64 {
		var s [3]float64
		for _, k := range g {
			for j := range 3 {
				s[j] += level[k].lc[j]
			}
		}
		inv := 1 / float64(max(len(g), 1))
		return [3]float64{s[0] * inv, s[1] * inv, s[2] * inv}
	}
	centers := make([][3]float64, len(groups))
	for i, g := range groups {
		centers[i] = centroid(g)
	}
	shared := map[int32]int64{}
	for gi := range groups {
		g := groups[gi]
		if len(g) == 0 || len(g) > small {
			continue
		}
		clear(shared)
		for _, k := range g {
			for e := adj.off[k]; e < adj.off[k+1]; e++ {
				if o := assigned[adj.nbr[e]]; o != int32(gi) {
					shared[o] += int64(adj.w[e])
				}
			}
		}
		target, bestW := -1, int64(0)
		for o, w := range shared {
			if len(groups[o])+len(g) > most {
				continue
			}
			if w > bestW || (w == bestW && int(o) < target) {
				target, bestW = int(o), w
			}
		}
		if target < 0 {
			bestD := math.Inf(1)
			for o := range groups {
				if o == gi || len(groups[o]) == 0 || len(groups[o])+len(g) > most {
					continue
				}
				if d := dist2(centers[o], centers[gi]); d < bestD {
					target, bestD = o, d
				}
			}
		}
		if target < 0 {
			continue
		}
		for _, k := range g {
			assigned[k] = int32(target)
		}
		groups[target] = append(groups[target], g...)
		groups[gi] = nil
		centers[target] = centroid(groups[target])
	}
	return slices.DeleteFunc(groups, func(g []int) bool { return len(g) == 0 })
}

func dist2(a, b [3]float64) float64 {
	x, y, z := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return x*x + y*y + z*z
}
