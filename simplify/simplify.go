package simplify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// DefaultTargetError is the error limit used when Options.TargetError is 0:
// 1% of the mesh extent (the longest side of the bounding box of the
// referenced vertices).
const DefaultTargetError = 0.01

// minLevelReduction is the fraction of the previous level's triangles a
// Chain level must remove to be worth emitting; a level that saves less is
// reported as stalled (empty), so the engine keeps drawing the previous one.
const minLevelReduction = 0.1

// ErrInvalidInput is wrapped by every error Simplify and Chain return for
// malformed input or options.
var ErrInvalidInput = errors.New("simplify: invalid input")

// Options control one simplification. The zero value simplifies geometry only,
// as far as the default error limit allows (TargetIndexCount 0).
type Options struct {
	// TargetIndexCount is the index count to reduce to (a multiple of 3).
	// 0 asks for as few triangles as TargetError allows. Chain ignores it.
	TargetIndexCount int
	// TargetError is the largest error allowed, relative to the mesh extent
	// (the longest AABB side of the referenced vertices) unless Absolute, in
	// which case it is in position units. 0 means DefaultTargetError.
	TargetError float32
	// Absolute makes TargetError and the returned errors position units.
	Absolute bool
	// LockBorder keeps every vertex on an open border in place: border
	// vertices never move and border edges are never collapsed.
	LockBorder bool
	// Locked optionally pins vertices (len must equal the vertex count). A
	// locked vertex pins every vertex that shares its position.
	Locked []bool
	// AttributeWeights weight the normal/UV/color terms of the quadrics;
	// zero weights (or absent streams) simplify by geometry only.
	AttributeWeights Weights
	// Sloppy allows a vertex-clustering fallback when edge collapse stalls
	// above the target. It ignores seams and may fold the surface; it still
	// honours TargetError, Locked and LockBorder (pinned vertices stay).
	Sloppy bool
	// Permissive lets a seam vertex (an attribute discontinuity such as a
	// UV seam: two vertices at one position) move off its seam onto a
	// manifold neighbour, both of its wedges onto that neighbour's one, so
	// the seam no longer stops the collapse; the wedges' attribute error
	// still costs (see AttributeWeights). The default keeps seams: a seam
	// vertex only moves along its seam.
	Permissive bool

	// Progress, when set, hears how far the simplification has got: done
	// of total triangles removed (total: the input's triangles less the
	// target's, the last level's for Chain). It is called on the calling
	// goroutine before every collapse pass and once at the end with done
	// == total, whether or not the target was reached; done never
	// decreases. It does not change the output.
	Progress func(done, total int)

	// regionTris overrides defaultRegionTris (tests: regions on small meshes).
	regionTris int
	// probe, when set, observes the simplification (tests, see work.go).
	probe *probe
}

// Weights scale attribute differences against distances in the normalized
// (unit extent) space: a weighted attribute change of 1 across a triangle of
// size d costs about as much as moving a vertex by d.
type Weights struct{ Normal, UV, Color float32 }

// Attributes are optional per-vertex streams; nil means absent. A non-nil
// stream must have one entry per position.
type Attributes struct {
	Normals [][3]float32
	UV0     [][2]float32
	Colors  [][4]float32
}

// Result is one simplified index buffer.
type Result struct {
	// Indices is the reduced triangle list over the input vertex array;
	// every index was referenced by the input.
	Indices []uint32
	// Error is the largest error of the collapses performed (plus the
	// clustering error when the sloppy fallback ran), in TargetError's units.
	Error float32
	// Stalled reports that the target index count was not reached (the error
	// limit or the topology stopped the simplification).
	Stalled bool
	// Sloppy reports that the vertex-clustering fallback (Options.Sloppy)
	// ran and removed triangles; Error includes its clustering error.
	Sloppy bool
}

// Level is one reduced level of a Chain.
type Level struct {
	// Indices is empty when the level stalled: the engine should reuse the
	// previous level (LODT indexCount 0).
	Indices []uint32
	// Error is measured against the input (LOD0), in TargetError's units;
	// 0 for a stalled level.
	Error float32
	// Ratio is the requested fraction of the input triangle count.
	Ratio float32
	// Short reports that the level is kept but did not reach its target
	// (the error limit or the topology stopped it first).
	Short bool
	// Sloppy reports that the vertex-clustering fallback (Options.Sloppy)
	// made this level; Error includes its clustering error.
	Sloppy bool
}

// DefaultRatios returns the level ratios Chain uses when given none:
// 50% and 25% of the input triangle count.
func DefaultRatios() []float32 { return []float32{0.5, 0.25} }

// Simplify reduces a triangle list by quadric edge collapse and returns a new
// index buffer over the same vertex array; it never creates or moves vertices.
//
//   - indices is a triangle list (len % 3 == 0) of indices < len(positions);
//   - degenerate triangles (two corners at one position) are dropped;
//   - unless Stalled, len(Result.Indices) <= TargetIndexCount (it may land a
//     triangle or two below: a collapse removes two triangles at once);
//   - Result.Error <= the error limit, whether or not the target was met;
//   - surviving triangles keep their input order and winding;
//   - the output is deterministic: same input and options, same bytes.
func Simplify(indices []uint32, positions [][3]float32, attrs Attributes, opts Options) (Result, error) {
	return SimplifyContext(context.Background(), indices, positions, attrs, opts)
}

