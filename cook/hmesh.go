package cook

import (
	"fmt"
	"math"

	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/kinds"
	"github.com/meshcook/meshcook/internal/par"
	"github.com/meshcook/meshcook/mesh"
)

// This file adapts a cooked scene to the .hmesh v2 and .hmat v1 structs.

// kPackChunk is the element count of one parallel chunk when packing.
const kPackChunk = 1 << 16

// packHMesh builds the .hmesh and its companion .hmat for one job.
func packHMesh(job Job, c *cooked, opts Options) ([]outputFile, error) {
	scene := c.scene
	f := &hmesh.File{}
	f.Desc.MeshletMaxVerts = uint32(opts.Meshlet.MaxVertices)
	f.Desc.MeshletMaxTris = uint32(opts.Meshlet.MaxTriangles)

	// Material slots: dense, first use in submesh order.
	used := make([]int, len(scene.Submeshes))
	for i, s := range scene.Submeshes {
		used[i] = s.Material
		if s.Material >= len(scene.Materials) {
			return nil, fmt.Errorf("submesh %d: material %d out of range (%d materials)", i, s.Material, len(scene.Materials))
		}
	}
	slots, order := hmat.Slots(used)
	var err error

	// Every array's size is known: allocate each once, then fill each
	// submesh's ranges, the per-element work in parallel chunks.
	n := len(scene.Submeshes)
	bases := make([]uint32, n) // first VTXS vertex of each submesh
	var nv, ni, nm, nmv, nmt int
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		bases[i] = uint32(nv)
		nv, ni = nv+len(s.Positions), ni+len(s.Indices)
		r := &c.meshlets[i]
		nm, nmv, nmt = nm+len(r.Meshlets), nmv+len(r.Vertices), nmt+len(r.Triangles)
	}
	// One submesh (base 0) is the file's indices, meshlet vertices and
	// meshlet triangles as they are: shared, not copied (the encoder only
	// reads them).
	one := n == 1
	f.Vertices = make([]hmesh.Vertex, nv)
	if !one {
		f.Indices = make([]uint32, ni)
		f.MeshletVertices = make([]uint32, 0, nmv)
		f.MeshletTriangles = make([]uint8, 0, nmt)
	}
	f.Meshlets = make([]hmesh.Meshlet, 0, nm)
	f.MeshletBounds = make([]hmesh.MeshletBounds, 0, nm)
	f.Submeshes = make([]hmesh.SubMesh, 0, n)
	subBounds := c.bounds

	allTangents := true
	firstIndex := 0
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		base := bases[i]
		if len(s.Tangents) != len(s.Positions) {
			allTangents = false
		}
		verts := f.Vertices[base : int(base)+len(s.Positions)]
		par.Ranges(len(verts), kPackChunk, func(_, lo, hi int) {
			for v := lo; v < hi; v++ {
				verts[v] = gpuVertex(s, v)
			}
		})
		if one {
			f.Indices = s.Indices
		} else {
			idx := f.Indices[firstIndex : firstIndex+len(s.Indices)]
			par.Ranges(len(idx), kPackChunk, func(_, lo, hi int) {
				for k := lo; k < hi; k++ {
					idx[k] = s.Indices[k] + base
				}
			})
		}

		f.Submeshes = append(f.Submeshes, hmesh.SubMesh{
			FirstIndex:   uint32(firstIndex),
			IndexCount:   uint32(len(s.Indices)),
			FirstMeshlet: uint32(len(f.Meshlets)),
			MeshletCount: uint32(len(c.meshlets[i].Meshlets)),
			MaterialSlot: slots[i],
			Bounds:       hmeshBounds(subBounds[i]),
		})
		firstIndex += len(s.Indices)
		r := c.meshlets[i]
		vbase := uint32(len(f.MeshletVertices))
		tbase := uint32(len(f.MeshletTriangles) / 3)
		for _, m := range r.Meshlets {
			f.Meshlets = append(f.Meshlets, hmesh.Meshlet{
				VertexOffset:   m.VertexOffset + vbase,
				VertexCount:    m.VertexCount,
				TriangleOffset: m.TriangleOffset + tbase,
				TriangleCount:  m.TriangleCount,
			})
		}
		if one {
			f.MeshletVertices, f.MeshletTriangles = r.Vertices, r.Triangles
		} else {
			for _, v := range r.Vertices {
				f.MeshletVertices = append(f.MeshletVertices, v+base)
			}
			f.MeshletTriangles = append(f.MeshletTriangles, r.Triangles...)
		}
		for _, b := range c.mbounds[i] {
			f.MeshletBounds = append(f.MeshletBounds, hmesh.MeshletBounds{
				Center: b.Center, Radius: b.Radius, ConeAxis: b.ConeAxis, ConeCutoff: b.ConeCutoff,
			})
		}
	}
	packLODs(f, c, bases, len(opts.LOD.Ratios))
	packClusterLOD(f, c, bases)
	if f.Morphs, err = packMorphs(scene, bases, len(f.Vertices)); err != nil {
		return nil, err
	}
	if allTangents && len(scene.Submeshes) > 0 {
		f.Desc.Flags |= hmesh.FlagHasTangents
	}
	if n == 1 {
		f.Bounds = hmeshBounds(subBounds[0]) // the same positions
	} else {
		all := make([]mesh.Vec3, 0, nv)
		for i := range scene.Submeshes {
			all = append(all, scene.Submeshes[i].Positions...)
		}
		f.Bounds = hmeshBounds(mesh.ComputeBounds(all, nil))
	}
	if err := packSkin(f, scene); err != nil {
		return nil, err
	}
	c.report.Joints = len(f.Joints)

	// Materials: MTRL hashes and .hmat rows in slot order.
	names := make([]string, len(scene.Materials))
	for i, m := range scene.Materials {
		names[i] = m.Name
	}
	leaves := hmat.Leaves(names, hmat.MaterialPrefix)
	imageLeaves := imageLeaves(scene)
	rows := make([]hmat.Material, 0, len(order))
	for _, src := range order {
		f.Materials = append(f.Materials, hmat.Hash(hmat.Ref(job.SourceRef, leaves[src])))
		rows = append(rows, hmatRow(scene.Materials[src], job.SourceRef, imageLeaves))
	}

	// Checked once, by the read-back (StageValidate), not also here.
	meshBytes, err := hmesh.EncodeUnchecked(f)
	if err != nil {
		return nil, err
	}
	matBytes, err := hmat.Encode(rows)
	if err != nil {
		return nil, err
	}
	return []outputFile{
		{name: job.Name + ".hmesh", kind: "hmesh", data: meshBytes, validate: readBack("hmesh", meshBytes)},
		{name: job.Name + ".hmat", kind: "hmat", data: matBytes, validate: readBack("hmat", matBytes)},
	}, nil
}

