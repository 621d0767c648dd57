// Package hanim reads, writes and validates .hanim v1 files, meshcook's
// animation clips for a skeleton exported in a .hmesh SKEL chunk, and turns
// the canonical model's animations (mesh.Animation) into clips, resampling
// glTF CUBICSPLINE channels to linear keys.
//
// Layout (docs/formats/hanim.md has every byte; nothing is aligned):
//
//	Header   16 B  magic "HANM", version u32 = 1, clipCount u32, reserved u32 (0)
//	Clip           u16 nameLen, name (UTF-8), f32 duration, u32 channelCount
//	Channel  12 B  u32 joint, u8 path, u8 interp, u8 components, u8 pad (0),
//	               u32 keyCount, then keyCount × (f32 time, components × f32)
//
// Paths: 0 translation (3 components), 1 rotation (4, quaternion xyzw),
// 2 scale (3), 3 morph weights (components = the submesh's morph target
// count, 1..255; joint = the submesh index). Interpolation: 0 step,
// 1 linear.
package hanim

import (
	"errors"
	"fmt"

	"github.com/meshcook/meshcook/mesh"
)

// Version is the only version this package reads and writes.
const Version = 1

// Magic is "HANM" as a little-endian u32.
const Magic = 0x4D4E4148

// On-disk sizes in bytes.
const (
	HeaderSize        = 16
	clipHeaderMin     = 2 + 4 + 4 // nameLen, duration, channelCount (empty name)
	ChannelHeaderSize = 12
)

// Interpolation values stored in a channel's interp byte.
const (
	InterpStep   = uint8(mesh.InterpStep)
	InterpLinear = uint8(mesh.InterpLinear)
)

// MaxNameLen is the longest clip name in bytes (u16 length field).
const MaxNameLen = 0xFFFF

// Clip is one animation clip.
type Clip struct {
	Name     string
	Duration float32 // seconds; no key lies past it
	Channels []Channel
}

// MaxTargets is the most morph targets a path-3 channel can drive (its
// components byte).
const MaxTargets = 255

// Channel animates one joint property, or one submesh's morph weights,
// with step or linear keys.
type Channel struct {
	Joint  uint32        // index into the .hmesh SKEL joints; for PathWeights, into SUBM
	Path   mesh.AnimPath // translation, rotation, scale or morph weights
	Interp uint8         // InterpStep or InterpLinear
	Times  []float32     // finite, ≥ 0, non-decreasing, ≤ the clip's duration
	// Values holds len(Times) × Components() floats, key after key.
	Values []float32
	// Targets is a PathWeights channel's width (1..MaxTargets); unused by
	// the other paths.
	Targets int
}

// Components is the value width of c: 3, 4 for rotation, Targets for
// morph weights.
func (c *Channel) Components() int {
	if c.Path == mesh.PathWeights {
		return c.Targets
	}
	return c.Path.Components()
}

// ErrFormat is wrapped by every FormatError, for errors.Is.
var ErrFormat = errors.New("hanim: invalid file")

// FormatError is a decoding or validation error at a byte offset of the file
// (for Validate, the offset the offending field would have once encoded).
type FormatError struct {
	Offset int64
	Msg    string
	Err    error // underlying cause (io.ErrUnexpectedEOF for a truncation), may be nil
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("hanim: offset 0x%x: %s", e.Offset, e.Msg)
}

// Unwrap returns both the cause and ErrFormat.
func (e *FormatError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrFormat, e.Err}
	}
	return []error{ErrFormat}
}
