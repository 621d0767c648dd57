package clusterlod

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/meshcook/meshcook/internal/par"
	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

// Tuned defaults (DefaultOptions), as meshoptimizer's clodDefaultConfig.
const (
	// kGroupSize: clusters per group. 16 meshlets of ~124 triangles
	// simplify as one ~2,000-triangle piece: big enough that the locked
	// border is a small share of its vertices, small enough that groups
	// stay local.
	kGroupSize = 16
	// kRatio: each group aims at half its triangles, so levels halve.
	kRatio = 0.5
	// kStuckFraction: a group keeping more than 85% is stuck.
	kStuckFraction = 0.85
	// kMaxLevels bounds the loop (depth is a u16 on disk; 64 levels of
	// halving is far beyond any mesh).
	kMaxLevels = 64
)

// NoGroup is Cluster.Refined for level-0 clusters (0xFFFFFFFF on disk).
const NoGroup = math.MaxUint32

// ErrInvalidInput is wrapped by every error Build returns for bad input.
var ErrInvalidInput = errors.New("clusterlod: invalid input")

// Options control Build. DefaultOptions is the one place the defaults live.
type Options struct {
	// Meshlet are the limits coarse clusters are built with; they should
	// be the level-0 meshlets' limits.
	Meshlet meshlet.Options
	// GroupSize is the number of clusters a group aims at (>= 1); groups
	// may grow to 4/3 of it when leftovers merge.
	GroupSize int
	// Ratio in (0, 1) is the fraction of its triangles each group is
	// simplified to.
	Ratio float32
	// StuckFraction in (Ratio, 1]: a group whose simplification keeps more
	// than this fraction of its triangles is stuck (terminal).
	StuckFraction float32
	// Weights weigh the attribute streams in the simplifier's quadrics.
	Weights simplify.Weights
	// Permissive lets every simplification cross attribute seams; when
	// false, a group that is stuck on its seams retries permissively.
	Permissive bool
	// LockBorder also keeps the mesh's own open borders (group borders are
	// always locked).
	LockBorder bool
}

// DefaultOptions returns the default meshlet limits, groups of 16,
// halving, and the 85% stuck threshold.
func DefaultOptions() Options {
	return Options{
		Meshlet:       meshlet.DefaultOptions(),
		GroupSize:     kGroupSize,
		Ratio:         kRatio,
		StuckFraction: kStuckFraction,
	}
}

// Validate reports whether the options are in range.
func (o Options) Validate() error {
	if err := o.Meshlet.Validate(); err != nil {
		return err
	}
	if o.GroupSize < 1 {
		return fmt.Errorf("%w: group size %d, want >= 1", ErrInvalidInput, o.GroupSize)
	}
	if r := float64(o.Ratio); !(r > 0 && r < 1) {
		return fmt.Errorf("%w: ratio %v, want 0 < ratio < 1", ErrInvalidInput, o.Ratio)
	}
	if s := float64(o.StuckFraction); !(s > float64(o.Ratio) && s <= 1) {
		return fmt.Errorf("%w: stuck fraction %v, want ratio < fraction <= 1", ErrInvalidInput, o.StuckFraction)
	}
	return nil
}

// Input is one submesh: its positions (with optional attribute streams,
// one entry per position) and its level-0 meshlets over them, with their
// bounds.
type Input struct {
	Positions [][3]float32
	Attrs     simplify.Attributes
	Meshlets  meshlet.Result
	Bounds    []meshlet.Bounds
}

// Cluster is one cluster's place in the DAG.
type Cluster struct {
	// Group is the group the cluster belongs to (the group it is
	// simplified with, or its terminal group).
	Group uint32
	// Refined is the group the cluster was simplified from; NoGroup at
	// level 0.
	Refined uint32
}

// Group is one group of clusters.
type Group struct {
	// Center and Radius enclose the spheres of the groups its members were
	// simplified from (level 0: the members' own spheres).
	Center [3]float32
	Radius float32
	// Error is the group's simplification error in position units, at
	// least its members' errors; +Inf for a terminal group.
	Error float32
	// First and Count are its members' range of Hierarchy.Members.
	First, Count uint32
	// Depth is the level of its members (0: level-0 clusters).
	Depth uint16
	// Stuck reports that simplification could not reach StuckFraction:
	// the group is terminal before the top.
	Stuck bool
}

// Node is one node of the BVH over the groups: a leaf names a group
// (Group >= 0, no children), an internal node (Group -1) has Children
// consecutive nodes from ChildOffset. Its sphere encloses its children's
// and MaxError is the largest error below it.
type Node struct {
	Center                  [3]float32
	Radius                  float32
	MaxError                float32
	Group                   int32
	ChildOffset, ChildCount uint32
}

