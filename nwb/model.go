package nwb

import (
	"fmt"

	"github.com/meshcook/meshcook/mesh"
)

// Mul returns a·b as affine transforms (b applies first).
func (a Affine) Mul(b Affine) Affine {
	var out Affine
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			var s float64
			for k := 0; k < 3; k++ {
				s += float64(a[r][k]) * float64(b[k][c])
			}
			if c == 3 {
				s += float64(a[r][3])
			}
			out[r][c] = float32(s)
		}
	}
	return out
}

// GlobalBindPose returns a joint's bind pose in skeleton space, the
// product of the local bind poses from its root down to it.
func (s *Skeleton) GlobalBindPose(joint string) (Affine, bool) {
	index := make(map[string]int, len(s.Joints))
	for i, j := range s.Joints {
		index[j.Name] = i
	}
	i, ok := index[joint]
	if !ok {
		return Affine{}, false
	}
	pose := s.Joints[i].LocalBindPose
	// Parents precede children (validated), so the walk terminates.
	for p := s.Joints[i].Parent; p != ""; p = s.Joints[index[p]].Parent {
		pose = s.Joints[index[p]].LocalBindPose.Mul(pose)
	}
	return pose, true
}

// StaticMeshTransform returns the final transform of static mesh object
// name: owner × parent object's skeleton transform × parent joint's bind
// pose × the object's transform. A term is omitted when the object has no
// parent joint (or no parent object). resolve maps the parent object's
// skeleton reference to its asset; it is only called when a parent joint
// is named.
func (m *Model) StaticMeshTransform(name string, owner Affine, resolve func(Ref) *Skeleton) (Affine, error) {
	for _, o := range m.StaticMeshes {
		if o.Name != name {
			continue
		}
		t := owner
		if o.ParentObject != "" {
			var parent *SkeletonObject
			for i := range m.Skeletons {
				if m.Skeletons[i].Name == o.ParentObject {
					parent = &m.Skeletons[i]
				}
			}
			if parent == nil {
				return Affine{}, fmt.Errorf("nwb: object '%s': parent object '%s' is not a skeleton object", name, o.ParentObject)
			}
			t = t.Mul(parent.Transform)
			if o.ParentJoint != "" {
				skel := resolve(parent.Skeleton)
				if skel == nil {
					return Affine{}, fmt.Errorf("nwb: object '%s': skeleton %q is not available", name, parent.Skeleton.Path)
				}
				pose, ok := skel.GlobalBindPose(o.ParentJoint)
				if !ok {
					return Affine{}, fmt.Errorf("nwb: object '%s': joint '%s' not in skeleton %q", name, o.ParentJoint, parent.Skeleton.Path)
				}
				t = t.Mul(pose)
			}
		}
		return t.Mul(o.Transform), nil
	}
	return Affine{}, fmt.Errorf("nwb: no static mesh object '%s'", name)
}

// LoadScene parses, validates and converts one .nwb source for the cook:
// ParseDocument followed by ToScene. vpath is the file's virtual path
// ("" for "project/<file stem>").
func LoadScene(src []byte, name, vpath string) (*mesh.Scene, error) {
	doc, err := ParseDocument(src, name, vpath)
	if err != nil {
		return nil, err
	}
	return ToScene(doc)
}
