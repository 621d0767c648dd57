package payload

import (
	"fmt"
	"math"
	"strconv"
)

// Helpers for the cook: the conversions formats.md §3 prescribes for
// building payloads from the canonical model. Float work is done in float64
// with every product rounded explicitly (float64(a*b)), so no fused
// multiply-add changes a result between architectures.

// EulerYXZDegrees converts a rotation quaternion (x, y, z, w) into the
// payload's rotation_deg [pitch, yaw, roll], per formats.md: normalise, take
// the rotation matrix m (m[c][r], column-major), pitch = atan2(−m[2][1],
// √(m[2][0]² + m[2][2]²)); when that root exceeds 1e-4, yaw =
// atan2(m[2][0], m[2][2]) and roll = atan2(m[0][1], m[1][1]); otherwise
// (gimbal lock) yaw = atan2(sin(pitch)·m[1][0], m[0][0]) and roll = 0.
// The rotation is R = Ry(yaw)·Rx(pitch)·Rz(roll). A zero or non-finite
// quaternion gives [0, 0, 0].
func EulerYXZDegrees(q [4]float32) [3]float32 {
	x, y, z, w := float64(q[0]), float64(q[1]), float64(q[2]), float64(q[3])
	n := math.Sqrt(float64(x*x) + float64(y*y) + float64(z*z) + float64(w*w))
	if !(n > 0) || math.IsInf(n, 0) {
		return [3]float32{}
	}
	x, y, z, w = x/n, y/n, z/n, w/n
	// Matrix entries named m<column><row>.
	m00 := 1 - 2*(float64(y*y)+float64(z*z))
	m10 := 2 * (float64(x*y) - float64(z*w))
	m20 := 2 * (float64(x*z) + float64(y*w))
	m01 := 2 * (float64(x*y) + float64(z*w))
	m11 := 1 - 2*(float64(x*x)+float64(z*z))
	m21 := 2 * (float64(y*z) - float64(x*w))
	m22 := 1 - 2*(float64(x*x)+float64(y*y))

	root := math.Sqrt(float64(m20*m20) + float64(m22*m22))
	pitch := math.Atan2(-m21, root)
	var yaw, roll float64
	if root > 1e-4 {
		yaw = math.Atan2(m20, m22)
		roll = math.Atan2(m01, m11)
	} else {
		yaw = math.Atan2(float64(math.Sin(pitch)*m10), m00)
	}
	const deg = 180 / math.Pi
	return [3]float32{float32(pitch * deg), float32(yaw * deg), float32(roll * deg)}
}

// ReorderJoints returns the joints reordered so that every parent precedes
// its children, and remap[old] = new index. The order is stable: joints
// already parents-first keep their order (remap is the identity), and
// otherwise each joint is placed right after the first emission of its
// missing ancestors, scanning in the original order. Parent fields are
// rewritten to the new indices. A parent out of range or a cycle is an
// error. Remap vertex joint indices with RemapVertexJoints.
func ReorderJoints(joints []Joint) ([]Joint, []int, error) {
	n := len(joints)
	const (
		unseen = iota
		onPath
		placed
	)
	state := make([]uint8, n)
	remap := make([]int, n)
	order := make([]int, 0, n)
	var path []int
	for i := range joints {
		path = path[:0]
		j := i
		for j != -1 && state[j] == unseen {
			state[j] = onPath
			path = append(path, j)
			p := joints[j].Parent
			if p < -1 || int(p) >= n {
				return nil, nil, fmt.Errorf("payload: joint %d (%q): parent %d out of range [-1, %d)", j, joints[j].Name, p, n)
			}
			j = int(p)
		}
		if j != -1 && state[j] == onPath {
			return nil, nil, fmt.Errorf("payload: joint %d (%q): parent cycle", j, joints[j].Name)
		}
		for k := len(path) - 1; k >= 0; k-- {
			remap[path[k]] = len(order)
			order = append(order, path[k])
			state[path[k]] = placed
		}
	}
	out := make([]Joint, n)
	for newI, oldI := range order {
		out[newI] = joints[oldI]
		if p := joints[oldI].Parent; p >= 0 {
			out[newI].Parent = int32(remap[p])
		}
	}
	return out, remap, nil
}

