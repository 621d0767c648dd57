package fbx

import (
	"io/fs"
	"math"
)

// Options controls parsing limits and the scene conversion. The zero value
// is the default: every limit at its default, the scene converted to
// meshcook's space with node transforms baked, hidden models skipped.
type Options struct {
	// MaxDepth bounds node nesting (default 64; real files use under 10).
	MaxDepth int
	// MaxNodes bounds the node count (default 1<<23).
	MaxNodes int
	// MaxArrayBytes bounds one array property's decoded size, and
	// MaxTotalArrayBytes the decoded size of the whole tree: arrays plus
	// the in-memory size of every property (defaults 512 MiB and 2 GiB).
	// A zlib array may also expand at most 1032:1 over its compressed
	// bytes (deflate's own ceiling), so a small file cannot make us
	// allocate much.
	MaxArrayBytes      int64
	MaxTotalArrayBytes int64
	// MaxCorners bounds the polygon corners (output vertices before the
	// cook's weld) over the whole scene, instances included (default 1<<24,
	// about 5 million quads; each corner costs up to 88 bytes of output).
	MaxCorners int

	// PreserveSpace keeps the file's axes and units instead of converting
	// to +X right, +Y up, +Z forward, metres.
	PreserveSpace bool
	// Local keeps each mesh in its model's space (only the geometric
	// transform applied) instead of baking the model's world transform.
	Local bool
	// Scale multiplies every position after the space conversion
	// (0 means 1).
	Scale float64
	// IncludeHidden imports models whose Visibility is 0 or Show false.
	IncludeHidden bool
	// StaticNodes keeps animated nodes that are not skin joints static,
	// their animation counted in a warning, instead of binding their meshes
	// rigidly to joints (importer/rig): for front ends that keep no
	// animation, like `meshcook import`.
	StaticNodes bool
	// StrictPaths refuses texture files whose real path (symbolic links
	// resolved) leaves the FBX's folder (internal/srcpath); without it links
	// are followed. References that leave the folder lexically (absolute,
	// drive, "..") are never opened: their file name is looked for inside
	// the folder instead (see textureCandidates).
	StrictPaths bool
	// MaxImageBytes bounds one external texture file (default 256 MiB).
	MaxImageBytes int64

	// folder is the FBX's folder, which Load opens; Decode loads no
	// external textures.
	folder fs.FS

	// AnimTolerance is the largest error of the linear keys animation is
	// sampled into, per component, in output units (metres, unit
	// quaternion, scale factor; translations at most AnimTolerance times
	// the scene's size when it is under one unit); 0 means
	// DefaultAnimTolerance.
	AnimTolerance float64
}

// DefaultAnimTolerance is 1e-4, the tolerance the cook resamples glTF
// CUBICSPLINE channels with (formats/hanim DefaultTolerance).
const DefaultAnimTolerance = 1e-4

const (
	defaultMaxDepth           = 64
	defaultMaxNodes           = 1 << 23
	defaultMaxArrayBytes      = 512 << 20
	defaultMaxTotalArrayBytes = 2 << 30
	defaultMaxCorners         = 1 << 24
	defaultMaxImageBytes      = 1 << 28
	// maxDeflateRatio is deflate's largest possible expansion (258 bytes
	// from a 2-bit code, rounded up): a zlib array that claims more
	// decoded bytes than this times its compressed size is lying.
	maxDeflateRatio = 1032
)

// withDefaults fills zero limits.
func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = defaultMaxDepth
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = defaultMaxNodes
	}
	if o.MaxArrayBytes <= 0 {
		o.MaxArrayBytes = defaultMaxArrayBytes
	}
	if o.MaxTotalArrayBytes <= 0 {
		o.MaxTotalArrayBytes = defaultMaxTotalArrayBytes
	}
	if o.MaxCorners <= 0 {
		o.MaxCorners = defaultMaxCorners
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if o.MaxImageBytes <= 0 {
		o.MaxImageBytes = defaultMaxImageBytes
	}
	if !(o.AnimTolerance > 0) || math.IsInf(o.AnimTolerance, 0) {
		o.AnimTolerance = DefaultAnimTolerance
	}
	return o
}
