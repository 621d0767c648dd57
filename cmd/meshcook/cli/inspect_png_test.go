package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
)

// goldenPNGDir holds the golden pictures (testdata/preview/README.md).
func goldenPNGDir(t testing.TB) string {
	return filepath.Join(testkit.RepoRoot(t), "cmd", "meshcook", "cli", "testdata", "preview")
}

// inspectPNG runs `inspect FILE --png OUT args...`, requires exit 0 and
// returns the PNG bytes.
func inspectPNG(t *testing.T, file string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "p.png")
	code, stdout, stderr := run(t, append([]string{"inspect", file, "--png", out}, args...)...)
	require.Equal(t, ExitOK, code, "inspect %s --png %v: %s", file, args, stderr)
	require.Regexp(t, `^.*p\.png: \d+×\d+ pixels, \d+ bytes\n$`, stdout)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	_, err = png.Decode(bytes.NewReader(b))
	require.NoError(t, err, "not a PNG")
	return b
}

// checkGolden compares b with testdata/preview/name (rewritten by -update).
func checkGolden(t *testing.T, name string, b []byte) {
	t.Helper()
	p := filepath.Join(goldenPNGDir(t), name)
	if *updateDocs { // the package's -update flag
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run with -update to create it")
	assert.True(t, bytes.Equal(want, b), "%s differs from its golden (a deliberate change? rerun with -update and look at the picture)", name)
}

// The cooked samples draw to their golden pictures, byte for byte, at
// GOMAXPROCS 1, 2 and 8; so do a world's contact sheet and one resource,
// a mesh pack's sheet and one entry, and an MSH7 payload.
func TestInspectPNGGolden(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", out, "--target", "hmesh,msh7")
	require.Equal(t, ExitOK, code, stderr)
	world := cookWorld(t)
	pack := filepath.Join(t.TempDir(), "buildings.smpk")
	code, _, stderr = run(t, "bake", filepath.Join(testkit.RepoRoot(t), "testdata", "catalog", "buildings.json"), "-o", pack)
	require.Equal(t, ExitOK, code, stderr)

	cases := []struct {
		golden, file string
		args         []string
	}{
		{"box.png", "box.hmesh", nil},
		{"chair.png", "models/chair.hmesh", nil},
		{"strips.png", "strips.hmesh", nil},
		{"terrain.png", "terrain.hmesh", nil},
		{"box.0.msh7.png", "box.0.msh7", nil},
		{"world.png", "world:data/0", nil},
		{"world-hills.png", "world:data/0", []string{"--resource", "terrain/hills.heightfield/0"}},
		{"buildings.png", "pack", nil},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			file := filepath.Join(out, c.file)
			switch {
			case c.file == "pack":
				file = pack
			case len(c.file) > 6 && c.file[:6] == "world:":
				file = filepath.Join(world, c.file[6:])
			}
			args := append([]string{"--size", "128"}, c.args...)
			var first []byte
			for _, procs := range []int{1, 2, 8} {
				runtime.GOMAXPROCS(procs)
				b := inspectPNG(t, file, args...)
				if first == nil {
					first = b
					continue
				}
				require.True(t, bytes.Equal(first, b), "GOMAXPROCS %d drew different bytes", procs)
			}
			checkGolden(t, c.golden, first)
		})
	}
}

// Every --view draws on a cooked sample, each a different picture.
func TestInspectPNGViews(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	seen := map[string]string{}
	for _, v := range []string{"shaded", "meshlets", "lods", "normals", "uv", "cones"} {
		b := inspectPNG(t, filepath.Join(out, "terrain.hmesh"), "--view", v, "--size", "96", "--yaw", "10", "--pitch", "-30")
		img, err := png.Decode(bytes.NewReader(b))
		require.NoError(t, err)
		want := 96
		if v == "lods" {
			want = 3 * 96 // LOD0, LOD1, LOD2
		}
		assert.Equal(t, want, img.Bounds().Dx(), "view %s", v)
		assert.NotContains(t, seen, string(b), "view %s draws the same picture as %s", v, seen[string(b)])
		seen[string(b)] = v
	}
}

