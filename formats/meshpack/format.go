// Package meshpack reads, writes and validates baked mesh packs (formats.md
// §5, seed 003): named entries of one vertex family, each with u32 indices,
// index ranges and a bounding sphere.
//
// Layout (docs/formats/meshpack.md has every byte; little-endian, no padding):
//
//	Header       16 B   magic "SMPK" or "RMPK", version 1, vertex_size, entry_count
//	per entry:
//	  EntryHeader 32 B  name_bytes, vertex_count, index_count, range_count,
//	                    bounds f32×4 (sphere centre xyz, radius)
//	  name        UTF-8, no NUL
//	  vertices    vertex_count × vertex_size
//	  indices     index_count × u32
//	  ranges      range_count × (first_index u32, index_count u32)
//
// The file on disk is one zstd frame around those bytes (Marshal); Decode
// accepts the frame or the raw bytes. Decode bounds every count against the
// bytes that remain before allocating and runs Validate, so a Pack it
// returns always encodes again to the same raw bytes.
package meshpack

import (
	"errors"
	"fmt"
)

// Version is the only pack version this package reads and writes.
const Version = 1

// Magics: the four ASCII bytes as a little-endian u32.
const (
	MagicStatic = 'S' | 'M'<<8 | 'P'<<16 | 'K'<<24 // "SMPK": buildings
	MagicRigged = 'R' | 'M'<<8 | 'P'<<16 | 'K'<<24 // "RMPK": attachments
)

// On-disk sizes in bytes.
const (
	HeaderSize        = 16
	EntryHeaderSize   = 32
	RangeSize         = 8
	StaticVertexSize  = 64
	RiggedVertexSize  = 56
	zstdMagic         = 0xFD2FB528
	defaultLimitBytes = 1 << 30
)

// Family is a pack's vertex family.
type Family uint8

// The two pack families.
const (
	Static Family = iota + 1 // .smpk, 64-byte StaticVertex
	Rigged                   // .rmpk, 56-byte RiggedVertex
)

// String returns "static" or "rigged".
func (f Family) String() string {
	switch f {
	case Static:
		return "static"
	case Rigged:
		return "rigged"
	}
	return fmt.Sprintf("family(%d)", uint8(f))
}

// Magic returns the family's magic number.
func (f Family) Magic() uint32 {
	if f == Rigged {
		return MagicRigged
	}
	return MagicStatic
}

// VertexSize returns the family's vertex size in bytes.
func (f Family) VertexSize() int {
	if f == Rigged {
		return RiggedVertexSize
	}
	return StaticVertexSize
}

// Ext returns the family's file extension (".smpk", ".rmpk").
func (f Family) Ext() string {
	if f == Rigged {
		return ".rmpk"
	}
	return ".smpk"
}

// StaticVertex is the 64-byte static vertex: position f32×3 @0, normal
// f32×3 @12, tex_coord f32×2 @24, color_alpha f32×4 @32, material f32×4
// @48. meshcook's bake writes material as (material id, palette slot,
// timber 0/1, 0) (docs/catalog.md).
type StaticVertex struct {
	Position [3]float32
	Normal   [3]float32
	TexCoord [2]float32
	Color    [4]float32
	Material [4]float32
}

// RiggedVertex is the 56-byte rigged vertex: position f32×3 @0, normal
// f32×3 @12, tex_coord f32×2 @24, bone_indices u8×4 @32, bone_weights f32×4
// @36, color_role u8 @52, 3 zero pad bytes.
type RiggedVertex struct {
	Position    [3]float32
	Normal      [3]float32
	TexCoord    [2]float32
	BoneIndices [4]uint8
	BoneWeights [4]float32
	ColorRole   uint8
}

// Range is a run of indices (whole triangles in meshcook's packs).
type Range struct {
	FirstIndex uint32
	IndexCount uint32
}

// Sphere is an entry's bounding sphere.
type Sphere struct {
	Center [3]float32
	Radius float32
}

// Entry is one named mesh. Exactly one of Static or Rigged holds the
// vertices, as the pack's family says.
type Entry struct {
	Name    string
	Static  []StaticVertex
	Rigged  []RiggedVertex
	Indices []uint32
	Ranges  []Range
	Bounds  Sphere
}

// VertexCount returns the number of vertices in the entry's family slice.
func (e *Entry) VertexCount() int { return max(len(e.Static), len(e.Rigged)) }

// Pack is a whole mesh pack.
type Pack struct {
	Family  Family
	Entries []Entry
}

// ErrFormat is matched (errors.Is) by every error about malformed bytes.
var ErrFormat = errors.New("meshpack: malformed pack")

// FormatError is malformed bytes at a byte offset of the raw (decompressed)
// pack.
type FormatError struct {
	Offset int64
	Msg    string
	Err    error // a cause such as io.ErrUnexpectedEOF, or nil
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("meshpack: offset %#x: %s", e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause and ErrFormat.
func (e *FormatError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrFormat, e.Err}
	}
	return []error{ErrFormat}
}

func errAt(off int64, cause error, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
}
