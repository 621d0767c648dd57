package cook

import (
	"fmt"
	"strconv"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/simplify"
)

// This file adapts one cooked scene to the resources of a .cnb world
// (TargetCNB). The world itself (handles, blobs, lock file) is assembled
// once every job has finished, in cnbworld.go's writeWorld.

// cnbResource is one resource a job contributes to the world, before
// handles and locators are assigned.
type cnbResource struct {
	name    string // stable name, unique within its kind (docs/project.md)
	kind    cnb.ResourceKind
	payload []byte // payload resources (Mesh, SkinnedMesh, Texture)
	data    []byte // data resources (Material)
	// bounds is set for static mesh payloads (one MeshBoundsRecord each);
	// its Handle is filled in when handles are assigned.
	bounds *cnb.MeshBoundsRecord
	source string // the job's Rel, matched against scene globs
	// fixedBodies counts the physics bodies the resource asks the world to
	// reserve as fixed (1 on the payload carrying a heightfield's HFLD).
	fixedBodies uint32
}

// MeshResourceName is the stable name of submesh i of the mesh cooked from
// a source with stable name name: "<name>/<i>". A submesh split into chunks
// for u16 indices names its chunks payload.ChunkName(name, i, k) instead.
func MeshResourceName(name string, i int) string { return name + "/" + strconv.Itoa(i) }

// cnbResources builds the Mesh, SkinnedMesh, Material and Texture
// resources of one job, with warnings for images it could not convert.
// Every payload is encoded (which validates it) here, in parallel with the
// other jobs; the world pass only places bytes.
func cnbResources(job Job, c *cooked, opts Options) ([]cnbResource, []string, error) {
	scene := c.scene
	var grid *heightGrid
	if IsHeightfieldSource(job.Source) {
		g, err := loadHeightGrid(job.Source, opts.StrictPaths)
		if err != nil {
			return nil, nil, err
		}
		grid = g
	}
	var out []cnbResource
	usedMaterials := make([]bool, len(scene.Materials))
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		if s.Material >= len(scene.Materials) {
			return nil, nil, fmt.Errorf("submesh %d: material %d out of range (%d materials)", i, s.Material, len(scene.Materials))
		}
		if s.TriangleCount() == 0 {
			continue // no payload for a submesh without triangles (cookJob counts the drop)
		}
		if s.Material >= 0 {
			usedMaterials[s.Material] = true
		}
		// Skinned payloads carry joints and/or morph targets: a morph-only
		// mesh is a skinned payload with zero joints (formats.md §2).
		jointed := scene.Skeleton != nil && len(scene.Skeleton.Joints) > 0 && s.Joints != nil && s.Weights != nil
		skinned := jointed || len(s.Morphs) > 0
		var pieces []meshPiece
		var err error
		switch {
		case grid != nil && payload.NeedsSplit(len(s.Positions)):
			pieces, err = splitGrid(job.Name, i, s, grid, c.lods[i])
		case grid != nil:
			pieces, err = splitSubmesh(job.Name, i, s, c.lods[i])
			if err == nil {
				err = pieces[0].toGridOrder(s, grid)
			}
		default:
			pieces, err = splitSubmesh(job.Name, i, s, c.lods[i])
		}
		if err != nil {
			return nil, nil, fmt.Errorf("submesh %d (%s): %w", i, s.Name, err)
		}
		dist := switchDistances(s, len(c.lods[i]), opts.LOD.Distances)
		for k, p := range pieces {
			var r cnbResource
			var err error
			if skinned {
				r, err = skinnedResource(p, s, scene.Skeleton, dist)
			} else {
				var hf *payload.Heightfield
				if grid != nil && i == 0 && k == 0 {
					hf = &payload.Heightfield{Rows: uint32(grid.rows), Cols: uint32(grid.cols), Heights: grid.heights}
				}
				r, err = staticResource(p, s, hf, dist)
			}
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", p.name, err)
			}
			r.source = job.Rel
			out = append(out, r)
		}
	}

	// Materials: the ones some submesh uses, named by their runtime ref
	// (the string whose FNV-1a 64 a .hmesh MTRL entry holds); data_bytes
	// is the material's 96-byte .hmat row.
	names := make([]string, len(scene.Materials))
	for i, m := range scene.Materials {
		names[i] = m.Name
	}
	imageNames := make([]string, len(scene.Images))
	for i, im := range scene.Images {
		imageNames[i] = im.Name
	}
	leaves := hmat.Leaves(names, hmat.MaterialPrefix)
	imageLeaves := hmat.Leaves(imageNames, hmat.ImagePrefix)
	var order []int // used materials, in source order
	for i, used := range usedMaterials {
		if used {
			order = append(order, i)
		}
	}
	for _, i := range order {
		row, err := hmat.Encode([]hmat.Material{hmatRow(scene.Materials[i], job.SourceRef, imageLeaves)})
		if err != nil {
			return nil, nil, fmt.Errorf("material %d (%s): %w", i, scene.Materials[i].Name, err)
		}
		out = append(out, cnbResource{
			name:   hmat.Ref(job.SourceRef, leaves[i]),
			kind:   cnb.Material,
			data:   row[hmat.HeaderSize:],
			source: job.Rel,
		})
	}
	texs, warnings := cnbTextures(job, scene, order, imageLeaves, opts.Textures)
	return append(out, texs...), warnings, nil
}

