// Package msh7 reads, writes, validates and builds NWBLot "MSH7" meshlet
// geometry payloads (spec/formats.md §4, the engine's rules in spec/nwb.md
// §4; docs/formats/msh7.md has every byte and every meshcook decision).
//
// Layout: a 120-byte header of counts, then raw little-endian arrays in a
// fixed order with nothing between them, and the file ends right after the
// last one:
//
//	header            120 B  magic "7HSM" (u32 0x4D534837), meshClass, 14 × u64 counts
//	positions         f32×3        normals   half×4   tangents  half×4
//	uv0               f32×2        colors    half×4
//	skin influences   24 B   (skinned only; meshcook's placement)
//	joints            112 B  (skinned only; meshcook's placement)
//	inverse binds     f32×16 (skinned only; meshcook's placement)
//	MeshletDesc       48 B         MeshletBounds 20 B
//	position-ref delta bytes       attribute-ref delta bytes
//	MeshletLocalVertexRef 4 B      primitive indices u8
//
// Every vertex a meshlet emits is a MeshletLocalVertexRef: a local position
// (whose global position and skin indices are base + delta from the
// position-ref bytes) and a local attribute (normal, tangent, uv0 and colour
// indices, each base + delta from the attribute-ref bytes).
//
// Decode bounds every count against the bytes present before allocating and
// then runs Validate, the engine's load-time checks; Encode runs Validate
// before writing. Build turns per-vertex streams and meshlets into a File,
// deduplicating, reordering and delta-encoding the references, and decodes
// every reference back before it returns.
package msh7

import (
	"errors"
	"fmt"

	"github.com/meshcook/meshcook/internal/formaterr"
	"github.com/x448/float16"
)

// Magic is "MSH7" as the engine reads it: u32 0x4D534837, bytes 37 48 53 4D.
const Magic = 0x4D534837

// Older payload magics the engine refuses (they must be recooked).
const (
	MagicMSH5 = 0x4D534835
	MagicMSH6 = 0x4D534836
)

// On-disk sizes in bytes.
const (
	HeaderSize         = 120
	PositionSize       = 12 // f32×3
	HalfVec4Size       = 8  // half×4: normals, tangents, colors
	UV0Size            = 8  // f32×2
	InfluenceSize      = 24
	JointSize          = 112
	InverseBindSize    = 64
	MeshletDescSize    = 48
	MeshletBoundsSize  = 20
	LocalVertexRefSize = 4
)

// Meshlet limits: a meshlet emits 1..MaxVertices vertices and
// 1..MaxTriangles triangles (and so at most MaxVertices local positions and
// local attributes).
const (
	MaxVertices  = 96
	MaxTriangles = 126
)

// NoSkin is MeshletDesc.SkinBase of a static mesh's meshlets.
const NoSkin = 0xFFFFFFFF

// MeshClass is the header's meshClass.
type MeshClass uint32

const (
	ClassStatic  MeshClass = 0
	ClassSkinned MeshClass = 1
)

// Width codes of MeshletDesc.Encoding, 2 bits per channel.
const (
	WidthU8  = 0
	WidthU16 = 1
	WidthU32 = 2
)

// Channel is a reference channel of MeshletDesc.Encoding; its value is the
// channel's bit shift divided by two.
type Channel int

const (
	ChanPosition Channel = iota // shift 0
	ChanSkin                    // shift 2
	ChanNormal                  // shift 4
	ChanTangent                 // shift 6
	ChanUV0                     // shift 8
	ChanColor                   // shift 10
	NumChannels                 // the number of channels
)

var channelNames = [NumChannels]string{"position", "skin", "normal", "tangent", "uv0", "color"}

func (c Channel) String() string {
	if c >= 0 && c < NumChannels {
		return channelNames[c]
	}
	return fmt.Sprintf("channel(%d)", int(c))
}

// Half is an IEEE 754 binary16 value, kept as its bits so files round-trip
// exactly.
type Half uint16

// HalfOf converts f to the nearest half (round to nearest, ties to even;
// subnormals, infinities and NaN kept as such).
func HalfOf(f float32) Half { return Half(float16.Fromfloat32(f).Bits()) }

// Float32 returns h exactly as a float32.
func (h Half) Float32() float32 { return float16.Frombits(uint16(h)).Float32() }

