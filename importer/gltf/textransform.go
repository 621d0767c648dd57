package gltf

import (
	"fmt"
	"math"
	"slices"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/mesh"
)

const extTextureTransform = "KHR_texture_transform"

// uvTransform is KHR_texture_transform as a 2×3 matrix: u' = m[0]·u +
// m[1]·v + m[2], v' = m[3]·u + m[4]·v + m[5] (the extension's
// translation · rotation · scale).
type uvTransform [6]float64

var identityUV = uvTransform{1, 0, 0, 0, 1, 0}

// textureTransform reads a texture reference's KHR_texture_transform (the
// identity when it has none) and the TEXCOORD set it samples (its
// texCoord, or the extension's override).
func textureTransform(exts qgltf.Extensions, texCoord int) (uvTransform, int, error) {
	var x struct {
		Offset   *[2]float64 `json:"offset"`
		Rotation float64     `json:"rotation"`
		Scale    *[2]float64 `json:"scale"`
		TexCoord *int        `json:"texCoord"`
	}
	ok, err := extension(exts, extTextureTransform, &x)
	if err != nil || !ok {
		return identityUV, texCoord, err
	}
	off, sc := [2]float64{0, 0}, [2]float64{1, 1}
	if x.Offset != nil {
		off = *x.Offset
	}
	if x.Scale != nil {
		sc = *x.Scale
	}
	for _, v := range []float64{off[0], off[1], sc[0], sc[1], x.Rotation} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return identityUV, texCoord, fmt.Errorf("%s: value %v is not finite", extTextureTransform, v)
		}
	}
	if x.TexCoord != nil {
		texCoord = *x.TexCoord
	}
	c, s := math.Cos(x.Rotation), math.Sin(x.Rotation)
	return uvTransform{c * sc[0], s * sc[1], off[0], -s * sc[0], c * sc[1], off[1]}, texCoord, nil
}

// materialUV is what a material's texture references ask of UV0: one
// transform for all of them (bake is set when it is not the identity), or
// conflicting ones (the base mapping stays, counted), and how many sample
// a TEXCOORD set other than 0 (mapped with UV0, counted).
type materialUV struct {
	bake     *uvTransform
	conflict bool
	otherSet int
}

// materialUVs reads every material's texture references.
func (im *importer) materialUVs() ([]materialUV, error) {
	out := make([]materialUV, len(im.doc.Materials))
	for i, m := range im.doc.Materials {
		type ref struct {
			exts     qgltf.Extensions
			texCoord int
		}
		var refs []ref
		if pbr := m.PBRMetallicRoughness; pbr != nil {
			for _, t := range []*qgltf.TextureInfo{pbr.BaseColorTexture, pbr.MetallicRoughnessTexture} {
				if t != nil {
					refs = append(refs, ref{t.Extensions, t.TexCoord})
				}
			}
		}
		if t := m.NormalTexture; t != nil && t.Index != nil {
			refs = append(refs, ref{t.Extensions, t.TexCoord})
		}
		if t := m.OcclusionTexture; t != nil && t.Index != nil {
			refs = append(refs, ref{t.Extensions, t.TexCoord})
		}
		if t := m.EmissiveTexture; t != nil {
			refs = append(refs, ref{t.Extensions, t.TexCoord})
		}
		var first *uvTransform
		for _, r := range refs {
			tr, set, err := textureTransform(r.exts, r.texCoord)
			if err != nil {
				return nil, fmt.Errorf("material %d: %w", i, err)
			}
			if set != 0 {
				out[i].otherSet++
			}
			if first == nil {
				first = &tr
			} else if *first != tr {
				out[i].conflict = true
			}
		}
		if first != nil && !out[i].conflict && *first != identityUV {
			out[i].bake = first
		}
	}
	return out, nil
}

// bakeUV applies the material's texture transform to a placed submesh's
// UV0 (KHR_texture_transform: every texture of the material uses it).
func (im *importer) bakeUV(sm *mesh.Submesh) {
	if sm.Material < 0 || sm.Material >= len(im.uvs) || sm.UV0 == nil {
		return
	}
	t := im.uvs[sm.Material].bake
	if t == nil {
		return
	}
	for i, uv := range sm.UV0 {
		u, v := float64(uv[0]), float64(uv[1])
		sm.UV0[i] = mesh.Vec2{float32(t[0]*u + t[1]*v + t[2]), float32(t[3]*u + t[4]*v + t[5])}
	}
}

// dropUVs records the texture mappings the cook cannot carry: materials
// whose textures use different transforms, and texture references to a
// TEXCOORD set other than 0.
func (im *importer) dropUVs(scene *mesh.Scene) {
	conflict, other := 0, 0
	for _, m := range im.uvs {
		if m.conflict {
			conflict++
		}
		other += m.otherSet
	}
	scene.Drop(conflict, "KHR_texture_transform transforms of materials whose textures use different ones (kept the base mapping)")
	scene.Drop(other, "texture references to a TEXCOORD set other than 0 (mapped with TEXCOORD_0)")
}

// carriedExtensions are the extensions whose data the cook carries (or,
// for KHR_texture_transform, bakes, with what it cannot bake counted by
// dropUVs).
var carriedExtensions = []string{"KHR_mesh_quantization", extMeshoptEXT, extMeshoptKHR, extTextureTransform}

// dropExtensions records one drop per extension the file uses that the
// cook does not carry, counted by the objects that name it (materials,
// texture references, textures, images, nodes, meshes, primitives; 1 when
// only the document lists it).
func (im *importer) dropExtensions(scene *mesh.Scene) {
	doc := im.doc
	var names []string
	for _, n := range doc.ExtensionsUsed {
		if !slices.Contains(carriedExtensions, n) && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, name := range names {
		uses := 0
		has := func(e qgltf.Extensions) {
			if _, ok := e[name]; ok {
				uses++
			}
		}
		for _, m := range doc.Materials {
			has(m.Extensions)
			if pbr := m.PBRMetallicRoughness; pbr != nil {
				for _, t := range []*qgltf.TextureInfo{pbr.BaseColorTexture, pbr.MetallicRoughnessTexture} {
					if t != nil {
						has(t.Extensions)
					}
				}
			}
			if t := m.EmissiveTexture; t != nil {
				has(t.Extensions)
			}
			if t := m.NormalTexture; t != nil {
				has(t.Extensions)
			}
			if t := m.OcclusionTexture; t != nil {
				has(t.Extensions)
			}
		}
		for _, t := range doc.Textures {
			has(t.Extensions)
		}
		for _, t := range doc.Images {
			has(t.Extensions)
		}
		for _, n := range doc.Nodes {
			has(n.Extensions)
		}
		for _, m := range doc.Meshes {
			has(m.Extensions)
			for _, p := range m.Primitives {
				has(p.Extensions)
			}
		}
		has(doc.Extensions)
		scene.Drop(max(uses, 1), fmt.Sprintf("objects using extension %s (not carried)", name))
	}
}
