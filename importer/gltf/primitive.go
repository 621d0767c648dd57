package gltf

import (
	"errors"
	"fmt"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/internal/par"
	"github.com/meshcook/meshcook/mesh"
)

// primKey names one primitive of one mesh.
type primKey struct{ mesh, prim int }

// localPrim is a primitive decoded in its mesh's own space, with its
// topology already converted to a triangle list. It is decoded once and
// placed once per node that instances its mesh.
type localPrim struct {
	skip      bool // points or lines: no submesh
	positions []mesh.Vec3
	normals   []mesh.Vec3
	tangents  []mesh.Vec4
	uv0       []mesh.Vec2
	colors    []mesh.Vec4
	indices   []uint32
	material  int

	// skin streams in source joint numbering (nil without JOINTS_0);
	// all-zero weights mark a weightless vertex
	joints   [][4]uint16
	weights  []mesh.Vec4
	maxJoint int // largest joint index with a weight, -1 for none
	morphs   []mesh.MorphTarget
}

// Component types each attribute may use: float, plus the integer forms
// that KHR_mesh_quantization (and core glTF for UVs and colours) allow.
var (
	vertexComponents = []qgltf.ComponentType{
		qgltf.ComponentFloat, qgltf.ComponentByte, qgltf.ComponentUbyte,
		qgltf.ComponentShort, qgltf.ComponentUshort,
	}
	colorComponents = []qgltf.ComponentType{
		qgltf.ComponentFloat, qgltf.ComponentUbyte, qgltf.ComponentUshort,
	}
	vec2  = []qgltf.AccessorType{qgltf.AccessorVec2}
	vec3  = []qgltf.AccessorType{qgltf.AccessorVec3}
	vec4  = []qgltf.AccessorType{qgltf.AccessorVec4}
	vec34 = []qgltf.AccessorType{qgltf.AccessorVec3, qgltf.AccessorVec4}
)

// primitive returns mesh m's primitive p decoded (cached across the nodes
// that instance m), or nil when it is a points/lines primitive, which it
// counts for the aggregated warning.
func (im *importer) primitive(m, p int) (*localPrim, error) {
	key := primKey{m, p}
	lp, ok := im.prims[key]
	if !ok {
		var err error
		if lp, err = im.decodePrimitive(m, im.doc.Meshes[m].Primitives[p]); err != nil {
			return nil, err
		}
		im.prims[key] = lp
	}
	if lp.skip {
		im.skippedLines++
		return nil, nil
	}
	return lp, nil
}

// decodePrimitive reads one primitive of mesh m: attributes, skin streams,
// morph targets and indices.
func (im *importer) decodePrimitive(m int, pr *qgltf.Primitive) (*localPrim, error) {
	switch pr.Mode {
	case qgltf.PrimitiveTriangles, qgltf.PrimitiveTriangleStrip, qgltf.PrimitiveTriangleFan:
	default:
		return &localPrim{skip: true}, nil
	}
	lp := &localPrim{material: -1}
	if pr.Material != nil {
		if *pr.Material < 0 || *pr.Material >= len(im.doc.Materials) {
			return nil, fmt.Errorf("material %d does not exist", *pr.Material)
		}
		lp.material = *pr.Material
	}
	// positions fix the vertex count every other attribute must match
	pa, ok := pr.Attributes["POSITION"]
	if !ok {
		return nil, errors.New("missing POSITION attribute")
	}
	pos, _, err := im.floats(pa, vec3, vertexComponents, im.vertsLeft)
	if err != nil {
		return nil, fmt.Errorf("POSITION: %w", err)
	}
	n := len(pos) / 3
	lp.positions = elements(n, func(i int) mesh.Vec3 { return mesh.Vec3{pos[3*i], pos[3*i+1], pos[3*i+2]} })
	attr := func(name string, types []qgltf.AccessorType, cts []qgltf.ComponentType) ([]float32, int, error) {
		ai, ok := pr.Attributes[name]
		if !ok {
			return nil, 0, nil
		}
		if ai < 0 || ai >= len(im.doc.Accessors) {
			return nil, 0, fmt.Errorf("%s: accessor %d does not exist", name, ai)
		}
		a := im.doc.Accessors[ai]
		if a.Count != n {
			return nil, 0, fmt.Errorf("%s: accessor %d has %d elements, POSITION has %d", name, ai, a.Count, n)
		}
		if name == "COLOR_0" && a.ComponentType != qgltf.ComponentFloat && !a.Normalized {
			return nil, 0, fmt.Errorf("%s: accessor %d: integer colors must be normalized", name, ai)
		}
		v, comps, err := im.floats(ai, types, cts, n)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", name, err)
		}
		return v, comps, nil
	}
	if v, _, err := attr("NORMAL", vec3, vertexComponents); err != nil {
		return nil, err
	} else if v != nil {
		lp.normals = elements(n, func(i int) mesh.Vec3 { return mesh.Vec3{v[3*i], v[3*i+1], v[3*i+2]} })
	}
	if v, _, err := attr("TANGENT", vec4, vertexComponents); err != nil {
		return nil, err
	} else if v != nil {
		lp.tangents = elements(n, func(i int) mesh.Vec4 { return mesh.Vec4{v[4*i], v[4*i+1], v[4*i+2], v[4*i+3]} })
	}
	if v, _, err := attr("TEXCOORD_0", vec2, vertexComponents); err != nil {
		return nil, err
	} else if v != nil {
		lp.uv0 = elements(n, func(i int) mesh.Vec2 { return mesh.Vec2{v[2*i], v[2*i+1]} })
	}
	if v, comps, err := attr("COLOR_0", vec34, colorComponents); err != nil {
		return nil, err
	} else if v != nil {
		lp.colors = elements(n, func(i int) mesh.Vec4 {
			c := mesh.Vec4{v[comps*i], v[comps*i+1], v[comps*i+2], 1}
			if comps == 4 {
				c[3] = v[4*i+3]
			}
			return c
		})
	}
	if err := im.decodeSkin(pr, lp, n); err != nil {
		return nil, err
	}
	if err := im.decodeMorphs(m, pr, lp, n); err != nil {
		return nil, err
	}
	// indices: given, or 0..n-1
	var idx []uint32
	if pr.Indices != nil {
		if idx, err = im.uints(*pr.Indices, im.indicesLeft); err != nil {
			return nil, fmt.Errorf("indices: %w", err)
		}
		bad := par.First(len(idx), decodeChunk, func(lo, hi int) int {
			for i, v := range idx[lo:hi] {
				if uint64(v) >= uint64(n) {
					return lo + i
				}
			}
			return -1
		})
		if bad >= 0 {
			return nil, fmt.Errorf("indices: index %d is %d, only %d vertices", bad, idx[bad], n)
		}
	} else {
		idx = elements(n, func(i int) uint32 { return uint32(i) })
	}
	lp.indices = im.triangles(pr.Mode, idx)
	return lp, nil
}

