package ktx2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// level0 runs FromImage and returns the decoded file's base level.
func level0(t *testing.T, encoded []byte, kind Kind) Level {
	t.Helper()
	b, err := FromImage(encoded, kind, testWriter)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if f.VkFormat != kind.VkFormat() || len(f.Levels) != LevelCount(f.Width, f.Height) {
		t.Fatalf("vkFormat %d with %d levels", f.VkFormat, len(f.Levels))
	}
	return f.Levels[0]
}

// Each decoder output type becomes the same straight-alpha RGBA8 bytes.
func TestFromImagePixelTypes(t *testing.T) {
	r := image.Rect(0, 0, 3, 2)
	nrgba := image.NewNRGBA(r)
	gray := image.NewGray(r)
	gray16 := image.NewGray16(r)
	nrgba64 := image.NewNRGBA64(r)
	pal := image.NewPaletted(r, color.Palette{
		color.NRGBA{10, 20, 30, 255}, color.NRGBA{200, 100, 0, 128}, color.NRGBA{0, 0, 0, 0},
	})
	var wantN, wantG, wantP []byte
	for y := range 2 {
		for x := range 3 {
			c := color.NRGBA{uint8(40*x + 7), uint8(90 * y), uint8(x*y*60 + 3), uint8(255 - 100*x)}
			nrgba.SetNRGBA(x, y, c)
			nrgba64.SetNRGBA64(x, y, color.NRGBA64{uint16(c.R) * 257, uint16(c.G) * 257, uint16(c.B) * 257, uint16(c.A) * 257})
			wantN = append(wantN, c.R, c.G, c.B, c.A)
			g := uint8(50*x + 30*y)
			gray.SetGray(x, y, color.Gray{g})
			gray16.SetGray16(x, y, color.Gray16{uint16(g)*257 + 100}) // rounds back to g
			wantG = append(wantG, g, g, g, 255)
			i := (x + y) % 3
			pal.SetColorIndex(x, y, uint8(i))
			pc := pal.Palette[i].(color.NRGBA)
			wantP = append(wantP, pc.R, pc.G, pc.B, pc.A)
		}
	}
	for _, c := range []struct {
		name string
		img  image.Image
		want []byte
	}{
		{"NRGBA", nrgba, wantN},
		{"NRGBA64", nrgba64, wantN},
		{"Gray", gray, wantG},
		{"Gray16", gray16, wantG},
		{"Paletted", pal, wantP},
	} {
		got := level0(t, encodePNG(t, c.img), KindData)
		if got.Width != 3 || got.Height != 2 || !bytes.Equal(got.Pixels, c.want) {
			t.Errorf("%s: level 0 %d×%d %v, want %v", c.name, got.Width, got.Height, got.Pixels, c.want)
		}
	}
}

// Premultiplied sources are unpremultiplied with rounding; a sub-image's
// origin is honoured.
func TestToRGBA8Premultiplied(t *testing.T) {
	m := image.NewRGBA(image.Rect(0, 0, 4, 1))
	copy(m.Pix, []byte{100, 50, 0, 200 /**/, 9, 9, 9, 0 /**/, 1, 2, 3, 255 /**/, 64, 0, 128, 128})
	want := []byte{128, 64, 0, 200 /**/, 0, 0, 0, 0 /**/, 1, 2, 3, 255 /**/, 128, 0, 255, 128}
	if got := toRGBA8(m); !bytes.Equal(got, want) {
		t.Errorf("RGBA → %v, want %v", got, want)
	}
	sub := m.SubImage(image.Rect(2, 0, 4, 1))
	if got := toRGBA8(sub); !bytes.Equal(got, want[8:]) {
		t.Errorf("sub-image → %v, want %v", got, want[8:])
	}
	// The generic path agrees with the fast one.
	generic := image.NewRGBA64(image.Rect(0, 0, 4, 1))
	for x := range 4 {
		generic.Set(x, 0, m.At(x, 0))
	}
	if got := toRGBA8(generic); !bytes.Equal(got, want) {
		t.Errorf("RGBA64 → %v, want %v", got, want)
	}
}

