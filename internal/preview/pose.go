package preview

import (
	"fmt"
	"math"

	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/mesh"
)

// Pose poses a skinned .hmesh with clip at time t seconds (clamped to
// [0, duration]): each animated joint's local translation, rotation or
// scale replaces its bind value (step keys hold, linear keys blend;
// rotations blend along the shorter arc and are renormalised), joint
// matrices are composed parent first, and every vertex is moved by the
// weighted sum of its joints' (world · inverse bind) matrices (linear
// blend skinning). It replaces m's positions and normals; m must come from
// FromHMesh(f). Channels naming a joint past the skeleton are an error.
func Pose(m *Model, f *hmesh.File, clip *hanim.Clip, t float64) error {
	if f.Skin == nil || len(f.Joints) == 0 {
		return fmt.Errorf("preview: pose: mesh is not skinned (no SKIN/SKEL)")
	}
	if len(f.Skin) != len(m.Positions) || len(m.Normals) != len(m.Positions) {
		return fmt.Errorf("preview: pose: %d skin vertices for %d vertices", len(f.Skin), len(m.Positions))
	}
	if !(t >= 0) {
		t = 0
	}
	t = math.Min(t, float64(clip.Duration))
	type trs struct {
		t [3]float64
		r [4]float64
		s [3]float64
	}
	local := make([]trs, len(f.Joints))
	for j, jt := range f.Joints {
		local[j] = trs{[3]float64(f64(jt.BindT[:])), [4]float64(f64(jt.BindR[:])), [3]float64(f64(jt.BindS[:]))}
	}
	for ci := range clip.Channels {
		ch := &clip.Channels[ci]
		if int(ch.Joint) >= len(f.Joints) {
			return fmt.Errorf("preview: pose: clip %q channel %d animates joint %d of %d", clip.Name, ci, ch.Joint, len(f.Joints))
		}
		v, ok := sample(ch, t)
		if !ok {
			continue
		}
		l := &local[ch.Joint]
		switch ch.Path {
		case mesh.PathTranslation:
			l.t = [3]float64(v)
		case mesh.PathRotation:
			l.r = [4]float64(v)
		case mesh.PathScale:
			l.s = [3]float64(v)
		}
	}
	world := make([]mesh.Mat4, len(f.Joints))
	skin := make([]mesh.Mat4, len(f.Joints))
	for j, jt := range f.Joints {
		m4 := mesh.TRS(local[j].t, local[j].r, local[j].s)
		if jt.Parent >= 0 {
			if int(jt.Parent) >= j {
				return fmt.Errorf("preview: pose: joint %d has parent %d, not an earlier joint", j, jt.Parent)
			}
			m4 = world[jt.Parent].Mul(m4)
		}
		world[j] = m4
		var ib mesh.Mat4
		for k, x := range jt.InverseBind {
			ib[k] = float64(x)
		}
		skin[j] = m4.Mul(ib)
	}
	for v, sv := range f.Skin {
		var acc mesh.Mat4
		for k := range 4 {
			w := float64(sv.Weights[k])
			if w == 0 {
				continue
			}
			j := int(sv.Joints[k])
			if j >= len(skin) {
				return fmt.Errorf("preview: pose: vertex %d uses joint %d of %d", v, j, len(skin))
			}
			for e := range acc {
				acc[e] += float64(w * skin[j][e])
			}
		}
		m.Positions[v] = acc.Point(m.Positions[v])
		n := acc.Dir(m.Normals[v]).Normalize()
		m.Normals[v] = n
	}
	return nil
}

func f64(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

// sample returns channel ch's value at time t: the first key's value before
// it, the last key's after it, the earlier key's value between step keys,
// and a blend between linear keys. ok is false for a channel without keys.
func sample(ch *hanim.Channel, t float64) ([]float64, bool) {
	n := len(ch.Times)
	c := ch.Components()
	if n == 0 || len(ch.Values) < n*c {
		return nil, false
	}
	key := func(k int) []float64 { return f64(ch.Values[k*c : (k+1)*c]) }
	if t <= float64(ch.Times[0]) {
		return key(0), true
	}
	if t >= float64(ch.Times[n-1]) {
		return key(n - 1), true
	}
	// The last key at or before t.
	lo, hi := 0, n-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if float64(ch.Times[mid]) <= t {
			lo = mid
		} else {
			hi = mid
		}
	}
	a := key(lo)
	if ch.Interp == hanim.InterpStep {
		return a, true
	}
	b := key(hi)
	span := float64(ch.Times[hi]) - float64(ch.Times[lo])
	s := 0.0
	if span > 0 {
		s = (t - float64(ch.Times[lo])) / span
	}
	if ch.Path == mesh.PathRotation {
		var d float64
		for k := range 4 {
			d += float64(a[k] * b[k])
		}
		if d < 0 {
			for k := range 4 {
				b[k] = -b[k]
			}
		}
	}
	out := make([]float64, c)
	for k := range out {
		out[k] = a[k] + float64(s*(b[k]-a[k]))
	}
	return out, true
}
