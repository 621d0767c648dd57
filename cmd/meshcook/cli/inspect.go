package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/internal/geomerr"
	"github.com/meshcook/meshcook/internal/preview"
)

// hmeshSummary is `inspect --json` for a .hmesh.
type hmeshSummary struct {
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
	Bounds          hmesh.Bounds     `json:"bounds"`
	Materials       []string         `json:"materials"`
	Submeshes       []submeshSummary `json:"submeshes"`
	Skinned         bool             `json:"skinned"`
	Joints          int              `json:"joints"`       // SKEL joints, 0 without a skeleton
	Roots           []int            `json:"roots"`        // joints without a parent
	MorphTargets    int              `json:"morphTargets"` // MRPH targets over all submeshes
	MorphEntries    int              `json:"morphEntries"` // MRPH sparse deltas
	Lods            []lodSummary     `json:"lods"`
	// ClusterLOD is the cluster hierarchy (inspect_clod.go), absent without one.
	ClusterLOD *clusterLODSummary `json:"clusterLod,omitempty"`
}

// lodSummary is one reduced level over all submeshes, as inspect measures
// it from the file alone.
type lodSummary struct {
	Level     int `json:"level"` // 1 = LOD1
	Triangles int `json:"triangles"`
	Stalled   int `json:"stalled"` // submeshes reusing their previous level
	// Error is the sampled symmetric Hausdorff distance between each
	// submesh's LOD0 and this level, relative to the mesh's bounding-box
	// diagonal; the largest over submeshes.
	Error float64 `json:"error"`
}

type submeshSummary struct {
	Triangles    uint32 `json:"triangles"`
	Meshlets     uint32 `json:"meshlets"`
	MaterialSlot int64  `json:"materialSlot"` // -1 for none
}

type hmatSummary struct {
	File      string          `json:"file"`
	Kind      string          `json:"kind"`
	Materials []hmat.Material `json:"materials"`
}

func newInspectCmd(stdout io.Writer) *cobra.Command {
	var asJSON, dump bool
	var cutErrors []float64
	pf := pngFlags{yaw: preview.DefaultYaw, pitch: preview.DefaultPitch, size: preview.DefaultSize}
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Summarise what a cooked file holds",
		Long: `Inspect prints a human summary of a cooked .hmesh or .hmat: counts, limits,
bounds, submeshes and materials. --json prints the same as one object;
--dump prints every field of the file as stable text (used for golden files).
For each reduced LOD level it shows the triangles drawn and the error
measured from the file: the sampled symmetric Hausdorff distance between
LOD0 and the level, relative to the mesh's bounding-box diagonal.
A cluster hierarchy (cook --cluster-lod) shows its levels, clusters and
triangles per level, the DAG's size, and the triangles of the cut at each
--error from a fixed camera at twice the bounding box's max corner (fovy
60°, near 0.01; as meshoptimizer's demo measures its cuts).
A skinned .hmesh shows its skeleton (joint count, root joints); a .hmat
every texture ref; a .hanim each clip's name, duration and channels; a
.ktx2 its format (sRGB or UNORM), size and mip levels. A source (.gltf,
.glb, .fbx) is imported as a cook would import it and summarized: draws
before and after merging, triangles, materials, skin, morph targets,
clips, and what the cook would drop.

--png OUT.png draws a picture instead (docs/preview.md) of a .hmesh, a
.msh7, a mesh payload (.payload, .skmv), a mesh resource of a .cnb world
(name blob 0 with --resource NAME as world-lock.json names it; without it,
a contact sheet of every mesh) or a mesh pack entry (--entry NAME; without
it, a contact sheet of every entry). The default picture has one --size
square panel each for LOD0 shaded (back faces tinted red), LOD0 with each
meshlet in its own colour, and each LOD level labelled with its triangle
count and measured error, seen from a 3/4 view framed on the mesh
(--yaw/--pitch in degrees). --view draws one panel set instead: shaded,
meshlets, lods (LOD0 and every level), normals (as RGB), uv (red/green on
a checkerboard) or cones (meshlets the cone test culls from this view
drawn dark grey). A skinned .hmesh is drawn in bind pose; --clip NAME
(or #N, the N-th clip) --time T poses it with that clip of the .hanim
beside it. The same file and flags always give the same PNG bytes.`,
		Example: `  meshcook inspect out/models/chair.hmesh
  meshcook inspect out/models/chair.hmat --json
  meshcook inspect out/box.hmesh --dump > box.golden.txt
  meshcook inspect out/Fox.hanim
  meshcook inspect out/Fox/image_0.ktx2 --json

  # pictures: LODs and meshlets side by side, or one view from behind
  meshcook inspect out/models/chair.hmesh --png chair.png
  meshcook inspect out/models/chair.hmesh --png cones.png --view cones --yaw 215 --size 512
  meshcook inspect out/Fox.hmesh --png fox.png --clip Run --time 0.4
  meshcook inspect out/world/data/0 --png hills.png --resource terrain/hills.heightfield/0
  meshcook inspect out/buildings.smpk --png sheet.png --size 192`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("inspect: name exactly one file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if pf.out != "" {
				pf.timeSet = cmd.Flags().Changed("time")
				if asJSON || dump {
					return usageError("inspect: --png writes a picture; drop --json/--dump")
				}
				return runInspectPNG(cmd.Context(), stdout, args[0], pf)
			}
			if err := pngOnlyFlags(cmd); err != nil {
				return err
			}
			if cmd.Flags().Changed("error") {
				return runInspectCuts(stdout, args[0], cutErrors, asJSON, dump)
			}
			return runInspect(stdout, args[0], asJSON, dump)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as one JSON object")
	cmd.Flags().BoolVar(&dump, "dump", false, "print every field as stable text")
	cmd.Flags().Float64SliceVar(&cutErrors, "error", nil, "a .hmesh cluster hierarchy: cut it at these projected errors (fractions of the screen height; default 0.0005,0.001,0.002,0.004,0.008)")
	addPNGFlags(cmd, &pf)
	return cmd
}

