package meshlet

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Options control meshlet construction. DefaultOptions is the one place the
// defaults live; the zero value is not valid (Validate rejects it).
type Options struct {
	// MaxVertices is the most unique vertices one meshlet may reference,
	// 3..256 (local indices are u8). Default 64.
	MaxVertices int
	// MaxTriangles is the most triangles one meshlet may hold, 1..512.
	// Default 124.
	MaxTriangles int
	// ConeWeight in [0, 1] trades spatial compactness for normal coherence
	// (tighter normal cones, better backface culling). 0 ignores normals.
	// Default 0.25.
	ConeWeight float32
	// MinTriangles and SplitFactor turn on flex mode (as meshoptimizer's
	// buildMeshletsFlex). MinTriangles in [0, MaxTriangles]: when > 0 the
	// expected meshlet radius that scales distances in the score is that of
	// a MinTriangles meshlet instead of a MaxTriangles one. SplitFactor >= 0
	// (finite): when > 0, a meshlet that holds at least max(MinTriangles, 1)
	// triangles is closed early when the best next triangle that adds a
	// vertex has its centroid farther than SplitFactor expected radii from
	// the meshlet's centroid. Both 0 (the default) is the plain builder.
	MinTriangles int
	SplitFactor  float32
}

// Limits of Options, as the MLET/DESC formats allow them.
const (
	MinVertices       = 3
	MaxVerticesLimit  = 256
	MinTriangles      = 1
	MaxTrianglesLimit = 512
)

// DefaultOptions returns 64 vertices, 124 triangles, cone weight 0.25
// (NVIDIA's recommended mesh-shader limits and meshoptimizer's suggested
// cone weight).
func DefaultOptions() Options {
	return Options{MaxVertices: 64, MaxTriangles: 124, ConeWeight: 0.25}
}

// ErrInvalidOptions is wrapped by every error Validate (and so Build)
// returns for options out of range.
var ErrInvalidOptions = errors.New("meshlet: invalid options")

// Validate reports whether the options are within the limits above.
func (o Options) Validate() error {
	if o.MaxVertices < MinVertices || o.MaxVertices > MaxVerticesLimit {
		return fmt.Errorf("%w: MaxVertices %d out of range [%d, %d]", ErrInvalidOptions, o.MaxVertices, MinVertices, MaxVerticesLimit)
	}
	if o.MaxTriangles < MinTriangles || o.MaxTriangles > MaxTrianglesLimit {
		return fmt.Errorf("%w: MaxTriangles %d out of range [%d, %d]", ErrInvalidOptions, o.MaxTriangles, MinTriangles, MaxTrianglesLimit)
	}
	w := float64(o.ConeWeight)
	if math.IsNaN(w) || w < 0 || w > 1 {
		return fmt.Errorf("%w: ConeWeight %v out of range [0, 1]", ErrInvalidOptions, o.ConeWeight)
	}
	if o.MinTriangles < 0 || o.MinTriangles > o.MaxTriangles {
		return fmt.Errorf("%w: MinTriangles %d out of range [0, MaxTriangles %d]", ErrInvalidOptions, o.MinTriangles, o.MaxTriangles)
	}
	s := float64(o.SplitFactor)
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return fmt.Errorf("%w: SplitFactor %v is not a finite value >= 0", ErrInvalidOptions, o.SplitFactor)
	}
	return nil
}

// Meshlet is one cluster: VertexCount entries of Result.Vertices from
// VertexOffset, and TriangleCount triangles of Result.Triangles from
// TriangleOffset (counted in triangles, i.e. bytes 3*TriangleOffset on).
type Meshlet struct {
	VertexOffset, VertexCount, TriangleOffset, TriangleCount uint32
}

// Result is a built meshlet set, laid out as the MLET, MLVR and MLTR chunks.
type Result struct {
	Meshlets []Meshlet
	// Vertices holds the global vertex index of each meshlet-local vertex
	// (MLVR); each meshlet's range is its local vertices in local order.
	Vertices []uint32
	// Triangles holds 3 local indices per triangle (MLTR), dense, with no
	// padding between meshlets.
	Triangles []uint8
}

// ErrInvalidMesh is wrapped by every error Build returns for bad input, so
// callers can tell bad data from bad options with errors.Is.
var ErrInvalidMesh = errors.New("meshlet: invalid mesh")

// Build partitions the triangle list indices (3 per triangle, each <
// len(positions)) into meshlets.
//
// Contracts:
//   - every input triangle appears in exactly one meshlet, degenerate ones
//     included, with its corner order kept (local corners are the input
//     corners in the same order, never reversed);
//   - every meshlet has 1..MaxVertices vertices and 1..MaxTriangles triangles,
//     every local vertex is used by one of its triangles, and local vertices
//     are numbered in order of first use by the meshlet's triangles;
//   - empty indices give an empty Result and no error;
//   - len(indices)%3 != 0, an index >= len(positions), or a non-finite
//     referenced position is an error wrapping ErrInvalidMesh; invalid
//     options are an error from Options.Validate wrapping ErrInvalidOptions;
//   - the output depends only on the arguments (deterministic).
func Build(indices []uint32, positions [][3]float32, opts Options) (Result, error) {
	return BuildContext(context.Background(), indices, positions, opts)
}

// BuildContext is Build that stops when ctx is done, with an error
// wrapping ctx.Err(). It checks ctx before it starts and, on meshes built
// in parts (more than partTriangles triangles), before each part.
func BuildContext(ctx context.Context, indices []uint32, positions [][3]float32, opts Options) (Result, error) {
	if err := ctxErr(ctx); err != nil {
		return Result{}, err
	}
	if err := opts.Validate(); err != nil {
		return Result{}, err
	}
	if len(indices)%3 != 0 {
		return Result{}, fmt.Errorf("%w: index count %d is not a multiple of 3", ErrInvalidMesh, len(indices))
	}
	if uint64(len(indices)) > math.MaxUint32 {
		return Result{}, fmt.Errorf("%w: %d indices is more than 32-bit offsets address", ErrInvalidMesh, len(indices))
	}
	for i, v := range indices {
		if uint64(v) >= uint64(len(positions)) {
			return Result{}, fmt.Errorf("%w: index %d (element %d) >= vertex count %d", ErrInvalidMesh, v, i, len(positions))
		}
	}
	// Only referenced positions must be finite: check them one by one only
	// when some position is not.
	if !allFinite(positions) {
		for _, v := range indices {
			if p := positions[v]; !finite32(p[0]) || !finite32(p[1]) || !finite32(p[2]) {
				return Result{}, fmt.Errorf("%w: vertex %d position is not finite", ErrInvalidMesh, v)
			}
		}
	}
	if len(indices) == 0 {
		return Result{}, nil
	}
	if len(indices)/3 > partTriangles {
		return buildSplit(ctx, indices, positions, opts)
	}
	return build(indices, positions, opts), nil
}

// allFinite reports whether every coordinate is finite (x-x is 0 exactly
// for finite x and NaN otherwise).
func allFinite(positions [][3]float32) bool {
	var acc float32
	for i := range positions {
		p := &positions[i]
		acc += (p[0] - p[0]) + (p[1] - p[1]) + (p[2] - p[2])
	}
	return acc == 0
}

func finite32(x float32) bool {
	f := float64(x)
	return !math.IsNaN(f) && !math.IsInf(f, 0)
}
