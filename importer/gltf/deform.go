package gltf

import (
	"fmt"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/mesh"
)

// Component types of skin attributes (glTF 2.0 §3.7.3.3): JOINTS_n are
// unsigned byte or short indices, WEIGHTS_n float or normalized unsigned
// byte or short.
var (
	jointComponents  = []qgltf.ComponentType{qgltf.ComponentUbyte, qgltf.ComponentUshort}
	weightComponents = []qgltf.ComponentType{qgltf.ComponentFloat, qgltf.ComponentUbyte, qgltf.ComponentUshort}
)

// decodeSkin reads JOINTS_n / WEIGHTS_n sets into lp's skin streams, four
// influences per vertex (see influences). Sets are read from 0 up while
// JOINTS_n or WEIGHTS_n exists; each needs both.
func (im *importer) decodeSkin(pr *qgltf.Primitive, lp *localPrim, n int) error {
	type set struct {
		joints  []uint32
		weights []float32
	}
	var sets []set
	for k := 0; ; k++ {
		jn, wn := fmt.Sprintf("JOINTS_%d", k), fmt.Sprintf("WEIGHTS_%d", k)
		ja, jok := pr.Attributes[jn]
		wa, wok := pr.Attributes[wn]
		if !jok && !wok {
			break
		}
		if jok != wok {
			return fmt.Errorf("%s and %s must come together", jn, wn)
		}
		for _, c := range []struct {
			name string
			ai   int
		}{{jn, ja}, {wn, wa}} {
			if c.ai >= 0 && c.ai < len(im.doc.Accessors) && im.doc.Accessors[c.ai].Count != n {
				return fmt.Errorf("%s: accessor %d has %d elements, POSITION has %d", c.name, c.ai, im.doc.Accessors[c.ai].Count, n)
			}
		}
		j, err := im.uintVecs(ja, vec4, jointComponents, n)
		if err != nil {
			return fmt.Errorf("%s: %w", jn, err)
		}
		if wa >= 0 && wa < len(im.doc.Accessors) && im.doc.Accessors[wa].ComponentType != qgltf.ComponentFloat && !im.doc.Accessors[wa].Normalized {
			return fmt.Errorf("%s: accessor %d: integer weights must be normalized", wn, wa)
		}
		w, _, err := im.floats(wa, vec4, weightComponents, n)
		if err != nil {
			return fmt.Errorf("%s: %w", wn, err)
		}
		for i, v := range w {
			if v < 0 {
				return fmt.Errorf("%s: vertex %d: weight %v is negative", wn, i/4, v)
			}
		}
		sets = append(sets, set{j, w})
	}
	if len(sets) == 0 {
		return nil
	}
	lp.joints = make([][4]uint16, n)
	lp.weights = make([]mesh.Vec4, n)
	lp.maxJoint = -1
	pairs := make([]influence, 0, 4*len(sets))
	for v := 0; v < n; v++ {
		pairs = pairs[:0]
		for _, s := range sets {
			for c := 0; c < 4; c++ {
				pairs = append(pairs, influence{joint: uint16(s.joints[4*v+c]), weight: float64(s.weights[4*v+c])})
			}
		}
		j, w := influences(pairs)
		lp.joints[v], lp.weights[v] = j, w
		for c := 0; c < 4; c++ {
			if w[c] > 0 {
				lp.maxJoint = max(lp.maxJoint, int(j[c]))
			}
		}
	}
	return nil
}

// uintVecs decodes an unsigned, non-normalized integer accessor of the
// given types (JOINTS_n) into count × comps values, with sparse
// substitution.
func (im *importer) uintVecs(ai int, types []qgltf.AccessorType, cts []qgltf.ComponentType, maxCount int) ([]uint32, error) {
	l, err := im.layoutOf(ai, types, cts, maxCount)
	if err != nil {
		return nil, err
	}
	a := l.acc
	if a.Normalized {
		return nil, fmt.Errorf("accessor %d: joint indices must not be normalized", ai)
	}
	out := make([]uint32, a.Count*l.comps)
	fill := func(dst []uint32, src layout, row int) {
		e := src.data[row*src.stride:]
		for c := range dst {
			dst[c] = readUint(e[c*src.size:], a.ComponentType)
		}
	}
	if l.data != nil {
		for i := 0; i < a.Count; i++ {
			fill(out[i*l.comps:(i+1)*l.comps], l, i)
		}
	}
	if a.Sparse != nil {
		idx, vals, err := im.sparse(l)
		if err != nil {
			return nil, err
		}
		for k, i := range idx {
			fill(out[int(i)*l.comps:(int(i)+1)*l.comps], vals, k)
		}
	}
	return out, nil
}

// decodeMorphs reads the primitive's morph targets: POSITION and NORMAL
// deltas (other target attributes, such as TANGENT, are not carried).
// Names come from mesh m's extras.targetNames when it is an array of
// strings, else target_<i>. Every delta counts against the morph budget.
func (im *importer) decodeMorphs(m int, pr *qgltf.Primitive, lp *localPrim, n int) error {
	if len(pr.Targets) == 0 {
		return nil
	}
	names := targetNames(im.doc.Meshes[m])
	lp.morphs = make([]mesh.MorphTarget, len(pr.Targets))
	for t, attrs := range pr.Targets {
		mt := &lp.morphs[t]
		mt.Name = fmt.Sprintf("target_%d", t)
		if t < len(names) && names[t] != "" {
			mt.Name = names[t]
		}
		for _, name := range []string{"POSITION", "NORMAL"} {
			ai, ok := attrs[name]
			if !ok {
				continue
			}
			if ai >= 0 && ai < len(im.doc.Accessors) && im.doc.Accessors[ai].Count != n {
				return fmt.Errorf("target %d %s: accessor %d has %d elements, POSITION has %d", t, name, ai, im.doc.Accessors[ai].Count, n)
			}
			if n > im.morphLeft {
				return fmt.Errorf("target %d %s: scene exceeds %d morph deltas (Options.MaxVertices)", t, name, im.maxVerts)
			}
			v, _, err := im.floats(ai, vec3, vertexComponents, n)
			if err != nil {
				return fmt.Errorf("target %d %s: %w", t, name, err)
			}
			im.morphLeft -= n
			d := make([]mesh.Vec3, n)
			for i := range d {
				d[i] = mesh.Vec3{v[3*i], v[3*i+1], v[3*i+2]}
			}
			if name == "POSITION" {
				mt.Positions = d
			} else {
				mt.Normals = d
			}
		}
		if mt.Positions == nil {
			// a target with normal deltas only still moves nothing
			mt.Positions = make([]mesh.Vec3, n)
		}
	}
	return nil
}

// targetNames returns mesh extras.targetNames (the de-facto convention of
// Blender and three.js), or nil when absent or not an array of strings.
func targetNames(m *qgltf.Mesh) []string {
	ex, ok := m.Extras.(map[string]any)
	if !ok {
		return nil
	}
	arr, ok := ex["targetNames"].([]any)
	if !ok {
		return nil
	}
	names := make([]string, len(arr))
	for i, v := range arr {
		s, ok := v.(string)
		if !ok {
			return nil
		}
		names[i] = s
	}
	return names
}
