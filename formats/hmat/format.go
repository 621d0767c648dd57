// Package hmat reads, writes and validates .hmat v1 files, the material table
// that accompanies a .hmesh, and computes the canonical runtime refs and
// FNV-1a 64 hashes that .hmesh MTRL entries and .hmat texture slots hold.
//
// Layout (docs/formats/hmat.md has every byte):
//
//	Header       16 B   magic "HMAT", version 1, count, flags 0
//	GpuMaterial  96 B × count
//
// The file is exactly 16 + 96·count bytes. Row i is the material of .hmesh
// MTRL[i] and of every submesh whose materialSlot is i.
package hmat

import (
	"errors"

	"github.com/meshcook/meshcook/internal/formaterr"
)

// Version is the only version this package reads and writes.
const Version = 1

// Magic is "HMAT" as a little-endian u32.
const Magic = 0x54414D48

// On-disk sizes in bytes.
const (
	HeaderSize   = 16
	MaterialSize = 96
)

// NoMaterial is the material slot of a submesh without a material (the same
// value as hmesh.NoMaterial).
const NoMaterial = 0xFFFFFFFF

// Flags bits.
const (
	FlagDoubleSided = 1      // bit 0
	alphaModeShift  = 1      // bits 1-2: alpha mode
	alphaModeMask   = 3 << 1 // bits 1-2
	knownFlags      = FlagDoubleSided | alphaModeMask
)

// Alpha modes as stored in flags bits 1-2 (3 is invalid).
const (
	AlphaOpaque = 0
	AlphaMask   = 1
	AlphaBlend  = 2
)

// Material is GpuMaterial (96 B): baseColorFactor f32×4 @0, emissiveFactor
// f32×3 @16, metallic @28, roughness @32, normalScale @36,
// occlusionStrength @40, alphaCutoff @44, flags u32 @48, pad u32 @52 (0),
// then u64 texture refs (FNV-1a 64 of the texture's canonical ref, 0 = none)
// @56, @64, @72, @80, @88.
type Material struct {
	BaseColorFactor   [4]float32
	EmissiveFactor    [3]float32
	Metallic          float32
	Roughness         float32
	NormalScale       float32
	OcclusionStrength float32
	AlphaCutoff       float32
	Flags             uint32

	BaseColorTex         uint64
	MetallicRoughnessTex uint64
	NormalTex            uint64
	OcclusionTex         uint64
	EmissiveTex          uint64
}

// DefaultMaterial returns the spec defaults: base color 1,1,1,1, metallic 1,
// roughness 1, emissive 0, normal scale 1, occlusion strength 1, alpha
// cutoff 0.5, opaque, single-sided, no textures.
func DefaultMaterial() Material {
	return Material{
		BaseColorFactor:   [4]float32{1, 1, 1, 1},
		Metallic:          1,
		Roughness:         1,
		NormalScale:       1,
		OcclusionStrength: 1,
		AlphaCutoff:       0.5,
	}
}

// AlphaModeFlags returns the flags bits (1-2) for an alpha mode
// (AlphaOpaque, AlphaMask or AlphaBlend).
func AlphaModeFlags(mode uint8) uint32 {
	return uint32(mode&3) << alphaModeShift
}

// AlphaMode returns the alpha mode held in m.Flags bits 1-2.
func (m Material) AlphaMode() uint8 {
	return uint8(m.Flags&alphaModeMask) >> alphaModeShift
}

// DoubleSided reports flags bit 0.
func (m Material) DoubleSided() bool { return m.Flags&FlagDoubleSided != 0 }

// ErrFormat is matched by errors.Is for every error that reports a malformed
// or invalid .hmat.
var ErrFormat = errors.New("hmat: invalid file")

// FormatError reports malformed or invalid .hmat data. Offset is the
// absolute byte offset of the problem, or -1 when unknown (Validate on
// in-memory materials). Err is an underlying cause such as
// io.ErrUnexpectedEOF.
type FormatError struct {
	Offset int64
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	return formaterr.Message("hmat: ", e.Offset, e.Msg, e.Err)
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }
