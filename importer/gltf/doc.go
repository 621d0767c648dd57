// Package gltf imports glTF 2.0 (.gltf and .glb) into meshcook's canonical
// model, mesh.Scene, baking every node's world transform into its meshes.
//
// It builds on github.com/qmuntal/gltf for the document model and its JSON
// decoding (glTF's defaults, enums, required properties). The container,
// buffer resolution and accessor reading are ours, so that every count is
// bounded before anything is allocated and every error names the file:
// errors read "gltf: <path>: <what>", on one line. No input makes it panic.
//
// # Supported
//
//   - .gltf with external buffers (relative to the file's folder) or base64
//     data URIs; .glb with its BIN chunk. The format is sniffed from the
//     content, not the name.
//   - Nodes: the default scene's, or every scene's roots when there is no
//     default, or every parentless node when there are no scenes. World
//     transforms (matrix or TRS, composed down the hierarchy) are baked into
//     positions, normals (inverse transpose, renormalized) and tangents
//     (renormalized; w flipped under a mirroring transform, which also flips
//     triangle winding so fronts stay counter-clockwise).
//   - One mesh.Submesh per triangle primitive per node, named
//     "<mesh name or mesh_<i>>/<primitive index>", in traversal order.
//     TRIANGLE_STRIP and TRIANGLE_FAN become lists (glTF's corner order);
//     non-indexed primitives get 0..n-1. Points and lines are skipped and
//     counted in one warning.
//   - Attributes POSITION, NORMAL, TANGENT, TEXCOORD_0 (float, or byte /
//     ubyte / short / ushort, normalized or not, per KHR_mesh_quantization)
//     and COLOR_0 (vec3 or vec4; float or normalized ubyte / ushort). Sparse
//     accessors, interleaved views (byteStride), u8/u16/u32 indices.
//   - The whole material array (metallic-roughness factors, emissive,
//     normal scale, occlusion strength, alpha mode and cutoff, double sided,
//     textures resolved to image indices) and the whole image array (name,
//     external URI as written, MIME type).
//
// Skins, morph targets, animations and cameras are not imported yet; a
// skinned mesh comes in as a static mesh in its node's world space.
//
// # Refused
//
//   - extensionsRequired naming anything but KHR_mesh_quantization,
//     KHR_texture_transform (ignored) and KHR_materials_* — notably
//     KHR_draco_mesh_compression and EXT_meshopt_compression
//     (ErrUnsupportedExtension);
//   - buffer or image URIs that are not relative paths inside the source's
//     folder: schemes, absolute paths, ".." that climbs out
//     (ErrOutsideFolder); Load also opens the folder as an os.Root, so
//     symbolic links cannot lead out of it;
//   - a missing POSITION, indices out of range, non-finite values, accessors
//     or views that overrun their buffers, accessor types or component types
//     an attribute does not allow, attribute counts that differ from
//     POSITION's, node cycles and nodes with two parents;
//   - scenes larger than Options.MaxVertices / MaxIndices / MaxSubmeshes
//     (generous defaults), which bound what a small hostile file can make us allocate.
package gltf
