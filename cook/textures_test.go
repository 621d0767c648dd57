package cook

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/ktx2"
)

// auto picks ETC1S for color slots and UASTC for data slots; overrides
// win per slot; an image in several slots takes the most faithful codec.
func TestTextureCodecFor(t *testing.T) {
	o := DefaultTextureOptions()
	for _, c := range []struct {
		slots []string
		want  ktx2.Codec
	}{
		{[]string{"baseColor"}, ktx2.CodecETC1S},
		{[]string{"emissive"}, ktx2.CodecETC1S},
		{[]string{"normal"}, ktx2.CodecUASTC},
		{[]string{"metallicRoughness"}, ktx2.CodecUASTC},
		{[]string{"occlusion"}, ktx2.CodecUASTC},
		{[]string{"baseColor", "occlusion"}, ktx2.CodecUASTC},
	} {
		assert.Equal(t, c.want, o.codecFor(c.slots), "%v", c.slots)
	}
	o.Slots = map[string]string{"baseColor": TexturesRGBA8, "normal": TexturesETC1S}
	assert.Equal(t, ktx2.CodecRGBA8, o.codecFor([]string{"baseColor"}))
	assert.Equal(t, ktx2.CodecETC1S, o.codecFor([]string{"normal"}))
	assert.Equal(t, ktx2.CodecRGBA8, o.codecFor([]string{"normal", "baseColor"}))
	o = TextureOptions{Mode: TexturesUASTC, Quality: 50}
	assert.Equal(t, ktx2.CodecUASTC, o.codecFor([]string{"baseColor"}))
}

func TestTextureOptionsValidate(t *testing.T) {
	require.NoError(t, DefaultTextureOptions().Validate())
	for _, o := range []TextureOptions{
		{Mode: "bc7", Quality: 80},
		{Mode: TexturesAuto, Quality: 0},
		{Mode: TexturesAuto, Quality: 101},
		{Mode: TexturesAuto, Quality: 80, MaxSize: -1},
		{Mode: TexturesAuto, Quality: 80, Slots: map[string]string{"albedo": TexturesUASTC}},
		{Mode: TexturesAuto, Quality: 80, Slots: map[string]string{"normal": "png"}},
	} {
		assert.Error(t, o.Validate(), "%+v", o)
	}
}

// Every texture option is part of a job's cache key.
func TestTextureOptionsKeyed(t *testing.T) {
	job := Job{Source: "a.glb", Rel: "a.glb", Name: "a", SourceRef: "a"}
	key := func(o Options) string { return baseKey("go", o, job, []byte("src")) }
	base := DefaultOptions()
	seen := map[string]string{key(base): "default"}
	for name, edit := range map[string]func(*Options){
		"mode":    func(o *Options) { o.Textures.Mode = TexturesRGBA8 },
		"quality": func(o *Options) { o.Textures.Quality = 81 },
		"maxSize": func(o *Options) { o.Textures.MaxSize = 512 },
		"slots":   func(o *Options) { o.Textures.Slots = map[string]string{"normal": TexturesETC1S} },
		"slots2":  func(o *Options) { o.Textures.Slots = map[string]string{"normal": TexturesRGBA8} },
	} {
		o := DefaultOptions()
		edit(&o)
		k := key(o)
		prev, dup := seen[k]
		assert.False(t, dup, "%s has the same cache key as %s", name, prev)
		seen[k] = name
	}
}

// A project file's textures options apply over the defaults.
func TestProjectTextureOptions(t *testing.T) {
	pr, err := ParseProject([]byte(`{"sources": ["**/*.glb"], "options": {"textures": {"mode": "uastc", "quality": 40, "maxSize": 256, "slots": {"baseColor": "etc1s"}}}}`))
	require.NoError(t, err)
	o := DefaultOptions()
	require.NoError(t, pr.Apply(&o))
	assert.Equal(t, TextureOptions{Mode: TexturesUASTC, Quality: 40, MaxSize: 256, Slots: map[string]string{"baseColor": TexturesETC1S}}, o.Textures)
	_, err = ParseProject([]byte(`{"sources": ["**/*.glb"], "options": {"textures": {"mode": "bc7"}}}`))
	assert.ErrorContains(t, err, "bc7")
}
