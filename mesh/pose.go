package mesh

import "math"

// Pose evaluates animation anim of the scene at time t (seconds; before the
// first key a channel holds its first value, after the last its last) and
// returns every submesh's posed positions, the way a runtime draws them:
//
//  1. morph targets: position + Σ weight·delta, with each target's rest
//     Weight unless a PathWeights channel of the clip drives the submesh;
//  2. skinning (linear blend) when the scene has a skeleton and the submesh
//     has influences: joints posed from their bind TRS with the clip's
//     translation, rotation and scale channels replacing the animated
//     components, chained down the parents, times each inverse bind.
//
// Rotations interpolate by slerp (glTF's rule for LINEAR), CUBICSPLINE
// channels by the Hermite spline of glTF 2.0 Appendix C (rotations
// normalized). An anim outside the scene's animations poses the rest pose.
// Pose is a reference evaluator for tests and previews, not a cook stage.
func Pose(scene *Scene, anim int, t float32) [][]Vec3 {
	var a *Animation
	if anim >= 0 && anim < len(scene.Animations) {
		a = &scene.Animations[anim]
	}
	// joint matrices
	var skin []Mat4
	if sk := scene.Skeleton; sk != nil {
		n := len(sk.Joints)
		tt := make([][3]float64, n)
		rr := make([][4]float64, n)
		ss := make([][3]float64, n)
		for j, jt := range sk.Joints {
			tt[j] = [3]float64{float64(jt.BindT[0]), float64(jt.BindT[1]), float64(jt.BindT[2])}
			rr[j] = [4]float64{float64(jt.BindR[0]), float64(jt.BindR[1]), float64(jt.BindR[2]), float64(jt.BindR[3])}
			ss[j] = [3]float64{float64(jt.BindS[0]), float64(jt.BindS[1]), float64(jt.BindS[2])}
		}
		if a != nil {
			for i := range a.Channels {
				c := &a.Channels[i]
				if c.Joint < 0 || c.Joint >= n || c.Path > PathScale {
					continue
				}
				v := Sample(c, t)
				switch c.Path {
				case PathTranslation:
					copy(tt[c.Joint][:], v)
				case PathRotation:
					copy(rr[c.Joint][:], v)
				case PathScale:
					copy(ss[c.Joint][:], v)
				}
			}
		}
		world := make([]Mat4, n)
		skin = make([]Mat4, n)
		for j, jt := range sk.Joints {
			world[j] = TRS(tt[j], rr[j], ss[j])
			if p := jt.Parent; p >= 0 && p < j {
				world[j] = world[p].Mul(world[j])
			}
			var ib Mat4
			for k, v := range jt.InverseBind {
				ib[k] = float64(v)
			}
			skin[j] = world[j].Mul(ib)
		}
	}
	out := make([][]Vec3, len(scene.Submeshes))
	for si := range scene.Submeshes {
		s := &scene.Submeshes[si]
		w := make([]float64, len(s.Morphs))
		for k, m := range s.Morphs {
			w[k] = float64(m.Weight)
		}
		if a != nil {
			for i := range a.Channels {
				if c := &a.Channels[i]; c.Path == PathWeights && c.Joint == si && c.Targets == len(w) {
					copy(w, Sample(c, t))
				}
			}
		}
		pos := make([]Vec3, len(s.Positions))
		for v, p := range s.Positions {
			q := [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
			for k, m := range s.Morphs {
				if w[k] != 0 && m.Positions != nil {
					for c := range q {
						q[c] += w[k] * float64(m.Positions[v][c])
					}
				}
			}
			if skin != nil && s.Joints != nil && s.Weights != nil {
				var r [3]float64
				for k := range 4 {
					wt := float64(s.Weights[v][k])
					j := int(s.Joints[v][k])
					if wt == 0 || j >= len(skin) {
						continue
					}
					m := &skin[j]
					for c := range r {
						r[c] += wt * (m[c]*q[0] + m[4+c]*q[1] + m[8+c]*q[2] + m[12+c])
					}
				}
				q = r
			}
			pos[v] = Vec3{float32(q[0]), float32(q[1]), float32(q[2])}
		}
		out[si] = pos
	}
	return out
}

// Sample evaluates channel c at time t (clamped to its keys) and returns
// its Width() values in float64; see Pose for the interpolation rules.
func Sample(c *Channel, t float32) []float64 {
	w := c.Width()
	per := 1
	if c.Interp == InterpCubic {
		per = 3
	}
	n := len(c.Times)
	out := make([]float64, w)
	if n == 0 || w <= 0 || len(c.Values) < n*per*w {
		return out
	}
	value := func(k int) []float32 {
		if per == 3 {
			return c.Values[(3*k+1)*w : (3*k+2)*w]
		}
		return c.Values[k*w : (k+1)*w]
	}
	set := func(v []float32) []float64 {
		for i := range out {
			out[i] = float64(v[i])
		}
		return out
	}
	if t <= c.Times[0] {
		return set(value(0))
	}
	if t >= c.Times[n-1] {
		return set(value(n - 1))
	}
	k := 0
	for k+1 < n && c.Times[k+1] <= t {
		k++
	}
	t0, t1 := float64(c.Times[k]), float64(c.Times[k+1])
	s := (float64(t) - t0) / (t1 - t0)
	rotation := c.Path == PathRotation
	switch c.Interp {
	case InterpStep:
		return set(value(k))
	case InterpCubic:
		td := t1 - t0
		s2, s3 := s*s, s*s*s
		h00, h10 := 2*s3-3*s2+1, s3-2*s2+s
		h01, h11 := -2*s3+3*s2, s3-s2
		v0, b0 := c.Values[(3*k+1)*w:], c.Values[(3*k+2)*w:]
		a1, v1 := c.Values[(3*k+3)*w:], c.Values[(3*k+4)*w:]
		for i := range out {
			out[i] = h00*float64(v0[i]) + h10*td*float64(b0[i]) + h01*float64(v1[i]) + h11*td*float64(a1[i])
		}
		if rotation {
			normalize(out)
		}
		return out
	}
	a, b := value(k), value(k+1)
	if rotation {
		return slerp(a, b, s)
	}
	for i := range out {
		out[i] = float64(a[i]) + s*(float64(b[i])-float64(a[i]))
	}
	return out
}

// slerp interpolates unit quaternions a and b along the shorter arc.
func slerp(a32, b32 []float32, s float64) []float64 {
	a := [4]float64{float64(a32[0]), float64(a32[1]), float64(a32[2]), float64(a32[3])}
	b := [4]float64{float64(b32[0]), float64(b32[1]), float64(b32[2]), float64(b32[3])}
	d := a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3]
	if d < 0 {
		d = -d
		for i := range b {
			b[i] = -b[i]
		}
	}
	ka, kb := 1-s, s
	if d < 1-1e-9 {
		th := math.Acos(min(d, 1))
		sn := math.Sin(th)
		ka, kb = math.Sin((1-s)*th)/sn, math.Sin(s*th)/sn
	}
	out := make([]float64, 4)
	for i := range out {
		out[i] = ka*a[i] + kb*b[i]
	}
	normalize(out)
	return out
}

func normalize(v []float64) {
	var l float64
	for _, x := range v {
		l += x * x
	}
	if l > 0 {
		l = math.Sqrt(l)
		for i := range v {
			v[i] /= l
		}
	}
}
