package fbx

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

const sec = ticksPerSecond

// curveObj is an AnimationCurve with one attribute per key.
func curveObj(id int64, times []int64, values []float32, flags []int32, data []float32) *Node {
	refs := make([]int32, len(times))
	for i := range refs {
		refs[i] = 1
	}
	if flags == nil {
		flags = make([]int32, len(times))
		for i := range flags {
			flags[i] = attrLinear
		}
	}
	if data == nil {
		data = make([]float32, 4*len(times))
	}
	return n("AnimationCurve", id, "AnimCurve::", "", n("Default", 0.0), n("KeyVer", int32(4008)),
		n("KeyTime", times), n("KeyValueFloat", values), n("KeyAttrFlags", flags),
		n("KeyAttrDataFloat", data), n("KeyAttrRefCount", refs))
}

// animScene is skinScene (Hip with child Knee) plus one stack, spanning
// 0.5 s to 2.5 s, whose base layer turns Knee about Z from 0° to 90°
// linearly over 1–2 s, holds Hip's X translation at 1 then jumps it to 5 at
// 2 s (a constant key), and moves Knee's Y translation along a cubic; an
// additive layer at weight 50 adds 10° to Knee's Z rotation; a non-joint
// mesh model's translation is animated too.
func animScene(v int) []*Node {
	nodes := skinScene(v)
	objects, conns := nodes[3], nodes[4]
	add := func(nd ...*Node) { objects.Children = append(objects.Children, nd...) }
	c := func(kind string, child, parent int64, prop ...string) {
		args := []any{kind, child, parent}
		for _, p := range prop {
			args = append(args, p)
		}
		conns.Children = append(conns.Children, n("C", args...))
	}
	add(n("AnimationStack", int64(900), "AnimStack::Walk", "", props70(
		P("LocalStart", "KTime", int64(sec/2)), P("LocalStop", "KTime", int64(5*sec/2)))),
		n("AnimationLayer", int64(901), "AnimLayer::Base", ""),
		n("AnimationLayer", int64(902), "AnimLayer::Extra", "", props70(P("Weight", "Number", 50.0), P("BlendMode", "enum", int32(0)))),
		// Knee rotation, base layer.
		n("AnimationCurveNode", int64(910), "AnimCurveNode::R", "", props70(P("d|X", "Number", 0.0), P("d|Y", "Number", 0.0), P("d|Z", "Number", 0.0))),
		curveObj(911, []int64{sec, 2 * sec}, []float32{0, 90}, nil, nil),
		// Hip translation X: constant keys.
		n("AnimationCurveNode", int64(920), "AnimCurveNode::T", "", props70(P("d|X", "Number", 1.0), P("d|Y", "Number", 0.0), P("d|Z", "Number", 0.0))),
		curveObj(921, []int64{sec / 2, 2 * sec}, []float32{1, 5}, []int32{attrConstant, attrConstant}, nil),
		// Knee translation Y: cubic from 2 to 4 over 0.5–2.5 s, slopes 0 and 3/s.
		n("AnimationCurveNode", int64(930), "AnimCurveNode::T", "", props70(P("d|X", "Number", 0.0), P("d|Y", "Number", 2.0), P("d|Z", "Number", 0.0))),
		curveObj(931, []int64{sec / 2, 5 * sec / 2}, []float32{2, 4}, []int32{attrCubic, attrCubic}, []float32{0, 3, 0, 0, 0, 0, 0, 0}),
		// Knee rotation, additive layer: +10° about Z, constant.
		n("AnimationCurveNode", int64(940), "AnimCurveNode::R", "", props70(P("d|X", "Number", 0.0), P("d|Y", "Number", 0.0), P("d|Z", "Number", 10.0))),
		// The mesh model's translation (not a joint).
		n("AnimationCurveNode", int64(950), "AnimCurveNode::T", "", props70(P("d|X", "Number", 0.0), P("d|Y", "Number", 0.0), P("d|Z", "Number", 10.0))),
		curveObj(951, []int64{0, sec}, []float32{0, 3}, nil, nil),
	)
	c("OO", 901, 900)
	c("OO", 902, 900)
	for _, cn := range []int64{910, 920, 930, 950} {
		c("OO", cn, 901)
	}
	c("OO", 940, 902)
	c("OP", 910, 202, "Lcl Rotation")
	c("OP", 911, 910, "d|Z")
	c("OP", 920, 201, "Lcl Translation")
	c("OP", 921, 920, "d|X")
	c("OP", 930, 202, "Lcl Translation")
	c("OP", 931, 930, "d|Y")
	c("OP", 940, 202, "Lcl Rotation")
	c("OP", 950, 200, "Lcl Translation")
	c("OP", 951, 950, "d|X")
	return nodes
}

// channelAt evaluates a linear channel at t.
func channelAt(ch mesh.Channel, t float32) []float64 {
	comps := ch.Path.Components()
	val := func(k int) []float64 {
		out := make([]float64, comps)
		for i := range out {
			out[i] = float64(ch.Values[k*comps+i])
		}
		return out
	}
	n := len(ch.Times)
	if t <= ch.Times[0] {
		return val(0)
	}
	// the last key at or before t (after a jump, its right side)
	k := 0
	for k+1 < n && ch.Times[k+1] <= t {
		k++
	}
	if k == n-1 {
		return val(k)
	}
	u := float64((t - ch.Times[k]) / (ch.Times[k+1] - ch.Times[k]))
	a, b := val(k), val(k+1)
	for i := range a {
		a[i] += (b[i] - a[i]) * u
	}
	if ch.Path == mesh.PathRotation {
		normalize(a)
	}
	return a
}

