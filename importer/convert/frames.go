package convert

// Normal and tangent frames of nwb.md §3.
//
// Tangents are rebuilt per vertex_ref, the unit the .nwb file stores: the
// corners that will share a vertex_ref (same position, normal, uv0, colour
// and influences as written) pool the UV gradients of their triangles,
// following E. Lengyel, "Computing Tangent Space Basis Vectors for an
// Arbitrary Mesh" (2001), with each triangle weighted by its geometric and
// UV extent instead of divided by its UV area, so slivers in UV space do not
// dominate. The pooled tangent is made orthogonal to the normal
// (Gram-Schmidt); where nothing usable was pooled (no uv0, a degenerate
// mapping, a tangent parallel to the normal) the frame falls back to
// normalize(cross(axis, n)) with axis Z, or Y when |n.z| ≥ 0.999, and w = +1.
//
// Handedness: UVs have a top-left origin (glTF's, and what importer/fbx
// gives), so the gradients are taken with v negated, as mesh.GenerateTangents
// (MikkTSpace with Blender's and three.js's sign convention) does: a plane
// with u along +X and v growing downward in the image gets w = +1.

import (
	"math"

	"github.com/meshcook/meshcook/mesh"
)

// quant is the value the .nwb writer prints for f, as bits: |f| < 1e-8 is
// 0 (which also merges -0 with +0). FromScene shares stream entries by the
// same key.
func quant(f float32) uint32 {
	if f < 1e-8 && f > -1e-8 {
		return 0
	}
	return math.Float32bits(f)
}

func posKey(p mesh.Vec3) [3]uint32 { return [3]uint32{quant(p[0]), quant(p[1]), quant(p[2])} }

// regenerateNormals gives every triangle its own three vertices carrying
// its face normal ((0, 0, 1) when it has none).
func regenerateNormals(s *mesh.Submesh) {
	n := len(s.Indices)
	out := mesh.Submesh{Name: s.Name, Material: s.Material, Positions: make([]mesh.Vec3, n), Normals: make([]mesh.Vec3, n)}
	if s.Tangents != nil {
		out.Tangents = make([]mesh.Vec4, n)
	}
	out.UV0 = make([]mesh.Vec2, n)
	out.Colors = make([]mesh.Vec4, n)
	if s.Joints != nil {
		out.Joints = make([][4]uint16, n)
		out.Weights = make([]mesh.Vec4, n)
	}
	out.Indices = make([]uint32, n)
	for t := 0; t+2 < n; t += 3 {
		a, b, c := s.Indices[t], s.Indices[t+1], s.Indices[t+2]
		f := faceCross(s.Positions[a], s.Positions[b], s.Positions[c])
		fn := unitOrZ(f[0], f[1], f[2])
		for k, v := range []uint32{a, b, c} {
			i := t + k
			out.Indices[i] = uint32(i)
			out.Positions[i] = s.Positions[v]
			out.Normals[i] = fn
			if s.Tangents != nil {
				out.Tangents[i] = s.Tangents[v]
			}
			out.UV0[i] = s.UV0[v]
			out.Colors[i] = s.Colors[v]
			if s.Joints != nil {
				out.Joints[i], out.Weights[i] = s.Joints[v], s.Weights[v]
			}
		}
	}
	*s = out
}

// smoothNormals sets area-weighted smooth normals: every triangle of every
// submesh adds (b−a)×(c−a) to its three corners' positions (by output
// value), and each vertex takes its position's normalised sum ((0, 0, 1)
// when it is zero). Only submeshes with only[k] set are changed (all when
// only is nil); every submesh contributes.
func smoothNormals(subs []mesh.Submesh, only []bool) {
	sums := map[[3]uint32][3]float64{}
	for k := range subs {
		s := &subs[k]
		for t := 0; t+2 < len(s.Indices); t += 3 {
			a, b, c := s.Indices[t], s.Indices[t+1], s.Indices[t+2]
			f := faceCross(s.Positions[a], s.Positions[b], s.Positions[c])
			for _, v := range []uint32{a, b, c} {
				key := posKey(s.Positions[v])
				sum := sums[key]
				sums[key] = [3]float64{sum[0] + f[0], sum[1] + f[1], sum[2] + f[2]}
			}
		}
	}
	for k := range subs {
		if only != nil && !only[k] {
			continue
		}
		s := &subs[k]
		s.Normals = make([]mesh.Vec3, len(s.Positions))
		for v, p := range s.Positions {
			sum := sums[posKey(p)]
			s.Normals[v] = unitOrZ(sum[0], sum[1], sum[2])
		}
	}
}

// importedTangentsUsable reports whether every vertex of every submesh has
// an imported tangent (finite, non-zero xyz, w = ±1), and if so
// normalises them.
func importedTangentsUsable(subs []mesh.Submesh) bool {
	for k := range subs {
		s := &subs[k]
		if s.Tangents == nil {
			return false
		}
		for _, t := range s.Tangents {
			l := t[0]*t[0] + t[1]*t[1] + t[2]*t[2]
			if !finite(t[:]...) || !(l > 0) || (t[3] != 1 && t[3] != -1) {
				return false
			}
		}
	}
	for k := range subs {
		for v, t := range subs[k].Tangents {
			u := unitOrZ(float64(t[0]), float64(t[1]), float64(t[2]))
			subs[k].Tangents[v] = mesh.Vec4{u[0], u[1], u[2], t[3]}
		}
	}
	return true
}

// refKey identifies the vertex_ref a vertex will be written as.
type refKey struct {
	p, n    [3]uint32
	uv      [2]uint32
	c       [4]uint32
	joints  [4]uint16
	weights [4]uint32
}

