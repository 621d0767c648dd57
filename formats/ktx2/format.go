// Package ktx2 reads, writes and validates the KTX 2.0 textures meshcook
// cooks: one file per referenced source image, uncompressed RGBA8 with a full
// mip chain, no supercompression.
//
// Contract: spec/formats.md §1 ".ktx2 textures" and the Khronos KTX 2.0
// specification. docs/formats/ktx2.md has every byte; in short:
//
//	Header          80 B  identifier, vkFormat, typeSize 1, width, height,
//	                      depth 0, layers 0, faces 1, levelCount, scheme 0,
//	                      dfd/kvd/sgd offsets and lengths
//	Level index     24 B × levelCount, level 0 (largest) first
//	DFD             92 B  dfdTotalSize + one Khronos Basic Descriptor Block
//	                      with four 8-bit samples R, G, B, A
//	Key/value data        KTXorientation "rd", KTXwriter, sorted by key
//	Level data            smallest level first, each on a 4-byte boundary
//
// Color images (base color, emissive) are R8G8B8A8_SRGB (vkFormat 43) and
// their mips are filtered in linear light; data images (normal,
// metallic-roughness, occlusion) are R8G8B8A8_UNORM (37) and filtered on the
// stored values.
package ktx2

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/meshcook/meshcook/internal/formaterr"
)

// identifier is the 12-byte file identifier «KTX 20»\r\n\x1A\n.
const identifier = "\xABKTX 20\xBB\r\n\x1A\n"

// Vulkan formats meshcook writes.
const (
	VkFormatR8G8B8A8Unorm = 37 // VK_FORMAT_R8G8B8A8_UNORM: data images
	VkFormatR8G8B8A8SRGB  = 43 // VK_FORMAT_R8G8B8A8_SRGB: color images
)

// On-disk sizes in bytes.
const (
	HeaderSize     = 80 // identifier, nine u32 fields, the index
	LevelEntrySize = 24 // byteOffset, byteLength, uncompressedByteLength (u64 each)
	DFDSize        = 92 // dfdTotalSize (4) + basic block header (24) + 4 samples × 16
	bytesPerPixel  = 4
	levelAlign     = 4 // lcm(texel block size 4, 4)
)

// Limits on the images FromImage accepts and Validate allows.
const (
	MaxSide   = 16384   // pixels per side
	MaxPixels = 1 << 28 // width × height
)

// Metadata keys meshcook writes. Both values are NUL-terminated UTF-8.
const (
	KeyOrientation = "KTXorientation"
	KeyWriter      = "KTXwriter"
	// Orientation is the KTXorientation value: S to the right, T down, the
	// first stored pixel is the image's top-left, as in PNG and JPEG rows.
	Orientation = "rd"
)

// Kind says how an image's values are encoded and therefore how they are
// stored and filtered.
type Kind int

const (
	// KindColor is an sRGB-encoded color image (base color, emissive):
	// stored as R8G8B8A8_SRGB, mips averaged in linear light.
	KindColor Kind = iota
	// KindData is a non-color image (normal, metallic-roughness,
	// occlusion): stored as R8G8B8A8_UNORM, mips averaged on the values.
	KindData
)

func (k Kind) String() string {
	switch k {
	case KindColor:
		return "color"
	case KindData:
		return "data"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// VkFormat returns the Vulkan format a Kind is stored as, or 0 for an
// unknown Kind.
func (k Kind) VkFormat() uint32 {
	switch k {
	case KindColor:
		return VkFormatR8G8B8A8SRGB
	case KindData:
		return VkFormatR8G8B8A8Unorm
	}
	return 0
}

// Level is one mip level: Width × Height pixels, rows top to bottom, each
// pixel R, G, B, A bytes (straight alpha). len(Pixels) = Width·Height·4.
type Level struct {
	Width, Height int
	Pixels        []byte
}

// File is a decoded meshcook KTX2 texture.
type File struct {
	// Codec is how the file stores its pixels. For CodecRGBA8, VkFormat
	// is VkFormatR8G8B8A8SRGB or VkFormatR8G8B8A8Unorm; the Basis codecs
	// have VkFormat 0 and Kind says sRGB (KindColor) or linear (KindData).
	Codec         Codec
	VkFormat      uint32
	Kind          Kind // Basis codecs only; RGBA8 files follow VkFormat
	Width, Height int  // level 0 size
	// Levels is the full mip chain, level 0 (Width × Height) first, each
	// level half the previous one rounded down (at least 1), ending at 1×1.
	// For Basis codecs Decode fills the pixels by decoding the blocks.
	Levels []Level
	// KeyValues holds the key/value data with raw values: string values
	// keep their NUL terminator ("rd\x00"). Entries are written sorted by
	// key whatever the map order.
	KeyValues map[string][]byte
}

// SRGB reports whether the texture's color channels are sRGB-encoded.
func (f *File) SRGB() bool {
	if f.Codec == CodecRGBA8 {
		return f.VkFormat == VkFormatR8G8B8A8SRGB
	}
	return f.Kind == KindColor
}

// LevelCount returns the number of levels in a full mip chain down to 1×1
// for a width × height image: floor(log2(max(width, height))) + 1.
func LevelCount(width, height int) int {
	m := max(width, height)
	if m <= 0 {
		return 0
	}
	return bits.Len(uint(m))
}

// LevelSize returns the size of mip level p of a width × height image.
func LevelSize(width, height, p int) (int, int) {
	return max(1, width>>p), max(1, height>>p)
}

// ErrFormat is matched by errors.Is for every error that reports a malformed
// or invalid KTX2 file or texture.
var ErrFormat = errors.New("ktx2: invalid file")

// FormatError reports malformed or invalid KTX2 data. Offset is the absolute
// byte offset of the problem, or -1 when there is none (Validate on an
// in-memory File). Err is an underlying cause such as io.ErrUnexpectedEOF.
type FormatError struct {
	Offset int64
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	return formaterr.Message("ktx2: ", e.Offset, e.Msg, e.Err)
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func errAt(off int64, format string, args ...any) *FormatError {
	return &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}
