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
	// PathWeights drives the morph-target weights of one submesh: the
	// channel's Joint is the submesh index (into Scene.Submeshes) and its
	// value width, Channel.Targets, is that submesh's target count.
	PathWeights AnimPath = 3
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
	// SkippedWeightChannels counts morph-weight channels an importer did
	// not carry (the clip writer reports them).
	SkippedWeightChannels int
}

// Channel animates one joint property, or one submesh's morph weights.
type Channel struct {
	Joint  int // index into Scene.Skeleton.Joints; for PathWeights, into Scene.Submeshes
	Path   AnimPath
	Interp Interpolation
	Times  []float32 // ascending seconds
	Values []float32 // len(Times) × Width() (× 3 for InterpCubic)
	// Targets is the value width of a PathWeights channel (the submesh's
	// morph target count); unused by the other paths.
	Targets int
}

// Width is the channel's value width: Path.Components(), or Targets for
// PathWeights.
func (c *Channel) Width() int {
	if c.Path == PathWeights {
		return c.Targets
	}
	return c.Path.Components()
}

// Components returns the value width of a joint path (3, or 4 for
// rotation); PathWeights has none of its own (see Channel.Width) and gives 0.
func (p AnimPath) Components() int {
	switch p {
	case PathRotation:
		return 4
	case PathWeights:
		return 0
	}
	return 3
}
