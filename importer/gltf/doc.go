// Package gltf imports glTF 2.0 (.gltf and .glb) into meshcook's canonical
// model, mesh.Scene, baking every static node's world transform into its
// meshes; skinned meshes stay in mesh space with their skeleton.
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
//     external URI as written, MIME type). The encoded bytes of every image
//     a material texture references are loaded into Image.Data (buffer
//     view, data URI, or file inside the source folder, each at most
//     Options.MaxImageBytes); unreferenced images keep Data nil.
//
// # Skins
//
//   - Only skin 0 becomes Scene.Skeleton; other skins are counted in one
//     warning and mesh nodes bound to them are imported as static meshes.
//   - Joint order is skin.joints order, unless some joint's parent comes
//     after it: then the joints are reordered parents first (stable
//     depth-first: each joint right after its not-yet-placed ancestors),
//     because .hmesh SKEL and the skinned payload need parent < index;
//     JOINTS values and animation channels are remapped to match.
//   - A joint's parent is its nearest node ancestor that is a joint of the
//     skin, else -1. Bind TRS is the node's TRS (a matrix is decomposed);
//     non-joint nodes between a joint and its joint parent, and every node
//     above a root joint, are composed into it, so chaining the bind TRS
//     reproduces the glTF joint world matrices. Inverse binds are read
//     (float MAT4, one per joint) or identity when absent.
//   - A mesh node bound to skin 0 is not transformed (glTF skinning ignores
//     the node's transform): positions stay in mesh space. Its submeshes get
//     Joints and Weights: every JOINTS_n/WEIGHTS_n set (u8/u16 joints;
//     float or normalized u8/u16 weights) is read, repeated joints merged,
//     the four largest weights kept (ties to the lower joint) and divided by
//     their sum; a vertex whose weights sum to at most 1e-6 (or a primitive
//     without JOINTS_0) is bound to joint 0 with weight 1. Unused slots are
//     joint 0, weight 0.
//
// # Morph targets
//
//   - POSITION and NORMAL deltas of every target (sparse accessors too;
//     TANGENT deltas are not carried) become dense Submesh.Morphs, named
//     from the mesh's extras.targetNames, else target_<i>. Baked instances
//     transform position deltas by the world matrix's linear part and
//     normal deltas by its inverse transpose (not renormalized). Deltas
//     count against MaxVertices (separately from the vertices).
//
// # Animations
//
//   - Every animation becomes one mesh.Animation, in order, even with no
//     channel left. Translation, rotation and scale channels on joints of
//     skin 0 are kept with their interpolation (CUBICSPLINE values stay
//     in-tangent, value, out-tangent per key); a joint with non-joint nodes
//     above it (up to its joint parent) has its values composed with their
//     transform, exactly when that transform is rotation, uniform scale and
//     translation (else approximately, counted in a warning). Channels on
//     other nodes go to importer/rig in files without skins (node animation
//     becomes a rigid skeleton: the animated nodes and their ancestors are
//     joints, every submesh is bound with weight 1 to its node's joint,
//     docs/import.md "Node animation"); in a skinned file they are dropped
//     and counted (Scene.Drops). Morph-weight channels become one
//     PathWeights channel per submesh the node's mesh produced (Joint = the
//     submesh index). Channels with an extension's path or target are
//     dropped and counted.
//     Duration is the last key time over the kept channels. Key times must
//     be finite, ≥ 0 and non-decreasing; keys count against
//     Options.MaxAnimationKeys.
//
// Cameras, lights and KHR_animation_pointer are not imported.
//
// # Compressed buffer views
//
//   - EXT_meshopt_compression and KHR_meshopt_compression: views with the
//     extension are decoded by the subpackage meshopt (vertex codec v0 and
//     v1, triangle and index codecs; octahedral, quaternion, exponential
//     and colour filters), written from the extensions' specifications and
//     checked against meshoptimizer's own decoder and gltfpack -c output.
//     The extension object must agree with its view (byteLength = count ×
//     byteStride); placeholder and fallback buffers are never read. The
//     decoded bytes count against Options.MaxDecodedBytes, and no view may
//     claim more than its compressed bytes can expand to
//     (meshopt.MaxOutput), both checked before allocating.
//
// # Refused
//
//   - extensionsRequired naming anything but KHR_mesh_quantization,
//     EXT_/KHR_meshopt_compression, KHR_texture_transform and
//     KHR_materials_* — notably KHR_draco_mesh_compression
//     (ErrUnsupportedExtension);
//   - buffer or image URIs that are not relative paths inside the source's
//     folder: schemes, absolute paths, ".." that climbs out
//     (ErrOutsideFolder, with internal/srcpath's ErrOutside); with
//     Options.StrictPaths, Load also refuses files that symbolic links lead
//     out of the folder (srcpath.ErrLinkOutside); without it links are
//     followed, as build systems' sandboxes need;
//   - skin joints that do not exist or repeat, an inverse-bind accessor
//     whose count is not the joint count, JOINTS_n without WEIGHTS_n (or
//     the reverse), integer weights that are not normalized, negative
//     weights, a weighted joint index past the skin's joints; animation
//     samplers that do not exist, output counts that do not match the keys
//     (× 3 for CUBICSPLINE), decreasing or negative times;
//   - a missing POSITION, indices out of range, non-finite values, accessors
//     or views that overrun their buffers, accessor types or component types
//     an attribute does not allow, attribute counts that differ from
//     POSITION's, node cycles and nodes with two parents;
//   - scenes larger than Options.MaxVertices / MaxIndices / MaxSubmeshes
//     (generous defaults), which bound what a small hostile file can make us allocate.
package gltf
