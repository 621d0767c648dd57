package fbx

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// matScene is the unit quad with one material of the given shading model
// and properties, and textures connected to the named material properties.
func matScene(model string, ps []*Node, texProps ...string) func(int) []*Node {
	return func(v int) []*Node {
		objs := []*Node{
			geometryNode(100, "Quad", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, []int32{0, 1, 2, ^3}),
			modelNode(200, "QuadModel", "Mesh"),
			n("Material", int64(300), "Material::M", "", n("ShadingModel", model), props70(ps...)),
		}
		conns := [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)}, {"OO", int64(300), int64(200)}}
		for i, p := range texProps {
			id := int64(400 + i)
			objs = append(objs, n("Texture", id, "Texture::T"+p, "", n("FileName", p+".png"), n("RelativeFilename", p+".png")))
			conns = append(conns, []any{"OP", id, int64(300), p})
		}
		return doc7(v, nil, objs, conns)
	}
}

func num(name string, v float64) *Node { return P(name, "Number", v) }
func rgb(name string, r, g, b float64) *Node {
	return P(name, "Color", r, g, b)
}

func TestMaterialModels(t *testing.T) {
	type want struct {
		base                      mesh.Vec4
		metal, rough              float32
		emissive                  mesh.Vec3
		baseTex, mrTex, normalTex int
		warning                   string
	}
	cases := []struct {
		name  string
		scene func(int) []*Node
		want  want
	}{
		{"3ds Max Physical", matScene("unknown", []*Node{
			rgb("3dsMax|Parameters|base_color", 0.5, 0.25, 1), num("3dsMax|Parameters|base_weight", 0.5),
			num("3dsMax|Parameters|metalness", 0.25), num("3dsMax|Parameters|roughness", 0.5),
			num("3dsMax|Parameters|emission", 2), rgb("3dsMax|Parameters|emit_color", 0.5, 0, 0),
			num("3dsMax|Parameters|coat_weight", 1),
		}, "3dsMax|Parameters|base_color_map", "3dsMax|Parameters|bump_map"),
			want{mesh.Vec4{0.25, 0.125, 0.5, 1}, 0.25, 0.5, mesh.Vec3{1, 0, 0}, 0, -1, 1, "3ds Max Physical coat_weight not imported"}},
		{"3ds Max Physical inverted roughness", matScene("unknown", []*Node{
			num("3dsMax|Parameters|metalness", 1), num("3dsMax|Parameters|roughness", 0.2), num("3dsMax|Parameters|roughness_inv", 1),
		}), want{mesh.Vec4{0.5, 0.5, 0.5, 1}, 1, 0.8, mesh.Vec3{}, -1, -1, -1, ""}},
		{"3ds Max PBR metal/rough", matScene("unknown", []*Node{
			rgb("3dsMax|main|basecolor", 0.9, 0.8, 0.7), num("3dsMax|main|metalness", 0.6), num("3dsMax|main|roughness", 0.3),
		}, "3dsMax|main|metalness_map"), want{mesh.Vec4{0.9, 0.8, 0.7, 1}, 0.6, 0.3, mesh.Vec3{}, -1, 0, -1, ""}},
		{"3ds Max PBR spec/gloss, metal", matScene("unknown", []*Node{
			rgb("3dsMax|main|basecolor", 0, 0, 0), rgb("3dsMax|main|Specular", 1, 1, 1), num("3dsMax|main|glossiness", 0.75),
		}), want{mesh.Vec4{1, 1, 1, 1}, 1, 0.25, mesh.Vec3{}, -1, -1, -1, ""}},
		{"3ds Max PBR spec/gloss, dielectric", matScene("unknown", []*Node{
			rgb("3dsMax|main|basecolor", 0.5, 0.5, 0.5), rgb("3dsMax|main|Specular", 0.02, 0.02, 0.02), num("3dsMax|main|glossiness", 0),
		}), want{mesh.Vec4{0.5 * 0.98 / 0.96, 0.5 * 0.98 / 0.96, 0.5 * 0.98 / 0.96, 1}, 0, 1, mesh.Vec3{}, -1, -1, -1, ""}},
		{"Maya Stingray PBS", matScene("unknown", []*Node{
			rgb("Maya|base_color", 0.2, 0.4, 0.6), num("Maya|metallic", 0.7), num("Maya|roughness", 0.35),
			rgb("Maya|emissive", 1, 1, 1), num("Maya|emissive_intensity", 0.5), num("Maya|use_normal_map", 0),
		}, "Maya|TEX_color_map", "Maya|TEX_normal_map"), want{mesh.Vec4{0.2, 0.4, 0.6, 1}, 0.7, 0.35, mesh.Vec3{0.5, 0.5, 0.5}, 0, -1, -1, ""}},
		{"Phong", matScene("phong", []*Node{
			rgb("DiffuseColor", 1, 0.5, 0), num("DiffuseFactor", 0.5), num("ShininessExponent", 0), rgb("SpecularColor", 1, 1, 1),
			num("TransparencyFactor", 0.5), rgb("TransparentColor", 1, 1, 1),
		}, "DiffuseColor", "SpecularColor"), want{mesh.Vec4{0.5, 0.25, 0, 0.5}, 0, 1, mesh.Vec3{}, 0, -1, -1, "Phong specular color not imported"}},
		{"unknown model and texture property", matScene("toon", nil, "Glow"),
			want{mesh.Vec4{0.8, 0.8, 0.8, 1}, 0, 1, mesh.Vec3{}, -1, -1, -1, `materials with shading model "toon" read as Lambert/Phong`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := decodeAll(t, tc.scene, Options{})
			require.Len(t, sc.Materials, 1)
			m := sc.Materials[0]
			require.InDeltaSlice(t, tc.want.base[:], m.BaseColorFactor[:], 1e-6)
			require.InDelta(t, tc.want.metal, m.Metallic, 1e-6)
			require.InDelta(t, tc.want.rough, m.Roughness, 1e-6)
			require.InDeltaSlice(t, tc.want.emissive[:], m.EmissiveFactor[:], 1e-6)
			require.Equal(t, tc.want.baseTex, m.BaseColorTexture)
			require.Equal(t, tc.want.mrTex, m.MetallicRoughnessTexture)
			require.Equal(t, tc.want.normalTex, m.NormalTexture)
			if tc.want.warning != "" {
				require.True(t, hasWarning(sc.Warnings, tc.want.warning), "%v", sc.Warnings)
			}
		})
	}
}

