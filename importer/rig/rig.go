// Package rig turns node animation into rigid skinning, for every importer
// whose sources animate plain nodes (glTF nodes that are not joints of a
// skin, FBX models that are not bones): a wheel turning on a car, a door
// swinging, cubes moved by keyframes. The .hmesh and .hanim formats animate
// only skeletons, so the animated nodes become joints and each vertex under
// them is bound to its node's joint with weight 1.
//
// # Manual
//
// An importer describes its node tree without any format of its own:
//
//   - Input.Nodes: every node of the source, each with a name, a parent
//     (an index into Nodes, -1 for a root; any order, no cycles) and its
//     rest-pose local transform as translation, rotation (unit quaternion
//     xyzw) and scale: the transform the node has when no clip plays.
//   - Input.Parts: which submeshes hang under which node. A part's
//     submesh (an index into the mesh.Scene's Submeshes) must already be
//     baked into scene space with the rest pose, as importers do for static
//     meshes: positions = world(node) · local positions. Nothing about the
//     submesh's streams changes; rig only adds Joints and Weights.
//   - Input.Channels: the node animation, one mesh.Channel per animated
//     node property (translation, rotation or scale of Node's local
//     transform, in the same units as Nodes' TRS), each tagged with the
//     index of the scene animation (clip) it belongs to. The channel's
//     Joint field is ignored; rig sets it.
//
// Apply(scene, in) then, when at least one channel is given:
//
//  1. Picks the skeleton: every animated node and every node between it
//     and its root (its ancestors), in parents-first order (a node's
//     ancestors right before it, nodes otherwise in index order). Each
//     joint's parent is its node's parent, so its bind TRS is exactly the
//     node's local rest TRS and every channel maps to its node's joint
//     with values unchanged. InverseBind is the inverse of the node's rest
//     world transform (composed from the TRS chain).
//  2. Binds every submesh of the scene rigidly (Joints = {j,0,0,0},
//     Weights = {1,0,0,0}): a part to the joint of its node, or of the
//     node's nearest ancestor in the skeleton (the static nodes in between
//     are already baked in); a submesh that is not a part, or whose node
//     has no skeleton ancestor, is static and binds to an extra root joint
//     named StaticJoint (identity bind), added as joint 0 only when some
//     submesh needs it. A rest pose therefore draws exactly what the baked
//     scene drew.
//  3. Appends the channels to scene.Animations[Animation] with Joint set,
//     and raises the clip's Duration to its last key.
//
// Apply refuses (and changes nothing) when the scene already has a
// Skeleton or skinned submeshes (merging with a skin is the importer's
// decision: see docs/import.md), when a node, part or channel index is out
// of range, the parents loop, a channel's values do not match its keys, a
// rest world transform is singular (a joint needs its inverse), or the
// skeleton would pass MaxJoints. Without channels it does nothing.
//
// rig knows nothing of files: importer/gltf and importer/fbx build the
// Input from their own documents.
package rig

import (
	"errors"
	"fmt"
	"math"

	"github.com/meshcook/meshcook/mesh"
)

// MaxJoints is the most joints a skeleton may have (skin streams hold
// joint indices as u16).
const MaxJoints = 1 << 16

// StaticJoint names the extra root joint that static submeshes bind to.
const StaticJoint = "static"

// Node is one node of the source's tree.
type Node struct {
	Name   string
	Parent int // index into Input.Nodes, -1 for a root
	// T, R and S are the rest-pose local transform: translation,
	// rotation (quaternion xyzw, normalized by Apply) and scale.
	T [3]float64
	R [4]float64
	S [3]float64
}

// Part says that a submesh hangs under a node.
type Part struct {
	Submesh int // index into mesh.Scene.Submeshes
	Node    int // index into Input.Nodes
}

// Channel is one animated property of one node within one clip.
type Channel struct {
	Animation int // index into mesh.Scene.Animations
	Node      int // index into Input.Nodes
	// Channel holds the path (translation, rotation or scale), the
	// interpolation, the key times and values; its Joint is set by Apply.
	mesh.Channel
}

// Input is an importer's node tree and its animation.
type Input struct {
	Nodes    []Node
	Parts    []Part
	Channels []Channel
}

