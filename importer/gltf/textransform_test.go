package gltf

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// texturedQuad is quad with UVs (0,0) (1,0) (1,1) (0,1) and material m.
func texturedQuad(b *builder, m int) obj {
	p := quad(b)
	p["attributes"].(obj)["TEXCOORD_0"] = b.floats("VEC2", 0, 0, 1, 0, 1, 1, 0, 1)
	p["material"] = m
	return p
}

// One transform on every texture of a material is baked into UV0 as
// translation · rotation · scale; a material whose textures differ keeps
// its base mapping and is counted, as are texture references to TEXCOORD_1
// and extensions the cook does not carry (one drop each).
func TestTextureTransform(t *testing.T) {
	b := newBuilder()
	tiled := obj{"KHR_texture_transform": obj{"scale": []float64{30, 30}, "offset": []float64{0.5, 0}, "rotation": math.Pi / 2}}
	other := obj{"KHR_texture_transform": obj{"scale": []float64{2, 2}}}
	b.extra["images"] = []obj{{"uri": "data:image/png;base64,iVBORw0KGgo="}}
	b.extra["textures"] = []obj{{"source": 0}}
	b.extra["materials"] = []obj{
		{"name": "cloth", "pbrMetallicRoughness": obj{"baseColorTexture": obj{"index": 0, "extensions": tiled}},
			"normalTexture": obj{"index": 0, "extensions": tiled}},
		{"name": "mixed", "pbrMetallicRoughness": obj{"baseColorTexture": obj{"index": 0, "extensions": tiled}},
			"normalTexture": obj{"index": 0, "extensions": other}},
		{"name": "second set", "extensions": obj{"KHR_materials_unlit": obj{}},
			"pbrMetallicRoughness": obj{"baseColorTexture": obj{"index": 0, "texCoord": 1}}},
	}
	b.extra["extensionsUsed"] = []string{"KHR_texture_transform", "KHR_materials_unlit", "KHR_lights_punctual"}
	b.node(obj{"mesh": b.mesh("a", texturedQuad(b, 0))})
	b.node(obj{"mesh": b.mesh("b", texturedQuad(b, 1))})
	b.node(obj{"mesh": b.mesh("c", texturedQuad(b, 2))})
	s, err := decodeGLB(t, b)
	if err != nil && err.Error() != "" {
		// a bad PNG only matters to the texture stage, not the importer
		require.NoError(t, err)
	}
	require.Len(t, s.Submeshes, 3)
	// u' = cos·30·u + sin·30·v + 0.5, v' = −sin·30·u + cos·30·v
	want := []mesh.Vec2{{0.5, 0}, {0.5, -30}, {30.5, -30}, {30.5, 0}}
	for i, uv := range s.Submeshes[0].UV0 {
		assert.InDelta(t, want[i][0], uv[0], 1e-5)
		assert.InDelta(t, want[i][1], uv[1], 1e-5)
	}
	assert.Equal(t, []mesh.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, s.Submeshes[1].UV0, "conflicting transforms keep the base mapping")
	assert.Equal(t, []mesh.Drop{
		{What: "objects using extension KHR_materials_unlit (not carried)", Count: 1},
		{What: "objects using extension KHR_lights_punctual (not carried)", Count: 1},
		{What: "KHR_texture_transform transforms of materials whose textures use different ones (kept the base mapping)", Count: 1},
		{What: "texture references to a TEXCOORD set other than 0 (mapped with TEXCOORD_0)", Count: 1},
	}, s.Drops)
}

// The corpus's TextureTransformTest, against the same file with every
// KHR_texture_transform removed (its buffer embedded as a data URI in a
// temp copy): each submesh's UVs are its material's transform of the plain
// ones ("Offset U" +0.5 in u, "Scale" ×1.5, "Correct" unchanged).
func TestTextureTransformCorpus(t *testing.T) {
	corpusFiles(t, "gltf")
	dir := filepath.Join(corpusDir, "gltf", "TextureTransformTest")
	path := filepath.Join(dir, "TextureTransformTest.gltf")
	s, err := Load(path, Options{})
	require.NoError(t, err)

	text, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(text, &doc))
	for _, m := range doc["materials"].([]any) {
		if pbr, ok := m.(map[string]any)["pbrMetallicRoughness"].(map[string]any); ok {
			if tex, ok := pbr["baseColorTexture"].(map[string]any); ok {
				delete(tex, "extensions")
			}
		}
	}
	buf := doc["buffers"].([]any)[0].(map[string]any)
	bin, err := os.ReadFile(filepath.Join(dir, buf["uri"].(string)))
	require.NoError(t, err)
	buf["uri"] = "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(bin)
	for _, img := range doc["images"].([]any) {
		delete(img.(map[string]any), "uri") // images are not what this test reads
		img.(map[string]any)["bufferView"] = 0
		img.(map[string]any)["mimeType"] = "image/png"
	}
	plainText, err := json.Marshal(doc)
	require.NoError(t, err)
	plain, err := Decode(fstest.MapFS{"plain.gltf": {Data: plainText}}, "plain.gltf", Options{})
	if err != nil {
		t.Fatalf("plain copy: %v", err)
	}
	require.Len(t, plain.Submeshes, len(s.Submeshes))
	check := map[string]func(uv mesh.Vec2) mesh.Vec2{
		"Offset U": func(uv mesh.Vec2) mesh.Vec2 { return mesh.Vec2{uv[0] + 0.5, uv[1]} },
		"Scale":    func(uv mesh.Vec2) mesh.Vec2 { return mesh.Vec2{uv[0] * 1.5, uv[1] * 1.5} },
		"Correct":  func(uv mesh.Vec2) mesh.Vec2 { return uv },
	}
	seen := 0
	for i, sm := range s.Submeshes {
		if sm.Material < 0 {
			continue
		}
		f, ok := check[s.Materials[sm.Material].Name]
		if !ok {
			continue
		}
		seen++
		for v, uv := range sm.UV0 {
			want := f(plain.Submeshes[i].UV0[v])
			assert.InDelta(t, want[0], uv[0], 1e-6)
			assert.InDelta(t, want[1], uv[1], 1e-6)
		}
	}
	assert.GreaterOrEqual(t, seen, 3)
	assert.Empty(t, s.Drops)
}
