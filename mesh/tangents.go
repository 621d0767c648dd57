package mesh

// MikkTSpace-compatible tangents, written from the description in
//   M. S. Mikkelsen, "Simulation of Wrinkled Surfaces Revisited", 2008, and
//   the reference implementation's behaviour (mikktspace.c, genTangSpaceDefault).
//
// What "compatible" means here (same rules, not bit-exact floats):
//   - Corners are identified by (position, normal, UV0) equality, as
//     MikkTSpace's shared-vertex list; triangles with two equal corner
//     positions are degenerate and take no part in grouping.
//   - Per triangle: the UV-gradient tangent and bitangent directions, their
//     orientation (sign of the signed UV area) and whether the UV mapping is
//     usable at all. Triangles without a usable mapping "group with anything".
//   - Groups: the corners around one identified vertex that are connected
//     through shared edges (edges matched with opposite winding, first free
//     partner in triangle order) and have the same orientation. A
//     group-with-anything triangle adopts the orientation of the first
//     group that reaches it.
//   - Each group's tangent is the sum of its usable triangles' tangent
//     directions, each projected onto the vertex normal's plane (Gram-Schmidt)
//     and weighted by the corner angle measured in that plane; normalised.
//     With the default 180° angular threshold MikkTSpace's sub-groups are the
//     whole group, so there are none here.
//   - Sign: w = +1 for an orientation-preserving group, else -1, and the
//     bitangent is cross(normal, tangent.xyz) · w, as glTF specifies.
//
// UV origin: glTF UVs start top-left, MikkTSpace (like Blender) expects a
// bottom-left origin. The mapping is evaluated with v negated, which leaves
// tangent directions unchanged and flips the sign, as Blender's glTF I/O and
// three.js's computeMikkTSpaceTangents(…, negateSign = true) do. A plane
// with u along +X and v growing downward in the image gets w = +1.
//
// Where MikkTSpace would leave its placeholder (1,0,0) — corners of
// degenerate triangles, and of triangles with no usable mapping that no group
// reached — a corner takes the tangent of the first grouped corner of the
// same identified vertex, else an arbitrary unit perpendicular of the normal
// with w = +1. Every tangent is unit length, finite and orthogonal to its
// vertex normal.

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/meshcook/meshcook/internal/par"
)

// fltMin is C's FLT_MIN, MikkTSpace's threshold for "not zero".
const fltMin = 0x1p-126

// GenerateTangents replaces s.Tangents with MikkTSpace-compatible tangents
// computed from Positions, Normals and UV0 (see the notes at the top of
// tangents.go). Tangents are per corner, so a vertex whose corners get
// different tangents (a mirrored-UV seam) is split; Indices and the other
// streams are rewritten to match, in first-reference order, with
// unreferenced vertices dropped. It returns an error, leaving s unchanged,
// when s fails Validate or lacks UV0 or Normals.
func GenerateTangents(s *Submesh) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if s.UV0 == nil || s.Normals == nil {
		return fmt.Errorf("mesh: submesh %q: tangents need uv0 and normals", s.Name)
	}
	return generateTangents(context.Background(), s)
}

// generateTangents is GenerateTangents after its checks; a done ctx stops
// it between steps (s is then unchanged) with ctx's error.
func generateTangents(ctx context.Context, s *Submesh) error {
	corner, err := cornerTangents(ctx, s)
	if err != nil {
		return err
	}
	splitCorners(s, corner)
	s.Tangents = vec4s(corner, s)
	return nil
}

// triTangent is MikkTSpace's per-triangle information.
type triTangent struct {
	os       [3]float64 // unit tangent direction (dP/du), or zero
	orient   bool       // orientation preserving (signed UV area > 0)
	any      bool       // no usable mapping: joins any group
	degen    bool       // two corners share a position
	neighbor [3]int32   // triangle across edge k (corner k → k+1), or -1
}

