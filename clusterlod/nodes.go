package clusterlod

import (
	"cmp"
	"math"
	"slices"
)

// kNodeWidth is the BVH's branching factor (meshoptimizer's demo uses 8
// or 16; 8 keeps a traversal step at one cache line of child spheres).
const kNodeWidth = 8

// buildNodes builds the BVH over the groups: the root's children are one
// tree per level, each splitting its groups top-down along the widest axis
// of their centres into up to kNodeWidth consecutive children. A node's
// children are always after it, so the array has no cycles.
func buildNodes(groups []Group, levels int) []Node {
	if len(groups) == 0 {
		return nil
	}
	nb := &nodeBuilder{groups: groups}
	perLevel := make([][]int, levels)
	for i, g := range groups {
		perLevel[g.Depth] = append(perLevel[g.Depth], i)
	}
	nb.nodes = append(nb.nodes, Node{})
	first := len(nb.nodes)
	nb.nodes = append(nb.nodes, make([]Node, levels)...)
	for l, items := range perLevel {
		nb.fill(first+l, items)
	}
	nb.nodes[0] = nb.parent(first, levels)
	return nb.nodes
}

type nodeBuilder struct {
	groups []Group
	nodes  []Node
}

// fill makes node slot the tree over items (group ids).
func (nb *nodeBuilder) fill(slot int, items []int) {
	if len(items) == 1 {
		g := nb.groups[items[0]]
		nb.nodes[slot] = Node{Center: g.Center, Radius: g.Radius, MaxError: g.Error, Group: int32(items[0])}
		return
	}
	// Sort along the widest axis of the centres, ties by id.
	lo, hi := nb.groups[items[0]].Center, nb.groups[items[0]].Center
	for _, i := range items {
		c := nb.groups[i].Center
		for j := range 3 {
			lo[j], hi[j] = min(lo[j], c[j]), max(hi[j], c[j])
		}
	}
	axis := 0
	for j := 1; j < 3; j++ {
		if hi[j]-lo[j] > hi[axis]-lo[axis] {
			axis = j
		}
	}
	items = slices.Clone(items)
	slices.SortStableFunc(items, func(a, b int) int {
		return cmp.Compare(nb.groups[a].Center[axis], nb.groups[b].Center[axis])
	})
	k := min(kNodeWidth, len(items))
	first := len(nb.nodes)
	nb.nodes = append(nb.nodes, make([]Node, k)...)
	for c := range k {
		nb.fill(first+c, items[c*len(items)/k:(c+1)*len(items)/k])
	}
	nb.nodes[slot] = nb.parent(first, k)
}

// parent is the internal node over nodes [first, first+count).
func (nb *nodeBuilder) parent(first, count int) Node {
	centers := make([][3]float64, count)
	radii := make([]float64, count)
	e := float32(0)
	for i := range count {
		c := nb.nodes[first+i]
		centers[i], radii[i] = to64(c.Center), float64(c.Radius)
		e = max(e, c.MaxError)
	}
	center, r := mergeSpheres(centers, radii)
	if math.IsNaN(float64(e)) {
		e = float32(math.Inf(1))
	}
	return Node{Center: center, Radius: r, MaxError: e, Group: -1, ChildOffset: uint32(first), ChildCount: uint32(count)}
}
