package ktx2

// Cross-checks with readers that share no code with this package: the
// project's meshcheck.py (written from spec/formats.md alone) and npm
// ktx-parse (testdata/node, installed with
// `npm ci --prefix formats/ktx2/testdata/node`).

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // image.Decode in TestCorpus; the package itself never relies on registration
	_ "image/png"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

// sample is one file written for the external readers, with what it holds.
type sample struct {
	path   string
	kind   Kind
	levels []Level
}

// writeSamples encodes a spread of sizes and both kinds into dir.
func writeSamples(t *testing.T, dir string) []sample {
	t.Helper()
	var out []sample
	for i, c := range []struct {
		base Level
		kind Kind
	}{
		{image4x2(), KindColor},
		{image4x2(), KindData},
		{ramp(5, 3), KindColor},
		{ramp(1, 1), KindData},
		{ramp(17, 1), KindColor},
		{ramp(1, 6), KindData},
		{ramp(64, 48), KindColor},
	} {
		lv, err := MipChain(c.base, c.kind)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Encode(lv, c.kind, testWriter)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("s%d_%dx%d_%v.ktx2", i, c.base.Width, c.base.Height, c.kind))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, sample{p, c.kind, lv})
	}
	return out
}

// runMeshcheck runs meshcheck.py --json over the samples and checks each
// verdict and summary.
func runMeshcheck(t *testing.T, samples []sample) {
	t.Helper()
	tool := testkit.Meshcheck(t) // skips, or fails under CI, without it or python3
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err) // testkit.Meshcheck found it
	}
	args := []string{tool, "--json"}
	for _, s := range samples {
		args = append(args, s.path)
	}
	out, err := exec.Command(py, args...).Output()
	results := map[string]map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r map[string]any
		if jerr := json.Unmarshal(sc.Bytes(), &r); jerr != nil {
			t.Fatalf("meshcheck output %q: %v", sc.Text(), jerr)
		}
		results[r["file"].(string)] = r
	}
	if err != nil {
		t.Errorf("meshcheck exited with %v", err)
	}
	for _, s := range samples {
		r, ok := results[s.path]
		if !ok {
			t.Errorf("%s: no meshcheck verdict", s.path)
			continue
		}
		if r["ok"] != true {
			t.Errorf("%s: meshcheck: %v", s.path, r["error"])
			continue
		}
		want := map[string]any{
			"kind": "ktx2", "levels": float64(len(s.levels)), "srgb": s.kind == KindColor,
			"size": []any{float64(s.levels[0].Width), float64(s.levels[0].Height)},
		}
		for k, v := range want {
			if !reflect.DeepEqual(r[k], v) {
				t.Errorf("%s: meshcheck %s = %v, want %v", s.path, k, r[k], v)
			}
		}
	}
}

func TestMeshcheck(t *testing.T) {
	runMeshcheck(t, writeSamples(t, t.TempDir()))
}

// ktxParseResult is what testdata/node/check.mjs prints per file.
type ktxParseResult struct {
	File                   string `json:"file"`
	Error                  string `json:"error"`
	VkFormat               uint32 `json:"vkFormat"`
	TypeSize               int    `json:"typeSize"`
	PixelWidth             int    `json:"pixelWidth"`
	PixelHeight            int    `json:"pixelHeight"`
	PixelDepth             int    `json:"pixelDepth"`
	LayerCount             int    `json:"layerCount"`
	FaceCount              int    `json:"faceCount"`
	LevelCount             int    `json:"levelCount"`
	SupercompressionScheme int    `json:"supercompressionScheme"`
	Levels                 []struct {
		ByteLength             int    `json:"byteLength"`
		UncompressedByteLength int    `json:"uncompressedByteLength"`
		SHA256                 string `json:"sha256"`
	} `json:"levels"`
	DFD struct {
		VendorID            int   `json:"vendorId"`
		DescriptorType      int   `json:"descriptorType"`
		VersionNumber       int   `json:"versionNumber"`
		ColorModel          int   `json:"colorModel"`
		ColorPrimaries      int   `json:"colorPrimaries"`
		TransferFunction    int   `json:"transferFunction"`
		Flags               int   `json:"flags"`
		TexelBlockDimension []int `json:"texelBlockDimension"`
		BytesPlane          []int `json:"bytesPlane"`
		Samples             []struct {
			BitOffset   int `json:"bitOffset"`
			BitLength   int `json:"bitLength"`
			ChannelType int `json:"channelType"`
			SampleLower int `json:"sampleLower"`
			SampleUpper int `json:"sampleUpper"`
		} `json:"samples"`
	} `json:"dfd"`
	KeyValue map[string]string `json:"keyValue"`
}