// cornerTangents returns the tangent of every corner of a valid submesh that
// has UV0 and Normals. A done ctx stops it between steps with ctx's error.
func cornerTangents(ctx context.Context, s *Submesh) ([]Vec4, error) {
	nt := len(s.Indices) / 3
	id := identifyCorners(s)
	tris := make([]triTangent, nt)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}

	// Per-triangle mapping, in parallel chunks (each triangle its own).
	par.Ranges(nt, tangentsChunk, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			triMapping(s, t, &tris[t])
		}
	})
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}

	linkNeighbors(s, id, tris)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	group, groupOrient := buildGroups(id, tris)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}

	// Evaluate each group: angle-weighted sum of projected tangents. The
	// angles and projections are per corner, in parallel chunks; the sums
	// run in corner order, so they are the same bits on any core count.
	angle := make([]float64, len(group))
	proj := make([][3]float64, len(group))
	par.Ranges(len(group), 3*tangentsChunk, func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			t := c / 3
			if group[c] < 0 || tris[t].any {
				continue
			}
			k := c % 3
			n := unitOrZero(vec64(s.Normals[s.Indices[c]])) // unit already after Canonicalize
			os := tris[t].os
			os = sub64(os, scale64(n, dot64(n, os)))
			proj[c] = unitOrZero(os)
			p := vec64(s.Positions[s.Indices[c]])
			prev := vec64(s.Positions[s.Indices[3*t+(k+2)%3]])
			next := vec64(s.Positions[s.Indices[3*t+(k+1)%3]])
			v1, v2 := sub64(prev, p), sub64(next, p)
			v1 = unitOrZero(sub64(v1, scale64(n, dot64(n, v1))))
			v2 = unitOrZero(sub64(v2, scale64(n, dot64(n, v2))))
			angle[c] = math.Acos(math.Max(-1, math.Min(1, dot64(v1, v2))))
		}
	})
	sum := make([][3]float64, len(groupOrient))
	for c, g := range group {
		if g < 0 || tris[c/3].any {
			continue
		}
		for j := 0; j < 3; j++ {
			sum[g][j] += angle[c] * proj[c][j]
		}
	}
	angle, proj = nil, nil
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}

	// Resolve every corner: its group's tangent, else a borrowed one, else
	// a perpendicular; always re-orthogonalised against the float32 normal.
	out := make([]Vec4, len(s.Indices))
	par.Ranges(len(group), 3*tangentsChunk, func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			g := group[c]
			if g < 0 {
				continue
			}
			w := float32(-1)
			if groupOrient[g] {
				w = 1
			}
			out[c] = finishTangent(s.Normals[s.Indices[c]], sum[g], w)
		}
	})
	firstGrouped := make([]int32, len(s.Positions)) // by corner identity; ids < vertex count
	for i := range firstGrouped {
		firstGrouped[i] = -1
	}
	for c, g := range group {
		if g >= 0 && firstGrouped[id[c]] < 0 {
			firstGrouped[id[c]] = int32(c)
		}
	}
	par.Ranges(len(out), 3*tangentsChunk, func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			if group[c] >= 0 {
				continue
			}
			n := s.Normals[s.Indices[c]]
			if src := firstGrouped[id[c]]; src >= 0 {
				b := out[src]
				out[c] = finishTangent(n, [3]float64{float64(b[0]), float64(b[1]), float64(b[2])}, b[3])
			} else {
				p := perpendicular(n)
				out[c] = Vec4{p[0], p[1], p[2], 1}
			}
		}
	})
	return out, nil
}

// tangentsChunk is the triangle count of one parallel chunk.
const tangentsChunk = 1 << 14

