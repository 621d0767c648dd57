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
// Joints are the cluster bones in order of first appearance over the
// scene; a joint's parent is its nearest ancestor Model that is also a
// joint. With C the space conversion and M the transform baked into the
// mesh's output positions (world · geometric, or geometric alone with
// Options.Local):
//
//	bind global   G  = C · TransformLink · C⁻¹
//	bind local       = G(parent)⁻¹ · G, stored as T, R, S
//	inverse bind  IB = C · Transform(stored) · M⁻¹ · C⁻¹
//
// so at bind time G · IB maps each output position to itself (tested on
// the corpus). A joint used by several meshes keeps the first inverse
// bind. A missing TransformLink falls back to the BindPose matrix, then to
// the bone's current world transform; a missing Transform to
// inverse(TransformLink) · M.

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
	invBind map[*object]mesh.Mat4 // output-space inverse bind
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
func (s *scene) skin(gobj *object, g *geom, bake, conv mesh.Mat4, sb *skeletonBuilder, poses map[*object]mesh.Mat4) (*skinData, error) {
	skins := gobj.kids("Deformer", "Skin")
	if len(skins) == 0 {
		return nil, nil
	}
	if len(skins) > 1 {
		s.warnf("geometry with %d skin deformers: only the first is used", len(skins))
	}
	nv := len(g.pos) / 3
	infl := make([][]influence, nv)
	convInv := inverse(conv)
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
		j, ok := sb.index[bone]
		if !ok {
			if len(sb.bones) >= 1<<16 {
				return nil, s.limitAt(cl.node, "more than 65536 joints")
			}
			j = len(sb.bones)
			sb.index[bone] = j
			sb.bones = append(sb.bones, bone)
		}
		if !slices.Contains(used, j) {
			used = append(used, j)
		}
		lv, _ := cl.node.Child("TransformLink").Floats(16)
		link, ok := matrix16(lv)
		if !ok {
			if p, has := poses[bone]; has {
				link = p
			} else {
				link = s.world(bone)
			}
		}
		tv, _ := cl.node.Child("Transform").Floats(16)
		toBone, ok := matrix16(tv)
		if !ok {
			toBone = inverse(link).Mul(bake) // the mesh at bind time is where it is now
		}
		if _, has := sb.link[bone]; !has {
			sb.link[bone] = link
			sb.invBind[bone] = conv.Mul(toBone).Mul(bakeInv).Mul(convInv)
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

// skeleton assembles the joints gathered by skin.
func (s *scene) skeleton(sb *skeletonBuilder, conv mesh.Mat4) *mesh.Skeleton {
	if len(sb.bones) == 0 {
		return nil
	}
	convInv := inverse(conv)
	global := make([]mesh.Mat4, len(sb.bones))
	for i, b := range sb.bones {
		global[i] = conv.Mul(sb.link[b]).Mul(convInv)
	}
	sk := &mesh.Skeleton{Joints: make([]mesh.Joint, len(sb.bones))}
	for i, b := range sb.bones {
		parent := -1
		seen := map[*object]bool{b: true}
		for p, steps := b.parent, 0; p != nil && !seen[p] && steps < maxAncestorWalk; p, steps = p.parent, steps+1 {
			seen[p] = true
			if k, ok := sb.index[p]; ok {
				parent = k
				break
			}
		}
		local := global[i]
		if parent >= 0 {
			local = inverse(global[parent]).Mul(global[i])
		}
		t, r, sc := decompose(local)
		j := mesh.Joint{Name: b.name, Parent: parent, BindT: t, BindR: r, BindS: sc}
		for k, v := range sb.invBind[b] {
			j.InverseBind[k] = float32(v)
		}
		sk.Joints[i] = j
	}
	return sk
}
