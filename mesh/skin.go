package mesh

// Skeleton is a joint hierarchy, parents first: in skin order (glTF:
// reordered parents-first only when the source lists a child before its
// parent, with joint values remapped to match; FBX: always by depth, name,
// file order): Joints[i] is the joint that Submesh.Joints value i refers to.
type Skeleton struct {
	Joints []Joint
}

// Joint is one bone: its bind-pose local transform relative to its parent,
// and the inverse bind matrix (mesh space → joint bind space).
type Joint struct {
	Name        string
	Parent      int         // index into Skeleton.Joints, -1 for a root
	InverseBind [16]float32 // column-major
	BindT       Vec3
	BindR       Vec4 // quaternion xyzw
	BindS       Vec3
}

// AnimPath is the joint property a channel animates.
type AnimPath uint8

const (
	PathTranslation AnimPath = 0 // 3 components
	PathRotation    AnimPath = 1 // 4 components, quaternion xyzw
	PathScale       AnimPath = 2 // 3 components
)

// Interpolation of a channel's keys.
type Interpolation uint8

const (
	InterpStep   Interpolation = 0
	InterpLinear Interpolation = 1
	// InterpCubic is glTF CUBICSPLINE: Values holds in-tangent, value,
	// out-tangent per key. Cooks resample it to linear.
	InterpCubic Interpolation = 2
)

// Animation is one clip.
type Animation struct {
	Name     string
	Duration float32 // seconds, the last key time over all channels
	Channels []Channel
	// SkippedWeightChannels counts morph-weight channels, which .hanim has
	// no path for.
	SkippedWeightChannels int
}

// Channel animates one joint property.
type Channel struct {
	Joint  int // index into Scene.Skeleton.Joints
	Path   AnimPath
	Interp Interpolation
	Times  []float32 // ascending seconds
	Values []float32 // len(Times) × components (× 3 for InterpCubic)
}

// Components returns the value width of a path (3 or 4).
func (p AnimPath) Components() int {
	if p == PathRotation {
		return 4
	}
	return 3
}
