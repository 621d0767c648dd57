// Package hmesh reads, writes and validates .hmesh v2 files: a little-endian
// tagged-chunk container holding one mesh as GPU-ready arrays (vertices,
// indices, meshlets, submeshes, material refs and optional skinning and LODs).
//
// Layout (docs/formats/hmesh.md has every byte):
//
//	FileHeader  32 B   magic "HMSH", version 2, chunkCount, flags 0, reserved 0
//	ChunkEntry  24 B × chunkCount: fourcc, flags 0, offset u64, size u64
//	payloads    each starting on a 16-byte boundary, zero padding between
//
// DESC is the single source of truth for counts, the vertex stride and the
// index width; every other chunk is a bare array sized from it. Readers ignore
// unknown chunks and never depend on chunk order.
//
// Decode bounds every count against the bytes present before allocating and
// runs Validate, so a File it returns can always be encoded again. Encode runs
// Validate before writing, so every file it writes passes Decode and the
// independent checker tools/meshcheck.py.
package hmesh

import (
	"errors"
	"fmt"

	"github.com/meshcook/meshcook/internal/formaterr"
)

// Version is the only container version this package reads and writes.
const Version = 2

// Magic is "HMSH" as a little-endian u32.
const Magic = 0x48534D48

// On-disk sizes in bytes.
const (
	HeaderSize        = 32
	ChunkEntrySize    = 24
	DescSize          = 32
	BoundsSize        = 40
	VertexSize        = 28 // DESC.vertexStride
	MeshletSize       = 16
	MeshletBoundsSize = 32
	SubMeshSize       = 64
	SkinVertexSize    = 24
	JointSize         = 112
	LodHeaderSize     = 8
	MeshLodSize       = 8
	payloadAlign      = 16
)

// NoMaterial is SubMesh.MaterialSlot for a submesh without a material
// (kNoMaterial in the engine).
const NoMaterial = 0xFFFFFFFF

// FlagHasTangents is Desc.Flags bit 0: the vertex tangent slots hold real
// tangents. When it is clear the tangent slot holds an arbitrary unit vector
// (meshcook writes one perpendicular to the normal) and readers must ignore it.
const FlagHasTangents = 1

// Meshlet limits accepted in Desc.MeshletMaxVerts/MeshletMaxTris. Local
// indices are u8, so a meshlet can address at most 256 vertices.
const (
	MinMeshletVerts = 3
	MaxMeshletVerts = 256
	MinMeshletTris  = 1
	MaxMeshletTris  = 512
	// DefaultMeshletVerts and DefaultMeshletTris are the engine's defaults.
	DefaultMeshletVerts = 64
	DefaultMeshletTris  = 124
)

// FourCC is a chunk tag: four ASCII bytes read as a little-endian u32.
type FourCC uint32

// Known chunk tags, in writer order.
const (
	ChunkDESC FourCC = 'D' | 'E'<<8 | 'S'<<16 | 'C'<<24
	ChunkBNDS FourCC = 'B' | 'N'<<8 | 'D'<<16 | 'S'<<24
	ChunkVTXS FourCC = 'V' | 'T'<<8 | 'X'<<16 | 'S'<<24
	ChunkIDXS FourCC = 'I' | 'D'<<8 | 'X'<<16 | 'S'<<24
	ChunkMLET FourCC = 'M' | 'L'<<8 | 'E'<<16 | 'T'<<24
	ChunkMLVR FourCC = 'M' | 'L'<<8 | 'V'<<16 | 'R'<<24
	ChunkMLTR FourCC = 'M' | 'L'<<8 | 'T'<<16 | 'R'<<24
	ChunkMLBN FourCC = 'M' | 'L'<<8 | 'B'<<16 | 'N'<<24
	ChunkMTRL FourCC = 'M' | 'T'<<8 | 'R'<<16 | 'L'<<24
	ChunkSUBM FourCC = 'S' | 'U'<<8 | 'B'<<16 | 'M'<<24
	ChunkSKIN FourCC = 'S' | 'K'<<8 | 'I'<<16 | 'N'<<24
	ChunkSKEL FourCC = 'S' | 'K'<<8 | 'E'<<16 | 'L'<<24
	ChunkLODI FourCC = 'L' | 'O'<<8 | 'D'<<16 | 'I'<<24
	ChunkLODT FourCC = 'L' | 'O'<<8 | 'D'<<16 | 'T'<<24
)

// requiredChunks returns the chunks every file must have.
func requiredChunks() [10]FourCC {
	return [10]FourCC{ChunkDESC, ChunkBNDS, ChunkVTXS, ChunkIDXS, ChunkMLET, ChunkMLVR, ChunkMLTR, ChunkMLBN, ChunkMTRL, ChunkSUBM}
}

// String returns the tag's four characters, or its hex value when they are
// not printable ASCII.
func (c FourCC) String() string {
	b := [4]byte{byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24)}
	for _, x := range b {
		if x < 0x20 || x > 0x7e {
			return fmt.Sprintf("%#08x", uint32(c))
		}
	}
	return string(b[:])
}

func (c FourCC) known() bool {
	switch c {
	case ChunkDESC, ChunkBNDS, ChunkVTXS, ChunkIDXS, ChunkMLET, ChunkMLVR, ChunkMLTR,
		ChunkMLBN, ChunkMTRL, ChunkSUBM, ChunkSKIN, ChunkSKEL, ChunkLODI, ChunkLODT, ChunkMRPH,
		ChunkCLHD, ChunkCLSM, ChunkCLUS, ChunkCLVR, ChunkCLTR, ChunkCLBN, ChunkCLGR, ChunkCLGM, ChunkCLND:
		return true
	}
	return false
}

