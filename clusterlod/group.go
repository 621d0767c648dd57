package clusterlod

import (
	"math"
	"slices"

	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

// kNoErrorLimit is the simplifier's error limit (position units): the
// target triangle count alone stops a group, as in meshoptimizer's
// clusterlod (FLT_MAX); the error it reaches is recorded instead.
const kNoErrorLimit = 1e30

// groupResult is one simplified group.
type groupResult struct {
	stuck    bool
	err      float64
	clusters meshlet.Result // Vertices are input vertex ids
	bounds   []meshlet.Bounds
}

// positionIDs numbers the position classes: vertices with bit-identical
// positions (-0 = +0) share an id, numbered in first-seen order. An open
// addressing table of first vertices (a power of two at least twice the
// vertex count, linear probing) stands in for a map: no per-entry
// allocation and one probe for most vertices.
func positionIDs(positions [][3]float32) []uint32 {
	ids := make([]uint32, len(positions))
	size := 1
	for size < 2*len(positions) {
		size *= 2
	}
	table := make([]uint32, size) // first vertex of the class + 1, 0 empty
	keyOf := func(p [3]float32) [3]uint32 {
		var k [3]uint32
		for j, x := range p {
			if x == 0 {
				x = 0 // -0 = +0
			}
			k[j] = math.Float32bits(x)
		}
		return k
	}
	next := uint32(0)
	for i, p := range positions {
		k := keyOf(p)
		h := (uint64(k[0])*0x9E3779B185EBCA87 ^ uint64(k[1])*0xC2B2AE3D27D4EB4F ^ uint64(k[2])*0x165667B19E3779F9)
		slot := int((h ^ h>>29) & uint64(size-1))
		for {
			f := table[slot]
			if f == 0 {
				table[slot] = uint32(i) + 1
				ids[i] = next
				next++
				break
			}
			if keyOf(positions[f-1]) == k {
				ids[i] = ids[f-1]
				break
			}
			slot = (slot + 1) & (size - 1)
		}
	}
	return ids
}

// classCount is the number of position classes (positionIDs numbers
// them densely).
func classCount(ids []uint32) int {
	n := 0
	for _, id := range ids {
		n = max(n, int(id)+1)
	}
	return n
}

// lockShared marks every position class that clusters of two different
// groups use, and every frozen one (a stuck group's): simplifying a group
// must leave them in place, so the groups' borders stay watertight
// against each other, and against stuck clusters, at every level.
func (b *builder) lockShared(level []pending, groups [][]int) []bool {
	n := len(b.frozen)
	owner := make([]int32, n)
	for i := range owner {
		owner[i] = -1
	}
	locked := slices.Clone(b.frozen)
	for gi, g := range groups {
		for _, i := range g {
			for _, v := range level[i].indices {
				p := b.pos[v]
				switch owner[p] {
				case -1:
					owner[p] = int32(gi)
				case int32(gi):
				default:
					locked[p] = true
				}
			}
		}
	}
	return locked
}

// simplifyGroup simplifies group g (indices into level) on a compact copy
// of its vertices. local is the worker's input-to-local table (all -1) and
// is all -1 again on return.
func (b *builder) simplifyGroup(level []pending, g []int, locked []bool, local []int32) groupResult {
	// Compact: local vertices in first-use order.
	var back []uint32
	var idx []uint32
	for _, i := range g {
		for _, v := range level[i].indices {
			l := local[v]
			if l < 0 {
				l = int32(len(back))
				local[v] = l
				back = append(back, v)
			}
			idx = append(idx, uint32(l))
		}
	}
	for _, v := range back {
		local[v] = -1
	}
	in, o := b.in, b.opts
	pos := make([][3]float32, len(back))
	lock := make([]bool, len(back))
	for k, v := range back {
		pos[k] = in.Positions[v]
		lock[k] = locked[b.pos[v]]
	}
	var attrs simplify.Attributes
	if in.Attrs.Normals != nil && o.Weights.Normal > 0 {
		attrs.Normals = gather(in.Attrs.Normals, back)
	}
	if in.Attrs.UV0 != nil && o.Weights.UV > 0 {
		attrs.UV0 = gather(in.Attrs.UV0, back)
	}
	if in.Attrs.Colors != nil && o.Weights.Color > 0 {
		attrs.Colors = gather(in.Attrs.Colors, back)
	}

	// Simplify to Ratio; stuck above StuckFraction.
	tris := len(idx) / 3
	so := simplify.Options{
		TargetIndexCount: int(float64(tris)*float64(o.Ratio)) * 3,
		TargetError:      kNoErrorLimit,
		Absolute:         true,
		Locked:           lock,
		AttributeWeights: o.Weights,
		Permissive:       o.Permissive,
		LockBorder:       o.LockBorder,
	}
	limit := float64(len(idx)) * float64(o.StuckFraction)
	res, err := simplify.Simplify(idx, pos, attrs, so)
	if err == nil && float64(len(res.Indices)) > limit && !o.Permissive {
		so.Permissive = true // stuck on seams: let collapses cross them
		res, err = simplify.Simplify(idx, pos, attrs, so)
	}
	if err != nil || len(res.Indices) == 0 || float64(len(res.Indices)) > limit {
		return groupResult{stuck: true}
	}

	// Split into clusters with the level-0 limits.
	r, err := meshlet.Build(res.Indices, pos, o.Meshlet)
	if err != nil || len(r.Meshlets) == 0 {
		return groupResult{stuck: true}
	}
	bounds := meshlet.ComputeAllBounds(r, pos)
	for k, v := range r.Vertices {
		r.Vertices[k] = back[v]
	}
	return groupResult{err: float64(res.Error), clusters: r, bounds: bounds}
}

// gather returns src[back[i]] for every i.
func gather[T any](src []T, back []uint32) []T {
	out := make([]T, len(back))
	for i, v := range back {
		out[i] = src[v]
	}
	return out
}
