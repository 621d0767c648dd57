// Package fbx imports Autodesk FBX files, binary and ASCII, into meshcook's
// canonical model, mesh.Scene. It is our own reader (no cgo, no third-party
// FBX library; zlib from the standard library). Its behaviour follows the
// FBX SDK's file conventions as ufbx and Blender's importer read them.
//
// Two layers: Parse reads the node tree (Document, Node, Property) of
// either encoding; Convert (and Decode, Load) give that tree its scene
// meaning. Errors are *FormatError values, on one line, located:
//
//	fbx: <path>: offset 0x1b: node end offset 0x100000 past end of file (size 0x3f)
//	fbx: <path>:12: array declares 3 values but holds 2
//
// and wrap ErrFormat (damaged bytes), ErrUnsupported (well-formed but not
// read), ErrLimit (an Options limit) or ErrScene (a consistent tree with an
// inconsistent scene). No input makes the package panic; every count is
// checked against the bytes that remain or against Options before anything
// is allocated, so memory stays proportional to the input and the limits.
//
// # Files read
//
//   - Binary FBX 6100–7700: node records with 32-bit offsets before 7500 and
//     64-bit ones from 7500; every property type (C Y I L F D S R and the
//     b c i l f d arrays); arrays raw (encoding 0, stored size must equal
//     count × element size) or zlib (encoding 1, must inflate to exactly
//     count × element size and end there, checksum included, and may not
//     claim more than deflate's 1032:1 expansion of its stored bytes). A
//     file that ends right after a complete top-level node, without the
//     closing null record and footer, is read up to there.
//   - ASCII FBX 6.x and 7.x: "Name: values { children }", "*N { a: … }"
//     arrays (the count must match), quoted strings, bare words, ';'
//     comments, value lists continued on the next line through a comma
//     (6.x starts continuation lines with it), tolerated leading commas,
//     out-of-range literals as ±Inf. The version is FBXVersion, else the
//     "; FBX 7.5.0 project file" banner, else 7400/6100 by the presence of
//     Properties70.
//
// # Scene
//
//   - Objects and Connections: 7.x objects by int64 id (root 0), 6.x by
//     "Class::Name" (root "Model::Scene", meshes holding their geometry in
//     the Model node). OO connections in file order give parents, geometry,
//     materials (the material slots, in connection order), deformers and
//     bones; OP connections bind textures to material properties.
//   - Properties70 (P) and Properties60 (Property) with the Definitions'
//     PropertyTemplate defaults for the object's class.
//   - Model transforms with the full pivot chain, pre/post rotation,
//     rotation order and geometric transform (see transform.go for the
//     formula). RotationActive is not consulted (pre/post rotation always
//     apply) and InheritType is read as RrSs (plain matrix products).
//   - Geometry: Vertices, PolygonVertexIndex (the last corner of a polygon
//     stored as -1-i), and the layer elements Normal, Tangent, Binormal, UV,
//     Color and Material with mappings ByPolygonVertex, ByVertex/ByVertice,
//     ByPolygon and AllSame and references Direct and IndexToDirect/Index.
//     The element layer 0 names is used (else the lowest-numbered one).
//     ByEdge layers are dropped with a warning. Out-of-range layer indices
//     read as zero (white for colors) with a warning; out-of-range polygon
//     vertex indices are an error.
//   - Output: one mesh.Submesh per mesh Model × Geometry × material slot
//     used, in Objects order then slot order, named after the Model. Every
//     polygon corner becomes its own vertex (the cook's weld,
//     mesh.Canonicalize, merges bit-identical ones). UVs are flipped to a
//     top-left origin (v' = 1 - v); colors are passed through as stored;
//     tangent w is the side of the binormal relative to normal × tangent.
//     Positions are transformed in float64, normals by the inverse
//     transpose, and a mirroring transform flips triangle winding.
//   - Materials: every Material object in Objects order (see material.go
//     for the Lambert/Phong mapping); images from Texture objects, with the
//     bytes of an embedded Video when present.
//   - Skins: see skin.go. Joints are the cluster bones of every skinned
//     geometry (and the bone an unskinned mesh is parented under, which
//     binds it rigidly), parents first by depth, name and file order; each
//     vertex keeps its 4 largest positive weights, renormalised; a vertex
//     with none is bound to joint 0 (a root) with weight 1.
//   - Hidden models (Visibility 0 or Show false, on the model or an
//     ancestor) are skipped unless Options.IncludeHidden.
//   - Warnings are counted and aggregated: one line per kind in
//     Scene.Warnings ("… (12 times)").
//
// # Space conversion
//
// Unless Options.PreserveSpace, positions go to meshcook's (and glTF's)
// frame: +X right, +Y up, +Z forward (right-handed), 1 unit = 1 metre.
// GlobalSettings' CoordAxis/UpAxis/FrontAxis (with their signs) say which
// file axis is right, up and front; row r of the conversion picks the file
// axis assigned to output axis r with its sign, and UnitScaleFactor
// (centimetres per file unit, default 1) scales by UnitScaleFactor/100.
// Maya's Y-up default (Coord 0, Up 1, Front 2, all +1) is the identity
// up to units; 3ds Max's Z-up (Up 2, Front 1 with sign -1) maps (x, y, z)
// to (x, z, -y). Options.Scale multiplies after the conversion. Node
// transforms are baked into the positions unless Options.Local.
//
// # Triangulation
//
// Triangles pass through. A quad is split along its shorter diagonal (by a
// relative margin of 1e-5 on the squared length, 0–2 winning ties) unless
// that split folds against the quad's Newell normal, which means the quad
// is concave at that diagonal; then the other one is used. Larger polygons
// are ear-clipped in the plane of their Newell normal (the best-fit plane),
// keeping their winding; a polygon with no ear left (self-intersecting)
// clips its most convex corner, and polygons over 4096 corners are fanned
// with a warning. Polygons with fewer than 3 corners (loose points and
// edges) are skipped with a warning.
//
// # Refused or not imported
//
// Refused: binary versions outside 6100–7700, array encodings other than 0
// and 1, damaged magic, records whose offsets or lengths disagree or run
// past their parent or the file, corrupt or mis-sized zlib arrays, ASCII
// syntax errors, polygon vertex indices out of range, non-finite positions
// ("mesh contains non-finite vertex data"), and anything over the Options
// limits. Not imported (ignored or warned): animation of nodes that are
// not skin joints and of properties other than Lcl Translation, Rotation
// and Scaling, blend shapes, lights, cameras, NURBS and line geometry, UV
// and color sets after the first.
//
// # Animation
//
// Every AnimationStack (FBX 6.1: every Take) becomes one mesh.Animation
// with linear translation, quaternion and scale channels for the skin
// joints it moves, sampled from the full node transform within
// Options.AnimTolerance (see anim.go; curve.go evaluates the keys).
package fbx
