package fbx

// Skinning: Skin deformers (children of a Geometry) own Clusters; each
// Cluster names one bone Model and lists control point Indexes with their
// Weights, plus TransformLink (the bone's world matrix at bind time) and
// Transform. The FBX SDK's API presents Transform as the mesh's world
// matrix at bind time, but the file stores it in bone space, already
// multiplied by inverse(TransformLink) (Blender's exporter says so in a
// comment, ufbx reads it as mesh-node-to-bone, and the corpus's files agree):
// the stored matrix is the geometry-to-bone matrix
// inverse(TransformLink) × Transform(world).
//
// Joints are the cluster bones of every imported skin, plus the bone an
// unskinned mesh is parented under (rigidSkin binds such a mesh to it with
// weight 1). A joint's parent is its nearest ancestor Model that is also a
// joint; non-joint nodes above a root (an armature null) are baked into its
// bind. Joints are ordered parents first, by depth, then name, then file
// order (orderJoints), the order `import` writes .nwb joints in. With C the
// space conversion and M the transform baked into the mesh's output
// positions (world · geometric, or geometric alone with Options.Local):
//
//	bind global   G  = C · Bind · C⁻¹
//	bind local       = G(parent)⁻¹ · G, stored as T, R, S
//	inverse bind  IB = C · Transform(stored) · M⁻¹ · C⁻¹
//
// Bind is the bone's BindPose matrix, else the cluster's TransformLink,
// else the bone's current world transform; a missing Transform is
// inverse(TransformLink) · M. At bind time G · IB maps each output position
// to itself (tested on the corpus). A joint used by several meshes keeps
// the first inverse bind.

import (
	"cmp"
	"slices"

	"github.com/meshcook/meshcook/mesh"
)

// maxAncestorWalk bounds the search for a joint's parent joint (real
// skeletons are a few dozen deep; a hostile chain must not cost joints ×
// models).
const maxAncestorWalk = 4096

type influence struct {
	joint  int
	weight float64
}

// skinData is one geometry instance's influences per control point.
type skinData struct {
	joints  [][4]uint16
	weights []mesh.Vec4
	// used lists the joints the skin's clusters name, in cluster order;
	// unweighted counts control points polygons use without a positive
	// weight (see Instance).
	used       []int
	unweighted int
}

type skeletonBuilder struct {
	bones   []*object
	index   map[*object]int
	link    map[*object]mesh.Mat4 // file-space bind global
	invBind map[*object]mesh.Mat4 // file-space inverse bind (baked mesh space → bone)
}

func newSkeletonBuilder() *skeletonBuilder {
	return &skeletonBuilder{index: map[*object]int{}, link: map[*object]mesh.Mat4{}, invBind: map[*object]mesh.Mat4{}}
}

// add registers bone as a joint (once) and returns its index.
func (s *scene) addBone(sb *skeletonBuilder, bone *object, at *Node) (int, error) {
	if j, ok := sb.index[bone]; ok {
		return j, nil
	}
	if len(sb.bones) >= 1<<16 {
		return 0, s.limitAt(at, "more than 65536 joints")
	}
	j := len(sb.bones)
	sb.index[bone] = j
	sb.bones = append(sb.bones, bone)
	return j, nil
}

// bindLink is a bone's file-space world matrix at bind time: the BindPose
// matrix, else the cluster's TransformLink (lv, may be empty), else its
// current world transform.
func (s *scene) bindLink(bone *object, lv []float64, poses map[*object]mesh.Mat4) mesh.Mat4 {
	if p, ok := poses[bone]; ok {
		return p
	}
	if link, ok := matrix16(lv); ok {
		return link
	}
	return s.world(bone)
}

