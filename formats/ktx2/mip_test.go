package ktx2

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
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

// tapShrink is shrink's general pass on both sides, whatever the sizes:
// the fast halving and copying passes must give exactly its values.
func tapShrink(src []uint16, sw, sh, dw, dh int) []uint16 {
	tmp := make([]uint16, dw*sh*4)
	for y := range sh {
		for x, ts := range taps(sw, dw) {
			for c := range 4 {
				var acc uint64
				for _, t := range ts {
					acc += uint64(t.w) * uint64(src[(y*sw+int(t.at))*4+c])
				}
				tmp[(y*dw+x)*4+c] = uint16((acc + uint64(sw)/2) / uint64(sw))
			}
		}
	}
	dst := make([]uint16, dw*dh*4)
	for y, ts := range taps(sh, dh) {
		for i := range dw * 4 {
			var acc uint64
			for _, t := range ts {
				acc += uint64(t.w) * uint64(tmp[int(t.at)*dw*4+i])
			}
			dst[y*dw*4+i] = uint16((acc + uint64(sh)/2) / uint64(sh))
		}
	}
	return dst
}

func TestShrinkFastPassesMatchTaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	sides := [][2]int{{1, 1}, {2, 1}, {8, 4}, {8, 8}, {7, 3}, {6, 4}, {33, 16}, {64, 32}}
	for _, sx := range sides {
		for _, sy := range sides {
			src := make([]uint16, sx[0]*sy[0]*4)
			for i := range src {
				src[i] = uint16(rng.Uint32())
			}
			// Extremes too: the fast passes must not overflow.
			if len(src) >= 8 {
				for i := range 8 {
					src[i] = 0xffff
				}
			}
			got := shrink(src, sx[0], sy[0], sx[1], sy[1])
			require.Equal(t, tapShrink(src, sx[0], sy[0], sx[1], sy[1]), got, "%dx%d -> %dx%d", sx[0], sy[0], sx[1], sy[1])
		}
	}
}
