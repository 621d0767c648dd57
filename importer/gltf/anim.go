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
// value, out-tangent per key). A joint whose exported parent space differs
// from its node parent's (non-joint nodes in between) gets its values
// composed with that offset, exactly when the offset is rigid with uniform
// scale.
//
// Channels on other nodes are gathered for later: in a file without skins
// they become im.nodeChannels (node animation, which rigNodes turns into a
// rigid skeleton); in a skinned file they are dropped and counted.
// Morph-weight channels on nodes with a morphing mesh become
// im.weightChannels (placed on the node's submeshes by weightChannels).
// Channels with an extension's path or target are dropped and counted.
func (im *importer) animations(scene *mesh.Scene) ([]mesh.Animation, error) {
	doc := im.doc
	var skinnedNodes, extension, noMorph, approx int
	out := make([]mesh.Animation, 0, len(doc.Animations))
	for ai, a := range doc.Animations {
		if a == nil {
			return nil, fmt.Errorf("animations[%d] is null", ai)
		}
		anim := mesh.Animation{Name: a.Name}
		for ci, c := range a.Channels {
			if c == nil {
				return nil, fmt.Errorf("animation %d: channels[%d] is null", ai, ci)
			}
			if c.Sampler < 0 || c.Sampler >= len(a.Samplers) || a.Samplers[c.Sampler] == nil {
				return nil, fmt.Errorf("animation %d channel %d: sampler %d does not exist", ai, ci, c.Sampler)
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
				path = mesh.PathWeights
			default:
				extension++ // an extension's path (KHR_animation_pointer)
				continue
			}
			if c.Target.Node == nil {
				extension++ // targeted by an extension we do not read
				continue
			}
			node := *c.Target.Node
			if node < 0 || node >= len(doc.Nodes) {
				return nil, fmt.Errorf("animation %d channel %d: node %d does not exist", ai, ci, node)
			}
			sampler := a.Samplers[c.Sampler]
			wrap := func(err error) error {
				return fmt.Errorf("animation %d channel %d: sampler %d: %w", ai, ci, c.Sampler, err)
			}
			if path == mesh.PathWeights {
				targets := im.morphTargets(node)
				if targets == 0 {
					noMorph++
					continue
				}
				ch, err := im.channel(sampler, path, targets)
				if err != nil {
					return nil, wrap(err)
				}
				im.weightChannels = append(im.weightChannels, nodeChannel{anim: ai, node: node, ch: ch})
				continue
			}
			joint, ok := -1, false
			if im.skin != nil {
				joint, ok = im.skin.jointOf[node]
			}
			if !ok {
				if im.skin != nil {
					skinnedNodes++
					continue
				}
				ch, err := im.channel(sampler, path, 0)
				if err != nil {
					return nil, wrap(err)
				}
				im.nodeChannels = append(im.nodeChannels, nodeChannel{anim: ai, node: node, ch: ch})
				continue
			}
			ch, err := im.channel(sampler, path, 0)
			if err != nil {
				return nil, wrap(err)
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
	scene.Drop(skinnedNodes, "animation channels on nodes that are not joints of skin 0 (node animation in a skinned file, docs/import.md)")
	scene.Drop(extension, "animation channels with an extension's target or path (KHR_animation_pointer)")
	scene.Drop(noMorph, "morph-weight animation channels on nodes without a morphing mesh")
	if approx > 0 {
		scene.Warnings = append(scene.Warnings, fmt.Sprintf("%d animation channels drive joints under sheared or non-uniformly scaled non-joint nodes and are approximate", approx))
	}
	return out, nil
}

// nodeChannel is one channel of animation anim on a node that is not a
// joint (a transform path), or on a morphing mesh's node (PathWeights).
type nodeChannel struct {
	anim, node int
	ch         mesh.Channel
}

// morphTargets is the morph target count of node's mesh (0 when it has
// none or no mesh). glTF requires every primitive of a mesh to have the
// same count; the first primitive's is used.
func (im *importer) morphTargets(node int) int {
	m := im.doc.Nodes[node].Mesh
	if m == nil || *m < 0 || *m >= len(im.doc.Meshes) {
		return 0
	}
	for _, p := range im.doc.Meshes[*m].Primitives {
		return len(p.Targets)
	}
	return 0
}

// channel reads one sampler for a path: key times (finite, ≥ 0,
// non-decreasing) and values (keys × width, × 3 for CUBICSPLINE; the width
// is targets for PathWeights, else the path's components).
func (im *importer) channel(s *qgltf.AnimationSampler, path mesh.AnimPath, targets int) (mesh.Channel, error) {
	ch := mesh.Channel{Path: path, Targets: targets}
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
	if path == mesh.PathWeights {
		per *= targets // the output holds every target's weight per key
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
	switch path {
	case mesh.PathRotation:
		types, cts = vec4, rotationComponents
	case mesh.PathWeights:
		types, cts = scalar, rotationComponents // float or normalized integers (glTF 2.0 §5.7)
	}
	if s.Output < 0 || s.Output >= len(im.doc.Accessors) {
		return ch, fmt.Errorf("output: accessor %d does not exist", s.Output)
	}
	oa := im.doc.Accessors[s.Output]
	if want := len(times) * per; oa.Count != want {
		return ch, fmt.Errorf("output: accessor %d has %d elements, want %d for %d keys", s.Output, oa.Count, want, len(times))
	}
	if oa.ComponentType != qgltf.ComponentFloat && !oa.Normalized {
		return ch, fmt.Errorf("output: accessor %d: integer outputs must be normalized", s.Output)
	}
	if path == mesh.PathWeights && len(times)*per > im.keysLeft {
		return ch, fmt.Errorf("output: %d values exceed the remaining limit of %d (Options.MaxAnimationKeys)", len(times)*per, im.keysLeft)
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
