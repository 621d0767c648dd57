// Package meshlet partitions a triangle list into meshlets (small clusters of
// at most MaxVertices unique vertices and MaxTriangles triangles, addressed
// through 8-bit local indices) and computes each meshlet's culling bounds.
//
// The builder follows the greedy clusterizer of meshoptimizer
// (Arseny Kapoulkine, src/clusterizer.cpp, buildMeshlets), which in turn
// builds on:
//
//   - Graham Wihlidal, "Optimizing the Graphics Pipeline with Compute",
//     GDC 2016 (cluster culling with normal cones);
//   - Christoph Kubisch, "Introduction to Turing Mesh Shaders", NVIDIA 2018
//     (meshlet layout, the 64/124 limits, local u8 indices);
//   - Pedro V. Sander, Diego Nehab, Joshua Barczak, "Fast Triangle Reordering
//     for Vertex Locality and Reduced Overdraw", SIGGRAPH 2007 (greedy
//     adjacency-driven triangle emission with live triangle counts).
//
// Triangles are grown out of vertex→triangle adjacency with a topological
// priority (triangles that add no new vertex first, then triangles that would
// otherwise be left dangling, then fewer new vertices), ties broken by a
// geometric score: distance from the meshlet centroid relative to the
// expected meshlet radius and deviation from the meshlet's average normal,
// weighted by Options.ConeWeight. When a meshlet has no adjacent candidate
// left, a k-d tree over triangle centroids supplies the nearest unused
// triangle (J. L. Bentley, "Multidimensional binary search trees used for
// associative searching", CACM 1975), so disconnected pieces still fill
// meshlets. Each finished meshlet's triangles are reordered for vertex reuse
// and its local vertices numbered by first use (as meshopt_optimizeMeshlet).
//
// Bounds follow meshopt_computeMeshletBounds: a bounding sphere that holds
// every meshlet vertex in float32 arithmetic (Ritter, "An Efficient Bounding
// Sphere", Graphics Gems 1990, refined by Bădoiu–Clarkson core-set
// iterations, "Smaller core-sets for balls", SODA 2003), and a normal cone
// from triangle geometric normals, tested without the apex as
//
//	dot(center - camera, axis) >= cutoff * |center - camera| + radius
//
// which culls a meshlet only when every one of its triangles faces away.
//
// Everything is deterministic: the same input and Options give the same
// Result on any machine and thread count (float products that feed decisions
// are explicitly rounded, so no fused multiply-add can change a choice).
package meshlet
