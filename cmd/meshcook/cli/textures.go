package cli

import (
	"maps"
	"strings"

	"github.com/spf13/pflag"

	"github.com/meshcook/meshcook/cook"
)

// textureFlags are cook's texture options (docs/textures.md).
type textureFlags struct {
	mode    string
	quality int
	maxSize int
	slots   map[string]string
}

func addTextureFlags(f *pflag.FlagSet, t *textureFlags) {
	def := cook.DefaultTextureOptions()
	t.mode, t.quality, t.maxSize = def.Mode, def.Quality, def.MaxSize
	f.StringVar(&t.mode, "textures", t.mode, "texture storage: "+strings.Join(cook.TextureModes(), ", ")+
		" (auto: UASTC for normal and data maps, ETC1S for color)")
	f.IntVar(&t.quality, "texture-quality", t.quality, "texture quality 1..100 (UASTC search effort, ETC1S codebook size)")
	f.IntVar(&t.maxSize, "max-texture-size", t.maxSize, "shrink images whose larger side exceeds N pixels to N before encoding (0 = no limit)")
	f.StringToStringVar(&t.slots, "texture-slot", nil, "per material slot texture storage, e.g. normal=uastc,baseColor=rgba8 (slots: "+
		strings.Join(cook.TextureSlots(), ", ")+")")
}

// apply copies the flags that set says were given into o.
func (t *textureFlags) apply(o *cook.TextureOptions, set func(string) bool) {
	if set("textures") {
		o.Mode = t.mode
	}
	if set("texture-quality") {
		o.Quality = t.quality
	}
	if set("max-texture-size") {
		o.MaxSize = t.maxSize
	}
	if set("texture-slot") && len(t.slots) > 0 {
		if o.Slots == nil {
			o.Slots = map[string]string{}
		}
		maps.Copy(o.Slots, t.slots)
	}
}