// Hierarchy is Build's result.
type Hierarchy struct {
	// Clusters: the level-0 meshlets first (cluster i is meshlet i), then
	// the coarse clusters in creation order (cluster len(Meshlets)+k is
	// Coarse.Meshlets[k]).
	Clusters []Cluster
	// Coarse are the coarse clusters; Coarse.Vertices index the input
	// positions.
	Coarse       meshlet.Result
	CoarseBounds []meshlet.Bounds
	// Groups in creation order (depth non-decreasing); Members lists each
	// group's cluster ids, group after group.
	Groups  []Group
	Members []uint32
	// Nodes is the BVH: Nodes[0] is the root (when there are groups); its
	// children are one tree per level.
	Nodes []Node
	// Levels is the number of cluster levels (max depth + 1; 0 when empty).
	Levels int
	// StuckGroups counts groups with Stuck set.
	StuckGroups int
}

// pending is a cluster waiting to be grouped.
type pending struct {
	id      uint32   // cluster id
	indices []uint32 // its triangles, input vertex ids
	center  [3]float64
	radius  float64    // with center: the sphere of the group it came from
	err     float64    // the error of the group it came from
	lc      [3]float64 // its own sphere's center (partition distances)
}

// Build builds the hierarchy. The level-0 meshlets and bounds must come
// from meshlet.Build and meshlet.ComputeAllBounds over in.Positions. Contracts:
//   - every cluster is in exactly one group; cluster i < len(Meshlets)
//     is meshlet i;
//   - a coarse cluster's vertices are input vertices, within
//     opts.Meshlet's limits;
//   - for every cluster c in group g refined from r: depth(r) =
//     depth(g)-1, Error(r) <= Error(g), sphere(r) inside sphere(g);
//   - a group is terminal (+Inf error) exactly when no cluster refines it;
//   - the output depends only on the arguments (any GOMAXPROCS).
func Build(ctx context.Context, in Input, opts Options) (*Hierarchy, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := checkInput(in); err != nil {
		return nil, err
	}
	m := len(in.Meshlets.Meshlets)
	h := &Hierarchy{Clusters: make([]Cluster, m)}
	if m == 0 {
		return h, nil
	}
	b := &builder{in: in, opts: opts, h: h, pos: positionIDs(in.Positions)}
	b.frozen = make([]bool, classCount(b.pos))
	b.workers = runtime.GOMAXPROCS(0)
	b.scratch = make([][]int32, b.workers)

	level := make([]pending, m)
	for i, ml := range in.Meshlets.Meshlets {
		bd := in.Bounds[i]
		c := to64(bd.Center)
		level[i] = pending{id: uint32(i), indices: expand(in.Meshlets, ml), center: c, radius: float64(bd.Radius), lc: c}
		h.Clusters[i].Refined = NoGroup
	}
	for depth := 0; len(level) > 0; depth++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if len(level) == 1 || depth == kMaxLevels-1 {
			// The top: terminal groups over what is left.
			for _, g := range b.partition(level) {
				b.addGroup(level, g, depth, math.Inf(1), false)
			}
			break
		}
		level = b.runLevel(level, depth)
	}
	h.Levels = 0
	for _, g := range h.Groups {
		h.Levels = max(h.Levels, int(g.Depth)+1)
		if g.Stuck {
			h.StuckGroups++
		}
	}
	h.Nodes = buildNodes(h.Groups, h.Levels)
	return h, nil
}

// builder carries one Build's state.
type builder struct {
	in      Input
	opts    Options
	h       *Hierarchy
	pos     []uint32 // position class of each vertex
	workers int
	scratch [][]int32 // per worker: input vertex -> local vertex, -1 when unset
	// frozen marks the position classes of every stuck group's clusters:
	// those clusters stay drawn beside whatever their neighbours become,
	// so later levels must keep the positions they share in place.
	frozen []bool
}