// Blender 2.8+ writes the Principled BSDF into Phong slots: metallic in
// ReflectionFactor, ShininessExponent = (10·(1 − roughness))².
func TestBlenderPrincipled(t *testing.T) {
	scene := func(creator string) func(int) []*Node {
		return func(v int) []*Node {
			nodes := matScene("Phong", []*Node{rgb("DiffuseColor", 0.8, 0.1, 0.1), num("ReflectionFactor", 0.7), num("ShininessExponent", 49)})(v)
			nodes[0].Children = append(nodes[0].Children, n("Creator", creator))
			return nodes
		}
	}
	m := decodeAll(t, scene("Blender (stable FBX IO) - 2.82 (sub 7) - 4.20.2"), Options{}).Materials[0]
	require.InDelta(t, 0.7, m.Metallic, 1e-6)
	require.InDelta(t, 0.3, m.Roughness, 1e-6)
	// Blender 2.79 and other tools: plain Phong.
	m = decodeAll(t, scene("Blender (stable FBX IO) - 2.79 (sub 0) - 3.7.13"), Options{}).Materials[0]
	require.Zero(t, m.Metallic)
	require.InDelta(t, 0.19802951, m.Roughness, 1e-6) // √(2/51)
	require.True(t, hasWarning(decodeAll(t, matScene("toon", nil, "Glow"), Options{}).Warnings, `textures on material property "Glow" not imported`))
}