// Bad flags are usage errors (exit 2) naming the problem; a file that
// cannot be drawn is bad input (exit 3).
func TestInspectPNGErrors(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	box := filepath.Join(out, "box.hmesh")
	png := filepath.Join(t.TempDir(), "x.png")
	// An empty .hmesh as older cooks wrote it (hmesh.Encode now refuses
	// one): it reads, but has nothing to draw.
	empty := filepath.Join("testdata", "empty", "legacy-empty.hmesh")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{box, "--png", png, "--view", "wire"}, ExitUsage, `--view: unknown view "wire" (known: shaded, meshlets, lods, normals, uv, cones, cut)`},
		{[]string{box, "--png", png, "--size", "10"}, ExitUsage, "size 10: want 64 to 4096 pixels"},
		{[]string{box, "--png", png, "--pitch", "95"}, ExitUsage, "pitch 95: want -90 to 90 degrees"},
		{[]string{box, "--png", png, "--yaw", "x"}, ExitUsage, `invalid argument "x" for "--yaw"`},
		{[]string{box, "--png", png, "--time", "1"}, ExitUsage, "--time needs --clip NAME"},
		{[]string{box, "--png", png, "--entry", "a"}, ExitUsage, "--entry is for mesh packs, not a hmesh file"},
		{[]string{box, "--png", png, "--resource", "a"}, ExitUsage, "--resource is for .cnb worlds, not a hmesh file"},
		{[]string{box, "--png", png, "--json"}, ExitUsage, "--png writes a picture; drop --json/--dump"},
		{[]string{box, "--view", "uv"}, ExitUsage, "--view needs --png OUT.png"},
		{[]string{filepath.Join(out, "box.hmat"), "--png", png}, ExitUsage, "--png draws .hmesh, .msh7, .cnb worlds, mesh payloads and mesh packs, not a hmat file"},
		{[]string{box, "--png", png, "--clip", "Run"}, ExitBadInput, "box.hanim: no such file or directory"},
		{[]string{empty, "--png", png}, ExitBadInput, "preview: mesh has no triangles to draw"},
		{[]string{box, "--png", filepath.Join(box, "x.png")}, ExitOutput, "x.png"},
	} {
		code, _, stderr := run(t, append([]string{"inspect"}, c.args...)...)
		assert.Equal(t, c.code, code, "%v: %s", c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.args)
	}
	_, err := os.Stat(png)
	assert.True(t, os.IsNotExist(err), "a failed inspect --png wrote %s", png)

	// Names that are not there list the ones that are.
	world := cookWorld(t)
	code, _, stderr = run(t, "inspect", filepath.Join(world, "data", "0"), "--png", png, "--resource", "nope")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `--resource "nope": no such mesh resource`)
	assert.Contains(t, stderr, "terrain/hills.heightfield/0")
}

// A skinned .hmesh draws in bind pose; --clip/--time pose it with the
// .hanim beside it: different times, different pictures; the same time,
// the same bytes.
func TestInspectPNGClip(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "cook", filepath.Join(testkit.Shared(t, "corpus/gltf"), "Fox", "glTF-Binary", "Fox.glb"), "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	fox := filepath.Join(out, "Fox.hmesh")
	bind := inspectPNG(t, fox, "--view", "shaded", "--size", "96")
	run0 := inspectPNG(t, fox, "--view", "shaded", "--size", "96", "--clip", "Run", "--time", "0.3")
	run1 := inspectPNG(t, fox, "--view", "shaded", "--size", "96", "--clip", "Run", "--time", "0.6")
	again := inspectPNG(t, fox, "--view", "shaded", "--size", "96", "--clip", "#2", "--time", "0.3")
	assert.NotEqual(t, bind, run0)
	assert.NotEqual(t, run0, run1)
	// "#2" is Run by position; the title names the flag as given, so
	// compare the pixels below it.
	a, _ := png.Decode(bytes.NewReader(run0))
	b, _ := png.Decode(bytes.NewReader(again))
	for y := 20; y < 96; y++ {
		for x := 0; x < 96; x++ {
			require.Equal(t, a.At(x, y), b.At(x, y), "pixel %d,%d", x, y)
		}
	}
	code, _, stderr = run(t, "inspect", fox, "--png", filepath.Join(out, "x.png"), "--clip", "Fly")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, `--clip "Fly": `)
	assert.Contains(t, stderr, `(clips: "Survey", "Walk", "Run"; #0 to #2 pick by position)`)
}

