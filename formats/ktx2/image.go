package ktx2

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
)

// Signatures that pick the decoder; nothing else is accepted, whatever
// image formats other packages register.
const (
	pngSignature  = "\x89PNG\r\n\x1a\n"
	jpegSignature = "\xff\xd8\xff"
)

// ErrUnsupportedImage is matched by errors.Is when FromImage's input is
// neither PNG nor JPEG.
var ErrUnsupportedImage = errors.New("ktx2: image is neither PNG nor JPEG")

// FromImage decodes a PNG or JPEG image and returns the bytes of a meshcook
// KTX2 texture holding it with its full mip chain (see MipChain), stored as
// sRGB for KindColor and UNORM for KindData, with KTXwriter = writer. The
// image size is read first and refused above MaxSide per side or MaxPixels
// before any pixel is decoded. Grayscale, paletted, 16-bit, premultiplied and
// YCbCr/CMYK sources are converted to straight-alpha RGBA8 (16-bit values
// rounded to nearest).
func FromImage(encoded []byte, kind Kind, writer string) ([]byte, error) {
	return FromImageOptions(encoded, kind, writer, Options{})
}

// FromImageOptions is Encoder.FromImageOptions with an Encoder of its own.
func FromImageOptions(encoded []byte, kind Kind, writer string, o Options) ([]byte, error) {
	var e Encoder
	defer e.Close()
	return e.FromImageOptions(encoded, kind, writer, o)
}

// FromImageOptions is FromImage with a codec, quality and size limit (see
// Options): the image is decoded, shrunk to o.MaxSize if larger, given its
// full mip chain, and stored with o.Codec.
func (e *Encoder) FromImageOptions(encoded []byte, kind Kind, writer string, o Options) ([]byte, error) {
	if kind.VkFormat() == 0 {
		return nil, errAt(-1, "unknown kind %d", int(kind))
	}
	if err := checkWriter(writer); err != nil {
		return nil, err
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	base, err := decodeImage(encoded)
	if err != nil {
		return nil, err
	}
	if o.MaxSize > 0 {
		base = FitSize(base, kind, o.MaxSize)
	}
	levels, err := MipChain(base, kind)
	if err != nil {
		return nil, err
	}
	if o.Codec == CodecRGBA8 {
		return Encode(levels, kind, writer)
	}
	return e.EncodeBasis(levels, kind, writer, o)
}

// decodeImage bounds, decodes and converts a PNG or JPEG to RGBA8.
func decodeImage(encoded []byte) (Level, error) {
	var (
		name       string
		decodeConf func(r *bytes.Reader) (image.Config, error)
		decode     func(r *bytes.Reader) (image.Image, error)
	)
	switch {
	case bytes.HasPrefix(encoded, []byte(pngSignature)):
		name = "png"
		decodeConf = func(r *bytes.Reader) (image.Config, error) { return png.DecodeConfig(r) }
		decode = func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) }
	case bytes.HasPrefix(encoded, []byte(jpegSignature)):
		name = "jpeg"
		decodeConf = func(r *bytes.Reader) (image.Config, error) { return jpeg.DecodeConfig(r) }
		decode = func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) }
	default:
		return Level{}, ErrUnsupportedImage
	}
	cfg, err := decodeConf(bytes.NewReader(encoded))
	if err != nil {
		return Level{}, fmt.Errorf("ktx2: %s header: %w", name, err)
	}
	if err := checkSize(cfg.Width, cfg.Height, -1); err != nil {
		return Level{}, fmt.Errorf("ktx2: %s image refused: %w", name, err)
	}
	img, err := decode(bytes.NewReader(encoded))
	if err != nil {
		return Level{}, fmt.Errorf("ktx2: %s: %w", name, err)
	}
	r := img.Bounds()
	if r.Dx() != cfg.Width || r.Dy() != cfg.Height {
		return Level{}, fmt.Errorf("ktx2: %s: decoded %d×%d, header said %d×%d", name, r.Dx(), r.Dy(), cfg.Width, cfg.Height)
	}
	return Level{Width: r.Dx(), Height: r.Dy(), Pixels: toRGBA8(img)}, nil
}

// toRGBA8 returns img's pixels as tightly packed straight-alpha RGBA8, rows
// top to bottom. The common decoder outputs take direct paths; anything
// else goes through color.Color.
func toRGBA8(img image.Image) []byte {
	r := img.Bounds()
	w, h := r.Dx(), r.Dy()
	out := make([]byte, 0, w*h*4)
	switch m := img.(type) {
	case *image.NRGBA:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			i := m.PixOffset(r.Min.X, y)
			out = append(out, m.Pix[i:i+w*4]...)
		}
	case *image.RGBA:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			i := m.PixOffset(r.Min.X, y)
			p := m.Pix[i : i+w*4]
			for x := 0; x < len(p); x += 4 {
				out = appendUnpremul(out, p[x], p[x+1], p[x+2], p[x+3])
			}
		}
	case *image.Gray:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			i := m.PixOffset(r.Min.X, y)
			for _, g := range m.Pix[i : i+w] {
				out = append(out, g, g, g, 255)
			}
		}
	case *image.YCbCr:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				yi, ci := m.YOffset(x, y), m.COffset(x, y)
				cr, cg, cb := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				out = append(out, cr, cg, cb, 255)
			}
		}
	case *image.Paletted:
		pal := make([][4]byte, len(m.Palette))
		for i, c := range m.Palette {
			pal[i] = nrgba8(c)
		}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			i := m.PixOffset(r.Min.X, y)
			for _, ci := range m.Pix[i : i+w] {
				var c [4]byte // an index past the palette is transparent black
				if int(ci) < len(pal) {
					c = pal[ci]
				}
				out = append(out, c[:]...)
			}
		}
	default:
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				c := nrgba8(img.At(x, y))
				out = append(out, c[:]...)
			}
		}
	}
	return out
}

// appendUnpremul appends the straight-alpha form of a premultiplied RGBA8
// pixel, rounding to nearest.
func appendUnpremul(out []byte, r, g, b, a byte) []byte {
	switch a {
	case 255:
		return append(out, r, g, b, a)
	case 0:
		return append(out, 0, 0, 0, 0)
	}
	un := func(c byte) byte { return byte(min(255, (uint32(c)*255+uint32(a)/2)/uint32(a))) }
	return append(out, un(r), un(g), un(b), a)
}

// nrgba8 converts any color to straight-alpha RGBA8, rounding the 16-bit
// values color.Color reports to nearest.
func nrgba8(c color.Color) [4]byte {
	r, g, b, a := c.RGBA() // 16-bit, premultiplied
	if a == 0 {
		return [4]byte{}
	}
	to8 := func(v uint32) byte { return byte((v*255 + 32767) / 65535) }
	if a != 0xffff {
		un := func(v uint32) uint32 { return min(0xffff, (v*0xffff+a/2)/a) }
		r, g, b = un(r), un(g), un(b)
	}
	return [4]byte{to8(r), to8(g), to8(b), to8(a)}
}
