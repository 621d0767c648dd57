package ktx2

import "math"

// Mip generation.
//
// Each level is the area average (box filter) of the level above it: when
// a side halves evenly that is the usual 2×2 box; an odd side of n pixels
// shrinking to floor(n/2) gives every output pixel an equal n/floor(n/2)
// share of the input, so edge pixels are neither dropped nor counted twice
// (5 → 2 weighs the inputs 1, 1, ½ and ½, 1, 1). A side already 1 stays 1.
//
// Values are averaged as 16-bit integers with exact integer weights and
// round-to-nearest division, so the output is the same on every machine.
// Levels after the first are computed from the previous level's 16-bit
// values, not its 8-bit output, so rounding does not accumulate.
//
// Color (sRGB) images are averaged in linear light: each 8-bit sRGB value
// maps to round(EOTF(v/255)·65535), and an averaged linear value maps back
// to the 8-bit code whose sRGB-space interval holds it (decision points at
// EOTF((k+½)/255)), which is round-to-nearest in sRGB space. This is the
// EOTF → scaling → EOTF⁻¹ path the KTX 2.0 spec asks for; averaging sRGB
// bytes directly would darken every edge (black next to white gives 128
// instead of 188). Alpha is linear in both kinds; data images average
// their stored values.

// MipChain returns the full mip chain of base (LevelCount levels, down to
// 1×1) filtered as described above for kind. levels[0] is base itself, not
// a copy; every other level is newly allocated. base must hold
// Width·Height·4 bytes and fit MaxSide and MaxPixels.
func MipChain(base Level, kind Kind) ([]Level, error) {
	if kind.VkFormat() == 0 {
		return nil, errAt(-1, "unknown kind %d", int(kind))
	}
	if err := checkSize(base.Width, base.Height, -1); err != nil {
		return nil, err
	}
	if want := base.Width * base.Height * bytesPerPixel; len(base.Pixels) != want {
		return nil, errAt(-1, "base level: %d pixel bytes, want %d", len(base.Pixels), want)
	}
	levels := []Level{base}
	n := LevelCount(base.Width, base.Height)
	if n == 1 {
		return levels, nil
	}
	tf := newTransfer(kind)
	cur := make([]uint16, len(base.Pixels))
	for i, v := range base.Pixels {
		cur[i] = tf.to16[i&3][v]
	}
	w, h := base.Width, base.Height
	for p := 1; p < n; p++ {
		nw, nh := LevelSize(base.Width, base.Height, p)
		cur = shrink(cur, w, h, nw, nh)
		w, h = nw, nh
		px := make([]byte, len(cur))
		for i, v := range cur {
			px[i] = tf.to8[i&3][v]
		}
		levels = append(levels, Level{Width: w, Height: h, Pixels: px})
	}
	return levels, nil
}

// FitSize returns base shrunk so that its larger side is maxSide, keeping
// the aspect ratio (the smaller side rounded to nearest, at least 1), by
// the same area average as MipChain (linear light for KindColor). An image
// that already fits is returned as it is. base must be valid for MipChain.
func FitSize(base Level, kind Kind, maxSide int) Level {
	w, h := base.Width, base.Height
	if maxSide <= 0 || max(w, h) <= maxSide {
		return base
	}
	nw, nh := maxSide, max(1, (h*maxSide+w/2)/w)
	if h > w {
		nw, nh = max(1, (w*maxSide+h/2)/h), maxSide
	}
	tf := newTransfer(kind)
	cur := make([]uint16, len(base.Pixels))
	for i, v := range base.Pixels {
		cur[i] = tf.to16[i&3][v]
	}
	cur = shrink(cur, w, h, nw, nh)
	px := make([]byte, len(cur))
	for i, v := range cur {
		px[i] = tf.to8[i&3][v]
	}
	return Level{Width: nw, Height: nh, Pixels: px}
}

// transfer maps 8-bit stored values to the 16-bit values averaged and back,
// per channel (R, G, B, A).
type transfer struct {
	to16 [4]*[256]uint16
	to8  [4]*[65536]byte
}

func newTransfer(kind Kind) *transfer {
	// Linear values: v·257 is exact (255·257 = 65535); back by rounding.
	lin16 := new([256]uint16)
	for v := range lin16 {
		lin16[v] = uint16(v * 257)
	}
	lin8 := new([65536]byte)
	for v := range lin8 {
		lin8[v] = byte((v*255 + 32767) / 65535)
	}
	t := &transfer{to16: [4]*[256]uint16{lin16, lin16, lin16, lin16}, to8: [4]*[65536]byte{lin8, lin8, lin8, lin8}}
	if kind != KindColor {
		return t
	}
	srgb16 := new([256]uint16)
	for v := range srgb16 {
		srgb16[v] = uint16(math.Round(srgbEOTF(float64(v)/255) * 65535))
	}
	// Decision point k is where code k gives way to k+1.
	var cut [255]float64
	for k := range cut {
		cut[k] = srgbEOTF((float64(k)+0.5)/255) * 65535
	}
	srgb8 := new([65536]byte)
	k := 0
	for v := range srgb8 {
		for k < len(cut) && float64(v) >= cut[k] {
			k++
		}
		srgb8[v] = byte(k)
	}
	for c := range 3 {
		t.to16[c], t.to8[c] = srgb16, srgb8
	}
	return t
}