// Influence is one position's skin record (24 B, 8-aligned in the engine):
// joints packed two per u32 word (word0 = J[0] | J[1]<<16, word1 = J[2] |
// J[3]<<16) at bytes 0 and 4, weights f32×4 at byte 8. Joints and weights
// are copied bit for bit: joint 65535 and a -0 weight survive.
type Influence struct {
	Joints  [4]uint16
	Weights [4]float32
}

// Joint is one skeleton joint, laid out as .hmesh's GpuJoint (112 B):
// inverseBind f32×16 @0 (column-major), bindT f32×3 @64, bindR f32×4 @76
// (quaternion xyzw), bindS f32×3 @92, parent i32 @104 (-1 root), pad u32
// @108 (0).
type Joint struct {
	InverseBind [16]float32
	BindT       [3]float32
	BindR       [4]float32
	BindS       [3]float32
	Parent      int32
}

// MeshletDesc is one meshlet's descriptor (48 B, 12 × u32 in field order).
type MeshletDesc struct {
	LocalVertexOffset  uint32 // index of the first MeshletLocalVertexRef
	PrimitiveOffset    uint32 // first triangle (3 primitive-index bytes each)
	PositionRefOffset  uint32 // byte offset into the position-ref bytes
	AttributeRefOffset uint32 // byte offset into the attribute-ref bytes
	// Counts packs vertex count (bits 0-7), primitive count (8-15), local
	// position count (16-23) and local attribute count (24-31).
	Counts       uint32
	PositionBase uint32
	SkinBase     uint32 // NoSkin for static meshes
	NormalBase   uint32
	TangentBase  uint32
	UV0Base      uint32
	ColorBase    uint32
	// Encoding holds a 2-bit width code per channel at bit 2·Channel.
	Encoding uint32
}

// PackCounts returns the Counts word; every count must be < 256.
func PackCounts(vertices, primitives, positions, attributes int) uint32 {
	return uint32(vertices&255) | uint32(primitives&255)<<8 | uint32(positions&255)<<16 | uint32(attributes&255)<<24
}

// VertexCount is the number of local vertices (MeshletLocalVertexRef).
func (d MeshletDesc) VertexCount() int { return int(d.Counts & 255) }

// PrimitiveCount is the number of triangles.
func (d MeshletDesc) PrimitiveCount() int { return int(d.Counts >> 8 & 255) }

// PositionCount is the number of local positions (position and skin refs).
func (d MeshletDesc) PositionCount() int { return int(d.Counts >> 16 & 255) }

// AttributeCount is the number of local attributes (normal, tangent, uv0
// and color refs).
func (d MeshletDesc) AttributeCount() int { return int(d.Counts >> 24) }

// Width returns channel c's width code (0 u8, 1 u16, 2 u32, 3 invalid).
func (d MeshletDesc) Width(c Channel) int { return int(d.Encoding >> (2 * uint(c)) & 3) }

// Base returns channel c's base index.
func (d MeshletDesc) Base(c Channel) uint32 {
	switch c {
	case ChanPosition:
		return d.PositionBase
	case ChanSkin:
		return d.SkinBase
	case ChanNormal:
		return d.NormalBase
	case ChanTangent:
		return d.TangentBase
	case ChanUV0:
		return d.UV0Base
	default:
		return d.ColorBase
	}
}

// MeshletBounds is one meshlet's culling record (20 B): sphere centre and
// radius f32×4 at byte 0, the packed cone (PackCone) at byte 16.
type MeshletBounds struct {
	Center [3]float32
	Radius float32
	Cone   uint32
}

// LocalVertexRef is one meshlet-local vertex (4 B): indices of its local
// position and local attribute within the meshlet.
type LocalVertexRef struct {
	Position  uint16
	Attribute uint16
}

// File is a whole MSH7 payload as plain arrays. Header counts are the slice
// lengths; Class decides whether Skin, Joints and InverseBinds may be
// non-empty.
type File struct {
	Class     MeshClass
	Positions [][3]float32
	Normals   [][4]Half // xyz unit, w 0 in files meshcook builds
	Tangents  [][4]Half // xyz unit, w the bitangent sign (±1)
	UV0       [][2]float32
	Colors    [][4]Half // linear RGBA

	// Skinned class only.
	Skin         []Influence
	Joints       []Joint
	InverseBinds [][16]float32 // column-major, one per joint

	Meshlets      []MeshletDesc
	Bounds        []MeshletBounds // one per meshlet
	PositionRefs  []byte          // per meshlet: position deltas, then skin deltas
	AttributeRefs []byte          // per meshlet: normal, tangent, uv0, color deltas
	LocalVertices []LocalVertexRef
	Primitives    []uint8 // 3 local vertex indices per triangle
}