// packLODs fills LODI/LODT: per submesh and level a range of global
// indices, indexCount 0 where the level stalled.
func packLODs(f *hmesh.File, c *cooked, bases []uint32, lodCount int) {
	if lodCount == 0 {
		return
	}
	f.LodCount = uint32(lodCount)
	total := 0
	for _, levels := range c.lods {
		for l := 0; l < lodCount && l < len(levels); l++ {
			total += len(levels[l].Indices)
		}
	}
	f.LodIndices = make([]uint32, 0, total)
	f.Lods = make([]hmesh.MeshLod, 0, len(c.lods)*lodCount)
	for i, levels := range c.lods {
		vbase := bases[i]
		for l := 0; l < lodCount; l++ {
			row := hmesh.MeshLod{FirstIndex: uint32(len(f.LodIndices))}
			if l < len(levels) {
				for _, ix := range levels[l].Indices {
					f.LodIndices = append(f.LodIndices, ix+vbase)
				}
				row.IndexCount = uint32(len(levels[l].Indices))
			}
			f.Lods = append(f.Lods, row)
		}
	}
}

// readBack is an output's check before it is written: the decoder of its
// kind in formats/kinds (the one validate and inspect use), which
// validates what it decodes.
func readBack(kind string, b []byte) func() error {
	return func() error {
		_, err := kinds.Decode(kind, b)
		return err
	}
}

// gpuVertex packs vertex v of s. A submesh without tangents gets an
// arbitrary unit tangent perpendicular to the normal (DESC flag bit 0 tells
// readers to ignore it); without UVs the UV is (0, 0).
func gpuVertex(s *mesh.Submesh, v int) hmesh.Vertex {
	out := hmesh.Vertex{Position: s.Positions[v]}
	n := mesh.Vec3{0, 0, 1}
	if s.Normals != nil {
		n = s.Normals[v]
	}
	out.Normal = hmesh.EncodeNormal(n)
	if s.Tangents != nil {
		t := s.Tangents[v]
		out.Tangent = hmesh.EncodeTangent([3]float32{t[0], t[1], t[2]}, t[3] < 0)
	} else {
		out.Tangent = hmesh.PlaceholderTangent(n)
	}
	if s.UV0 != nil {
		out.UV = s.UV0[v]
	}
	return out
}

func hmeshBounds(b mesh.Bounds) hmesh.Bounds {
	return hmesh.Bounds{Min: b.Min, Max: b.Max, Center: b.Center, Radius: b.Radius}
}

// hmatRow converts a source material; texture refs hash
// `<sourceRef>/<imageLeaf>` (docs/formats/hmat.md).
func hmatRow(m mesh.Material, sourceRef string, imageLeaves []string) hmat.Material {
	tex := func(img int) uint64 {
		if img < 0 || img >= len(imageLeaves) {
			return 0
		}
		return hmat.Hash(hmat.Ref(sourceRef, imageLeaves[img]))
	}
	flags := hmat.AlphaModeFlags(uint8(m.AlphaMode))
	if m.DoubleSided {
		flags |= hmat.FlagDoubleSided
	}
	return hmat.Material{
		BaseColorFactor:      m.BaseColorFactor,
		EmissiveFactor:       m.EmissiveFactor,
		Metallic:             m.Metallic,
		Roughness:            m.Roughness,
		NormalScale:          m.NormalScale,
		OcclusionStrength:    m.OcclusionStrength,
		AlphaCutoff:          m.AlphaCutoff,
		Flags:                flags,
		BaseColorTex:         tex(m.BaseColorTexture),
		MetallicRoughnessTex: tex(m.MetallicRoughnessTexture),
		NormalTex:            tex(m.NormalTexture),
		OcclusionTex:         tex(m.OcclusionTexture),
		EmissiveTex:          tex(m.EmissiveTexture),
	}
}

