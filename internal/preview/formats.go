package preview

import (
	"fmt"
	"math"

	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/formats/msh7"
	"github.com/meshcook/meshcook/formats/payload"
)

// This file adapts each cooked format to a Model. The inputs come from the
// formats' decoders, which validate them; the adapters still check every
// index they follow, so a File built by hand cannot make them panic.

// FromHMesh returns f's model: LOD0 as its meshlets' triangles in meshlet
// order (the validator guarantees they are IDXS's triangles), or IDXS
// when the file has no meshlets; the MLBN cone test; decoded normals;
// UVs; one level per LOD where a stalled submesh (IndexCount 0) reuses
// its previous level, as inspect counts them; and with a cluster
// hierarchy, its cut at CutError from clusterlod.CornerCamera. LOD errors
// are unmeasured (-1): the caller measures them.
func FromHMesh(f *hmesh.File) (*Model, error) {
	m := &Model{Positions: make([][3]float32, len(f.Vertices)), Normals: make([][3]float32, len(f.Vertices)), UVs: make([][2]float32, len(f.Vertices))}
	for i, v := range f.Vertices {
		m.Positions[i] = v.Position
		m.Normals[i] = hmesh.DecodeNormal(v.Normal)
		m.UVs[i] = v.UV
	}
	if len(f.Meshlets) == 0 {
		m.Triangles = f.Indices
	} else {
		m.Triangles = make([]uint32, 0, len(f.Indices))
		m.Meshlets = make([]int, len(f.Meshlets))
		for i, ml := range f.Meshlets {
			vEnd, tEnd := uint64(ml.VertexOffset)+uint64(ml.VertexCount), 3*(uint64(ml.TriangleOffset)+uint64(ml.TriangleCount))
			if vEnd > uint64(len(f.MeshletVertices)) || tEnd > uint64(len(f.MeshletTriangles)) {
				return nil, fmt.Errorf("preview: hmesh meshlet %d: ranges past MLVR/MLTR", i)
			}
			verts := f.MeshletVertices[ml.VertexOffset:vEnd]
			for _, l := range f.MeshletTriangles[3*uint64(ml.TriangleOffset) : tEnd] {
				if int(l) >= len(verts) {
					return nil, fmt.Errorf("preview: hmesh meshlet %d: local index %d past %d vertices", i, l, len(verts))
				}
				m.Triangles = append(m.Triangles, verts[l])
			}
			m.Meshlets[i] = int(ml.TriangleCount)
		}
		if len(f.MeshletBounds) == len(f.Meshlets) {
			bounds := f.MeshletBounds
			m.ConeCulls = func(i int, eye [3]float64) bool { return hmeshConeCulls(bounds[i], eye) }
		}
	}
	lods, err := hmeshLevels(f)
	if err != nil {
		return nil, err
	}
	m.LODs = lods
	if m.Cut, err = hmeshCut(f, CutError); err != nil {
		return nil, err
	}
	return m, nil
}

// hmeshConeCulls is MLBN's test (formats/hmesh MeshletBounds): the meshlet
// faces away from eye when dot(center-eye, axis) >= cutoff·|center-eye| +
// radius; a cutoff >= 1 never culls.
func hmeshConeCulls(b hmesh.MeshletBounds, eye [3]float64) bool {
	if !(b.ConeCutoff < 1) {
		return false
	}
	d := [3]float64{float64(b.Center[0]) - eye[0], float64(b.Center[1]) - eye[1], float64(b.Center[2]) - eye[2]}
	l := math.Sqrt(float64(d[0]*d[0]) + float64(d[1]*d[1]) + float64(d[2]*d[2]))
	along := float64(d[0]*float64(b.ConeAxis[0])) + float64(d[1]*float64(b.ConeAxis[1])) + float64(d[2]*float64(b.ConeAxis[2]))
	return along >= float64(float64(b.ConeCutoff)*l)+float64(b.Radius)
}

// hmeshLevels returns the LOD levels over all submeshes.
func hmeshLevels(f *hmesh.File) ([]LOD, error) {
	lc := int(f.LodCount)
	if lc == 0 {
		return nil, nil
	}
	if len(f.Lods) != lc*len(f.Submeshes) {
		return nil, fmt.Errorf("preview: hmesh: %d LOD rows for %d levels × %d submeshes", len(f.Lods), lc, len(f.Submeshes))
	}
	out := make([]LOD, lc)
	for l := range out {
		out[l].Error = -1
	}
	for si, sm := range f.Submeshes {
		end := uint64(sm.FirstIndex) + uint64(sm.IndexCount)
		if end > uint64(len(f.Indices)) {
			return nil, fmt.Errorf("preview: hmesh submesh %d: indices past IDXS", si)
		}
		prev := f.Indices[sm.FirstIndex:end]
		for l := range out {
			row := f.Lods[si*lc+l]
			if row.IndexCount != 0 {
				e := uint64(row.FirstIndex) + uint64(row.IndexCount)
				if e > uint64(len(f.LodIndices)) {
					return nil, fmt.Errorf("preview: hmesh LOD%d of submesh %d: indices past LODI", l+1, si)
				}
				prev = f.LodIndices[row.FirstIndex:e]
			}
			out[l].Triangles = append(out[l].Triangles, prev...)
		}
	}
	return out, nil
}

