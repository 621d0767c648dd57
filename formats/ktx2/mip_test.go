package ktx2

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"
)

// refShrink is a float64 reference of the area filter: output pixel (x, y)
// averages the input over [x·sw/dw, (x+1)·sw/dw) × [y·sh/dh, (y+1)·sh/dh).
func refShrink(src []float64, sw, sh, dw, dh int) []float64 {
	cover := func(i, n, m int, j int) float64 { // share of input j in output i
		lo, hi := float64(i)*float64(n)/float64(m), float64(i+1)*float64(n)/float64(m)
		return math.Max(0, math.Min(hi, float64(j+1))-math.Max(lo, float64(j))) / (float64(n) / float64(m))
	}
	dst := make([]float64, dw*dh*4)
	for y := range dh {
		for x := range dw {
			for sy := range sh {
				wy := cover(y, sh, dh, sy)
				for sx := range sw {
					wgt := wy * cover(x, sw, dw, sx)
					for c := range 4 {
						dst[(y*dw+x)*4+c] += wgt * src[(sy*sw+sx)*4+c]
					}
				}
			}
		}
	}
	return dst
}

func refEncodeSRGB(l float64) float64 {
	if l <= 0.0031308 {
		return 12.92 * l
	}
	return 1.055*math.Pow(l, 1/2.4) - 0.055
}

// MipChain agrees within one code with a float64 reference that filters in
// linear light (color) or on the values (data), over random images of odd
// and even sizes.
func TestMipChainMatchesFloatReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range [][2]int{{7, 5}, {8, 8}, {13, 2}, {1, 9}, {6, 3}} {
		base := Level{Width: size[0], Height: size[1], Pixels: make([]byte, size[0]*size[1]*4)}
		for i := range base.Pixels {
			base.Pixels[i] = byte(rng.IntN(256))
		}
		for _, kind := range []Kind{KindColor, KindData} {
			lv, err := MipChain(base, kind)
			if err != nil {
				t.Fatal(err)
			}
			ref := make([]float64, len(base.Pixels))
			for i, v := range base.Pixels {
				ref[i] = float64(v) / 255
				if kind == KindColor && i%4 != 3 {
					ref[i] = srgbEOTF(ref[i])
				}
			}
			w, h := base.Width, base.Height
			for p := 1; p < len(lv); p++ {
				nw, nh := LevelSize(base.Width, base.Height, p)
				ref = refShrink(ref, w, h, nw, nh)
				w, h = nw, nh
				for i, l := range ref {
					want := l
					if kind == KindColor && i%4 != 3 {
						want = refEncodeSRGB(l)
					}
					if d := math.Abs(float64(lv[p].Pixels[i]) - want*255); d > 1 {
						t.Fatalf("%v %d×%d level %d byte %d: %d, reference %.3f", kind, base.Width, base.Height, p, i, lv[p].Pixels[i], want*255)
					}
				}
			}
		}
	}
}

func noisePNG(b *testing.B, w, h int) []byte {
	m := image.NewNRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range m.Pix {
		m.Pix[i] = byte(rng.IntN(256))
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

func BenchmarkFromImage1024Color(b *testing.B) {
	in := noisePNG(b, 1024, 1024)
	b.SetBytes(1024 * 1024 * 4)
	for b.Loop() {
		if _, err := FromImage(in, KindColor, testWriter); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMipChain1024(b *testing.B) {
	base := Level{Width: 1024, Height: 1024, Pixels: make([]byte, 1024*1024*4)}
	for i := range base.Pixels {
		base.Pixels[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(base.Pixels)))
	for b.Loop() {
		if _, err := MipChain(base, KindColor); err != nil {
			b.Fatal(err)
		}
	}
}
