package convert

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/meshcook/meshcook/mesh"
)

// Report is what Prepare did, for the import report.
type Report struct {
	Source string
	// Selected are the meshes merged into the output.
	Selected []MeshInfo
	// Triangles kept, and Dropped by the area epsilon.
	Triangles, Dropped int
	// Normals is the mode used; SmoothFallback counts selected submeshes
	// without imported normals that got smooth ones in imported mode.
	Normals        NormalMode
	SmoothFallback int
	// Tangents is the path used; FallbackFrames counts vertex_refs whose
	// tangent is the fallback frame on the generated paths.
	Tangents       TangentPath
	FallbackFrames int
	// Skinned says the output is skinned; Joints is its joint count.
	Skinned bool
	Joints  int
	// HiddenSkipped counts hidden meshes left out of an "all" selection
	// (they need Options.IncludeHidden).
	HiddenSkipped int
	// Warnings are the importer's aggregated warnings.
	Warnings []string
}

// Prepare selects and processes src's meshes (see the package doc) and
// returns a scene for nwb.FromScene: the selected submeshes, each with every
// stream present, and the skeleton they use. src is not modified. Errors
// wrap ErrSelection for a bad Options.Mesh; the others name the file and
// carry the messages of nwb.md §3.
func Prepare(src *Source, opts Options) (*mesh.Scene, *Report, error) {
	mode, err := ParseNormalMode(string(opts.NormalMode))
	if err != nil {
		return nil, nil, err
	}
	if math.IsNaN(opts.AreaEpsilon) {
		return nil, nil, fmt.Errorf("convert: triangle area epsilon is NaN")
	}
	sel, err := src.Select(opts.Mesh, opts.IncludeHidden)
	if err != nil {
		return nil, nil, err
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("convert: %s: "+format, append([]any{src.Path}, args...)...)
	}
	rep := &Report{Source: src.Path, Normals: mode, Warnings: src.Scene.Warnings}
	if !opts.IncludeHidden && (opts.Mesh == "" || strings.EqualFold(opts.Mesh, "all")) {
		for _, m := range src.Meshes {
			if m.Hidden {
				rep.HiddenSkipped++
			}
		}
	}

	// Skins.
	nSkinned := 0
	for _, i := range sel {
		m := src.Meshes[i]
		rep.Selected = append(rep.Selected, m)
		if !m.Skinned || opts.Static {
			continue
		}
		nSkinned++
		if m.skinDeformers != 1 {
			return nil, nil, fail("skinned mesh requires exactly one skin deformer per selected mesh ('%s' has %d)", m.Name, m.skinDeformers)
		}
		if m.unweighted > 0 {
			return nil, nil, fail("skinned mesh contains a vertex with no positive skin weights ('%s': %d control points)", m.Name, m.unweighted)
		}
	}
	if nSkinned > 0 && nSkinned < len(sel) {
		return nil, nil, fail("static and skinned meshes cannot be mixed in one import (%d of %d selected meshes are skinned); select one kind with -m, or use --asset-type mesh", nSkinned, len(sel))
	}
	skinned := nSkinned > 0
	if skinned && (src.Scene.Skeleton == nil || len(src.Scene.Skeleton.Joints) == 0) {
		return nil, nil, fail("skinned meshes but the scene has no skeleton")
	}

	// Copy the selected submeshes; drop what the options drop.
	out := &mesh.Scene{Materials: src.Scene.Materials, Images: src.Scene.Images, Warnings: src.Scene.Warnings}
	for _, i := range sel {
		m := src.Meshes[i]
		for k := m.first; k < m.first+m.count; k++ {
			s := cloneSubmesh(&src.Scene.Submeshes[k])
			if !skinned {
				s.Joints, s.Weights = nil, nil
			}
			s.Morphs = nil
			out.Submeshes = append(out.Submeshes, s)
		}
	}
	if skinned {
		out.Skeleton = pruneSkeleton(src, sel, out.Submeshes)
		rep.Skinned, rep.Joints = true, len(out.Skeleton.Joints)
	}

	// Streams, winding, degenerate triangles.
	for k := range out.Submeshes {
		s := &out.Submeshes[k]
		if err := s.Validate(); err != nil {
			return nil, nil, fail("submesh '%s': %w", s.Name, err)
		}
		if !finiteSubmesh(s) {
			return nil, nil, fail("mesh contains non-finite vertex data")
		}
		if opts.IgnoreColors || s.Colors == nil {
			s.Colors = make([]mesh.Vec4, len(s.Positions))
			for v := range s.Colors {
				s.Colors[v] = opts.DefaultColor
			}
		}
		if s.UV0 == nil {
			s.UV0 = make([]mesh.Vec2, len(s.Positions))
		}
		if opts.FlipWinding {
			for t := 0; t+2 < len(s.Indices); t += 3 {
				s.Indices[t+1], s.Indices[t+2] = s.Indices[t+2], s.Indices[t+1]
			}
		}
		kept := dropSmall(s, opts.AreaEpsilon)
		rep.Dropped += s.TriangleCount() - kept
		s.Indices = s.Indices[:3*kept]
		rep.Triangles += kept
	}
	if rep.Triangles == 0 {
		return nil, nil, fail("selected meshes produced no triangles")
	}
	out.Submeshes = slices.DeleteFunc(out.Submeshes, func(s mesh.Submesh) bool { return len(s.Indices) == 0 })

	// Normals, then tangents.
	switch mode {
	case NormalsRegenerate:
		for k := range out.Submeshes {
			regenerateNormals(&out.Submeshes[k])
		}
	case NormalsSmooth:
		smoothNormals(out.Submeshes, nil)
	default:
		var missing []bool
		for k := range out.Submeshes {
			s := &out.Submeshes[k]
			missing = append(missing, s.Normals == nil)
			if s.Normals == nil {
				rep.SmoothFallback++
				continue
			}
			for v, n := range s.Normals {
				s.Normals[v] = unitOrZ(float64(n[0]), float64(n[1]), float64(n[2]))
			}
		}
		if rep.SmoothFallback > 0 {
			smoothNormals(out.Submeshes, missing)
		}
	}
	if importedTangentsUsable(out.Submeshes) {
		rep.Tangents = TangentsImported
	} else {
		uvFrames, fallback := generateTangents(out.Submeshes)
		rep.FallbackFrames = fallback
		rep.Tangents = TangentsGeneratedFallback
		if uvFrames > 0 {
			rep.Tangents = TangentsGeneratedUV
		}
	}
	return out, rep, nil
}

