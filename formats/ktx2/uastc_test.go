package ktx2

import (
	"bytes"
	"image"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
)

// psnr returns the peak signal-to-noise ratio in dB of b against a over
// the channels of RGBA8 pixels (+Inf when equal).
func psnr(a, b []byte) float64 {
	var se float64
	for i := range a {
		d := float64(a[i]) - float64(b[i])
		se += d * d
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255*float64(len(a))/se)
}

// noiseBlock is a deterministic pseudo-random block of 16 pixels; mask
// picks which channels vary (others hold 255 or the R value for grey).
func noiseBlock(seed uint32, opaque, grey bool) [16][4]uint8 {
	var px [16][4]uint8
	x := seed*2654435761 + 1
	next := func() uint8 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		return uint8(x >> 24)
	}
	base := [4]uint8{next(), next(), next(), next()}
	for i := range px {
		for c := range 4 {
			px[i][c] = uint8(min(255, int(base[c]/2)+int(next()/2)))
		}
		if grey {
			px[i][1], px[i][2] = px[i][0], px[i][0]
		}
		if opaque {
			px[i][3] = 255
		}
	}
	return px
}

// Every block the encoder writes decodes (with the package's decoder) to
// exactly the pixels the encoder scored, the anchor bits are clear, and the
// mode fits the block: RGB modes for opaque blocks, LA for grey ones.
func TestUASTCBlocksDecodeAsScored(t *testing.T) {
	for seed := range uint32(300) {
		for _, c := range []struct{ opaque, grey bool }{{true, false}, {false, false}, {true, true}, {false, true}} {
			px := noiseBlock(seed, c.opaque, c.grey)
			for _, eff := range []uastcEffort{uastcFast, uastcGood, uastcBest} {
				blk, dec := encodeUASTC(&px, eff)
				var got [16][4]uint8
				require.NoError(t, unpackUASTC(&blk, &got))
				require.Equal(t, dec, got, "seed %d %+v effort %d", seed, c, eff)
				mode := uastcModeOf(blk[0] & 0x7f)
				md := uastcModes[mode]
				switch {
				case c.grey:
					assert.Equal(t, 2, md.comps, "grey block mode %d", mode)
				case c.opaque:
					assert.Equal(t, 3, md.comps, "opaque block mode %d", mode)
				default:
					assert.Equal(t, 4, md.comps, "alpha block mode %d", mode)
				}
				var flat, got8 []byte
				for i := range px {
					flat = append(flat, px[i][:]...)
					got8 = append(got8, got[i][:]...)
				}
				// Noise has no line to fit, but the fit must still beat
				// the block's mean color.
				var mean [4]int
				for i := range px {
					for ch := range 4 {
						mean[ch] += int(px[i][ch])
					}
				}
				var flatMean []byte
				for range px {
					for ch := range 4 {
						flatMean = append(flatMean, byte((mean[ch]+8)/16))
					}
				}
				assert.Greater(t, psnr(flat, got8), psnr(flat, flatMean), "seed %d %+v mode %d", seed, c, mode)
			}
		}
	}
}

// A solid block is mode 8 and decodes exactly.
func TestUASTCSolid(t *testing.T) {
	var px [16][4]uint8
	for i := range px {
		px[i] = [4]uint8{12, 200, 99, 7}
	}
	blk, _ := encodeUASTC(&px, uastcFast)
	assert.Equal(t, uastcSolid, uastcModeOf(blk[0]&0x7f))
	var got [16][4]uint8
	require.NoError(t, unpackUASTC(&blk, &got))
	assert.Equal(t, px, got)
}

// The BISE tables: every code unquantizes into 0..255, the ends of each
// range are 0 and 255, and best[] inverts unq[] for the values it holds.
func TestBISETables(t *testing.T) {
	for r, br := range bise {
		if br == nil {
			continue
		}
		lo, hi := 255, 0
		for v := range br.levels {
			lo, hi = min(lo, int(br.unq[v])), max(hi, int(br.unq[v]))
			assert.Equal(t, br.unq[v], br.unq[br.best[br.unq[v]]], "range %d code %d", r, v)
		}
		assert.Equal(t, 0, lo, "range %d", r)
		assert.Equal(t, 255, hi, "range %d", r)
	}
	assert.Equal(t, []int32{0, 4, 8, 12, 17, 21, 25, 29, 35, 39, 43, 47, 52, 56, 60, 64}, uastcWeights[4])
	assert.Equal(t, []int32{0, 21, 43, 64}, uastcWeights[2])
}

