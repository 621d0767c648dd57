package gltf

import (
	"fmt"
	"math"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/mesh"
)

// Component types of animation outputs: float, or (rotations only, glTF 2.0
// §5.7) normalized integers.
var (
	floatOnly          = []qgltf.ComponentType{qgltf.ComponentFloat}
	rotationComponents = []qgltf.ComponentType{
		qgltf.ComponentFloat, qgltf.ComponentByte, qgltf.ComponentUbyte,
		qgltf.ComponentShort, qgltf.ComponentUshort,
	}
	scalar = []qgltf.AccessorType{qgltf.AccessorScalar}
)

// animations imports every glTF animation, in order, as one mesh.Animation
// with a channel per joint translation, rotation or scale channel of the
// exported skin. Interpolation is kept (cubic values stay in-tangent,
// value, out-tangent per key). Channels on nodes that are not joints of
// skin 0, or with an extension's path, are skipped and counted in one
// warning; morph-weight channels are counted in SkippedWeightChannels only
// (the clip writer reports them). A joint whose exported parent space differs from
// its node parent's (non-joint nodes in between) gets its values composed
// with that offset, exactly when the offset is rigid with uniform scale.
func (im *importer) animations() ([]mesh.Animation, []string, error) {
	doc := im.doc
	var nonJoint, approx int
	out := make([]mesh.Animation, 0, len(doc.Animations))
	for ai, a := range doc.Animations {
		if a == nil {
			return nil, nil, fmt.Errorf("animations[%d] is null", ai)
		}
		anim := mesh.Animation{Name: a.Name}
		for ci, c := range a.Channels {
			if c == nil {
				return nil, nil, fmt.Errorf("animation %d: channels[%d] is null", ai, ci)
			}
			if c.Sampler < 0 || c.Sampler >= len(a.Samplers) || a.Samplers[c.Sampler] == nil {
				return nil, nil, fmt.Errorf("animation %d channel %d: sampler %d does not exist", ai, ci, c.Sampler)
			}
			var path mesh.AnimPath
			switch c.Target.Path {
			case qgltf.TRSTranslation:
				path = mesh.PathTranslation
			case qgltf.TRSRotation:
				path = mesh.PathRotation
			case qgltf.TRSScale:
				path = mesh.PathScale
			case qgltf.TRSWeights:
				anim.SkippedWeightChannels++ // reported by whoever cooks the clip (hanim.FromScene)
				continue
			default:
				nonJoint++ // an extension's path (KHR_animation_pointer)
				continue
			}
			if c.Target.Node == nil {
				nonJoint++ // targeted by an extension we do not read
				continue
			}
			node := *c.Target.Node
			if node < 0 || node >= len(doc.Nodes) {
				return nil, nil, fmt.Errorf("animation %d channel %d: node %d does not exist", ai, ci, node)
			}
			joint, ok := -1, false
			if im.skin != nil {
				joint, ok = im.skin.jointOf[node]
			}
			if !ok {
				nonJoint++
				continue
			}
			ch, err := im.channel(a.Samplers[c.Sampler], path)
			if err != nil {
				return nil, nil, fmt.Errorf("animation %d channel %d: sampler %d: %w", ai, ci, c.Sampler, err)
			}
			ch.Joint = joint
			if off := im.skin.offset[joint]; off != nil {
				offsetChannel(&ch, *off)
				if !im.skin.exact[joint] {
					approx++
				}
			}
			anim.Channels = append(anim.Channels, ch)
			anim.Duration = max(anim.Duration, ch.Times[len(ch.Times)-1])
		}
		out = append(out, anim)
	}
	var warnings []string
	if nonJoint > 0 {
		warnings = append(warnings, fmt.Sprintf("skipped %d animation channels whose target is not a joint of skin 0", nonJoint))
	}
	if approx > 0 {
		warnings = append(warnings, fmt.Sprintf("%d animation channels drive joints under sheared or non-uniformly scaled non-joint nodes and are approximate", approx))
	}
	return out, warnings, nil
}

// channel reads one sampler for a path: key times (finite, ≥ 0,
// non-decreasing) and values (keys × components, × 3 for CUBICSPLINE).
func (im *importer) channel(s *qgltf.AnimationSampler, path mesh.AnimPath) (mesh.Channel, error) {
	ch := mesh.Channel{Path: path}
	per := 1
	switch s.Interpolation {
	case qgltf.InterpolationLinear:
		ch.Interp = mesh.InterpLinear
	case qgltf.InterpolationStep:
		ch.Interp = mesh.InterpStep
	case qgltf.InterpolationCubicSpline:
		ch.Interp, per = mesh.InterpCubic, 3
	default:
		return ch, fmt.Errorf("interpolation %d", s.Interpolation)
	}
	times, _, err := im.floats(s.Input, scalar, floatOnly, im.keysLeft)
	if err != nil {
		return ch, fmt.Errorf("input: %w", err)
	}
	im.keysLeft -= len(times)
	for k, t := range times {
		if t < 0 || (k > 0 && t < times[k-1]) {
			return ch, fmt.Errorf("input: key %d: time %v is negative or before the previous key", k, t)
		}
	}
	ch.Times = times
	types, cts := vec3, floatOnly
	if path == mesh.PathRotation {
		types, cts = vec4, rotationComponents
	}
	if s.Output < 0 || s.Output >= len(im.doc.Accessors) {
		return ch, fmt.Errorf("output: accessor %d does not exist", s.Output)
	}
	oa := im.doc.Accessors[s.Output]
	if want := len(times) * per; oa.Count != want {
		return ch, fmt.Errorf("output: accessor %d has %d elements, want %d for %d keys", s.Output, oa.Count, want, len(times))
	}
	if oa.ComponentType != qgltf.ComponentFloat && !oa.Normalized {
		return ch, fmt.Errorf("output: accessor %d: integer rotations must be normalized", s.Output)
	}
	vals, _, err := im.floats(s.Output, types, cts, len(times)*per)
	if err != nil {
		return ch, fmt.Errorf("output: %w", err)
	}
	ch.Values = vals
	return ch, nil
}

// offsetChannel composes a joint's animated local values with the
// transform between its exported parent's space and its node parent's:
// local' = offset · local. With offset = T·R·s (uniform s) this is
// t' = offset(t), r' = R·r, s' = s·scale; otherwise the decomposed
// offset's rotation and scale are used, an approximation. Cubic tangents
// transform with the linear part only.
func offsetChannel(ch *mesh.Channel, off mesh.Mat4) {
	_, q, s := decompose(off)
	comps := ch.Path.Components()
	for k := 0; k*comps < len(ch.Values); k++ {
		v := ch.Values[k*comps : (k+1)*comps]
		tangent := ch.Interp == mesh.InterpCubic && k%3 != 1
		switch ch.Path {
		case mesh.PathTranslation:
			p := mesh.Vec3{v[0], v[1], v[2]}
			if tangent {
				p = off.Dir(p)
			} else {
				p = off.Point(p)
			}
			copy(v, p[:])
		case mesh.PathRotation:
			r := qmul(q, [4]float64{float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])})
			for j := range v {
				v[j] = float32(r[j])
			}
		case mesh.PathScale:
			// a uniform offset scale multiplies every axis (the first
			// axis's magnitude stands for it when it is not uniform)
			f := float32(math.Abs(s[0]))
			for j := range v {
				v[j] *= f
			}
		}
	}
}
