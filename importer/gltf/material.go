package gltf

import (
	"fmt"
	"io/fs"
	"strings"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/mesh"
)

// images returns the whole image array in source order. URI is kept only
// for external images, as written in the source (percent-escapes included),
// after checking that it stays inside the source's folder; an image in a
// buffer view or a data URI has none. The image bytes are not read here.
func (im *importer) images() ([]mesh.Image, error) {
	out := make([]mesh.Image, len(im.doc.Images))
	for i, img := range im.doc.Images {
		out[i] = mesh.Image{Name: img.Name, MimeType: img.MimeType}
		switch {
		case img.URI == "":
			if img.BufferView != nil && (*img.BufferView < 0 || *img.BufferView >= len(im.doc.BufferViews)) {
				return nil, fmt.Errorf("image %d: buffer view %d does not exist", i, *img.BufferView)
			}
		case isDataURI(img.URI):
			if out[i].MimeType == "" {
				out[i].MimeType = mediaType(img.URI)
			}
		default:
			if _, err := im.localPath(img.URI); err != nil {
				return nil, fmt.Errorf("image %d: %w", i, err)
			}
			out[i].URI = img.URI
		}
	}
	return out, nil
}

// mediaType returns a data URI's media type ("data:image/png;base64,..."
// → "image/png").
func mediaType(uri string) string {
	header, _, _ := strings.Cut(uri[len("data:"):], ",")
	media, _, _ := strings.Cut(header, ";")
	return media
}

// materials returns the whole material array in source order, each started
// from mesh.DefaultMaterial so that what the source leaves out keeps glTF's
// default.
func (im *importer) materials() ([]mesh.Material, error) {
	out := make([]mesh.Material, len(im.doc.Materials))
	for i, src := range im.doc.Materials {
		m := mesh.DefaultMaterial()
		m.Name = src.Name
		var err error
		tex := func(index int) int {
			if err != nil {
				return -1
			}
			var img int
			img, err = im.textureImage(index)
			return img
		}
		if pbr := src.PBRMetallicRoughness; pbr != nil {
			c := pbr.BaseColorFactorOrDefault()
			m.BaseColorFactor = mesh.Vec4{float32(c[0]), float32(c[1]), float32(c[2]), float32(c[3])}
			m.Metallic = float32(pbr.MetallicFactorOrDefault())
			m.Roughness = float32(pbr.RoughnessFactorOrDefault())
			if t := pbr.BaseColorTexture; t != nil {
				m.BaseColorTexture = tex(t.Index)
			}
			if t := pbr.MetallicRoughnessTexture; t != nil {
				m.MetallicRoughnessTexture = tex(t.Index)
			}
		}
		e := src.EmissiveFactor
		m.EmissiveFactor = mesh.Vec3{float32(e[0]), float32(e[1]), float32(e[2])}
		if t := src.NormalTexture; t != nil {
			m.NormalScale = float32(t.ScaleOrDefault())
			if t.Index != nil {
				m.NormalTexture = tex(*t.Index)
			}
		}
		if t := src.OcclusionTexture; t != nil {
			m.OcclusionStrength = float32(t.StrengthOrDefault())
			if t.Index != nil {
				m.OcclusionTexture = tex(*t.Index)
			}
		}
		if t := src.EmissiveTexture; t != nil {
			m.EmissiveTexture = tex(t.Index)
		}
		m.AlphaCutoff = float32(src.AlphaCutoffOrDefault())
		switch src.AlphaMode {
		case qgltf.AlphaMask:
			m.AlphaMode = mesh.AlphaMask
		case qgltf.AlphaBlend:
			m.AlphaMode = mesh.AlphaBlend
		default:
			m.AlphaMode = mesh.AlphaOpaque
		}
		m.DoubleSided = src.DoubleSided
		if err != nil {
			return nil, fmt.Errorf("material %d: %w", i, err)
		}
		out[i] = m
	}
	return out, nil
}

// textureImage resolves a texture index to its source image index, or -1
// when the texture has no core source (only an extension's image, such as
// KHR_texture_basisu, which we do not carry).
func (im *importer) textureImage(t int) (int, error) {
	if t < 0 || t >= len(im.doc.Textures) {
		return -1, fmt.Errorf("texture %d does not exist", t)
	}
	src := im.doc.Textures[t].Source
	if src == nil {
		return -1, nil
	}
	if *src < 0 || *src >= len(im.doc.Images) {
		return -1, fmt.Errorf("texture %d: image %d does not exist", t, *src)
	}
	return *src, nil
}

// imageData loads the encoded bytes of every image a material texture
// references into Image.Data: from its buffer view, its data URI, or its
// file inside the source's folder (the same refusal of paths that leave it
// as for buffers). Each image is bounded by Options.MaxImageBytes, checked
// on the file's size before it is read.
func (im *importer) imageData(images []mesh.Image, materials []mesh.Material) error {
	used := make([]bool, len(images))
	for _, m := range materials {
		for _, t := range []int{m.BaseColorTexture, m.MetallicRoughnessTexture, m.NormalTexture, m.OcclusionTexture, m.EmissiveTexture} {
			if t >= 0 && t < len(used) {
				used[t] = true
			}
		}
	}
	for i, img := range im.doc.Images {
		if !used[i] {
			continue
		}
		var (
			data []byte
			err  error
		)
		switch {
		case img.URI == "" && img.BufferView == nil:
			return fmt.Errorf("image %d: neither uri nor bufferView", i)
		case img.URI == "":
			var view []byte
			if view, _, err = im.view(*img.BufferView); err == nil && len(view) <= im.maxImage {
				data = append([]byte(nil), view...)
			}
		case isDataURI(img.URI):
			data, _, err = decodeDataURI(img.URI)
		default:
			var p string
			if p, err = im.localPath(img.URI); err != nil {
				break
			}
			var fi fs.FileInfo
			if fi, err = fs.Stat(im.fsys, p); err != nil {
				break
			}
			if fi.Size() > int64(im.maxImage) {
				return fmt.Errorf("image %d: %q is %d bytes, more than %d (Options.MaxImageBytes)", i, img.URI, fi.Size(), im.maxImage)
			}
			data, err = im.readFile(p)
		}
		if err != nil {
			return fmt.Errorf("image %d: %w", i, err)
		}
		if len(data) > im.maxImage || data == nil {
			return fmt.Errorf("image %d: more than %d bytes (Options.MaxImageBytes)", i, im.maxImage)
		}
		images[i].Data = data
	}
	return nil
}