// triMapping fills triangle t's MikkTSpace mapping (its neighbours are
// linked later).
func triMapping(s *Submesh, t int, ti *triTangent) {
	ti.neighbor = [3]int32{-1, -1, -1}
	i0, i1, i2 := s.Indices[3*t], s.Indices[3*t+1], s.Indices[3*t+2]
	q0, q1, q2 := s.Positions[i0], s.Positions[i1], s.Positions[i2]
	if q0 == q1 || q0 == q2 || q1 == q2 {
		ti.degen, ti.any = true, true
		return
	}
	p0, p1, p2 := vec64(q0), vec64(q1), vec64(q2)
	u0, u1, u2 := s.UV0[i0], s.UV0[i1], s.UV0[i2]
	t21x, t21y := float64(u1[0])-float64(u0[0]), -(float64(u1[1]) - float64(u0[1]))
	t31x, t31y := float64(u2[0])-float64(u0[0]), -(float64(u2[1]) - float64(u0[1]))
	d1, d2 := sub64(p1, p0), sub64(p2, p0)
	area := t21x*t31y - t21y*t31x
	var os, ot [3]float64
	for k := 0; k < 3; k++ {
		os[k] = t31y*d1[k] - t21y*d2[k]
		ot[k] = -t31x*d1[k] + t21x*d2[k]
	}
	ti.orient = area > 0
	ti.any = true
	lenOs, lenOt := len64(os), len64(ot)
	if !(math.Abs(area) > fltMin) || math.IsInf(area, 0) || math.IsInf(lenOs, 0) || math.IsInf(lenOt, 0) ||
		math.IsNaN(lenOs) || math.IsNaN(lenOt) {
		return
	}
	if lenOs > fltMin {
		sign := 1.0
		if !ti.orient {
			sign = -1
		}
		for k := range os {
			ti.os[k] = sign * os[k] / lenOs
		}
	}
	magS, magT := lenOs/math.Abs(area), lenOt/math.Abs(area)
	if magS > fltMin && magT > fltMin && !math.IsInf(magS, 0) && !math.IsInf(magT, 0) {
		ti.any = false
	}
}

func scale64(a [3]float64, k float64) [3]float64 { return [3]float64{a[0] * k, a[1] * k, a[2] * k} }

// unitOrZero normalises a, leaving it zero when MikkTSpace would (every
// component at most FLT_MIN in magnitude) or when it is not finite.
func unitOrZero(a [3]float64) [3]float64 {
	if !(math.Abs(a[0]) > fltMin || math.Abs(a[1]) > fltMin || math.Abs(a[2]) > fltMin) {
		return [3]float64{}
	}
	l := len64(a)
	if !(l > 0) || math.IsInf(l, 0) {
		return [3]float64{}
	}
	return [3]float64{a[0] / l, a[1] / l, a[2] / l}
}

// finishTangent orthogonalises t against n (Gram-Schmidt, in float64 on the
// stored float32 normal), normalises it and attaches w. A direction that
// does not survive becomes a perpendicular of n.
func finishTangent(n Vec3, t [3]float64, w float32) Vec4 {
	nn := vec64(n)
	if l := len64(nn); l > 0 && !math.IsInf(l, 0) {
		nn = scale64(nn, 1/l)
		t = sub64(t, scale64(nn, dot64(nn, t)))
	}
	l := len64(t)
	// Require the projected direction to be well above rounding noise of
	// the unit-scale inputs it came from.
	if !(l > 1e-6) || math.IsInf(l, 0) {
		p := perpendicular(n)
		return Vec4{p[0], p[1], p[2], w}
	}
	u := unit64(t[0], t[1], t[2])
	return Vec4{u[0], u[1], u[2], w}
}

// identifyCorners numbers corners by (position, normal, UV0) equality
// (+0 equals -0), in first-reference order, as MikkTSpace's welded list.
func identifyCorners(s *Submesh) []uint32 {
	type key [8]uint32
	bits := func(x float32) uint32 { return math.Float32bits(x + 0) }
	perVertex := make([]uint32, len(s.Positions))
	for i := range perVertex {
		perVertex[i] = math.MaxUint32
	}
	ids := make(map[key]uint32)
	out := make([]uint32, len(s.Indices))
	for c, v := range s.Indices {
		if perVertex[v] == math.MaxUint32 {
			p, n, uv := s.Positions[v], s.Normals[v], s.UV0[v]
			k := key{bits(p[0]), bits(p[1]), bits(p[2]), bits(n[0]), bits(n[1]), bits(n[2]), bits(uv[0]), bits(uv[1])}
			id, ok := ids[k]
			if !ok {
				id = uint32(len(ids))
				ids[k] = id
			}
			perVertex[v] = id
		}
		out[c] = perVertex[v]
	}
	return out
}

