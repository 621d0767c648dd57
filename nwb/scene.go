package nwb

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/meshcook/meshcook/mesh"
)

// ToScene converts a document's meshes into a canonical scene so the cook
// can take .nwb sources: each mesh asset becomes one Submesh whose vertices
// are its vertex_refs (every stream gathered through the refs) and whose
// triangles are its indices. A skin in the same file whose mesh is that
// asset adds Joints/Weights (the influence of each vertex's position,
// weights renormalised to 1) and, once per scene, the skeleton it names
// (which must be in the same file). Model objects and their transforms are
// not applied: a model file alone has no geometry and is an error.
func ToScene(doc *Document) (*mesh.Scene, error) {
	sc := &mesh.Scene{}
	var skelAsset string
	for _, a := range doc.Assets {
		if a.Mesh == nil {
			continue
		}
		m := a.Mesh
		n := len(m.VertexRefs)
		sub := mesh.Submesh{
			Name:      a.Name,
			Material:  -1,
			Positions: make([]mesh.Vec3, n),
			Normals:   make([]mesh.Vec3, n),
			Tangents:  make([]mesh.Vec4, n),
			UV0:       make([]mesh.Vec2, n),
			Colors:    make([]mesh.Vec4, n),
			Indices:   slices.Clone(m.Indices),
		}
		for i, r := range m.VertexRefs {
			sub.Positions[i] = m.Positions[r.Position]
			sub.Normals[i] = m.Normals[r.Normal]
			sub.Tangents[i] = m.Tangents[r.Tangent]
			sub.UV0[i] = m.UV0[r.UV0]
			sub.Colors[i] = m.Colors[r.Color]
		}
		var skin *Skin
		for _, s := range doc.Assets {
			if s.Skin != nil && s.Skin.Mesh.Var == a.Name {
				if skin != nil {
					return nil, fmt.Errorf("nwb: %s: mesh '%s' has more than one skin", doc.Path, a.Name)
				}
				skin = s.Skin
			}
		}
		if skin != nil {
			if len(skin.Influences) != len(m.Positions) {
				return nil, fmt.Errorf("nwb: %s: skin of mesh '%s' has %d influences for %d positions", doc.Path, a.Name, len(skin.Influences), len(m.Positions))
			}
			if skin.Skeleton.Var == "" {
				return nil, fmt.Errorf("nwb: %s: skin of mesh '%s' uses skeleton %q from another file; cook the bunch that holds it", doc.Path, a.Name, skin.Skeleton.Path)
			}
			if skelAsset != "" && skelAsset != skin.Skeleton.Var {
				return nil, fmt.Errorf("nwb: %s: skins use different skeletons ('%s', '%s'); a scene holds one", doc.Path, skelAsset, skin.Skeleton.Var)
			}
			if skelAsset == "" {
				skel, err := sceneSkeleton(doc, skin)
				if err != nil {
					return nil, err
				}
				sc.Skeleton = skel
				skelAsset = skin.Skeleton.Var
			}
			sub.Joints = make([][4]uint16, n)
			sub.Weights = make([]mesh.Vec4, n)
			for i, r := range m.VertexRefs {
				in := skin.Influences[r.Position]
				sub.Joints[i] = in.Joints
				sub.Weights[i] = in.Normalized()
			}
		}
		sc.Submeshes = append(sc.Submeshes, sub)
	}
	if len(sc.Submeshes) == 0 {
		return nil, fmt.Errorf("nwb: %s: no mesh to cook (model and skin files reference meshes in other files)", doc.Path)
	}
	return sc, nil
}

// sceneSkeleton builds the mesh.Skeleton of a skin: the skeleton asset's
// joints with the skin's inverse bind matrices, one per joint.
func sceneSkeleton(doc *Document, skin *Skin) (*mesh.Skeleton, error) {
	a := doc.Find(skin.Skeleton.Var)
	if a == nil || a.Skeleton == nil {
		return nil, fmt.Errorf("nwb: %s: skeleton '%s' not found", doc.Path, skin.Skeleton.Var)
	}
	joints := a.Skeleton.Joints
	if len(skin.InverseBindMatrices) != len(joints) {
		return nil, fmt.Errorf("nwb: %s: skin has %d inverse bind matrices for %d skeleton joints", doc.Path, len(skin.InverseBindMatrices), len(joints))
	}
	index := map[string]int{}
	out := &mesh.Skeleton{Joints: make([]mesh.Joint, len(joints))}
	for i, j := range joints {
		parent := -1
		if j.Parent != "" {
			parent = index[j.Parent]
		}
		index[j.Name] = i
		t, r, s := decomposeAffine(j.LocalBindPose)
		out.Joints[i] = mesh.Joint{Name: j.Name, Parent: parent, InverseBind: affineToColumnMajor(skin.InverseBindMatrices[i]), BindT: t, BindR: r, BindS: s}
	}
	return out, nil
}

