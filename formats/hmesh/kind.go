package hmesh

import (
	"fmt"
	"io"
	"math"

	"github.com/meshcook/meshcook/formats/format"
	"github.com/meshcook/meshcook/internal/geomerr"
)

// Format describes .hmesh for formats/kinds.
func Format() format.Description {
	return format.Codec(format.Description{Name: "hmesh", Magic: []byte("HMSH")},
		Decode, // Decode validates
		func(path string, f *File) format.Summary { return Summarize(path, f) },
		Dump)
}

// Summary is `inspect` of a .hmesh.
type Summary struct {
	File            string           `json:"file"`
	Kind            string           `json:"kind"`
	Vertices        uint32           `json:"vertices"`
	Triangles       uint32           `json:"triangles"`
	IndexWidth      uint8            `json:"indexWidth"`
	HasTangents     bool             `json:"hasTangents"`
	Meshlets        uint32           `json:"meshlets"`
	MeshletLimits   [2]uint32        `json:"meshletLimits"`
	AvgMeshletTris  float64          `json:"avgMeshletTris"`
	AvgMeshletVerts float64          `json:"avgMeshletVerts"`
	ActiveCones     int              `json:"activeCones"`
	Bounds          BoundsSummary    `json:"bounds"`
	Materials       []string         `json:"materials"`
	Submeshes       []SubmeshSummary `json:"submeshes"`
	Skinned         bool             `json:"skinned"`
	Joints          int              `json:"joints"`       // SKEL joints, 0 without a skeleton
	Roots           []int            `json:"roots"`        // joints without a parent
	MorphTargets    int              `json:"morphTargets"` // MRPH targets over all submeshes
	MorphEntries    int              `json:"morphEntries"` // MRPH sparse deltas
	Lods            []LODSummary     `json:"lods"`
	// ClusterLOD is the cluster hierarchy cut at DefaultCutErrors
	// (clusterlod_summary.go), absent without one.
	ClusterLOD *ClusterLODSummary `json:"clusterLod,omitempty"`
}

// BoundsSummary is the BNDS chunk with camelCase JSON names.
type BoundsSummary struct {
	Min    [3]float32 `json:"min"`
	Max    [3]float32 `json:"max"`
	Center [3]float32 `json:"center"`
	Radius float32    `json:"radius"`
}

// LODSummary is one reduced level over all submeshes, as inspect measures
// it from the file alone.
type LODSummary struct {
	Level     int `json:"level"` // 1 = LOD1
	Triangles int `json:"triangles"`
	Stalled   int `json:"stalled"` // submeshes reusing their previous level
	// Error is the sampled symmetric Hausdorff distance between each
	// submesh's LOD0 and this level, relative to the mesh's bounding-box
	// diagonal (geomerr.LODError); the largest over submeshes.
	Error float64 `json:"error"`
}

// SubmeshSummary is one submesh.
type SubmeshSummary struct {
	Triangles    uint32 `json:"triangles"`
	Meshlets     uint32 `json:"meshlets"`
	MaterialSlot int64  `json:"materialSlot"` // -1 for none
}

// Summarize counts what f holds and measures its LOD errors.
func Summarize(path string, f *File) *Summary {
	s := &Summary{
		File:          path,
		Kind:          "hmesh",
		Vertices:      f.Desc.VertexCount,
		Triangles:     f.Desc.IndexCount / 3,
		IndexWidth:    f.Desc.IndexWidth,
		HasTangents:   f.Desc.Flags&FlagHasTangents != 0,
		Meshlets:      f.Desc.MeshletCount,
		MeshletLimits: [2]uint32{f.Desc.MeshletMaxVerts, f.Desc.MeshletMaxTris},
		Bounds:        BoundsSummary(f.Bounds),
		Materials:     []string{},
		Skinned:       f.Skin != nil,
		Joints:        len(f.Joints),
		Roots:         []int{},
		Lods:          SummarizeLODs(f),
		ClusterLOD:    SummarizeClusterLOD(f, DefaultCutErrors()),
	}
	if f.Morphs != nil {
		s.MorphTargets, s.MorphEntries = len(f.Morphs.Targets), len(f.Morphs.Entries)
	}
	for j, jt := range f.Joints {
		if jt.Parent < 0 {
			s.Roots = append(s.Roots, j)
		}
	}
	var tris, verts float64
	for i, m := range f.Meshlets {
		tris += float64(m.TriangleCount)
		verts += float64(m.VertexCount)
		if i < len(f.MeshletBounds) && f.MeshletBounds[i].ConeCutoff < 1 {
			s.ActiveCones++
		}
	}
	if n := len(f.Meshlets); n > 0 {
		s.AvgMeshletTris = float64(int64(tris/float64(n)*100+0.5)) / 100
		s.AvgMeshletVerts = float64(int64(verts/float64(n)*100+0.5)) / 100
	}
	for _, h := range f.Materials {
		s.Materials = append(s.Materials, fmt.Sprintf("%016x", h))
	}
	for _, sm := range f.Submeshes {
		slot := int64(sm.MaterialSlot)
		if sm.MaterialSlot == NoMaterial {
			slot = -1
		}
		s.Submeshes = append(s.Submeshes, SubmeshSummary{Triangles: sm.IndexCount / 3, Meshlets: sm.MeshletCount, MaterialSlot: slot})
	}
	return s
}