// runKTXParse reads the samples with npm ktx-parse through check.mjs and
// compares everything it reports with what was written. Without node or
// the installed module it skips, unless CI is set, where it fails.
func runKTXParse(t *testing.T, samples []sample) {
	t.Helper()
	dir := filepath.Join(testkit.RepoRoot(t), "formats", "ktx2", "testdata", "node")
	unavailable := func(why string) {
		t.Helper()
		testkit.Missing(t, "ktx-parse cross-check cannot run: %s (install with `npm ci --prefix formats/ktx2/testdata/node`)", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ktx-parse", "package.json")); err != nil {
		unavailable("node_modules/ktx-parse is not installed")
	}
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
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r ktxParseResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("check.mjs output %q: %v", sc.Text(), err)
		}
		got[r.File] = r
	}
	for _, s := range samples {
		r, ok := got[s.path]
		switch {
		case !ok:
			t.Errorf("%s: ktx-parse printed nothing", s.path)
			continue
		case r.Error != "":
			t.Errorf("%s: ktx-parse: %s", s.path, r.Error)
			continue
		}
		w, h := s.levels[0].Width, s.levels[0].Height
		header := []int{int(r.VkFormat), r.TypeSize, r.PixelWidth, r.PixelHeight, r.PixelDepth, r.LayerCount, r.FaceCount, r.LevelCount, r.SupercompressionScheme}
		if want := []int{int(s.kind.VkFormat()), 1, w, h, 0, 0, 1, len(s.levels), 0}; !slices.Equal(header, want) {
			t.Errorf("%s: ktx-parse header %v, want %v", s.path, header, want)
		}
		for p, lv := range r.Levels {
			if p >= len(s.levels) {
				break
			}
			sum := sha256.Sum256(s.levels[p].Pixels)
			n := len(s.levels[p].Pixels)
			if lv.ByteLength != n || lv.UncompressedByteLength != n || lv.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("%s: ktx-parse level %d: %d/%d bytes, data %s…; want %d bytes of the written level", s.path, p, lv.ByteLength, lv.UncompressedByteLength, lv.SHA256[:12], n)
			}
		}
		d := r.DFD
		transfer, alpha := 1, 15
		if s.kind == KindColor {
			transfer, alpha = 2, 0x1f
		}
		fields := []int{d.VendorID, d.DescriptorType, d.VersionNumber, d.ColorModel, d.ColorPrimaries, d.TransferFunction, d.Flags}
		if want := []int{0, 0, 2, 1, 1, transfer, 0}; !slices.Equal(fields, want) {
			t.Errorf("%s: ktx-parse DFD vendor/type/version/model/primaries/transfer/flags %v, want %v", s.path, fields, want)
		}
		if !slices.Equal(d.TexelBlockDimension, []int{0, 0, 0, 0}) || !slices.Equal(d.BytesPlane, []int{4, 0, 0, 0, 0, 0, 0, 0}) {
			t.Errorf("%s: ktx-parse texel block %v bytesPlane %v", s.path, d.TexelBlockDimension, d.BytesPlane)
		}
		if len(d.Samples) != 4 {
			t.Errorf("%s: ktx-parse found %d samples, want 4", s.path, len(d.Samples))
		} else {
			for i, sm := range d.Samples {
				want := [5]int{8 * i, 7, i, 0, 255}
				if i == 3 {
					want[2] = alpha
				}
				if g := [5]int{sm.BitOffset, sm.BitLength, sm.ChannelType, sm.SampleLower, sm.SampleUpper}; g != want {
					t.Errorf("%s: ktx-parse sample %d %v, want %v", s.path, i, g, want)
				}
			}
		}
		if want := map[string]string{"KTXorientation": "rd", "KTXwriter": testWriter}; !reflect.DeepEqual(r.KeyValue, want) {
			t.Errorf("%s: ktx-parse key/values %q, want %q", s.path, r.KeyValue, want)
		}
	}
}

func TestKTXParse(t *testing.T) {
	runKTXParse(t, writeSamples(t, t.TempDir()))
}

// dataImage reports whether a corpus image holds non-color data, by the
// glTF sample naming (normal, metallic-roughness, occlusion maps).
func dataImage(name string) bool {
	n := strings.ToLower(name)
	for _, s := range []string{"normal", "roughness", "metallic", "occlusion"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// Every PNG and JPEG in the glTF corpus (only those up to 256×256 with
// -short) converts, decodes with the right
// size and full chain, keeps its base pixels, and passes meshcheck and
// ktx-parse.
func TestCorpus(t *testing.T) {
	root := testkit.Shared(t, filepath.Join("corpus", "gltf"))
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch strings.ToLower(filepath.Ext(p)) {
		case ".png", ".jpg", ".jpeg":
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		testkit.Missing(t, "no PNG or JPEG under %s", root)
	}
	out := t.TempDir()
	var samples []sample
	for i, p := range paths {
		in, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if testing.Short() {
			if cfg, _, err := image.DecodeConfig(bytes.NewReader(in)); err == nil && cfg.Width*cfg.Height > 256*256 {
				continue
			}
		}
		kind := KindColor
		if dataImage(filepath.Base(p)) {
			kind = KindData
		}
		rel, _ := filepath.Rel(root, p)
		b, err := FromImage(in, kind, testWriter)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			continue
		}
		f, err := Decode(b)
		if err != nil {
			t.Errorf("%s: decoding our own output: %v", rel, err)
			continue
		}
		img, _, err := image.Decode(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		if sz := img.Bounds().Size(); f.Width != sz.X || f.Height != sz.Y || len(f.Levels) != LevelCount(sz.X, sz.Y) {
			t.Errorf("%s: %d×%d with %d levels, image is %v", rel, f.Width, f.Height, len(f.Levels), sz)
		}
		if !bytes.Equal(f.Levels[0].Pixels, toRGBA8(img)) {
			t.Errorf("%s: level 0 differs from the decoded image", rel)
		}
		path := filepath.Join(out, fmt.Sprintf("%02d_%s.ktx2", i, strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		samples = append(samples, sample{path, kind, f.Levels})
	}
	t.Logf("converted %d corpus images", len(samples))
	t.Run("meshcheck", func(t *testing.T) { runMeshcheck(t, samples) })
	t.Run("ktx-parse", func(t *testing.T) { runKTXParse(t, samples) })
}
