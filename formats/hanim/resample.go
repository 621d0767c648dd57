package hanim

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/meshcook/meshcook/mesh"
)

// Resampling of CUBICSPLINE channels (.hanim stores only step and linear).
//
// The rate is adaptive. Every source segment [t_k, t_k+1] is evaluated with
// glTF's cubic Hermite spline (glTF 2.0 Appendix C) in float64 and split in
// halves, recursively, until linear interpolation between a piece's two end
// values is within the tolerance of the spline at the piece's ¼, ½ and ¾
// points (largest absolute component difference), or the piece is
// 1/2^MaxSubdivisionDepth of the segment. Output keys are the source key
// times plus the split points, so a segment that is already straight costs
// no extra key. Rotations are normalized after evaluation, both the spline
// values and the linear ones they are compared with, so the error is
// measured on the unit quaternions a runtime would use.

// DefaultTolerance is the resampling tolerance FromScene callers use unless
// told otherwise: 1e-4 in the channel's units (0.1 mm for translations in
// metres, about 0.01° for unit quaternions, 0.01% for scales).
const DefaultTolerance = 1e-4

// MaxSubdivisionDepth bounds the splitting: at most 2^10 linear keys per
// source segment, whatever the tolerance.
const MaxSubdivisionDepth = 10

// Resample converts one model channel to a .hanim channel. Step and linear
// channels are copied as they are; cubic ones are resampled to linear keys
// within tolerance (a tolerance ≤ 0 or not finite means DefaultTolerance).
// It returns an error for a channel that breaks mesh.Channel's contracts:
// negative joint, unknown path or interpolation, a value count that does not
// match the keys, non-finite or decreasing times.
func Resample(ch mesh.Channel, tolerance float32) (Channel, error) {
	if ch.Joint < 0 || uint64(ch.Joint) > math.MaxUint32 {
		return Channel{}, fmt.Errorf("hanim: channel joint %d out of range", ch.Joint)
	}
	if ch.Path > mesh.PathWeights {
		return Channel{}, fmt.Errorf("hanim: joint %d: unknown path %d", ch.Joint, ch.Path)
	}
	if ch.Path == mesh.PathWeights && (ch.Targets < 1 || ch.Targets > MaxTargets) {
		return Channel{}, fmt.Errorf("hanim: submesh %d: morph weights of %d targets, want 1..%d", ch.Joint, ch.Targets, MaxTargets)
	}
	comps := ch.Width()
	per := comps
	switch ch.Interp {
	case mesh.InterpStep, mesh.InterpLinear:
	case mesh.InterpCubic:
		per = 3 * comps
	default:
		return Channel{}, fmt.Errorf("hanim: joint %d: unknown interpolation %d", ch.Joint, ch.Interp)
	}
	if len(ch.Values) != len(ch.Times)*per {
		return Channel{}, fmt.Errorf("hanim: joint %d path %d: %d values for %d keys of %d floats", ch.Joint, ch.Path, len(ch.Values), len(ch.Times), per)
	}
	for k, t := range ch.Times {
		if !finite(t) || t < 0 || (k > 0 && t < ch.Times[k-1]) {
			return Channel{}, fmt.Errorf("hanim: joint %d path %d: key %d: time %v is not finite, ≥ 0 and ascending", ch.Joint, ch.Path, k, t)
		}
	}
	for i, v := range ch.Values {
		if !finite(v) {
			return Channel{}, fmt.Errorf("hanim: joint %d path %d: value %d is not finite", ch.Joint, ch.Path, i)
		}
	}
	out := Channel{Joint: uint32(ch.Joint), Path: ch.Path, Interp: uint8(ch.Interp)}
	if ch.Path == mesh.PathWeights {
		out.Targets = ch.Targets
	}
	if ch.Interp != mesh.InterpCubic {
		out.Times = append([]float32{}, ch.Times...)
		out.Values = append([]float32{}, ch.Values...)
		return out, nil
	}
	if !(tolerance > 0) || !finite(tolerance) {
		tolerance = DefaultTolerance
	}
	out.Interp = InterpLinear
	rs := resampler{ch: ch, comps: comps, rotation: ch.Path == mesh.PathRotation, tol: float64(tolerance), out: &out}
	n := len(ch.Times)
	for k := 0; k < n; k++ {
		rs.emit(float64(ch.Times[k]), rs.key(k))
		if k+1 < n && ch.Times[k+1] > ch.Times[k] {
			rs.segment(k)
		}
	}
	return out, nil
}

// resampler holds one cubic channel being resampled.
type resampler struct {
	ch       mesh.Channel
	comps    int
	rotation bool
	tol      float64
	out      *Channel
}

// key returns key k's value (the middle of in-tangent, value, out-tangent).
func (r *resampler) key(k int) []float64 {
	v := make([]float64, r.comps)
	base := (3*k + 1) * r.comps
	for j := range v {
		v[j] = float64(r.ch.Values[base+j])
	}
	return r.unit(v)
}

