package cook

import (
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/kinds"
	"github.com/meshcook/meshcook/mesh"
)

// This file adapts the scene's animations to a .hanim beside the .hmesh.

// ClipTolerance is the largest error allowed when a glTF CUBICSPLINE
// channel is resampled to linear keys: hanim.DefaultTolerance, 1e-4 in the
// channel's units (0.1 mm for translations in metres, about 0.01° for unit
// quaternions, 0.01% for scales), measured as the largest component
// difference between the spline and the linear keys (formats/hanim
// Resample). STEP and LINEAR channels are copied key for key.
const ClipTolerance = hanim.DefaultTolerance

// packHAnim builds `<name>.hanim` when the scene has animations: one clip
// per source animation, in source order, with the joint channels the
// importer kept (indices into the .hmesh SKEL beside it) and its
// morph-weight channels (path 3: the submesh index, one weight per MRPH
// target of that submesh). Resampled and dropped channels are counted in
// the warnings. A scene without a skeleton still gets its
// clips (names and durations, no joint channels). It returns no file when
// the scene has no animations.
func packHAnim(job Job, c *cooked) (*outputFile, []string, error) {
	scene := c.scene
	if len(scene.Animations) == 0 {
		return nil, nil, nil
	}
	clips, warnings := hanim.FromScene(scene.Animations, ClipTolerance)
	joints := 0
	if scene.Skeleton != nil {
		joints = len(scene.Skeleton.Joints)
	}
	if err := hanim.CheckJoints(clips, joints); err != nil {
		return nil, nil, err
	}
	targets := morphCounts(scene)
	if err := hanim.CheckTargets(clips, targets); err != nil {
		return nil, nil, err
	}
	b, err := hanim.Encode(clips)
	if err != nil {
		return nil, nil, err
	}
	c.report.Clips = len(clips)
	return &outputFile{name: job.Name + ".hanim", kind: "hanim", data: b, validate: validateHAnim(b, joints, targets)}, warnings, nil
}

// morphCounts is each submesh's morph target count (the MRPH ranges).
func morphCounts(scene *mesh.Scene) []int {
	out := make([]int, len(scene.Submeshes))
	for i := range scene.Submeshes {
		out[i] = len(scene.Submeshes[i].Morphs)
	}
	return out
}

func validateHAnim(b []byte, joints int, targets []int) func() error {
	return func() error {
		v, err := kinds.Decode("hanim", b)
		if err != nil {
			return err
		}
		clips := v.([]hanim.Clip)
		if err := hanim.CheckJoints(clips, joints); err != nil {
			return err
		}
		return hanim.CheckTargets(clips, targets)
	}
}