// RemapVertexJoints rewrites every vertex's joint indices through remap
// (from ReorderJoints). An index outside remap is an error and leaves the
// vertices partly rewritten.
func RemapVertexJoints(vertices []SkinnedVertex, remap []int) error {
	for i := range vertices {
		for k, j := range vertices[i].Joints {
			if int(j) >= len(remap) {
				return fmt.Errorf("payload: vertex %d: joint %d past joint count %d", i, j, len(remap))
			}
			vertices[i].Joints[k] = uint16(remap[j])
		}
	}
	return nil
}

// NormalizeWeights divides skin weights by their sum when it exceeds 1e-6,
// else binds the vertex rigidly to its first joint: [1, 0, 0, 0].
func NormalizeWeights(w [4]float32) [4]float32 {
	s := float64(w[0]) + float64(w[1]) + float64(w[2]) + float64(w[3])
	if !(s > 1e-6) || math.IsInf(s, 0) {
		return [4]float32{1, 0, 0, 0}
	}
	return [4]float32{float32(float64(w[0]) / s), float32(float64(w[1]) / s), float32(float64(w[2]) / s), float32(float64(w[3]) / s)}
}

// DefaultSwitchDistance is the engine's default distance for LOD level k
// (k ≥ 1; smaller k is treated as 1) of a mesh with bounding radius r (half
// its AABB diagonal, HalfDiagonal): max(r, 0.25) × 12 × 2^(k−1). Distances
// ascend with k.
func DefaultSwitchDistance(r float32, k int) float32 {
	rr := float64(r)
	if !(rr > 0.25) {
		rr = 0.25
	}
	return float32(math.Ldexp(rr*12, max(k, 1)-1))
}

// HalfDiagonal returns half the length of the AABB's diagonal, the radius r
// of DefaultSwitchDistance.
func HalfDiagonal(min, max [3]float32) float32 {
	dx := float64(max[0]) - float64(min[0])
	dy := float64(max[1]) - float64(min[1])
	dz := float64(max[2]) - float64(min[2])
	return float32(0.5 * math.Sqrt(float64(dx*dx)+float64(dy*dy)+float64(dz*dz)))
}

// Bounds returns the min and max of the vertex positions (zeros for no
// vertices): the AABB of a MeshBoundsRecord and the input of HalfDiagonal.
func Bounds(vertices []Vertex) (min, max [3]float32) {
	if len(vertices) == 0 {
		return min, max
	}
	min, max = vertices[0].Position, vertices[0].Position
	for i := range vertices[1:] {
		p := vertices[i+1].Position
		for k := range 3 {
			if p[k] < min[k] {
				min[k] = p[k]
			}
			if p[k] > max[k] {
				max[k] = p[k]
			}
		}
	}
	return min, max
}

// SparsifyMorphs turns dense morph targets into the MRPS block:
// dense[t][v] is target t's delta for vertex v (every dense[t] must have
// vertexCount entries). Entries are vertex-major with targets ascending,
// and a delta is kept only when some component's magnitude exceeds
// MorphDeltaEpsilon. Non-finite deltas are an error. With no targets it
// returns nil (no MRPS block). len(names) must equal len(dense).
func SparsifyMorphs(names []string, dense [][]MorphDelta, vertexCount int) (*Morphs, error) {
	if len(names) != len(dense) {
		return nil, fmt.Errorf("payload: %d morph target names for %d targets", len(names), len(dense))
	}
	if len(dense) == 0 {
		return nil, nil
	}
	for t, d := range dense {
		if len(d) != vertexCount {
			return nil, fmt.Errorf("payload: morph target %d (%q): %d deltas for %d vertices", t, names[t], len(d), vertexCount)
		}
	}
	m := &Morphs{Targets: append([]string(nil), names...), Offsets: make([]uint32, vertexCount+1)}
	for v := 0; v < vertexCount; v++ {
		for t := range dense {
			d := dense[t][v]
			if !finite32(d.Position[:]...) || !finite32(d.Normal[:]...) {
				return nil, fmt.Errorf("payload: morph target %d (%q): vertex %d delta not finite", t, names[t], v)
			}
			if aboveEpsilon(d) {
				m.Entries = append(m.Entries, MorphEntry{Target: uint32(t), Position: d.Position, Normal: d.Normal})
			}
		}
		if uint64(len(m.Entries)) > math.MaxUint32 {
			return nil, fmt.Errorf("payload: more than 2^32-1 morph entries")
		}
		m.Offsets[v+1] = uint32(len(m.Entries))
	}
	return m, nil
}