func cloneSubmesh(in *mesh.Submesh) mesh.Submesh {
	s := *in
	s.Positions = slices.Clone(in.Positions)
	s.Normals = slices.Clone(in.Normals)
	s.Tangents = slices.Clone(in.Tangents)
	s.UV0 = slices.Clone(in.UV0)
	s.Colors = slices.Clone(in.Colors)
	s.Indices = slices.Clone(in.Indices)
	s.Joints = slices.Clone(in.Joints)
	s.Weights = slices.Clone(in.Weights)
	return s
}

func finite(v ...float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// finiteSubmesh reports whether every stream value is finite.
func finiteSubmesh(s *mesh.Submesh) bool {
	for i := range s.Positions {
		if !finite(s.Positions[i][:]...) ||
			(s.Normals != nil && !finite(s.Normals[i][:]...)) ||
			(s.Tangents != nil && !finite(s.Tangents[i][:]...)) ||
			(s.UV0 != nil && !finite(s.UV0[i][:]...)) ||
			(s.Colors != nil && !finite(s.Colors[i][:]...)) ||
			(s.Weights != nil && !finite(s.Weights[i][:]...)) {
			return false
		}
	}
	return true
}

// dropSmall compacts s.Indices to the triangles whose doubled area
// squared, |(b−a)×(c−a)|² in float64, is above eps, and returns how many
// it kept.
func dropSmall(s *mesh.Submesh, eps float64) int {
	kept := 0
	for t := 0; t+2 < len(s.Indices); t += 3 {
		a, b, c := s.Indices[t], s.Indices[t+1], s.Indices[t+2]
		n := faceCross(s.Positions[a], s.Positions[b], s.Positions[c])
		if n[0]*n[0]+n[1]*n[1]+n[2]*n[2] > eps {
			copy(s.Indices[3*kept:], []uint32{a, b, c})
			kept++
		}
	}
	return kept
}

// faceCross is (b−a)×(c−a) in float64: the face normal scaled by twice
// the triangle's area.
func faceCross(a, b, c mesh.Vec3) [3]float64 {
	e1 := [3]float64{float64(b[0]) - float64(a[0]), float64(b[1]) - float64(a[1]), float64(b[2]) - float64(a[2])}
	e2 := [3]float64{float64(c[0]) - float64(a[0]), float64(c[1]) - float64(a[1]), float64(c[2]) - float64(a[2])}
	return cross(e1, e2)
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// unitOrZ normalises (x, y, z) in float64; a zero or non-finite length
// gives (0, 0, 1).
func unitOrZ(x, y, z float64) mesh.Vec3 {
	l := math.Sqrt(x*x + y*y + z*z)
	if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
		return mesh.Vec3{0, 0, 1}
	}
	return mesh.Vec3{float32(x / l), float32(y / l), float32(z / l)}
}

// pruneSkeleton returns the scene skeleton restricted to the joints the
// selected meshes use (with their ancestors), remapping the submeshes'
// joint indices, when some skinned mesh was left out; else the whole
// skeleton. FBX meshes use the joints their skin clusters name; glTF meshes
// the joints they weight.
func pruneSkeleton(src *Source, sel []int, subs []mesh.Submesh) *mesh.Skeleton {
	sk := src.Scene.Skeleton
	all := true
	for i, m := range src.Meshes {
		if m.Skinned && !slices.Contains(sel, i) {
			all = false
		}
	}
	if all {
		return sk
	}
	keep := make([]bool, len(sk.Joints))
	mark := func(j int) {
		for steps := 0; j >= 0 && j < len(keep) && !keep[j] && steps <= len(keep); steps++ {
			keep[j] = true
			j = sk.Joints[j].Parent
		}
	}
	for _, i := range sel {
		if m := src.Meshes[i]; m.joints != nil {
			for _, j := range m.joints {
				mark(j)
			}
		}
	}
	for _, s := range subs {
		for v := range s.Joints {
			for c := range 4 {
				if s.Weights[v][c] > 0 {
					mark(int(s.Joints[v][c]))
				}
			}
		}
	}
	remap := make([]int, len(sk.Joints))
	out := &mesh.Skeleton{}
	for j := range sk.Joints {
		remap[j] = -1
		if keep[j] {
			remap[j] = len(out.Joints)
			out.Joints = append(out.Joints, sk.Joints[j])
		}
	}
	for k := range out.Joints {
		if p := out.Joints[k].Parent; p >= 0 && p < len(remap) {
			out.Joints[k].Parent = remap[p]
		}
	}
	for _, s := range subs {
		for v := range s.Joints {
			for c := range 4 {
				if j := int(s.Joints[v][c]); s.Weights[v][c] > 0 && j < len(remap) && remap[j] >= 0 {
					s.Joints[v][c] = uint16(remap[j])
				} else {
					s.Joints[v][c] = 0
				}
			}
		}
	}
	return out
}
