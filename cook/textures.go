package cook

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/internal/par"
	"github.com/meshcook/meshcook/internal/safename"
	"github.com/meshcook/meshcook/mesh"
)

// This file writes one .ktx2 per image the cooked materials reference
// (docs/textures.md).
//
// File ↔ ref mapping: image i of a job with output stem <name> is written to
// `<name>/<TextureFileLeaf(leaf_i)>.ktx2` under the output folder, where
// leaf_i is the image's ref leaf (hmat.Leaves over the source's image names,
// prefix "image"); the .hmat texture slots hold hmat.Hash(`<sourceRef>/
// <leaf_i>`), and sourceRef is <name> lowercased. So `models/chair.glb`
// with an image "Wood_BaseColor" writes `models/chair/wood_basecolor.ktx2`
// and refs it as Hash("models/chair/wood_basecolor").

// KTXWriter is the KTXwriter value of every texture cook writes. It holds
// no version, so textures only change when their pixels do.
const KTXWriter = "meshcook"

// imageLeaves returns the ref leaf of every image of the scene (see
// hmat.Leaves): the lowercased name when it is unique, else image_<i>.
func imageLeaves(scene *mesh.Scene) []string {
	names := make([]string, len(scene.Images))
	for i, im := range scene.Images {
		names[i] = im.Name
	}
	return hmat.Leaves(names, hmat.ImagePrefix)
}

// TextureFileLeaf turns an image ref leaf into the file name (without
// .ktx2) the texture is written under: the leaf itself, except that bytes
// unsafe in a file name on common file systems — control characters, DEL,
// `/ \ : * ? " < > |` and `%` itself — are written as %XX (uppercase hex),
// as are the dots of a leaf made only of dots ("." and ".."). Percent-
// decoding the file name gives the leaf back, so the mapping is one to one
// and a texture never lands outside its job's folder. C1 controls, bidi
// controls and bytes that are not UTF-8 are escaped the same way
// (internal/safename).
func TextureFileLeaf(leaf string) string {
	return safename.Escape(leaf, `/\:*?"<>|%`)
}

// TexturePath is the output name (relative to the output folder, '/'
// separated) of the texture with ref leaf leaf for the job with output
// stem name.
func TexturePath(name, leaf string) string {
	return path.Join(name, TextureFileLeaf(leaf)+".ktx2")
}

// Texture modes (TextureOptions.Mode and the per-slot overrides).
const (
	TexturesRGBA8 = "rgba8" // uncompressed RGBA8, as before Basis support
	TexturesUASTC = "uastc" // Basis Universal UASTC + Zstandard
	TexturesETC1S = "etc1s" // Basis Universal ETC1S + BasisLZ
	TexturesAuto  = "auto"  // UASTC for normal and data maps, ETC1S for color
)

// TextureModes lists the modes in the order docs and flags show them.
func TextureModes() []string {
	return []string{TexturesRGBA8, TexturesUASTC, TexturesETC1S, TexturesAuto}
}

// TextureSlots lists the material slots a per-slot override can name.
func TextureSlots() []string {
	return []string{"baseColor", "emissive", "normal", "metallicRoughness", "occlusion"}
}

// TextureOptions say how images become .ktx2 files (docs/textures.md).
type TextureOptions struct {
	// Mode is the storage of every slot without an override.
	Mode string
	// Quality is 1..100: UASTC block search effort, ETC1S codebook size.
	Quality int
	// MaxSize, when > 0, shrinks images whose larger side exceeds it to
	// that side before the mip chain is built.
	MaxSize int
	// Slots overrides Mode for the named material slots (TextureSlots).
	Slots map[string]string
}

// DefaultTextureOptions: auto, quality ktx2.DefaultQuality, no size limit.
func DefaultTextureOptions() TextureOptions {
	return TextureOptions{Mode: TexturesAuto, Quality: ktx2.DefaultQuality}
}

// Validate checks the modes, slot names, quality and size.
func (o TextureOptions) Validate() error {
	if !slices.Contains(TextureModes(), o.Mode) {
		return fmt.Errorf("textures %q: want one of %s", o.Mode, strings.Join(TextureModes(), ", "))
	}
	for slot, m := range o.Slots {
		if !slices.Contains(TextureSlots(), slot) {
			return fmt.Errorf("texture slot %q: want one of %s", slot, strings.Join(TextureSlots(), ", "))
		}
		if !slices.Contains(TextureModes(), m) {
			return fmt.Errorf("texture slot %s mode %q: want one of %s", slot, m, strings.Join(TextureModes(), ", "))
		}
	}
	if o.Quality < ktx2.MinQuality || o.Quality > ktx2.MaxQuality {
		return fmt.Errorf("texture quality %d: want %d..%d", o.Quality, ktx2.MinQuality, ktx2.MaxQuality)
	}
	if o.MaxSize < 0 {
		return fmt.Errorf("max texture size %d: want 0 (no limit) or more", o.MaxSize)
	}
	return nil
}

