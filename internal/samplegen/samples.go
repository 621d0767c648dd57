package samplegen

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// Files returns every sample file by path relative to testdata/samples.
func Files() map[string][]byte {
	files := map[string][]byte{}
	boxJSON, boxBin := box().gltfWithBin("box.bin")
	files["box.gltf"] = boxJSON
	files["box.bin"] = boxBin
	files["checker.png"] = checkerPNG()
	files["models/chair.glb"] = chair().glb()
	files["terrain.gltf"] = terrain().gltfEmbedded()
	files["strips.glb"] = strips().glb()
	return files
}

// Write writes every sample under dir.
func Write(dir string) error {
	files := Files()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// cube returns a unit cube's 24 vertices (4 per face, hard edges) with
// normals and UVs, and its 36 indices, centred at c with half size h.
func cube(c [3]float32, h float32) (pos, nrm [][3]float32, uv [][2]float32, idx []uint32) {
	faces := [6]struct{ n, u, v [3]float32 }{
		{[3]float32{1, 0, 0}, [3]float32{0, 0, -1}, [3]float32{0, 1, 0}},
		{[3]float32{-1, 0, 0}, [3]float32{0, 0, 1}, [3]float32{0, 1, 0}},
		{[3]float32{0, 1, 0}, [3]float32{1, 0, 0}, [3]float32{0, 0, -1}},
		{[3]float32{0, -1, 0}, [3]float32{1, 0, 0}, [3]float32{0, 0, 1}},
		{[3]float32{0, 0, 1}, [3]float32{1, 0, 0}, [3]float32{0, 1, 0}},
		{[3]float32{0, 0, -1}, [3]float32{-1, 0, 0}, [3]float32{0, 1, 0}},
	}
	for _, f := range faces {
		base := uint32(len(pos))
		for _, corner := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			var p [3]float32
			for k := 0; k < 3; k++ {
				p[k] = c[k] + h*(f.n[k]+corner[0]*f.u[k]+corner[1]*f.v[k])
			}
			pos = append(pos, p)
			nrm = append(nrm, f.n)
			// glTF UVs have a top-left origin: v grows downwards.
			uv = append(uv, [2]float32{(corner[0] + 1) / 2, (1 - corner[1]) / 2})
		}
		idx = append(idx, base, base+1, base+2, base, base+2, base+3)
	}
	return pos, nrm, uv, idx
}

// box: one textured cube, .gltf + external .bin + external PNG.
func box() *doc {
	d := newDoc()
	pos, nrm, uv, idx := cube([3]float32{0, 0, 0}, 0.5)
	p := primitive{Attributes: map[string]int{
		"POSITION":   d.addVec3(pos, true),
		"NORMAL":     d.addVec3(nrm, false),
		"TEXCOORD_0": d.addVec2(uv),
	}, Indices: ptr(d.addIndices(idx)), Material: ptr(0)}
	d.Meshes = []meshJSON{{Name: "box", Primitives: []primitive{p}}}
	d.Materials = []material{{Name: "Checker", PBRMetallicRoughness: &pbr{BaseColorTexture: &textureRef{Index: 0}, MetallicFactor: ptr(0.0), RoughnessFactor: ptr(0.8)}}}
	d.Textures = []texture{{Source: 0}}
	d.Images = []imageJSON{{Name: "checker", URI: "checker.png"}}
	d.Nodes = []node{{Name: "box", Mesh: ptr(0)}}
	d.Scenes = []scene{{Nodes: []int{0}}}
	d.Scene = ptr(0)
	return d
}