// SimplifyContext is Simplify that stops when ctx is done, returning an
// error that wraps ctx.Err(). It checks ctx before it starts, at every
// collapse pass and every few milliseconds of work within one (see
// pollWork), so a cancelled simplification returns within a bounded
// amount of work whatever the mesh.
func SimplifyContext(ctx context.Context, indices []uint32, positions [][3]float32, attrs Attributes, opts Options) (Result, error) {
	if err := validate(indices, positions, attrs, &opts); err != nil {
		return Result{}, err
	}
	if opts.TargetIndexCount < 0 || opts.TargetIndexCount%3 != 0 {
		return Result{}, fmt.Errorf("%w: target index count %d is not a non-negative multiple of 3", ErrInvalidInput, opts.TargetIndexCount)
	}
	c, s, err := prepare(ctx, indices, positions, attrs, opts)
	if err != nil {
		return Result{}, err
	}
	defer s.observed(opts.probe)
	target := opts.TargetIndexCount
	s.progressRange(target)
	if err := s.collapseTo(target); err != nil {
		return Result{}, err
	}
	out, errNorm, sloppy, err := s.finish(target, opts.Sloppy)
	if err != nil {
		return Result{}, err
	}
	s.progressDone()
	return Result{
		Indices: c.restore(out),
		Error:   s.reportError(errNorm),
		Stalled: len(out) > target,
		Sloppy:  sloppy,
	}, nil
}

// Chain builds reduced levels at the given fractions of the input triangle
// count (DefaultRatios when ratios is nil). Ratios must lie in (0, 1) and
// strictly decrease.
//
// The levels are snapshots of one continuing collapse sequence: level k+1
// starts from level k's index buffer but keeps the quadrics accumulated since
// LOD0. That costs one simplification instead of one per level, makes every
// level nest inside the previous one, and keeps each level's error measured
// against LOD0 rather than against the previous level (so errors never
// decrease along the chain). A level that cannot remove minLevelReduction of
// the previous non-empty level's triangles comes back with empty Indices.
func Chain(indices []uint32, positions [][3]float32, attrs Attributes, ratios []float32, opts Options) ([]Level, error) {
	return ChainContext(context.Background(), indices, positions, attrs, ratios, opts)
}

// ChainContext is Chain that stops when ctx is done, as SimplifyContext
// does.
func ChainContext(ctx context.Context, indices []uint32, positions [][3]float32, attrs Attributes, ratios []float32, opts Options) ([]Level, error) {
	if err := validate(indices, positions, attrs, &opts); err != nil {
		return nil, err
	}
	if ratios == nil {
		ratios = DefaultRatios()
	}
	for i, r := range ratios {
		if !(r > 0 && r < 1) {
			return nil, fmt.Errorf("%w: ratio %d is %v, want 0 < ratio < 1", ErrInvalidInput, i, r)
		}
		if i > 0 && r >= ratios[i-1] {
			return nil, fmt.Errorf("%w: ratio %d (%v) does not decrease", ErrInvalidInput, i, r)
		}
	}
	c, s, err := prepare(ctx, indices, positions, attrs, opts)
	if err != nil {
		return nil, err
	}
	defer s.observed(opts.probe)
	inputTris := len(indices) / 3
	prev := len(indices)
	levels := make([]Level, len(ratios))
	s.progressRange(int(float64(inputTris)*float64(ratios[len(ratios)-1])) * 3)
	for i, r := range ratios {
		levels[i].Ratio = r
		target := int(float64(inputTris)*float64(r)) * 3
		if err := s.collapseTo(target); err != nil {
			return nil, err
		}
		out, errNorm, sloppy, err := s.finish(target, opts.Sloppy)
		if err != nil {
			return nil, err
		}
		if float64(len(out)) > float64(prev)*(1-minLevelReduction) {
			continue // stalled: empty level
		}
		levels[i].Indices = c.restore(out)
		levels[i].Error = s.reportError(errNorm)
		levels[i].Short = len(out) > target
		levels[i].Sloppy = sloppy
		prev = len(out)
	}
	s.progressDone()
	return levels, nil
}

// finish returns the collapsed result and its normalized error, or, when
// collapse stopped above target and sloppy is allowed, the clustering
// fallback's result and total error; the flag reports that the fallback
// removed triangles. The error is the context's, if it stopped the
// fallback.
func (s *state) finish(target int, sloppy bool) ([]uint32, float64, bool, error) {
	out, errNorm := s.result, math.Sqrt(s.maxErr)
	if len(out) <= target || !sloppy {
		return out, errNorm, false, nil
	}
	fb, fbErr := s.sloppyFallback(target)
	if s.err != nil {
		return nil, 0, false, s.err
	}
	if len(fb) >= len(out) {
		return out, errNorm, false, nil
	}
	return fb, fbErr, true, nil
}