func findChannel(t *testing.T, a mesh.Animation, joint int, path mesh.AnimPath) mesh.Channel {
	t.Helper()
	for _, ch := range a.Channels {
		if ch.Joint == joint && ch.Path == path {
			return ch
		}
	}
	t.Fatalf("no channel for joint %d path %d", joint, path)
	return mesh.Channel{}
}

func TestAnimationStack(t *testing.T) {
	sc := decodeAll(t, animScene, Options{PreserveSpace: true})
	require.Len(t, sc.Animations, 1)
	a := sc.Animations[0]
	require.Equal(t, "Walk", a.Name)
	require.InDelta(t, 2.0, a.Duration, 1e-6) // LocalStop − LocalStart
	hip, knee := 0, 1                         // parents first
	require.Equal(t, "Knee", sc.Skeleton.Joints[knee].Name)

	// Knee rotation: 0° until 1 s (0.5 s into the clip), 90° at 2 s, plus
	// half of the additive layer's 10°.
	rot := findChannel(t, a, knee, mesh.PathRotation)
	for _, tc := range []struct{ clipT, deg float64 }{{0, 5}, {0.5, 5}, {1, 50}, {1.25, 72.5}, {1.5, 95}, {2, 95}} {
		q := channelAt(rot, float32(tc.clipT))
		half := tc.deg * math.Pi / 360
		require.InDeltaSlice(t, []float64{0, 0, math.Sin(half), math.Cos(half)}, q, 2e-4, "knee rotation at %gs", tc.clipT)
	}
	for _, x := range rot.Times {
		require.GreaterOrEqual(t, x, float32(0))
		require.LessOrEqual(t, x, float32(2))
	}

	// Hip translation X: 1 until 2 s (1.5 s into the clip), then 5; the
	// jump is two keys at the same time.
	tr := findChannel(t, a, hip, mesh.PathTranslation)
	require.InDelta(t, 1.0, channelAt(tr, 1.4)[0], 1e-6)
	require.InDelta(t, 5.0, channelAt(tr, 1.5)[0], 1e-6)
	require.InDelta(t, 5.0, channelAt(tr, 2)[0], 1e-6)
	jumps := 0
	for k := 1; k < len(tr.Times); k++ {
		if tr.Times[k] == tr.Times[k-1] {
			jumps++
		}
	}
	require.Equal(t, 1, jumps, "times %v", tr.Times)

	// Knee translation Y: the cubic Bézier (slopes 0 and 3 per second over
	// a 2 s segment, weights 1/3) within the tolerance.
	ty := findChannel(t, a, knee, mesh.PathTranslation)
	for _, u := range []float64{0, 0.1, 0.33, 0.5, 0.77, 1} {
		s := u // unweighted: time fraction = curve parameter
		p1, p2 := 2.0, 4-3*2.0/3
		want := math.Pow(1-s, 3)*2 + 3*math.Pow(1-s, 2)*s*p1 + 3*(1-s)*s*s*p2 + s*s*s*4
		require.InDelta(t, want, channelAt(ty, float32(2*u))[1], 1.5e-4, "cubic at u=%g", u)
	}
	// A constant channel keeps two keys.
	require.Len(t, findChannel(t, a, hip, mesh.PathScale).Times, 2)

	// The mesh model's animation is counted, not dropped silently.
	require.Contains(t, sc.Drops, mesh.Drop{What: "animated nodes that are not skin joints (node animation, counted per clip)", Count: 1})
	require.True(t, hasWarning(sc.Warnings, "dropped 1 animated nodes that are not skin joints"), "%v", sc.Warnings)
}

func hasWarning(ws []string, prefix string) bool {
	for _, w := range ws {
		if strings.HasPrefix(w, prefix) {
			return true
		}
	}
	return false
}

// The bezier solver follows weighted tangents: with both weights 1/3 the
// time fraction is the curve parameter; heavier weights pull the value.
func TestBezierWeights(t *testing.T) {
	for _, u := range []float64{0, 0.25, 0.5, 1} {
		require.InDelta(t, u, bezier(u, 0, 1, 1, 1, defaultWeight, defaultWeight), 1e-12) // a straight line
	}
	// Slope 0 at both ends: symmetric ease, exactly 0.5 at the middle.
	require.InDelta(t, 0.5, bezier(0.5, 0, 1, 0, 0, 0.6, 0.6), 1e-9)
	require.Less(t, bezier(0.2, 0, 1, 0, 0, 0.6, 0.6), bezier(0.2, 0, 1, 0, 0, defaultWeight, defaultWeight))
}

// Curve key arrays that disagree are skipped with a warning; the bound on
// work is the file's own key count.
func TestCurveRejects(t *testing.T) {
	s := newScene(&Document{Root: &Node{}}, Options{}.withDefaults())
	bad := &object{node: n("AnimationCurve", int64(1), "AnimCurve::", "", n("KeyTime", []int64{0, 2, 1}), n("KeyValueFloat", []float32{0, 1, 2}))}
	_, ok := s.readCurve(bad)
	require.False(t, ok, "unordered times")
	bad = &object{node: n("AnimationCurve", int64(1), "AnimCurve::", "", n("KeyTime", []int64{0, 1}), n("KeyValueFloat", []float32{0}))}
	_, ok = s.readCurve(bad)
	require.False(t, ok, "length mismatch")
	c, ok := s.readCurve(&object{node: n("AnimationCurve", int64(1), "AnimCurve::", "", n("Default", 2.5))})
	require.True(t, ok)
	require.Equal(t, 2.5, c.eval(12345, false))
}