// Desc is the DESC chunk (MeshDesc, 32 B): vertexCount @0, indexCount @4,
// meshletCount @8, submeshCount @12, materialCount @16, vertexStride u16 @20,
// indexWidth u8 @22, flags u8 @23, meshletMaxVerts @24, meshletMaxTris @28.
type Desc struct {
	VertexCount, IndexCount, MeshletCount, SubmeshCount, MaterialCount uint32
	VertexStride                                                       uint16 // always VertexSize
	IndexWidth                                                         uint8  // 2 when VertexCount <= 65535, else 4
	Flags                                                              uint8  // FlagHasTangents
	MeshletMaxVerts, MeshletMaxTris                                    uint32 // limits the meshlets were built with
}

// Bounds is MeshBounds (40 B): an AABB and a bounding sphere.
type Bounds struct {
	Min, Max [3]float32
	Center   [3]float32
	Radius   float32
}

// Vertex is GpuVertex (28 B): position f32×3 @0; octahedral normal i16×2 @12
// (SNORM ×32767, see EncodeNormal); octahedral tangent i16×2 @16 with the
// bitangent sign in bit 0 of x (see EncodeTangent); uv f32×2 @20 (top-left
// origin).
type Vertex struct {
	Position [3]float32
	Normal   [2]int16
	Tangent  [2]int16
	UV       [2]float32
}

// Meshlet (16 B): VertexOffset indexes MLVR, TriangleOffset indexes MLTR in
// triangles (3 bytes each).
type Meshlet struct {
	VertexOffset, VertexCount, TriangleOffset, TriangleCount uint32
}

// MeshletBounds (32 B): bounding sphere and normal cone. The meshlet is
// back-facing for a camera when dot(center-camera, axis) >= cutoff*|center-camera| + radius
// (meshoptimizer's apex-free test); ConeCutoff >= 1 means never cull.
type MeshletBounds struct {
	Center     [3]float32
	Radius     float32
	ConeAxis   [3]float32
	ConeCutoff float32
}

// SubMesh (64 B): one drawable range sharing a material. Index and meshlet
// ranges of consecutive submeshes tile IDXS and MLET in order.
type SubMesh struct {
	FirstIndex, IndexCount, FirstMeshlet, MeshletCount uint32
	MaterialSlot                                       uint32 // index into MTRL, or NoMaterial
	BaseVertex                                         uint32 // always 0 in v2: indices are global
	Bounds                                             Bounds
}

// SkinVertex is GpuSkinVertex (24 B), parallel to the vertices: joints index
// SKEL, weights sum to 1.
type SkinVertex struct {
	Joints  [4]uint16
	Weights [4]float32
}

// Joint is GpuJoint (112 B): inverse bind matrix (column-major, mesh space →
// joint bind space), local bind-pose TRS (rotation quaternion xyzw) and the
// parent joint (-1 for a root; parents precede children). A u32 pad of 0
// follows Parent on disk.
type Joint struct {
	InverseBind [16]float32
	BindT       [3]float32
	BindR       [4]float32
	BindS       [3]float32
	Parent      int32
}

// MeshLod (8 B) is one reduced level of one submesh: a range of LODI.
// IndexCount 0 means simplification stalled: reuse the previous level.
type MeshLod struct {
	FirstIndex, IndexCount uint32
}

// Chunk is a chunk this package does not know, kept by Decode so callers
// can inspect it. Encode does not write Unknown chunks.
type Chunk struct {
	ID    FourCC
	Flags uint32
	Data  []byte
}

// File is a whole .hmesh in memory.
type File struct {
	// Desc: Encode fills the counts, stride and index width from the slices
	// below; the caller sets Flags and MeshletMaxVerts/MeshletMaxTris.
	Desc     Desc
	Bounds   Bounds
	Vertices []Vertex
	// Indices are global vertex indices, widened to u32 in memory; they are
	// written as u16 when there are at most 65535 vertices.
	Indices          []uint32
	Meshlets         []Meshlet
	MeshletVertices  []uint32 // MLVR
	MeshletTriangles []uint8  // MLTR, 3 local indices per triangle
	MeshletBounds    []MeshletBounds
	Materials        []uint64 // MTRL: FNV-1a 64 of canonical material refs
	Submeshes        []SubMesh

	// Skin and Joints are optional: nil means the chunk is absent.
	Skin   []SkinVertex
	Joints []Joint

	// LODs are optional: the LODI/LODT chunks are written when LodCount > 0
	// or either slice is non-empty. Lods is row-major [submesh][lod] with
	// LodCount entries per submesh; row 0 is LOD1.
	LodCount   uint32
	LodIndices []uint32
	Lods       []MeshLod

	// Morphs is the optional MRPH chunk (nil: none); see morph.go.
	Morphs *Morphs

	// ClusterLOD is the optional cluster hierarchy (CLHD..CLND; nil:
	// none); see clusterlod.go.
	ClusterLOD *ClusterLOD

	// Unknown holds chunks the reader did not know, in table order.
	Unknown []Chunk
}

// ErrFormat is matched by errors.Is for every error that reports a malformed
// or invalid file.
var ErrFormat = errors.New("hmesh: invalid file")

// FormatError reports malformed or invalid .hmesh data. Offset is the
// absolute byte offset of the problem, or -1 when it is not known (errors
// from Validate on an in-memory File). Chunk names the chunk involved, if
// any. Err is an underlying cause such as io.ErrUnexpectedEOF for truncated
// data.
type FormatError struct {
	Offset int64
	Chunk  string
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	prefix := "hmesh: "
	if e.Chunk != "" {
		prefix += "chunk " + e.Chunk + ": "
	}
	return formaterr.Message(prefix, e.Offset, e.Msg, e.Err)
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }
