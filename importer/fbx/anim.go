package fbx

// Animation: every AnimationStack (7.x; 6.1 Takes in take.go) becomes one
// mesh.Animation named after it, spanning LocalStart to LocalStop (else
// ReferenceStart/Stop, else its keys). A stack's AnimationLayers blend in
// connection order: the first is the base; each later one, unless muted,
// blends by its Weight (percent, itself animatable): override layers move
// the value toward theirs, additive ones add theirs (scale multiplies by
// default: ScaleAccumulationMode 0). An AnimationCurveNode drives one
// property of one object (OP connection) through per-axis AnimationCurves
// (OP "d|X", "d|Y", "d|Z"; an axis without a curve keeps the node's own
// d|X… value).
//
// Joint channels are sampled, not copied: a joint's local transform relative
// to its parent joint is the product of the node transforms from below the
// parent joint down to the joint (transform.go's pivot chain with the
// animated Lcl Translation, Lcl Rotation and Lcl Scaling), converted to
// output space and split into translation, quaternion and scale. Keys go at
// every key time of every curve involved (both sides of a constant key's
// jump), and each segment is split in halves until linear interpolation
// (normalized for rotations) is within Options.AnimTolerance of the
// evaluated transform at the piece's ¼, ½ and ¾ points, at most
// maxAnimDepth times; then keys that linear interpolation of their
// neighbours reproduces within the tolerance are dropped. So cubic, TCB and
// Euler-through-rotation-order motion becomes linear quaternion keys within
// the same tolerance the cook resamples glTF CUBICSPLINE with.

import (
	"math"
	"slices"

	"github.com/meshcook/meshcook/mesh"
)

// maxAnimDepth bounds the halving of one segment (2^maxAnimDepth pieces).
const maxAnimDepth = 10

// transformProps are the node properties joint channels are made from.
var transformProps = [3]string{"Lcl Translation", "Lcl Rotation", "Lcl Scaling"}

// layerInfo is one AnimationLayer of a stack.
type layerInfo struct {
	obj      *object
	weight   float64 // percent
	weightCv *propAnim
	mode     int64 // 0 additive, 1 override, 2 override-passthrough
	scaleAdd bool  // ScaleAccumulationMode 1
	muted    bool
}

// propAnim is one AnimationCurveNode: three axis curves (nil where the axis
// keeps def).
type propAnim struct {
	axes [3]*curve
	def  [3]float64
	n    int // components the node animates (1 for a weight)
}

func (p *propAnim) eval(t int64, left bool) [3]float64 {
	var v [3]float64
	for i := range 3 {
		if p.axes[i] != nil {
			v[i] = p.axes[i].eval(t, left)
		} else {
			v[i] = p.def[i]
		}
	}
	return v
}

// times appends the key times of p's curves.
func (p *propAnim) times(out []int64) []int64 {
	for _, c := range p.axes {
		if c != nil {
			out = append(out, c.times...)
		}
	}
	return out
}

// layered is one node property's curve nodes, one per layer that animates
// it (nil for the others).
type layered []*propAnim

// stackInfo is one animation clip before sampling.
type stackInfo struct {
	name        string
	start, stop int64 // ticks
	layers      []layerInfo
	// props maps a Model to its animated transform properties.
	props map[*object]*[3]layered
	other bool // some other property is animated (warned, not imported)
}