func TestFromImageJPEG(t *testing.T) {
	img := image.NewYCbCr(image.Rect(0, 0, 16, 8), image.YCbCrSubsampleRatio420)
	for i := range img.Y {
		img.Y[i] = 180
	}
	for i := range img.Cb {
		img.Cb[i], img.Cr[i] = 100, 160
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	r, g, bl := color.YCbCrToRGB(180, 100, 160)
	got := level0(t, b.Bytes(), KindColor)
	for i := 0; i < len(got.Pixels); i += 4 {
		p := got.Pixels[i : i+4]
		if absDiff(p[0], r) > 2 || absDiff(p[1], g) > 2 || absDiff(p[2], bl) > 2 || p[3] != 255 {
			t.Fatalf("pixel %d = %v, want ≈ %d %d %d 255", i/4, p, r, g, bl)
		}
	}
}

func absDiff(a, b byte) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// pngHeader returns a PNG holding only its signature and IHDR chunk.
func pngHeader(w, h uint32) []byte {
	b := []byte(pngSignature)
	ihdr := binary.BigEndian.AppendUint32([]byte("IHDR"), w)
	ihdr = binary.BigEndian.AppendUint32(ihdr, h)
	ihdr = append(ihdr, 8, 6, 0, 0, 0) // 8-bit RGBA, deflate, no filter, no interlace
	b = binary.BigEndian.AppendUint32(b, 13)
	b = append(b, ihdr...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
}

func TestFromImageRefuses(t *testing.T) {
	good := encodePNG(t, image.NewGray(image.Rect(0, 0, 2, 2)))
	for _, c := range []struct {
		name   string
		in     []byte
		kind   Kind
		writer string
		want   string
		is     error
	}{
		{"not an image", []byte("GIF89a........"), KindColor, testWriter, "neither PNG nor JPEG", ErrUnsupportedImage},
		{"empty", nil, KindColor, testWriter, "neither PNG nor JPEG", ErrUnsupportedImage},
		// Only the header is there: a refusal that names the size proves the
		// bound ran before any pixel decoding.
		{"too wide", pngHeader(MaxSide+1, 1), KindColor, testWriter, "png image refused: ktx2: size 16385×1 exceeds 16384 per side", ErrFormat},
		{"too tall", pngHeader(1, 1<<30), KindData, testWriter, "exceeds 16384 per side", ErrFormat},
		{"header only", pngHeader(4, 4), KindColor, testWriter, "ktx2: png: ", nil},
		{"truncated", good[:len(good)-20], KindColor, testWriter, "ktx2: png: ", nil},
		{"bad jpeg", []byte("\xff\xd8\xff\x00\x00"), KindColor, testWriter, "ktx2: jpeg header: ", nil},
		{"unknown kind", good, Kind(-1), testWriter, "unknown kind -1", ErrFormat},
		{"empty writer", good, KindColor, "", "empty KTXwriter", ErrFormat},
	} {
		_, err := FromImage(c.in, c.kind, c.writer)
		if err == nil || !strings.Contains(err.Error(), c.want) || (c.is != nil && !errors.Is(err, c.is)) {
			t.Errorf("%s: error %v, want one containing %q (is %v)", c.name, err, c.want, c.is)
		}
	}
}

func TestFromImageDeterministic(t *testing.T) {
	m := image.NewNRGBA(image.Rect(0, 0, 13, 7))
	for i := range m.Pix {
		m.Pix[i] = byte(i * 131)
	}
	in := encodePNG(t, m)
	for _, kind := range []Kind{KindColor, KindData} {
		a, err := FromImage(in, kind, testWriter)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := FromImage(in, kind, testWriter)
		if !bytes.Equal(a, b) {
			t.Errorf("%v: two conversions differ", kind)
		}
	}
}