// prepare compacts a validated input, checks its values, and builds the
// simplification state over the compacted vertices; ctx is checked before
// and after (each step is linear in the input).
func prepare(ctx context.Context, indices []uint32, positions [][3]float32, attrs Attributes, opts Options) (*compacted, *state, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("simplify: %w", err)
	}
	c := compact(indices, positions, attrs, opts.Locked)
	if err := c.checkFinite(indices, opts.AttributeWeights); err != nil {
		return nil, nil, err
	}
	opts.Locked = c.locked
	s := newState(c.indices, c.positions, c.attrs, &opts)
	c.release()
	s.ctx = ctx
	s.prog.fn = opts.Progress
	if opts.probe != nil {
		s.onPoll = opts.probe.onPoll
	}
	if s.stop() {
		return nil, nil, s.err
	}
	return c, s, nil
}

// Scale returns the extent that relative errors are measured against: the
// longest side of the axis-aligned box of the vertices indices reference
// (0 for no triangles). Multiply a relative Result.Error by it to get
// position units. Out-of-range indices are ignored.
func Scale(indices []uint32, positions [][3]float32) float32 {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, v := range indices {
		if uint64(v) >= uint64(len(positions)) {
			continue
		}
		for j, x := range positions[v] {
			lo[j] = min(lo[j], float64(x))
			hi[j] = max(hi[j], float64(x))
		}
	}
	ext := 0.0
	for j := range 3 {
		if hi[j] > lo[j] {
			ext = math.Max(ext, hi[j]-lo[j])
		}
	}
	return float32(ext)
}

// validate checks the structural input contracts and fills option
// defaults; checkFinite checks the values once the input is compacted.
func validate(indices []uint32, positions [][3]float32, attrs Attributes, opts *Options) error {
	n := len(positions)
	if uint64(n) > math.MaxUint32 {
		return fmt.Errorf("%w: %d vertices exceed the 32-bit index range", ErrInvalidInput, n)
	}
	if len(indices)%3 != 0 {
		return fmt.Errorf("%w: index count %d is not a multiple of 3", ErrInvalidInput, len(indices))
	}
	for i, v := range indices {
		if uint64(v) >= uint64(n) {
			return fmt.Errorf("%w: index %d (value %d) out of range for %d vertices", ErrInvalidInput, i, v, n)
		}
	}
	if attrs.Normals != nil && len(attrs.Normals) != n {
		return fmt.Errorf("%w: %d normals for %d vertices", ErrInvalidInput, len(attrs.Normals), n)
	}
	if attrs.UV0 != nil && len(attrs.UV0) != n {
		return fmt.Errorf("%w: %d UVs for %d vertices", ErrInvalidInput, len(attrs.UV0), n)
	}
	if attrs.Colors != nil && len(attrs.Colors) != n {
		return fmt.Errorf("%w: %d colors for %d vertices", ErrInvalidInput, len(attrs.Colors), n)
	}
	if len(opts.Locked) != 0 && len(opts.Locked) != n {
		return fmt.Errorf("%w: %d lock flags for %d vertices", ErrInvalidInput, len(opts.Locked), n)
	}
	te := float64(opts.TargetError)
	if math.IsNaN(te) || math.IsInf(te, 0) || te < 0 {
		return fmt.Errorf("%w: target error %v", ErrInvalidInput, opts.TargetError)
	}
	if te == 0 {
		opts.TargetError = DefaultTargetError
	}
	w := opts.AttributeWeights
	for _, x := range []float32{w.Normal, w.UV, w.Color} {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > maxWeight {
			return fmt.Errorf("%w: attribute weight %v, want 0..%v", ErrInvalidInput, x, maxWeight)
		}
	}
	return nil
}

// checkFinite checks the referenced vertices of a compacted input once
// each (validate checks structure only): positions, and the attributes
// that carry weight. Unreferenced garbage is allowed. Vertices are
// numbered in first-use order, so the first bad one is the one the
// earliest index refers to, which the error names.
func (c *compacted) checkFinite(indices []uint32, w Weights) error {
	a := c.attrs
	for k, p := range c.positions {
		what := ""
		switch {
		case !finite(p[:], math.MaxFloat32):
			what = "position"
		case w.Normal > 0 && a.Normals != nil && !finite(a.Normals[k][:], maxAttributeValue):
			what = "normal"
		case w.UV > 0 && a.UV0 != nil && !finite(a.UV0[k][:], maxAttributeValue):
			what = "UV"
		case w.Color > 0 && a.Colors != nil && !finite(a.Colors[k][:], maxAttributeValue):
			what = "color"
		default:
			continue
		}
		v := c.back[k]
		i := slices.Index(indices, v)
		return fmt.Errorf("%w: index %d: %s %d is not finite", ErrInvalidInput, i, what, v)
	}
	return nil
}

// maxWeight bounds attribute weights so that weighted quadrics stay finite.
const maxWeight = 1e6

// maxAttributeValue bounds attribute magnitudes for the same reason.
const maxAttributeValue = 1e12

// finite reports whether every component is a number of magnitude <= limit.
func finite(v []float32, limit float64) bool {
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.Abs(f) > limit {
			return false
		}
	}
	return true
}
