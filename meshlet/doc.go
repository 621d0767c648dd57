// Package meshlet partitions a triangle list into meshlets (small clusters of
// at most MaxVertices unique vertices and MaxTriangles triangles, addressed
// through 8-bit local indices) and computes each meshlet's culling bounds.
//
// The builder (cluster.go) follows the greedy clusterizer of meshoptimizer
// (Arseny Kapoulkine, src/clusterizer.cpp: buildMeshlets and its 1.x seeding),
// which builds on:
//
//   - Graham Wihlidal, "Optimizing the Graphics Pipeline with Compute",
//     GDC 2016 (cluster culling with normal cones);
//   - Christoph Kubisch, "Introduction to Turing Mesh Shaders", NVIDIA 2018
//     (meshlet layout, the 64/124 limits, 8-bit local indices);
//   - Pedro V. Sander, Diego Nehab, Joshua Barczak, "Fast Triangle Reordering
//     for Vertex Locality and Reduced Overdraw", SIGGRAPH 2007 (greedy
//     adjacency-driven emission with live triangle counts).
//
// A meshlet grows from vertex→triangle adjacency (the frontier: unused
// triangles touching its vertices). Candidates are ranked by topological
// priority first (triangles that add no vertex; then triangles that would
// otherwise be left dangling; then fewer new vertices) and then by a
// geometric score: distance from the meshlet centroid in units of the
// expected meshlet radius, times a factor favouring normals close to the
// meshlet's average normal, weighted by Options.ConeWeight, and discounted
// when the candidate's one new vertex would also complete other triangles
// (our addition: vertex-limited meshlets then hold more triangles, about
// 1.5% fewer meshlets, which pays for the bounded reach below). When nothing
// adjacent fits the meshlet is closed and the next one starts from a seed
// on the border of the used region (fewest live neighbours, nearest the
// mesh's minimum corner), so meshlets sweep the surface instead of leaving
// slivers. When a meshlet has no adjacent triangle left, the nearest
// unused triangle (by centroid) joins it, so disconnected pieces still
// fill meshlets, unless it lies beyond 3 expected radii of the meshlet's
// centroid (our addition: meshoptimizer bridges any gap, which merges the
// leftovers of separate pieces into wide meshlets; bounding the reach gave
// 2-9% smaller mean spheres and more cone culling on the benchmark meshes
// for at most as many meshlets as meshoptimizer). Each finished meshlet
// keeps its triangles in the order they were added, which numbers its
// local vertices by first use. A meshopt_optimizeMeshlet-style local
// reorder (most corners shared with the last three triangles) was
// measured and dropped: over the benchmark meshes it lowered misses per
// triangle of an 8-entry FIFO of local vertices by 7-11% but raised them
// by 1.5-5% at 16 entries and 1-1.5% at 32 (growth from adjacency already
// emits neighbours together), for 12-14% of the build time.
//
// The greedy loop is kept linear in practice: triangles whose corners are
// all in the meshlet are found as their last corner arrives and taken from
// a stack in O(1); the other candidates sit in two lists (triangles with
// two corners in, or about to dangle, and triangles touching by one
// corner, looked at only when nothing in the first fits), each entry
// carrying its corners so scans walk memory in order;
// a scan ranks priorities first and computes the score (a square root)
// only for the fitting candidates of the best priority. The spatial
// fallback asks a uniform grid of centroids (grid.go; cells a quarter of
// the reach wide, or wider to keep at most one cell per triangle and 64 a
// side) for the nearest unused triangle within reach, scanning rings of
// cells outwards: 27 cells a query when one is within a quarter reach,
// 729 at most; O(n) to build, built on first use. Only when
// nothing is within reach and no border seed is left does the nearest
// unused triangle anywhere start the next meshlet: the first such queries
// scan the fallback grid's rings outwards (each ring's shell only) until
// no nearer cell can remain; once they have visited four cells and
// points per triangle a
// k-d tree over the triangles still unused answers the rest (J. L.
// Bentley, "Multidimensional binary search trees used for associative
// searching", CACM 1975; leaves of 32, per-subtree live counts), so
// scattered input stays O(n log n). Every one of these answers the lowest
// index among equally near triangles, so none changes the output.
//
// Meshes of more than 131,072 triangles are split (split.go) into
// ceil(n/131,072) parts by a k-d split of the triangle centroids: the
// median (in proportion to the part counts on each side) along the widest
// axis, recursively, ties broken by triangle index, so the partition is a
// function of the input alone. Each part is a compact mesh (its own vertex
// numbering) built with the whole mesh's expected radius on up to
// GOMAXPROCS goroutines, and the parts' meshlets are concatenated in part
// order: the output is byte-identical for every GOMAXPROCS, and -j
// speeds up cooking without changing it. A k-d split keeps parts compact
// (a Morton-order cut can leave a part in disconnected pieces); parts cost
// a few meshlets each along their seams (0.4% more than one run on the
// 940k-triangle benchmark mesh, 8 parts; 0.3% wider spheres); 65,536-
// triangle parts, meant to stay in cache, measured no faster on one core
// and cost more meshlets (0.7%, 15 parts) and time on meshes just above
// the limit.
//
// Flex mode (Options.MinTriangles, SplitFactor; as meshoptimizer's
// buildMeshletsFlex) measures distance in expected radii of a
// MinTriangles meshlet and closes a meshlet of at least MinTriangles
// triangles early when the best next triangle that adds a vertex lies
// farther than SplitFactor of those radii from its centroid, trading
// meshlet count for tighter spheres on scattered geometry.
//
// Bounds (bounds.go, sphere.go) follow meshopt_computeMeshletBounds with
// two tightenings: the sphere is the minimum enclosing sphere of the
// meshlet's vertices (Emo Welzl, "Smallest enclosing disks (balls and
// ellipsoids)", 1991, in Bernd Gärtner's move-to-front form, "Fast and Robust
// Smallest Enclosing Balls", ESA 1999), and the cone axis is the centre of
// the normals' minimum enclosing ball (on nearly flat meshlets the normal
// average when it is better). The cone is tested without its apex as
//
//	dot(center - camera, axis) >= cutoff * |center - camera| + radius
//
// which culls a meshlet only when every one of its triangles faces away
// (the stored float32 values are widened so this holds after rounding).
//
// Everything is deterministic: the same input and Options give the same
// Result on any machine and thread count (no maps; goroutines only build
// independent parts whose results are joined in a fixed order; float
// products that feed decisions are rounded explicitly so no fused
// multiply-add can change a choice).
package meshlet