// ErrFormat is matched (errors.Is) by every error Decode, Encode and
// Validate return for a malformed payload.
var ErrFormat = errors.New("msh7: invalid payload")

// ErrRecook is wrapped by the error for an older payload (MSH5, MSH6): the
// engine refuses them and the source must be cooked again.
var ErrRecook = errors.New("older payload version: recook the source")

// FormatError reports a malformed payload at a byte offset (the offset the
// record has, or would have once encoded; -1 when there is none).
type FormatError struct {
	Offset int64
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	return formaterr.Message("msh7: ", e.Offset, e.Msg, e.Err)
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func errAt(off int64, cause error, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}

// layout holds the byte offset of every stream for a set of counts.
type layout struct {
	positions, normals, tangents, uv0, colors   uint64
	skin, joints, inverseBinds                  uint64
	descs, bounds, posRefs, attrRefs, localRefs uint64
	primitives, end                             uint64
}

// counts are the header's 14 u64 counts in header order.
type counts [14]uint64

// Header count indices, in header order (count i is at byte 8 + 8·i).
const (
	cPositions = iota
	cNormals
	cTangents
	cUV0
	cColors
	cSkin
	cJoints
	cInverseBinds
	cMeshlets
	cMeshletBounds
	cPositionRefBytes
	cAttributeRefBytes
	cLocalVertexRefs
	cPrimitiveIndices
)

var countNames = [14]string{
	"positionCount", "normalCount", "tangentCount", "uv0Count", "colorCount",
	"skinCount", "skeletonJointCount", "inverseBindMatrixCount", "meshletCount",
	"meshletBoundCount", "meshletPositionRefDeltaByteCount",
	"meshletAttributeRefDeltaByteCount", "meshletLocalVertexRefCount",
	"meshletPrimitiveIndexCount",
}

// sizes are the record sizes of the streams in body order, paired with the
// count that sizes each.
var bodyOrder = [14]struct {
	count int
	size  uint64
}{
	{cPositions, PositionSize}, {cNormals, HalfVec4Size}, {cTangents, HalfVec4Size},
	{cUV0, UV0Size}, {cColors, HalfVec4Size}, {cSkin, InfluenceSize},
	{cJoints, JointSize}, {cInverseBinds, InverseBindSize},
	{cMeshlets, MeshletDescSize}, {cMeshletBounds, MeshletBoundsSize},
	{cPositionRefBytes, 1}, {cAttributeRefBytes, 1},
	{cLocalVertexRefs, LocalVertexRefSize}, {cPrimitiveIndices, 1},
}

// fileCounts returns f's header counts.
func (f *File) fileCounts() counts {
	return counts{
		uint64(len(f.Positions)), uint64(len(f.Normals)), uint64(len(f.Tangents)),
		uint64(len(f.UV0)), uint64(len(f.Colors)), uint64(len(f.Skin)),
		uint64(len(f.Joints)), uint64(len(f.InverseBinds)), uint64(len(f.Meshlets)),
		uint64(len(f.Bounds)), uint64(len(f.PositionRefs)), uint64(len(f.AttributeRefs)),
		uint64(len(f.LocalVertices)), uint64(len(f.Primitives)),
	}
}

// layoutOf returns stream offsets for c, or ok false when the sizes overflow
// a u64.
func layoutOf(c counts) (layout, bool) {
	var offs [15]uint64
	at := uint64(HeaderSize)
	for i, s := range bodyOrder {
		offs[i] = at
		n := c[s.count]
		if n > (^uint64(0)-at)/s.size {
			return layout{}, false
		}
		at += n * s.size
	}
	offs[14] = at
	return layout{
		positions: offs[0], normals: offs[1], tangents: offs[2], uv0: offs[3], colors: offs[4],
		skin: offs[5], joints: offs[6], inverseBinds: offs[7], descs: offs[8], bounds: offs[9],
		posRefs: offs[10], attrRefs: offs[11], localRefs: offs[12], primitives: offs[13], end: offs[14],
	}, true
}