// codecFor returns the codec of an image used in the given slots: each
// slot's mode (its override, else Mode), auto resolved to ETC1S for the
// color slots and UASTC for the others; when slots disagree the most
// faithful wins (rgba8, then uastc, then etc1s).
func (o TextureOptions) codecFor(slots []string) ktx2.Codec {
	best := -1
	rank := []ktx2.Codec{ktx2.CodecETC1S, ktx2.CodecUASTC, ktx2.CodecRGBA8}
	for _, slot := range slots {
		m := o.Mode
		if v, ok := o.Slots[slot]; ok {
			m = v
		}
		var c ktx2.Codec
		switch m {
		case TexturesRGBA8:
			c = ktx2.CodecRGBA8
		case TexturesUASTC:
			c = ktx2.CodecUASTC
		case TexturesETC1S:
			c = ktx2.CodecETC1S
		default: // auto
			c = ktx2.CodecUASTC
			if slot == "baseColor" || slot == "emissive" {
				c = autoColorCodec
			}
		}
		best = max(best, slices.Index(rank, c))
	}
	if best < 0 {
		return ktx2.CodecRGBA8
	}
	return rank[best]
}

// encodeTexture converts one source image for the given slots.
func encodeTexture(enc *ktx2.Encoder, data []byte, kind ktx2.Kind, slots []string, o TextureOptions) ([]byte, error) {
	return enc.FromImageOptions(data, kind, KTXWriter, ktx2.Options{Codec: o.codecFor(slots), Quality: o.Quality, MaxSize: o.MaxSize})
}

// textureUse is how the written materials use one image.
type textureUse struct {
	color, data bool
	slots       []string // "material 2 baseColor", for warnings
	kinds       []string // slot names ("baseColor"), deduplicated, in first-use order
}

// textureUses collects, for each image, how the materials in slot order
// (order: source material indices) use it. Base color and emissive are
// color; normal, metallic-roughness and occlusion are data.
func textureUses(scene *mesh.Scene, order []int) map[int]*textureUse {
	uses := map[int]*textureUse{}
	add := func(mat, img int, what string, color bool) {
		if img < 0 || img >= len(scene.Images) {
			return
		}
		u := uses[img]
		if u == nil {
			u = &textureUse{}
			uses[img] = u
		}
		if color {
			u.color = true
		} else {
			u.data = true
		}
		u.slots = append(u.slots, fmt.Sprintf("material %d %s", mat, what))
		if !slices.Contains(u.kinds, what) {
			u.kinds = append(u.kinds, what)
		}
	}
	for _, src := range order {
		m := scene.Materials[src]
		add(src, m.BaseColorTexture, "baseColor", true)
		add(src, m.EmissiveTexture, "emissive", true)
		add(src, m.NormalTexture, "normal", false)
		add(src, m.MetallicRoughnessTexture, "metallicRoughness", false)
		add(src, m.OcclusionTexture, "occlusion", false)
	}
	return uses
}