// animations builds the clips of the joints in sk (ordered as the
// skeleton; bones[j] is joint j's Model) and returns the stacks read.
// Animated nodes no joint carries are counted in a warning unless rig,
// which rigNodes will carry them.
func (s *scene) animations(bones []*object, conv mesh.Mat4, rig bool) ([]mesh.Animation, []*stackInfo, error) {
	stacks := s.stacks()
	if len(stacks) == 0 {
		stacks = s.takes()
	}
	out := make([]mesh.Animation, 0, len(stacks))
	jointOf := make(map[*object]int, len(bones))
	for j, b := range bones {
		jointOf[b] = j
	}
	convInv := inverse(conv)
	for _, st := range stacks {
		a := mesh.Animation{Name: st.name, Duration: float32(float64(st.stop-st.start) / ticksPerSecond)}
		// Which animated nodes some joint's channels carry.
		carried := map[*object]bool{}
		for j, b := range bones {
			chain := s.jointChain(b, jointOf)
			animated := false
			for _, o := range chain {
				if st.props[o] != nil {
					animated, carried[o] = true, true
				}
			}
			if !animated {
				continue
			}
			chs, err := s.sampleJoint(st, j, chain, conv, convInv)
			if err != nil {
				return nil, nil, err
			}
			a.Channels = append(a.Channels, chs...)
		}
		for o := range st.props {
			if !carried[o] && !(rig && o.class == "Model") {
				s.dropf("animated nodes that are not skin joints (node animation, counted per clip)")
			}
		}
		out = append(out, a)
	}
	return out, stacks, nil
}

// jointChain lists the Models whose local transforms make joint b's local
// one, top down: from just below b's parent joint (or the scene root) to b.
func (s *scene) jointChain(b *object, jointOf map[*object]int) []*object {
	chain := []*object{b}
	seen := map[*object]bool{b: true}
	for p, steps := b.parent, 0; p != nil && !seen[p] && steps < maxAncestorWalk; p, steps = p.parent, steps+1 {
		if _, ok := jointOf[p]; ok {
			break
		}
		seen[p] = true
		chain = append(chain, p)
	}
	slices.Reverse(chain)
	return chain
}

// sampleJoint makes joint j's translation, rotation and scale channels for
// one stack.
func (s *scene) sampleJoint(st *stackInfo, j int, chain []*object, conv, convInv mesh.Mat4) ([]mesh.Channel, error) {
	var ticks []int64
	for _, o := range chain {
		if ps := st.props[o]; ps != nil {
			for _, l := range ps {
				for _, p := range l {
					if p != nil {
						ticks = p.times(ticks)
					}
				}
			}
		}
	}
	for _, l := range st.layers {
		if l.weightCv != nil {
			ticks = l.weightCv.times(ticks)
		}
	}
	ticks = append(ticks, st.start, st.stop)
	slices.Sort(ticks)
	ticks = slices.Compact(ticks)
	lo, _ := slices.BinarySearch(ticks, st.start)
	hi, found := slices.BinarySearch(ticks, st.stop)
	if found {
		hi++
	}
	ticks = ticks[lo:hi]

	eval := func(t int64, left bool) trs {
		m := mesh.Identity()
		for _, o := range chain {
			m = m.Mul(s.localTransformAt(o, st, t, left))
		}
		return splitTRS(conv.Mul(m).Mul(convInv))
	}
	tol := s.opts.AnimTolerance
	sm := &sampler{tol: tol, ttol: s.translationTolerance(), budget: &s.animBudget}
	for k, t := range ticks {
		if k > 0 {
			before := eval(t, true)
			sm.refine(eval, ticks[k-1], t, before)
			sm.add(t, before)
		}
		v := eval(t, false)
		if k == 0 || !sm.near(sm.last(), v) {
			sm.add(t, v)
		}
		if sm.over() {
			return nil, s.limitAt(nil, "animation %q needs more than %d keys", clip(st.name), maxAnimKeys)
		}
	}
	return sm.channels(j, st.start), nil
}

// translationTolerance is AnimTolerance for translations, in output units,
// but at most AnimTolerance times the scene's size (the diagonal of its
// meshes' bounds) when that is under one unit: keys placed within 0.1 mm
// would move a 2 cm model by 0.5% of its size, so small models get
// proportionally tighter keys. Rotations (unit quaternions) and scales are
// relative already and keep AnimTolerance.
func (s *scene) translationTolerance() float64 {
	tol := s.opts.AnimTolerance
	if s.size > 0 && s.size < 1 {
		return tol * s.size
	}
	return tol
}

// trs is one sampled local transform.
type trs struct {
	t, s [3]float64
	r    [4]float64
}

func splitTRS(m mesh.Mat4) trs {
	t, q, sc := decompose64(m)
	return trs{t: t, r: q, s: sc}
}

