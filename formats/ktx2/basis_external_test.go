package ktx2

// Cross-checks of the Basis Universal output with tools that share no code
// with this package: npm ktx-parse reads the container, and the Basis
// Universal transcoder shipped in npm three (testdata/node/transcode.mjs)
// decodes every level to RGBA8. The quality gate (PSNR against the encoder's
// input) is computed on the transcoder's pixels, never on our decoder's.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
)

// nodeTool returns node and the testdata/node folder, skipping (failing
// under CI) when node or the npm packages are missing.
func nodeTool(t *testing.T, module string) (string, string) {
	t.Helper()
	dir := filepath.Join(testkit.RepoRoot(t), "formats", "ktx2", "testdata", "node")
	unavailable := func(why string) {
		t.Helper()
		testkit.Missing(t, "node cross-check cannot run: %s (install with `npm ci --prefix formats/ktx2/testdata/node`)", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", module, "package.json")); err != nil {
		unavailable("node_modules/" + module + " is not installed")
	}
	return node, dir
}

// basisSample is one Basis file written for the external tools.
type basisSample struct {
	path   string
	name   string // for reports
	codec  Codec
	kind   Kind
	alpha  bool
	levels []Level // the encoder's input
	bytes  []byte  // the file
}

// runBasisKTXParse reads the samples with ktx-parse and compares the
// header, level index, DFD and key/value data with what was written.
func runBasisKTXParse(t *testing.T, samples []basisSample) {
	t.Helper()
	node, dir := nodeTool(t, "ktx-parse")
	args := []string{"check.mjs"}
	for _, s := range samples {
		args = append(args, s.path)
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("node check.mjs: %v\n%s", err, stderr.String())
	}
	got := map[string]ktxParseResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r ktxParseResult
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "check.mjs output %q", sc.Text())
		got[r.File] = r
	}
	require.NoError(t, sc.Err(), "reading check.mjs output")
	for _, s := range samples {
		r, ok := got[s.path]
		if !assert.True(t, ok, "%s: ktx-parse printed nothing", s.name) || !assert.Empty(t, r.Error, s.name) {
			continue
		}
		scheme := schemeZstd
		if s.codec == CodecETC1S {
			scheme = schemeBasisLZ
		}
		header := []int{int(r.VkFormat), r.TypeSize, r.PixelWidth, r.PixelHeight, r.PixelDepth, r.LayerCount, r.FaceCount, r.LevelCount, r.SupercompressionScheme}
		assert.Equal(t, []int{0, 1, s.levels[0].Width, s.levels[0].Height, 0, 0, 1, len(s.levels), scheme}, header, "%s header", s.name)
		stored, err := StoredLevels(s.bytes)
		require.NoError(t, err)
		for p, lv := range r.Levels {
			sum := sha256.Sum256(stored[p])
			w, h := blockGrid(s.levels[p].Width, s.levels[p].Height)
			un := w * h * 16
			if s.codec == CodecETC1S {
				un = 0
			}
			assert.Equal(t, [3]any{len(stored[p]), un, hex.EncodeToString(sum[:])}, [3]any{lv.ByteLength, lv.UncompressedByteLength, lv.SHA256}, "%s level %d", s.name, p)
		}
		d := r.DFD
		model, transfer := dfdModelUASTC, 1
		if s.codec == CodecETC1S {
			model = dfdModelETC1S
		}
		if s.kind == KindColor {
			transfer = 2
		}
		assert.Equal(t, []int{0, 0, 2, model, 1, transfer, 0}, []int{d.VendorID, d.DescriptorType, d.VersionNumber, d.ColorModel, d.ColorPrimaries, d.TransferFunction, d.Flags}, "%s DFD", s.name)
		assert.Equal(t, []int{3, 3, 0, 0}, d.TexelBlockDimension, s.name)
		var samples [][5]int
		for _, sm := range d.Samples {
			samples = append(samples, [5]int{sm.BitOffset, sm.BitLength, sm.ChannelType, sm.SampleLower, sm.SampleUpper})
		}
		switch {
		case s.codec == CodecUASTC:
			ch := chanRGB
			if s.alpha {
				ch = chanRGBA
			}
			assert.Equal(t, []int{16, 0, 0, 0, 0, 0, 0, 0}, d.BytesPlane, s.name)
			assert.Equal(t, [][5]int{{0, 127, ch, 0, 0xFFFFFFFF}}, samples, s.name)
		case s.alpha:
			assert.Equal(t, []int{8, 8, 0, 0, 0, 0, 0, 0}, d.BytesPlane, s.name)
			assert.Equal(t, [][5]int{{0, 63, chanRGB, 0, 0xFFFFFFFF}, {64, 63, chanAAA, 0, 0xFFFFFFFF}}, samples, s.name)
		default:
			assert.Equal(t, []int{8, 0, 0, 0, 0, 0, 0, 0}, d.BytesPlane, s.name)
			assert.Equal(t, [][5]int{{0, 63, chanRGB, 0, 0xFFFFFFFF}}, samples, s.name)
		}
		assert.True(t, reflect.DeepEqual(map[string]string{"KTXorientation": "rd", "KTXwriter": testWriter}, r.KeyValue), "%s key/values %q", s.name, r.KeyValue)
	}
}