// readKind reads the file at path and recognises its kind.
func readKind(path string) ([]byte, *fileKind, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, withCode(ExitBadInput, fmt.Errorf("inspect: %s: %w", path, unwrapPath(err)))
	}
	k := detectKind(path, b)
	if k == nil {
		return nil, nil, withCode(ExitBadInput, fmt.Errorf("inspect: %s: unrecognised file kind (no known magic or extension)", path))
	}
	return b, k, nil
}

func runInspect(stdout io.Writer, path string, asJSON, dump bool) error {
	b, k, err := readKind(path)
	if err != nil {
		return err
	}
	mode := inspectSummary
	switch {
	case dump:
		mode = inspectDump
	case asJSON:
		mode = inspectJSON
	}
	if err := k.inspect(stdout, path, b, mode); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return withCode(ExitBadInput, fmt.Errorf("inspect: %s: %w", path, err))
	}
	return nil
}

// summarizeHMesh summarizes f; a cluster hierarchy is cut at cutErrors.
func summarizeHMesh(path string, f *hmesh.File, cutErrors []float64) hmeshSummary {
	s := hmeshSummary{
		File:          path,
		Kind:          "hmesh",
		Vertices:      f.Desc.VertexCount,
		Triangles:     f.Desc.IndexCount / 3,
		IndexWidth:    f.Desc.IndexWidth,
		HasTangents:   f.Desc.Flags&hmesh.FlagHasTangents != 0,
		Meshlets:      f.Desc.MeshletCount,
		MeshletLimits: [2]uint32{f.Desc.MeshletMaxVerts, f.Desc.MeshletMaxTris},
		Bounds:        f.Bounds,
		Materials:     []string{},
		Skinned:       f.Skin != nil,
		Joints:        len(f.Joints),
		Roots:         []int{},
		Lods:          summarizeLODs(f),
		ClusterLOD:    summarizeClusterLOD(f, cutErrors),
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
		if sm.MaterialSlot == hmesh.NoMaterial {
			slot = -1
		}
		s.Submeshes = append(s.Submeshes, submeshSummary{Triangles: sm.IndexCount / 3, Meshlets: sm.MeshletCount, MaterialSlot: slot})
	}
	return s
}

// lodErrorSamples is how many area-weighted points per surface inspect
// adds to the vertices when it measures a level's error.
const lodErrorSamples = 2000

func summarizeLODs(f *hmesh.File) []lodSummary {
	out := []lodSummary{}
	if f.LodCount == 0 {
		return out
	}
	pos := make([][3]float32, len(f.Vertices))
	for i, v := range f.Vertices {
		pos[i] = v.Position
	}
	diag := geomerr.Extent(pos, f.Indices)
	for l := 0; l < int(f.LodCount); l++ {
		out = append(out, lodSummary{Level: l + 1})
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
				out[l].Error = math.Max(out[l].Error, lodError(pos, lod0, lvl, diag))
			}
			prev = lvl
		}
	}
	return out
}

// lodError is a reduced level's error: the sampled symmetric Hausdorff
// distance between lod0 and lvl (triangle lists over pos), divided by diag.
func lodError(pos [][3]float32, lod0, lvl []uint32, diag float64) float64 {
	return geomerr.Hausdorff(pos, lod0, pos, lvl, lodErrorSamples) / diag
}

func printHMesh(w io.Writer, s hmeshSummary) {
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
	printClusterLOD(w, s.ClusterLOD, s.Triangles)
	for _, l := range s.Lods {
		fmt.Fprintf(w, "  LOD%d: %d triangles (%.1f%%), error %.5f of the diagonal, %d submeshes stalled\n",
			l.Level, l.Triangles, 100*float64(l.Triangles)/math.Max(1, float64(s.Triangles)), l.Error, l.Stalled)
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return withCode(ExitOutput, err)
	}
	return nil
}
