package ktx2

import (
	"fmt"
	"io"
	"strings"

	"github.com/meshcook/meshcook/formats/format"
)

// Format describes the KTX 2.0 textures cook writes (RGBA8, UASTC or
// ETC1S, full mip chain) for formats/kinds.
func Format() format.Description {
	return format.Codec(format.Description{Name: "ktx2", Magic: []byte("\xABKTX 20\xBB\r\n\x1A\n")},
		Decode, // Decode validates
		func(path string, f *File) format.Summary { return Summarize(path, f) },
		Dump)
}

// Summary is `inspect` of a .ktx2 texture.
type Summary struct {
	File        string `json:"file"`
	Kind        string `json:"kind"`
	VkFormat    uint32 `json:"vkFormat"`
	Format      string `json:"format"`     // "R8G8B8A8_SRGB", "R8G8B8A8_UNORM", "UASTC" or "ETC1S"
	ColorSpace  string `json:"colorSpace"` // "srgb" (color image) or "linear" (data image)
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Levels      int    `json:"levels"`
	FullChain   bool   `json:"fullChain"`   // levels run down to 1×1
	PixelBytes  int    `json:"pixelBytes"`  // decoded RGBA8 bytes over all levels
	Writer      string `json:"writer"`      // KTXwriter
	Orientation string `json:"orientation"` // KTXorientation
}

// Summarize describes f.
func Summarize(path string, f *File) *Summary {
	s := &Summary{
		File: path, Kind: "ktx2", VkFormat: f.VkFormat,
		Format: "R8G8B8A8_UNORM", ColorSpace: "linear",
		Width: f.Width, Height: f.Height, Levels: len(f.Levels),
		FullChain:   len(f.Levels) == LevelCount(f.Width, f.Height),
		Writer:      strings.TrimSuffix(string(f.KeyValues[KeyWriter]), "\x00"),
		Orientation: strings.TrimSuffix(string(f.KeyValues[KeyOrientation]), "\x00"),
	}
	switch {
	case f.Codec != CodecRGBA8:
		s.Format = strings.ToUpper(f.Codec.String())
	case f.VkFormat == VkFormatR8G8B8A8SRGB:
		s.Format = "R8G8B8A8_SRGB"
	}
	if f.SRGB() {
		s.ColorSpace = "srgb"
	}
	for _, lv := range f.Levels {
		s.PixelBytes += len(lv.Pixels)
	}
	return s
}

// WriteText prints the human summary.
func (s *Summary) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s: ktx2 %s (vkFormat %d, %s), %d×%d, %d levels (full chain %v), %d pixel bytes, writer %q, orientation %q\n",
		s.File, s.Format, s.VkFormat, s.ColorSpace, s.Width, s.Height, s.Levels, s.FullChain, s.PixelBytes, s.Writer, s.Orientation)
	return err
}
