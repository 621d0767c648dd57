package nwb

import (
	"testing"
)

// The final static-mesh transform composes owner × skeleton object ×
// parent joint global pose × local, in that order.
func TestStaticMeshTransform(t *testing.T) {
	translate := func(x, y, z float32) Affine { return Affine{{1, 0, 0, x}, {0, 1, 0, y}, {0, 0, 1, z}} }
	rotZ90 := Affine{{0, -1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}}
	skel := &Skeleton{Joints: []Joint{
		{Name: "root", LocalBindPose: rotZ90},
		{Name: "hand", Parent: "root", LocalBindPose: translate(1, 0, 0)},
	}}
	m := &Model{
		Skeletons: []SkeletonObject{{Name: "rig", Skeleton: Ref{Path: "p/rig"}, Transform: translate(0, 0, 5)}},
		StaticMeshes: []StaticMeshObject{
			{Name: "sword", ParentObject: "rig", ParentJoint: "hand", Transform: translate(0, 2, 0)},
			{Name: "crate", Transform: translate(3, 0, 0)},
		},
	}
	resolve := func(r Ref) *Skeleton {
		if r.Path == "p/rig" {
			return skel
		}
		return nil
	}
	owner := translate(10, 0, 0)
	got, err := m.StaticMeshTransform("sword", owner, resolve)
	if err != nil {
		t.Fatal(err)
	}
	// hand global = rotZ90 · T(1,0,0): origin at (0,1,0), x axis → y.
	// Local T(0,2,0) rotated → (-2,0,0); total = (10,0,5) + (0,1,0) + (-2,0,0).
	want := Affine{{0, -1, 0, 8}, {1, 0, 0, 1}, {0, 0, 1, 5}}
	if got != want {
		t.Fatalf("sword: got %v, want %v", got, want)
	}
	if got, _ := m.StaticMeshTransform("crate", owner, resolve); got != translate(13, 0, 0) {
		t.Fatalf("crate: got %v", got)
	}
	if _, err := m.StaticMeshTransform("none", owner, resolve); err == nil {
		t.Fatal("unknown object must fail")
	}
	m.StaticMeshes[0].ParentJoint = "foot"
	if _, err := m.StaticMeshTransform("sword", owner, resolve); err == nil {
		t.Fatal("unknown joint must fail")
	}
}

func TestLoadScene(t *testing.T) {
	sc, err := LoadScene([]byte(skinnedBunchSrc()), "hero.nwb", "")
	if err != nil {
		t.Fatal(err)
	}
	s := sc.Submeshes[0]
	if err := s.Validate(); err != nil {
		t.Fatalf("ToScene made an invalid submesh: %v", err)
	}
	if len(s.Positions) != 3 || len(s.Indices) != 3 || sc.Skeleton == nil || len(sc.Skeleton.Joints) != 2 {
		t.Fatalf("scene %+v", sc)
	}
	// vertex 1 uses position 1, whose influence is joints [0 1] weights [1 3] → [0.25 0.75].
	if s.Joints[1] != [4]uint16{0, 1, 0, 0} || s.Weights[1][1] != 0.75 || s.UV0[2][1] != 1 {
		t.Fatalf("vertex 1: %v %v", s.Joints[1], s.Weights[1])
	}
	if j := sc.Skeleton.Joints[1]; j.Parent != 0 || j.BindT[0] != 2 || j.InverseBind[12] != -2 {
		t.Fatalf("joint arm %+v", j)
	}
}