// FromMSH7 returns f's model: one model vertex per meshlet-local vertex
// (its position and attribute references decoded as the engine does), the
// meshlets in order with the engine's cone test (MeshletBounds.Culls). The
// positions are the payload's own: bind pose for a skinned payload.
func FromMSH7(f *msh7.File) (*Model, error) {
	m := &Model{Meshlets: make([]int, len(f.Meshlets))}
	hasUV := len(f.UV0) > 0
	if hasUV {
		m.UVs = [][2]float32{}
	}
	for i, d := range f.Meshlets {
		refs, err := f.DecodeRefs(i)
		if err != nil {
			return nil, fmt.Errorf("preview: %w", err)
		}
		base := uint32(len(m.Positions))
		nv := d.VertexCount()
		if uint64(d.LocalVertexOffset)+uint64(nv) > uint64(len(f.LocalVertices)) {
			return nil, fmt.Errorf("preview: msh7 meshlet %d: local vertices past the end", i)
		}
		for _, lv := range f.LocalVertices[d.LocalVertexOffset : int(d.LocalVertexOffset)+nv] {
			if int(lv.Position) >= len(refs.Positions) || int(lv.Attribute) >= len(refs.Normals) {
				return nil, fmt.Errorf("preview: msh7 meshlet %d: local vertex refs out of range", i)
			}
			m.Positions = append(m.Positions, f.Positions[refs.Positions[lv.Position]])
			n := f.Normals[refs.Normals[lv.Attribute]]
			m.Normals = append(m.Normals, [3]float32{n[0].Float32(), n[1].Float32(), n[2].Float32()})
			if hasUV {
				m.UVs = append(m.UVs, f.UV0[refs.UV0[lv.Attribute]])
			}
		}
		np := d.PrimitiveCount()
		first := 3 * uint64(d.PrimitiveOffset)
		if first+3*uint64(np) > uint64(len(f.Primitives)) {
			return nil, fmt.Errorf("preview: msh7 meshlet %d: primitives past the end", i)
		}
		for _, l := range f.Primitives[first : first+3*uint64(np)] {
			if int(l) >= nv {
				return nil, fmt.Errorf("preview: msh7 meshlet %d: primitive index %d past %d vertices", i, l, nv)
			}
			m.Triangles = append(m.Triangles, base+uint32(l))
		}
		m.Meshlets[i] = np
	}
	if len(f.Bounds) == len(f.Meshlets) {
		bounds := f.Bounds
		m.ConeCulls = func(i int, eye [3]float64) bool { return bounds[i].Culls(eye) }
	}
	return m, nil
}

// FromPayload returns a static mesh_payload's model: LOD0 and its
// alternate levels (errors unmeasured).
func FromPayload(p *payload.Static) *Model {
	return payloadModel(len(p.Vertices), func(i int) *payload.Vertex { return &p.Vertices[i] }, p.Indices, p.LODs)
}

// FromSkinnedPayload returns a skinned mesh_payload's model in bind pose.
func FromSkinnedPayload(p *payload.Skinned) *Model {
	return payloadModel(len(p.Vertices), func(i int) *payload.Vertex { return &p.Vertices[i].Vertex }, p.Indices, p.LODs)
}

func payloadModel(n int, at func(int) *payload.Vertex, idx []uint16, lods []payload.LOD) *Model {
	m := &Model{Positions: make([][3]float32, n), Normals: make([][3]float32, n), UVs: make([][2]float32, n)}
	for i := range n {
		v := at(i)
		m.Positions[i], m.Normals[i], m.UVs[i] = v.Position, v.Normal, v.UV
	}
	m.Triangles = widen(idx)
	for _, l := range lods {
		m.LODs = append(m.LODs, LOD{Triangles: widen(l.Indices), Error: -1})
	}
	return m
}

func widen(idx []uint16) []uint32 {
	out := make([]uint32, len(idx))
	for i, x := range idx {
		out[i] = uint32(x)
	}
	return out
}

// FromPackEntry returns a mesh pack entry's model (either family).
func FromPackEntry(e *meshpack.Entry) *Model {
	n := e.VertexCount()
	m := &Model{Positions: make([][3]float32, n), Normals: make([][3]float32, n), UVs: make([][2]float32, n), Triangles: e.Indices}
	for i := range n {
		if len(e.Static) == n {
			v := e.Static[i]
			m.Positions[i], m.Normals[i], m.UVs[i] = v.Position, v.Normal, v.TexCoord
		} else {
			v := e.Rigged[i]
			m.Positions[i], m.Normals[i], m.UVs[i] = v.Position, v.Normal, v.TexCoord
		}
	}
	return m
}
