package fbx

// Materials and textures, mapped onto meshcook's metallic-roughness
// model by the shading model the file's properties show (material.go's
// readers, first match wins):
//
//   - 3ds Max Physical ("3dsMax|Parameters|…"): base_color × base_weight,
//     metalness, roughness (1 − roughness with roughness_inv), emission ×
//     emit_color, opacity 1 − transparency; maps on base_color_map,
//     metalness_map, roughness_map, bump_map (normal), emit_color_map.
//   - 3ds Max PBR ("3dsMax|main|…"): Metal/Rough (basecolor, metalness,
//     roughness, or glossiness when useGlossiness) and Spec/Gloss
//     (basecolor, Specular, glossiness) converted to metal-rough (below);
//     maps base_color_map, metalness_map, roughness_map, norm_map,
//     emit_color_map, ao_map.
//   - Maya Stingray PBS ("Maya|…"): base_color, metallic, roughness,
//     emissive × emissive_intensity; maps TEX_color_map, TEX_metallic_map,
//     TEX_roughness_map, TEX_normal_map, TEX_emissive_map, TEX_ao_map.
//   - Blender 2.8+ (the Creator names it): its exporter writes the
//     Principled BSDF as Phong with metallic in ReflectionFactor and
//     ShininessExponent = (10·(1 − roughness))², read back that way.
//   - Lambert and Phong: base color = DiffuseColor × DiffuseFactor (alpha =
//     Opacity, else 1 − TransparencyFactor × TransparentColor), emissive =
//     EmissiveColor × EmissiveFactor, metallic 0, roughness from the Phong
//     exponent as √(2/(n+2)) (1 for Lambert); textures on DiffuseColor,
//     NormalMap (or Bump), EmissiveColor.
//
// Spec/gloss colors convert with the Khronos glTF spec-gloss to
// metal-rough solution (metallic from perceived diffuse and specular
// brightness, base color blended between the dielectric and metal
// readings). What a material holds that no slot carries (Phong specular
// and reflection, textures on other properties, an unknown shading model)
// is named in one warning per kind.

import (
	"encoding/base64"
	"errors"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"

	"github.com/meshcook/meshcook/internal/srcpath"
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
	blender := s.blenderPrincipled()
	for _, o := range s.objects {
		if o.class != "Material" {
			continue
		}
		mr := &matReader{s: s, o: o, texIndex: texIndex, used: map[string]bool{}}
		m := mesh.DefaultMaterial()
		m.Name = o.name
		switch {
		case mr.has("3dsMax|Parameters|"):
			mr.maxPhysical(&m)
		case mr.has("3dsMax|main|"):
			mr.maxPBR(&m)
		case mr.has("Maya|base_color") || mr.has("Maya|TEX_color_map"):
			mr.stingray(&m)
		default:
			mr.classic(&m, blender)
		}
		for prop := range o.propKids {
			if _, isTex := texIndex[o.propKids[prop]]; isTex && !mr.used[prop] {
				s.warnf("textures on material property %q not imported", clip(prop))
			}
		}
		matIndex[o] = len(mats)
		mats = append(mats, m)
	}
	return mats, matIndex, images
}

// blenderPrincipled reports whether the file is from Blender 2.80 or
// later, whose exporter writes Principled BSDF values into Phong slots.
func (s *scene) blenderPrincipled() bool {
	c := s.doc.Root.Child("FBXHeaderExtension").childStr("Creator")
	if c == "" {
		c = s.doc.Root.Child("Creator").str(0)
	}
	const tag = "Blender (stable FBX IO) - "
	i := strings.Index(c, tag)
	if i < 0 {
		return false
	}
	var major, minor int
	v := c[i+len(tag):]
	for k, part := range strings.SplitN(v, ".", 3)[:min(2, len(strings.SplitN(v, ".", 3)))] {
		n := 0
		for _, r := range part {
			if r < '0' || r > '9' {
				break
			}
			n = n*10 + int(r-'0')
		}
		if k == 0 {
			major = n
		} else {
			minor = n
		}
	}
	return major > 2 || (major == 2 && minor >= 80)
}

