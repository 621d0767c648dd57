package gltf

import (
	"errors"
	"fmt"
	"math"
	"slices"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/mesh"
)

// maxJoints is the most joints a skeleton may have: skin streams hold joint
// indices as u16.
const maxJoints = 1 << 16

// skinInfo is the exported skin (glTF skin 0) after reordering: joint j of
// the Skeleton is node jointNode[j].
type skinInfo struct {
	skel      *mesh.Skeleton
	jointNode []int
	jointOf   map[int]int // node → exported joint index
	perm      []int       // skin.joints position → exported joint index
	// offset[j] is the transform from joint j's exported parent space to its
	// node's parent space (the non-joint nodes in between, or above a root);
	// nil when it is the identity, as it is for a joint whose node parent is
	// its joint parent.
	offset []*mesh.Mat4
	// exact[j] is false when offset[j] has shear or a non-uniform scale, so
	// that animated TRS values cannot carry it exactly.
	exact []bool
}

// skeleton builds the exported skin from glTF skin 0, or returns nil when
// the document has no skins.
//
// Joints keep skin.joints order unless a joint's parent comes after it;
// then they are reordered so that every parent precedes its children (a
// stable depth-first order: each joint as late as skin order puts it, after
// its ancestors), and JOINTS values and channels are remapped to match.
// A joint's parent is its nearest node ancestor that is also a joint of the
// skin. Its bind-pose TRS is relative to that parent: the node's own TRS
// (a matrix is decomposed) composed with any non-joint nodes in between;
// for a root it includes every node above it, so that chaining the TRS
// down the skeleton reproduces the glTF joint world matrices.
func (im *importer) skeleton(parent []int) (*skinInfo, error) {
	doc := im.doc
	if len(doc.Skins) == 0 {
		return nil, nil
	}
	skin := doc.Skins[0]
	if skin == nil {
		return nil, errors.New("skins[0] is null")
	}
	n := len(skin.Joints)
	if n == 0 || n > maxJoints {
		return nil, fmt.Errorf("skin 0: %d joints, want 1..%d", n, maxJoints)
	}
	pos := make(map[int]int, n) // node → skin.joints position
	for i, node := range skin.Joints {
		if node < 0 || node >= len(doc.Nodes) {
			return nil, fmt.Errorf("skin 0: joint %d: node %d does not exist", i, node)
		}
		if _, dup := pos[node]; dup {
			return nil, fmt.Errorf("skin 0: node %d is listed twice in joints", node)
		}
		pos[node] = i
	}
	// source parents: nearest ancestor that is a joint
	srcParent := make([]int, n)
	for i, node := range skin.Joints {
		srcParent[i] = -1
		for p := parent[node]; p >= 0; p = parent[p] {
			if j, ok := pos[p]; ok {
				srcParent[i] = j
				break
			}
		}
	}
	perm := parentsFirst(srcParent)

	// inverse bind matrices (identity when absent)
	ibm := make([][16]float32, n)
	if skin.InverseBindMatrices != nil {
		ai := *skin.InverseBindMatrices
		if ai >= 0 && ai < len(doc.Accessors) && doc.Accessors[ai].Count != n {
			return nil, fmt.Errorf("skin 0: inverseBindMatrices accessor %d has %d elements, skin has %d joints", ai, doc.Accessors[ai].Count, n)
		}
		v, _, err := im.floats(ai, []qgltf.AccessorType{qgltf.AccessorMat4}, []qgltf.ComponentType{qgltf.ComponentFloat}, n)
		if err != nil {
			return nil, fmt.Errorf("skin 0: inverseBindMatrices: %w", err)
		}
		for i := range ibm {
			copy(ibm[i][:], v[16*i:16*i+16])
		}
	} else {
		for i := range ibm {
			ibm[i] = [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
		}
	}

	world := im.worlds(parent)
	si := &skinInfo{
		skel:      &mesh.Skeleton{Joints: make([]mesh.Joint, n)},
		jointNode: make([]int, n),
		jointOf:   make(map[int]int, n),
		perm:      perm,
		offset:    make([]*mesh.Mat4, n),
		exact:     make([]bool, n),
	}
	for i, node := range skin.Joints {
		j := perm[i]
		si.jointNode[j] = node
		si.jointOf[node] = j
	}
	for i, node := range skin.Joints {
		j := perm[i]
		jt := mesh.Joint{Name: doc.Nodes[node].Name, Parent: -1, InverseBind: ibm[i]}
		if jt.Name == "" {
			jt.Name = fmt.Sprintf("node_%d", node)
		}
		// the node parent's world, relative to the joint parent's
		offset := mesh.Identity()
		if np := parent[node]; np >= 0 {
			offset = world[np]
		}
		if sp := srcParent[i]; sp >= 0 {
			jt.Parent = perm[sp]
			if parent[node] == skin.Joints[sp] {
				offset = mesh.Identity()
			} else {
				inv, ok := world[skin.Joints[sp]].InverseAffine()
				if !ok {
					return nil, fmt.Errorf("skin 0: joint %d (node %d): parent joint's world transform is singular", i, node)
				}
				offset = inv.Mul(offset)
			}
		}
		nd := doc.Nodes[node]
		if offset.IsIdentity() && mesh.Mat4(nd.Matrix).IsIdentity() {
			// exact: the node's own TRS
			jt.BindT = vec3f(nd.Translation)
			jt.BindR = unitQuat(nd.Rotation)
			jt.BindS = vec3f(nd.Scale)
			si.exact[j] = true
		} else {
			t, r, s := decompose(offset.Mul(im.local(node)))
			jt.BindT, jt.BindR, jt.BindS = vec3f(t), quat32(r), vec3f(s)
			if !offset.IsIdentity() {
				o := offset
				si.offset[j] = &o
				si.exact[j] = uniformRigid(offset)
			} else {
				si.exact[j] = true
			}
		}
		for _, v := range []float32{jt.BindT[0], jt.BindT[1], jt.BindT[2], jt.BindR[0], jt.BindR[1], jt.BindR[2], jt.BindR[3], jt.BindS[0], jt.BindS[1], jt.BindS[2]} {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("skin 0: joint %d (node %d): bind pose is not finite", i, node)
			}
		}
		si.skel.Joints[j] = jt
	}
	return si, nil
}