// triangles converts an index sequence to a triangle list, following glTF
// 2.0 §3.7.2.1: strip triangle i is (v[i], v[i+1+i%2], v[i+2-i%2]), so that
// every other triangle swaps two corners and all keep the strip's winding;
// fan triangle i is (v[i+1], v[i+2], v[0]). A list whose length is not a
// multiple of 3 loses its trailing indices (counted for a warning).
func (im *importer) triangles(mode qgltf.PrimitiveMode, v []uint32) []uint32 {
	switch mode {
	case qgltf.PrimitiveTriangleStrip, qgltf.PrimitiveTriangleFan:
		if len(v) < 3 {
			return []uint32{}
		}
		out := make([]uint32, 0, 3*(len(v)-2))
		for i := 0; i+2 < len(v); i++ {
			if mode == qgltf.PrimitiveTriangleFan {
				out = append(out, v[i+1], v[i+2], v[0])
			} else {
				out = append(out, v[i], v[i+1+i%2], v[i+2-i%2])
			}
		}
		return out
	default:
		if r := len(v) % 3; r != 0 {
			im.truncated++
			v = v[:len(v)-r]
		}
		return v
	}
}

// place bakes world into a copy of lp (or into lp itself when this is its
// last use) and charges the scene's vertex and index budget. A skinned
// placement (world is then the identity) also gets the skin streams, with
// joints renumbered to the exported skeleton; a static one drops them.
// Morph deltas are carried either way, transformed like directions.
func (im *importer) place(lp *localPrim, world mesh.Mat4, last, skinned bool) (mesh.Submesh, error) {
	n, ni := len(lp.positions), len(lp.indices)
	if n > im.vertsLeft {
		return mesh.Submesh{}, fmt.Errorf("scene exceeds %d vertices (Options.MaxVertices)", im.maxVerts)
	}
	if ni > im.indicesLeft {
		return mesh.Submesh{}, fmt.Errorf("scene exceeds %d indices (Options.MaxIndices)", im.maxIndices)
	}
	im.vertsLeft -= n
	im.indicesLeft -= ni

	sm := mesh.Submesh{Material: lp.material}
	if last {
		sm.Positions, sm.Normals, sm.Tangents, sm.UV0, sm.Colors, sm.Indices =
			lp.positions, lp.normals, lp.tangents, lp.uv0, lp.colors, lp.indices
	} else {
		sm.Positions = append([]mesh.Vec3(nil), lp.positions...)
		sm.Normals = clone(lp.normals)
		sm.Tangents = clone(lp.tangents)
		sm.UV0 = clone(lp.uv0)
		sm.Colors = clone(lp.colors)
		sm.Indices = append(make([]uint32, 0, ni), lp.indices...)
	}
	if lp.morphs != nil {
		if !last {
			// copies count against the morph budget like the decoded deltas
			d := 0
			for _, m := range lp.morphs {
				d += len(m.Positions) + len(m.Normals)
			}
			if d > im.morphLeft {
				return mesh.Submesh{}, fmt.Errorf("scene exceeds %d morph deltas (Options.MaxVertices)", im.maxVerts)
			}
			im.morphLeft -= d
		}
		sm.Morphs = make([]mesh.MorphTarget, len(lp.morphs))
		for i, m := range lp.morphs {
			if !last {
				m = mesh.MorphTarget{Name: m.Name, Positions: clone(m.Positions), Normals: clone(m.Normals), Weight: m.Weight}
			}
			sm.Morphs[i] = m
		}
	}
	if skinned {
		if err := im.placeSkin(&sm, lp); err != nil {
			return mesh.Submesh{}, err
		}
	}

	// Every loop below maps each element on its own: in parallel chunks.
	// positions; the first non-finite one in order is the error
	bad := par.First(len(sm.Positions), decodeChunk, func(lo, hi int) int {
		for i := lo; i < hi; i++ {
			q := world.Point(sm.Positions[i])
			if !q.IsFinite() {
				return i
			}
			sm.Positions[i] = q
		}
		return -1
	})
	if bad >= 0 {
		return mesh.Submesh{}, fmt.Errorf("vertex %d: world position is not finite", bad)
	}
	// normals by the inverse transpose, tangents by the matrix itself
	if sm.Normals != nil {
		nm := world.NormalMatrix()
		each(len(sm.Normals), func(i int) { sm.Normals[i] = nm.Dir(sm.Normals[i]).Normalize() })
	}
	// morph deltas are differences of positions and of normals
	if !world.IsIdentity() {
		nm := world.NormalMatrix()
		for _, m := range sm.Morphs {
			each(len(m.Positions), func(i int) { m.Positions[i] = world.Dir(m.Positions[i]) })
			each(len(m.Normals), func(i int) { m.Normals[i] = nm.Dir(m.Normals[i]) })
		}
	}
	mirrored := world.Det3() < 0
	if sm.Tangents != nil {
		each(len(sm.Tangents), func(i int) {
			t := sm.Tangents[i]
			d := world.Dir(mesh.Vec3{t[0], t[1], t[2]}).Normalize()
			w := t[3]
			if mirrored {
				// a mirror reverses cross(N, T), so the bitangent sign flips
				// to keep pointing along the mirrored bitangent
				w = -w
			}
			sm.Tangents[i] = mesh.Vec4{d[0], d[1], d[2], w}
		})
	}
	// A mirror turns counter-clockwise faces clockwise; swap two corners.
	if mirrored {
		each(len(sm.Indices)/3, func(t int) {
			sm.Indices[3*t+1], sm.Indices[3*t+2] = sm.Indices[3*t+2], sm.Indices[3*t+1]
		})
	}
	return sm, nil
}