// affineToColumnMajor expands a 3×4 row-major affine to a column-major 4×4.
func affineToColumnMajor(a Affine) [16]float32 {
	var m [16]float32
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			m[c*4+r] = a[r][c]
		}
	}
	m[15] = 1
	return m
}

// affineFromMat4 takes the top three rows of a column-major 4×4.
func affineFromMat4(m mesh.Mat4) Affine {
	var a Affine
	for r := 0; r < 3; r++ {
		for c := 0; c < 4; c++ {
			a[r][c] = float32(m[c*4+r])
		}
	}
	return a
}

// decomposeAffine splits [R·S | t] into translation, rotation quaternion
// (xyzw) and per-axis scale; a mirroring matrix gets a negative z scale.
// Shear, which TRS cannot hold, is dropped.
func decomposeAffine(a Affine) (mesh.Vec3, mesh.Vec4, mesh.Vec3) {
	t := mesh.Vec3{a[0][3], a[1][3], a[2][3]}
	var col [3][3]float64
	var s [3]float64
	for c := 0; c < 3; c++ {
		for r := 0; r < 3; r++ {
			col[c][r] = float64(a[r][c])
		}
		s[c] = math.Sqrt(col[c][0]*col[c][0] + col[c][1]*col[c][1] + col[c][2]*col[c][2])
	}
	if det3(a) < 0 {
		s[2] = -s[2]
	}
	for c := 0; c < 3; c++ {
		if s[c] != 0 {
			for r := 0; r < 3; r++ {
				col[c][r] /= s[c]
			}
		}
	}
	// Rotation matrix element (row r, column c) is col[c][r].
	m00, m11, m22 := col[0][0], col[1][1], col[2][2]
	var x, y, z, w float64
	switch tr := m00 + m11 + m22; {
	case tr > 0:
		k := 0.5 / math.Sqrt(tr+1)
		w, x, y, z = 0.25/k, (col[1][2]-col[2][1])*k, (col[2][0]-col[0][2])*k, (col[0][1]-col[1][0])*k
	case m00 > m11 && m00 > m22:
		k := 2 * math.Sqrt(1+m00-m11-m22)
		w, x, y, z = (col[1][2]-col[2][1])/k, 0.25*k, (col[1][0]+col[0][1])/k, (col[2][0]+col[0][2])/k
	case m11 > m22:
		k := 2 * math.Sqrt(1+m11-m00-m22)
		w, x, y, z = (col[2][0]-col[0][2])/k, (col[1][0]+col[0][1])/k, 0.25*k, (col[2][1]+col[1][2])/k
	default:
		k := 2 * math.Sqrt(1+m22-m00-m11)
		w, x, y, z = (col[0][1]-col[1][0])/k, (col[2][0]+col[0][2])/k, (col[2][1]+col[1][2])/k, 0.25*k
	}
	if n := math.Sqrt(x*x + y*y + z*z + w*w); n > 0 && !math.IsNaN(n) {
		x, y, z, w = x/n, y/n, z/n, w/n
	} else {
		x, y, z, w = 0, 0, 0, 1
	}
	return t, mesh.Vec4{float32(x), float32(y), float32(z), float32(w)}, mesh.Vec3{float32(s[0]), float32(s[1]), float32(s[2])}
}

// AssetType selects what FromScene writes (nwb.md §3 --asset-type).
type AssetType string

const (
	AssetBunch    AssetType = "bunch"
	AssetMesh     AssetType = "mesh"
	AssetModel    AssetType = "model"
	AssetSkeleton AssetType = "skeleton"
	AssetSkin     AssetType = "skin"
)

// ParseAssetType checks an --asset-type value ("" is AssetBunch).
func ParseAssetType(s string) (AssetType, error) {
	switch t := AssetType(strings.ToLower(s)); t {
	case "":
		return AssetBunch, nil
	case AssetBunch, AssetMesh, AssetModel, AssetSkeleton, AssetSkin:
		return t, nil
	}
	return "", fmt.Errorf("nwb: unknown asset type '%s' (bunch, mesh, model, skeleton, skin)", s)
}

