package fbx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestTextureCandidates(t *testing.T) {
	cases := []struct {
		rel, abs string
		want     []string
	}{
		{"textures/wood.jpg", "D:/projects/x/textures/wood.jpg",
			[]string{"textures/wood.jpg", "wood.jpg", "x/textures/wood.jpg", "projects/x/textures/wood.jpg"}},
		{`..\..\tex\a.png`, `C:\art\tex\a.png`, []string{"a.png", "tex/a.png", "art/tex/a.png"}},
		{"", "/home/artist/maps/b.tga", []string{"b.tga", "maps/b.tga", "artist/maps/b.tga", "home/artist/maps/b.tga"}},
		{"../outside.png", "", []string{"outside.png"}},
		{"", "", nil},
	}
	for _, c := range cases {
		got := textureCandidates(c.rel, c.abs)
		require.Equal(t, c.want, got, "%q %q", c.rel, c.abs)
		for _, g := range got {
			require.NotContains(t, g, "..")
		}
	}
}

// texScene is the unit quad with a material whose diffuse texture names
// rel and abs.
func texScene(rel, abs string) []*Node {
	return doc7(7500, nil, []*Node{
		geometryNode(100, "Quad", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, []int32{0, 1, 2, ^3}),
		modelNode(200, "QuadModel", "Mesh"),
		materialNode(300, "M", [3]float64{1, 1, 1}),
		n("Texture", int64(400), "Texture::wood", "", n("FileName", abs), n("RelativeFilename", rel)),
	}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)}, {"OO", int64(300), int64(200)}, {"OP", int64(400), int64(300), "DiffuseColor"}})
}

// Load finds a texture an absolute path from another machine names by its
// file name beside the FBX, records it in Scene.Files, and never reads a
// file outside the FBX's folder.
func TestTexturesBesideTheFile(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "model")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "textures"), 0o755))
	png := []byte("\x89PNG\r\n\x1a\n-stand-in")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "textures", "wood.png"), png, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "secret.png"), []byte("outside"), 0o644))

	write := func(name string, nodes []*Node) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, writeBinary(7500, nodes, false), 0o644))
		return p
	}
	sc, err := Load(write("abs.fbx", texScene(`..\..\old\textures\wood.png`, `D:\projects\old\textures\wood.png`)), Options{})
	require.NoError(t, err)
	require.Len(t, sc.Images, 1)
	require.Equal(t, png, sc.Images[0].Data)
	require.Equal(t, "textures/wood.png", sc.Images[0].URI)
	require.Equal(t, []string{"textures/wood.png"}, sc.Files)
	require.Equal(t, "image/png", sc.Images[0].MimeType)
	require.True(t, hasWarning(sc.Warnings, "textures found in the FBX's folder by file name"), "%v", sc.Warnings)

	// "../secret.png" exists, but outside: only "secret.png" inside is tried.
	sc, err = Load(write("out.fbx", texScene("../secret.png", "/tmp/../secret.png")), Options{})
	require.NoError(t, err)
	require.Nil(t, sc.Images[0].Data)
	require.Empty(t, sc.Files)
	require.True(t, hasWarning(sc.Warnings, "textures not found in the FBX's folder"), "%v", sc.Warnings)

	// A link inside the folder that leads out is followed by default and
	// refused with StrictPaths.
	require.NoError(t, os.Symlink(filepath.Join(root, "secret.png"), filepath.Join(dir, "link.png")))
	p := write("link.fbx", texScene("link.png", ""))
	sc, err = Load(p, Options{})
	require.NoError(t, err)
	require.Equal(t, []byte("outside"), sc.Images[0].Data)
	sc, err = Load(p, Options{StrictPaths: true})
	require.NoError(t, err)
	require.Nil(t, sc.Images[0].Data)
	require.True(t, hasWarning(sc.Warnings, "textures behind a symbolic link"), "%v", sc.Warnings)
}