// animSample is one key: tick and value.
type animSample struct {
	tick int64
	v    trs
}

// maxAnimKeys bounds the keys sampled over a whole file (each costs 44
// bytes of output).
const maxAnimKeys = 1 << 22

type sampler struct {
	tol     float64
	ttol    float64 // translations (see translationTolerance)
	samples []animSample
	budget  *int
}

func (sm *sampler) last() trs { return sm.samples[len(sm.samples)-1].v }

func (sm *sampler) add(t int64, v trs) {
	if n := len(sm.samples); n > 0 {
		v.r = sameHemisphere(sm.samples[n-1].v.r, v.r)
	}
	sm.samples = append(sm.samples, animSample{t, v})
	*sm.budget--
}

func (sm *sampler) over() bool { return *sm.budget < 0 }

// refine adds the split points of the segment from the last sample (at a)
// to b, whose value from the left is vb.
func (sm *sampler) refine(eval func(int64, bool) trs, a, b int64, vb trs) {
	va := sm.last()
	var split func(a, b int64, va, vb trs, depth int)
	split = func(a, b int64, va, vb trs, depth int) {
		if depth >= maxAnimDepth || b-a < 2 || sm.over() {
			return
		}
		worst := 0.0
		for _, u := range [3]float64{0.25, 0.5, 0.75} {
			t := a + int64(float64(b-a)*u)
			worst = max(worst, sm.error(lerpTRS(va, vb, u), eval(t, true)))
		}
		if worst <= sm.tol {
			return
		}
		m := a + (b-a)/2
		vm := eval(m, true)
		vm.r = sameHemisphere(va.r, vm.r)
		split(a, m, va, vm, depth+1)
		sm.add(m, vm)
		split(m, b, vm, vb, depth+1)
	}
	vb.r = sameHemisphere(va.r, vb.r)
	split(a, b, va, vb, 0)
}

func (sm *sampler) near(a, b trs) bool { return sm.error(a, b) <= sm.tol }

// error is trsError with translations measured against their own
// tolerance (scaled onto tol).
func (sm *sampler) error(a, b trs) float64 {
	k := sm.tol / sm.ttol
	for c := range 3 {
		a.t[c] *= k
		b.t[c] *= k
	}
	return trsError(a, b)
}

// channels turns the samples into three linear channels (times relative to
// start), each with the keys linear interpolation needs.
func (sm *sampler) channels(j int, start int64) []mesh.Channel {
	out := make([]mesh.Channel, 0, 3)
	for _, path := range []mesh.AnimPath{mesh.PathTranslation, mesh.PathRotation, mesh.PathScale} {
		comps := path.Components()
		get := func(v trs) []float64 {
			switch path {
			case mesh.PathTranslation:
				return v.t[:]
			case mesh.PathRotation:
				return v.r[:]
			}
			return v.s[:]
		}
		tol := sm.tol
		if path == mesh.PathTranslation {
			tol = sm.ttol
		}
		keep := reduceKeys(sm.samples, func(i int) []float64 { return get(sm.samples[i].v) }, path == mesh.PathRotation, tol)
		ch := mesh.Channel{Joint: j, Path: path, Interp: mesh.InterpLinear,
			Times: make([]float32, 0, len(keep)), Values: make([]float32, 0, len(keep)*comps)}
		for _, i := range keep {
			ch.Times = append(ch.Times, float32(float64(sm.samples[i].tick-start)/ticksPerSecond))
			for _, x := range get(sm.samples[i].v) {
				ch.Values = append(ch.Values, float32(x))
			}
		}
		out = append(out, ch)
	}
	return out
}

// reduceKeys keeps the samples linear interpolation needs: greedily, the
// next kept key is the farthest one such that every sample in between is
// within tol of the line (normalized for rotations). The first and last
// samples are always kept; a constant channel keeps just those two.
func reduceKeys(samples []animSample, val func(int) []float64, rotation bool, tol float64) []int {
	n := len(samples)
	if n <= 2 {
		keep := make([]int, n)
		for i := range keep {
			keep[i] = i
		}
		return keep
	}
	keep := []int{0}
	a := 0
	for a < n-1 {
		b := a + 1
		// Extend while every sample between a and b+1 fits; look at most
		// 64 samples ahead so the scan stays linear.
		for b+1 < n && b+1-a <= 64 && fits(samples, val, rotation, tol, a, b+1) {
			b++
		}
		keep = append(keep, b)
		a = b
	}
	return keep
}

