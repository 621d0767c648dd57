package cli

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// symlink makes link point at target, skipping where links are unavailable.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

// A Bazel execroot presents every input as a link into the source tree:
// such a source cooks by default, to the same bytes as the real folder,
// and --strict-paths refuses it (exit 3) naming the link that leaves.
func TestCookExecrootLinks(t *testing.T) {
	samples := samplesDir(t)
	exec := t.TempDir()
	for _, f := range []string{"box.gltf", "box.bin", "checker.png"} {
		symlink(t, filepath.Join(samples, f), filepath.Join(exec, "pkg", f))
	}
	real := t.TempDir()
	code, _, stderr := run(t, "cook", filepath.Join(samples, "box.gltf"), "-o", real, "--no-cache")
	require.Equal(t, ExitOK, code, stderr)

	out := t.TempDir()
	code, _, stderr = run(t, "cook", filepath.Join(exec, "pkg", "box.gltf"), "-o", out, "--no-cache")
	require.Equal(t, ExitOK, code, stderr)
	assert.Equal(t, readTree(t, real), readTree(t, out))

	// The glTF itself is a real file; its buffer and image are links out.
	copyFile(t, filepath.Join(samples, "box.gltf"), filepath.Join(exec, "own", "box.gltf"))
	symlink(t, filepath.Join(samples, "box.bin"), filepath.Join(exec, "own", "box.bin"))
	symlink(t, filepath.Join(samples, "checker.png"), filepath.Join(exec, "own", "checker.png"))
	for _, src := range []string{filepath.Join(exec, "pkg", "box.gltf"), filepath.Join(exec, "own", "box.gltf")} {
		strict := t.TempDir()
		code, _, stderr = run(t, "cook", src, "-o", strict, "--no-cache", "--strict-paths")
		assert.Equal(t, ExitBadInput, code, stderr)
		assert.Contains(t, stderr, "symbolic link leads outside the source folder")
		assert.Empty(t, outputsUnder(t, strict), "a refused source writes nothing")
	}
	_, _, stderr = run(t, "cook", filepath.Join(exec, "own", "box.gltf"), "-o", t.TempDir(), "--strict-paths")
	assert.Contains(t, stderr, `"box.bin"`)
	// Links that stay inside the folder are fine under strict paths too.
	inside := t.TempDir()
	copyFile(t, filepath.Join(samples, "box.gltf"), filepath.Join(inside, "box.gltf"))
	copyFile(t, filepath.Join(samples, "box.bin"), filepath.Join(inside, "data", "box.bin"))
	copyFile(t, filepath.Join(samples, "checker.png"), filepath.Join(inside, "checker.png"))
	symlink(t, filepath.Join("data", "box.bin"), filepath.Join(inside, "box.bin"))
	code, _, stderr = run(t, "cook", filepath.Join(inside, "box.gltf"), "-o", t.TempDir(), "--no-cache", "--strict-paths")
	assert.Equal(t, ExitOK, code, stderr)
}

// grayPNG encodes a w×h 8-bit grayscale ramp.
func grayPNG(t *testing.T, w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetGray(x, y, color.Gray{Y: uint8(x * 255 / (w - 1))})
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// E1: a heightfield naming an image through a file link or a folder link
// that leaves its folder follows the same policy as glTF buffers: read by
// default, refused under --strict-paths; "../" is refused in every mode.
func TestCookHeightfieldLinks(t *testing.T) {
	top := t.TempDir()
	src, outside := filepath.Join(top, "src"), filepath.Join(top, "outside")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.png"), grayPNG(t, 4, 4), 0o644))
	symlink(t, "../outside/secret.png", filepath.Join(src, "link.png"))
	symlink(t, "../outside", filepath.Join(src, "linkdir"))
	for name, image := range map[string]string{"file": "link.png", "dir": "linkdir/secret.png", "up": "../outside/secret.png"} {
		hf := filepath.Join(src, name+".heightfield.json")
		require.NoError(t, os.WriteFile(hf, []byte(`{"size": [4, 4], "elevation": [0, 1], "image": "`+image+`"}`), 0o644))
		code, _, stderr := run(t, "cook", hf, "-o", t.TempDir(), "--no-cache")
		if name == "up" {
			assert.Equal(t, ExitBadInput, code, stderr)
			assert.Contains(t, stderr, "leaves the source folder")
			continue
		}
		assert.Equal(t, ExitOK, code, "%s: %s", name, stderr)
		out := t.TempDir()
		code, _, stderr = run(t, "cook", hf, "-o", out, "--no-cache", "--strict-paths")
		assert.Equal(t, ExitBadInput, code, "%s: %s", name, stderr)
		assert.Contains(t, stderr, "symbolic link leads outside the source folder")
		assert.Empty(t, outputsUnder(t, out))
	}
}

// E3: a folder walk and a project glob that meet a file link to outside
// cook it by default and refuse it under --strict-paths (or the project's
// "strictPaths": true).
func TestCookWalkLinks(t *testing.T) {
	top := t.TempDir()
	src, outside := filepath.Join(top, "src"), filepath.Join(top, "outside")
	copyFile(t, filepath.Join(samplesDir(t), "strips.glb"), filepath.Join(outside, "secret.glb"))
	copyFile(t, filepath.Join(samplesDir(t), "strips.glb"), filepath.Join(src, "own.glb"))
	symlink(t, "../outside/secret.glb", filepath.Join(src, "link.glb"))

	out := t.TempDir()
	code, _, stderr := run(t, "cook", src, "-o", out, "--no-cache")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, readTree(t, out), "link.hmesh")

	out = t.TempDir()
	code, _, stderr = run(t, "cook", src, "-o", out, "--no-cache", "--strict-paths")
	assert.Equal(t, ExitBadInput, code, stderr)
	assert.Contains(t, stderr, "link.glb")
	assert.Contains(t, stderr, "symbolic link leads outside the source folder")
	assert.NotContains(t, readTree(t, out), "link.hmesh")
	assert.Contains(t, readTree(t, out), "own.hmesh", "the other sources still cook")

	proj := filepath.Join(src, "meshcook.json")
	require.NoError(t, os.WriteFile(proj, []byte(`{"sources": ["*.glb"], "options": {"strictPaths": true}}`), 0o644))
	out = t.TempDir()
	code, _, stderr = run(t, "cook", proj, "-o", out, "--no-cache")
	assert.Equal(t, ExitBadInput, code, stderr)
	assert.Contains(t, stderr, "link.glb")
	code, _, stderr = run(t, "cook", proj, "-o", t.TempDir(), "--no-cache", "--strict-paths=false")
	assert.Equal(t, ExitOK, code, "the command line overrides the project: %s", stderr)

	// A cached result is not served to a strict cook once a link leads out.
	cache := t.TempDir()
	require.NoError(t, os.Remove(filepath.Join(src, "link.glb")))
	copyFile(t, filepath.Join(outside, "secret.glb"), filepath.Join(src, "link.glb"))
	code, _, stderr = run(t, "cook", src, "-o", t.TempDir(), "--cache", cache, "--strict-paths")
	require.Equal(t, ExitOK, code, stderr)
	require.NoError(t, os.Remove(filepath.Join(src, "link.glb")))
	symlink(t, "../outside/secret.glb", filepath.Join(src, "link.glb"))
	code, _, stderr = run(t, "cook", src, "-o", t.TempDir(), "--cache", cache, "--strict-paths")
	assert.Equal(t, ExitBadInput, code, stderr)
}