// cook --png-dir draws inspect --png's default picture of each cooked
// .hmesh and .msh7, also on a warm cook served from the cache (the option
// is in no cache key); the cooked bytes are the same as without it, and
// unchanged pictures are not rewritten.
func TestCookPNGDir(t *testing.T) {
	plain, out := t.TempDir(), t.TempDir()
	pics := filepath.Join(t.TempDir(), "pics")
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", plain, "--target", "hmesh,msh7", "--no-cache")
	require.Equal(t, ExitOK, code, stderr)
	code, _, stderr = run(t, "cook", samplesDir(t), "-o", out, "--target", "hmesh,msh7")
	require.Equal(t, ExitOK, code, stderr)
	code, _, stderr = run(t, "cook", samplesDir(t), "-o", out, "--target", "hmesh,msh7", "--png-dir", pics)
	require.Equal(t, ExitOK, code, stderr)
	// The option is not part of any cache key: the warm cook served every
	// job from the cache.
	for _, name := range []string{"box", "models/chair", "strips", "terrain"} {
		assert.Contains(t, stderr, "cached "+name+" (", "--png-dir made %s cook again", name)
	}
	meshes := 0
	for name := range readTree(t, out) {
		if strings.HasSuffix(name, ".hmesh") || strings.HasSuffix(name, ".msh7") {
			meshes++
		}
	}
	assert.Contains(t, stderr, fmt.Sprintf("previews: %d pictures (%d changed) in %s", meshes, meshes, pics))
	assert.Equal(t, readTree(t, plain), readTree(t, out), "--png-dir changed a cooked output")

	got := readTree(t, pics)
	assert.Len(t, got, meshes)
	for _, name := range []string{"box.hmesh", "models/chair.hmesh", "strips.hmesh", "terrain.hmesh", "box.0.msh7", "terrain.0.msh7"} {
		require.Contains(t, got, name+".png")
		assert.Equal(t, inspectPNG(t, filepath.Join(out, filepath.FromSlash(name))), got[name+".png"], name)
	}
	for name := range got {
		assert.Regexp(t, `\.(hmesh|msh7)\.png$`, name)
	}
	st, err := os.Stat(filepath.Join(pics, "box.hmesh.png"))
	require.NoError(t, err)
	code, _, stderr = run(t, "cook", samplesDir(t), "-o", out, "--target", "hmesh,msh7", "--png-dir", pics)
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, fmt.Sprintf("previews: %d pictures (0 changed) in %s", meshes, pics))
	st2, err := os.Stat(filepath.Join(pics, "box.hmesh.png"))
	require.NoError(t, err)
	assert.Equal(t, st.ModTime(), st2.ModTime(), "an unchanged picture was rewritten")

	code, _, stderr = run(t, "cook", samplesDir(t), "-o", out, "--png-dir", pics, "--check")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, stderr, "--png-dir draws written outputs; --check writes none")
}

// Pixel checks on a cooked sample: seen from high above, every meshlet of
// the terrain is visible, so its meshlet panel has one colour per meshlet
// (as inspect --json counts them); each LOD panel covers LOD0's area
// within 3%.
func TestInspectPNGTerrainPixels(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", out)
	require.Equal(t, ExitOK, code, stderr)
	terrain := filepath.Join(out, "terrain.hmesh")
	code, stdout, _ := run(t, "inspect", terrain, "--json")
	require.Equal(t, ExitOK, code)
	var s hmeshSummary
	require.NoError(t, json.Unmarshal([]byte(stdout), &s))
	require.Len(t, s.Lods, 2)

	const size = 256
	b := inspectPNG(t, terrain, "--size", strconv.Itoa(size), "--pitch", "70")
	img, err := png.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	require.Equal(t, 4*size, img.Bounds().Dx()) // LOD0, meshlets, LOD1, LOD2
	bg := img.At(size-1, size-1)
	panel := func(i int) (covered int, colours map[color.Color]bool) {
		colours = map[color.Color]bool{}
		for y := 20; y < size; y++ { // below the label
			for x := i * size; x < (i+1)*size; x++ {
				if c := img.At(x, y); c != bg {
					covered++
					colours[c] = true
				}
			}
		}
		return covered, colours
	}
	_, colours := panel(1)
	assert.InDelta(t, int(s.Meshlets), len(colours), 1, "%d meshlets, %d colours in the meshlet panel", s.Meshlets, len(colours))
	a0, _ := panel(0)
	require.Greater(t, a0, size*size/4)
	for l := 1; l <= 2; l++ {
		a, _ := panel(1 + l)
		assert.InEpsilon(t, a0, a, 0.03, "LOD%d covers %d pixels, LOD0 %d", l, a, a0)
	}
}

// The cones view uses each format's own cone test: the terrain's meshlets
// all face up, so from below the .hmesh (MLBN cones) and the MSH7 payload
// (packed cones) draw every meshlet dimmed, and from above none.
func TestInspectPNGConesBothFormats(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", out, "--target", "hmesh,msh7")
	require.Equal(t, ExitOK, code, stderr)
	const size = 128
	for _, f := range []string{"terrain.hmesh", "terrain.0.msh7"} {
		for _, c := range []struct {
			pitch string
			below bool
		}{{"-60", true}, {"60", false}} {
			b := inspectPNG(t, filepath.Join(out, f), "--view", "cones", "--size", strconv.Itoa(size), "--pitch", c.pitch)
			img, err := png.Decode(bytes.NewReader(b))
			require.NoError(t, err)
			bg := img.At(size-1, size-1)
			dim, covered := 0, 0
			for y := 20; y < size; y++ {
				for x := 0; x < size; x++ {
					px := img.At(x, y)
					if px == bg {
						continue
					}
					covered++
					r, g, b, _ := px.RGBA()
					if max(r, g, b)>>8 < 120 {
						dim++
					}
				}
			}
			require.Greater(t, covered, 1000, "%s pitch %s", f, c.pitch)
			if c.below {
				assert.Equal(t, covered, dim, "%s from below: every meshlet is culled", f)
			} else {
				assert.Zero(t, dim, "%s from above: no meshlet is culled", f)
			}
		}
	}
}
