package tessellate

import (
	"encoding/binary"
	"math"
)

// Timber grain frame (seed 003, "Timber grain"). Baked buildings sample a
// white texture, so a timber part's two texture coordinates carry a frame
// the wood shader decodes instead of UVs:
//
//	v = GrainFrameOffset + member × GrainMemberStride + metres along the grain
//	u = the surface kind:
//	    ≥ 0        sawn face: metres across the grain from the face's edge
//	    [-2, -1]   round side of a log: -2 + fraction of the turn
//	    [-4, -3]   end grain: -4 + radius fraction (0 at the pith, 1 at the rim)
//	    [-6, -5]   hewn point of a sharpened stake (a cone's side): -6 + turn
//
// The grain runs along the axis of a round primitive and along a box's
// longest world axis. The member is a hash of the part's world centre (the
// float32 bits, FNV-1a) modulo GrainMembers: every log and board gets its
// own tree. The seed leaves the constants to the engine; meshcook decides
// these (docs/catalog.md).
const (
	GrainFrameOffset  = 8.0
	GrainMemberStride = 32.0 // metres; a longer member runs into the next
	GrainMembers      = 64   // keeps v below 2^11, where f32 still resolves 0.25 mm
)

type surface uint8

const (
	sawnFace surface = iota
	roundSide
	endGrain
	hewnPoint
)

// grainFrame is one part's grain: the world axis, where it starts, and the
// member's offset in v.
type grainFrame struct {
	axis   int // unit-space axis the grain runs along
	dir    [3]float64
	start  [3]float64
	offset float64
}

// newGrainFrame builds the frame for grain along unit axis `axis`, the part
// spanning centre ± half along it.
func newGrainFrame(p Part, axis int, centre [3]float64, half float64) grainFrame {
	g := grainFrame{axis: axis}
	d := p.Transform.Dir(unitAxis(axis))
	if l := length(d); l > 0 {
		g.dir = [3]float64{d[0] / l, d[1] / l, d[2] / l}
	}
	s := centre
	s[axis] -= half
	g.start = p.Transform.Point(s)
	g.offset = GrainFrameOffset + float64(memberOf(p.Transform))*GrainMemberStride
	return g
}

// uv returns the frame's (u, v) for a world position on a surface.
func (g grainFrame) uv(w [3]float64, surf surface, fraction float64) [2]float64 {
	along := dot([3]float64{w[0] - g.start[0], w[1] - g.start[1], w[2] - g.start[2]}, g.dir)
	f := math.Max(0, math.Min(1, fraction))
	var u float64
	switch surf {
	case sawnFace:
		u = math.Max(0, fraction)
	case roundSide:
		u = -2 + f
	case endGrain:
		u = -4 + f
	case hewnPoint:
		u = -6 + f
	}
	return [2]float64{u, g.offset + math.Max(0, along)}
}

// memberOf hashes the part's world centre (FNV-1a 32 over the float32 bits
// of x, y, z) into [0, GrainMembers).
func memberOf(t Transform) int {
	h := uint32(2166136261)
	var b [4]byte
	for r := 0; r < 3; r++ {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(float32(t[r][3])))
		for _, x := range b {
			h ^= uint32(x)
			h *= 16777619
		}
	}
	return int(h % GrainMembers)
}

// boxGrainAxis is the unit axis a box's transform stretches most (the
// lowest index on a tie).
func boxGrainAxis(t Transform) int {
	best, bl := 0, -1.0
	for k := 0; k < 3; k++ {
		if l := length(t.Dir(unitAxis(k))); l > bl {
			best, bl = k, l
		}
	}
	return best
}
