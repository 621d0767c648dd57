package meshlet

import "math"

// kdLeafSize is the most points a k-d tree leaf holds. The tree answers
// few queries (the builder's spatial fallback) against many removals, so
// leaves of 32 trade slightly longer leaf scans for two fewer levels to
// build and to update on every removal.
const kdLeafSize = 32

// kdNode is one node of the tree. Leaves have left == -1 and own
// items[lo:hi]; inner nodes split on axis at split (points < split go left).
type kdNode struct {
	lo, hi      int32
	left, right int32
	parent      int32
	alive       int32 // points in this subtree not yet removed
	axis        uint8
	split       float32
}

// kdTree answers "nearest point not yet removed" over a fixed point set,
// with per-subtree live counts so removed regions are skipped entirely.
type kdTree struct {
	items  []kdItem // the points, permuted into tree order
	nodes  []kdNode
	leafOf []int32
	gone   []bool
}

// kdItem is a point and its index in the input, stored together so that
// building and searching walk memory in order.
type kdItem struct {
	p  [3]float32
	id int32
}

func newKDTree(pts [][3]float32) *kdTree {
	t := &kdTree{
		items:  make([]kdItem, len(pts)),
		leafOf: make([]int32, len(pts)),
		gone:   make([]bool, len(pts)),
		nodes:  make([]kdNode, 0, 2*len(pts)/kdLeafSize+1),
	}
	for i, p := range pts {
		t.items[i] = kdItem{p, int32(i)}
	}
	if len(pts) > 0 {
		mn, mx := box(t.items)
		t.build(0, int32(len(pts)), -1, mn, mx)
	}
	return t
}

// box is the bounding box of the items.
func box(items []kdItem) (mn, mx [3]float32) {
	mn, mx = items[0].p, items[0].p
	for i := 1; i < len(items); i++ {
		grow(&mn, &mx, &items[i].p)
	}
	return mn, mx
}

func grow(mn, mx, q *[3]float32) {
	for k := 0; k < 3; k++ {
		if q[k] < mn[k] {
			mn[k] = q[k]
		}
		if q[k] > mx[k] {
			mx[k] = q[k]
		}
	}
}

// build makes the node for items[lo:hi], whose bounding box is mn..mx,
// and returns its id. It splits at the middle of the box's widest axis
// (below the maximum when float32 cannot represent a middle); coincident
// points split by count, so the depth stays logarithmic. The partition
// pass also measures both children's boxes.
func (t *kdTree) build(lo, hi, parent int32, mn, mx [3]float32) int32 {
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, kdNode{lo: lo, hi: hi, left: -1, right: -1, parent: parent, alive: hi - lo})
	if hi-lo <= kdLeafSize {
		for _, it := range t.items[lo:hi] {
			t.leafOf[it.id] = id
		}
		return id
	}
	items := t.items[lo:hi]
	axis := 0
	ext := float64(mx[0]) - float64(mn[0])
	for k := 1; k < 3; k++ {
		if e := float64(mx[k]) - float64(mn[k]); e > ext {
			axis, ext = k, e
		}
	}
	split := float32((float64(mn[axis]) + float64(mx[axis])) / 2)
	n, lmn, lmx, rmn, rmx := partition(items, axis, split)
	mid := lo + n
	if (mid == lo || mid == hi) && ext > 0 {
		// float32 could not place a midpoint between the two extreme
		// values: split below the maximum instead (both sides non-empty).
		split = mx[axis]
		n, lmn, lmx, rmn, rmx = partition(items, axis, split)
		mid = lo + n
	}
	if mid == lo || mid == hi {
		// Every point is the same: split by count; with equal values on
		// both sides "left <= split <= right" still holds for pruning.
		mid = lo + (hi-lo)/2
		split = mx[axis]
		lmn, lmx, rmn, rmx = mn, mx, mn, mx
	}
	t.nodes[id].axis = uint8(axis)
	t.nodes[id].split = split
	l := t.build(lo, mid, id, lmn, lmx)
	r := t.build(mid, hi, id, rmn, rmx)
	t.nodes[id].left, t.nodes[id].right = l, r
	return id
}

// partition moves the items below split along axis to the front and
// returns how many there are and the bounding boxes of both sides (empty
// boxes are inverted).
func partition(items []kdItem, axis int, split float32) (n int32, lmn, lmx, rmn, rmx [3]float32) {
	inf := float32(math.Inf(1))
	lmn, lmx = [3]float32{inf, inf, inf}, [3]float32{-inf, -inf, -inf}
	rmn, rmx = lmn, lmx
	i, j := 0, len(items)-1
	for i <= j {
		if items[i].p[axis] < split {
			grow(&lmn, &lmx, &items[i].p)
			i++
		} else {
			grow(&rmn, &rmx, &items[i].p)
			items[i], items[j] = items[j], items[i]
			j--
		}
	}
	return int32(i), lmn, lmx, rmn, rmx
}

// remove marks point p as used; later queries skip it.
func (t *kdTree) remove(p int32) {
	if t.gone[p] {
		return
	}
	t.gone[p] = true
	for n := t.leafOf[p]; n >= 0; n = t.nodes[n].parent {
		t.nodes[n].alive--
	}
}

// nearest returns the live point closest to q (the lowest index on ties,
// as a linear scan in index order finds), or -1 when none is left.
func (t *kdTree) nearest(q [3]float32) int32 {
	if len(t.nodes) == 0 || t.nodes[0].alive == 0 {
		return -1
	}
	best := int32(-1)
	bestD := math.Inf(1)
	qd := [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
	t.search(0, qd, &best, &bestD)
	if best < 0 {
		// Only reachable when distances overflow; any live point will do.
		for n := int32(0); ; {
			nd := &t.nodes[n]
			if nd.left < 0 {
				for _, it := range t.items[nd.lo:nd.hi] {
					if !t.gone[it.id] {
						return it.id
					}
				}
				return -1
			}
			if t.nodes[nd.left].alive > 0 {
				n = nd.left
			} else {
				n = nd.right
			}
		}
	}
	return best
}

func (t *kdTree) search(n int32, q [3]float64, best *int32, bestD *float64) {
	nd := &t.nodes[n]
	if nd.alive == 0 {
		return
	}
	if nd.left < 0 {
		for i := nd.lo; i < nd.hi; i++ {
			it := &t.items[i]
			if t.gone[it.id] {
				continue
			}
			if d := sqDist(q[0], q[1], q[2], &it.p); d < *bestD || (d == *bestD && it.id < *best) {
				*best, *bestD = it.id, d
			}
		}
		return
	}
	delta := q[nd.axis] - float64(nd.split)
	first, second := nd.left, nd.right
	if delta >= 0 {
		first, second = second, first
	}
	t.search(first, q, best, bestD)
	if delta*delta <= *bestD {
		t.search(second, q, best, bestD)
	}
}

// dist2 is the squared distance in float64 (no overflow for float32 input).
// Each product is rounded explicitly so no fused multiply-add changes it.
func dist2(q [3]float64, p [3]float32) float64 {
	return sqDist(q[0], q[1], q[2], &p)
}

// sqDist is dist2 for a query in scalars and a point by pointer: loops
// keep the query in registers instead of copying arrays through the
// stack on every call.
func sqDist(qx, qy, qz float64, p *[3]float32) float64 {
	dx, dy, dz := qx-float64(p[0]), qy-float64(p[1]), qz-float64(p[2])
	return float64(dx*dx) + float64(dy*dy) + float64(dz*dz)
}