// ExportOptions are the layout options of `meshcook import` (nwb.md §3).
// The zero value means the defaults.
type ExportOptions struct {
	// AssetType is what to write; "" means AssetBunch.
	AssetType AssetType
	// VirtualRoot prefixes virtual paths; "" means "project".
	VirtualRoot string
	// Output is the .nwb path the import writes; it names separate asset
	// files and the virtual paths models and skins reference.
	Output string
	// SeparateAssets writes the mesh, skeleton and skin to
	// <dir>/<stem>/{mesh,skeleton,skin}.nwb and the model to Output.
	SeparateAssets bool
	// DefaultColor is used when a submesh has no colors; nil means white.
	DefaultColor *mesh.Vec4
}

// OutputFile is one document FromScene produced and where it goes.
type OutputFile struct {
	Path string
	Doc  *Document
}

// BaseVirtualPath is the virtual path model and separate outputs build
// references from: root + the output path after its last "assets" folder,
// else root + the output's stem; without extension, lowercased.
func BaseVirtualPath(root, output string) string {
	if root == "" {
		root = "project"
	}
	parts := strings.Split(filepath.ToSlash(output), "/")
	last := -1
	for i, p := range parts[:len(parts)-1] {
		if strings.EqualFold(p, "assets") {
			last = i
		}
	}
	rel := parts[len(parts)-1]
	if last >= 0 {
		rel = strings.Join(parts[last+1:], "/")
	}
	return VirtualPath(root, rel)
}

// FromScene builds the documents an import writes from a scene. Every
// submesh is merged into one mesh; streams and vertex_refs are built in
// first-use order over the triangle corners, entries shared by float
// equality of the values the writer will print (|v| < 1e-8 is 0), so the
// result is already canonical: refresh leaves it unchanged. In a skinned
// mesh, positions are shared only between vertices with the same
// influences (influences are one per position). Missing normals are
// generated (smooth), missing tangents from uv0 (MikkTSpace), else a
// perpendicular frame; missing uv0 are (0, 0); missing colors are
// DefaultColor. Joints are written parents first: sorted by depth, then
// name, then index.
func FromScene(sc *mesh.Scene, opts ExportOptions) ([]OutputFile, error) {
	if opts.AssetType == "" {
		opts.AssetType = AssetBunch
	}
	if opts.VirtualRoot == "" {
		opts.VirtualRoot = "project"
	}
	if opts.Output == "" {
		return nil, fmt.Errorf("nwb: export needs an output path")
	}
	if _, err := ParseAssetType(string(opts.AssetType)); err != nil {
		return nil, err
	}
	skinned, err := sceneSkinned(sc)
	if err != nil {
		return nil, err
	}
	if opts.AssetType == AssetMesh {
		skinned = false
	}
	if !skinned && (opts.AssetType == AssetSkeleton || opts.AssetType == AssetSkin) {
		return nil, fmt.Errorf("nwb: asset type '%s' needs a skinned mesh", opts.AssetType)
	}
	color := mesh.Vec4{1, 1, 1, 1}
	if opts.DefaultColor != nil {
		color = *opts.DefaultColor
	}
	var skel *Skeleton
	var remap []uint16
	if skinned {
		skel, remap, err = exportSkeleton(sc.Skeleton)
		if err != nil {
			return nil, err
		}
	}
	m, influences, err := buildMesh(sc, skinned, remap, color)
	if err != nil {
		return nil, err
	}
	var skin *Skin
	if skinned {
		skin = &Skin{Influences: influences}
		for _, j := range sortedJoints(sc.Skeleton) {
			a := affineFromMat4(mat4FromColumnMajor(sc.Skeleton.Joints[j].InverseBind))
			if d := det3(a); d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
				return nil, fmt.Errorf("nwb: joint '%s': inverse bind matrix is not invertible", sc.Skeleton.Joints[j].Name)
			}
			skin.InverseBindMatrices = append(skin.InverseBindMatrices, a)
		}
	}

	base := BaseVirtualPath(opts.VirtualRoot, opts.Output)
	single := func(path string, a *Asset) OutputFile {
		a.Name = "asset"
		a.Path = BaseVirtualPath(opts.VirtualRoot, path)
		return OutputFile{Path: path, Doc: &Document{Path: a.Path, Assets: []*Asset{a}}}
	}
	dir := filepath.Dir(opts.Output)
	stem := strings.TrimSuffix(filepath.Base(opts.Output), filepath.Ext(opts.Output))
	sep := func(name string) string { return filepath.Join(dir, stem, name+".nwb") }
	strRef := func(name string) Ref { return Ref{Path: base + "/" + name} }

	switch opts.AssetType {
	case AssetMesh:
		return []OutputFile{single(opts.Output, &Asset{Kind: KindMesh, Mesh: m})}, nil
	case AssetSkeleton:
		return []OutputFile{single(opts.Output, &Asset{Kind: KindSkeleton, Skeleton: skel})}, nil
	case AssetSkin:
		skin.Mesh, skin.Skeleton = strRef("mesh"), strRef("skeleton")
		return []OutputFile{single(opts.Output, &Asset{Kind: KindSkin, Skin: skin})}, nil
	}
	if opts.AssetType == AssetModel || opts.SeparateAssets {
		var files []OutputFile
		files = append(files, single(sep("mesh"), &Asset{Kind: KindMesh, Mesh: m}))
		if skinned {
			skin.Mesh, skin.Skeleton = strRef("mesh"), strRef("skeleton")
			files = append(files,
				single(sep("skeleton"), &Asset{Kind: KindSkeleton, Skeleton: skel}),
				single(sep("skin"), &Asset{Kind: KindSkin, Skin: skin}))
		}
		model := exportModel(skinned, strRef)
		files = append(files, single(opts.Output, &Asset{Kind: KindModel, Model: model}))
		return files, nil
	}
	// One bunch file: bare references.
	vpath := VirtualPath(opts.VirtualRoot, opts.Output)
	doc := &Document{Path: vpath, Bunch: "bunch"}
	local := func(name string) Ref { return Ref{Var: name, Path: vpath + "/" + name} }
	doc.Assets = append(doc.Assets, &Asset{Kind: KindMesh, Name: "mesh", Path: vpath + "/mesh", Mesh: m})
	if skinned {
		skin.Mesh, skin.Skeleton = local("mesh"), local("skeleton")
		doc.Assets = append(doc.Assets,
			&Asset{Kind: KindSkeleton, Name: "skeleton", Path: vpath + "/skeleton", Skeleton: skel},
			&Asset{Kind: KindSkin, Name: "skin", Path: vpath + "/skin", Skin: skin})
	}
	doc.Assets = append(doc.Assets, &Asset{Kind: KindModel, Name: "model", Path: vpath + "/model", Model: exportModel(skinned, local)})
	for _, a := range doc.Assets {
		doc.BunchItems = append(doc.BunchItems, a.Name)
	}
	return []OutputFile{{Path: opts.Output, Doc: doc}}, nil
}

