// Package clusterlod builds a Nanite-style cluster hierarchy (a DAG of
// cluster groups) over one triangle list whose level 0 is an existing
// meshlet set. It takes plain slices (indices, positions, attribute
// streams, the level-0 meshlets and their bounds) and returns plain slices
// laid out as the .hmesh cluster-LOD chunks; it knows nothing of files,
// formats or the cook.
//
// Based on:
//   - Brian Karis, Rune Stubbe, Graham Wihlidal. Nanite: A Deep Dive.
//     SIGGRAPH 2021 (groups of clusters simplified together with locked
//     group borders, the DAG, the per-view cut by projected error);
//   - meshoptimizer's demo/clusterlod.h (Arseny Kapoulkine): the level
//     loop, monotonic group errors and merged group spheres, the 85%
//     "stuck" threshold, the per-level BVH forest over groups.
//
// # The level loop
//
// Level 0 is the caller's meshlets. Each level partitions the pending
// clusters into groups of about GroupSize (partition.go: grown over shared
// positions, leftovers merged with an adjacent or the spatially nearest
// group), locks every position that two groups use, and simplifies each
// group on its own to Ratio of its triangles (simplify.Simplify, with the
// group's border locked, attribute-aware, permissive as a fallback). The
// result is split into new clusters with the same meshlet limits
// (meshlet.Build) which are pending for the next level. A group whose
// simplification keeps more than StuckFraction of its triangles is stuck:
// it is terminal (error +Inf), its clusters stay as they are and never
// join a coarser group. The vertex-clustering (sloppy) fallback is never
// used: it ignores seams and may fold the surface (meshoptimizer's cuts
// have up to 1,676 non-manifold edges because of it), so a group that
// would need it counts as stuck. The loop stops when one cluster is left
// or nothing is pending; the last pending clusters get terminal groups.
//
// # Errors and spheres
//
// A group's error is the largest of its members' errors (the error of the
// group each member was simplified from, 0 at level 0) and its own
// simplification error, in position units, so errors never decrease
// upwards. The simplification error is the simplifier's quadric error,
// which tracks the group's real one-level deviation: on a bumpy sphere it
// is 1.09× (median; 0.93-1.19 per group) the sampled Hausdorff distance
// between a depth-0 group and the clusters simplified from it
// (deviation_test.go), where meshoptimizer's clusterlod records about
// 0.68× its own. Its sphere encloses its members' spheres (the sphere of the
// group each member was simplified from; at level 0 the meshlet's own):
// the projected error of a group is then never below the projected error
// of a group it refines, for any camera, which makes every cut
// consistent. Spheres are merged in float64 and rounded outwards to
// float32, so containment holds exactly in the stored values.
//
// # Cost and determinism
//
// Each group is compacted into local arrays (its vertices in first-use
// order, through a per-worker global-to-local table reset after use)
// before simplify.Simplify and meshlet.Build run on it, so a group costs in
// proportion to its own size, not the mesh's. The groups of one level run
// on up to GOMAXPROCS goroutines (internal/par) and are joined in group
// order; partitioning and the BVH are sequential and break every tie by
// index. The output is the same bytes for every GOMAXPROCS.
package clusterlod
