package fbx

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/meshcook/meshcook/internal/srcpath"
	"github.com/meshcook/meshcook/mesh"
)

// Load reads and imports the FBX file at path (see Decode), loading the
// external textures it names from its folder (see textureCandidates).
func Load(path string, opts Options) (*mesh.Scene, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fbx: %w", err)
	}
	folder, err := srcpath.Open(filepath.Dir(path), opts.StrictPaths)
	if err != nil {
		return nil, fmt.Errorf("fbx: %s: %w", path, err)
	}
	defer folder.Close()
	opts.folder = folder.FS()
	return Decode(data, path, opts)
}

// Decode imports an FBX file's bytes; name is used in error messages.
// Errors read "fbx: <name>: offset 0x…: …" for binary files and
// "fbx: <name>:<line>: …" for ASCII ones (*FormatError, wrapping ErrFormat,
// ErrUnsupported, ErrLimit or ErrScene).
func Decode(data []byte, name string, opts Options) (*mesh.Scene, error) {
	sc, _, err := DecodeInstances(data, name, opts)
	return sc, err
}

// DecodeInstances is Decode that also describes each mesh Model ×
// Geometry pair imported (see ConvertInstances).
func DecodeInstances(data []byte, name string, opts Options) (*mesh.Scene, []Instance, error) {
	doc, err := Parse(data, opts)
	if err == nil {
		sc, insts, err := ConvertInstances(doc, opts)
		if err == nil {
			return sc, insts, nil
		}
		return nil, nil, located(err, name)
	}
	return nil, nil, located(err, name)
}

// located sets the file name of a *FormatError.
func located(err error, name string) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		fe.Path = name
	}
	return err
}

// Convert builds a mesh.Scene from a parsed document: one Submesh per mesh
// Model × Geometry × material slot used, in Objects order then slot order,
// named after the Model, with one vertex per polygon corner (the cook's
// weld merges equal ones), triangulated, in output space (package doc).
func Convert(doc *Document, opts Options) (*mesh.Scene, error) {
	sc, _, err := ConvertInstances(doc, opts)
	return sc, err
}

// ConvertInstances is Convert that also describes each mesh Model ×
// Geometry pair it imported, in Scene.Submeshes order (see Instance).
func ConvertInstances(doc *Document, opts Options) (*mesh.Scene, []Instance, error) {
	opts = opts.withDefaults()
	s := newScene(doc, opts)
	out := &mesh.Scene{}
	mats, matIndex, images := s.materials()
	out.Materials, out.Images = mats, images
	conv := s.conversion()
	poses := s.bindPoses()
	sb := newSkeletonBuilder()
	if err := s.collectBones(sb); err != nil {
		return nil, nil, err
	}
	cache := map[*object]*geom{}
	used := map[*object]bool{}
	corners := 0
	var insts []Instance
	var parts []*object // the Model of each submesh
	for _, m := range s.objects {
		if m.class != "Model" {
			continue
		}
		geoms := m.kids("Geometry", "Mesh")
		if len(geoms) == 0 {
			continue
		}
		if !opts.IncludeHidden && s.hidden(m) {
			for _, g := range geoms {
				used[g] = true
			}
			s.warnf("hidden mesh models skipped")
			continue
		}
		var slots []int
		for _, mo := range m.kids("Material", "") {
			slots = append(slots, matIndex[mo])
		}
		for _, gobj := range geoms {
			used[gobj] = true
			g := cache[gobj]
			if g == nil {
				var err error
				if g, err = s.readGeometry(gobj.node, opts.MaxCorners-corners); err != nil {
					return nil, nil, err
				}
				cache[gobj] = g
			}
			corners += len(g.corners)
			if corners > opts.MaxCorners {
				return nil, nil, s.limitAt(gobj.node, "more than %d polygon corners in the scene", opts.MaxCorners)
			}
			bake := s.geometricTransform(m)
			if !opts.Local {
				bake = s.world(m).Mul(bake)
			}
			sd, err := s.skin(gobj, g, bake, sb, poses)
			if err != nil {
				return nil, nil, err
			}
			if bone, ok := s.rigidJoint(sb, m); sd == nil && ok && !opts.Local {
				if sd, bake, err = s.rigidSkin(sb, m, bone, g, poses); err != nil {
					return nil, nil, err
				}
			}
			subs, err := s.emit(m, g, conv.Mul(bake), slots, sd)
			if err != nil {
				return nil, nil, err
			}
			insts = append(insts, s.instance(m, gobj, len(out.Submeshes), subs, sd))
			out.Submeshes = append(out.Submeshes, subs...)
			for range subs {
				parts = append(parts, m)
			}
		}
	}
	for _, o := range s.objects {
		if o.class == "Geometry" && o.sub == "Mesh" && !used[o] && len(o.kids("Deformer", "BlendShape")) == 0 {
			s.dropf("geometry not attached to any model")
		}
	}
	s.size = sceneSize(out.Submeshes)
	var perm []int
	var bones []*object
	out.Skeleton, perm, bones = s.skeleton(sb, conv)
	remapJoints(out.Submeshes, insts, perm)
	rigged := out.Skeleton == nil && !opts.StaticNodes
	anims, stacks, err := s.animations(bones, conv, rigged)
	if err != nil {
		return nil, nil, err
	}
	out.Animations = anims
	if rigged {
		if _, err := s.rigNodes(out, stacks, parts, conv); err != nil {
			return nil, nil, err
		}
	}
	s.countSkipped()
	out.Warnings = s.warnings()
	s.recordDrops(out) // appends its lines to Warnings
	out.Files = s.files
	return out, insts, nil
}

