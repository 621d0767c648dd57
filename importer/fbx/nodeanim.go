package fbx

// Node animation without a skin: animated Models that are not bones (a
// door, a turning wheel, keyframed cubes) go through importer/rig, the
// path importer/gltf shares, which makes the animated nodes and their
// ancestors joints and binds every mesh rigidly to its node's joint. A
// scene that has a skin keeps node animation out (counted in a warning):
// merging a rigid rig with a skin is not done.

import (
	"github.com/meshcook/meshcook/importer/rig"
	"github.com/meshcook/meshcook/mesh"
)

// rigNodes applies importer/rig to a scene without a skeleton whose
// stacks animate Models. parts[i] is the Model of out.Submeshes[i].
// It returns how many animated nodes it carried (0 when it did nothing).
func (s *scene) rigNodes(out *mesh.Scene, stacks []*stackInfo, parts []*object, conv mesh.Mat4) (int, error) {
	animated := false
	for _, st := range stacks {
		if len(st.props) > 0 {
			animated = true
		}
	}
	if !animated || out.Skeleton != nil || s.opts.StaticNodes {
		return 0, nil
	}
	convInv := inverse(conv)
	index := map[*object]int{}
	var in rig.Input
	for _, o := range s.objects {
		if o.class == "Model" {
			index[o] = len(in.Nodes)
			in.Nodes = append(in.Nodes, rig.Node{Name: o.name, Parent: -1})
		}
	}
	for o, i := range index {
		if o.parent != nil {
			if p, ok := index[o.parent]; ok {
				in.Nodes[i].Parent = p
			}
		}
		t, r, sc := decompose64(conv.Mul(s.localTransform(o)).Mul(convInv))
		in.Nodes[i].T, in.Nodes[i].R, in.Nodes[i].S = t, r, sc
	}
	for i, m := range parts {
		if k, ok := index[m]; ok {
			in.Parts = append(in.Parts, rig.Part{Submesh: i, Node: k})
		}
	}
	for ai, st := range stacks {
		for _, o := range s.objects { // file order, not map order
			if st.props[o] == nil || o.class != "Model" {
				continue
			}
			chs, err := s.sampleJoint(st, 0, []*object{o}, conv, convInv)
			if err != nil {
				return 0, err
			}
			for _, ch := range chs {
				in.Channels = append(in.Channels, rig.Channel{Animation: ai, Node: index[o], Channel: ch})
			}
		}
	}
	res, err := rig.Apply(out, in)
	if err != nil {
		s.warnf("node animation not imported: %v", err)
		return 0, nil
	}
	return res.Animated, nil
}