// parentsFirst returns, for each joint in source order, its exported index:
// the identity when every parent already precedes its children, else a
// depth-first order that emits each joint's unemitted ancestors just before
// it. parent must be acyclic (it comes from the node forest).
func parentsFirst(parent []int) []int {
	perm := make([]int, len(parent))
	ordered := true
	for i, p := range parent {
		perm[i] = i
		if p >= i {
			ordered = false
		}
	}
	if ordered {
		return perm
	}
	for i := range perm {
		perm[i] = -1
	}
	next := 0
	var chain []int
	for i := range parent {
		chain = chain[:0]
		for j := i; j >= 0 && perm[j] < 0; j = parent[j] {
			chain = append(chain, j)
		}
		for k := len(chain) - 1; k >= 0; k-- {
			perm[chain[k]] = next
			next++
		}
	}
	return perm
}

// worlds returns every node's world transform (parent must be acyclic).
func (im *importer) worlds(parent []int) []mesh.Mat4 {
	n := len(im.doc.Nodes)
	world := make([]mesh.Mat4, n)
	done := make([]bool, n)
	var chain []int
	for i := range world {
		chain = chain[:0]
		for j := i; j >= 0 && !done[j]; j = parent[j] {
			chain = append(chain, j)
		}
		for k := len(chain) - 1; k >= 0; k-- {
			j := chain[k]
			world[j] = im.local(j)
			if p := parent[j]; p >= 0 {
				world[j] = world[p].Mul(world[j])
			}
			done[j] = true
		}
	}
	return world
}