// Result says what Apply did.
type Result struct {
	// Joints is the skeleton's joint count (0 when Apply did nothing).
	Joints int
	// Animated is the number of animated nodes.
	Animated int
	// Bound counts the submeshes bound to an animated part of the tree,
	// Static those bound to the static joint.
	Bound, Static int
	// Channels is the number of channels appended to the clips.
	Channels int
}

// ErrSkinned is returned by Apply for a scene that already has a skeleton
// or skinned submeshes.
var ErrSkinned = errors.New("rig: scene is already skinned")

// Apply builds the rigid skeleton for in's animated nodes into scene (see
// the package documentation). On error the scene is unchanged.
func Apply(scene *mesh.Scene, in Input) (Result, error) {
	if len(in.Channels) == 0 {
		return Result{}, nil
	}
	if scene.Skeleton != nil {
		return Result{}, ErrSkinned
	}
	for i := range scene.Submeshes {
		if scene.Submeshes[i].Joints != nil {
			return Result{}, ErrSkinned
		}
	}
	if err := check(scene, in); err != nil {
		return Result{}, err
	}

	// skeleton nodes: animated ones and their ancestors, parents first
	n := len(in.Nodes)
	animated := make([]bool, n)
	for _, c := range in.Channels {
		animated[c.Node] = true
	}
	joint := make([]int, n) // node → joint, -1 when not in the skeleton
	for i := range joint {
		joint[i] = -1
	}
	var order []int // nodes in joint order
	var chain []int
	res := Result{}
	for i := range in.Nodes {
		if !animated[i] {
			continue
		}
		res.Animated++
		chain = chain[:0]
		for j := i; j >= 0 && joint[j] < 0; j = in.Nodes[j].Parent {
			chain = append(chain, j)
			joint[j] = -2 // placed below
		}
		for k := len(chain) - 1; k >= 0; k-- {
			joint[chain[k]] = len(order)
			order = append(order, chain[k])
		}
	}

	// which submeshes bind where
	bind := make([]int, len(scene.Submeshes)) // node joint, -1 = static
	for i := range bind {
		bind[i] = -1
	}
	for _, p := range in.Parts {
		for j := p.Node; j >= 0; j = in.Nodes[j].Parent {
			if joint[j] >= 0 {
				bind[p.Submesh] = joint[j]
				break
			}
		}
	}
	static := 0
	for _, b := range bind {
		if b < 0 {
			static++
		}
	}
	base := 0
	if static > 0 {
		base = 1
	}
	if len(order)+base > MaxJoints {
		return Result{}, fmt.Errorf("rig: %d joints, at most %d", len(order)+base, MaxJoints)
	}

	// joints: bind TRS = local rest TRS, inverse bind = inverse rest world
	skel := &mesh.Skeleton{Joints: make([]mesh.Joint, 0, len(order)+base)}
	if base == 1 {
		skel.Joints = append(skel.Joints, mesh.Joint{
			Name: StaticJoint, Parent: -1, InverseBind: column32(mesh.Identity()),
			BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1},
		})
	}
	world := make([]mesh.Mat4, len(order))
	for k, node := range order {
		nd := in.Nodes[node]
		r := unit(nd.R)
		local := mesh.TRS(nd.T, r, nd.S)
		jt := mesh.Joint{
			Name:   nd.Name,
			Parent: -1,
			BindT:  vec3(nd.T),
			BindR:  mesh.Vec4{float32(r[0]), float32(r[1]), float32(r[2]), float32(r[3])},
			BindS:  vec3(nd.S),
		}
		if jt.Name == "" {
			jt.Name = fmt.Sprintf("node_%d", node)
		}
		world[k] = local
		if p := nd.Parent; p >= 0 {
			world[k] = world[joint[p]].Mul(local)
			jt.Parent = joint[p] + base
		}
		inv, ok := world[k].InverseAffine()
		if !ok {
			return Result{}, fmt.Errorf("rig: node %d %q: rest world transform is singular", node, nd.Name)
		}
		jt.InverseBind = column32(inv)
		skel.Joints = append(skel.Joints, jt)
	}

	// everything checked: change the scene
	scene.Skeleton = skel
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		j := 0
		if bind[i] >= 0 {
			j = bind[i] + base
			res.Bound++
		} else {
			res.Static++
		}
		s.Joints = make([][4]uint16, len(s.Positions))
		s.Weights = make([]mesh.Vec4, len(s.Positions))
		for v := range s.Joints {
			s.Joints[v] = [4]uint16{uint16(j), 0, 0, 0}
			s.Weights[v] = mesh.Vec4{1, 0, 0, 0}
		}
	}
	for _, c := range in.Channels {
		ch := c.Channel
		ch.Joint = joint[c.Node] + base
		a := &scene.Animations[c.Animation]
		a.Channels = append(a.Channels, ch)
		if k := len(ch.Times); k > 0 {
			a.Duration = max(a.Duration, ch.Times[k-1])
		}
		res.Channels++
	}
	res.Joints = len(skel.Joints)
	return res, nil
}

