package fbx

// Animation curves (FBX 7.x AnimationCurve, and 6.1 Take channels read
// into the same form): key times in FBX ticks, values, and per key the
// interpolation of the segment it starts with the slopes and weights of a
// cubic one.

import (
	"math"
	"slices"
)

// ticksPerSecond is FBX's KTime unit.
const ticksPerSecond = 46186158000

// Key interpolation, from KeyAttrFlags (FbxAnimCurveDef).
const (
	attrConstant     = 0x00000002
	attrLinear       = 0x00000004
	attrCubic        = 0x00000008
	attrConstantNext = 0x00000100 // with attrConstant: hold the next key's value
	attrTangentAuto  = 0x00000100 // with attrCubic
	attrTangentTCB   = 0x00000200
	attrTangentUser  = 0x00000400
	attrTangentBreak = 0x00000800
	attrClamp        = 0x00001000
	attrClampProg    = 0x00004000
	attrWeightRight  = 0x01000000
	attrWeightLeft   = 0x02000000
)

type interp uint8

const (
	keyConstant interp = iota
	keyConstantNext
	keyLinear
	keyCubic
)

// defaultWeight is a cubic segment's tangent weight when the key has none
// (a third of the segment: plain Hermite timing).
const defaultWeight = 1.0 / 3

// curve is one animated scalar. Segment k (from key k to key k+1) uses
// interp[k]; a cubic one is the Bézier through (t_k, v_k),
// (t_k + wr·dt, v_k + wr·dt·right_k), (t_k+1 − wl·dt, v_k+1 − wl·dt·left_k),
// (t_k+1, v_k+1) with dt = t_k+1 − t_k, as the FBX SDK evaluates it.
type curve struct {
	times  []int64
	values []float64
	interp []interp
	// right and left are segment k's slopes (value per tick) leaving key
	// k and arriving at key k+1; wr and wl their weights.
	right, left, wr, wl []float64
	def                 float64
	tcb                 bool // some key had TCB tangents (evaluated through their stored slopes)
}

// eval returns the curve's value at tick t. With left, a key exactly at t
// is approached from before (the limit of the segment ending there), which
// tells a constant key's jump apart from its value.
func (c *curve) eval(t int64, left bool) float64 {
	n := len(c.times)
	switch {
	case n == 0:
		return c.def
	case t <= c.times[0]:
		return c.values[0]
	case t >= c.times[n-1] && !(left && t == c.times[n-1] && n > 1):
		return c.values[n-1]
	}
	// Segment k: times[k] <= t < times[k+1] (or t == times[k+1] from the left).
	k, found := slices.BinarySearch(c.times, t)
	if !found || left {
		k--
	}
	if k < 0 {
		return c.values[0]
	}
	if k >= n-1 {
		return c.values[n-1]
	}
	t0, t1 := c.times[k], c.times[k+1]
	v0, v1 := c.values[k], c.values[k+1]
	if t1 <= t0 {
		return v1
	}
	dt := float64(t1 - t0)
	u := float64(t-t0) / dt
	switch c.interp[k] {
	case keyConstant: // u reaches 1 only from the left: still v0
		return v0
	case keyConstantNext:
		return v1
	case keyLinear:
		return v0 + (v1-v0)*u
	}
	return bezier(u, v0, v1, c.right[k]*dt, c.left[k]*dt, c.wr[k], c.wl[k])
}

// bezier evaluates a cubic FBX segment at time fraction u: the curve's
// time fraction x(s) = 3wr·s(1−s)² + 3(1−wl)·s²(1−s) + s³ is solved for s
// (it is monotonic for weights in [0, 1]), then the value is the Bézier of
// v0, v0 + wr·d0, v1 − wl·d1, v1 at s, where d0 and d1 are the slopes times
// the segment's duration.
func bezier(u, v0, v1, d0, d1, wr, wl float64) float64 {
	wr, wl = clampWeight(wr), clampWeight(wl)
	x := func(s float64) float64 {
		r := 1 - s
		return 3*wr*s*r*r + 3*(1-wl)*s*s*r + s*s*s
	}
	s := u
	if wr != defaultWeight || wl != defaultWeight {
		lo, hi := 0.0, 1.0
		for range 48 {
			s = (lo + hi) / 2
			if x(s) < u {
				lo = s
			} else {
				hi = s
			}
		}
	}
	r := 1 - s
	p1, p2 := v0+wr*d0, v1-wl*d1
	return r*r*r*v0 + 3*r*r*s*p1 + 3*r*s*s*p2 + s*s*s*v1
}

func clampWeight(w float64) float64 {
	if !(w > 0) { // also NaN
		return defaultWeight
	}
	return min(w, 1)
}