// eval is the Hermite spline of segment k at s in [0, 1].
func (r *resampler) eval(k int, s float64) []float64 {
	td := float64(r.ch.Times[k+1]) - float64(r.ch.Times[k])
	s2, s3 := s*s, s*s*s
	h00, h10 := 2*s3-3*s2+1, s3-2*s2+s
	h01, h11 := -2*s3+3*s2, s3-s2
	c := r.comps
	v0 := r.ch.Values[(3*k+1)*c:] // value k
	b0 := r.ch.Values[(3*k+2)*c:] // out-tangent k
	a1 := r.ch.Values[(3*k+3)*c:] // in-tangent k+1
	v1 := r.ch.Values[(3*k+4)*c:] // value k+1
	out := make([]float64, c)
	for j := range out {
		out[j] = h00*float64(v0[j]) + h10*td*float64(b0[j]) + h01*float64(v1[j]) + h11*td*float64(a1[j])
	}
	return r.unit(out)
}

// unit normalizes a rotation; other paths pass through.
func (r *resampler) unit(v []float64) []float64 {
	if !r.rotation {
		return v
	}
	var l2 float64
	for _, x := range v {
		l2 += x * x
	}
	if l2 > 0 && !math.IsInf(l2, 0) {
		l := math.Sqrt(l2)
		for j := range v {
			v[j] /= l
		}
	}
	return v
}

// segment emits the split points of segment k after its first key, up to
// (not including) key k+1, which the caller emits.
func (r *resampler) segment(k int) {
	t0 := float64(r.ch.Times[k])
	td := float64(r.ch.Times[k+1]) - t0
	var split func(s0, s1 float64, f0, f1 []float64, depth int)
	split = func(s0, s1 float64, f0, f1 []float64, depth int) {
		if depth < MaxSubdivisionDepth && r.worst(k, s0, s1, f0, f1) > r.tol {
			sm := (s0 + s1) / 2
			fm := r.eval(k, sm)
			split(s0, sm, f0, fm, depth+1)
			r.emit(t0+sm*td, fm)
			split(sm, s1, fm, f1, depth+1)
		}
	}
	split(0, 1, r.key(k), r.key(k+1), 0)
}

// worst is the largest component difference between the spline and the
// linear interpolation of its end values at the piece's quarter points.
func (r *resampler) worst(k int, s0, s1 float64, f0, f1 []float64) float64 {
	worst := 0.0
	lin := make([]float64, r.comps)
	for _, u := range [3]float64{0.25, 0.5, 0.75} {
		spline := r.eval(k, s0+u*(s1-s0))
		for j := range lin {
			lin[j] = f0[j] + u*(f1[j]-f0[j])
		}
		r.unit(lin)
		for j := range lin {
			worst = max(worst, math.Abs(spline[j]-lin[j]))
		}
	}
	return worst
}

func (r *resampler) emit(t float64, v []float64) {
	r.out.Times = append(r.out.Times, float32(t))
	for _, x := range v {
		r.out.Values = append(r.out.Values, float32(x))
	}
}

// FromScene turns the model's animations into clips, one per animation in
// order, resampling cubic channels with Resample. Channels that break
// mesh.Channel's contracts are dropped; the warnings (one line each, counted
// per clip) say what was dropped, which morph-weight channels the source had
// and how many keys resampling produced. A clip's duration is the larger of
// the animation's Duration and its last key time.
func FromScene(anims []mesh.Animation, tolerance float32) ([]Clip, []string) {
	var warnings []string
	clips := make([]Clip, 0, len(anims))
	for ai, a := range anims {
		c := Clip{Name: a.Name, Channels: make([]Channel, 0, len(a.Channels))}
		if finite(a.Duration) && a.Duration > 0 {
			c.Duration = a.Duration
		}
		var dropped, cubic, cubicIn, cubicOut int
		var firstErr error
		for _, ch := range a.Channels {
			h, err := Resample(ch, tolerance)
			if err != nil {
				dropped++
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			if ch.Interp == mesh.InterpCubic {
				cubic++
				cubicIn += len(ch.Times)
				cubicOut += len(h.Times)
			}
			if n := len(h.Times); n > 0 {
				c.Duration = max(c.Duration, h.Times[n-1])
			}
			c.Channels = append(c.Channels, h)
		}
		name := fmt.Sprintf("clip %d %q", ai, a.Name)
		if !utf8.ValidString(c.Name) {
			c.Name = strings.ToValidUTF8(c.Name, "\uFFFD")
			warnings = append(warnings, fmt.Sprintf("%s: invalid UTF-8 in the name replaced", name))
		}
		if len(c.Name) > MaxNameLen {
			c.Name = truncateUTF8(c.Name, MaxNameLen)
			warnings = append(warnings, fmt.Sprintf("%s: name cut to %d bytes", name, MaxNameLen))
		}
		if dropped > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: dropped %d invalid channels (first: %v)", name, dropped, firstErr))
		}
		if a.SkippedWeightChannels > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: skipped %d morph-weight channels (.hanim has no path for them)", name, a.SkippedWeightChannels))
		}
		if cubic > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: resampled %d CUBICSPLINE channels to linear (%d keys → %d)", name, cubic, cubicIn, cubicOut))
		}
		clips = append(clips, c)
	}
	return clips, warnings
}

// truncateUTF8 cuts valid UTF-8 s to at most n bytes without splitting a
// rune.
func truncateUTF8(s string, n int) string {
	b := []byte(s)[:n]
	for len(b) > 0 && b[len(b)-1]&0xC0 == 0x80 {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && b[len(b)-1] >= 0xC0 {
		b = b[:len(b)-1]
	}
	return string(b)
}
