package gltf

import (
	"errors"
	"fmt"
	"math"

	"github.com/meshcook/meshcook/importer/rig"
	"github.com/meshcook/meshcook/mesh"
)

// instance is one mesh-carrying node reached from the imported roots, with
// its world transform.
type instance struct {
	node    int
	mesh    int
	world   mesh.Mat4
	skinned bool // bound to the exported skin: world is not baked
}

// roots returns the nodes to import from, in order: the default scene's, or
// when there is none every scene's (first occurrence wins), or when there
// are no scenes every node without a parent.
func (im *importer) roots(parent []int) ([]int, error) {
	doc := im.doc
	var scenes []int
	switch {
	case doc.Scene != nil:
		if *doc.Scene < 0 || *doc.Scene >= len(doc.Scenes) {
			return nil, fmt.Errorf("default scene %d does not exist", *doc.Scene)
		}
		scenes = []int{*doc.Scene}
	case len(doc.Scenes) > 0:
		for i := range doc.Scenes {
			scenes = append(scenes, i)
		}
	default:
		var roots []int
		for i, p := range parent {
			if p < 0 {
				roots = append(roots, i)
			}
		}
		return roots, nil
	}
	var roots []int
	seen := make([]bool, len(doc.Nodes))
	for _, s := range scenes {
		for _, n := range doc.Scenes[s].Nodes {
			if n < 0 || n >= len(doc.Nodes) {
				return nil, fmt.Errorf("scene %d: node %d does not exist", s, n)
			}
			if !seen[n] {
				seen[n] = true
				roots = append(roots, n)
			}
		}
	}
	return roots, nil
}

// parents returns each node's parent (-1 for none) after checking that the
// hierarchy is a forest: child indices exist, no node has two parents, and
// no chain of parents loops.
func (im *importer) parents() ([]int, error) {
	nodes := im.doc.Nodes
	parent := make([]int, len(nodes))
	for i := range parent {
		parent[i] = -1
	}
	for i, n := range nodes {
		for _, c := range n.Children {
			switch {
			case c < 0 || c >= len(nodes):
				return nil, fmt.Errorf("node %d: child %d does not exist", i, c)
			case c == i:
				return nil, fmt.Errorf("node %d is its own child (node cycle)", i)
			case parent[c] >= 0:
				return nil, fmt.Errorf("node %d has two parents, %d and %d", c, parent[c], i)
			}
			parent[c] = i
		}
	}
	// With at most one parent each, a cycle is a loop of parent links; walk
	// each chain once (0 = unvisited, 1 = on the current walk, 2 = done).
	state := make([]uint8, len(nodes))
	var walk []int
	for i := range nodes {
		walk = walk[:0]
		j := i
		for j >= 0 && state[j] == 0 {
			state[j] = 1
			walk = append(walk, j)
			j = parent[j]
		}
		if j >= 0 && state[j] == 1 {
			return nil, fmt.Errorf("node hierarchy has a cycle through node %d", j)
		}
		for _, k := range walk {
			state[k] = 2
		}
	}
	return parent, nil
}

// local returns node n's local transform: its matrix (identity unless
// given) times its TRS (identity unless given); glTF allows only one.
func (im *importer) local(n int) mesh.Mat4 {
	node := im.doc.Nodes[n]
	return mesh.Mat4(node.Matrix).Mul(mesh.TRS(node.Translation, node.Rotation, node.Scale))
}

// instances walks the imported roots depth-first, children in order, and
// returns every node that carries a mesh with its world transform. A node
// bound to skin 0 is marked skinned: its own transform (and its ancestors')
// is not baked, as glTF skinning ignores it. A node bound to another skin
// is counted and imported as a static mesh.
func (im *importer) instances(parent []int) ([]instance, error) {
	roots, err := im.roots(parent)
	if err != nil {
		return nil, err
	}
	type frame struct {
		node   int
		parent mesh.Mat4
	}
	var (
		out     []instance
		visited = make([]bool, len(im.doc.Nodes))
		stack   []frame
	)
	im.usesLeft = make([]int, len(im.doc.Meshes))
	im.reached = visited
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, frame{roots[i], mesh.Identity()})
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if visited[f.node] {
			// a scene listed a node that is also another root's descendant
			return nil, fmt.Errorf("node %d is reached twice from the scene roots", f.node)
		}
		visited[f.node] = true
		node := im.doc.Nodes[f.node]
		world := f.parent.Mul(im.local(f.node))
		if node.Mesh != nil {
			m := *node.Mesh
			if m < 0 || m >= len(im.doc.Meshes) {
				return nil, fmt.Errorf("node %d: mesh %d does not exist", f.node, m)
			}
			in := instance{node: f.node, mesh: m, world: world}
			if node.Skin != nil {
				switch sk := *node.Skin; {
				case sk < 0 || sk >= len(im.doc.Skins):
					return nil, fmt.Errorf("node %d: skin %d does not exist", f.node, sk)
				case sk == 0:
					in.skinned, in.world = true, mesh.Identity()
				default:
					im.otherSkins++
				}
			}
			out = append(out, in)
			im.usesLeft[m]++
		}
		for i := len(node.Children) - 1; i >= 0; i-- {
			stack = append(stack, frame{node.Children[i], world})
		}
	}
	return out, nil
}