// exportModel is the importer's model: one static "base" object, or a
// "skeleton" object driving a skinned "mesh" object.
func exportModel(skinned bool, ref func(string) Ref) *Model {
	if !skinned {
		return &Model{StaticMeshes: []StaticMeshObject{{Name: "base", Mesh: ref("mesh"), Transform: IdentityAffine()}}}
	}
	mr := ref("mesh")
	return &Model{
		Skeletons:     []SkeletonObject{{Name: "skeleton", Skeleton: ref("skeleton"), Transform: IdentityAffine()}},
		SkinnedMeshes: []SkinnedMeshObject{{Name: "mesh", Mesh: &mr, Skin: ref("skin"), Skeleton: "skeleton", Transform: IdentityAffine()}},
	}
}

// sceneSkinned reports whether the scene's submeshes are skinned; static
// and skinned submeshes cannot mix.
func sceneSkinned(sc *mesh.Scene) (bool, error) {
	nSkinned := 0
	for i := range sc.Submeshes {
		if sc.Submeshes[i].Joints != nil {
			nSkinned++
		}
	}
	if nSkinned == 0 {
		return false, nil
	}
	if nSkinned != len(sc.Submeshes) {
		return false, fmt.Errorf("nwb: static and skinned meshes cannot be mixed in one export (%d of %d submeshes are skinned)", nSkinned, len(sc.Submeshes))
	}
	if sc.Skeleton == nil || len(sc.Skeleton.Joints) == 0 {
		return false, fmt.Errorf("nwb: skinned submeshes but the scene has no skeleton")
	}
	if len(sc.Skeleton.Joints) > math.MaxUint16+1 {
		return false, fmt.Errorf("nwb: skeleton has %d joints (at most 65536)", len(sc.Skeleton.Joints))
	}
	return true, nil
}

func mat4FromColumnMajor(m [16]float32) mesh.Mat4 {
	var out mesh.Mat4
	for i, v := range m {
		out[i] = float64(v)
	}
	return out
}

