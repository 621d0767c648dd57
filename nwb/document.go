package nwb

import (
	"fmt"
	"math"
	"path"
	"path/filepath"
	"strings"

	"github.com/meshcook/meshcook/mesh"
)

// Kind is an asset type, the type identifier of a declaration.
type Kind string

const (
	KindMesh     Kind = "mesh"
	KindSkeleton Kind = "skeleton"
	KindSkin     Kind = "skin"
	KindModel    Kind = "model"
	KindBunch    Kind = "asset_bunch"
)

// title is the kind as the engine's messages spell it ("Mesh meta ...").
func (k Kind) title() string {
	switch k {
	case KindMesh:
		return "Mesh"
	case KindSkeleton:
		return "Skeleton"
	case KindSkin:
		return "Skin"
	case KindModel:
		return "Model"
	case KindBunch:
		return "AssetBunch"
	}
	return string(k)
}

// Document is a validated .nwb file: its assets in declaration order and,
// for a file of several declarations, the asset bunch that lists them.
type Document struct {
	// Path is the file's virtual path (see VirtualPath).
	Path string
	// Assets are the non-bunch declarations in source order.
	Assets []*Asset
	// Bunch is the asset_bunch variable name ("" for a single-asset
	// file); BunchItems are the variables it lists, in order.
	Bunch      string
	BunchItems []string
}

// Asset is one declared asset. Exactly one of the typed pointers is set,
// matching Kind.
type Asset struct {
	Kind Kind
	Name string // variable name
	// Path is the asset's virtual path: the file path for a single-asset
	// file, <file path>/<variable> inside a bunch.
	Path     string
	Mesh     *Mesh
	Skeleton *Skeleton
	Skin     *Skin
	Model    *Model
}