// packTextures converts every image referenced by the materials the .hmat
// lists into a KTX2 with a full mip chain, stored as TextureOptions say
// (codecFor): sRGB (mips filtered in linear light) for base color and
// emissive, linear (UNORM) for normal, metallic-roughness and occlusion
// maps.
//
// An image used both ways is written once, as color (sRGB): one ref names
// one file, and a picture shown as color is what a viewer notices when
// wrong; a warning names the data slots that will read sRGB-decoded values.
// An image whose bytes the importer did not load (an FBX texture kept as a
// file name) or that is not a PNG or JPEG is skipped with a warning; its
// .hmat ref stays, naming the texture a later cook would write.
//
// Files come out in image index order, so outputs do not depend on
// material order beyond the color/data decision.
func packTextures(ctx context.Context, job Job, scene *mesh.Scene, to TextureOptions) ([]outputFile, []string) {
	// Only each submesh's Material is read: the mesh stages rewrite the
	// submeshes' streams meanwhile (a range copy of the struct would read
	// them too, a data race).
	used := make([]int, len(scene.Submeshes))
	for i := range scene.Submeshes {
		used[i] = scene.Submeshes[i].Material
	}
	_, order := hmat.Slots(used)
	uses := textureUses(scene, order)
	if len(uses) == 0 {
		return nil, nil
	}
	leaves := imageLeaves(scene)
	// Encode every used image at once (up to GOMAXPROCS) with one
	// encoder (its Zstandard tables are made once per job, not per
	// texture); the loop below takes the results in image order.
	type encoded struct {
		b   []byte
		err error
	}
	enc := make([]encoded, len(scene.Images))
	var encoder ktx2.Encoder
	par.Each(len(scene.Images), func(img int) {
		if u := uses[img]; u != nil && scene.Images[img].Data != nil && ctx.Err() == nil {
			kind := ktx2.KindData
			if u.color {
				kind = ktx2.KindColor
			}
			enc[img].b, enc[img].err = encodeTexture(&encoder, scene.Images[img].Data, kind, u.kinds, to)
		}
	})
	encoder.Close()
	var out []outputFile
	var warnings []string
	for img := range scene.Images {
		u := uses[img]
		if u == nil {
			continue
		}
		im := scene.Images[img]
		label := fmt.Sprintf("image %d (%s)", img, leaves[img])
		if u.color {
			if u.data {
				warnings = append(warnings, fmt.Sprintf("%s is used as color and as data (%s); written as sRGB color", label, strings.Join(u.slots, ", ")))
			}
		}
		if im.Data == nil {
			warnings = append(warnings, fmt.Sprintf("%s: no image bytes were loaded (uri %q); no .ktx2 written, the .hmat ref is kept", label, im.URI))
			continue
		}
		b, err := enc[img].b, enc[img].err
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("%s: %v; no .ktx2 written, the .hmat ref is kept", label, err))
			continue
		}
		out = append(out, outputFile{
			name:     TexturePath(job.Name, leaves[img]),
			kind:     "ktx2",
			data:     b,
			validate: readBack("ktx2", b),
		})
	}
	return out, warnings
}

// pendingTextures is packTextures' result, encoded on its own goroutine
// (startTextures).
type pendingTextures struct {
	done     chan struct{}
	files    []outputFile
	warnings []string
	err      error // a panic in an encoder, as an internal error
}

// startTextures runs packTextures over scene on a new goroutine, timed as
// StageTextures when sw is not nil. The textures need only the scene's
// images and materials (slots come from the submeshes' materials, which
// the mesh stages do not change), so the cook starts them right after
// import and they run beside the mesh stages: a big texture set keeps
// both cores busy while one asset's mesh work runs its serial steps. The
// caller waits (pendingTextures.wait) before it returns.
func startTextures(ctx context.Context, job Job, scene *mesh.Scene, to TextureOptions, sw *stopwatch) *pendingTextures {
	p := &pendingTextures{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		if sw != nil {
			t := sw.Start(StageTextures, -1)
			defer t.Stop()
		}
		p.err = guard(job, func() error {
			p.files, p.warnings = packTextures(ctx, job, scene, to)
			return nil
		})
	}()
	return p
}

// wait returns the textures once they are encoded.
func (p *pendingTextures) wait() ([]outputFile, []string, error) {
	<-p.done
	return p.files, p.warnings, p.err
}

// packCompanions builds what the hmesh target writes beside the .hmesh and
// .hmat: the .hanim clips and the .ktx2 textures, which pending (started
// by startTextures) encodes. Warnings are prefixed with the source path,
// like the importer's.
func packCompanions(job Job, c *cooked, pending *pendingTextures) ([]outputFile, []string, error) {
	var out []outputFile
	var warnings []string
	clip, w, err := packHAnim(job, c)
	if err != nil {
		return nil, nil, fmt.Errorf("hanim: %w", err)
	}
	if clip != nil {
		out = append(out, *clip)
	}
	warnings = append(warnings, w...)
	tex, w, err := pending.wait()
	if err != nil {
		return nil, nil, err
	}
	c.report.Textures = len(tex)
	out = append(out, tex...)
	warnings = append(warnings, w...)
	for i, s := range warnings {
		warnings[i] = job.Source + ": " + s
	}
	return out, warnings, nil
}

// autoColorCodec is what auto picks for color slots.
const autoColorCodec = ktx2.CodecETC1S