// readCurve reads an AnimationCurve node (7.x). Arrays are as long as the
// file says (the parser bounds them by the bytes they take), and every
// per-key slice is at most KeyTime's length.
func (s *scene) readCurve(o *object) (*curve, bool) {
	nd := o.node
	c := &curve{}
	if d := nd.Child("Default").prop(0); d != nil && d.IsNumber() {
		c.def = d.AsFloat()
	}
	tp := firstArray(nd.Child("KeyTime"))
	vp := firstArray(nd.Child("KeyValueFloat"))
	if tp == nil && vp == nil {
		return c, true
	}
	if tp == nil || vp == nil || tp.Len() != vp.Len() {
		return nil, false
	}
	n := tp.Len()
	c.times = make([]int64, n)
	c.values = make([]float64, n)
	for i := range n {
		c.times[i] = tp.intAt(i)
		c.values[i] = vp.floatAt(i)
		if i > 0 && c.times[i] < c.times[i-1] {
			return nil, false
		}
		if math.IsNaN(c.values[i]) || math.IsInf(c.values[i], 0) {
			return nil, false
		}
	}
	auto := make([]bool, n)
	clamp := make([]bool, n)
	c.interp = make([]interp, n)
	c.right, c.left = make([]float64, n), make([]float64, n)
	c.wr, c.wl = make([]float64, n), make([]float64, n)
	flags := firstArray(nd.Child("KeyAttrFlags"))
	data := firstArray(nd.Child("KeyAttrDataFloat"))
	refs := firstArray(nd.Child("KeyAttrRefCount"))
	// Attribute a covers refs[a] consecutive keys; keys past the last
	// attribute reuse it, a file without attributes is linear.
	attr, left := 0, int64(-1)
	if refs != nil && refs.Len() > 0 {
		left = refs.intAt(0)
	}
	for k := range n {
		for refs != nil && left <= 0 && attr+1 < refs.Len() {
			attr++
			left = refs.intAt(attr)
		}
		left--
		f := int64(attrLinear)
		if flags != nil && attr < flags.Len() {
			f = flags.intAt(attr)
		}
		switch {
		case f&attrConstant != 0 && f&attrConstantNext != 0:
			c.interp[k] = keyConstantNext
		case f&attrConstant != 0:
			c.interp[k] = keyConstant
		case f&attrCubic != 0:
			c.interp[k] = keyCubic
			auto[k] = f&(attrTangentUser|attrTangentBreak|attrTangentTCB) == 0 && f&attrTangentAuto != 0
			clamp[k] = f&(attrClamp|attrClampProg) != 0
		default:
			c.interp[k] = keyLinear
		}
		if f&attrTangentTCB != 0 {
			c.tcb = true
		}
		c.wr[k], c.wl[k] = defaultWeight, defaultWeight
		if data != nil && 4*attr+3 < data.Len() {
			// Slopes are per second in the file.
			c.right[k] = attrFloat(data, 4*attr) / ticksPerSecond
			c.left[k] = attrFloat(data, 4*attr+1) / ticksPerSecond
			bits := packedWeights(data, 4*attr+2)
			if f&attrWeightRight != 0 {
				c.wr[k] = float64(bits&0xFFFF) / 9999
			}
			if f&attrWeightLeft != 0 {
				c.wl[k] = float64(bits>>16) / 9999
			}
		}
		if !finiteAll(c.right[k], c.left[k], c.wr[k], c.wl[k]) {
			c.interp[k] = keyLinear
		}
	}
	c.autoSlopes(auto, clamp)
	return c, true
}

// autoSlopes computes the slopes of auto-tangent keys, which the FBX SDK
// derives from the neighbouring keys when it evaluates (files store one
// shared, meaningless attribute for them): the Catmull-Rom slope through
// the neighbours, flat at the curve's ends and, when clamped, at a key
// that is not between its neighbours (no overshoot).
func (c *curve) autoSlopes(auto, clamp []bool) {
	n := len(c.times)
	slope := func(k int) float64 {
		if k == 0 || k == n-1 {
			return 0
		}
		v0, v, v1 := c.values[k-1], c.values[k], c.values[k+1]
		if clamp[k] && (v-v0)*(v1-v) <= 0 {
			return 0
		}
		dt := float64(c.times[k+1] - c.times[k-1])
		if dt <= 0 {
			return 0
		}
		return (v1 - v0) / dt
	}
	for k := 0; k < n; k++ {
		if auto[k] {
			c.right[k] = slope(k)
		}
		if k+1 < n && auto[k+1] {
			c.left[k] = slope(k + 1)
		}
	}
}

// attrFloat reads a KeyAttrDataFloat value: a float32 in binary files; an
// ASCII file writes the float32's bits as an integer (a list with decimals
// is taken as the values themselves).
func attrFloat(p *Property, i int) float64 {
	switch p.Type {
	case TypeInt32Array, TypeInt64Array:
		return float64(math.Float32frombits(uint32(p.intAt(i))))
	}
	return p.floatAt(i)
}

// packedWeights reads KeyAttrDataFloat's third value, two 16-bit weights
// (in 1/9999) stored in the bits of a float32 in binary files and written
// as that integer in ASCII ones.
func packedWeights(p *Property, i int) uint32 {
	if p.Type == TypeFloat32Array {
		return math.Float32bits(p.Float32s[i])
	}
	v := p.floatAt(i)
	if v < 0 || v > math.MaxUint32 || math.IsNaN(v) {
		return 0
	}
	return uint32(v)
}

func finiteAll(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// firstArray returns a node's first property when it is an array (nil
// otherwise, and for a nil node).
func firstArray(n *Node) *Property {
	if p := n.prop(0); p != nil && p.IsArray() {
		return p
	}
	return nil
}