// check validates every index and channel of in against scene.
func check(scene *mesh.Scene, in Input) error {
	n := len(in.Nodes)
	for i, nd := range in.Nodes {
		if nd.Parent < -1 || nd.Parent >= n || nd.Parent == i {
			return fmt.Errorf("rig: node %d: parent %d out of range", i, nd.Parent)
		}
		for _, v := range append(append(nd.T[:3:3], nd.R[:]...), nd.S[:]...) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("rig: node %d %q: rest transform is not finite", i, nd.Name)
			}
		}
	}
	// parent chains end: a walk longer than n has looped
	state := make([]uint8, n) // 0 unvisited, 1 on this walk, 2 done
	var walk []int
	for i := range in.Nodes {
		walk = walk[:0]
		j := i
		for j >= 0 && state[j] == 0 {
			state[j] = 1
			walk = append(walk, j)
			j = in.Nodes[j].Parent
		}
		if j >= 0 && state[j] == 1 {
			return fmt.Errorf("rig: node parents loop through node %d", j)
		}
		for _, k := range walk {
			state[k] = 2
		}
	}
	seen := make([]bool, len(scene.Submeshes))
	for i, p := range in.Parts {
		if p.Submesh < 0 || p.Submesh >= len(scene.Submeshes) {
			return fmt.Errorf("rig: part %d: submesh %d out of range (%d submeshes)", i, p.Submesh, len(scene.Submeshes))
		}
		if p.Node < 0 || p.Node >= n {
			return fmt.Errorf("rig: part %d: node %d out of range (%d nodes)", i, p.Node, n)
		}
		if seen[p.Submesh] {
			return fmt.Errorf("rig: part %d: submesh %d hangs under two nodes", i, p.Submesh)
		}
		seen[p.Submesh] = true
	}
	for i, c := range in.Channels {
		if c.Animation < 0 || c.Animation >= len(scene.Animations) {
			return fmt.Errorf("rig: channel %d: animation %d out of range (%d animations)", i, c.Animation, len(scene.Animations))
		}
		if c.Node < 0 || c.Node >= n {
			return fmt.Errorf("rig: channel %d: node %d out of range (%d nodes)", i, c.Node, n)
		}
		if c.Path > mesh.PathScale {
			return fmt.Errorf("rig: channel %d: path %d is not a node transform path", i, c.Path)
		}
		per := c.Path.Components()
		switch c.Interp {
		case mesh.InterpStep, mesh.InterpLinear:
		case mesh.InterpCubic:
			per *= 3
		default:
			return fmt.Errorf("rig: channel %d: interpolation %d", i, c.Interp)
		}
		if len(c.Values) != len(c.Times)*per {
			return fmt.Errorf("rig: channel %d: %d values for %d keys of %d floats", i, len(c.Values), len(c.Times), per)
		}
		for k, t := range c.Times {
			if !(t >= 0) || math.IsInf(float64(t), 0) || (k > 0 && t < c.Times[k-1]) {
				return fmt.Errorf("rig: channel %d: key %d: time %v is not finite, ≥ 0 and ascending", i, k, t)
			}
		}
	}
	return nil
}

// unit normalizes a quaternion (identity when zero or not finite).
func unit(q [4]float64) [4]float64 {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
		return [4]float64{0, 0, 0, 1}
	}
	return [4]float64{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

func vec3(v [3]float64) mesh.Vec3 { return mesh.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

// column32 is m as float32, column-major (mesh.Mat4's own order).
func column32(m mesh.Mat4) [16]float32 {
	var out [16]float32
	for i, v := range m {
		out[i] = float32(v)
	}
	return out
}
