package bake

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
)

// The generated skinned glTF behind testdata/catalog/skinned/knight.gltf
// (TestSkinnedFixtureUpToDate keeps the file equal to it). Everything is
// in one .gltf with a base64 buffer, so the catalog folder holds one file.
//
// Skeleton (skin 0, in this joint order): 0 hips at the origin, 1 spine
// (+1 m), 2 head (+0.6 m above the spine), 3 arm (0.3 m right of the spine);
// inverse binds undo each joint's bind translation. Meshes, all but Prop
// bound to skin 0:
//   - Body/0: an 8-sided tube y ∈ [0, 1.5], 4 rings, with normals, UV0 (a
//     seam column duplicated), u8 joints and float weights blending hips
//     into spine with height; material 0.
//   - Body/1: a helmet box y ∈ [1.5, 1.8], non-indexed (36 corners, so the
//     weld merges them), no normals (generated), four influences per
//     vertex, u16 joints, unsorted; material 1.
//   - Cape/0: a 3×4 grid behind the back, u16 joints, weights blending
//     spine into arm across x; material 1.
//   - Prop/0: a static triangle (not skinned), placed 2 m to the side.
//
// influence gives every skinned vertex's joints and weights as a function
// of its mesh and position, so tests can check a bake without trusting the
// importer.

// fixtureOptions varies the generated file for refusal tests.
type fixtureOptions struct {
	extraJoints int  // joints added under the hips (257 joints: 253)
	noSkin      bool // no skin at all: every mesh static
}

type influenceSet map[int]float32 // joint → weight, weights > 0 only

// fixtureInfluence is the generator's own rule for a vertex of mesh at p.
func fixtureInfluence(meshName string, p [3]float32) influenceSet {
	switch meshName {
	case "Body/0":
		t := p[1] / 1.5
		return nonZero(influenceSet{0: 1 - t, 1: t})
	case "Body/1":
		return influenceSet{2: 0.4, 1: 0.3, 3: 0.2, 0: 0.1}
	case "Cape/0":
		s := (p[0] + 0.3) / 0.6
		return nonZero(influenceSet{1: 1 - s, 3: s})
	}
	return nil
}

func nonZero(m influenceSet) influenceSet {
	for j, w := range m {
		if w == 0 {
			delete(m, j)
		}
	}
	return m
}

// gltfDoc accumulates one buffer, its views and accessors.
type gltfDoc struct {
	buf       []byte
	views     []map[string]any
	accessors []map[string]any
}

func (d *gltfDoc) view(data []byte, target int) int {
	for len(d.buf)%4 != 0 {
		d.buf = append(d.buf, 0)
	}
	v := map[string]any{"buffer": 0, "byteOffset": len(d.buf), "byteLength": len(data)}
	if target != 0 {
		v["target"] = target
	}
	d.buf = append(d.buf, data...)
	d.views = append(d.views, v)
	return len(d.views) - 1
}

const (
	ctU8  = 5121
	ctU16 = 5123
	ctF32 = 5126
)

func (d *gltfDoc) accessor(data []byte, count, comp int, typ string, target int, extra map[string]any) int {
	a := map[string]any{"bufferView": d.view(data, target), "componentType": comp, "count": count, "type": typ}
	for k, v := range extra {
		a[k] = v
	}
	d.accessors = append(d.accessors, a)
	return len(d.accessors) - 1
}

