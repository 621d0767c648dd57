package ktx2

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Validate checks that f is a meshcook texture: vkFormat 37 or 43 (RGBA8)
// or 0 with a Basis codec and a known Kind, a size
// within MaxSide and MaxPixels, the full mip chain (LevelCount levels of
// LevelSize, each with Width·Height·4 pixel bytes), KTXorientation "rd" and
// a non-empty NUL-terminated UTF-8 KTXwriter, and every key non-empty UTF-8
// without NUL. Errors are *FormatError with Offset -1.
func Validate(f *File) error {
	if f == nil {
		return errAt(-1, "nil file")
	}
	switch f.Codec {
	case CodecRGBA8:
		if f.VkFormat != VkFormatR8G8B8A8Unorm && f.VkFormat != VkFormatR8G8B8A8SRGB {
			return errAt(-1, "vkFormat %d, want %d (R8G8B8A8_UNORM) or %d (R8G8B8A8_SRGB)",
				f.VkFormat, VkFormatR8G8B8A8Unorm, VkFormatR8G8B8A8SRGB)
		}
	case CodecUASTC, CodecETC1S:
		if f.VkFormat != 0 {
			return errAt(-1, "vkFormat %d with codec %v, want 0", f.VkFormat, f.Codec)
		}
		if f.Kind.VkFormat() == 0 {
			return errAt(-1, "unknown kind %d", int(f.Kind))
		}
	default:
		return errAt(-1, "unknown codec %d", int(f.Codec))
	}
	if err := checkSize(f.Width, f.Height, -1); err != nil {
		return err
	}
	if want := LevelCount(f.Width, f.Height); len(f.Levels) != want {
		return errAt(-1, "%d levels, want the full chain of %d for %d×%d", len(f.Levels), want, f.Width, f.Height)
	}
	for p, lv := range f.Levels {
		w, h := LevelSize(f.Width, f.Height, p)
		if lv.Width != w || lv.Height != h {
			return errAt(-1, "level %d is %d×%d, want %d×%d", p, lv.Width, lv.Height, w, h)
		}
		if len(lv.Pixels) != w*h*bytesPerPixel {
			return errAt(-1, "level %d: %d pixel bytes, want %d", p, len(lv.Pixels), w*h*bytesPerPixel)
		}
	}
	for k := range f.KeyValues {
		if k == "" || !utf8.ValidString(k) || strings.IndexByte(k, 0) >= 0 {
			return errAt(-1, "key %q: want non-empty UTF-8 without NUL", k)
		}
	}
	if v, ok := f.KeyValues[KeyOrientation]; !ok {
		return errAt(-1, "no %s key", KeyOrientation)
	} else if string(v) != Orientation+"\x00" {
		return errAt(-1, "%s %q, want %q", KeyOrientation, v, Orientation+"\x00")
	}
	v, ok := f.KeyValues[KeyWriter]
	if !ok {
		return errAt(-1, "no %s key", KeyWriter)
	}
	if len(v) < 2 || v[len(v)-1] != 0 || bytes.IndexByte(v[:len(v)-1], 0) >= 0 || !utf8.Valid(v) {
		return errAt(-1, "%s %q: want non-empty UTF-8 text with one NUL terminator", KeyWriter, v)
	}
	return nil
}

// checkSize refuses sizes outside 1..MaxSide per side or above MaxPixels;
// off is the byte offset to report (-1 for none).
func checkSize(w, h int, off int64) error {
	switch {
	case w < 1 || h < 1:
		return errAt(off, "size %d×%d: both sides must be at least 1", w, h)
	case w > MaxSide || h > MaxSide:
		return errAt(off, "size %d×%d exceeds %d per side", w, h, MaxSide)
	case int64(w)*int64(h) > MaxPixels:
		return errAt(off, "size %d×%d exceeds %d pixels", w, h, MaxPixels)
	}
	return nil
}