func checkerPNG() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			c := color.NRGBA{230, 230, 230, 255}
			if (x/2+y/2)%2 == 1 {
				c = color.NRGBA{40, 40, 40, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // encoding to memory cannot fail
	return b.Bytes()
}

// chair: the formats.md material example. Materials ["Wood", "", "Leather",
// "Wood"]; the seat (first submesh) uses Leather (2), the legs use material
// 0, so MTRL = [models/chair/leather, models/chair/material_0]. Legs hang
// off a parent node (hierarchy), and one leg is mirrored (negative scale)
// so its winding must flip.
func chair() *doc {
	d := newDoc()
	seatPos, seatNrm, seatUV, seatIdx := cube([3]float32{0, 0, 0}, 0.5)
	seat := primitive{Attributes: map[string]int{
		"POSITION": d.addVec3(seatPos, true), "NORMAL": d.addVec3(seatNrm, false), "TEXCOORD_0": d.addVec2(seatUV),
	}, Indices: ptr(d.addIndices(seatIdx)), Material: ptr(2)}
	legPos, _, legUV, legIdx := cube([3]float32{0, -0.5, 0}, 0.5)
	leg := primitive{Attributes: map[string]int{
		"POSITION": d.addVec3(legPos, true), "TEXCOORD_0": d.addVec2(legUV),
	}, Indices: ptr(d.addIndices(legIdx)), Material: ptr(0)}
	d.Meshes = []meshJSON{{Name: "seat", Primitives: []primitive{seat}}, {Name: "leg", Primitives: []primitive{leg}}}
	d.Materials = []material{
		{Name: "Wood", PBRMetallicRoughness: &pbr{BaseColorFactor: []float64{0.55, 0.35, 0.2, 1}, MetallicFactor: ptr(0.0)}},
		{Name: "", PBRMetallicRoughness: &pbr{BaseColorFactor: []float64{1, 0, 1, 1}}},
		{Name: "Leather", PBRMetallicRoughness: &pbr{BaseColorFactor: []float64{0.3, 0.1, 0.05, 1}, MetallicFactor: ptr(0.0), RoughnessFactor: ptr(0.6)}, DoubleSided: true},
		{Name: "Wood", PBRMetallicRoughness: &pbr{BaseColorFactor: []float64{0.5, 0.3, 0.2, 1}}},
	}
	d.Nodes = []node{
		{Name: "chair", Children: []int{1, 2}, Translation: []float64{0, 1, 0}},
		{Name: "seat", Mesh: ptr(0), Scale: []float64{1, 0.1, 1}},
		{Name: "legs", Children: []int{3, 4, 5, 6}},
		{Name: "leg_fl", Mesh: ptr(1), Translation: []float64{0.4, 0, 0.4}, Scale: []float64{0.1, 1, 0.1}},
		{Name: "leg_fr", Mesh: ptr(1), Translation: []float64{-0.4, 0, 0.4}, Scale: []float64{-0.1, 1, 0.1}},
		{Name: "leg_bl", Mesh: ptr(1), Translation: []float64{0.4, 0, -0.4}, Rotation: []float64{0, 0.7071067811865476, 0, 0.7071067811865476}, Scale: []float64{0.1, 1, 0.1}},
		{Name: "leg_br", Mesh: ptr(1), Matrix: []float64{0.1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0.1, 0, -0.4, 0, -0.4, 1}},
	}
	d.Scenes = []scene{{Nodes: []int{0}}}
	d.Scene = ptr(0)
	return d
}

// terrain: a 33x33 displaced grid with UVs and vertex colours but no normals
// or tangents (cook generates both), buffer embedded as a data URI, and no
// default scene (so every scene root is cooked).
func terrain() *doc {
	const n = 33
	d := newDoc()
	var pos [][3]float32
	var uv [][2]float32
	var col [][4]uint8
	for z := 0; z < n; z++ {
		for x := 0; x < n; x++ {
			fx, fz := float64(x)/(n-1), float64(z)/(n-1)
			h := 0.15*math.Sin(fx*2*math.Pi)*math.Cos(fz*3*math.Pi) + 0.05*math.Sin(fx*9+fz*7)
			pos = append(pos, [3]float32{float32(fx*4 - 2), float32(h), float32(fz*4 - 2)})
			uv = append(uv, [2]float32{float32(fx * 4), float32(fz * 4)})
			g := uint8(120 + 100*(h+0.2)/0.4)
			col = append(col, [4]uint8{60, g, 40, 255})
		}
	}
	var idx []uint32
	for z := 0; z < n-1; z++ {
		for x := 0; x < n-1; x++ {
			a := uint32(z*n + x)
			b, c, e := a+1, a+n, a+n+1
			idx = append(idx, a, c, b, b, c, e)
		}
	}
	p := primitive{Attributes: map[string]int{
		"POSITION": d.addVec3(pos, true), "TEXCOORD_0": d.addVec2(uv), "COLOR_0": d.addColorsU8(col),
	}, Indices: ptr(d.addIndices(idx))}
	d.Meshes = []meshJSON{{Name: "terrain", Primitives: []primitive{p}}}
	d.Nodes = []node{{Name: "terrain", Mesh: ptr(0)}}
	d.Scenes = []scene{{Nodes: []int{0}}}
	return d
}

// strips: a ribbon as TRIANGLE_STRIP, a disc as non-indexed TRIANGLE_FAN,
// and a POINTS primitive that cook skips with a counted warning.
func strips() *doc {
	d := newDoc()
	var ribbon [][3]float32
	for i := 0; i < 16; i++ {
		x := float32(i) * 0.25
		ribbon = append(ribbon, [3]float32{x, 0, 0}, [3]float32{x, 0.5, 0.1 * float32(i%2)})
	}
	var ribbonIdx []uint32
	for i := range ribbon {
		ribbonIdx = append(ribbonIdx, uint32(i))
	}
	disc := [][3]float32{{0, 0, 2}}
	for i := 0; i <= 24; i++ {
		a := 2 * math.Pi * float64(i) / 24
		disc = append(disc, [3]float32{float32(math.Cos(a)), float32(math.Sin(a)), 2})
	}
	points := [][3]float32{{0, 0, -1}, {1, 0, -1}, {0, 1, -1}}
	d.Meshes = []meshJSON{{Name: "shapes", Primitives: []primitive{
		{Attributes: map[string]int{"POSITION": d.addVec3(ribbon, true)}, Indices: ptr(d.addIndices(ribbonIdx)), Mode: ptr(5)},
		{Attributes: map[string]int{"POSITION": d.addVec3(disc, true)}, Mode: ptr(6)},
		{Attributes: map[string]int{"POSITION": d.addVec3(points, true)}, Mode: ptr(0)},
	}}}
	d.Nodes = []node{{Name: "shapes", Mesh: ptr(0)}}
	d.Scenes = []scene{{Nodes: []int{0}}}
	d.Scene = ptr(0)
	return d
}