func f32bytes(xs ...float32) []byte {
	b := make([]byte, 0, 4*len(xs))
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func (d *gltfDoc) positions(ps [][3]float32) int {
	lo, hi := ps[0], ps[0]
	var flat []float32
	for _, p := range ps {
		for i := 0; i < 3; i++ {
			lo[i], hi[i] = min(lo[i], p[i]), max(hi[i], p[i])
		}
		flat = append(flat, p[:]...)
	}
	return d.accessor(f32bytes(flat...), len(ps), ctF32, "VEC3", 34962, map[string]any{"min": lo[:], "max": hi[:]})
}

// skin writes JOINTS_0 (u8 or u16) and WEIGHTS_0 for ps from
// fixtureInfluence, slots in the order given by order (joint ids), so the
// file is not already sorted the way the importer keeps them.
func (d *gltfDoc) skin(attrs map[string]any, meshName string, ps [][3]float32, wide bool, order []int) {
	var joints []byte
	var weights []float32
	for _, p := range ps {
		inf := fixtureInfluence(meshName, p)
		slot := 0
		var js [4]int
		var ws [4]float32
		for _, j := range order {
			if w, ok := inf[j]; ok {
				js[slot], ws[slot] = j, w
				slot++
			}
		}
		for k := 0; k < 4; k++ {
			if wide {
				joints = binary.LittleEndian.AppendUint16(joints, uint16(js[k]))
			} else {
				joints = append(joints, uint8(js[k]))
			}
		}
		weights = append(weights, ws[:]...)
	}
	comp := ctU8
	if wide {
		comp = ctU16
	}
	attrs["JOINTS_0"] = d.accessor(joints, len(ps), comp, "VEC4", 34962, nil)
	attrs["WEIGHTS_0"] = d.accessor(f32bytes(weights...), len(ps), ctF32, "VEC4", 34962, nil)
}

func u16bytes(xs []int) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint16(b, uint16(x))
	}
	return b
}

