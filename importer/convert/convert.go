// Package convert is the import-time processing of `meshcook import`
// (../shared/spec/nwb.md §3) between an importer's mesh.Scene and the .nwb
// writer (nwb.FromScene): mesh selection, the normal and tangent modes,
// the triangle-area epsilon, colours, winding, and the static/skinned and
// skin-deformer rules. FBX parsing, space conversion, scale and baking are
// importer/fbx's; glTF reading is importer/gltf's.
//
// Steps, in order (Prepare):
//  1. Select meshes (Options.Mesh): "all" (or ""), "first", an INDEX into
//     the list Load gives (Source.Meshes, hidden ones included), or a NAME:
//     every mesh whose node or mesh name equals it ignoring case, else every
//     mesh whose node or mesh name contains it ignoring case. Hidden FBX
//     nodes are excluded unless Options.IncludeHidden.
//  2. Skin checks: a selected skinned FBX mesh needs exactly one skin
//     deformer and no used control point without a positive weight.
//     Static and skinned meshes cannot be mixed unless Options.Static drops
//     the skinning (asset type mesh). The skeleton keeps the joints the
//     selected meshes' skins name (and their ancestors) when a skinned mesh
//     is left out.
//  3. Scale (glTF only: FBX applies it while importing), colours (missing
//     or ignored → Options.DefaultColor), missing uv0 → (0, 0), winding flip
//     (corners 1 and 2 swap), then every triangle with
//     |(b−a)×(c−a)|² ≤ Options.AreaEpsilon (in float64) is dropped.
//  4. Normals (Options.NormalMode): imported keeps the importer's per-corner
//     normals (already through the normal matrix and normalised), zero →
//     (0, 0, 1), and falls back to smooth for meshes without any; smooth sums
//     area-weighted face normals per exact output position; regenerate gives
//     each triangle its own face normal (its corners are split).
//  5. Tangents: imported when every corner of every selected mesh has a
//     usable one, else rebuilt per vertex_ref from uv0 (see tangents.go);
//     the report names the path.
//
// The result has every stream present, so nwb.FromScene generates nothing;
// it merges the submeshes and builds streams and vertex_refs in first-use
// order.
package convert

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/meshcook/meshcook/importer/fbx"
	gltfimport "github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/internal/budget"
	"github.com/meshcook/meshcook/mesh"
)

// NormalMode is --normal-mode.
type NormalMode string

const (
	NormalsImported   NormalMode = "imported"
	NormalsSmooth     NormalMode = "smooth"
	NormalsRegenerate NormalMode = "regenerate"
)

// ParseNormalMode checks a --normal-mode value ("" is NormalsImported).
func ParseNormalMode(s string) (NormalMode, error) {
	switch m := NormalMode(strings.ToLower(s)); m {
	case "":
		return NormalsImported, nil
	case NormalsImported, NormalsSmooth, NormalsRegenerate:
		return m, nil
	}
	return "", fmt.Errorf("convert: unknown normal mode '%s' (imported, smooth, regenerate)", s)
}

// TangentPath says how the tangents were made, as the import report names
// it.
type TangentPath string

const (
	TangentsImported          TangentPath = "imported"
	TangentsGeneratedUV       TangentPath = "generated_uv"
	TangentsGeneratedFallback TangentPath = "generated_fallback"
)

// DefaultAreaEpsilon is --triangle-area-length-squared-epsilon's default.
const DefaultAreaEpsilon = 1e-20

// ErrSelection marks a -m value that selects nothing (a usage problem);
// Select's and Prepare's other errors are about the source's content.
var ErrSelection = errors.New("convert: bad mesh selection")

// selectionError is a message that matches ErrSelection under errors.Is.
type selectionError struct{ msg string }

func (e *selectionError) Error() string        { return "convert: " + e.msg }
func (e *selectionError) Is(target error) bool { return target == ErrSelection }

func selErr(format string, args ...any) error {
	return &selectionError{fmt.Sprintf(format, args...)}
}