// transcoded is what transcode.mjs reports for one file.
type transcoded struct {
	File     string `json:"file"`
	Error    string `json:"error"`
	Codec    string `json:"codec"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	HasAlpha bool   `json:"hasAlpha"`
	Levels   []struct {
		Width  int `json:"width"`
		Height int `json:"height"`
		Bytes  int `json:"bytes"`
	} `json:"levels"`
}

// runTranscoder transcodes the samples to RGBA8 with three's Basis
// Universal transcoder and returns every level's pixels per sample.
func runTranscoder(t *testing.T, samples []basisSample) map[string][]Level {
	t.Helper()
	node, dir := nodeTool(t, "three")
	outDir := t.TempDir()
	args := []string{"transcode.mjs", outDir}
	for _, s := range samples {
		args = append(args, s.path)
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("node transcode.mjs: %v\n%.2000s", err, stderr.String())
	}
	res := map[string][]Level{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)
	defer func() { require.NoError(t, sc.Err(), "reading transcode.mjs output") }()
	for sc.Scan() {
		var r transcoded
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "transcode.mjs output %q", sc.Text())
		if !assert.Empty(t, r.Error, r.File) {
			continue
		}
		var lvs []Level
		for p, l := range r.Levels {
			px, err := os.ReadFile(filepath.Join(outDir, fmt.Sprintf("%s.%d.rgba", filepath.Base(r.File), p)))
			require.NoError(t, err)
			require.Len(t, px, l.Width*l.Height*4, "%s level %d", r.File, p)
			lvs = append(lvs, Level{Width: l.Width, Height: l.Height, Pixels: px})
		}
		res[r.File] = lvs
	}
	return res
}

// psnrRGB is the PSNR over R, G, B (and A when alpha is set) of two RGBA8
// pixel arrays.
func psnrRGB(a, b []byte, alpha bool) float64 {
	var se float64
	n := 0
	for i := range a {
		if i&3 == 3 && !alpha {
			continue
		}
		d := float64(a[i]) - float64(b[i])
		se += d * d
		n++
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255*float64(n)/se)
}

// minPSNR is the quality gate per codec, in dB.
var minPSNR = map[Codec]float64{CodecUASTC: 40, CodecETC1S: 30}

// autoCodec is the codec cook's "auto" picks for a corpus image: UASTC
// for data maps, ETC1S for color.
func autoCodec(kind Kind) Codec {
	if kind == KindData {
		return CodecUASTC
	}
	return CodecETC1S
}

// checkTranscoded compares three's pixels with the samples: same level
// sizes and identical to our own decoder's pixels (both decode the same
// blocks). It returns a report line per sample with the level-0 PSNR
// against the encoder input; when gate is set, a sample in the codec auto
// picks for it must reach minPSNR.
func checkTranscoded(t *testing.T, samples []basisSample, got map[string][]Level, gate bool) []string {
	t.Helper()
	var report []string
	for _, s := range samples {
		lvs, ok := got[s.path]
		if !assert.True(t, ok, "%s: not transcoded", s.name) {
			continue
		}
		require.Len(t, lvs, len(s.levels), s.name)
		f, err := Decode(s.bytes)
		require.NoError(t, err, s.name)
		for p := range lvs {
			require.Equal(t, [2]int{s.levels[p].Width, s.levels[p].Height}, [2]int{lvs[p].Width, lvs[p].Height}, "%s level %d", s.name, p)
			assert.True(t, bytes.Equal(f.Levels[p].Pixels, lvs[p].Pixels), "%s level %d: our decoder and three's transcoder disagree", s.name, p)
		}
		db := psnrRGB(s.levels[0].Pixels, lvs[0].Pixels, s.alpha)
		px := s.levels[0].Width * s.levels[0].Height
		gated := gate && s.codec == autoCodec(s.kind)
		mark := " "
		if gated {
			mark = "*"
			assert.GreaterOrEqual(t, db, minPSNR[s.codec], "%s %v: PSNR through three's transcoder", s.name, s.codec)
		}
		report = append(report, fmt.Sprintf("%s %-6v %-5v %-62s %5d×%-5d %9d B %5.2f bpp  PSNR %6.2f dB", mark, s.codec, s.kind, s.name,
			s.levels[0].Width, s.levels[0].Height, len(s.bytes), float64(len(s.bytes))*8/float64(px), db))
	}
	return report
}

// corpusImages lists the glTF corpus's PNG and JPEG files, relative to
// corpus/gltf, sorted.
func corpusImages(t testing.TB) (string, []string) {
	root := testkit.Shared(t, filepath.Join("corpus", "gltf"))
	var rels []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".png", ".jpg", ".jpeg":
			rel, _ := filepath.Rel(root, p)
			rels = append(rels, rel)
		}
		return nil
	})
	require.NoError(t, err)
	slices.Sort(rels)
	return root, rels
}

// encodeSamples encodes every (image, codec) pair into dir, each image
// first shrunk to maxSide when maxSide > 0.
func encodeSamples(t *testing.T, dir, root string, rels []string, codecs []Codec, maxSide int) []basisSample {
	t.Helper()
	var out []basisSample
	for i, rel := range rels {
		in, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err)
		base, err := decodeImage(in)
		require.NoError(t, err, rel)
		kind := KindColor
		if dataImage(filepath.Base(rel)) {
			kind = KindData
		}
		base = FitSize(base, kind, maxSide)
		lv, err := MipChain(base, kind)
		require.NoError(t, err)
		for _, c := range codecs {
			b, err := EncodeBasis(lv, kind, testWriter, Options{Codec: c})
			require.NoError(t, err, rel)
			p := filepath.Join(dir, fmt.Sprintf("%02d_%d_%v_%s.ktx2", i, maxSide, c, strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))))
			require.NoError(t, os.WriteFile(p, b, 0o644))
			out = append(out, basisSample{path: p, name: rel, codec: c, kind: kind, alpha: hasAlpha(&lv[0]), levels: lv, bytes: b})
		}
	}
	return out
}

// basisCodecs are the codecs the cross-checks cover.
var basisCodecs = []Codec{CodecUASTC, CodecETC1S}

// gatedImages are the corpus textures TestBasisTranscoder checks at full
// size against the PSNR gate (all of them: make bench-textures): a few
// real textures, and the three sharp-edged test cards that were ETC1S's
// lowest (25.97 to 28.53 dB before the codebook refinement passes).
var gatedImages = []string{
	"BoxTextured/glTF/CesiumLogoFlat.png",
	"CesiumMan/glTF/CesiumMan.jpg",
	"FlightHelmet/FlightHelmet_Materials_LeatherPartsMat_BaseColor.png",
	"FlightHelmet/FlightHelmet_Materials_LeatherPartsMat_Normal.png",
	"FlightHelmet/FlightHelmet_Materials_LeatherPartsMat_OcclusionRoughMetal.png",
	"TextureTransformTest/NotSupported.png",
	"TextureTransformTest/UV.png",
	"VertexColorTest/VertexColorChecks.png",
}

// Corpus textures in both Basis codecs: ktx-parse reads each file as
// written and three's transcoder decodes every level to the same pixels as
// this package's decoder. The gated images, at full size, meet the PSNR
// gate in the codec auto picks for them (UASTC >= 40 dB for data maps,
// ETC1S >= 30 dB for color; the other codec's PSNR is reported). Every
// other corpus image is checked shrunk to 64 pixels a side (CI time; its
// PSNR is reported, not gated: a 64-pixel shrink is far busier than any
// real texture). A synthetic noise image with alpha and a partial last
// block covers the alpha slices.
func TestBasisTranscoder(t *testing.T) {
	root, rels := corpusImages(t)
	dir := t.TempDir()
	var small []string
	for _, r := range rels {
		if !slices.Contains(gatedImages, r) {
			small = append(small, r)
		}
	}
	gated := encodeSamples(t, dir, root, gatedImages, basisCodecs, 0)
	reduced := encodeSamples(t, dir, root, small, basisCodecs, 64)
	var noise []basisSample
	for _, c := range basisCodecs {
		base := ramp(37, 21)
		lv, err := MipChain(base, KindColor)
		require.NoError(t, err)
		b, err := EncodeBasis(lv, KindColor, testWriter, Options{Codec: c})
		require.NoError(t, err)
		p := filepath.Join(dir, fmt.Sprintf("ramp_%v.ktx2", c))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		noise = append(noise, basisSample{path: p, name: "ramp37x21 (noise, alpha)", codec: c, kind: KindColor, alpha: true, levels: lv, bytes: b})
	}
	all := slices.Concat(gated, reduced, noise)
	runBasisKTXParse(t, all)
	got := runTranscoder(t, all)
	var report []string
	report = append(report, checkTranscoded(t, gated, got, true)...)
	report = append(report, checkTranscoded(t, reduced, got, false)...)
	report = append(report, checkTranscoded(t, noise, got, false)...)
	t.Log("* = gated (the codec auto picks)\n" + strings.Join(report, "\n"))
}

// TestBenchTextures is make bench-textures: every corpus image at full
// size in the codec auto picks (and, with MESHCOOK_BENCH_BOTH=1, the other
// one too), transcoded by three and gated like TestBasisTranscoder, with
// per-file and total sizes against the source files and the encode time.
func TestBenchTextures(t *testing.T) {
	if os.Getenv("MESHCOOK_BENCH_TEXTURES") == "" {
		t.Skip("make bench-textures (MESHCOOK_BENCH_TEXTURES=1) runs the full-corpus texture report")
	}
	root, rels := corpusImages(t)
	dir := t.TempDir()
	var samples []basisSample
	var srcBytes, outBytes int
	var encodeTime time.Duration
	var enc Encoder // as cook does: one Encoder for a job's textures
	defer enc.Close()
	start := time.Now()
	for i, rel := range rels {
		in, err := os.ReadFile(filepath.Join(root, rel))
		require.NoError(t, err)
		kind := KindColor
		if dataImage(filepath.Base(rel)) {
			kind = KindData
		}
		codecs := []Codec{autoCodec(kind)}
		if os.Getenv("MESHCOOK_BENCH_BOTH") != "" {
			codecs = basisCodecs
		}
		for _, c := range codecs {
			t0 := time.Now()
			b, err := enc.FromImageOptions(in, kind, testWriter, Options{Codec: c})
			encodeTime += time.Since(t0)
			require.NoError(t, err, rel)
			f, err := Decode(b)
			require.NoError(t, err, rel)
			base, err := decodeImage(in)
			require.NoError(t, err)
			lv, err := MipChain(base, kind)
			require.NoError(t, err)
			require.Equal(t, len(lv), len(f.Levels))
			p := filepath.Join(dir, fmt.Sprintf("%02d_%v.ktx2", i, c))
			require.NoError(t, os.WriteFile(p, b, 0o644))
			samples = append(samples, basisSample{path: p, name: rel, codec: c, kind: kind, alpha: hasAlpha(&lv[0]), levels: lv, bytes: b})
			if c == autoCodec(kind) {
				srcBytes += len(in)
				outBytes += len(b)
			}
		}
	}
	elapsed := time.Since(start)
	got := runTranscoder(t, samples)
	report := checkTranscoded(t, samples, got, true)
	fmt.Printf("%s\n\nauto: %d images, %d source bytes -> %d .ktx2 bytes (%.2f×); encode (FromImageOptions: image decode, mips, Basis encode) %v, with our decode %v, at GOMAXPROCS %d\n",
		strings.Join(report, "\n"), len(rels), srcBytes, outBytes, float64(outBytes)/float64(srcBytes), encodeTime.Round(time.Millisecond),
		elapsed.Round(time.Millisecond), runtime.GOMAXPROCS(0))
	fmt.Println(gltfpackBasis(t, filepath.Join(root, "BoxTextured", "glTF", "BoxTextured.gltf")))
}

// gltfpackBasis reports whether the anchor tool, gltfpack from npm (the
// importer/gltf tests' pinned copy), can write Basis textures (-tc) here:
// its npm build is made without BasisU, so it refuses, and there is no
// encode time to set beside ours.
func gltfpackBasis(t *testing.T, gltf string) string {
	cli := filepath.Join(testkit.RepoRoot(t), "importer", "gltf", "testdata", "node", "node_modules", "gltfpack", "cli.js")
	node, err := exec.LookPath("node")
	if err != nil {
		return "gltfpack -tc: not run (node is not on PATH)"
	}
	if _, err := os.Stat(cli); err != nil {
		return "gltfpack -tc: not run (npm ci --prefix importer/gltf/testdata/node installs it)"
	}
	cmd := exec.Command(node, cli, "-i", gltf, "-o", filepath.Join(t.TempDir(), "out.glb"), "-tc")
	out, err := cmd.CombinedOutput()
	return fmt.Sprintf("gltfpack (npm) -tc on %s: %v: %s", filepath.Base(gltf), err, strings.TrimSpace(string(out)))
}