// cnbTextures makes a Texture resource per image the used materials
// reference: its payload is the KTX2 the hmesh target writes for it
// (sRGB when some material uses it as color, else UNORM), named by its
// runtime ref "<sourceRef>/<imageLeaf>", the string whose FNV-1a 64 the
// .hmat row's texture slot holds. An image that cannot be converted is
// skipped with a warning, as the hmesh target does.
func cnbTextures(job Job, scene *mesh.Scene, order []int, leaves []string, to TextureOptions) ([]cnbResource, []string) {
	uses := textureUses(scene, order)
	var out []cnbResource
	var warnings []string
	var encoder ktx2.Encoder // one per world job: shared Zstandard tables
	defer encoder.Close()
	for img, im := range scene.Images {
		u := uses[img]
		if u == nil {
			continue
		}
		kind := ktx2.KindData
		if u.color {
			kind = ktx2.KindColor
		}
		label := fmt.Sprintf("%s: cnb: image %d (%s)", job.Source, img, leaves[img])
		if im.Data == nil {
			warnings = append(warnings, fmt.Sprintf("%s: no image bytes were loaded (uri %q); no Texture resource", label, im.URI))
			continue
		}
		b, err := encodeTexture(&encoder, im.Data, kind, u.kinds, to)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v; no Texture resource", label, err))
			continue
		}
		out = append(out, cnbResource{name: hmat.Ref(job.SourceRef, leaves[img]), kind: cnb.Texture, payload: b, source: job.Rel})
	}
	return out, warnings
}

// meshPiece is one payload's worth of a submesh: the whole submesh, or one
// chunk of a submesh split for u16 indices.
type meshPiece struct {
	name  string
	verts []uint32   // the submesh vertex of each payload vertex
	lod0  []uint16   // LOD0 triangle list over the payload vertices
	lods  [][]uint16 // reduced levels, LOD1 first; the chain ends at the first empty level
}

// splitSubmesh turns a cooked submesh and its LOD levels into payload
// pieces. Up to 65,535 vertices it is one piece named MeshResourceName;
// above, payload.SplitChunks cuts LOD0 into chunks and chunkLevels shares
// out the reduced levels.
func splitSubmesh(name string, prim int, s *mesh.Submesh, levels []simplify.Level) ([]meshPiece, error) {
	n := len(s.Positions)
	if !payload.NeedsSplit(n) {
		p := meshPiece{name: MeshResourceName(name, prim), verts: make([]uint32, n), lod0: make([]uint16, len(s.Indices))}
		for v := range p.verts {
			p.verts[v] = uint32(v)
		}
		for j, ix := range s.Indices {
			p.lod0[j] = uint16(ix)
		}
		for _, l := range levels {
			if len(l.Indices) == 0 {
				break
			}
			lvl := make([]uint16, len(l.Indices))
			for j, ix := range l.Indices {
				lvl[j] = uint16(ix)
			}
			p.lods = append(p.lods, lvl)
		}
		return []meshPiece{p}, nil
	}
	chunks, err := payload.SplitChunks(s.Indices, n)
	if err != nil {
		return nil, err
	}
	pieces := make([]meshPiece, len(chunks))
	for k, ch := range chunks {
		pieces[k] = meshPiece{name: payload.ChunkName(name, prim, k), verts: ch.Vertices, lod0: ch.Indices}
	}
	chunkLevels(pieces, levels)
	return pieces, nil
}

