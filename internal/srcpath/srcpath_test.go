package srcpath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Local accepts relative paths that stay inside and refuses every way out.
func TestLocal(t *testing.T) {
	for ref, want := range map[string]string{
		"box.bin":           "box.bin",
		"tex/a.png":         "tex/a.png",
		`tex\a.png`:         "tex/a.png",
		"./tex//a.png":      "tex/a.png",
		"tex/../a.png":      "a.png",
		"a b/c:d.png":       "a b/c:d.png", // a ':' after the first element is a file name
		"..a/b":             "..a/b",
		"...gltf":           "...gltf",
		"sub/./../x/y/../z": "x/z",
	} {
		got, err := Local(ref)
		require.NoError(t, err, ref)
		assert.Equal(t, want, got, ref)
	}
	for _, ref := range []string{
		"", ".", "..", "../x.bin", "a/../../x.bin", `..\x.bin`, `a\..\..\x`,
		"/etc/passwd", `\\server\share\x.png`, "//server/share/x.png",
		"C:/x.png", `C:\x.png`, "c:x.png", "http://example.com/x.png", "file:x.png",
		"x\x00.png",
	} {
		_, err := Local(ref)
		require.Error(t, err, "%q", ref)
		assert.ErrorIs(t, err, ErrOutside, "%q", ref)
	}
}

// tree builds src/ with a file, a file link and a folder link inside,
// links pointing outside (file and folder), and outside/secret.png.
func tree(t *testing.T) (src string) {
	t.Helper()
	top := t.TempDir()
	src = filepath.Join(top, "src")
	out := filepath.Join(top, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(src, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "sub", "in.png"), []byte("inside"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(out, "secret.png"), []byte("secret"), 0o644))
	for link, target := range map[string]string{
		"link.png":     "../outside/secret.png",
		"abs.png":      filepath.Join(out, "secret.png"),
		"linkdir":      "../outside",
		"inlink.png":   "sub/in.png",
		"inlinkdir":    "sub",
		"dangling.png": "nothere.png",
	} {
		if err := os.Symlink(target, filepath.Join(src, link)); err != nil {
			t.Skipf("symlinks unavailable: %v", err)
		}
	}
	return src
}

// By default links are followed wherever they lead (a Bazel execroot);
// strict mode refuses the ones that leave the folder and keeps the rest.
func TestFolderLinks(t *testing.T) {
	src := tree(t)
	for _, strict := range []bool{false, true} {
		f, err := Open(src, strict)
		require.NoError(t, err)
		defer f.Close()
		for _, ref := range []string{"sub/in.png", "inlink.png", "inlinkdir/in.png"} {
			b, err := f.ReadFile(ref, 0)
			require.NoError(t, err, "strict %v %s", strict, ref)
			assert.Equal(t, "inside", string(b))
		}
		for _, ref := range []string{"link.png", "abs.png", "linkdir/secret.png"} {
			b, err := f.ReadFile(ref, 0)
			if !strict {
				require.NoError(t, err, ref)
				assert.Equal(t, "secret", string(b))
				_, err = f.Path(ref)
				assert.NoError(t, err)
				continue
			}
			require.ErrorIs(t, err, ErrLinkOutside, ref)
			assert.Contains(t, err.Error(), ref)
			_, err = f.Stat(ref)
			assert.ErrorIs(t, err, ErrLinkOutside, ref)
			_, err = fs.ReadFile(f.FS(), ref)
			assert.Error(t, err, ref)
			assert.ErrorIs(t, CheckInside(src, ref, true), ErrLinkOutside, ref)
			assert.NoError(t, CheckInside(src, ref, false), ref)
		}
		_, err = f.ReadFile("dangling.png", 0)
		assert.ErrorIs(t, err, fs.ErrNotExist)
		_, err = f.ReadFile("../outside/secret.png", 0)
		assert.ErrorIs(t, err, ErrOutside)
		assert.ErrorIs(t, CheckInside(src, "../outside/secret.png", false), ErrOutside)
		assert.NoError(t, CheckInside(src, "inlink.png", true))
	}
}

// ReadFile refuses a file past its limit before reading it.
func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.bin"), make([]byte, 100), 0o644))
	f, err := Open(dir, false)
	require.NoError(t, err)
	_, err = f.ReadFile("x.bin", 99)
	require.True(t, errors.Is(err, ErrTooLarge), "%v", err)
	b, err := f.ReadFile("x.bin", 100)
	require.NoError(t, err)
	assert.Len(t, b, 100)
	_, err = f.ReadFile(".", 0)
	assert.ErrorIs(t, err, ErrOutside)
	_, err = Open(filepath.Join(dir, "x.bin"), false)
	assert.Error(t, err)
}