// Chunk is one piece of a mesh split for u16 indices: Vertices lists the
// original vertex index of each chunk vertex (first-use order), and Indices
// is the chunk's triangle list in chunk-local u16 indices.
type Chunk struct {
	Vertices []uint32
	Indices  []uint16
}

// NeedsSplit reports whether a mesh with vertexCount vertices is split into
// chunks: the engine's cook splits above 65,535 vertices.
func NeedsSplit(vertexCount int) bool { return vertexCount > math.MaxUint16 }

// ChunkName is the stable name of chunk k of primitive prim of mesh name:
// "<name>_prim_<prim>_chunk_<k>".
func ChunkName(name string, prim, k int) string {
	return name + "_prim_" + strconv.Itoa(prim) + "_chunk_" + strconv.Itoa(k)
}

// SplitChunks splits a triangle list over vertexCount vertices into chunks
// of at most MaxChunkVertices vertices, greedily in triangle order: a
// triangle goes to the current chunk unless its vertices not yet in the
// chunk would push it past the limit, in which case a new chunk starts.
// Vertices shared across a chunk boundary are duplicated; unreferenced
// vertices appear in no chunk. Triangle order is kept. len(indices) must be
// a multiple of 3 and every index below vertexCount. No indices, no chunks.
func SplitChunks(indices []uint32, vertexCount int) ([]Chunk, error) {
	if len(indices)%3 != 0 {
		return nil, fmt.Errorf("payload: split: index count %d is not a multiple of 3", len(indices))
	}
	if vertexCount < 0 {
		return nil, fmt.Errorf("payload: split: negative vertex count %d", vertexCount)
	}
	maxIndex := -1
	for i, x := range indices {
		if uint64(x) >= uint64(vertexCount) {
			return nil, fmt.Errorf("payload: split: index %d at %d not below vertex count %d", x, i, vertexCount)
		}
		maxIndex = max(maxIndex, int(x))
	}
	// owner[v] is 1 + the chunk that last took v; local[v] its index there.
	// Sized by the indices, not vertexCount, so a large count costs nothing.
	owner := make([]int32, maxIndex+1)
	local := make([]uint16, maxIndex+1)
	var chunks []Chunk
	var cur *Chunk
	for t := 0; t < len(indices); t += 3 {
		tri := indices[t : t+3]
		fresh := 0
		if cur != nil {
			id := int32(len(chunks))
			for k, v := range tri {
				if owner[v] != id && (k == 0 || v != tri[0]) && (k < 2 || v != tri[1]) {
					fresh++
				}
			}
		}
		if cur == nil || len(cur.Vertices)+fresh > MaxChunkVertices {
			chunks = append(chunks, Chunk{})
			cur = &chunks[len(chunks)-1]
		}
		id := int32(len(chunks))
		for _, v := range tri {
			if owner[v] != id {
				owner[v] = id
				local[v] = uint16(len(cur.Vertices))
				cur.Vertices = append(cur.Vertices, v)
			}
			cur.Indices = append(cur.Indices, local[v])
		}
	}
	return chunks, nil
}
