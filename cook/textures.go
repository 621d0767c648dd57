package cook

import (
	"fmt"
	"path"
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

// textureUse is how the written materials use one image.
type textureUse struct {
	color, data bool
	slots       []string // "material 2 baseColor", for warnings
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
// lists into an RGBA8 KTX2 with a full mip chain: sRGB (R8G8B8A8_SRGB, mips
// filtered in linear light) for base color and emissive, UNORM
// (R8G8B8A8_UNORM) for normal, metallic-roughness and occlusion maps.
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
func packTextures(job Job, c *cooked) ([]outputFile, []string) {
	scene := c.scene
	used := make([]int, len(scene.Submeshes))
	for i, s := range scene.Submeshes {
		used[i] = s.Material
	}
	_, order := hmat.Slots(used)
	uses := textureUses(scene, order)
	if len(uses) == 0 {
		return nil, nil
	}
	leaves := imageLeaves(scene)
	// Encode every used image at once (up to GOMAXPROCS); the loop below
	// takes the results in image order.
	type encoded struct {
		b   []byte
		err error
	}
	enc := make([]encoded, len(scene.Images))
	par.Each(len(scene.Images), func(img int) {
		if u := uses[img]; u != nil && scene.Images[img].Data != nil {
			kind := ktx2.KindData
			if u.color {
				kind = ktx2.KindColor
			}
			enc[img].b, enc[img].err = ktx2.FromImage(scene.Images[img].Data, kind, KTXWriter)
		}
	})
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
			validate: validateKTX2(b),
		})
	}
	c.report.Textures = len(out)
	return out, warnings
}

func validateKTX2(b []byte) func() error {
	return func() error {
		_, err := ktx2.Decode(b) // Decode validates
		return err
	}
}

// packCompanions builds what the hmesh target writes beside the .hmesh and
// .hmat: the .hanim clips and the .ktx2 textures. Warnings are prefixed
// with the source path, like the importer's.
func packCompanions(job Job, c *cooked) ([]outputFile, []string, error) {
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
	tex, w := packTextures(job, c)
	out = append(out, tex...)
	warnings = append(warnings, w...)
	for i, s := range warnings {
		warnings[i] = job.Source + ": " + s
	}
	return out, warnings, nil
}
