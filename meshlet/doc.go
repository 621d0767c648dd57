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
// 1.5% fewer meshlets than meshoptimizer at 64/124). When nothing
// adjacent fits the meshlet is closed and the next one starts from a seed
// on the border of the used region (fewest live neighbours, nearest the
// mesh's minimum corner), so meshlets sweep the surface instead of leaving
// slivers. When a meshlet has no adjacent triangle left, a k-d tree over
// triangle centroids (J. L. Bentley, "Multidimensional binary search trees
// used for associative searching", CACM 1975) supplies the nearest unused
// one, so disconnected pieces still fill meshlets. Each finished meshlet's
// triangles are reordered for vertex reuse and its local vertices numbered
// by first use (optimize.go, as meshopt_optimizeMeshlet).
//
// Bounds (bounds.go, sphere.go) follow meshopt_computeMeshletBounds with
// two tightenings: the sphere is the minimum enclosing sphere of the
// meshlet's vertices (Emo Welzl, "Smallest enclosing disks (balls and
// ellipsoids)", 1991, in Bernd Gärtner's move-to-front form, "Fast and Robust
// Smallest Enclosing Balls", ESA 1999; Jack Ritter, "An Efficient Bounding
// Sphere", Graphics Gems 1990, as a fallback), and the cone axis is the
// better of the normal average and the centre of the normals' minimum
// enclosing ball. The cone is tested without its apex as
//
//	dot(center - camera, axis) >= cutoff * |center - camera| + radius
//
// which culls a meshlet only when every one of its triangles faces away
// (the stored float32 values are widened so this holds after rounding).
//
// Everything is deterministic: the same input and Options give the same
// Result on any machine and thread count (no maps, no goroutines, and float
// products that feed decisions are rounded explicitly so no fused
// multiply-add can change a choice).
package meshlet