// Options are the import options of nwb.md §3 that shape the mesh. The
// defaults live in DefaultOptions (the zero value keeps every triangle with
// a non-zero area and colours missing colours black).
type Options struct {
	// Mesh selects meshes: "all" or "", "first", INDEX or NAME.
	Mesh string
	// IncludeHidden lets hidden FBX nodes be selected.
	IncludeHidden bool
	// NormalMode: "" means NormalsImported.
	NormalMode NormalMode
	// AreaEpsilon: a triangle is kept when |(b−a)×(c−a)|² > AreaEpsilon.
	AreaEpsilon float64
	// DefaultColor fills missing (or ignored) vertex colours.
	DefaultColor mesh.Vec4
	// IgnoreColors drops the source's vertex colours.
	IgnoreColors bool
	// FlipWinding swaps corners 1 and 2 of every triangle.
	FlipWinding bool
	// Static drops skinning (asset type mesh), so static and skinned
	// meshes may be merged.
	Static bool

	// Load options. Scale multiplies positions after the space conversion
	// (0 means 1; must be finite and > 0). PreserveSpace keeps an FBX
	// file's axes and units; Local keeps each FBX mesh in its node's space.
	// glTF is always +Y up in metres with node transforms baked, so those
	// two apply to FBX only.
	Scale         float64
	PreserveSpace bool
	Local         bool
	// Budget bounds what the source may make Load allocate (triangle
	// corners, FBX decoded bytes; internal/budget); zero is the default.
	Budget budget.Budget
}

// DefaultOptions returns the defaults of `meshcook import`: every mesh,
// imported normals, the 1e-20 area epsilon, white default colour.
func DefaultOptions() Options {
	return Options{
		Mesh:         "all",
		NormalMode:   NormalsImported,
		AreaEpsilon:  DefaultAreaEpsilon,
		DefaultColor: mesh.Vec4{1, 1, 1, 1},
	}
}

// ParseColor reads a --default-color value "R,G,B,A" (four finite numbers).
func ParseColor(s string) (mesh.Vec4, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return mesh.Vec4{}, fmt.Errorf("convert: default color '%s': want R,G,B,A", s)
	}
	var c mesh.Vec4
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 32)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return mesh.Vec4{}, fmt.Errorf("convert: default color '%s': component %d is not a finite number", s, i+1)
		}
		c[i] = float32(f)
	}
	return c, nil
}

// MeshInfo is one selectable mesh: an FBX Model × Geometry pair, or a glTF
// node's mesh (its consecutive primitives).
type MeshInfo struct {
	Index     int
	Name      string // FBX node name; glTF mesh name
	MeshName  string // FBX geometry name; glTF mesh name
	Triangles int
	Skinned   bool
	Hidden    bool

	first, count  int
	skinDeformers int
	unweighted    int
	joints        []int // FBX: the joints its skin names; nil for glTF
}

// Source is an imported file before selection and processing.
type Source struct {
	Path   string
	Format string // "fbx" or "gltf"
	Scene  *mesh.Scene
	// Meshes are the selectable meshes in scene order, hidden ones
	// included (and marked).
	Meshes []MeshInfo
}

// Load imports path (.fbx, .gltf or .glb, by extension) with opts' load
// options. FBX hidden nodes are imported too, so they can be listed; Prepare
// leaves them out unless Options.IncludeHidden. Errors name the file.
func Load(path string, opts Options) (*Source, error) {
	scale := opts.Scale
	if scale == 0 {
		scale = 1
	}
	if math.IsNaN(scale) || math.IsInf(scale, 0) || scale <= 0 {
		return nil, fmt.Errorf("convert: scale %g: want a finite number > 0", opts.Scale)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".fbx":
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("fbx: %w", err)
		}
		sc, insts, err := fbx.DecodeInstances(data, path, fbx.Options{
			PreserveSpace: opts.PreserveSpace, Local: opts.Local, Scale: scale, IncludeHidden: true,
			MaxCorners: opts.Budget.MaxCorners(), MaxArrayBytes: opts.Budget.OrDefault().DecodedBytes,
			MaxTotalArrayBytes: opts.Budget.OrDefault().DecodedBytes,
			StaticNodes:        true, // .nwb keeps no animation
		})
		if err != nil {
			return nil, err
		}
		return fromFBX(path, sc, insts), nil
	case ".gltf", ".glb":
		sc, err := gltfimport.Load(path, gltfimport.Options{MaxIndices: opts.Budget.MaxCorners(), MaxVertices: opts.Budget.MaxCorners()})
		if err != nil {
			return nil, err
		}
		if scale != 1 {
			scaleScene(sc, scale)
		}
		return FromGLTF(path, sc), nil
	}
	return nil, fmt.Errorf("convert: %s: unsupported source kind (want .fbx, .gltf or .glb)", path)
}

func fromFBX(path string, sc *mesh.Scene, insts []fbx.Instance) *Source {
	src := &Source{Path: path, Format: "fbx", Scene: sc}
	for i, in := range insts {
		m := MeshInfo{
			Index: i, Name: in.Model, MeshName: in.Geometry, Hidden: in.Hidden,
			first: in.First, count: in.Count, skinDeformers: in.SkinDeformers,
			unweighted: in.Unweighted, joints: in.Joints,
		}
		m.fill(sc)
		src.Meshes = append(src.Meshes, m)
	}
	return src
}

