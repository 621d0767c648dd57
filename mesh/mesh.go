// Package mesh is meshcook's canonical in-memory model, shared by every
// importer, algorithm and format adapter: a Scene of submeshes with their own
// vertex streams, the source's material and image arrays, and the small amount
// of math (vectors, 4x4 affine transforms, bounds) they all need.
//
// Contracts:
//   - every Submesh stream that is non-nil has exactly len(Positions) entries;
//   - Indices is a triangle list (len % 3 == 0) of indices < len(Positions);
//   - front faces wind counter-clockwise (glTF convention);
//   - Material and texture fields are indices into Scene.Materials and
//     Scene.Images, or -1 for none.
package mesh

import "fmt"

// Vec2, Vec3 and Vec4 are float32 vectors as stored in vertex streams.
type (
	Vec2 [2]float32
	Vec3 [3]float32
	Vec4 [4]float32
)

// Scene is everything one source file contributes to the cook.
type Scene struct {
	// Submeshes in source order: glTF nodes in scene traversal order, then
	// primitives in mesh order. One glTF primitive becomes one Submesh.
	Submeshes []Submesh
	// Materials is the source's whole material array, in source order, so
	// that material leaves (material_<index>) stay stable whichever are used.
	Materials []Material
	// Images is the source's whole image array, in source order.
	Images []Image
	// Skeleton is the exported skin's joint hierarchy (glTF skin[0]), or nil.
	Skeleton *Skeleton
	// Animations are the source's clips, in source order.
	Animations []Animation
	// Warnings are counted, human-readable notes from import (one line each,
	// already aggregated: "skipped 3 POINTS/LINES primitives").
	Warnings []string
	// Drops are what the source has that the cook will not carry, one
	// entry per kind with a count (a structured warning). Importers add
	// them with Drop, which also appends the matching line to Warnings, so
	// code that reads only Warnings still sees every drop. `cook --json`
	// lists them under "dropped" and `cook --strict` refuses any.
	Drops []Drop
	// Files are the files the importer read besides the source itself
	// (external buffers, images), '/'-separated and relative to the
	// source's folder, each once, in the order first read. A build step
	// lists them as the source's dependencies (depfiles, cache keys).
	Files []string
}

// Submesh is one drawable section with one material and its own vertex
// streams. Optional streams are nil when the source lacks them.
type Submesh struct {
	Name      string
	Material  int // index into Scene.Materials, -1 for none
	Positions []Vec3
	Normals   []Vec3 // unit length
	Tangents  []Vec4 // xyz unit tangent, w = bitangent sign (+1 or -1)
	UV0       []Vec2 // top-left origin (glTF convention)
	Colors    []Vec4 // linear RGBA
	Indices   []uint32

	// Skinning (nil for static submeshes): up to four influences per vertex,
	// joints index Scene.Skeleton.Joints, weights sum to 1.
	Joints  [][4]uint16
	Weights []Vec4
	// Morphs are dense per-vertex deltas, one target per entry, in source
	// target order.
	Morphs []MorphTarget
}

// MorphTarget is one blend shape: dense deltas parallel to the submesh's
// vertices (Normals nil when the source has no normal deltas).
type MorphTarget struct {
	Name      string
	Positions []Vec3
	Normals   []Vec3
	// Weight is the target's rest weight (glTF node or mesh weights), used
	// when no clip drives it; 0 by default.
	Weight float32
}

// Drop is one kind of source data a cook does not carry, counted: What
// says what ("animation channels on nodes outside the scene"), Count how
// many. Source names the file it came from when that is not the scene's
// own source (an external buffer, say); empty means the source itself.
type Drop struct {
	Source string
	What   string
	Count  int
}

// Drop records count items of what as not carried: one Drops entry (merged
// with an earlier one of the same source and what) and one Warnings line
// "dropped <count> <what>". A count ≤ 0 records nothing.
func (s *Scene) Drop(count int, what string) {
	s.DropFrom("", count, what)
}

// DropFrom is Drop for data of a file the source references.
func (s *Scene) DropFrom(source string, count int, what string) {
	if count <= 0 {
		return
	}
	for i := range s.Drops {
		if d := &s.Drops[i]; d.Source == source && d.What == what {
			d.Count += count
			s.Warnings = append(s.Warnings, dropLine(source, count, what))
			return
		}
	}
	s.Drops = append(s.Drops, Drop{Source: source, What: what, Count: count})
	s.Warnings = append(s.Warnings, dropLine(source, count, what))
}

func dropLine(source string, count int, what string) string {
	if source != "" {
		return fmt.Sprintf("%s: dropped %d %s", source, count, what)
	}
	return fmt.Sprintf("dropped %d %s", count, what)
}

// TriangleCount returns len(Indices)/3.
func (s *Submesh) TriangleCount() int { return len(s.Indices) / 3 }

// AlphaMode is a material's alpha mode, numbered as in .hmat flags bits 1-2.
type AlphaMode uint8

const (
	AlphaOpaque AlphaMode = 0
	AlphaMask   AlphaMode = 1
	AlphaBlend  AlphaMode = 2
)

// Material is a metallic-roughness PBR material as glTF describes it.
// Texture fields index Scene.Images, or -1 for none.
type Material struct {
	Name              string
	BaseColorFactor   Vec4
	EmissiveFactor    Vec3
	Metallic          float32
	Roughness         float32
	NormalScale       float32
	OcclusionStrength float32
	AlphaCutoff       float32
	AlphaMode         AlphaMode
	DoubleSided       bool

	BaseColorTexture         int
	MetallicRoughnessTexture int
	NormalTexture            int
	OcclusionTexture         int
	EmissiveTexture          int
}

// DefaultMaterial returns a material with glTF's (and .hmat's) defaults and
// no textures.
func DefaultMaterial() Material {
	return Material{
		BaseColorFactor:          Vec4{1, 1, 1, 1},
		Metallic:                 1,
		Roughness:                1,
		NormalScale:              1,
		OcclusionStrength:        1,
		AlphaCutoff:              0.5,
		BaseColorTexture:         -1,
		MetallicRoughnessTexture: -1,
		NormalTexture:            -1,
		OcclusionTexture:         -1,
		EmissiveTexture:          -1,
	}
}

// Image is one source image. Its bytes are not held here; URI is the
// source-relative reference (empty for images embedded in a buffer view).
type Image struct {
	Name     string
	URI      string
	MimeType string
	// Data holds the encoded image bytes (PNG, JPEG) when the importer
	// loaded them, nil otherwise.
	Data []byte
}
