// Package payload reads and writes mesh_payload (seed 000): the packed
// vertex and index arrays the engine's GraphicsSystem casts straight into GPU
// buffers. A payload has no magic of its own and is normally stored as a
// resource inside a .cnb blob (formats/cnb); standalone files use the
// extensions .payload (static) and .skmv (skinned).
//
// Static payload (seed: serialise, serialise_with_lods,
// serialise_heightfield_trailer):
//
//	u32 vertex_count, vertex_count × Vertex (56 B)
//	u32 index_count,  index_count × u16          LOD0
//	optional "LODS" u32 alt_count, alt_count × {f32 switch_distance, u32 n, n × u16}
//	optional "HFLD" u32 rows, u32 cols, rows·cols × f32 heights
//
// Skinned payload (seed: serialise_skinned_with_lods):
//
//	"SKMV" u32 vertex_count, vertex_count × SkinnedVertex (80 B)
//	u32 index_count, index_count × u16
//	u32 joint_count, joint_count × Joint (variable)     always present
//	optional "MRPS" morph block, optional "LODS" block
//
// Without alternates (and, for skinned payloads, without morphs) the bytes
// are exactly the legacy single-LOD payload, so writers call the LOD-aware
// encoder unconditionally. Indices are u16: a mesh with more than
// MaxChunkVertices vertices must be split first (SplitChunks); encoders
// refuse rather than wrap an index.
//
// Every decoder bounds each count against the bytes that remain before
// allocating and validates what it read with the same rules the encoders
// apply (Validate, ValidateSkinned), so whatever decodes re-encodes.
// docs/formats/payload.md has the full layout and meshcook's decisions.
package payload

import (
	"errors"
	"fmt"

	"github.com/meshcook/meshcook/internal/formaterr"
)

// On-disk sizes in bytes.
const (
	VertexSize        = 56
	SkinnedVertexSize = 80
	MorphEntrySize    = 28
)

// Block magics, as they appear in the bytes.
const (
	MagicSkinned     = "SKMV"
	MagicLODs        = "LODS"
	MagicHeightfield = "HFLD"
	MagicMorphs      = "MRPS"
)

// MaxChunkVertices is the most vertices one payload can address with u16
// indices (0..65535).
const MaxChunkVertices = 1 << 16

// MorphDeltaEpsilon is MORPH_DELTA_EPSILON: a dense morph delta is kept only
// when some component's magnitude exceeds it. Imported targets carry about
// this much float noise; a micron of offset is invisible.
const MorphDeltaEpsilon = 1e-6

// Vertex (56 B): position f32×3 @0, normal f32×3 @12, tangent f32×3 @24,
// color f32×3 @36 (linear RGB), uv f32×2 @48.
type Vertex struct {
	Position [3]float32
	Normal   [3]float32
	Tangent  [3]float32
	Color    [3]float32
	UV       [2]float32
}

// SkinnedVertex (80 B): the 56-byte Vertex, joints u16×4 @56, weights
// f32×4 @64. Joints index the payload's joint array.
type SkinnedVertex struct {
	Vertex
	Joints  [4]uint16
	Weights [4]float32
}

// LOD is one alternate level: LODs[i] is LOD i+1 and applies at camera
// distance ≥ SwitchDistance. Indices address the same vertices as LOD0.
type LOD struct {
	SwitchDistance float32
	Indices        []uint16
}

// Heightfield is the HFLD trailer: Rows×Cols heights, row-major, row index
// along +Z and column index along +X, matching the heightfield mesh's
// vertex order (seed: HeightfieldGrid).
type Heightfield struct {
	Rows, Cols uint32
	Heights    []float32
}

// Static is a whole static payload. LODs and Heightfield are optional: nil
// (or empty) LODs writes no LODS block, a nil Heightfield no HFLD block.
type Static struct {
	Vertices    []Vertex
	Indices     []uint16 // LOD0 triangle list
	LODs        []LOD
	Heightfield *Heightfield
}

// Joint is the seed's PayloadJoint: one bind-pose joint. Parent is the index
// of an earlier joint, or -1 for a root (parents precede children).
// RotationDeg is YXZ Euler angles [pitch, yaw, roll] in degrees
// (EulerYXZDegrees).
type Joint struct {
	Name        string
	Parent      int32
	Translation [3]float32
	RotationDeg [3]float32
	Scale       [3]float32
}

// MorphDelta is one dense morph-target vertex delta (seed: MorphDelta).
type MorphDelta struct {
	Position [3]float32
	Normal   [3]float32
}

// MorphEntry (28 B) is one sparse delta: target u32 @0, position f32×3 @4,
// normal f32×3 @16.
type MorphEntry struct {
	Target   uint32
	Position [3]float32
	Normal   [3]float32
}

// Morphs is the MRPS block (seed: PayloadMorphs): target names and the
// sparse entries in vertex-major CSR form. Vertex v owns
// Entries[Offsets[v]:Offsets[v+1]], targets ascending; len(Offsets) is
// vertex_count+1. Build it with SparsifyMorphs.
type Morphs struct {
	Targets []string
	Offsets []uint32
	Entries []MorphEntry
}

// Skinned is a whole skinned payload (seed: SkinnedPayload). Morphs nil (or
// without targets) writes no MRPS block; empty LODs no LODS block.
type Skinned struct {
	Vertices []SkinnedVertex
	Indices  []uint16
	Joints   []Joint
	Morphs   *Morphs
	LODs     []LOD
}

// ErrFormat is matched by errors.Is for every *FormatError.
var ErrFormat = errors.New("payload: malformed data")

// FormatError reports malformed payload bytes or an invalid in-memory
// payload. Offset is the byte offset from the payload's first byte, or -1
// for a problem found in memory (by an encoder). Err is an underlying cause
// such as io.ErrUnexpectedEOF.
type FormatError struct {
	Offset int64
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	return formaterr.Message("payload: ", e.Offset, e.Msg, e.Err)
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func invalid(format string, args ...any) *FormatError {
	return &FormatError{Offset: -1, Msg: fmt.Sprintf(format, args...)}
}