// FromGLTF describes a scene importer/gltf built: its submeshes are named
// "<mesh>/<primitive>", and a node's mesh is a run of them starting at
// primitive 0.
func FromGLTF(path string, sc *mesh.Scene) *Source {
	src := &Source{Path: path, Format: "gltf", Scene: sc}
	for i := range sc.Submeshes {
		name, prim := sc.Submeshes[i].Name, ""
		if k := strings.LastIndexByte(name, '/'); k >= 0 {
			name, prim = name[:k], name[k+1:]
		}
		if n := len(src.Meshes); n > 0 && prim != "0" && src.Meshes[n-1].Name == name {
			src.Meshes[n-1].count++
			continue
		}
		src.Meshes = append(src.Meshes, MeshInfo{Index: len(src.Meshes), Name: name, MeshName: name, first: i, count: 1})
	}
	for i := range src.Meshes {
		src.Meshes[i].fill(sc)
		if src.Meshes[i].Skinned {
			src.Meshes[i].skinDeformers = 1
		}
	}
	return src
}

// fill counts a mesh's triangles and says whether it is skinned.
func (m *MeshInfo) fill(sc *mesh.Scene) {
	for _, s := range sc.Submeshes[m.first : m.first+m.count] {
		m.Triangles += s.TriangleCount()
		if s.Joints != nil {
			m.Skinned = true
		}
	}
}

// Select returns the indices into s.Meshes that spec selects (see the
// package doc). A spec that matches nothing is an error matching
// ErrSelection; a source without any (visible) mesh is another error.
func (s *Source) Select(spec string, includeHidden bool) ([]int, error) {
	visible := func(m *MeshInfo) bool { return includeHidden || !m.Hidden }
	var out []int
	for i := range s.Meshes {
		if visible(&s.Meshes[i]) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("convert: %s has no meshes to import%s", s.Path, s.hiddenNote(includeHidden))
	}
	switch strings.ToLower(spec) {
	case "", "all":
		return out, nil
	case "first":
		return out[:1], nil
	}
	out = nil
	if idx, err := strconv.Atoi(spec); err == nil {
		if idx < 0 || idx >= len(s.Meshes) {
			return nil, selErr("%s: mesh index %d out of range (%d meshes; see --list-meshes)", s.Path, idx, len(s.Meshes))
		}
		if !visible(&s.Meshes[idx]) {
			return nil, selErr("%s: mesh %d '%s' is hidden (pass --include-hidden)", s.Path, idx, s.Meshes[idx].Name)
		}
		return []int{idx}, nil
	}
	for i := range s.Meshes {
		m := &s.Meshes[i]
		if visible(m) && (strings.EqualFold(m.Name, spec) || strings.EqualFold(m.MeshName, spec)) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		low := strings.ToLower(spec)
		for i := range s.Meshes {
			m := &s.Meshes[i]
			if visible(m) && (strings.Contains(strings.ToLower(m.Name), low) || strings.Contains(strings.ToLower(m.MeshName), low)) {
				out = append(out, i)
			}
		}
	}
	if len(out) == 0 {
		return nil, selErr("%s: no mesh matches '%s' (%d meshes; see --list-meshes)%s", s.Path, spec, len(s.Meshes), s.hiddenNote(includeHidden))
	}
	return out, nil
}

func (s *Source) hiddenNote(includeHidden bool) string {
	if includeHidden {
		return ""
	}
	for _, m := range s.Meshes {
		if m.Hidden {
			return " (hidden meshes need --include-hidden)"
		}
	}
	return ""
}

// scaleScene scales a glTF scene about the origin: positions, and the
// translations of bind poses and inverse binds, so skinning still holds.
func scaleScene(sc *mesh.Scene, f float64) {
	for i := range sc.Submeshes {
		s := &sc.Submeshes[i]
		for k := range s.Positions {
			for c := range 3 {
				s.Positions[k][c] = float32(float64(s.Positions[k][c]) * f)
			}
		}
		for t := range s.Morphs {
			for k := range s.Morphs[t].Positions {
				for c := range 3 {
					s.Morphs[t].Positions[k][c] = float32(float64(s.Morphs[t].Positions[k][c]) * f)
				}
			}
		}
	}
	if sc.Skeleton != nil {
		for i := range sc.Skeleton.Joints {
			j := &sc.Skeleton.Joints[i]
			for c := range 3 {
				j.BindT[c] = float32(float64(j.BindT[c]) * f)
				j.InverseBind[12+c] = float32(float64(j.InverseBind[12+c]) * f)
			}
		}
	}
}
