package fbx

import (
	"slices"
	"testing"
)

// TestInstances: each Model × Geometry pair is described with its names,
// submesh range, hidden flag and skin facts.
func TestInstances(t *testing.T) {
	nodes := skinScene(7400)
	sc, insts, err := DecodeInstances(writeBinary(7400, nodes, false), "skin.fbx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 1 {
		t.Fatalf("instances %+v", insts)
	}
	in := insts[0]
	// Corner 2 (control point 2) has no weight; the clusters name Knee
	// (joint 1, after its parent) before Hip (joint 0).
	if in.Model != "Body" || in.Geometry != "G" || in.First != 0 || in.Count != len(sc.Submeshes) ||
		in.Hidden || in.SkinDeformers != 1 || in.Unweighted != 1 || !slices.Equal(in.Joints, []int{1, 0}) {
		t.Fatalf("instance %+v", in)
	}

	// A hidden model is described (with IncludeHidden) and flagged.
	hidden := quadScene(7400, nil, P("Visibility", "Visibility", 0.0))
	_, insts, err = DecodeInstances(writeBinary(7400, hidden, false), "q.fbx", Options{IncludeHidden: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(insts) != 1 || !insts[0].Hidden || insts[0].Model != "QuadModel" || insts[0].Geometry != "Quad" || insts[0].Count != 1 {
		t.Fatalf("hidden instance %+v", insts)
	}
	_, insts, err = DecodeInstances(writeBinary(7400, hidden, false), "q.fbx", Options{})
	if err != nil || len(insts) != 0 {
		t.Fatalf("hidden skipped: %+v %v", insts, err)
	}
}