// packSkin fills SKEL from the scene's skeleton and SKIN from the
// submeshes' influences (docs/formats/hmesh.md "Skinning").
//
// SKEL is written whenever the scene has a skeleton (glTF skin 0), so that
// the .hanim clips beside the mesh always have the joints they animate;
// joint order is the importer's (skin.joints order, reordered parents-first
// only when the source lists a child before its parent). SKIN is written
// when at least one submesh has influences. All submeshes share the one
// skeleton; a submesh without influences in a skinned file (a prop baked
// into world space next to the skinned body) is bound rigidly to joint 0
// with weight 1, so it follows the first joint: in bind pose it moves by
// that joint's world bind matrix times its inverse bind matrix, which is the
// identity when the source was bound in the pose it stores (the usual case).
//
// Weights are renormalized in float64 (the importer already makes them sum
// to 1; renormalizing absorbs the float32 rounding of the weld); a vertex
// whose weights sum to no more than 1e-6 is bound rigidly to joint 0.
func packSkin(f *hmesh.File, scene *mesh.Scene) error {
	sk := scene.Skeleton
	if sk == nil || len(sk.Joints) == 0 {
		return nil
	}
	f.Joints = make([]hmesh.Joint, len(sk.Joints))
	for j, jt := range sk.Joints {
		f.Joints[j] = hmesh.Joint{
			InverseBind: jt.InverseBind,
			BindT:       jt.BindT,
			BindR:       jt.BindR,
			BindS:       jt.BindS,
			Parent:      int32(jt.Parent),
		}
	}
	skinned := false
	for i := range scene.Submeshes {
		if scene.Submeshes[i].Joints != nil {
			skinned = true
		}
	}
	if !skinned {
		return nil
	}
	f.Skin = make([]hmesh.SkinVertex, 0, len(f.Vertices))
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		if s.Joints == nil || len(s.Weights) != len(s.Joints) {
			for range s.Positions {
				f.Skin = append(f.Skin, rigidInfluence())
			}
			continue
		}
		for v := range s.Positions {
			sv, err := skinVertex(s.Joints[v], s.Weights[v], len(sk.Joints))
			if err != nil {
				return fmt.Errorf("submesh %d (%s): vertex %d: %w", i, s.Name, v, err)
			}
			f.Skin = append(f.Skin, sv)
		}
	}
	return nil
}

// rigidInfluence binds a vertex to joint 0 with weight 1.
func rigidInfluence() hmesh.SkinVertex {
	return hmesh.SkinVertex{Weights: [4]float32{1, 0, 0, 0}}
}

// skinVertex renormalizes one vertex's influences; every joint index must
// be below jointCount.
func skinVertex(joints [4]uint16, weights mesh.Vec4, jointCount int) (hmesh.SkinVertex, error) {
	var sum float64
	for k, w := range weights {
		if !(w >= 0) || math.IsInf(float64(w), 0) {
			return hmesh.SkinVertex{}, fmt.Errorf("weight %d is %v, want finite and ≥ 0", k, w)
		}
		if int(joints[k]) >= jointCount {
			return hmesh.SkinVertex{}, fmt.Errorf("joint %d not below the skeleton's %d joints", joints[k], jointCount)
		}
		sum += float64(w)
	}
	if sum <= 1e-6 {
		return rigidInfluence(), nil
	}
	out := hmesh.SkinVertex{Joints: joints}
	for k, w := range weights {
		out.Weights[k] = float32(float64(w) / sum)
	}
	return out, nil
}

// packMorphs builds MRPH from every submesh's morph targets (names, rest
// weights, dense deltas; deltas at or below hmesh.MorphDeltaEpsilon are
// left out), or nil when no submesh has one. LOD levels index the same
// vertices, so the deltas apply to every level.
func packMorphs(scene *mesh.Scene, bases []uint32, vertexCount int) (*hmesh.Morphs, error) {
	n := len(scene.Submeshes)
	names := make([][]string, n)
	weights := make([][]float32, n)
	deltas := make([][][]hmesh.SparseDelta, n)
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		for _, m := range s.Morphs {
			names[i] = append(names[i], m.Name)
			weights[i] = append(weights[i], m.Weight)
			d := make([]hmesh.SparseDelta, len(s.Positions))
			for v := range d {
				if m.Positions != nil {
					d[v].Position = m.Positions[v]
				}
				if m.Normals != nil {
					d[v].Normal = m.Normals[v]
				}
			}
			deltas[i] = append(deltas[i], d)
		}
	}
	return hmesh.BuildMorphs(names, weights, deltas, bases, vertexCount)
}