// chunkLevels gives chunks of one submesh their reduced levels: each
// triangle of a level goes to the chunk that already holds most of its
// vertices and has room for the rest (lowest chunk on ties), which gains
// the vertices it lacks after its own. When no chunk has room for some
// triangle, no chunk gets any level (and none keeps a gained vertex). A
// chunk's chain ends at its first empty level.
func chunkLevels(pieces []meshPiece, levels []simplify.Level) {
	local := make([]map[uint32]uint16, len(pieces))
	lens := make([]int, len(pieces))
	for k, p := range pieces {
		lens[k] = len(p.verts)
		local[k] = make(map[uint32]uint16, len(p.verts))
		for j, v := range p.verts {
			local[k][v] = uint16(j)
		}
	}
	var lods [][][]uint16 // [level][chunk]
	for _, l := range levels {
		if len(l.Indices) == 0 {
			break
		}
		per := make([][]uint16, len(pieces))
		for t := 0; t+2 < len(l.Indices); t += 3 {
			tri := l.Indices[t : t+3]
			k, best := -1, -1
			for c := range pieces {
				have := 0
				for _, v := range tri {
					if _, ok := local[c][v]; ok {
						have++
					}
				}
				if have > best && len(pieces[c].verts)+3-have <= payload.MaxChunkVertices {
					k, best = c, have
				}
			}
			if k < 0 {
				for c := range pieces {
					pieces[c].verts = pieces[c].verts[:lens[c]]
				}
				return
			}
			for _, v := range tri {
				j, ok := local[k][v]
				if !ok {
					j = uint16(len(pieces[k].verts))
					pieces[k].verts = append(pieces[k].verts, v)
					local[k][v] = j
				}
				per[k] = append(per[k], j)
			}
		}
		lods = append(lods, per)
	}
	for k := range pieces {
		for _, per := range lods {
			if len(per[k]) == 0 {
				break
			}
			pieces[k].lods = append(pieces[k].lods, per[k])
		}
	}
}

// staticResource encodes one piece as a static mesh payload (LODS when it
// has reduced levels, HFLD when hf is set) with its bounds record.
func staticResource(p meshPiece, s *mesh.Submesh, hf *payload.Heightfield, distances []float32) (cnbResource, error) {
	m := &payload.Static{Vertices: make([]payload.Vertex, len(p.verts)), Indices: p.lod0, Heightfield: hf}
	for j, v := range p.verts {
		m.Vertices[j] = payloadVertex(s, int(v))
	}
	lo, hi := payload.Bounds(m.Vertices)
	m.LODs = payloadLODs(p.lods, distances)
	b, err := payload.Encode(m)
	if err != nil {
		return cnbResource{}, err
	}
	r := cnbResource{
		name:    p.name,
		kind:    cnb.Mesh,
		payload: b,
		bounds:  &cnb.MeshBoundsRecord{Min: lo, Max: hi, VertexCount: uint32(len(m.Vertices)), IndexCount: uint32(len(m.Indices))},
	}
	if hf != nil {
		r.fixedBodies = 1
	}
	return r, nil
}

// switchDistances returns the switch distance of each of a submesh's n
// reduced levels: the project's when set, else
// payload.DefaultSwitchDistance of half the diagonal of the submesh's
// LOD0 AABB. The whole submesh's box, not a chunk's, so the chunks of one
// mesh switch together.
func switchDistances(s *mesh.Submesh, n int, project []float32) []float32 {
	if n == 0 {
		return nil
	}
	if len(project) >= n {
		return project[:n]
	}
	var lo, hi [3]float32
	for v, p := range s.Positions {
		for a := 0; a < 3; a++ {
			if v == 0 || p[a] < lo[a] {
				lo[a] = p[a]
			}
			if v == 0 || p[a] > hi[a] {
				hi[a] = p[a]
			}
		}
	}
	r := payload.HalfDiagonal(lo, hi)
	out := make([]float32, n)
	for k := range out {
		out[k] = payload.DefaultSwitchDistance(r, k+1)
	}
	return out
}

