package mesh

// MergeDraws merges the scene's submeshes that can be drawn as one: the
// same material, the same set of vertex streams (normals, tangents, UV0,
// colours, skin influences each present in both or in neither), and no
// morph targets (a morph-weight channel drives one submesh). Merged
// submeshes are concatenated in source order, each group where its first
// member was (first-use order), named after that first member; indices
// are offset to the concatenated vertices. The result is the same for any
// map order or thread count.
//
// It returns, for each old submesh index, its new index (so that
// PathWeights channels can be renumbered; MergeDraws renumbers the
// scene's own), and changes nothing when no two submeshes merge.
func MergeDraws(scene *Scene) []int {
	n := len(scene.Submeshes)
	remap := make([]int, n)
	type key struct {
		material                                  int
		normals, tangents, uv, colors, joints, ws bool
	}
	groups := map[key]int{} // key → new index
	var members [][]int     // new index → old indices
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		if len(s.Morphs) > 0 {
			remap[i] = len(members)
			members = append(members, []int{i})
			continue
		}
		k := key{s.Material, s.Normals != nil, s.Tangents != nil, s.UV0 != nil, s.Colors != nil, s.Joints != nil, s.Weights != nil}
		g, ok := groups[k]
		if !ok {
			g = len(members)
			groups[k] = g
			members = append(members, nil)
		}
		members[g] = append(members[g], i)
		remap[i] = g
	}
	if len(members) == n {
		return remap
	}
	out := make([]Submesh, len(members))
	for g, idx := range members {
		if len(idx) == 1 {
			out[g] = scene.Submeshes[idx[0]]
			continue
		}
		out[g] = concat(scene.Submeshes, idx)
	}
	scene.Submeshes = out
	for a := range scene.Animations {
		for c := range scene.Animations[a].Channels {
			if ch := &scene.Animations[a].Channels[c]; ch.Path == PathWeights && ch.Joint >= 0 && ch.Joint < n {
				ch.Joint = remap[ch.Joint]
			}
		}
	}
	return remap
}

// concat joins submeshes idx (same material and streams, no morphs) into
// one, named after the first.
func concat(subs []Submesh, idx []int) Submesh {
	first := &subs[idx[0]]
	nv, ni := 0, 0
	for _, i := range idx {
		nv += len(subs[i].Positions)
		ni += len(subs[i].Indices)
	}
	out := Submesh{Name: first.Name, Material: first.Material, Positions: make([]Vec3, 0, nv), Indices: make([]uint32, 0, ni)}
	if first.Normals != nil {
		out.Normals = make([]Vec3, 0, nv)
	}
	if first.Tangents != nil {
		out.Tangents = make([]Vec4, 0, nv)
	}
	if first.UV0 != nil {
		out.UV0 = make([]Vec2, 0, nv)
	}
	if first.Colors != nil {
		out.Colors = make([]Vec4, 0, nv)
	}
	if first.Joints != nil {
		out.Joints = make([][4]uint16, 0, nv)
	}
	if first.Weights != nil {
		out.Weights = make([]Vec4, 0, nv)
	}
	for _, i := range idx {
		s := &subs[i]
		base := uint32(len(out.Positions))
		for _, ix := range s.Indices {
			out.Indices = append(out.Indices, ix+base)
		}
		out.Positions = append(out.Positions, s.Positions...)
		out.Normals = appendStream(out.Normals, s.Normals)
		out.Tangents = appendStream(out.Tangents, s.Tangents)
		out.UV0 = appendStream(out.UV0, s.UV0)
		out.Colors = appendStream(out.Colors, s.Colors)
		out.Joints = appendStream(out.Joints, s.Joints)
		out.Weights = appendStream(out.Weights, s.Weights)
	}
	return out
}

// appendStream appends src to dst, keeping a nil dst nil.
func appendStream[T any](dst, src []T) []T {
	if dst == nil {
		return nil
	}
	return append(dst, src...)
}

// Clone returns a copy of the scene whose submeshes own their streams, so
// that changing one scene's geometry (or renumbering its channels, as
// MergeDraws does) leaves the other's intact. Materials, images, the
// skeleton and key arrays are shared (read-only to the cook).
func (s *Scene) Clone() *Scene {
	c := *s
	c.Animations = make([]Animation, len(s.Animations))
	for i, a := range s.Animations {
		a.Channels = cloneStream(a.Channels)
		c.Animations[i] = a
	}
	c.Submeshes = make([]Submesh, len(s.Submeshes))
	for i := range s.Submeshes {
		src := &s.Submeshes[i]
		d := *src
		d.Positions = cloneStream(src.Positions)
		d.Normals = cloneStream(src.Normals)
		d.Tangents = cloneStream(src.Tangents)
		d.UV0 = cloneStream(src.UV0)
		d.Colors = cloneStream(src.Colors)
		d.Indices = cloneStream(src.Indices)
		d.Joints = cloneStream(src.Joints)
		d.Weights = cloneStream(src.Weights)
		if src.Morphs != nil {
			d.Morphs = make([]MorphTarget, len(src.Morphs))
			for k, m := range src.Morphs {
				d.Morphs[k] = MorphTarget{Name: m.Name, Positions: cloneStream(m.Positions), Normals: cloneStream(m.Normals), Weight: m.Weight}
			}
		}
		c.Submeshes[i] = d
	}
	return &c
}

func cloneStream[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append(make([]T, 0, len(s)), s...)
}