// Find returns the asset declared as name, or nil.
func (d *Document) Find(name string) *Asset {
	for _, a := range d.Assets {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Ref is a reference to another asset: a bare variable inside a bunch
// (Var set), or a string virtual path. Path is always the resolved virtual
// path.
type Ref struct {
	Var  string
	Path string
}

// Mesh is the authored mesh: five attribute streams, vertex_refs that pick
// one entry of each, and a triangle list over vertex_refs.
type Mesh struct {
	Positions  []mesh.Vec3
	Normals    []mesh.Vec3
	Tangents   []mesh.Vec4
	UV0        []mesh.Vec2
	Colors     []mesh.Vec4
	VertexRefs []VertexRef
	Indices    []uint32
}

// VertexRef picks one entry of each stream.
type VertexRef struct {
	Position, Normal, Tangent, UV0, Color uint32
}

// Affine is a 3×4 row-major [R|t] matrix.
type Affine [3][4]float32

// IdentityAffine returns the identity transform.
func IdentityAffine() Affine { return Affine{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}} }

// Skeleton is a joint list in which parents precede their children.
type Skeleton struct {
	Joints []Joint
}

// Joint is one skeleton joint. Parent is "" for a root.
type Joint struct {
	Name          string
	Parent        string
	LocalBindPose Affine
}

// Skin binds a mesh to a skeleton: one influence per mesh position.
type Skin struct {
	Mesh, Skeleton      Ref
	Influences          []Influence
	InverseBindMatrices []Affine
}

// Influence is up to four joint weights for one position. Weights are
// stored as written; Normalized returns them summing to 1.
type Influence struct {
	Joints  [4]uint16
	Weights [4]float32
}

// Normalized returns the weights divided by their sum (which validation
// guarantees is > 1e-6).
func (in Influence) Normalized() mesh.Vec4 {
	var sum float64
	for _, w := range in.Weights {
		sum += float64(w)
	}
	var out mesh.Vec4
	for i, w := range in.Weights {
		out[i] = float32(float64(w) / sum)
	}
	return out
}

// Model composes named objects. Object names are unique across the three
// lists; each list keeps source (map) order.
type Model struct {
	Skeletons     []SkeletonObject
	StaticMeshes  []StaticMeshObject
	SkinnedMeshes []SkinnedMeshObject
}

// SkeletonObject places a skeleton in the model.
type SkeletonObject struct {
	Name      string
	Skeleton  Ref
	Transform Affine
}

// StaticMeshObject is a mesh, optionally attached to a skeleton object's
// joint.
type StaticMeshObject struct {
	Name         string
	Mesh         Ref
	Material     *Ref
	ParentObject string // a skeleton object name, or ""
	ParentJoint  string // a joint name (needs ParentObject), or ""
	Transform    Affine
}

// SkinnedMeshObject is a skin driven by a skeleton object. Mesh is
// optional (the skin names its mesh).
type SkinnedMeshObject struct {
	Name      string
	Mesh      *Ref
	Skin      Ref
	Material  *Ref
	Skeleton  string // a skeleton object name
	Transform Affine
}

// VirtualPath returns a file's virtual path: root + "/" + rel without its
// extension, lowercased and '/'-separated ("Characters\Hero.nwb" under
// "project" → "project/characters/hero").
func VirtualPath(root, rel string) string {
	rel = strings.ReplaceAll(filepath.ToSlash(rel), "\\", "/")
	rel = strings.TrimSuffix(rel, path.Ext(rel))
	rel = strings.Trim(rel, "/")
	root = strings.Trim(strings.ReplaceAll(filepath.ToSlash(root), "\\", "/"), "/")
	if root == "" {
		return strings.ToLower(rel)
	}
	return strings.ToLower(root + "/" + rel)
}

// ParseDocument parses src and validates it as a Document whose virtual
// path is vpath ("" for "project/<file stem>").
func ParseDocument(src []byte, name, vpath string) (*Document, error) {
	f, err := Parse(src, name)
	if err != nil {
		return nil, err
	}
	return f.Document(vpath)
}

// Document validates the file's declarations against the asset rules of
// nwb.md §1 and returns the typed model. vpath is the file's virtual path
// ("" for "project/<file stem>").
func (f *File) Document(vpath string) (*Document, error) {
	if vpath == "" {
		vpath = VirtualPath("project", filepath.Base(f.Name))
	}
	doc := &Document{Path: vpath}
	if len(f.Decls) == 0 {
		return nil, fmt.Errorf("nwb: %s: no asset declaration", f.Name)
	}
	dc := &decoder{f: f, doc: doc, kinds: map[string]Kind{}}
	// Bunch rules first, so references know whether they are local.
	var bunches []*Decl
	for _, d := range f.Decls {
		dc.kinds[d.Name] = Kind(d.Type)
		if Kind(d.Type) == KindBunch {
			bunches = append(bunches, d)
		}
	}
	if len(f.Decls) > 1 || len(bunches) > 0 {
		if len(bunches) != 1 {
			return nil, f.errorf(f.Decls[0].Off, "a file of %d declarations needs exactly one asset_bunch, found %d", len(f.Decls), len(bunches))
		}
		if err := dc.bunch(bunches[0]); err != nil {
			return nil, err
		}
	}
	for _, d := range f.Decls {
		if Kind(d.Type) == KindBunch {
			continue
		}
		a := &Asset{Kind: Kind(d.Type), Name: d.Name, Path: vpath}
		if doc.Bunch != "" {
			a.Path = vpath + "/" + d.Name
		}
		var err error
		switch a.Kind {
		case KindMesh:
			a.Mesh, err = dc.mesh(d, a.Path)
		case KindSkeleton:
			a.Skeleton, err = dc.skeleton(d, a.Path)
		case KindSkin:
			a.Skin, err = dc.skin(d, a.Path)
		case KindModel:
			a.Model, err = dc.model(d, a.Path)
		default:
			err = f.errorf(d.Off, "unsupported asset type '%s'", d.Type)
		}
		if err != nil {
			return nil, err
		}
		doc.Assets = append(doc.Assets, a)
	}
	if err := dc.crossChecks(); err != nil {
		return nil, err
	}
	return doc, nil
}

// decoder turns Values into typed assets, with positioned errors.
type decoder struct {
	f     *File
	doc   *Document
	kinds map[string]Kind
	// pending cross-asset checks, run once every asset is decoded
	skins  []pendingSkin
	models []pendingModel
}

type pendingSkin struct {
	d    *Decl
	path string
	skin *Skin
}

type pendingModel struct {
	d     *Decl
	path  string
	model *Model
}

// metaErr builds "<Kind> meta '<path>': msg" at off.
func (dc *decoder) metaErr(k Kind, p string, off int32, format string, args ...any) error {
	return dc.f.errorf(off, "%s meta '%s': %s", k.title(), p, fmt.Sprintf(format, args...))
}

func (dc *decoder) bunch(d *Decl) error {
	p := dc.doc.Path
	v := d.Value
	if v.Kind != ListValue {
		return dc.metaErr(KindBunch, p, v.Off, "expected a list of asset references, found %s", v.Kind)
	}
	if len(v.List()) == 0 {
		return dc.metaErr(KindBunch, p, v.Off, "names no assets")
	}
	seen := map[string]bool{}
	for _, it := range v.List() {
		if it.Kind != RefValue || strings.Contains(it.Str(), ".") {
			return dc.metaErr(KindBunch, p, it.Off, "items must be declared variable names, found %s", it.Kind)
		}
		if dc.kinds[it.Str()] == KindBunch {
			return dc.metaErr(KindBunch, p, it.Off, "'%s' is an asset_bunch and cannot be an item", it.Str())
		}
		if seen[it.Str()] {
			return dc.metaErr(KindBunch, p, it.Off, "'%s' is listed twice", it.Str())
		}
		seen[it.Str()] = true
		dc.doc.BunchItems = append(dc.doc.BunchItems, it.Str())
	}
	dc.doc.Bunch = d.Name
	return nil
}

// fields checks that v is a map whose keys are all allowed.
func (dc *decoder) fields(k Kind, p string, v Value, allowed ...string) (*Map, error) {
	if v.Kind != MapValue {
		return nil, dc.metaErr(k, p, v.Off, "expected fields, found %s", v.Kind)
	}
	for _, e := range v.Map().Entries {
		ok := false
		for _, a := range allowed {
			ok = ok || e.Key == a
		}
		if !ok {
			return nil, dc.metaErr(k, p, e.Off, "unsupported asset field '%s'", e.Key)
		}
	}
	return v.Map(), nil
}

// required returns field name of m or a "missing field" error at off.
func (dc *decoder) required(k Kind, p string, m *Map, off int32, name string) (*MapEntry, error) {
	e := m.Get(name)
	if e == nil {
		return nil, dc.metaErr(k, p, off, "missing field '%s'", name)
	}
	return e, nil
}

// num converts a number value to float32: finite and within f32 range.
func (dc *decoder) num(k Kind, p, what string, v Value) (float32, error) {
	if v.Kind != NumberValue {
		return 0, dc.metaErr(k, p, v.Off, "%s: expected a number, found %s", what, v.Kind)
	}
	if math.IsNaN(v.Num) || math.Abs(v.Num) > math.MaxFloat32 {
		return 0, dc.metaErr(k, p, v.Off, "%s: %v is not a finite f32 value", what, v.Num)
	}
	return float32(v.Num), nil
}

// uint converts a number value to an integer in [0, max].
func (dc *decoder) uint(k Kind, p, what string, v Value, max uint64) (uint64, error) {
	if v.Kind != NumberValue {
		return 0, dc.metaErr(k, p, v.Off, "%s: expected an integer, found %s", what, v.Kind)
	}
	if v.Num != math.Trunc(v.Num) || v.Num < 0 || v.Num > float64(max) {
		return 0, dc.metaErr(k, p, v.Off, "%s: %v is not an integer in 0..%d", what, v.Num, max)
	}
	return uint64(v.Num), nil
}

// vec reads a list of exactly n numbers into out.
func (dc *decoder) vec(k Kind, p, what string, v Value, out []float32) error {
	if v.Kind != ListValue || len(v.List()) != len(out) {
		return dc.metaErr(k, p, v.Off, "%s: expected a list of %d numbers, found %s", what, len(out), describeValue(v))
	}
	for i, e := range v.List() {
		x, err := dc.num(k, p, what, e)
		if err != nil {
			return err
		}
		out[i] = x
	}
	return nil
}

// describeValue names a value's shape for messages.
func describeValue(v Value) string {
	if v.Kind == ListValue {
		return fmt.Sprintf("a list of %d", len(v.List()))
	}
	return "a " + v.Kind.String()
}

// rows checks that a field is a non-empty list and returns its elements.
func (dc *decoder) rows(k Kind, p string, e *MapEntry) ([]Value, error) {
	if e.Val.Kind != ListValue {
		return nil, dc.metaErr(k, p, e.Val.Off, "'%s' must be a list, found %s", e.Key, e.Val.Kind)
	}
	if len(e.Val.List()) == 0 {
		return nil, dc.metaErr(k, p, e.Val.Off, "'%s' is empty", e.Key)
	}
	return e.Val.List(), nil
}

// matrix reads a 3×4 affine, or a 4×4 whose last row is exactly [0,0,0,1].
func (dc *decoder) matrix(k Kind, p, what string, v Value) (Affine, error) {
	var m Affine
	if v.Kind != ListValue || (len(v.List()) != 3 && len(v.List()) != 4) {
		return m, dc.metaErr(k, p, v.Off, "%s: expected 3 rows of 4 numbers, found %s", what, describeValue(v))
	}
	for r := 0; r < 3; r++ {
		if err := dc.vec(k, p, what, v.List()[r], m[r][:]); err != nil {
			return m, err
		}
	}
	if len(v.List()) == 4 {
		var last [4]float32
		if err := dc.vec(k, p, what, v.List()[3], last[:]); err != nil {
			return m, err
		}
		if last != [4]float32{0, 0, 0, 1} {
			return m, dc.metaErr(k, p, v.List()[3].Off, "%s: a 4×4 matrix must end with the row [0, 0, 0, 1]", what)
		}
	}
	return m, nil
}

// Field names of a mesh, in writer order.
var meshFields = [7]string{"positions", "normals", "tangents", "uv0", "colors", "vertex_refs", "indices"}

func (dc *decoder) mesh(d *Decl, p string) (*Mesh, error) {
	m, err := dc.fields(KindMesh, p, d.Value, meshFields[:]...)
	if err != nil {
		return nil, err
	}
	var rows [7][]Value
	for i, name := range meshFields {
		e, err := dc.required(KindMesh, p, m, d.Off, name)
		if err != nil {
			return nil, err
		}
		if rows[i], err = dc.rows(KindMesh, p, e); err != nil {
			return nil, err
		}
	}
	out := &Mesh{
		Positions: make([]mesh.Vec3, len(rows[0])),
		Normals:   make([]mesh.Vec3, len(rows[1])),
		Tangents:  make([]mesh.Vec4, len(rows[2])),
		UV0:       make([]mesh.Vec2, len(rows[3])),
		Colors:    make([]mesh.Vec4, len(rows[4])),
	}
	for i, r := range rows[0] {
		if err := dc.vec(KindMesh, p, "positions", r, out.Positions[i][:]); err != nil {
			return nil, err
		}
	}
	for i, r := range rows[1] {
		if err := dc.vec(KindMesh, p, "normals", r, out.Normals[i][:]); err != nil {
			return nil, err
		}
	}
	for i, r := range rows[2] {
		if err := dc.vec(KindMesh, p, "tangents", r, out.Tangents[i][:]); err != nil {
			return nil, err
		}
	}
	for i, r := range rows[3] {
		if err := dc.vec(KindMesh, p, "uv0", r, out.UV0[i][:]); err != nil {
			return nil, err
		}
	}
	for i, r := range rows[4] {
		if err := dc.vec(KindMesh, p, "colors", r, out.Colors[i][:]); err != nil {
			return nil, err
		}
	}
	limits := [5]int{len(out.Positions), len(out.Normals), len(out.Tangents), len(out.UV0), len(out.Colors)}
	out.VertexRefs = make([]VertexRef, len(rows[5]))
	for i, r := range rows[5] {
		if r.Kind != ListValue || len(r.List()) != 5 {
			return nil, dc.metaErr(KindMesh, p, r.Off, "vertex_refs: expected [position, normal, tangent, uv0, color], found %s", describeValue(r))
		}
		var ref [5]uint32
		for c, e := range r.List() {
			x, err := dc.uint(KindMesh, p, "vertex_refs", e, math.MaxUint32)
			if err != nil {
				return nil, err
			}
			if x >= uint64(limits[c]) {
				return nil, dc.metaErr(KindMesh, p, e.Off, "vertex_refs: %s index %d out of range (%d entries)", meshFields[c], x, limits[c])
			}
			ref[c] = uint32(x)
		}
		out.VertexRefs[i] = VertexRef{ref[0], ref[1], ref[2], ref[3], ref[4]}
	}
	// Indices: any nesting flattens; an explicit stack keeps hostile
	// nesting off the Go stack.
	idx := m.Get("indices").Val
	stack := []Value{idx}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.Kind == ListValue {
			for i := len(v.List()) - 1; i >= 0; i-- {
				stack = append(stack, v.List()[i])
			}
			continue
		}
		x, err := dc.uint(KindMesh, p, "indices", v, math.MaxUint32)
		if err != nil {
			return nil, err
		}
		if x >= uint64(len(out.VertexRefs)) {
			return nil, dc.metaErr(KindMesh, p, v.Off, "indices: %d out of range (%d vertex_refs)", x, len(out.VertexRefs))
		}
		out.Indices = append(out.Indices, uint32(x))
	}
	if len(out.Indices) == 0 || len(out.Indices)%3 != 0 {
		return nil, dc.metaErr(KindMesh, p, idx.Off, "indices: count %d is not a positive multiple of 3", len(out.Indices))
	}
	return out, nil
}

func (dc *decoder) skeleton(d *Decl, p string) (*Skeleton, error) {
	m, err := dc.fields(KindSkeleton, p, d.Value, "joints")
	if err != nil {
		return nil, err
	}
	e, err := dc.required(KindSkeleton, p, m, d.Off, "joints")
	if err != nil {
		return nil, err
	}
	rows, err := dc.rows(KindSkeleton, p, e)
	if err != nil {
		return nil, err
	}
	out := &Skeleton{Joints: make([]Joint, len(rows))}
	names := map[string]bool{}
	for i, r := range rows {
		if r.Kind != MapValue {
			return nil, dc.metaErr(KindSkeleton, p, r.Off, "joint %d: expected a map, found %s", i, r.Kind)
		}
		for _, je := range r.Map().Entries {
			if je.Key != "name" && je.Key != "parent" && je.Key != "local_bind_pose" {
				return nil, dc.metaErr(KindSkeleton, p, je.Off, "unsupported joint field '%s'", je.Key)
			}
		}
		j := Joint{LocalBindPose: IdentityAffine()}
		ne := r.Map().Get("name")
		if ne == nil || ne.Val.Kind != StringValue {
			return nil, dc.metaErr(KindSkeleton, p, r.Off, "joint %d: 'name' must be a string", i)
		}
		j.Name = ne.Val.Str()
		if names[j.Name] {
			return nil, dc.metaErr(KindSkeleton, p, ne.Val.Off, "joint name '%s' is used twice", j.Name)
		}
		if pe := r.Map().Get("parent"); pe != nil {
			if pe.Val.Kind != StringValue {
				return nil, dc.metaErr(KindSkeleton, p, pe.Val.Off, "joint '%s': 'parent' must be a string", j.Name)
			}
			if !names[pe.Val.Str()] {
				return nil, dc.metaErr(KindSkeleton, p, pe.Val.Off, "joint '%s': parent '%s' is not an earlier joint", j.Name, pe.Val.Str())
			}
			j.Parent = pe.Val.Str()
		}
		if be := r.Map().Get("local_bind_pose"); be != nil {
			if j.LocalBindPose, err = dc.matrix(KindSkeleton, p, "local_bind_pose", be.Val); err != nil {
				return nil, err
			}
		}
		names[j.Name] = true
		out.Joints[i] = j
	}
	return out, nil
}

// ref reads an asset reference of the wanted kind: a bare variable inside
// a bunch, or a string virtual path.
func (dc *decoder) ref(k Kind, p, field string, v Value, want Kind) (Ref, error) {
	switch v.Kind {
	case StringValue:
		if v.Str() == "" {
			return Ref{}, dc.metaErr(k, p, v.Off, "'%s' is an empty path", field)
		}
		return Ref{Path: v.Str()}, nil
	case RefValue:
		if dc.doc.Bunch == "" {
			return Ref{}, dc.metaErr(k, p, v.Off, "'%s': outside an asset_bunch, references are string virtual paths", field)
		}
		got, ok := dc.kinds[v.Str()]
		if !ok || strings.Contains(v.Str(), ".") {
			return Ref{}, dc.metaErr(k, p, v.Off, "'%s': '%s' is not a declared asset", field, v.Str())
		}
		if got != want {
			return Ref{}, dc.metaErr(k, p, v.Off, "'%s': '%s' is a %s, not a %s", field, v.Str(), got, want)
		}
		return Ref{Var: v.Str(), Path: dc.doc.Path + "/" + v.Str()}, nil
	}
	return Ref{}, dc.metaErr(k, p, v.Off, "'%s' must be an asset reference, found %s", field, v.Kind)
}

func (dc *decoder) skin(d *Decl, p string) (*Skin, error) {
	m, err := dc.fields(KindSkin, p, d.Value, "mesh", "skeleton", "influences", "inverse_bind_matrices")
	if err != nil {
		return nil, err
	}
	out := &Skin{}
	e, err := dc.required(KindSkin, p, m, d.Off, "mesh")
	if err != nil {
		return nil, err
	}
	if out.Mesh, err = dc.ref(KindSkin, p, "mesh", e.Val, KindMesh); err != nil {
		return nil, err
	}
	if e, err = dc.required(KindSkin, p, m, d.Off, "skeleton"); err != nil {
		return nil, err
	}
	if out.Skeleton, err = dc.ref(KindSkin, p, "skeleton", e.Val, KindSkeleton); err != nil {
		return nil, err
	}
	if e, err = dc.required(KindSkin, p, m, d.Off, "inverse_bind_matrices"); err != nil {
		return nil, err
	}
	ibms, err := dc.rows(KindSkin, p, e)
	if err != nil {
		return nil, err
	}
	for _, r := range ibms {
		a, err := dc.matrix(KindSkin, p, "inverse_bind_matrices", r)
		if err != nil {
			return nil, err
		}
		if det := det3(a); det == 0 || math.IsInf(det, 0) || math.IsNaN(det) {
			return nil, dc.metaErr(KindSkin, p, r.Off, "inverse_bind_matrices: matrix is not invertible")
		}
		out.InverseBindMatrices = append(out.InverseBindMatrices, a)
	}
	if e, err = dc.required(KindSkin, p, m, d.Off, "influences"); err != nil {
		return nil, err
	}
	infl, err := dc.rows(KindSkin, p, e)
	if err != nil {
		return nil, err
	}
	out.Influences = make([]Influence, len(infl))
	for i, r := range infl {
		if r.Kind != MapValue {
			return nil, dc.metaErr(KindSkin, p, r.Off, "influence %d: expected a map, found %s", i, r.Kind)
		}
		for _, ie := range r.Map().Entries {
			if ie.Key != "joints" && ie.Key != "weights" {
				return nil, dc.metaErr(KindSkin, p, ie.Off, "unsupported influence field '%s'", ie.Key)
			}
		}
		je, we := r.Map().Get("joints"), r.Map().Get("weights")
		if je == nil || we == nil {
			return nil, dc.metaErr(KindSkin, p, r.Off, "influence %d needs 'joints' and 'weights'", i)
		}
		in := &out.Influences[i]
		if je.Val.Kind != ListValue || len(je.Val.List()) != 4 {
			return nil, dc.metaErr(KindSkin, p, je.Val.Off, "influence %d: 'joints' must be 4 integers", i)
		}
		for c, v := range je.Val.List() {
			x, err := dc.uint(KindSkin, p, "joints", v, math.MaxUint16)
			if err != nil {
				return nil, err
			}
			if x >= uint64(len(out.InverseBindMatrices)) {
				return nil, dc.metaErr(KindSkin, p, v.Off, "joints: joint %d is not below the %d inverse_bind_matrices", x, len(out.InverseBindMatrices))
			}
			in.Joints[c] = uint16(x)
		}
		if err := dc.vec(KindSkin, p, "weights", we.Val, in.Weights[:]); err != nil {
			return nil, err
		}
		var sum float64
		for _, w := range in.Weights {
			if w < 0 {
				return nil, dc.metaErr(KindSkin, p, we.Val.Off, "influence %d: negative weight", i)
			}
			sum += float64(w)
		}
		if !(sum > 1e-6) {
			return nil, dc.metaErr(KindSkin, p, we.Val.Off, "influence %d: weights sum to %g (must be > 1e-6)", i, sum)
		}
	}
	dc.skins = append(dc.skins, pendingSkin{d, p, out})
	return out, nil
}

// det3 is the determinant of the 3×3 linear part.
func det3(a Affine) float64 {
	m := func(r, c int) float64 { return float64(a[r][c]) }
	return m(0, 0)*(m(1, 1)*m(2, 2)-m(1, 2)*m(2, 1)) -
		m(0, 1)*(m(1, 0)*m(2, 2)-m(1, 2)*m(2, 0)) +
		m(0, 2)*(m(1, 0)*m(2, 1)-m(1, 1)*m(2, 0))
}

func (dc *decoder) model(d *Decl, p string) (*Model, error) {
	m, err := dc.fields(KindModel, p, d.Value, "skeletons", "static_meshes", "skinned_meshes")
	if err != nil {
		return nil, err
	}
	out := &Model{}
	names := map[string]bool{}
	// objects iterates one of the three maps, checking name uniqueness.
	objects := func(field string, allowed []string, fn func(name string, o *Map, off int32) error) error {
		e := m.Get(field)
		if e == nil {
			return nil
		}
		if e.Val.Kind != MapValue {
			if e.Val.Kind == ListValue && len(e.Val.List()) == 0 {
				return nil // `{}` is an empty list: no objects
			}
			return dc.metaErr(KindModel, p, e.Val.Off, "'%s' must be a map of named objects, found %s", field, e.Val.Kind)
		}
		for _, oe := range e.Val.Map().Entries {
			if names[oe.Key] {
				return dc.metaErr(KindModel, p, oe.Off, "object name '%s' is used twice", oe.Key)
			}
			names[oe.Key] = true
			if oe.Val.Kind != MapValue {
				return dc.metaErr(KindModel, p, oe.Val.Off, "object '%s' must be a map, found %s", oe.Key, oe.Val.Kind)
			}
			for _, f := range oe.Val.Map().Entries {
				ok := false
				for _, a := range allowed {
					ok = ok || f.Key == a
				}
				if !ok {
					return dc.metaErr(KindModel, p, f.Off, "object '%s': unsupported object field '%s'", oe.Key, f.Key)
				}
			}
			if err := fn(oe.Key, oe.Val.Map(), oe.Off); err != nil {
				return err
			}
		}
		return nil
	}
	transform := func(o *Map) (Affine, error) {
		if e := o.Get("transform"); e != nil {
			return dc.matrix(KindModel, p, "transform", e.Val)
		}
		return IdentityAffine(), nil
	}
	str := func(obj string, o *Map, key string) (string, int32, error) {
		e := o.Get(key)
		if e == nil {
			return "", 0, nil
		}
		if e.Val.Kind != StringValue {
			return "", 0, dc.metaErr(KindModel, p, e.Val.Off, "object '%s': '%s' must be a string object name, found %s", obj, key, e.Val.Kind)
		}
		return e.Val.Str(), e.Val.Off, nil
	}
	optRef := func(o *Map, key string, want Kind) (*Ref, error) {
		e := o.Get(key)
		if e == nil {
			return nil, nil
		}
		r, err := dc.ref(KindModel, p, key, e.Val, want)
		return &r, err
	}
	if err := objects("skeletons", []string{"skeleton", "transform"}, func(name string, o *Map, off int32) error {
		e := o.Get("skeleton")
		if e == nil {
			return dc.metaErr(KindModel, p, off, "object '%s': missing field 'skeleton'", name)
		}
		r, err := dc.ref(KindModel, p, "skeleton", e.Val, KindSkeleton)
		if err != nil {
			return err
		}
		t, err := transform(o)
		out.Skeletons = append(out.Skeletons, SkeletonObject{Name: name, Skeleton: r, Transform: t})
		return err
	}); err != nil {
		return nil, err
	}
	skeletonObject := func(obj, key, name string, off int32) error {
		for _, s := range out.Skeletons {
			if s.Name == name {
				return nil
			}
		}
		return dc.metaErr(KindModel, p, off, "object '%s': '%s' names '%s', which is not a skeleton object", obj, key, name)
	}
	if err := objects("static_meshes", []string{"mesh", "material", "parent_object", "parent_joint", "transform"}, func(name string, o *Map, off int32) error {
		e := o.Get("mesh")
		if e == nil {
			return dc.metaErr(KindModel, p, off, "object '%s': missing field 'mesh'", name)
		}
		obj := StaticMeshObject{Name: name}
		var err error
		if obj.Mesh, err = dc.ref(KindModel, p, "mesh", e.Val, KindMesh); err != nil {
			return err
		}
		if obj.Material, err = optRef(o, "material", "material"); err != nil {
			return err
		}
		var poff, joff int32
		if obj.ParentObject, poff, err = str(name, o, "parent_object"); err != nil {
			return err
		}
		if obj.ParentJoint, joff, err = str(name, o, "parent_joint"); err != nil {
			return err
		}
		if o.Get("parent_object") != nil {
			if err := skeletonObject(name, "parent_object", obj.ParentObject, poff); err != nil {
				return err
			}
		}
		if o.Get("parent_joint") != nil && o.Get("parent_object") == nil {
			return dc.metaErr(KindModel, p, joff, "object '%s': 'parent_joint' needs 'parent_object'", name)
		}
		obj.Transform, err = transform(o)
		out.StaticMeshes = append(out.StaticMeshes, obj)
		return err
	}); err != nil {
		return nil, err
	}
	if err := objects("skinned_meshes", []string{"mesh", "skin", "material", "skeleton", "transform"}, func(name string, o *Map, off int32) error {
		e := o.Get("skin")
		if e == nil {
			return dc.metaErr(KindModel, p, off, "object '%s': missing field 'skin'", name)
		}
		obj := SkinnedMeshObject{Name: name}
		var err error
		if obj.Skin, err = dc.ref(KindModel, p, "skin", e.Val, KindSkin); err != nil {
			return err
		}
		if obj.Mesh, err = optRef(o, "mesh", KindMesh); err != nil {
			return err
		}
		if obj.Material, err = optRef(o, "material", "material"); err != nil {
			return err
		}
		if o.Get("skeleton") == nil {
			return dc.metaErr(KindModel, p, off, "object '%s': missing field 'skeleton'", name)
		}
		var soff int32
		if obj.Skeleton, soff, err = str(name, o, "skeleton"); err != nil {
			return err
		}
		if err := skeletonObject(name, "skeleton", obj.Skeleton, soff); err != nil {
			return err
		}
		obj.Transform, err = transform(o)
		out.SkinnedMeshes = append(out.SkinnedMeshes, obj)
		return err
	}); err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, dc.metaErr(KindModel, p, d.Off, "has no objects")
	}
	dc.models = append(dc.models, pendingModel{d, p, out})
	return out, nil
}

// crossChecks validates what spans assets of one file: influence counts
// against the skin's mesh, and parent joints against skeletons.
func (dc *decoder) crossChecks() error {
	for _, s := range dc.skins {
		if s.skin.Mesh.Var == "" {
			continue
		}
		if m := dc.doc.Find(s.skin.Mesh.Var); m != nil && m.Mesh != nil && len(m.Mesh.Positions) != len(s.skin.Influences) {
			off := s.d.Value.Map().Get("influences").Val.Off
			return dc.metaErr(KindSkin, s.path, off, "%d influences for %d mesh positions (one per position)", len(s.skin.Influences), len(m.Mesh.Positions))
		}
	}
	for _, pm := range dc.models {
		for _, o := range pm.model.SkinnedMeshes {
			if o.Mesh == nil || o.Skin.Var == "" {
				continue
			}
			if a := dc.doc.Find(o.Skin.Var); a != nil && a.Skin != nil && a.Skin.Mesh.Path != o.Mesh.Path {
				return dc.metaErr(KindModel, pm.path, pm.d.Off, "object '%s': mesh %q is not the mesh of its skin (%q)", o.Name, o.Mesh.Path, a.Skin.Mesh.Path)
			}
		}
		for _, o := range pm.model.StaticMeshes {
			if o.ParentJoint == "" {
				continue
			}
			var skel *Skeleton
			for _, so := range pm.model.Skeletons {
				if so.Name == o.ParentObject && so.Skeleton.Var != "" {
					if a := dc.doc.Find(so.Skeleton.Var); a != nil {
						skel = a.Skeleton
					}
				}
			}
			if skel == nil {
				continue // the skeleton lives in another file
			}
			found := false
			for _, j := range skel.Joints {
				found = found || j.Name == o.ParentJoint
			}
			if !found {
				return dc.metaErr(KindModel, pm.path, pm.d.Off, "object '%s': parent_joint '%s' is not a joint of skeleton object '%s'", o.Name, o.ParentJoint, o.ParentObject)
			}
		}
	}
	return nil
}