// payloadLODs pairs a piece's reduced levels with their distances.
func payloadLODs(levels [][]uint16, distances []float32) []payload.LOD {
	if len(levels) == 0 {
		return nil
	}
	out := make([]payload.LOD, len(levels))
	for k, idx := range levels {
		out[k] = payload.LOD{SwitchDistance: distances[k], Indices: idx}
	}
	return out
}

// payloadVertex packs vertex v: color is the linear RGB of the color
// stream (white without one); a missing normal is +Y and a missing tangent
// an arbitrary unit vector perpendicular to the normal.
func payloadVertex(s *mesh.Submesh, v int) payload.Vertex {
	out := payload.Vertex{Position: s.Positions[v], Color: [3]float32{1, 1, 1}}
	n := mesh.Vec3{0, 1, 0}
	if s.Normals != nil {
		n = s.Normals[v]
	}
	out.Normal = n
	if s.Tangents != nil {
		t := s.Tangents[v]
		out.Tangent = [3]float32{t[0], t[1], t[2]}
	} else {
		out.Tangent = mesh.AxisPerpendicular(n)
	}
	if s.Colors != nil {
		c := s.Colors[v]
		out.Color = [3]float32{c[0], c[1], c[2]}
	}
	if s.UV0 != nil {
		out.UV = s.UV0[v]
	}
	return out
}

// skinnedResource encodes one piece as a skinned payload: the skeleton's
// bind pose as joints (parents first), normalised weights, and the morph
// targets sparsified.
func skinnedResource(p meshPiece, s *mesh.Submesh, sk *mesh.Skeleton, distances []float32) (cnbResource, error) {
	if sk == nil || len(sk.Joints) == 0 || s.Joints == nil || s.Weights == nil {
		sk = &mesh.Skeleton{} // morph-only: zero joints, every vertex rigid on "joint 0"
	}
	joints := make([]payload.Joint, len(sk.Joints))
	for i, j := range sk.Joints {
		joints[i] = payload.Joint{
			Name:        j.Name,
			Parent:      int32(j.Parent),
			Translation: j.BindT,
			RotationDeg: payload.EulerYXZDegrees(j.BindR),
			Scale:       j.BindS,
		}
	}
	joints, remap, err := payload.ReorderJoints(joints)
	if err != nil {
		return cnbResource{}, err
	}
	m := &payload.Skinned{Vertices: make([]payload.SkinnedVertex, len(p.verts)), Indices: p.lod0, Joints: joints}
	for j, v := range p.verts {
		m.Vertices[j] = payload.SkinnedVertex{Vertex: payloadVertex(s, int(v)), Weights: [4]float32{1, 0, 0, 0}}
		if len(sk.Joints) > 0 {
			m.Vertices[j].Joints = s.Joints[v]
			m.Vertices[j].Weights = payload.NormalizeWeights(s.Weights[v])
		}
	}
	if len(joints) > 0 {
		if err := payload.RemapVertexJoints(m.Vertices, remap); err != nil {
			return cnbResource{}, err
		}
	}
	if len(s.Morphs) > 0 {
		names := make([]string, len(s.Morphs))
		dense := make([][]payload.MorphDelta, len(s.Morphs))
		for t, mt := range s.Morphs {
			names[t] = mt.Name
			dense[t] = make([]payload.MorphDelta, len(p.verts))
			for j, v := range p.verts {
				dense[t][j].Position = mt.Positions[v]
				if mt.Normals != nil {
					dense[t][j].Normal = mt.Normals[v]
				}
			}
		}
		if m.Morphs, err = payload.SparsifyMorphs(names, dense, len(p.verts)); err != nil {
			return cnbResource{}, err
		}
	}
	m.LODs = payloadLODs(p.lods, distances)
	b, err := payload.EncodeSkinned(m)
	if err != nil {
		return cnbResource{}, err
	}
	return cnbResource{name: p.name, kind: cnb.SkinnedMesh, payload: b}, nil
}
