package bake

// Source parts: a rigged catalog's part may name a skinned glTF or FBX file
// instead of a primitive. The file's submeshes are imported, canonicalized
// (mesh.Canonicalize) and merged with their own joints and weights; they
// are authored meshes, so the bake counts their triangles unchanged
// (before = after).

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"strings"

	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/importer/fbx"
	gltfimport "github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/internal/srcpath"
	"github.com/meshcook/meshcook/mesh"
)

// MaxSourceJoints is the most joints a source's skeleton may have: a
// rigged vertex indexes joints with one byte each.
const MaxSourceJoints = 256

// SourceRef is a source part's file and selection.
type SourceRef struct {
	// Path is '/'-separated and relative to the catalog's folder, which it
	// never leaves (checked when parsed, and again through an os.Root when
	// read, so a symbolic link cannot lead out either).
	Path string
	// Mesh selects submeshes: those named Mesh or "Mesh/…" (glTF submeshes
	// are "<mesh>/<primitive>", FBX ones carry their model's name). Empty
	// selects every submesh. Every selected submesh must be skinned.
	Mesh string
	// SourceMaterials is set when the part gives no "material": each
	// submesh then keeps its source material index as its material id
	// (0 when it has none).
	SourceMaterials bool
}

// ErrSourceOutsideCatalog is wrapped by the error for a source path that
// is absolute or leaves the catalog's folder.
var ErrSourceOutsideCatalog = errors.New("source path leaves the catalog's folder")

// sourceExts are the file kinds a source part may name.
var sourceExts = map[string]bool{".gltf": true, ".glb": true, ".fbx": true}

// resolveSource builds a source part. Everything that shapes or binds a
// primitive is refused: a source's vertices are its own, in bind space,
// with its own joints.
func (jp *jsonPart) resolveSource(family meshpack.Family, p Part) (Part, error) {
	if family != meshpack.Rigged {
		return p, fmt.Errorf("source parts need \"family\": \"rigged\"")
	}
	var refused []string
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"primitive", jp.Primitive != ""}, {"translate", jp.Translate != nil}, {"rotate", jp.Rotate != nil},
		{"scale", jp.Scale != nil}, {"matrix", jp.Matrix != nil}, {"segments", jp.Segments != nil},
		{"color", jp.Color != nil}, {"palette", jp.Palette != nil}, {"timber", jp.Timber},
		{"top", jp.Top != nil}, {"length", jp.Length != nil}, {"tube", jp.Tube != nil},
		{"bone", jp.Bone != nil}, {"bones", jp.Bones != nil},
	} {
		if f.set {
			refused = append(refused, f.name)
		}
	}
	if len(refused) > 0 {
		return p, fmt.Errorf("%s do not apply to a source part (its vertices, joints and weights are the source's)", strings.Join(refused, ", "))
	}
	src := *jp.Source
	if err := checkSourcePath(src); err != nil {
		return p, err
	}
	ref := &SourceRef{Path: path.Clean(src)}
	if ext := strings.ToLower(path.Ext(ref.Path)); !sourceExts[ext] {
		return p, fmt.Errorf("source %q: unsupported kind %q (want .gltf, .glb or .fbx)", src, ext)
	}
	if jp.Mesh != nil {
		if *jp.Mesh == "" {
			return p, fmt.Errorf("mesh is empty (omit it to take every submesh)")
		}
		ref.Mesh = *jp.Mesh
	}
	if jp.Material != nil {
		if *jp.Material < 0 || *jp.Material > MaxMaterialID {
			return p, fmt.Errorf("material %d outside [0, %d]", *jp.Material, MaxMaterialID)
		}
		p.Material = *jp.Material
	} else {
		ref.SourceMaterials = true
	}
	if jp.Role != nil {
		if *jp.Role < 0 || *jp.Role > 255 {
			return p, fmt.Errorf("role %d outside [0, 255]", *jp.Role)
		}
		p.Role = uint8(*jp.Role)
	}
	p.Source = ref
	return p, nil
}

// checkSourcePath accepts a '/'-separated path that stays inside the
// catalog's folder: not empty, not absolute, no backslashes or NULs, no
// ".." that climbs above the folder.
func checkSourcePath(src string) error {
	switch {
	case src == "":
		return fmt.Errorf("source is empty")
	case strings.ContainsAny(src, "\\\x00"), strings.HasPrefix(src, "/"), !filepath.IsLocal(filepath.FromSlash(src)):
		return fmt.Errorf("source %q: %w", src, ErrSourceOutsideCatalog)
	}
	if _, err := srcpath.Local(src); err != nil {
		return fmt.Errorf("source %q: %w", src, ErrSourceOutsideCatalog)
	}
	return nil
}

// source is one imported file: its skeleton's joint names and its
// submeshes, canonicalized, in source order.
type source struct {
	joints []string
	subs   []mesh.Submesh
}

// sources imports each source file of one bake once, through the
// catalog's folder under the path policy (internal/srcpath).
type sources struct {
	dir    string
	strict bool
	root   *srcpath.Folder
	loaded map[string]*source
	failed map[string]error
	// files lists every file read, '/'-separated and relative to the
	// catalog's folder, each once, in the order first read: the sources
	// and the files they refer to (a glTF's external buffers).
	files []string
	seen  map[string]bool
}

func newSources(catalogPath string, strict bool) *sources {
	return &sources{dir: filepath.Dir(catalogPath), strict: strict, loaded: map[string]*source{}, failed: map[string]error{}, seen: map[string]bool{}}
}

func (s *sources) read(rel string) {
	if !s.seen[rel] {
		s.seen[rel] = true
		s.files = append(s.files, rel)
	}
}

func (s *sources) close() {
	if s.root != nil {
		s.root.Close()
	}
}

// get returns the imported, canonicalized file ref names.
func (s *sources) get(ref *SourceRef) (*source, error) {
	if src, ok := s.loaded[ref.Path]; ok {
		return src, nil
	}
	if err, ok := s.failed[ref.Path]; ok {
		return nil, err
	}
	src, err := s.load(ref.Path)
	if err != nil {
		s.failed[ref.Path] = err
		return nil, err
	}
	s.loaded[ref.Path] = src
	return src, nil
}

func (s *sources) load(rel string) (*source, error) {
	if s.root == nil {
		root, err := srcpath.Open(s.dir, s.strict)
		if err != nil {
			return nil, err
		}
		s.root = root
	}
	// Stat through the folder first: a missing file, or (strict paths) a
	// link that leaves the folder, gets a plain error before any importer
	// runs.
	if _, err := s.root.Stat(rel); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the op and path ("statat skinned/x.glb") add nothing here
		}
		return nil, err
	}
	var sc *mesh.Scene
	var err error
	switch strings.ToLower(path.Ext(rel)) {
	case ".fbx":
		var data []byte
		if data, err = fs.ReadFile(s.root.FS(), rel); err == nil {
			sc, err = fbx.Decode(data, rel, fbx.Options{})
		}
	default:
		sc, err = gltfimport.Decode(s.root.FS(), rel, gltfimport.Options{})
	}
	if err != nil {
		return nil, err
	}
	s.read(rel)
	for _, f := range sc.Files {
		s.read(path.Join(path.Dir(rel), f))
	}
	if sc.Skeleton == nil {
		return nil, fmt.Errorf("not skinned (the file has no skin); a rigged catalog needs skinned sources")
	}
	if n := len(sc.Skeleton.Joints); n > MaxSourceJoints {
		return nil, fmt.Errorf("skeleton has %d joints; a rigged pack indexes joints with one byte (at most %d)", n, MaxSourceJoints)
	}
	src := &source{}
	for _, j := range sc.Skeleton.Joints {
		src.joints = append(src.joints, j.Name)
	}
	for i := range sc.Submeshes {
		sub, err := canonicalSource(sc.Submeshes[i])
		if err != nil {
			return nil, err
		}
		for k, js := range sub.Joints {
			for _, j := range js {
				if int(j) >= len(src.joints) {
					return nil, fmt.Errorf("submesh %q vertex %d: joint %d outside the %d-joint skeleton", sub.Name, k, j, len(src.joints))
				}
			}
		}
		src.subs = append(src.subs, sub)
	}
	return src, nil
}

// canonicalSource drops the streams a rigged vertex has no room for
// (tangents, colours, morph targets, so the weld is not split by them) and
// canonicalizes what is left: exact duplicates welded, degenerate
// triangles dropped, unit normals (generated when missing), vertices in
// first-use order.
func canonicalSource(s mesh.Submesh) (mesh.Submesh, error) {
	s.Tangents, s.Colors, s.Morphs = nil, nil, nil
	if _, err := mesh.Canonicalize(&s, mesh.CanonicalOptions{NoTangents: true}); err != nil {
		return s, err
	}
	return s, nil
}

// selected returns the submeshes of src that ref selects, each skinned.
func (src *source) selected(ref *SourceRef) ([]*mesh.Submesh, error) {
	var out []*mesh.Submesh
	for i := range src.subs {
		s := &src.subs[i]
		if ref.Mesh != "" && s.Name != ref.Mesh && !strings.HasPrefix(s.Name, ref.Mesh+"/") {
			continue
		}
		if s.Joints == nil || s.Weights == nil {
			return nil, fmt.Errorf("submesh %q is not skinned (select skinned ones with \"mesh\")", s.Name)
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		names := make([]string, 0, len(src.subs))
		for i := range src.subs {
			if len(names) == 8 {
				names = append(names, "…")
				break
			}
			names = append(names, src.subs[i].Name)
		}
		if ref.Mesh == "" {
			return nil, fmt.Errorf("no submeshes")
		}
		return nil, fmt.Errorf("no submesh named %q (the file has %s)", ref.Mesh, strings.Join(names, ", "))
	}
	return out, nil
}

// sourceMaterial is the material id a source submesh's triangles get.
func sourceMaterial(ref *SourceRef, part *Part, s *mesh.Submesh) (int, error) {
	if !ref.SourceMaterials {
		return part.Material, nil
	}
	if s.Material < 0 {
		return 0, nil
	}
	if s.Material > MaxMaterialID {
		return 0, fmt.Errorf("submesh %q: source material %d above %d", s.Name, s.Material, MaxMaterialID)
	}
	return s.Material, nil
}

// riggedVertices converts a canonical skinned submesh to rigged vertices
// with the part's colour role. Joint indices were bounded when loaded.
func riggedVertices(s *mesh.Submesh, role uint8) ([]meshpack.RiggedVertex, error) {
	out := make([]meshpack.RiggedVertex, len(s.Positions))
	for k := range s.Positions {
		v := meshpack.RiggedVertex{Position: s.Positions[k], ColorRole: role}
		if s.Normals != nil {
			v.Normal = s.Normals[k]
		}
		if s.UV0 != nil {
			v.TexCoord = s.UV0[k]
		}
		for j := 0; j < 4; j++ {
			v.BoneIndices[j] = uint8(s.Joints[k][j])
			v.BoneWeights[j] = s.Weights[k][j]
		}
		if !finite(v.TexCoord[:]...) || !finite(v.BoneWeights[:]...) || !finite(v.Normal[:]...) {
			return nil, fmt.Errorf("submesh %q vertex %d: non-finite normal, texture coordinate or weight", s.Name, k)
		}
		out[k] = v
	}
	return out, nil
}

func finite(xs ...float32) bool {
	for _, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