func fits(samples []animSample, val func(int) []float64, rotation bool, tol float64, a, b int) bool {
	ta, tb := samples[a].tick, samples[b].tick
	va, vb := val(a), val(b)
	for i := a + 1; i < b; i++ {
		u := 0.0
		if tb > ta {
			u = float64(samples[i].tick-ta) / float64(tb-ta)
		} else if samples[i].tick == ta {
			return false // a jump: keep both sides
		}
		vi := val(i)
		lin := make([]float64, len(va))
		for c := range lin {
			lin[c] = va[c] + (vb[c]-va[c])*u
		}
		if rotation {
			normalize(lin)
		}
		for c := range lin {
			if math.Abs(lin[c]-vi[c]) > tol {
				return false
			}
		}
	}
	return true
}

func lerpTRS(a, b trs, u float64) trs {
	var r trs
	for c := range 3 {
		r.t[c] = a.t[c] + (b.t[c]-a.t[c])*u
		r.s[c] = a.s[c] + (b.s[c]-a.s[c])*u
	}
	for c := range 4 {
		r.r[c] = a.r[c] + (b.r[c]-a.r[c])*u
	}
	normalize(r.r[:])
	return r
}

// trsError is the largest component difference of two transforms
// (rotations compared in the same hemisphere).
func trsError(a, b trs) float64 {
	b.r = sameHemisphere(a.r, b.r)
	e := 0.0
	for c := range 3 {
		e = max(e, math.Abs(a.t[c]-b.t[c]), math.Abs(a.s[c]-b.s[c]))
	}
	for c := range 4 {
		e = max(e, math.Abs(a.r[c]-b.r[c]))
	}
	return e
}

func sameHemisphere(ref, q [4]float64) [4]float64 {
	if ref[0]*q[0]+ref[1]*q[1]+ref[2]*q[2]+ref[3]*q[3] < 0 {
		return [4]float64{-q[0], -q[1], -q[2], -q[3]}
	}
	return q
}

func normalize(v []float64) {
	var l2 float64
	for _, x := range v {
		l2 += x * x
	}
	if l2 > 0 && !math.IsInf(l2, 0) {
		l := math.Sqrt(l2)
		for i := range v {
			v[i] /= l
		}
	}
}

// localTransformAt is localTransform with the stack's animated transform
// properties evaluated at tick t.
func (s *scene) localTransformAt(o *object, st *stackInfo, t int64, left bool) mesh.Mat4 {
	ps := st.props[o]
	if ps == nil {
		return s.localTransform(o)
	}
	return s.localTransformWith(o, func(name string, def float64) [3]float64 {
		static := s.propVec3(o, name, [3]float64{def, def, def})
		for i, pn := range transformProps {
			if pn == name && ps[i] != nil {
				return st.blend(ps[i], static, i == 2, t, left)
			}
		}
		return static
	})
}

// blend evaluates one property through the stack's layers.
func (st *stackInfo) blend(l layered, v [3]float64, isScale bool, t int64, left bool) [3]float64 {
	for i, li := range st.layers {
		p := l[i]
		if p == nil || li.muted {
			continue
		}
		lv := p.eval(t, left)
		w := li.weight
		if li.weightCv != nil {
			w = li.weightCv.eval(t, left)[0]
		}
		w = min(max(w/100, 0), 1)
		if i == 0 || li.mode != 0 { // base and override layers
			for c := range 3 {
				v[c] += (lv[c] - v[c]) * w
			}
			continue
		}
		for c := range 3 { // additive
			switch {
			case isScale && !li.scaleAdd:
				v[c] *= math.Pow(lv[c], w)
			default:
				v[c] += lv[c] * w
			}
		}
	}
	return v
}