// srgbEOTF is the sRGB electro-optical transfer function (IEC 61966-2-1):
// encoded value in [0, 1] → linear light in [0, 1].
func srgbEOTF(e float64) float64 {
	if e <= 0.04045 {
		return e / 12.92
	}
	return math.Pow((e+0.055)/1.055, 2.4)
}

// tap is one input pixel's share of an output pixel: index and weight in
// units of 1/n of the output pixel (n = input side).
type tap struct{ at, w int32 }

// taps returns, per output pixel of a side shrinking from n to m pixels,
// the input pixels it covers and their overlaps. With input pixel j
// covering [j·m, (j+1)·m) and output pixel i covering [i·n, (i+1)·n), the
// overlaps of one output pixel sum to n.
func taps(n, m int) [][]tap {
	out := make([][]tap, m)
	for i := range out {
		lo, hi := i*n, (i+1)*n
		for j := lo / m; j*m < hi; j++ {
			ov := min(hi, (j+1)*m) - max(lo, j*m)
			out[i] = append(out[i], tap{int32(j), int32(ov)})
		}
	}
	return out
}

// shrink box-filters an RGBA image of 16-bit values from sw×sh to dw×dh,
// first along rows, then along columns. A side that halves exactly (every
// level of a power-of-two chain) or stays takes a fast pass with the same
// results as the general one (see halveRows).
func shrink(src []uint16, sw, sh, dw, dh int) []uint16 {
	tmp := src // a side that stays is the input itself
	if sw != dw {
		tmp = make([]uint16, dw*sh*4)
	}
	switch {
	case sw == dw: // tmp is src
	case sw == 2*dw:
		for y := range sh {
			halvePairs(tmp[y*dw*4:(y+1)*dw*4], src[y*sw*4:(y+1)*sw*4], 4)
		}
	default:
		tx := taps(sw, dw)
		for y := range sh {
			row := src[y*sw*4 : (y+1)*sw*4]
			out := tmp[y*dw*4 : (y+1)*dw*4]
			for x, ts := range tx {
				for c := range 4 {
					var acc uint64
					for _, t := range ts {
						acc += uint64(t.w) * uint64(row[int(t.at)*4+c])
					}
					out[x*4+c] = uint16((acc + uint64(sw)/2) / uint64(sw))
				}
			}
		}
	}
	if sh == dh {
		return tmp
	}
	stride := dw * 4
	dst := make([]uint16, dw*dh*4)
	if sh == 2*dh {
		for y := range dh {
			halveRows(dst[y*stride:(y+1)*stride], tmp[2*y*stride:(2*y+1)*stride], tmp[(2*y+1)*stride:(2*y+2)*stride])
		}
		return dst
	}
	ty := taps(sh, dh)
	for y, ts := range ty {
		out := dst[y*stride : (y+1)*stride]
		for i := range out {
			var acc uint64
			for _, t := range ts {
				acc += uint64(t.w) * uint64(tmp[int(t.at)*stride+i])
			}
			out[i] = uint16((acc + uint64(sh)/2) / uint64(sh))
		}
	}
	return dst
}

// halveRows averages two rows into out, value by value. It is the general
// pass for a side halving from 2m to m pixels: each output pixel has two
// taps of weight m, so (m·a + m·b + m) / 2m = (a + b + 1) / 2, rounded
// down, with no division. (A side that stays has one tap of weight n:
// (n·v + n/2) / n = v, a copy.)
func halveRows(out, a, b []uint16) {
	b = b[:len(a)]
	out = out[:len(a)]
	for i, v := range a {
		out[i] = uint16((uint32(v) + uint32(b[i]) + 1) >> 1)
	}
}

// halvePairs is halveRows along one row: output pixel x averages input
// pixels 2x and 2x+1, channel by channel (ch values a pixel).
func halvePairs(out, row []uint16, ch int) {
	row = row[:2*len(out)]
	for x := 0; x < len(out); x += ch {
		for c := range ch {
			out[x+c] = uint16((uint32(row[2*x+c]) + uint32(row[2*x+ch+c]) + 1) >> 1)
		}
	}
}