func vertexKey(s *mesh.Submesh, v uint32) refKey {
	var k refKey
	k.p = posKey(s.Positions[v])
	k.n = posKey(s.Normals[v])
	k.uv = [2]uint32{quant(s.UV0[v][0]), quant(s.UV0[v][1])}
	for c := range 4 {
		k.c[c] = quant(s.Colors[v][c])
	}
	if s.Joints != nil {
		k.joints = s.Joints[v]
		for c := range 4 {
			k.weights[c] = quant(s.Weights[v][c])
		}
	}
	return k
}

// generateTangents replaces every submesh's tangents with frames rebuilt
// per vertex_ref (see the file comment) and returns how many vertex_refs
// got a UV-derived frame and how many the fallback frame.
func generateTangents(subs []mesh.Submesh) (uvFrames, fallback int) {
	type acc struct{ t, b [3]float64 }
	sums := map[refKey]*acc{}
	var order []refKey // first use, so the result does not depend on map order
	get := func(k refKey) *acc {
		a := sums[k]
		if a == nil {
			a = &acc{}
			sums[k] = a
			order = append(order, k)
		}
		return a
	}
	for k := range subs {
		s := &subs[k]
		for t := 0; t+2 < len(s.Indices); t += 3 {
			idx := [3]uint32{s.Indices[t], s.Indices[t+1], s.Indices[t+2]}
			tan, bit, ok := uvGradient(s, idx)
			for _, v := range idx {
				a := get(vertexKey(s, v))
				if ok {
					for c := range 3 {
						a.t[c] += tan[c]
						a.b[c] += bit[c]
					}
				}
			}
		}
	}
	frames := make(map[refKey]mesh.Vec4, len(order))
	for _, key := range order {
		a := sums[key]
		n := [3]float64{float64(math.Float32frombits(key.n[0])), float64(math.Float32frombits(key.n[1])), float64(math.Float32frombits(key.n[2]))}
		f, ok := orthoFrame(n, a.t, a.b)
		if ok {
			uvFrames++
		} else {
			fallback++
		}
		frames[key] = f
	}
	for k := range subs {
		s := &subs[k]
		s.Tangents = make([]mesh.Vec4, len(s.Positions))
		for v := range s.Positions {
			if f, ok := frames[vertexKey(s, uint32(v))]; ok {
				s.Tangents[v] = f
			} else {
				// Not used by any triangle: never written; any unit frame.
				s.Tangents[v] = fallbackFrame([3]float64{float64(s.Normals[v][0]), float64(s.Normals[v][1]), float64(s.Normals[v][2])})
			}
		}
	}
	return uvFrames, fallback
}

// uvGradient returns a triangle's tangent (dP/du) and bitangent (dP/dv,
// v negated) scaled by |UV area|, or ok false when its mapping is
// degenerate.
func uvGradient(s *mesh.Submesh, idx [3]uint32) (t, b [3]float64, ok bool) {
	p0, p1, p2 := s.Positions[idx[0]], s.Positions[idx[1]], s.Positions[idx[2]]
	w0, w1, w2 := s.UV0[idx[0]], s.UV0[idx[1]], s.UV0[idx[2]]
	var e1, e2 [3]float64
	for c := range 3 {
		e1[c] = float64(p1[c]) - float64(p0[c])
		e2[c] = float64(p2[c]) - float64(p0[c])
	}
	du1, dv1 := float64(w1[0])-float64(w0[0]), -(float64(w1[1]) - float64(w0[1]))
	du2, dv2 := float64(w2[0])-float64(w0[0]), -(float64(w2[1]) - float64(w0[1]))
	r := du1*dv2 - du2*dv1
	if r == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return t, b, false
	}
	sign := 1.0
	if r < 0 {
		sign = -1
	}
	for c := range 3 {
		t[c] = (e1[c]*dv2 - e2[c]*dv1) * sign
		b[c] = (e2[c]*du1 - e1[c]*du2) * sign
	}
	return t, b, true
}

// orthoFrame makes the pooled tangent t orthogonal to n and gives it the
// handedness of b; ok is false (and the frame the fallback) when nothing
// usable remains.
func orthoFrame(n, t, b [3]float64) (mesh.Vec4, bool) {
	d := dot(n, t)
	o := [3]float64{t[0] - n[0]*d, t[1] - n[1]*d, t[2] - n[2]*d}
	lo, lt := math.Sqrt(dot(o, o)), math.Sqrt(dot(t, t))
	if !(lo > 1e-9*lt) || lt == 0 || math.IsInf(lt, 0) || math.IsNaN(lo) {
		return fallbackFrame(n), false
	}
	w := float32(1)
	if dot(cross(n, o), b) < 0 {
		w = -1
	}
	u := unitOrZ(o[0], o[1], o[2])
	return mesh.Vec4{u[0], u[1], u[2], w}, true
}

// fallbackFrame is normalize(cross(axis, n)), axis Z unless |n.z| ≥ 0.999
// then Y, with w = +1.
func fallbackFrame(n [3]float64) mesh.Vec4 {
	axis := [3]float64{0, 0, 1}
	if math.Abs(n[2]) >= 0.999 {
		axis = [3]float64{0, 1, 0}
	}
	c := cross(axis, n)
	l := math.Sqrt(dot(c, c))
	if !(l > 0) || math.IsInf(l, 0) {
		return mesh.Vec4{1, 0, 0, 1}
	}
	return mesh.Vec4{float32(c[0] / l), float32(c[1] / l), float32(c[2] / l), 1}
}