// stacks reads every AnimationStack in Objects order.
func (s *scene) stacks() []*stackInfo {
	var out []*stackInfo
	for _, o := range s.objects {
		if o.class != "AnimationStack" {
			continue
		}
		st := &stackInfo{name: o.name, props: map[*object]*[3]layered{}}
		for _, lo := range o.kids("AnimationLayer", "") {
			li := layerInfo{obj: lo, weight: s.propFloat(lo, "Weight", 100), mode: s.propInt(lo, "BlendMode", 0),
				scaleAdd: s.propInt(lo, "ScaleAccumulationMode", 0) == 1, muted: s.propInt(lo, "Mute", 0) != 0}
			if cn := lo.propKids["Weight"]; cn != nil && cn.class == "AnimationCurveNode" {
				li.weightCv = s.curveNode(cn, [3]float64{li.weight})
			}
			if li.mode == 0 && len(st.layers) > 0 && s.propInt(lo, "RotationAccumulationMode", 0) == 0 {
				s.warnf("additive animation layers with rotation accumulated by layer blended by channel (Euler angles added)")
			}
			st.layers = append(st.layers, li)
		}
		var lo, hi int64 = math.MaxInt64, math.MinInt64
		for li, l := range st.layers {
			for _, cn := range l.obj.kids("AnimationCurveNode", "") {
				target, prop := cn.animTarget, cn.animProp
				if target == nil || (target.class == "AnimationLayer" && prop == "Weight") {
					continue // unconnected, or a layer's own weight (read above)
				}
				i := slices.Index(transformProps[:], prop)
				if target.class != "Model" || i < 0 {
					s.dropf("animated property %q of %s objects", clip(prop), target.class)
					st.other = true
					continue
				}
				def := s.propVec3(target, prop, [3]float64{})
				p := s.curveNode(cn, def)
				if p == nil {
					continue
				}
				for _, c := range p.axes {
					if c != nil && len(c.times) > 0 {
						lo, hi = min(lo, c.times[0]), max(hi, c.times[len(c.times)-1])
					}
				}
				ps := st.props[target]
				if ps == nil {
					ps = &[3]layered{}
					st.props[target] = ps
				}
				if ps[i] == nil {
					ps[i] = make(layered, len(st.layers))
				}
				ps[i][li] = p
			}
		}
		if len(st.props) == 0 && !st.other {
			continue // an empty stack (Blender writes one): nothing to import
		}
		if lo > hi {
			lo, hi = 0, 0
		}
		st.start, st.stop = lo, hi
		if ls, le := s.propInt(o, "LocalStart", math.MinInt64), s.propInt(o, "LocalStop", math.MinInt64); ls != math.MinInt64 && le != math.MinInt64 && le >= ls {
			st.start, st.stop = ls, le
		} else if rs, re := s.propInt(o, "ReferenceStart", math.MinInt64), s.propInt(o, "ReferenceStop", math.MinInt64); rs != math.MinInt64 && re != math.MinInt64 && re >= rs {
			st.start, st.stop = rs, re
		}
		out = append(out, st)
	}
	return out
}

// curveNode reads an AnimationCurveNode's axis curves and defaults (def
// for axes the node does not state).
func (s *scene) curveNode(cn *object, def [3]float64) *propAnim {
	p := &propAnim{}
	for i, axis := range [3]string{"d|X", "d|Y", "d|Z"} {
		p.def[i] = s.propFloat(cn, axis, def[i])
		if c := cn.propKids[axis]; c != nil && c.class == "AnimationCurve" {
			cv, ok := s.readCurve(c)
			if !ok {
				s.warnf("animation curves with mismatched or unordered keys skipped")
				continue
			}
			if cv.tcb {
				s.warnf("TCB animation keys evaluated through their stored slopes")
			}
			p.axes[i] = cv
		}
	}
	// A weight node's single axis is named "d|Weight".
	if c := cn.propKids["d|Weight"]; c != nil && c.class == "AnimationCurve" {
		p.def[0] = s.propFloat(cn, "d|Weight", def[0])
		if cv, ok := s.readCurve(c); ok {
			p.axes[0] = cv
		}
	}
	return p
}