// decompose splits an affine transform into translation, rotation
// (quaternion xyzw) and scale, exact for T·R·S matrices; a mirroring
// transform gets a negative x scale. A zero scale leaves the rotation of
// the other axes (identity when two or more vanish).
func decompose(m mesh.Mat4) (t [3]float64, q [4]float64, s [3]float64) {
	t = [3]float64{m[12], m[13], m[14]}
	cols := [3][3]float64{{m[0], m[1], m[2]}, {m[4], m[5], m[6]}, {m[8], m[9], m[10]}}
	for k := range cols {
		s[k] = math.Sqrt(cols[k][0]*cols[k][0] + cols[k][1]*cols[k][1] + cols[k][2]*cols[k][2])
	}
	if m.Det3() < 0 {
		s[0] = -s[0]
	}
	var r [3][3]float64 // r[col][row]
	zero := 0
	for k := range cols {
		if s[k] == 0 {
			zero++
			continue
		}
		for j := 0; j < 3; j++ {
			r[k][j] = cols[k][j] / s[k]
		}
	}
	switch {
	case zero >= 2:
		return t, [4]float64{0, 0, 0, 1}, s
	case zero == 1:
		// rebuild the missing axis from the other two
		for k := range cols {
			if s[k] == 0 {
				a, b := r[(k+1)%3], r[(k+2)%3]
				r[k] = [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
			}
		}
	}
	return t, matQuat(r), s
}

// matQuat converts a rotation matrix (r[col][row]) to a unit quaternion xyzw
// with w ≥ 0 (Shepperd's method: the largest diagonal term picks the
// stable formula).
func matQuat(r [3][3]float64) [4]float64 {
	m00, m11, m22 := r[0][0], r[1][1], r[2][2]
	m01, m02 := r[1][0], r[2][0] // row 0
	m10, m12 := r[0][1], r[2][1] // row 1
	m20, m21 := r[0][2], r[1][2] // row 2
	var q [4]float64
	switch tr := m00 + m11 + m22; {
	case tr > 0:
		s := 2 * math.Sqrt(tr+1)
		q = [4]float64{(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4}
	case m00 > m11 && m00 > m22:
		s := 2 * math.Sqrt(1+m00-m11-m22)
		q = [4]float64{s / 4, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s}
	case m11 > m22:
		s := 2 * math.Sqrt(1+m11-m00-m22)
		q = [4]float64{(m01 + m10) / s, s / 4, (m12 + m21) / s, (m02 - m20) / s}
	default:
		s := 2 * math.Sqrt(1+m22-m00-m11)
		q = [4]float64{(m02 + m20) / s, (m12 + m21) / s, s / 4, (m10 - m01) / s}
	}
	if q[3] < 0 {
		q = [4]float64{-q[0], -q[1], -q[2], -q[3]}
	}
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if l == 0 || math.IsNaN(l) {
		return [4]float64{0, 0, 0, 1}
	}
	return [4]float64{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// uniformRigid reports whether m is a rotation, a positive uniform scale and
// a translation (within float tolerance), the transforms that compose with
// animated TRS values into TRS values.
func uniformRigid(m mesh.Mat4) bool {
	t, q, s := decompose(m)
	if s[0] <= 0 || math.Abs(s[0]-s[1]) > 1e-6*s[0] || math.Abs(s[0]-s[2]) > 1e-6*s[0] {
		return false
	}
	back := mesh.TRS(t, q, s)
	for i := range back {
		if math.Abs(back[i]-m[i]) > 1e-6*max(1, math.Abs(m[i])) {
			return false
		}
	}
	return true
}

// qmul is the Hamilton product a·b of quaternions xyzw.
func qmul(a, b [4]float64) [4]float64 {
	return [4]float64{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

func vec3f(v [3]float64) mesh.Vec3 { return mesh.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

func quat32(q [4]float64) mesh.Vec4 {
	return mesh.Vec4{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])}
}

// unitQuat normalizes a node rotation (identity when zero or not finite).
func unitQuat(q [4]float64) mesh.Vec4 {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
		return mesh.Vec4{0, 0, 0, 1}
	}
	if math.Abs(l-1) < 1e-7 {
		return quat32(q)
	}
	return quat32([4]float64{q[0] / l, q[1] / l, q[2] / l, q[3] / l})
}

// influences reduces a vertex's (joint, weight) pairs from every JOINTS_n /
// WEIGHTS_n set to at most four: weights of a repeated joint are summed,
// the four largest are kept (ties to the lower joint), and they are divided
// by their sum. It returns all-zero weights when the sum is not above 1e-6
// (the caller binds such a vertex to joint 0). pairs is reordered.
func influences(pairs []influence) ([4]uint16, mesh.Vec4) {
	// merge repeated joints
	slices.SortFunc(pairs, func(a, b influence) int { return int(a.joint) - int(b.joint) })
	merged := pairs[:0]
	for _, p := range pairs {
		if p.weight <= 0 {
			continue
		}
		if k := len(merged); k > 0 && merged[k-1].joint == p.joint {
			merged[k-1].weight += p.weight
			continue
		}
		merged = append(merged, p)
	}
	slices.SortStableFunc(merged, func(a, b influence) int {
		switch {
		case a.weight > b.weight:
			return -1
		case a.weight < b.weight:
			return 1
		}
		return 0
	})
	var j [4]uint16
	var w mesh.Vec4
	var sum float64
	for k := 0; k < len(merged) && k < 4; k++ {
		sum += merged[k].weight
	}
	if !(sum > 1e-6) {
		return j, w
	}
	for k := 0; k < len(merged) && k < 4; k++ {
		j[k] = merged[k].joint
		w[k] = float32(merged[k].weight / sum)
	}
	return j, w
}

// influence is one (joint, weight) pair of a vertex.
type influence struct {
	joint  uint16
	weight float64
}