// jointDepths returns each joint's hierarchy depth, or an error on a
// parent cycle or an out-of-range parent.
func jointDepths(s *mesh.Skeleton) ([]int, error) {
	depth := make([]int, len(s.Joints))
	for i := range s.Joints {
		d, j := 0, i
		for s.Joints[j].Parent >= 0 {
			j = s.Joints[j].Parent
			if j >= len(s.Joints) || d > len(s.Joints) {
				return nil, fmt.Errorf("nwb: joint %d: bad parent chain", i)
			}
			d++
		}
		depth[i] = d
	}
	return depth, nil
}

// sortedJoints returns scene joint indices in written order: depth, then
// written name, then index. It assumes jointDepths succeeded.
func sortedJoints(s *mesh.Skeleton) []int {
	depth, _ := jointDepths(s)
	names := jointNames(s)
	order := make([]int, len(s.Joints))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(depth[a], depth[b]), cmp.Compare(names[a], names[b]), cmp.Compare(a, b))
	})
	return order
}

// jointNames returns writable, unique joint names: characters the
// language cannot hold become '_', empty names are joint_<i>, duplicates
// get _1, _2 suffixes.
func jointNames(s *mesh.Skeleton) []string {
	names := make([]string, len(s.Joints))
	used := map[string]bool{}
	for i, j := range s.Joints {
		n := strings.Map(func(r rune) rune {
			if r == '"' || r == '\\' || r < 0x20 || r == 0x7f {
				return '_'
			}
			return r
		}, j.Name)
		if n == "" {
			n = "joint_" + strconv.Itoa(i)
		}
		if used[n] {
			for k := 1; ; k++ {
				if c := n + "_" + strconv.Itoa(k); !used[c] {
					n = c
					break
				}
			}
		}
		used[n] = true
		names[i] = n
	}
	return names
}

// exportSkeleton writes the scene skeleton parents-first and returns
// scene joint index → written joint index.
func exportSkeleton(s *mesh.Skeleton) (*Skeleton, []uint16, error) {
	if _, err := jointDepths(s); err != nil {
		return nil, nil, err
	}
	names := jointNames(s)
	order := sortedJoints(s)
	remap := make([]uint16, len(s.Joints))
	out := &Skeleton{Joints: make([]Joint, len(order))}
	for k, j := range order {
		remap[j] = uint16(k)
		sj := s.Joints[j]
		jt := Joint{Name: names[j]}
		if sj.Parent >= 0 {
			jt.Parent = names[sj.Parent]
		}
		t := [3]float64{float64(sj.BindT[0]), float64(sj.BindT[1]), float64(sj.BindT[2])}
		q := [4]float64{float64(sj.BindR[0]), float64(sj.BindR[1]), float64(sj.BindR[2]), float64(sj.BindR[3])}
		sc := [3]float64{float64(sj.BindS[0]), float64(sj.BindS[1]), float64(sj.BindS[2])}
		jt.LocalBindPose = quantizeAffine(affineFromMat4(mesh.TRS(t, q, sc)))
		out.Joints[k] = jt
	}
	return out, remap, nil
}

func quantizeAffine(a Affine) Affine {
	for r := range a {
		for c := range a[r] {
			a[r][c] = quantize(a[r][c])
		}
	}
	return a
}

// quantKey quantizes v in place as the writer will print it and returns
// its bit patterns, the dedup key (float equality after quantizing, since
// quantizing turns -0 into +0 and values are finite).
func quantKey(v []float32) (key [4]uint32) {
	for i := range v {
		v[i] = quantize(v[i])
		key[i] = math.Float32bits(v[i])
	}
	return key
}

