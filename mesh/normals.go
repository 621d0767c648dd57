package mesh

// Smooth vertex normals, weighted by corner angle:
//   G. Thürmer, C. A. Wüthrich, "Computing Vertex Normals from Polygonal
//   Facets", Journal of Graphics Tools 3(1), 1998.
//
// glTF says a primitive without normals should be shaded flat; meshcook
// generates smooth normals instead (an authored source that wants hard edges
// carries its own normals).
//
// Weighting: each triangle adds its unit face normal times its interior
// angle at the corner, and nothing for its area. Angle weights depend only
// on the shape of the surface around the vertex, not on how it was
// triangulated: splitting a face into more triangles splits its angle and
// leaves the normal unchanged, while area weighting would let one long
// sliver or one big triangle dominate. A cube's corner gets exactly the
// diagonal whichever way its faces are split.
//
// Grouping: contributions are summed per position (float equality, so +0
// and -0 share), not per vertex, so vertices split only by a UV or colour
// seam get the same normal and the seam does not show in shading.
//
// Fallbacks, per corner, so every normal is unit length and finite:
//  1. the position's weighted sum, when it is longer than cancelRatio of the
//     summed weights;
//  2. otherwise the faces around the position (nearly) cancel, as on a
//     double-sided sheet whose back faces reuse the front's positions: the
//     corner takes its own triangle's face normal, which splits the vertex;
//  3. when that triangle has no usable face normal either, +Y (as the
//     static payload format's writer does for degenerate normals).

import (
	"math"

	"github.com/meshcook/meshcook/internal/par"
)

const (
	// degenerateFaceRatio: a triangle whose height is under this fraction
	// of its longest edge has no usable face normal (float32 positions put
	// ~6e-8 relative noise in it, so at 1e-6 the direction is still good
	// to a few hundredths of a degree).
	degenerateFaceRatio = 1e-6
	// cancelRatio: a weighted normal sum shorter than this fraction of its
	// total weight means opposing faces cancelled out.
	cancelRatio = 1e-3
)

// GenerateNormals replaces s.Normals with smooth, angle-weighted normals
// accumulated per position (see the notes at the top of normals.go). A
// vertex is split only where its corners need different normals (opposing
// faces at one position); Indices and the other streams are rewritten to
// match, in first-reference order, with unreferenced vertices dropped.
// Every normal is unit length and finite. Stored tangents are kept as they
// are. A submesh that fails Validate is left unchanged.
func GenerateNormals(s *Submesh) {
	if s.Validate() != nil {
		return
	}
	generateNormals(s)
}

// generateNormals is GenerateNormals on a valid submesh; it returns new
// vertex → old vertex.
func generateNormals(s *Submesh) []uint32 {
	gen := cornerNormals(s)
	corner := make([]Vec4, len(gen))
	for c, n := range gen {
		corner[c] = Vec4{n[0], n[1], n[2], 0}
	}
	src := splitCorners(s, corner)
	s.Normals = vec3s(corner, s)
	return src
}

// posKey is a position's bits with -0 made +0, so equal positions share it.
func posKey(p Vec3) [3]uint32 {
	return [3]uint32{math.Float32bits(p[0] + 0), math.Float32bits(p[1] + 0), math.Float32bits(p[2] + 0)}
}

func vec64(p Vec3) [3]float64 { return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])} }

func sub64(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

func dot64(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func cross64(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func len64(a [3]float64) float64 { return math.Sqrt(dot64(a, a)) }

// cornerNormals returns the generated normal of every corner of a valid
// submesh (one per entry of Indices).
func cornerNormals(s *Submesh) []Vec3 {
	// Position groups, numbered in first-reference order.
	posID := make([]int32, len(s.Positions))
	for i := range posID {
		posID[i] = -1
	}
	ids := make(map[[3]uint32]int32)
	for _, v := range s.Indices {
		if posID[v] < 0 {
			k := posKey(s.Positions[v])
			id, ok := ids[k]
			if !ok {
				id = int32(len(ids))
				ids[k] = id
			}
			posID[v] = id
		}
	}

	// Face normals and corner angles per triangle, in parallel chunks;
	// then angle × unit face normal accumulated per position in triangle
	// order (the same sums, bit for bit, on any core count).
	nt := len(s.Indices) / 3
	face := make([][3]float64, nt)
	faceOK := make([]bool, nt)
	angles := make([][3]float64, nt)
	par.Ranges(nt, normalsChunk, func(_, lo, hi int) {
		for t := lo; t < hi; t++ {
			i0, i1, i2 := s.Indices[3*t], s.Indices[3*t+1], s.Indices[3*t+2]
			p0, p1, p2 := vec64(s.Positions[i0]), vec64(s.Positions[i1]), vec64(s.Positions[i2])
			e01, e02, e12 := sub64(p1, p0), sub64(p2, p0), sub64(p2, p1)
			cr := cross64(e01, e02)
			a2 := len64(cr) // twice the area
			longest := math.Max(dot64(e01, e01), math.Max(dot64(e02, e02), dot64(e12, e12)))
			if !(a2 > degenerateFaceRatio*longest) || math.IsInf(a2, 0) {
				continue // no trustworthy direction (also catches NaN)
			}
			face[t], faceOK[t] = [3]float64{cr[0] / a2, cr[1] / a2, cr[2] / a2}, true
			// Interior angles; atan2 stays accurate near 0 and π where acos
			// does not. |cross| is the same 2·area at every corner.
			angles[t] = [3]float64{
				math.Atan2(a2, dot64(e01, e02)),
				math.Atan2(a2, -dot64(e01, e12)),
				math.Atan2(a2, dot64(e02, e12)),
			}
		}
	})
	acc := make([][3]float64, len(ids))
	weight := make([]float64, len(ids))
	for t := 0; t < nt; t++ {
		if !faceOK[t] {
			continue
		}
		n := face[t]
		for k, v := range s.Indices[3*t : 3*t+3] {
			id := posID[v]
			for j := 0; j < 3; j++ {
				acc[id][j] += angles[t][k] * n[j]
			}
			weight[id] += angles[t][k]
		}
	}

	// Resolve each corner, with the fallbacks.
	out := make([]Vec3, len(s.Indices))
	par.Ranges(len(s.Indices), 3*normalsChunk, func(_, lo, hi int) {
		for c := lo; c < hi; c++ {
			id := posID[s.Indices[c]]
			sum := acc[id]
			switch l := len64(sum); {
			case weight[id] > 0 && l > cancelRatio*weight[id]:
				out[c] = unit64(sum[0], sum[1], sum[2])
			case faceOK[c/3]:
				f := face[c/3]
				out[c] = unit64(f[0], f[1], f[2])
			default:
				out[c] = Vec3{0, 1, 0}
			}
		}
	})
	return out
}

// normalsChunk is the triangle count of one parallel chunk.
const normalsChunk = 1 << 14