// submeshes turns every instance's triangle primitives into submeshes.
func (im *importer) submeshes(insts []instance) ([]mesh.Submesh, error) {
	var out []mesh.Submesh
	im.prims = make(map[primKey]*localPrim)
	for _, in := range insts {
		m := im.doc.Meshes[in.mesh]
		name := m.Name
		if name == "" {
			name = fmt.Sprintf("mesh_%d", in.mesh)
		}
		im.usesLeft[in.mesh]--
		last := im.usesLeft[in.mesh] == 0
		for p := range m.Primitives {
			lp, err := im.primitive(in.mesh, p)
			if err != nil {
				return nil, fmt.Errorf("node %d: mesh %d primitive %d: %w", in.node, in.mesh, p, err)
			}
			if lp == nil {
				continue // skipped: points or lines
			}
			if len(out) == im.maxSubmeshes {
				return nil, fmt.Errorf("scene exceeds %d submeshes (Options.MaxSubmeshes)", im.maxSubmeshes)
			}
			sm, err := im.place(lp, in.world, last, in.skinned)
			if err != nil {
				return nil, fmt.Errorf("node %d: mesh %d primitive %d: %w", in.node, in.mesh, p, err)
			}
			sm.Name = fmt.Sprintf("%s/%d", name, p)
			im.restWeights(&sm, in.node)
			im.bakeUV(&sm)
			out = append(out, sm)
			im.subNode = append(im.subNode, in.node)
			im.subSkinned = append(im.subSkinned, in.skinned)
		}
		if last {
			for p := range m.Primitives {
				delete(im.prims, primKey{in.mesh, p})
			}
		}
	}
	return out, nil
}

// restWeights sets the rest weight of each of sm's morph targets: the
// node's weights when it has one per target, else its mesh's (glTF 2.0
// §3.7.2.2), else 0.
func (im *importer) restWeights(sm *mesh.Submesh, node int) {
	nd := im.doc.Nodes[node]
	w := nd.Weights
	if len(w) != len(sm.Morphs) && nd.Mesh != nil {
		w = im.doc.Meshes[*nd.Mesh].Weights
	}
	if len(w) != len(sm.Morphs) {
		return
	}
	for k := range sm.Morphs {
		if v := float32(w[k]); !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) {
			sm.Morphs[k].Weight = v
		}
	}
}

// rigNodes turns the transform channels of non-joint nodes (a file without
// skins) into a rigid skeleton with importer/rig: the animated nodes and
// their ancestors become joints, every submesh is bound to its node's
// joint. Channels on nodes the imported scene does not reach are dropped
// and counted. A rest pose rig cannot invert (a zero scale on an animated
// node's chain) keeps the scene static, with the channels dropped.
func (im *importer) rigNodes(scene *mesh.Scene, parent []int) error {
	if len(im.nodeChannels) == 0 {
		return nil
	}
	in := rig.Input{Nodes: make([]rig.Node, len(im.doc.Nodes))}
	for i, nd := range im.doc.Nodes {
		rn := rig.Node{Name: nd.Name, Parent: parent[i], T: nd.Translation, R: nd.Rotation, S: nd.Scale}
		if !mesh.Mat4(nd.Matrix).IsIdentity() {
			rn.T, rn.R, rn.S = decompose(im.local(i))
		}
		if rn.Name == "" {
			rn.Name = fmt.Sprintf("node_%d", i)
		}
		in.Nodes[i] = rn
	}
	for s, node := range im.subNode {
		in.Parts = append(in.Parts, rig.Part{Submesh: s, Node: node})
	}
	outside := 0
	for _, c := range im.nodeChannels {
		if !im.reached[c.node] {
			outside++
			continue
		}
		in.Channels = append(in.Channels, rig.Channel{Animation: c.anim, Node: c.node, Channel: c.ch})
	}
	scene.Drop(outside, "animation channels on nodes outside the imported scene")
	if _, err := rig.Apply(scene, in); err != nil {
		if errors.Is(err, rig.ErrSkinned) {
			return err
		}
		scene.Drop(len(in.Channels), fmt.Sprintf("node animation channels (%v)", err))
	}
	return nil
}

// placeWeights puts each morph-weight channel on every submesh its node
// instanced (one channel per submesh: .hanim path 3 names the submesh).
// Channels whose node was not reached, or whose width does not match a
// submesh's target count, are dropped and counted.
func (im *importer) placeWeights(scene *mesh.Scene) {
	var missed int
	for _, c := range im.weightChannels {
		placed := false
		for s, node := range im.subNode {
			if node != c.node || len(scene.Submeshes[s].Morphs) != c.ch.Targets {
				continue
			}
			ch := c.ch
			ch.Joint = s
			if placed {
				ch.Times = clone(ch.Times)
				ch.Values = clone(ch.Values)
			}
			placed = true
			a := &scene.Animations[c.anim]
			a.Channels = append(a.Channels, ch)
			a.Duration = max(a.Duration, ch.Times[len(ch.Times)-1])
		}
		if !placed {
			missed++
		}
	}
	scene.Drop(missed, "morph-weight animation channels whose node instances no morphing submesh")
}