// generateSkinnedGLTF returns the fixture file's bytes.
func generateSkinnedGLTF(o fixtureOptions) []byte {
	d := &gltfDoc{}
	skinned := !o.noSkin

	// Body/0: tube.
	const sides, rings = 8, 4
	var tp, tn [][3]float32
	var tuv []float32
	for r := 0; r < rings; r++ {
		y := float32(r) * 0.5
		for s := 0; s <= sides; s++ { // s == sides duplicates the seam with u = 1
			a := 2 * math.Pi * float64(s%sides) / sides
			c, sn := float32(math.Cos(a)), float32(math.Sin(a))
			tp = append(tp, [3]float32{0.2 * c, y, 0.2 * sn})
			tn = append(tn, [3]float32{c, 0, sn})
			tuv = append(tuv, float32(s)/sides, 1-y/1.5)
		}
	}
	var ti []int
	for r := 0; r+1 < rings; r++ {
		for s := 0; s < sides; s++ {
			a, b := r*(sides+1)+s, r*(sides+1)+s+1
			c, e := a+sides+1, b+sides+1
			ti = append(ti, a, c, b, b, c, e)
		}
	}
	var tnFlat []float32
	for _, n := range tn {
		tnFlat = append(tnFlat, n[:]...)
	}
	body0 := map[string]any{
		"POSITION":   d.positions(tp),
		"NORMAL":     d.accessor(f32bytes(tnFlat...), len(tn), ctF32, "VEC3", 34962, nil),
		"TEXCOORD_0": d.accessor(f32bytes(tuv...), len(tp), ctF32, "VEC2", 34962, nil),
	}
	if skinned {
		d.skin(body0, "Body/0", tp, false, []int{1, 0})
	}
	body0Idx := d.accessor(u16bytes(ti), len(ti), ctU16, "SCALAR", 34963, nil)

	// Body/1: helmet box, non-indexed, 36 corners.
	lo, hi := [3]float32{-0.15, 1.5, -0.15}, [3]float32{0.15, 1.8, 0.15}
	corner := func(i int) [3]float32 {
		p := lo
		for k := 0; k < 3; k++ {
			if i>>k&1 == 1 {
				p[k] = hi[k]
			}
		}
		return p
	}
	// Six faces, each two counter-clockwise triangles seen from outside.
	faces := [][4]int{{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}}
	var hp [][3]float32
	for _, f := range faces {
		for _, k := range []int{0, 1, 2, 0, 2, 3} {
			hp = append(hp, corner(f[k]))
		}
	}
	body1 := map[string]any{"POSITION": d.positions(hp)}
	if skinned {
		d.skin(body1, "Body/1", hp, true, []int{3, 0, 2, 1})
	}

	// Cape/0: a grid behind the back.
	var cp [][3]float32
	for r := 0; r < 4; r++ {
		for c := 0; c < 3; c++ {
			cp = append(cp, [3]float32{-0.3 + 0.3*float32(c), 1.4 - 0.3*float32(r), -0.25})
		}
	}
	var ci []int
	for r := 0; r < 3; r++ {
		for c := 0; c < 2; c++ {
			a := r*3 + c
			ci = append(ci, a, a+1, a+3, a+1, a+4, a+3)
		}
	}
	cape := map[string]any{"POSITION": d.positions(cp)}
	if skinned {
		d.skin(cape, "Cape/0", cp, true, []int{3, 1})
	}
	capeIdx := d.accessor(u16bytes(ci), len(ci), ctU16, "SCALAR", 34963, nil)

	// Prop/0: static triangle.
	prop := map[string]any{"POSITION": d.positions([][3]float32{{0, 0, 0}, {0.5, 0, 0}, {0, 0.5, 0}})}

	meshes := []any{
		map[string]any{"name": "Body", "primitives": []any{
			map[string]any{"attributes": body0, "indices": body0Idx, "material": 0},
			map[string]any{"attributes": body1, "material": 1},
		}},
		map[string]any{"name": "Cape", "primitives": []any{map[string]any{"attributes": cape, "indices": capeIdx, "material": 1}}},
		map[string]any{"name": "Prop", "primitives": []any{map[string]any{"attributes": prop}}},
	}

	// Nodes: 0 knight (root), 1 hips, 2 spine, 3 head, 4 arm, 5 body, 6
	// cape, 7 prop, then the extra joints.
	jointWorld := [][3]float32{{0, 0, 0}, {0, 1, 0}, {0, 1.6, 0}, {0.3, 1, 0}}
	hipsChildren := []any{2}
	nodes := []any{
		map[string]any{"name": "knight", "children": []any{1, 5, 6, 7}},
		nil,
		map[string]any{"name": "spine", "translation": []float32{0, 1, 0}, "children": []any{3, 4}},
		map[string]any{"name": "head", "translation": []float32{0, 0.6, 0}},
		map[string]any{"name": "arm", "translation": []float32{0.3, 0, 0}},
		map[string]any{"name": "body", "mesh": 0},
		map[string]any{"name": "cape", "mesh": 1},
		map[string]any{"name": "prop", "mesh": 2, "translation": []float32{2, 0, 0}},
	}
	joints := []any{1, 2, 3, 4}
	for k := 0; k < o.extraJoints; k++ {
		y := 0.001 * float32(k+1)
		nodes = append(nodes, map[string]any{"name": fmt.Sprintf("extra_%d", k), "translation": []float32{0, y, 0}})
		hipsChildren = append(hipsChildren, len(nodes)-1)
		joints = append(joints, len(nodes)-1)
		jointWorld = append(jointWorld, [3]float32{0, y, 0})
	}
	nodes[1] = map[string]any{"name": "hips", "children": hipsChildren}
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0", "generator": "meshcook bake tests (public domain)"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []any{0}}},
		"nodes":  nodes,
		"meshes": meshes,
		"materials": []any{
			map[string]any{"name": "cloth"},
			map[string]any{"name": "steel", "pbrMetallicRoughness": map[string]any{"metallicFactor": 1}},
		},
	}
	if skinned {
		var ib []float32
		for _, w := range jointWorld {
			ib = append(ib, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -w[0], -w[1], -w[2], 1)
		}
		ibAcc := d.accessor(f32bytes(ib...), len(jointWorld), ctF32, "MAT4", 0, nil)
		doc["skins"] = []any{map[string]any{"name": "knight", "joints": joints, "inverseBindMatrices": ibAcc, "skeleton": 1}}
		for _, n := range []int{5, 6} {
			nodes[n].(map[string]any)["skin"] = 0
		}
	}
	doc["accessors"] = d.accessors
	doc["bufferViews"] = d.views
	doc["buffers"] = []any{map[string]any{
		"byteLength": len(d.buf),
		"uri":        "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(d.buf),
	}}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return nil // unreachable: only maps, slices and numbers
	}
	return append(b, '\n')
}
