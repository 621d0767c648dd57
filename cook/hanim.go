package cook

import (
	"github.com/meshcook/meshcook/formats/hanim"
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
// importer kept (indices into the .hmesh SKEL beside it). Morph-weight
// channels have no .hanim path; they are counted in the warnings, as are
// resampled and dropped channels. A scene without a skeleton still gets its
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
	b, err := hanim.Encode(clips)
	if err != nil {
		return nil, nil, err
	}
	c.report.Clips = len(clips)
	return &outputFile{name: job.Name + ".hanim", kind: "hanim", data: b, validate: validateHAnim(b, joints)}, warnings, nil
}

func validateHAnim(b []byte, joints int) func() error {
	return func() error {
		clips, err := hanim.Decode(b) // Decode validates
		if err != nil {
			return err
		}
		return hanim.CheckJoints(clips, joints)
	}
}