// runLevel groups the pending clusters, simplifies every group and
// returns the next level's clusters.
func (b *builder) runLevel(level []pending, depth int) []pending {
	groups := b.partition(level)
	locked := b.lockShared(level, groups)
	results := make([]groupResult, len(groups))
	par.Workers(len(groups), b.workers, func(w, i int) {
		if b.scratch[w] == nil {
			b.scratch[w] = make([]int32, len(b.in.Positions))
			for k := range b.scratch[w] {
				b.scratch[w][k] = -1
			}
		}
		results[i] = b.simplifyGroup(level, groups[i], locked, b.scratch[w])
	})
	var next []pending
	for i, g := range groups {
		r := &results[i]
		if r.stuck {
			b.addGroup(level, g, depth, math.Inf(1), true)
			for _, k := range g {
				for _, v := range level[k].indices {
					b.frozen[b.pos[v]] = true
				}
			}
			continue
		}
		gid := b.addGroup(level, g, depth, r.err, false)
		grp := b.h.Groups[gid]
		c, rad := to64(grp.Center), float64(grp.Radius)
		base := uint32(len(b.h.Coarse.Vertices))
		tbase := uint32(len(b.h.Coarse.Triangles) / 3)
		for k, ml := range r.clusters.Meshlets {
			id := uint32(len(b.h.Clusters))
			b.h.Clusters = append(b.h.Clusters, Cluster{Refined: uint32(gid)})
			next = append(next, pending{
				id: id, indices: expand(r.clusters, ml), center: c, radius: rad,
				err: float64(grp.Error), lc: to64(r.bounds[k].Center),
			})
			ml.VertexOffset += base
			ml.TriangleOffset += tbase
			b.h.Coarse.Meshlets = append(b.h.Coarse.Meshlets, ml)
		}
		b.h.Coarse.Vertices = append(b.h.Coarse.Vertices, r.clusters.Vertices...)
		b.h.Coarse.Triangles = append(b.h.Coarse.Triangles, r.clusters.Triangles...)
		b.h.CoarseBounds = append(b.h.CoarseBounds, r.bounds...)
	}
	return next
}

// addGroup records group g (indices into level) and returns its id. The
// error is at least every member's; the sphere encloses every member's.
func (b *builder) addGroup(level []pending, g []int, depth int, simplified float64, stuck bool) int {
	gid := len(b.h.Groups)
	e := simplified
	centers := make([][3]float64, len(g))
	radii := make([]float64, len(g))
	for k, i := range g {
		p := &level[i]
		e = math.Max(e, p.err)
		centers[k], radii[k] = p.center, p.radius
		b.h.Clusters[p.id].Group = uint32(gid)
	}
	c, r := mergeSpheres(centers, radii)
	grp := Group{
		Center: c, Radius: r, Error: errorUp(e),
		First: uint32(len(b.h.Members)), Count: uint32(len(g)),
		Depth: uint16(depth), Stuck: stuck,
	}
	for _, i := range g {
		b.h.Members = append(b.h.Members, level[i].id)
	}
	b.h.Groups = append(b.h.Groups, grp)
	return gid
}

// errorUp rounds an error to the float32 at or above it.
func errorUp(e float64) float32 {
	if math.IsInf(e, 1) {
		return float32(math.Inf(1))
	}
	f := float32(e)
	if float64(f) < e {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

// expand returns meshlet ml's triangles as vertex ids.
func expand(r meshlet.Result, ml meshlet.Meshlet) []uint32 {
	out := make([]uint32, 3*ml.TriangleCount)
	tris := r.Triangles[3*ml.TriangleOffset:]
	verts := r.Vertices[ml.VertexOffset:]
	for k := range out {
		out[k] = verts[tris[k]]
	}
	return out
}

func to64(v [3]float32) [3]float64 {
	return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
}

// checkInput checks the level-0 meshlets against the vertex count.
func checkInput(in Input) error {
	r := in.Meshlets
	if len(in.Bounds) != len(r.Meshlets) {
		return fmt.Errorf("%w: %d bounds for %d meshlets", ErrInvalidInput, len(in.Bounds), len(r.Meshlets))
	}
	n := len(in.Positions)
	if uint64(n) >= NoGroup {
		return fmt.Errorf("%w: %d vertices exceed the 32-bit range", ErrInvalidInput, n)
	}
	for i, ml := range r.Meshlets {
		if uint64(ml.VertexOffset)+uint64(ml.VertexCount) > uint64(len(r.Vertices)) ||
			3*(uint64(ml.TriangleOffset)+uint64(ml.TriangleCount)) > uint64(len(r.Triangles)) {
			return fmt.Errorf("%w: meshlet %d ranges past its arrays", ErrInvalidInput, i)
		}
		for _, t := range r.Triangles[3*ml.TriangleOffset : 3*(ml.TriangleOffset+ml.TriangleCount)] {
			if uint32(t) >= ml.VertexCount {
				return fmt.Errorf("%w: meshlet %d local index %d >= %d vertices", ErrInvalidInput, i, t, ml.VertexCount)
			}
		}
	}
	for k, v := range r.Vertices {
		if int(v) >= n {
			return fmt.Errorf("%w: meshlet vertex %d (%d) out of range for %d vertices", ErrInvalidInput, k, v, n)
		}
	}
	for _, s := range []int{len(in.Attrs.Normals), len(in.Attrs.UV0), len(in.Attrs.Colors)} {
		if s != 0 && s != n {
			return fmt.Errorf("%w: attribute stream of %d for %d vertices", ErrInvalidInput, s, n)
		}
	}
	return nil
}