// corpusImage loads a corpus image as RGBA8, skipping when the corpus is
// absent outside CI.
func corpusImage(t testing.TB, rel string) (Level, []byte) {
	t.Helper()
	p := filepath.Join(testkit.Shared(t, filepath.Join("corpus", "gltf")), rel)
	in, err := os.ReadFile(p)
	require.NoError(t, err)
	img, _, err := image.Decode(bytes.NewReader(in))
	require.NoError(t, err)
	sz := img.Bounds().Size()
	return Level{Width: sz.X, Height: sz.Y, Pixels: toRGBA8(img)}, in
}

// UASTC round trip through the package's own decoder on real textures:
// PSNR of level 0 against the source.
func TestUASTCCorpusPSNR(t *testing.T) {
	for _, c := range []struct {
		rel  string
		kind Kind
		min  float64
	}{
		{"BoxTextured/glTF/CesiumLogoFlat.png", KindColor, 40},
		{"CesiumMan/glTF/CesiumMan.jpg", KindColor, 40},
		{"TwoSidedPlane/TwoSidedPlane_Normal.png", KindData, 40},
	} {
		base, _ := corpusImage(t, c.rel)
		lv, err := MipChain(base, c.kind)
		require.NoError(t, err)
		b, err := EncodeBasis(lv, c.kind, testWriter, Options{Codec: CodecUASTC})
		require.NoError(t, err)
		f, err := Decode(b)
		require.NoError(t, err, c.rel)
		require.Equal(t, CodecUASTC, f.Codec)
		require.Len(t, f.Levels, len(lv))
		got := psnr(base.Pixels, f.Levels[0].Pixels)
		t.Logf("%s: %d×%d, %d bytes (%.2f bpp over the chain), PSNR %.2f dB", c.rel, base.Width, base.Height, len(b),
			float64(len(b))*8/float64(base.Width*base.Height), got)
		assert.GreaterOrEqual(t, got, c.min, c.rel)
	}
}

// Both Basis codecs write identical bytes whatever GOMAXPROCS is: blocks
// and codebook passes run in parallel pieces that write only their own
// slots and join in a fixed order.
func TestBasisDeterministicAcrossGOMAXPROCS(t *testing.T) {
	base, _ := corpusImage(t, "CesiumMan/glTF/CesiumMan.jpg")
	base = FitSize(base, KindColor, 256)
	lv, err := MipChain(base, KindColor)
	require.NoError(t, err)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []Codec{CodecUASTC, CodecETC1S} {
		var first []byte
		for _, procs := range []int{1, 2, 8} {
			runtime.GOMAXPROCS(procs)
			b, err := EncodeBasis(lv, KindColor, testWriter, Options{Codec: c})
			require.NoError(t, err)
			if first == nil {
				first = b
				continue
			}
			assert.True(t, bytes.Equal(first, b), "%v: GOMAXPROCS %d wrote different bytes than GOMAXPROCS 1", c, procs)
		}
	}
}

// One Encoder used for several textures at once, and again after Close,
// writes the same bytes as EncodeBasis with an Encoder of its own: it
// carries nothing from one texture to the next.
func TestEncoderSharedMatchesOneShot(t *testing.T) {
	var inputs [][]Level
	for _, base := range []Level{ramp(37, 21), sharpPattern(64, 48), solid(9, 9, [4]byte{10, 200, 30, 255})} {
		lv, err := MipChain(base, KindColor)
		require.NoError(t, err)
		inputs = append(inputs, lv)
	}
	var want [][]byte
	for _, lv := range inputs {
		for _, c := range []Codec{CodecUASTC, CodecETC1S} {
			b, err := EncodeBasis(lv, KindColor, testWriter, Options{Codec: c})
			require.NoError(t, err)
			want = append(want, b)
		}
	}
	var e Encoder
	for round := range 2 {
		got := make([][]byte, len(want))
		errs := make([]error, len(want))
		var wg sync.WaitGroup
		for i := range want {
			wg.Go(func() {
				got[i], errs[i] = e.EncodeBasis(inputs[i/2], KindColor, testWriter, Options{Codec: []Codec{CodecUASTC, CodecETC1S}[i%2]})
			})
		}
		wg.Wait()
		for i := range want {
			require.NoError(t, errs[i])
			assert.True(t, bytes.Equal(want[i], got[i]), "round %d texture %d", round, i)
		}
		e.Close()
	}
}
