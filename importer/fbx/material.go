package fbx

// Materials and textures. FBX materials are Lambert/Phong; they map onto
// meshcook's metallic-roughness model as: base color = DiffuseColor (alpha
// = Opacity when the file writes one, blend mode below 1), emissive =
// EmissiveColor × EmissiveFactor, metallic 0, roughness from the Phong
// exponent as √(2/(n+2)) (1 for Lambert). Textures connected to the
// material's DiffuseColor, NormalMap and EmissiveColor properties become
// the matching texture slots.

import (
	"encoding/base64"
	"math"
	"path"
	"strings"

	"github.com/meshcook/meshcook/mesh"
)

func (s *scene) materials() ([]mesh.Material, map[*object]int, []mesh.Image) {
	var mats []mesh.Material
	matIndex := map[*object]int{}
	var images []mesh.Image
	texIndex := map[*object]int{}
	for _, o := range s.objects {
		if o.class != "Texture" {
			continue
		}
		texIndex[o] = len(images)
		images = append(images, s.image(o))
	}
	for _, o := range s.objects {
		if o.class != "Material" {
			continue
		}
		m := mesh.DefaultMaterial()
		m.Name = o.name
		d := s.propVec3(o, "DiffuseColor", [3]float64{0.8, 0.8, 0.8})
		if d == [3]float64{0.8, 0.8, 0.8} { // 6.x writes "Diffuse" too
			d = s.propVec3(o, "Diffuse", d)
		}
		alpha := 1.0
		if v := s.lookup(o, "Opacity"); len(v) > 0 && v[0].IsNumber() {
			alpha = clamp01(v[0].AsFloat())
		}
		m.BaseColorFactor = mesh.Vec4{f32c(d[0]), f32c(d[1]), f32c(d[2]), float32(alpha)}
		if alpha < 1 {
			m.AlphaMode = mesh.AlphaBlend
		}
		e := s.propVec3(o, "EmissiveColor", [3]float64{})
		ef := s.propFloat(o, "EmissiveFactor", 1)
		m.EmissiveFactor = mesh.Vec3{f32c(e[0] * ef), f32c(e[1] * ef), f32c(e[2] * ef)}
		m.Metallic = 0
		m.Roughness = 1
		if strings.EqualFold(o.node.childStr("ShadingModel"), "phong") {
			if n := s.propFloat(o, "ShininessExponent", s.propFloat(o, "Shininess", 20)); n >= 0 {
				m.Roughness = float32(math.Sqrt(2 / (n + 2)))
			}
		}
		tex := func(prop string) int {
			if t := o.propKids[prop]; t != nil {
				if i, ok := texIndex[t]; ok {
					return i
				}
			}
			return -1
		}
		m.BaseColorTexture = tex("DiffuseColor")
		m.NormalTexture = tex("NormalMap")
		m.EmissiveTexture = tex("EmissiveColor")
		matIndex[o] = len(mats)
		mats = append(mats, m)
	}
	return mats, matIndex, images
}

// image describes a Texture: its file name as the file gives it and, when
// a connected Video embeds it, the bytes.
func (s *scene) image(t *object) mesh.Image {
	img := mesh.Image{Name: t.name}
	uri := t.node.childStr("RelativeFilename")
	if uri == "" {
		uri = t.node.childStr("FileName")
	}
	for _, v := range t.kids("Video", "") {
		if c := v.node.Child("Content"); c != nil {
			img.Data = content(c)
		}
		if uri == "" {
			uri = v.node.childStr("RelativeFilename")
		}
		break
	}
	img.URI = strings.ReplaceAll(uri, "\\", "/")
	switch strings.ToLower(path.Ext(img.URI)) {
	case ".png":
		img.MimeType = "image/png"
	case ".jpg", ".jpeg":
		img.MimeType = "image/jpeg"
	}
	return img
}

// content returns embedded bytes: a raw property (binary) or base64 text
// (ASCII). Exporters split long text over several strings, some encoding
// each piece on its own (padding inside), some cutting one encoding
// anywhere; each piece is decoded alone first, the joined text second.
func content(c *Node) []byte {
	var parts []string
	for i := range c.Props {
		p := &c.Props[i]
		switch p.Type {
		case TypeRaw:
			if len(p.Bytes) > 0 {
				return p.Bytes
			}
		case TypeString:
			if p.Str != "" {
				parts = append(parts, p.Str)
			}
		}
	}
	var out []byte
	for _, part := range parts {
		b := decodeBase64(part)
		if b == nil {
			return decodeBase64(strings.Join(parts, ""))
		}
		out = append(out, b...)
	}
	return out
}

func clamp01(v float64) float64 {
	if !(v > 0) {
		return 0
	}
	return min(v, 1)
}

func f32c(v float64) float32 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return float32(v)
}

// decodeBase64 decodes standard base64, ignoring whitespace; nil on error.
func decodeBase64(s string) []byte {
	s = strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, s)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	return b
}
