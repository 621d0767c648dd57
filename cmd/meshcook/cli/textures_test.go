package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/ktx2"
)

// The texture flags reach the written files: the sample box's 8×8
// base-color checker is ETC1S by default (auto, color), UASTC or RGBA8 when
// asked, per slot through --texture-slot, and shrunk by --max-texture-size;
// inspect names the codec; every file passes meshcheck.py (RGBA8) or, for
// the Basis codecs it refuses, ktx-parse and three's transcoder (the
// meshcheck helper); bad values are usage errors.
func TestCookTextureModes(t *testing.T) {
	for _, c := range []struct {
		args   []string
		codec  ktx2.Codec
		format string
		side   int
	}{
		{nil, ktx2.CodecETC1S, "ETC1S", 8},
		{[]string{"--textures", "uastc"}, ktx2.CodecUASTC, "UASTC", 8},
		{[]string{"--textures", "rgba8"}, ktx2.CodecRGBA8, "R8G8B8A8_SRGB", 8},
		{[]string{"--texture-slot", "baseColor=uastc"}, ktx2.CodecUASTC, "UASTC", 8},
		{[]string{"--textures", "uastc", "--texture-slot", "baseColor=rgba8"}, ktx2.CodecRGBA8, "R8G8B8A8_SRGB", 8},
		{[]string{"--max-texture-size", "4", "--texture-quality", "100"}, ktx2.CodecETC1S, "ETC1S", 4},
	} {
		out := t.TempDir()
		args := append([]string{"cook", samplesDir(t), "-o", out}, c.args...)
		code, _, stderr := run(t, args...)
		require.Equal(t, ExitOK, code, "%v: %s", c.args, stderr)
		tex := filepath.Join(out, "box", "checker.ktx2")
		b, err := os.ReadFile(tex)
		require.NoError(t, err)
		f, err := ktx2.Decode(b)
		require.NoError(t, err)
		assert.Equal(t, c.codec, f.Codec, "%v", c.args)
		assert.True(t, f.SRGB(), "%v", c.args)
		assert.Equal(t, [2]int{c.side, c.side}, [2]int{f.Width, f.Height}, "%v", c.args)
		var ks ktx2Summary
		inspectAsJSON(t, tex, &ks)
		assert.Equal(t, c.format, ks.Format, "%v", c.args)
		assert.Equal(t, "srgb", ks.ColorSpace, "%v", c.args)
		meshcheck(t, []string{tex})
	}
	for _, bad := range [][]string{
		{"--textures", "bc7"},
		{"--texture-quality", "0"},
		{"--max-texture-size", "-2"},
		{"--texture-slot", "albedo=uastc"},
	} {
		code, _, _ := run(t, append([]string{"cook", samplesDir(t), "-o", t.TempDir()}, bad...)...)
		assert.Equal(t, ExitUsage, code, "%v", bad)
	}
}
