// Package simplify reduces triangle meshes for levels of detail by quadric
// error metric edge collapse. It takes plain slices (indices, positions,
// optional attribute streams) and returns index buffers over the same
// vertex array; it knows nothing of files, formats or the cook.
//
// Based on:
//   - Michael Garland, Paul S. Heckbert. Surface Simplification Using
//     Quadric Error Metrics. SIGGRAPH 1997 (the 4x4 plane quadric).
//   - Hugues Hoppe. New Quadric Metric for Simplifying Meshes with
//     Appearance Attributes. IEEE Visualization 1999 (per-attribute
//     gradients instead of a (3+k)-dimensional quadric).
//   - Tamal K. Dey et al. Topology Preserving Edge Contraction. 1999 (the
//     link condition).
//   - Jarek Rossignac, Paul Borrel. Multi-resolution 3D Approximations for
//     Rendering Complex Scenes. 1993 (vertex clustering, the sloppy fallback).
//   - meshoptimizer's simplifier (Arseny Kapoulkine): vertex classification,
//     pass-based collapse ordering, border/seam edge quadrics.
//
// # Decisions
//
// No new vertices. The hmesh LODI chunk indexes VTXS, so a reduced level may
// only reference existing vertices. Every collapse is therefore a half-edge
// collapse: one endpoint moves onto the other, and the ranking evaluates both
// directions and keeps the cheaper. "Optimal placement" (solving the quadric
// for its minimum) is not used: snapping that point to the nearest existing
// vertex would pick a vertex that need not even be adjacent, breaking the
// collapse's topology, and the endpoint with the lower quadric error is
// already the best existing choice on the edge.
//
// Vertex kinds. Vertices with bit-identical positions (-0 = +0) form one
// position class; attribute-split copies are its wedges. Open half-edges
// are found in the unwelded mesh. A class is manifold (one wedge, no open
// edge), border (one wedge, one open edge in and one out), seam (two wedges
// whose open edges pair up by position) or locked (anything else: more
// wedges, non-manifold fans, user locks, and borders under LockBorder).
// Manifold vertices may move onto anything; border and seam vertices only
// onto their own kind along their own loop, or onto a locked vertex at the
// end of the loop; a seam collapse moves both wedges together onto the two
// wedges of the target, so both sides of the seam stay stitched. Locked
// vertices never move.
//
// Validity. A collapse is refused when any surviving triangle around the
// moving vertex turns its normal by more than about 75 degrees (meshopt's
// threshold; 90 would let a series of passes flip a triangle), or when it
// breaks the link condition in the position-welded mesh (a common neighbour
// of the two endpoints that is not the apex of a triangle on the edge, or the
// collapse of a tetrahedron into two back-to-back triangles). Closed
// manifolds therefore stay closed manifolds.
//
// Generated attributes. Attribute weights are for data the positions do
// not determine: authored normals (hard edges, artist-bent shading), UVs,
// colours. Normals a caller computed from the positions themselves (the
// cook does when a source has none) carry no information the positions
// lack: their quadric only restates curvature, which the geometric quadric
// and the tolerance bound already measure, and it is weighted against
// positions, so it steers collapses away from where geometry error is
// cheapest. Such streams must be left out (nil), which is what the cook
// does. Measured through the cook (bench/compare, cook rows,
// positions-only sources, error limit 1, Hausdorff to the source, one
// run): weighting the cook's generated normals at 0.5 gave 0.96-1.68x
// gltfpack's error on bunny, FlightHelmet and bunny-sub2 (above 1 on 8 of
// 9 rows); leaving them out gave 0.56-1.08x. The other suspects were not
// the cause: positions-only levels from one Chain came out at 0.84-1.15x
// the error of separate Simplify calls per ratio, and the default 1% limit
// only decides where a level stops (with generated normals weighted the
// bunny's 0.25 and 0.1 levels stopped at 1242 triangles; without, they
// reach 918 and 642). Canonicalization was not isolated: every number here
// is on canonicalized input, as the cook runs it.
//
// The row still above gltfpack there, the bunny (3,674 triangles) at 0.5
// (1.08x by both bench metrics), is the simplifier's own: nothing is
// weighted, the limit is 1, and a Chain's first level is what Simplify
// gives on the same input. Over 12 random triangle orders of the cook's
// input, its 0.5 level measured 0.00345 of the diagonal (geomerr) against
// meshoptimizer's 0.00320 (0.25: 0.00677 against 0.00918; 0.1: 0.0138
// against 0.0194); on a 1/8 barycentric grid over every triangle of both
// surfaces, 0.00401 against 0.00345. Much of the spread between orders is
// sampling: geomerr's level-to-source half ranged 0.0030-0.0040 over six
// of the orders while the grid's maximum over the same levels stayed at
// 0.00356. The level's last pass (9 triangles) takes a collapse whose
// tolerance bound is 0.0039 of the diagonal, but that collapse does not
// set the level's error: with 200,000 samples per surface the level's
// farthest point (0.00393 of the diagonal, level to source, at (-0.11,
// 0.17, -0.96) in the source's units) lies where the collapses that
// touched it had bounds of at most 0.0032 of the diagonal, so the
// tolerance bound undershoots there by a fifth; and committing the last pass strictly cheapest first by fresh
// cost (a heap, neighbours re-measured after each commit) left that
// error at 0.00393 while the bench rows went from 1.077 / 1.075 to
// 1.168 / 1.158 (lower costs, other triangles, other samples; as the last
// two passes, 29 and 9 triangles, also 0.25 from 0.781 to 1.046). Adding
// to the local bound the distance from each old fan triangle's centroid
// to the triangle that replaces it brought the dense 0.5 error to 0.00330
// (below meshoptimizer's dense 0.00345) but the bench's sampled rows only
// to 1.039 / 1.063, and moved others over 1: the bunny with normals at 0.5
// (cook and package rows) 0.891 to 1.002 by geomerr, FlightHelmet's
// package row at 0.1 0.977 to 1.022x meshoptimizer's. Its variants (the centroid to the nearest
// new fan triangle, old edge midpoints, the distance scaled by 0.5-1.2)
// moved the dense 0.5 error between 0.0033 and 0.0039 with no order
// (0.25: 0.0063-0.0075): at this size one farthest point decides the
// row, and it moves with every change of the collapse order. Nor does
// picking the best of several collapse orders close it: capping each
// pass at a fraction of the triangles left (0.1 down to 0.01, eight
// schedules, each ranking afresh more often) gave 0.5 levels of 0.00323
// to 0.00393 of the diagonal with 200,000 samples per surface, against
// gltfpack's 0.00312 measured the same way, and keeping per level the
// schedule measured best (the default and caps of 0.05 and 0.02, 58,000
// samples per surface) brought the bench rows to 0.939 by geomerr but
// 1.016 by three-mesh-bvh, for 40 times the LOD time.
//
// Permissive. With Options.Permissive a seam vertex may also move off its
// seam onto a manifold neighbour: both wedges merge into the neighbour's
// one vertex (the triangles on the far side take the near side's
// attributes there), and seam edges add no edge quadric, so leaving the
// seam costs only the moved wedges' attribute error. Border and locked
// vertices keep their rules; a seam vertex still never moves onto another
// seam except along its own loop, since its wedges would have no partner.
//
// Error. Positions are normalized by the mesh extent, the longest side of
// the axis-aligned box of the referenced vertices (as meshopt_simplifyScale
// does; the diagonal would make the same number mean less on flat meshes).
// A collapse's error is the square root of its quadric error: the
// weight-averaged squared distance to the accumulated face planes (weighted
// by the square root of the doubled face area) and border/seam edge planes,
// plus Hoppe's area-weighted attribute error of every wedge that moves.
// Result.Error is the largest error of the collapses performed, relative to
// the extent unless Options.Absolute. Because quadrics accumulate, it is
// measured against the input, not against the previous pass.
//
// Tolerance. Quadric errors are averages; what a viewer sees (and what a
// Hausdorff distance measures) is the largest deviation. Each position class
// also carries a measured bound on how far the surface it stands for has
// drifted: a collapse costs the mover's bound plus the distance from the
// removed point to the new fan and from the new edges' midpoints to the old
// fan; the target keeps that bound and its fan neighbours half of it. A
// collapse ranks by the larger of its quadric error and its bound squared
// (see tolerance.go); when a collapse is re-measured as it commits, its
// fresh bound squared is added to the attribute part of its quadric error
// (the bound measures geometry only, so a large attribute error must not
// hide it). This steers the order only: the error limit and
// Result.Error stay on the quadric error. On the bench-compare meshes the
// sampled Hausdorff errors came out at 0.47-1.00x meshoptimizer's
// (0.04-0.45x on the dense displaced bunny), where quadric-only ordering
// gave 0.69-1.32x; it about doubles the run time. Measured again for the
// speed issue (#18) with the bounds taken out (validity checks kept, ranks
// on the quadric error alone): the default cook of the 1.19M-triangle
// bench mesh spent 2.78-2.91 s in its LOD stage against 4.74-5.00 s with
// them (whole process 4.0-4.2 s against 6.0-6.2 s, three alternating
// runs), while the bench-compare cook rows went from one of 15 above
// gltfpack's error (1.08x) to 8 of 15 (up to 1.43x by three-mesh-bvh):
// the bounds are what keeps the LOD quality bar, and they cost the time.
//
// Ordering. Instead of a priority queue, each pass lists all candidate
// edges, ranks them, sorts them (stable radix sort on float32 bits) and
// commits them in order, skipping any that touches a vertex already moved in
// the pass so no rank goes stale; a pass stops at its triangle goal, or when
// costs rise above 2.5 times the goal's rank (meshoptimizer stops at 1.5;
// see passErrorBound). Bounds need the fan as it is when the collapse
// commits, so a collapse whose fresh cost exceeds the pass goal is deferred
// to a later pass (where its cached bound ranks it); a pass stops walking
// after 8 deferrals per goal edge, and a pass that deferred everything
// retries with its goal raised to the cheapest quarter of the deferred
// costs. With weighted attributes, past the first pass of a level (a goal
// under half the triangles), a pass's first walk is stricter: a collapse
// whose fresh cost exceeds its rank by more than raiseSlack (1.25) is
// deferred too, unless it costs no more than the pass has committed
// already. There the pass goal alone let a few collapses whose ranks
// were far below their fresh costs set a level's error: on the
// bench-compare cook rows FlightHelmet with its normals and UVs went from
// 1.02x gltfpack's error to 0.92x at 0.25 and from 1.02x to 0.73x at 0.1,
// and bunny-sub2 with normals (the package alone) from 1.01x
// meshoptimizer's to 0.98x at 0.5. It costs passes (six to eight on the
// 1.19M-triangle mesh with its normals). Skipping each level's first pass
// keeps the parallel regions (below) committing most of that pass. On
// geometry alone the same rule moved rows both ways around 1.0x (slack
// 1.25: FlightHelmet's 0.1 level 0.98x to 1.02x meshoptimizer's; 1.5: its
// cook row 0.98x to 1.00x gltfpack's), so it is not used there.
// An edge's quadric errors are kept across passes until a collapse
// changes the moving class's quadrics or seam links (edgeCache), which
// reuses 30-70% of them on
// FlightHelmet; validity and bounds are not worth caching (a deferred
// collapse's neighbourhood has almost always changed by the time it is
// reached again: 2% reuse on FlightHelmet). This is O(n log n)-like in
// practice and handles a million triangles in seconds.
//
// Hubs and cancellation. Evaluating a collapse walks the fans of both of
// its classes, so around a vertex of huge valence (a fan of 200,000
// triangles around one vertex is a valid file) a pass would walk that fan
// once per spoke. Each class therefore has a budget per pass (fanBudget
// fan triangles walked for it, see work.go); a candidate touching a class
// that spent it waits for the next pass, as if that class had moved. The
// budget never binds below a valence of about 90, so ordinary meshes
// simplify exactly as without it; a 200k fan simplifies in about the time
// of a grid of the same size (its rim collapses along the border while the
// hub waits). SimplifyContext and ChainContext check their context at every
// pass and every pollWork units of work within one (tens of
// milliseconds at most), and return an error wrapping ctx.Err().
//
// Chains. Chain takes snapshots of one collapse sequence at each target, so
// levels nest, cost one simplification in all, and report errors against
// LOD0. A level that removes less than 10% of the previous non-empty level
// is returned empty (LODT indexCount 0: reuse the previous level).
//
// Sloppy. Only with Options.Sloppy, and only when edge collapse stalls above
// the target, the remaining mesh is clustered on a uniform grid whose
// resolution is searched to meet the target; each cell keeps the existing
// vertex nearest its mean position. Pinned vertices keep their own cells.
// Clustering ignores seams and may fold the surface; its error (the largest
// vertex-to-representative distance) is added to the collapse error and the
// total still respects TargetError. In a Chain every sloppy level is
// clustered from the last edge-collapse state, so sloppy levels do not nest.
//
// Vertex order. Simplify and Chain first renumber the vertices in the order
// the index buffer first uses them and drop unreferenced ones (compact.go),
// so the per-vertex state is read mostly in sequence, then map the result
// back to the caller's numbering. Position classes take their
// representative from this order.
//
// Determinism. Every loop runs in index order, maps are only used for
// lookups, and the sort is stable, so the same input and options give the
// same output on every run. Work that is independent per item runs in
// chunks of 4096 triangles on up to GOMAXPROCS goroutines (internal/par):
// listing and ranking candidate edges (each owns its corner's edge cache
// and reads nothing that changes meanwhile; a block of 8 chunks' lists is
// appended in chunk order before the next block starts), face quadrics
// (a block at a time, then summed into vertices in triangle order, each
// vertex by the goroutine that owns its range of vertex numbers) and
// compacting the result (chunks compact in place, then
// slide down in chunk order). On meshes of 32768 triangles or more,
// committing collapses also runs in parallel, in up to 8 regions of the
// mesh whose candidates cannot touch each other's classes, with one final
// sequential walk over the whole rank order for the rest (walk.go); the
// region count depends on the triangle count only. On bunny-sub4 two cores
// take 0.71-0.80 of one core's time. Output bytes are the same for every
// GOMAXPROCS (TestSimplifySameForEveryGOMAXPROCS, also under -race;
// TestBlockedStepsMatchOneSweep; TestRegionsWalkLargeMeshes). Tried and
// not kept, both byte-identical for every GOMAXPROCS: computing the final
// walk's bounds ahead on every core in windows of 2048 ranks, each taken
// only if no commit of its window touched what it read (95% were taken);
// on the 1.19M-triangle bench mesh the windows cost 0.71-0.88 s on two
// idle cores against 0.91-1.20 s for all of the plain walk's bounds (the
// fans are read twice, once ahead and once to check them), so the final
// walk went from 1.17-1.54 s to 1.15-1.46 s, and on a loaded machine it
// was slower, waiting at each window's join. And listing the regions'
// ranks in parallel chunks instead of one loop: 0.20-0.29 s against
// 0.22-0.28 s over the whole chain. And handing each level of a Chain to
// the caller as soon as it was final, with the pass buffers dropped
// between levels and collected, so that the cook put the 0.5 level in
// vertex-cache order beside the 0.25 level's passes: five alternating
// whole-process runs on the 1.19M-triangle bench mesh took 4.81-5.83 s
// (median 5.62) against 5.36-5.80 s (5.64), at the same peak RSS
// (583-608 MiB against 588-594): the next level's regions and ranking
// already keep both cores busy, and its final walk is too short to hide
// the order behind. Arithmetic is
// float64 without explicit fusing;
// architectures where the Go compiler fuses multiply-adds (arm64, ppc64,
// s390x) may rank near-ties differently from amd64.
package simplify