// emit builds the submeshes of one geometry instance, one per material
// slot used, with every corner's attributes transformed by xf.
func (s *scene) emit(model *object, g *geom, xf mesh.Mat4, slots []int, sd *skinData) ([]mesh.Submesh, error) {
	// Slot per polygon.
	np := g.polyCount()
	slotOf := func(p int) int {
		if g.material == nil {
			return 0
		}
		// Any mapping works; a per-corner one is read at the first corner.
		first := g.polyStart[p]
		e := g.material.element(int(first), int(g.corners[first]), p)
		if e < 0 {
			s.warnf("polygons with a missing material index use slot 0")
			return 0
		}
		v := g.material.data[e]
		if v < 0 || v >= math.MaxInt32 {
			s.warnf("polygons with a negative material index use slot 0")
			return 0
		}
		return int(v)
	}
	bySlot := map[int][]int{}
	var order []int
	small := 0
	for p := 0; p < np; p++ {
		if g.polyStart[p+1]-g.polyStart[p] < 3 {
			small++
			continue
		}
		k := slotOf(p)
		if _, ok := bySlot[k]; !ok {
			order = append(order, k)
		}
		bySlot[k] = append(bySlot[k], p)
	}
	if small > 0 {
		s.warnf("polygons with fewer than 3 corners (points, edges) skipped")
	}
	slices.Sort(order)

	nm := xf.NormalMatrix()
	flip := xf.Det3() < 0
	var subs []mesh.Submesh
	var poly []vec3d
	var tris []int32
	for _, k := range order {
		sub := mesh.Submesh{Name: model.name, Material: -1}
		switch {
		case k < len(slots):
			sub.Material = slots[k]
		case len(slots) > 0:
			s.warnf("polygons with a material slot beyond the model's materials have no material")
		}
		polys := bySlot[k]
		n := 0
		for _, p := range polys {
			n += int(g.polyStart[p+1] - g.polyStart[p])
		}
		sub.Positions = make([]mesh.Vec3, 0, n)
		if g.normal != nil {
			sub.Normals = make([]mesh.Vec3, 0, n)
		}
		if g.tangent != nil && g.normal != nil {
			sub.Tangents = make([]mesh.Vec4, 0, n)
		}
		if g.uv != nil {
			sub.UV0 = make([]mesh.Vec2, 0, n)
		}
		if g.color != nil {
			sub.Colors = make([]mesh.Vec4, 0, n)
		}
		if sd != nil {
			sub.Joints = make([][4]uint16, 0, n)
			sub.Weights = make([]mesh.Vec4, 0, n)
		}
		for _, p := range polys {
			c0, c1 := int(g.polyStart[p]), int(g.polyStart[p+1])
			base := uint32(len(sub.Positions))
			poly = poly[:0]
			for c := c0; c < c1; c++ {
				v := int(g.corners[c])
				q := point(xf, g.pos[3*v], g.pos[3*v+1], g.pos[3*v+2])
				if !finite3(q) {
					return nil, s.errAt(g.node, "geometry %q: mesh contains non-finite vertex data", s.nameOf(g.node))
				}
				poly = append(poly, q)
				sub.Positions = append(sub.Positions, mesh.Vec3{float32(q[0]), float32(q[1]), float32(q[2])})
				var nrm vec3d
				if g.normal != nil {
					nrm = s.vec3At(g.normal, c, v, p, nm, "normal")
					sub.Normals = append(sub.Normals, f32v(nrm))
				}
				if sub.Tangents != nil {
					t := s.vec3At(g.tangent, c, v, p, xf, "tangent")
					w := float32(1)
					if g.binormal != nil {
						b := s.vec3At(g.binormal, c, v, p, xf, "binormal")
						if dot3(cross3(nrm, t), b) < 0 {
							w = -1
						}
					} else if flip {
						w = -1
					}
					sub.Tangents = append(sub.Tangents, mesh.Vec4{float32(t[0]), float32(t[1]), float32(t[2]), w})
				}
				if g.uv != nil {
					var uv mesh.Vec2
					if e := g.uv.element(c, v, p); e >= 0 {
						d := g.uv.data[e*g.uv.comps:]
						uv = mesh.Vec2{float32(d[0]), float32(1 - d[1])}
					} else {
						s.warnf("uv indices out of range read as (0, 0)")
					}
					sub.UV0 = append(sub.UV0, uv)
				}
				if g.color != nil {
					col := mesh.Vec4{1, 1, 1, 1}
					if e := g.color.element(c, v, p); e >= 0 {
						d := g.color.data[e*g.color.comps:]
						for i := range g.color.comps {
							col[i] = float32(d[i])
						}
					} else {
						s.warnf("color indices out of range read as white")
					}
					sub.Colors = append(sub.Colors, col)
				}
				if sd != nil {
					sub.Joints = append(sub.Joints, sd.joints[v])
					sub.Weights = append(sub.Weights, sd.weights[v])
				}
			}
			var fanned bool
			tris, fanned = triangulate(poly, tris[:0], &s.earBudget)
			if fanned {
				s.warnf("polygons fan-triangulated (over %d corners, or the scene's ear-clipping budget spent)", maxEarClip)
			}
			for i := 0; i+2 < len(tris); i += 3 {
				a, b, c := tris[i], tris[i+1], tris[i+2]
				if flip {
					b, c = c, b
				}
				sub.Indices = append(sub.Indices, base+uint32(a), base+uint32(b), base+uint32(c))
			}
		}
		subs = append(subs, sub)
	}
	return subs, nil
}