// matReader reads one Material's properties and texture connections,
// remembering which texture properties it consumed.
type matReader struct {
	s        *scene
	o        *object
	texIndex map[*object]int
	used     map[string]bool
}

// has reports whether the material has a property (or texture) whose name
// starts with prefix.
func (r *matReader) has(prefix string) bool {
	for name := range r.o.props {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	for name := range r.o.propKids {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

func (r *matReader) vec3(name string, def [3]float64) [3]float64 { return r.s.propVec3(r.o, name, def) }
func (r *matReader) num(name string, def float64) float64        { return r.s.propFloat(r.o, name, def) }

// tex returns the image index of the first texture connected to one of
// props, and marks them consumed.
func (r *matReader) tex(props ...string) int {
	found := -1
	for _, p := range props {
		r.used[p] = true
		if t := r.o.propKids[p]; t != nil && found < 0 {
			if i, ok := r.texIndex[t]; ok {
				found = i
			}
		}
	}
	return found
}

func color4(c [3]float64, a float64) mesh.Vec4 {
	return mesh.Vec4{f32c(clamp01(c[0])), f32c(clamp01(c[1])), f32c(clamp01(c[2])), float32(clamp01(a))}
}

func scale3(c [3]float64, k float64) [3]float64 { return [3]float64{c[0] * k, c[1] * k, c[2] * k} }

func emissive(c [3]float64) mesh.Vec3 {
	return mesh.Vec3{f32c(max(c[0], 0)), f32c(max(c[1], 0)), f32c(max(c[2], 0))}
}

func setAlpha(m *mesh.Material, a float64) {
	m.BaseColorFactor[3] = float32(clamp01(a))
	if m.BaseColorFactor[3] < 1 {
		m.AlphaMode = mesh.AlphaBlend
	}
}

// maxPhysical reads a 3ds Max Physical material.
func (r *matReader) maxPhysical(m *mesh.Material) {
	const p = "3dsMax|Parameters|"
	base := scale3(r.vec3(p+"base_color", [3]float64{0.5, 0.5, 0.5}), r.num(p+"base_weight", 1))
	m.BaseColorFactor = color4(base, 1)
	setAlpha(m, 1-r.num(p+"transparency", 0))
	m.Metallic = float32(clamp01(r.num(p+"metalness", 0)))
	rough := clamp01(r.num(p+"roughness", 0))
	if r.num(p+"roughness_inv", 0) != 0 {
		rough = 1 - rough
	}
	m.Roughness = float32(rough)
	m.EmissiveFactor = emissive(scale3(r.vec3(p+"emit_color", [3]float64{1, 1, 1}), r.num(p+"emission", 0)))
	m.BaseColorTexture = r.tex(p+"base_color_map", "DiffuseColor")
	m.MetallicRoughnessTexture = r.tex(p+"metalness_map", p+"roughness_map")
	if m.MetallicRoughnessTexture >= 0 {
		r.s.warnf("3ds Max Physical metalness/roughness maps used as a glTF metallic-roughness texture (channels as the image has them)")
	}
	m.NormalTexture = r.tex(p+"bump_map", "NormalMap", "Bump")
	m.EmissiveTexture = r.tex(p+"emit_color_map", "EmissiveColor")
	for _, k := range []string{"coat_weight", "sheen_weight", "sss_weight", "trans_weight", "aniso", "thin_film"} {
		if r.num(p+k, 0) > 0 {
			r.s.warnf("3ds Max Physical %s not imported", k)
		}
	}
}

// maxPBR reads a 3ds Max PBR material (Metal/Rough or Spec/Gloss).
func (r *matReader) maxPBR(m *mesh.Material) {
	const p = "3dsMax|main|"
	base := r.vec3(p+"basecolor", [3]float64{0.5, 0.5, 0.5})
	m.BaseColorFactor = color4(base, r.num(p+"opacity", 1))
	setAlpha(m, r.num(p+"opacity", 1))
	rough := clamp01(r.num(p+"roughness", r.num(p+"Roughness", 0.5)))
	if gl, ok := r.lookup(p + "glossiness"); ok && (r.num(p+"useGlossiness", 0) != 0 || !r.hasProp(p+"metalness")) {
		rough = 1 - clamp01(gl)
	}
	m.Roughness = float32(rough)
	if spec, ok := r.lookup3(p + "Specular"); ok && !r.hasProp(p+"metalness") {
		// Spec/Gloss: convert the colors.
		metal, col := specGlossToMetalRough(base, spec)
		m.Metallic = float32(metal)
		m.BaseColorFactor = color4(col, float64(m.BaseColorFactor[3]))
		if r.tex(p+"specular_map", p+"glossiness_map") >= 0 {
			r.s.warnf("3ds Max PBR Spec/Gloss specular and glossiness maps not imported (no per-pixel conversion)")
		}
	} else {
		m.Metallic = float32(clamp01(r.num(p+"metalness", 0)))
	}
	m.EmissiveFactor = emissive(scale3(r.vec3(p+"emit_color", [3]float64{}), 1))
	m.BaseColorTexture = r.tex(p+"base_color_map", "DiffuseColor")
	m.MetallicRoughnessTexture = r.tex(p+"metalness_map", p+"roughness_map")
	m.NormalTexture = r.tex(p+"norm_map", "NormalMap", "Bump")
	m.EmissiveTexture = r.tex(p+"emit_color_map", "EmissiveColor")
	m.OcclusionTexture = r.tex(p + "ao_map")
	if r.tex(p+"displacement_map", p+"opacity_map") >= 0 {
		r.s.warnf("3ds Max PBR displacement and opacity maps not imported")
	}
}

// stingray reads a Maya Stingray PBS material.
func (r *matReader) stingray(m *mesh.Material) {
	const p = "Maya|"
	m.BaseColorFactor = color4(r.vec3(p+"base_color", [3]float64{1, 1, 1}), 1)
	m.Metallic = float32(clamp01(r.num(p+"metallic", 0)))
	m.Roughness = float32(clamp01(r.num(p+"roughness", 0.5)))
	m.EmissiveFactor = emissive(scale3(r.vec3(p+"emissive", [3]float64{}), r.num(p+"emissive_intensity", 1)))
	use := func(flag string, props ...string) int {
		i := r.tex(props...)
		if i >= 0 && r.hasProp(p+flag) && r.num(p+flag, 1) == 0 {
			return -1 // the map is connected but switched off
		}
		return i
	}
	m.BaseColorTexture = use("use_color_map", p+"TEX_color_map", "DiffuseColor")
	m.MetallicRoughnessTexture = use("use_metallic_map", p+"TEX_metallic_map", p+"TEX_roughness_map")
	m.NormalTexture = use("use_normal_map", p+"TEX_normal_map", "NormalMap")
	m.EmissiveTexture = use("use_emissive_map", p+"TEX_emissive_map", "EmissiveColor")
	m.OcclusionTexture = use("use_ao_map", p+"TEX_ao_map")
}

// classic reads a Lambert or Phong material (and Blender's principled
// values in Phong slots).
func (r *matReader) classic(m *mesh.Material, blender bool) {
	o := r.o
	d := r.vec3("DiffuseColor", [3]float64{0.8, 0.8, 0.8})
	if !r.hasProp("DiffuseColor") && r.hasProp("Diffuse") { // 6.x
		d = r.vec3("Diffuse", d)
	}
	d = scale3(d, r.num("DiffuseFactor", 1))
	alpha := 1.0
	switch {
	case r.hasProp("Opacity"):
		alpha = r.num("Opacity", 1)
	case r.hasProp("TransparencyFactor") || r.hasProp("TransparentColor"):
		tc := r.vec3("TransparentColor", [3]float64{1, 1, 1})
		alpha = 1 - r.num("TransparencyFactor", 0)*(tc[0]+tc[1]+tc[2])/3
	}
	m.BaseColorFactor = color4(d, 1)
	setAlpha(m, alpha)
	m.EmissiveFactor = emissive(scale3(r.vec3("EmissiveColor", [3]float64{}), r.num("EmissiveFactor", 1)))
	m.Metallic = 0
	m.Roughness = 1
	model := strings.ToLower(o.node.childStr("ShadingModel"))
	switch {
	case blender:
		m.Metallic = float32(clamp01(r.num("ReflectionFactor", 0)))
		sh := r.num("ShininessExponent", r.num("Shininess", 0))
		m.Roughness = float32(clamp01(1 - math.Sqrt(max(sh, 0))/10))
	case model == "phong":
		if n := r.num("ShininessExponent", r.num("Shininess", 20)); n >= 0 {
			m.Roughness = float32(math.Sqrt(2 / (n + 2)))
		}
		spec := scale3(r.vec3("SpecularColor", [3]float64{}), r.num("SpecularFactor", 1))
		if spec != [3]float64{} {
			r.s.warnf("Phong specular color not imported (roughness comes from the shininess exponent)")
		}
		if r.num("ReflectionFactor", 0) > 0 && r.vec3("ReflectionColor", [3]float64{}) != [3]float64{} {
			r.s.warnf("Phong reflection not imported")
		}
	case model == "lambert" || model == "":
	default:
		r.s.warnf("materials with shading model %q read as Lambert/Phong", clip(model))
	}
	m.BaseColorTexture = r.tex("DiffuseColor", "Diffuse")
	m.NormalTexture = r.tex("NormalMap", "Bump")
	m.EmissiveTexture = r.tex("EmissiveColor")
	if r.tex("TransparentColor", "TransparencyFactor") >= 0 && m.BaseColorTexture < 0 {
		r.s.warnf("opacity textures not imported")
	}
	if r.tex("SpecularColor", "SpecularFactor", "ShininessExponent", "ReflectionColor", "ReflectionFactor", "AmbientColor") >= 0 {
		r.s.warnf("textures on specular, shininess, reflection or ambient not imported")
	}
}

func (r *matReader) hasProp(name string) bool {
	return r.o.props[name] != nil
}

// lookup reads a number the material itself states (not a template default).
func (r *matReader) lookup(name string) (float64, bool) {
	if !r.hasProp(name) {
		return 0, false
	}
	v := propValues(r.o.props[name])
	if len(v) < 1 || !v[0].IsNumber() {
		return 0, false
	}
	return v[0].AsFloat(), true
}

func (r *matReader) lookup3(name string) ([3]float64, bool) {
	if !r.hasProp(name) {
		return [3]float64{}, false
	}
	v := r.vec3(name, [3]float64{-1, -1, -1})
	return v, v != [3]float64{-1, -1, -1}
}

// specGlossToMetalRough converts diffuse and specular colors to metallic
// and base color (the Khronos glTF-Blender-IO / three.js solution).
func specGlossToMetalRough(diffuse, specular [3]float64) (float64, [3]float64) {
	const dielectric = 0.04
	perceived := func(c [3]float64) float64 {
		return math.Sqrt(0.299*c[0]*c[0] + 0.587*c[1]*c[1] + 0.114*c[2]*c[2])
	}
	oneMinus := 1 - slices.Max(specular[:])
	pd, ps := perceived(diffuse), perceived(specular)
	metal := 0.0
	if ps >= dielectric {
		a := dielectric
		b := pd*oneMinus/(1-a) + ps - 2*a
		c := a - ps
		if disc := b*b - 4*a*c; disc >= 0 {
			metal = clamp01((-b + math.Sqrt(disc)) / (2 * a))
		}
	}
	var base [3]float64
	for i := range 3 {
		fromDiffuse := diffuse[i] * oneMinus / (1 - dielectric) / max(1-metal, 1e-6)
		fromSpec := (specular[i] - dielectric*(1-metal)) / max(metal, 1e-6)
		base[i] = clamp01(fromDiffuse + (fromSpec-fromDiffuse)*metal*metal)
	}
	return metal, base
}

// image describes a Texture: its file name as the file gives it and its
// bytes, from a connected Video that embeds them, else from the FBX's
// folder (Load only) under the first of textureCandidates that exists.
func (s *scene) image(t *object) mesh.Image {
	img := mesh.Image{Name: t.name}
	rel := t.node.childStr("RelativeFilename")
	abs := t.node.childStr("FileName")
	if vids := t.kids("Video", ""); len(vids) > 0 { // the first connected Video
		v := vids[0]
		if c := v.node.Child("Content"); c != nil {
			img.Data = content(c)
		}
		if rel == "" {
			rel = v.node.childStr("RelativeFilename")
		}
		if abs == "" {
			abs = v.node.childStr("Filename")
		}
	}
	uri := rel
	if uri == "" {
		uri = abs
	}
	img.URI = strings.ReplaceAll(uri, "\\", "/")
	if img.Data == nil && s.opts.folder != nil && uri != "" {
		img.URI, img.Data = s.findTexture(rel, abs, img.URI)
	}
	switch strings.ToLower(path.Ext(img.URI)) {
	case ".png":
		img.MimeType = "image/png"
	case ".jpg", ".jpeg":
		img.MimeType = "image/jpeg"
	}
	return img
}

// findTexture loads the first candidate that exists in the FBX's folder;
// it returns the name it found (or uri) and the bytes (nil when none).
func (s *scene) findTexture(rel, abs, uri string) (string, []byte) {
	for _, c := range textureCandidates(rel, abs) {
		fi, err := fs.Stat(s.opts.folder, c)
		if errors.Is(err, srcpath.ErrLinkOutside) {
			s.warnf("textures behind a symbolic link that leaves the FBX's folder not read (strict paths)")
			return uri, nil
		}
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if fi.Size() > s.opts.MaxImageBytes {
			s.warnf("textures larger than %d bytes not loaded", s.opts.MaxImageBytes)
			return uri, nil
		}
		data, err := fs.ReadFile(s.opts.folder, c)
		if err != nil {
			s.warnf("textures that cannot be read skipped (%v)", err)
			return uri, nil
		}
		if !slices.Contains(s.files, c) {
			s.files = append(s.files, c)
		}
		if c != uri {
			s.warnf("textures found in the FBX's folder by file name, not at the path the file gives")
		}
		return c, data
	}
	s.warnf("textures not found in the FBX's folder (by path or file name)")
	return uri, nil
}

// maxCandidates bounds the names tried for one texture.
const maxCandidates = 8

// textureCandidates are the names, relative to the FBX's folder, a
// texture is looked for under, in order: RelativeFilename and then
// FileName as written when they are relative paths inside the folder; then
// the file name alone; then the reference's trailing folders with it
// ("textures/wood.jpg", "maps/textures/wood.jpg", …), so that an absolute
// path from the artist's machine (D:/projects/x/textures/wood.jpg) is found
// beside the FBX or below it. Every candidate passes srcpath.Local: nothing
// outside the folder is ever named.
func textureCandidates(rel, abs string) []string {
	var out []string
	add := func(c string) {
		if p, err := srcpath.Local(c); err == nil && !slices.Contains(out, p) && len(out) < maxCandidates {
			out = append(out, p)
		}
	}
	add(rel)
	add(abs)
	for _, ref := range []string{rel, abs} {
		parts := strings.FieldsFunc(ref, func(r rune) bool { return r == '/' || r == '\\' })
		if len(parts) > 0 {
			add(parts[len(parts)-1])
		}
	}
	for _, ref := range []string{rel, abs} {
		parts := strings.FieldsFunc(ref, func(r rune) bool { return r == '/' || r == '\\' })
		for k := len(parts) - 2; k >= 0; k-- {
			if strings.Contains(parts[k], ":") || parts[k] == ".." || parts[k] == "." {
				break // a drive or a climb: the path above is not ours
			}
			add(strings.Join(parts[k:], "/"))
		}
	}
	return out
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
