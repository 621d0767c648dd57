package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/meshcook/meshcook/formats/ktx2"
)

// ktx2Summary is `inspect --json` for a .ktx2 texture.
type ktx2Summary struct {
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

// ktx2Kind reads the KTX 2.0 textures cook writes (RGBA8, UASTC or ETC1S,
// full mip chain).
func ktx2Kind() fileKind {
	return fileKind{
		name:  "ktx2",
		magic: []byte("\xABKTX 20\xBB\r\n\x1A\n"),
		validate: func(_ string, b []byte) error {
			_, err := ktx2.Decode(b) // Decode validates
			return err
		},
		inspect: func(w io.Writer, path string, b []byte, mode inspectMode) error {
			f, err := ktx2.Decode(b)
			if err != nil {
				return err
			}
			switch mode {
			case inspectDump:
				return ktx2.Dump(w, f)
			case inspectJSON:
				return writeJSON(w, summarizeKTX2(path, f))
			}
			s := summarizeKTX2(path, f)
			fmt.Fprintf(w, "%s: ktx2 %s (vkFormat %d, %s), %d×%d, %d levels (full chain %v), %d pixel bytes, writer %q, orientation %q\n",
				path, s.Format, s.VkFormat, s.ColorSpace, s.Width, s.Height, s.Levels, s.FullChain, s.PixelBytes, s.Writer, s.Orientation)
			return nil
		},
	}
}

func summarizeKTX2(path string, f *ktx2.File) ktx2Summary {
	s := ktx2Summary{
		File: path, Kind: "ktx2", VkFormat: f.VkFormat,
		Format: "R8G8B8A8_UNORM", ColorSpace: "linear",
		Width: f.Width, Height: f.Height, Levels: len(f.Levels),
		FullChain:   len(f.Levels) == ktx2.LevelCount(f.Width, f.Height),
		Writer:      strings.TrimSuffix(string(f.KeyValues[ktx2.KeyWriter]), "\x00"),
		Orientation: strings.TrimSuffix(string(f.KeyValues[ktx2.KeyOrientation]), "\x00"),
	}
	switch {
	case f.Codec != ktx2.CodecRGBA8:
		s.Format = strings.ToUpper(f.Codec.String())
	case f.VkFormat == ktx2.VkFormatR8G8B8A8SRGB:
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