// vec3At reads a 3-component layer value for a corner, transforms it as a
// direction by m and normalises it (zero when missing or degenerate).
func (s *scene) vec3At(l *layer, c, v, p int, m mesh.Mat4, what string) vec3d {
	e := l.element(c, v, p)
	if e < 0 {
		s.warnf("%s indices out of range read as zero", what)
		return vec3d{}
	}
	d := l.data[e*l.comps:]
	r := vec3d{
		m[0]*d[0] + m[4]*d[1] + m[8]*d[2],
		m[1]*d[0] + m[5]*d[1] + m[9]*d[2],
		m[2]*d[0] + m[6]*d[1] + m[10]*d[2],
	}
	n := math.Sqrt(dot3(r, r))
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return vec3d{}
	}
	return vec3d{r[0] / n, r[1] / n, r[2] / n}
}

func point(m mesh.Mat4, x, y, z float64) vec3d {
	return vec3d{
		m[0]*x + m[4]*y + m[8]*z + m[12],
		m[1]*x + m[5]*y + m[9]*z + m[13],
		m[2]*x + m[6]*y + m[10]*z + m[14],
	}
}

func finite3(v vec3d) bool {
	for _, c := range v {
		if math.IsNaN(c) || math.IsInf(c, 0) || math.Abs(c) > math.MaxFloat32 {
			return false
		}
	}
	return true
}

func f32v(v vec3d) mesh.Vec3 { return mesh.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

// sceneSize is the diagonal of the submeshes' bounding box.
func sceneSize(subs []mesh.Submesh) float64 {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, sm := range subs {
		for _, p := range sm.Positions {
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], float64(p[c])), max(hi[c], float64(p[c]))
			}
		}
	}
	if lo[0] > hi[0] {
		return 0
	}
	d := vec3d{hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]}
	return math.Sqrt(dot3(d, d))
}