// SummarizeLODs measures every reduced level of f against LOD0.
func SummarizeLODs(f *File) []LODSummary {
	out := []LODSummary{}
	if f.LodCount == 0 {
		return out
	}
	pos := make([][3]float32, len(f.Vertices))
	for i, v := range f.Vertices {
		pos[i] = v.Position
	}
	diag := geomerr.Extent(pos, f.Indices)
	for l := 0; l < int(f.LodCount); l++ {
		out = append(out, LODSummary{Level: l + 1})
	}
	for si, sm := range f.Submeshes {
		lod0 := f.Indices[sm.FirstIndex : sm.FirstIndex+sm.IndexCount]
		prev := lod0
		for l := range out {
			row := f.Lods[si*int(f.LodCount)+l]
			if row.IndexCount == 0 {
				out[l].Stalled++
				out[l].Triangles += len(prev) / 3
				continue
			}
			lvl := f.LodIndices[row.FirstIndex : row.FirstIndex+row.IndexCount]
			out[l].Triangles += len(lvl) / 3
			if diag > 0 {
				out[l].Error = math.Max(out[l].Error, geomerr.LODError(pos, lod0, lvl, diag))
			}
			prev = lvl
		}
	}
	return out
}

// WriteText prints the human summary.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: hmesh v2\n", s.File)
	fmt.Fprintf(w, "  vertices %d, triangles %d, u%d indices, tangents %v\n", s.Vertices, s.Triangles, 8*int(s.IndexWidth), s.HasTangents)
	fmt.Fprintf(w, "  meshlets %d (limits %d verts / %d tris), avg %.2f tris / %.2f verts, %d with active cones\n",
		s.Meshlets, s.MeshletLimits[0], s.MeshletLimits[1], s.AvgMeshletTris, s.AvgMeshletVerts, s.ActiveCones)
	b := s.Bounds
	fmt.Fprintf(w, "  bounds min %v max %v sphere %v r %g\n", b.Min, b.Max, b.Center, b.Radius)
	fmt.Fprintf(w, "  submeshes %d:\n", len(s.Submeshes))
	for i, sm := range s.Submeshes {
		mat := "none"
		if sm.MaterialSlot >= 0 && sm.MaterialSlot < int64(len(s.Materials)) {
			mat = fmt.Sprintf("slot %d (%s)", sm.MaterialSlot, s.Materials[sm.MaterialSlot])
		}
		fmt.Fprintf(w, "    [%d] %d triangles, %d meshlets, material %s\n", i, sm.Triangles, sm.Meshlets, mat)
	}
	if s.Skinned {
		fmt.Fprintln(w, "  skinned")
	}
	if s.Joints > 0 {
		fmt.Fprintf(w, "  skeleton: %d joints, roots %v\n", s.Joints, s.Roots)
	}
	if s.MorphTargets > 0 {
		fmt.Fprintf(w, "  morphs: %d targets, %d sparse deltas\n", s.MorphTargets, s.MorphEntries)
	}
	s.ClusterLOD.writeText(w, s.Triangles)
	for _, l := range s.Lods {
		_, err := fmt.Fprintf(w, "  LOD%d: %d triangles (%.1f%%), error %.5f of the diagonal, %d submeshes stalled\n",
			l.Level, l.Triangles, 100*float64(l.Triangles)/math.Max(1, float64(s.Triangles)), l.Error, l.Stalled)
		if err != nil {
			return err
		}
	}
	return nil
}