// linkNeighbors fills tris[].neighbor for non-degenerate triangles: edge
// a→b of triangle f pairs with the first unpaired edge b→a of a later
// triangle, triangles taken in order (MikkTSpace's BuildNeighbors rule).
func linkNeighbors(s *Submesh, id []uint32, tris []triTangent) {
	type edge struct {
		ab     uint64 // a<<32 | b: the directed edge a→b in corner identities
		corner int32  // 3·triangle + k, for the edge corner k → k+1
	}
	edges := make([]edge, 0, len(s.Indices))
	for t := range tris {
		if tris[t].degen {
			continue
		}
		for k := 0; k < 3; k++ {
			edges = append(edges, edge{uint64(id[3*t+k])<<32 | uint64(id[3*t+(k+1)%3]), int32(3*t + k)})
		}
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if c := cmp.Compare(x.ab, y.ab); c != 0 {
			return c
		}
		return cmp.Compare(x.corner, y.corner)
	})
	for t := range tris {
		if tris[t].degen {
			continue
		}
		for k := 0; k < 3; k++ {
			if tris[t].neighbor[k] >= 0 {
				continue
			}
			// Edges b→a, in triangle order.
			ba := uint64(id[3*t+(k+1)%3])<<32 | uint64(id[3*t+k])
			i, _ := slices.BinarySearchFunc(edges, ba, func(e edge, key uint64) int { return cmp.Compare(e.ab, key) })
			for ; i < len(edges) && edges[i].ab == ba; i++ {
				u, j := int(edges[i].corner/3), int(edges[i].corner%3)
				if u > t && tris[u].neighbor[j] < 0 {
					tris[t].neighbor[k] = int32(u)
					tris[u].neighbor[j] = int32(t)
					break
				}
			}
		}
	}
}

// buildGroups assigns corners of non-degenerate triangles to groups
// (MikkTSpace's Build4RuleGroups and AssignRecur, with an explicit stack).
// It returns each corner's group (-1 for none) and each group's
// orientation; it may set tris[].orient of group-with-anything triangles.
func buildGroups(id []uint32, tris []triTangent) ([]int32, []bool) {
	group := make([]int32, 3*len(tris))
	for i := range group {
		group[i] = -1
	}
	var orient []bool
	var stack []int32
	for f := range tris {
		if tris[f].any {
			continue
		}
		for i := 0; i < 3; i++ {
			if group[3*f+i] >= 0 {
				continue
			}
			g := int32(len(orient))
			vert, gOrient := id[3*f+i], tris[f].orient
			orient = append(orient, gOrient)
			group[3*f+i] = g
			// Visit the neighbour across edge i, then across edge i-1, each
			// depth first, as the recursive reference does.
			stack = append(stack[:0], tris[f].neighbor[(i+2)%3], tris[f].neighbor[i])
			for len(stack) > 0 {
				t := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if t < 0 {
					continue
				}
				ti := &tris[t]
				k := 0
				for k < 3 && id[3*int(t)+k] != vert {
					k++
				}
				if k == 3 || group[3*int(t)+k] >= 0 {
					continue // already in this group, or claimed by another
				}
				if ti.any && group[3*t] < 0 && group[3*t+1] < 0 && group[3*t+2] < 0 {
					ti.orient = gOrient // first group to reach it decides
				}
				if ti.orient != gOrient {
					continue
				}
				group[3*int(t)+k] = g
				stack = append(stack, ti.neighbor[(k+2)%3], ti.neighbor[k])
			}
		}
	}
	return group, orient
}