// buildMesh merges the scene's submeshes into one authored mesh.
func buildMesh(sc *mesh.Scene, skinned bool, jointRemap []uint16, color mesh.Vec4) (*Mesh, []Influence, error) {
	out := &Mesh{}
	var influences []Influence
	type posKey struct {
		p [4]uint32
		j [4]uint16
		w [4]uint32
	}
	posIdx := map[posKey]uint32{}
	nrmIdx := map[[4]uint32]uint32{}
	tanIdx := map[[4]uint32]uint32{}
	uvIdx := map[[4]uint32]uint32{}
	colIdx := map[[4]uint32]uint32{}
	refIdx := map[VertexRef]uint32{}
	intern := func(m map[[4]uint32]uint32, k [4]uint32) (uint32, bool) {
		if i, ok := m[k]; ok {
			return i, false
		}
		i := uint32(len(m))
		m[k] = i
		return i, true
	}
	for si := range sc.Submeshes {
		s, err := exportSubmesh(&sc.Submeshes[si], color)
		if err != nil {
			return nil, nil, err
		}
		for _, v := range s.Indices {
			var ref VertexRef
			p := s.Positions[v]
			pk := quantKey(p[:])
			key := posKey{p: pk}
			var in Influence
			if skinned {
				var sum float32
				for c := 0; c < 4; c++ {
					w := quantize(s.Weights[v][c])
					if !(w > 0) {
						continue // unused slot: joint 0, weight 0
					}
					j := int(s.Joints[v][c])
					if j >= len(jointRemap) {
						return nil, nil, fmt.Errorf("nwb: submesh %q: joint %d out of range (%d joints)", s.Name, j, len(jointRemap))
					}
					in.Joints[c], in.Weights[c] = jointRemap[j], w
					sum += w
				}
				if !(sum > 1e-6) {
					return nil, nil, fmt.Errorf("nwb: skinned mesh contains a vertex with no positive skin weights")
				}
				key.j = in.Joints
				for c, w := range in.Weights {
					key.w[c] = math.Float32bits(w)
				}
			}
			if i, ok := posIdx[key]; ok {
				ref.Position = i
			} else {
				ref.Position = uint32(len(out.Positions))
				posIdx[key] = ref.Position
				out.Positions = append(out.Positions, p)
				if skinned {
					influences = append(influences, in)
				}
			}
			var isNew bool
			n := s.Normals[v]
			nk := quantKey(n[:])
			if ref.Normal, isNew = intern(nrmIdx, nk); isNew {
				out.Normals = append(out.Normals, n)
			}
			t := s.Tangents[v]
			tk := quantKey(t[:])
			if ref.Tangent, isNew = intern(tanIdx, tk); isNew {
				out.Tangents = append(out.Tangents, t)
			}
			uv := s.UV0[v]
			uk := quantKey(uv[:])
			if ref.UV0, isNew = intern(uvIdx, uk); isNew {
				out.UV0 = append(out.UV0, uv)
			}
			c := s.Colors[v]
			ck := quantKey(c[:])
			if ref.Color, isNew = intern(colIdx, ck); isNew {
				out.Colors = append(out.Colors, c)
			}
			ri, ok := refIdx[ref]
			if !ok {
				ri = uint32(len(out.VertexRefs))
				refIdx[ref] = ri
				out.VertexRefs = append(out.VertexRefs, ref)
			}
			out.Indices = append(out.Indices, ri)
		}
	}
	if len(out.Indices) == 0 {
		return nil, nil, fmt.Errorf("nwb: selected meshes produced no triangles")
	}
	return out, influences, nil
}

// exportSubmesh returns a copy of s with every stream present: generated
// normals and tangents where missing, zero uv0, white (or default) colors.
func exportSubmesh(in *mesh.Submesh, color mesh.Vec4) (*mesh.Submesh, error) {
	if err := in.Validate(); err != nil {
		return nil, fmt.Errorf("nwb: %w", err)
	}
	s := *in
	s.Indices = slices.Clone(in.Indices)
	finite := func(v []float32) bool {
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return false
			}
		}
		return true
	}
	for i := range s.Positions {
		ok := finite(s.Positions[i][:])
		if s.Normals != nil {
			ok = ok && finite(s.Normals[i][:])
		}
		if s.Tangents != nil {
			ok = ok && finite(s.Tangents[i][:])
		}
		if s.UV0 != nil {
			ok = ok && finite(s.UV0[i][:])
		}
		if s.Colors != nil {
			ok = ok && finite(s.Colors[i][:])
		}
		if s.Weights != nil {
			ok = ok && finite(s.Weights[i][:])
		}
		if !ok {
			return nil, fmt.Errorf("nwb: mesh contains non-finite vertex data")
		}
	}
	if s.Normals == nil {
		mesh.GenerateNormals(&s)
	}
	if s.UV0 == nil {
		s.UV0 = make([]mesh.Vec2, len(s.Positions))
	}
	if s.Colors == nil {
		s.Colors = make([]mesh.Vec4, len(s.Positions))
		for i := range s.Colors {
			s.Colors[i] = color
		}
	}
	if s.Tangents == nil {
		if err := mesh.GenerateTangents(&s); err != nil {
			return nil, fmt.Errorf("nwb: %w", err)
		}
	}
	return &s, nil
}