// placeSkin gives a skinned submesh its joints and weights: source joint
// numbers mapped to the exported skeleton's, a weightless vertex (or every
// vertex of a primitive without JOINTS_0) bound to joint 0 with weight 1.
func (im *importer) placeSkin(sm *mesh.Submesh, lp *localPrim) error {
	n := len(sm.Positions)
	sm.Joints = make([][4]uint16, n)
	sm.Weights = make([]mesh.Vec4, n)
	if lp.joints == nil {
		im.unskinned++
		for i := range sm.Weights {
			sm.Weights[i] = mesh.Vec4{1, 0, 0, 0}
		}
		return nil
	}
	perm := im.skin.perm
	if lp.maxJoint >= len(perm) {
		return fmt.Errorf("JOINTS: joint %d, skin 0 has %d joints", lp.maxJoint, len(perm))
	}
	for i, j := range lp.joints {
		w := lp.weights[i]
		if w == (mesh.Vec4{}) {
			sm.Weights[i] = mesh.Vec4{1, 0, 0, 0}
			continue
		}
		for c := range j {
			if w[c] > 0 {
				sm.Joints[i][c] = uint16(perm[j[c]])
			}
		}
		sm.Weights[i] = w
	}
	return nil
}

// elements returns n values, value i at(i), filled in parallel chunks.
func elements[V any](n int, at func(i int) V) []V {
	out := make([]V, n)
	each(n, func(i int) { out[i] = at(i) })
	return out
}

// each runs fn(i) for i in 0..n-1 in parallel chunks; fn must touch only
// element i's own outputs.
func each(n int, fn func(i int)) {
	par.Ranges(n, decodeChunk, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}

// clone copies s, keeping nil as nil.
func clone[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}