// collectBones registers the bones of every imported skin in Objects
// order before any mesh is emitted, so that meshes parented under a bone
// can be bound to it (rigidJoint).
func (s *scene) collectBones(sb *skeletonBuilder) error {
	for _, m := range s.objects {
		if m.class != "Model" || (!s.opts.IncludeHidden && s.hidden(m)) {
			continue
		}
		for _, g := range m.kids("Geometry", "Mesh") {
			skins := g.kids("Deformer", "Skin")
			if len(skins) == 0 {
				continue
			}
			for _, cl := range skins[0].kids("Deformer", "Cluster") {
				if bones := cl.kids("Model", ""); len(bones) > 0 {
					if _, err := s.addBone(sb, bones[0], cl.node); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// isSkeletonNode reports whether a Model is a skeleton node by its
// subclass (LimbNode, Limb, Root: what Maya, Max and Blender write).
func isSkeletonNode(o *object) bool {
	switch o.sub {
	case "LimbNode", "Limb", "Root":
		return true
	}
	return false
}

// rigidJoint finds the joint an unskinned mesh Model follows: its nearest
// ancestor that is a joint already, or a skeleton node (which becomes a
// joint). ok is false when no ancestor is either.
func (s *scene) rigidJoint(sb *skeletonBuilder, m *object) (*object, bool) {
	seen := map[*object]bool{m: true}
	for p, steps := m.parent, 0; p != nil && !seen[p] && steps < maxAncestorWalk; p, steps = p.parent, steps+1 {
		seen[p] = true
		if _, ok := sb.index[p]; ok || isSkeletonNode(p) {
			return p, true
		}
	}
	return nil, false
}

// rigidSkin binds every control point of an unskinned mesh parented under
// bone to that bone with weight 1. It returns the transform to bake into
// the mesh instead of its world transform: the mesh relative to the bone,
// placed where the bone's inverse bind expects it, so that skinning in the
// bone's current pose puts the mesh where the file has it.
func (s *scene) rigidSkin(sb *skeletonBuilder, m, bone *object, g *geom, poses map[*object]mesh.Mat4) (*skinData, mesh.Mat4, error) {
	j, err := s.addBone(sb, bone, m.node)
	if err != nil {
		return nil, mesh.Mat4{}, err
	}
	if _, has := sb.link[bone]; !has {
		link := s.bindLink(bone, nil, poses)
		sb.link[bone] = link
		sb.invBind[bone] = inverse(link)
	}
	bake := inverse(sb.invBind[bone]).Mul(inverse(s.world(bone))).Mul(s.world(m)).Mul(s.geometricTransform(m))
	nv := len(g.pos) / 3
	sd := &skinData{joints: make([][4]uint16, nv), weights: make([]mesh.Vec4, nv), used: []int{j}}
	for v := range nv {
		sd.joints[v] = [4]uint16{uint16(j)}
		sd.weights[v] = mesh.Vec4{1, 0, 0, 0}
	}
	s.warnf("unskinned meshes under a skeleton node bound rigidly to it")
	return sd, bake, nil
}

// bindPoses maps Models to their BindPose matrices.
func (s *scene) bindPoses() map[*object]mesh.Mat4 {
	out := map[*object]mesh.Mat4{}
	for _, o := range s.objects {
		if o.class != "Pose" || o.sub != "BindPose" {
			continue
		}
		for _, pn := range o.node.Children {
			if pn.Name != "PoseNode" {
				continue
			}
			k, ok := key(pn.Child("Node").prop(0))
			m, ok2 := pn.Child("Matrix").Floats(16)
			if !ok || !ok2 {
				continue
			}
			if mat, ok := matrix16(m); ok {
				if target := s.byKey[k]; target != nil {
					if _, dup := out[target]; !dup {
						out[target] = mat
					}
				}
			}
		}
	}
	return out
}

// skin reads the skin of geometry gobj as instanced by a model whose baked
// transform is bake; nil when the geometry has no skin.
func (s *scene) skin(gobj *object, g *geom, bake mesh.Mat4, sb *skeletonBuilder, poses map[*object]mesh.Mat4) (*skinData, error) {
	skins := gobj.kids("Deformer", "Skin")
	if len(skins) == 0 {
		return nil, nil
	}
	if len(skins) > 1 {
		s.warnf("geometry with %d skin deformers: only the first is used", len(skins))
	}
	nv := len(g.pos) / 3
	infl := make([][]influence, nv)
	bakeInv := inverse(bake)
	clusters := skins[0].kids("Deformer", "Cluster")
	var used []int
	for _, cl := range clusters {
		bones := cl.kids("Model", "")
		if len(bones) == 0 {
			s.warnf("skin cluster without a bone skipped")
			continue
		}
		bone := bones[0]
		j, err := s.addBone(sb, bone, cl.node)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(used, j) {
			used = append(used, j)
		}
		lv, _ := cl.node.Child("TransformLink").Floats(16)
		link := s.bindLink(bone, lv, poses)
		tv, _ := cl.node.Child("Transform").Floats(16)
		toBone, ok := matrix16(tv)
		if !ok {
			toBone = inverse(link).Mul(bake) // the mesh at bind time is where it is now
		}
		if _, has := sb.link[bone]; !has {
			sb.link[bone] = link
			sb.invBind[bone] = toBone.Mul(bakeInv)
		}
		idx, ok1 := cl.node.Child("Indexes").Ints(s.opts.MaxCorners)
		w, ok2 := cl.node.Child("Weights").Floats(s.opts.MaxCorners)
		if !ok1 || !ok2 || len(idx) != len(w) {
			s.warnf("skin cluster with mismatched Indexes and Weights skipped")
			continue
		}
		for i, v := range idx {
			if v < 0 || v >= int64(nv) {
				s.warnf("skin weights for control points out of range ignored")
				continue
			}
			if w[i] > 0 {
				infl[v] = append(infl[v], influence{j, w[i]})
			}
		}
	}
	sd := &skinData{joints: make([][4]uint16, nv), weights: make([]mesh.Vec4, nv), used: used}
	referenced := make([]bool, nv)
	for _, v := range g.corners {
		if v >= 0 && int(v) < nv {
			referenced[v] = true
		}
	}
	for v, list := range infl {
		if len(list) == 0 {
			if referenced[v] {
				sd.unweighted++
			}
			s.warnf("skinned control points without weights bound to joint 0")
			sd.joints[v] = [4]uint16{unboundJoint}
			sd.weights[v] = mesh.Vec4{1, 0, 0, 0}
			continue
		}
		slices.SortFunc(list, func(a, b influence) int {
			if c := cmp.Compare(b.weight, a.weight); c != 0 {
				return c
			}
			return cmp.Compare(a.joint, b.joint)
		})
		if len(list) > 4 {
			s.warnf("control points with more than 4 influences trimmed to the 4 largest")
			list = list[:4]
		}
		var sum float64
		for _, in := range list {
			sum += in.weight
		}
		for k, in := range list {
			sd.joints[v][k] = uint16(in.joint)
			sd.weights[v][k] = float32(in.weight / sum)
		}
	}
	return sd, nil
}

// jointParent is a bone's parent joint: its nearest ancestor Model that is
// also a joint, -1 for none.
func jointParent(sb *skeletonBuilder, b *object) int {
	seen := map[*object]bool{b: true}
	for p, steps := b.parent, 0; p != nil && !seen[p] && steps < maxAncestorWalk; p, steps = p.parent, steps+1 {
		seen[p] = true
		if k, ok := sb.index[p]; ok {
			return k
		}
	}
	return -1
}

// orderJoints puts the gathered joints parents first: by depth in the
// joint hierarchy, then name, then Objects (file) order, the order `import`
// writes .nwb joints in (nwb.md §3), so that cooking the FBX and cooking its
// import give the same joint indices. The order depends only on the
// hierarchy, names and file order, not on which mesh named a bone first.
// It returns perm (gathered index → final index) and the final parents;
// joints whose parent links loop (only a malformed file has them) become
// roots, and loops reports how many.
func orderJoints(sb *skeletonBuilder) (perm, parents []int, loops int) {
	n := len(sb.bones)
	parent := make([]int, n)
	for i, b := range sb.bones {
		parent[i] = jointParent(sb, b)
	}
	depth := make([]int, n)
	for i := range depth {
		d, j := 0, i
		for parent[j] >= 0 && d <= n {
			j = parent[j]
			d++
		}
		if d > n { // a loop
			parent[i], d = -1, 0
			loops++
		}
		depth[i] = d
	}
	if loops > 0 { // depths below a broken link changed
		for i := range depth {
			d := 0
			for j := i; parent[j] >= 0 && d <= n; j = parent[j] {
				d++
			}
			depth[i] = d
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(depth[a], depth[b]), cmp.Compare(sb.bones[a].name, sb.bones[b].name),
			cmp.Compare(sb.bones[a].index, sb.bones[b].index))
	})
	perm = make([]int, n)
	for k, j := range order {
		perm[j] = k
	}
	parents = make([]int, n)
	for k, j := range order {
		parents[k] = -1
		if parent[j] >= 0 {
			parents[k] = perm[parent[j]]
		}
	}
	return perm, parents, loops
}

// skeleton assembles the joints gathered by skin and rigidSkin in the
// order orderJoints gives; perm maps gathered indices to it.
func (s *scene) skeleton(sb *skeletonBuilder, conv mesh.Mat4) (*mesh.Skeleton, []int, []*object) {
	if len(sb.bones) == 0 {
		return nil, nil, nil
	}
	perm, parents, loops := orderJoints(sb)
	if loops > 0 {
		s.warnf("skeleton joints whose parent links loop made roots")
	}
	convInv := inverse(conv)
	bones := make([]*object, len(sb.bones))
	for i, b := range sb.bones {
		bones[perm[i]] = b
	}
	global := make([]mesh.Mat4, len(bones))
	for i, b := range bones {
		link, ok := sb.link[b]
		if !ok { // a bone no imported mesh bound (cannot happen today)
			link = s.world(b)
		}
		global[i] = conv.Mul(link).Mul(convInv)
	}
	sk := &mesh.Skeleton{Joints: make([]mesh.Joint, len(bones))}
	for i, b := range bones {
		parent := parents[i]
		local := global[i]
		if parent >= 0 {
			local = inverse(global[parent]).Mul(global[i])
		}
		t, r, sc := decompose(local)
		j := mesh.Joint{Name: b.name, Parent: parent, BindT: t, BindR: r, BindS: sc}
		ib, ok := sb.invBind[b]
		if !ok {
			ib = inverse(sb.link[b])
		}
		for k, v := range conv.Mul(ib).Mul(convInv) {
			j.InverseBind[k] = float32(v)
		}
		sk.Joints[i] = j
	}
	return sk, perm, bones
}

// unboundJoint marks, until remapJoints, the influence of a control point
// that no cluster weights: it is bound to the skeleton's joint 0 (a root).
const unboundJoint = 0xFFFF

// remapJoints renumbers the submeshes' joint indices and the instances'
// joint lists from gathered order to skeleton order (perm; nil keeps
// them), binding unweighted control points to joint 0 and clearing the
// index of zero-weight slots.
func remapJoints(subs []mesh.Submesh, insts []Instance, perm []int) {
	to := func(j int) int {
		if j < len(perm) {
			return perm[j]
		}
		return j
	}
	for i := range subs {
		for v := range subs[i].Joints {
			for k, j := range subs[i].Joints[v] {
				switch {
				case j == unboundJoint || subs[i].Weights[v][k] == 0:
					subs[i].Joints[v][k] = 0
				default:
					subs[i].Joints[v][k] = uint16(to(int(j)))
				}
			}
		}
	}
	for i := range insts {
		for k, j := range insts[i].Joints {
			insts[i].Joints[k] = to(j)
		}
	}
}
