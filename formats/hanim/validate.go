package hanim

import (
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/meshcook/meshcook/mesh"
)

// Validate checks clips against the format's contracts, reporting the byte
// offset each offending field has once encoded:
//   - at most 2³²-1 clips, channels and keys; names valid UTF-8 of at most
//     MaxNameLen bytes;
//   - durations finite and ≥ 0;
//   - paths 0-3 (3 with 1..MaxTargets targets), interpolation step or
//     linear;
//   - len(Values) == len(Times) × components;
//   - times finite, ≥ 0, non-decreasing and ≤ the clip's duration;
//   - values finite.
//
// Joint indices are not checked here (the file does not hold the joint
// count); see CheckJoints.
func Validate(clips []Clip) error {
	if uint64(len(clips)) > math.MaxUint32 {
		return &FormatError{Offset: 8, Msg: fmt.Sprintf("%d clips exceed the u32 count", len(clips))}
	}
	off := int64(HeaderSize)
	for ci := range clips {
		c := &clips[ci]
		bad := func(at int64, format string, args ...any) error {
			return &FormatError{Offset: at, Msg: fmt.Sprintf("clip %d %q: ", ci, c.Name) + fmt.Sprintf(format, args...)}
		}
		if len(c.Name) > MaxNameLen {
			return bad(off, "name is %d bytes, at most %d", len(c.Name), MaxNameLen)
		}
		if !utf8.ValidString(c.Name) {
			return bad(off+2, "name is not valid UTF-8")
		}
		off += 2 + int64(len(c.Name))
		if !finite(c.Duration) || c.Duration < 0 {
			return bad(off, "duration %v is not finite and ≥ 0", c.Duration)
		}
		off += 4
		if uint64(len(c.Channels)) > math.MaxUint32 {
			return bad(off, "%d channels exceed the u32 count", len(c.Channels))
		}
		off += 4
		for hi := range c.Channels {
			h := &c.Channels[hi]
			if h.Path > mesh.PathWeights {
				return bad(off+4, "channel %d: path %d", hi, h.Path)
			}
			if h.Path == mesh.PathWeights && (h.Targets < 1 || h.Targets > MaxTargets) {
				return bad(off+6, "channel %d: morph weights of %d targets, want 1..%d", hi, h.Targets, MaxTargets)
			}
			if h.Interp > InterpLinear {
				return bad(off+5, "channel %d: interpolation %d (0 step or 1 linear)", hi, h.Interp)
			}
			comps := h.Components()
			if uint64(len(h.Times)) > math.MaxUint32 {
				return bad(off+8, "channel %d: %d keys exceed the u32 count", hi, len(h.Times))
			}
			if len(h.Values) != len(h.Times)*comps {
				return bad(off+8, "channel %d: %d values for %d keys of %d components", hi, len(h.Values), len(h.Times), comps)
			}
			off += ChannelHeaderSize
			last := float32(0)
			for k, t := range h.Times {
				switch {
				case !finite(t) || t < 0:
					return bad(off, "channel %d: key %d: time %v is not finite and ≥ 0", hi, k, t)
				case t < last:
					return bad(off, "channel %d: key %d: time %v before the previous key's %v", hi, k, t, last)
				case t > c.Duration:
					return bad(off, "channel %d: key %d: time %v past the duration %v", hi, k, t, c.Duration)
				}
				last = t
				for j, v := range h.Values[k*comps : (k+1)*comps] {
					if !finite(v) {
						return bad(off+4+4*int64(j), "channel %d: key %d: value %d is not finite", hi, k, j)
					}
				}
				off += 4 * int64(1+comps)
			}
		}
	}
	return nil
}

// CheckJoints reports the first joint channel whose joint is not below
// jointCount (the skeleton's joint count). Morph-weight channels are
// CheckTargets' business.
func CheckJoints(clips []Clip, jointCount int) error {
	for ci, c := range clips {
		for hi, h := range c.Channels {
			if h.Path != mesh.PathWeights && uint64(h.Joint) >= uint64(max(jointCount, 0)) {
				return fmt.Errorf("hanim: clip %d %q: channel %d: joint %d, skeleton has %d", ci, c.Name, hi, h.Joint, jointCount)
			}
		}
	}
	return nil
}

// CheckTargets reports the first morph-weight channel whose submesh is
// not below len(targets) or whose width is not targets[submesh] (each
// submesh's morph target count in the .hmesh beside the clips).
func CheckTargets(clips []Clip, targets []int) error {
	for ci, c := range clips {
		for hi, h := range c.Channels {
			if h.Path != mesh.PathWeights {
				continue
			}
			if uint64(h.Joint) >= uint64(len(targets)) {
				return fmt.Errorf("hanim: clip %d %q: channel %d: morph weights of submesh %d, mesh has %d", ci, c.Name, hi, h.Joint, len(targets))
			}
			if n := targets[h.Joint]; h.Targets != n {
				return fmt.Errorf("hanim: clip %d %q: channel %d: %d weights, submesh %d has %d morph targets", ci, c.Name, hi, h.Targets, h.Joint, n)
			}
		}
	}
	return nil
}

func finite(v float32) bool {
	return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
}
