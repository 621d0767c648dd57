package msh7

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/meshcook/meshcook/mesh"
)

// Input is one mesh for Build: per-vertex streams (all indexed by the same
// global vertex index), the triangles, and the meshlets that partition
// them. With meshlet.Build output r over the same vertices, meshlet i is
//
//	m := r.Meshlets[i]
//	InputMeshlet{
//		Vertices:  r.Vertices[m.VertexOffset : m.VertexOffset+m.VertexCount],
//		Triangles: r.Triangles[3*m.TriangleOffset : 3*(m.TriangleOffset+m.TriangleCount)],
//		Bounds:    &SourceBounds{b.Center, b.Radius, b.ConeAxis, b.ConeCutoff}, // b = bounds[i]
//	}
//
// built with MaxVertices ≤ 96 and MaxTriangles ≤ 126.
type Input struct {
	Positions []mesh.Vec3 // finite
	Normals   []mesh.Vec3 // required; normalised here, must not be zero
	Tangents  []mesh.Vec4 // optional: xyz unit, w < 0 = negative bitangent sign
	UV0       []mesh.Vec2 // optional (0, 0 when absent)
	Colors    []mesh.Vec4 // optional (opaque white when absent); must fit half
	Skin      *Skin       // optional; makes the mesh skinned (meshClass 1)
	// Indices, when non-nil, are the triangle list the meshlets must cover:
	// Build checks every triangle is in exactly one meshlet.
	Indices  []uint32
	Meshlets []InputMeshlet
}

// SubmeshInput returns an Input with s's streams and triangles (and its
// skin bound to skel when s is skinned); the caller adds Meshlets. s should
// be canonical (mesh.Canonicalize), so normals are present and unit. The
// slices are shared with s, not copied; Build does not modify them.
func SubmeshInput(s *mesh.Submesh, skel *mesh.Skeleton) Input {
	in := Input{
		Positions: s.Positions, Normals: s.Normals, Tangents: s.Tangents,
		UV0: s.UV0, Colors: s.Colors, Indices: s.Indices,
	}
	if s.Joints != nil || s.Weights != nil {
		in.Skin = &Skin{Joints: s.Joints, Weights: s.Weights, Skeleton: skel}
	}
	return in
}

// Skin is the skinned class's per-vertex influences and skeleton.
type Skin struct {
	Joints  [][4]uint16 // per vertex, copied bit for bit
	Weights []mesh.Vec4 // per vertex, copied bit for bit (-0 kept)
	// Skeleton, when non-nil, gives the joints stream (112 B each) and one
	// inverse bind matrix per joint.
	Skeleton *mesh.Skeleton
}

// InputMeshlet is one meshlet: its global vertices in local order and 3
// local indices per triangle. Bounds nil means Build computes them by the
// engine's rule (sphere around the AABB centre, cone from the area-weighted
// normal sum).
type InputMeshlet struct {
	Vertices  []uint32
	Triangles []uint8
	Bounds    *SourceBounds
}

// SourceBounds are a meshlet's culling bounds as meshcook's meshlet package
// computes them (meshlet.Bounds): a sphere holding every vertex, and a cone
// axis with a meshoptimizer-style cutoff (the sine of the normal spread;
// 1 = no cone). Build converts the cutoff (MinDotFromCutoff) and packs the
// cone conservatively (PackCone).
type SourceBounds struct {
	Center     [3]float32
	Radius     float32
	ConeAxis   [3]float32
	ConeCutoff float32
}

// Build turns in into a validated File:
//
//   - stream values are encoded (halves for normals, tangents and colours)
//     and deduplicated by their exact bits, then numbered by first use over
//     the meshlets in order; unreferenced values are dropped;
//   - in each meshlet, corners are walked in order: a local position is a
//     distinct (position, skin) pair, a local attribute a distinct (normal,
//     tangent, uv0, colour) tuple, a local vertex a distinct pair of the two,
//     each numbered by first use; triangles are rewritten to those vertices;
//   - each channel is delta-encoded from its minimum with the narrowest width;
//   - bounds come from SourceBounds (the sphere checked to hold every vertex)
//     or the engine's rule, and the cone is packed conservatively and then
//     checked against the meshlet's own face normals (its cutoff is lowered
//     if a normal lies outside);
//   - the File is validated, then every reference of every corner is decoded
//     back and compared with the source vertex's encoded values.
//
// Errors (prefixed "msh7: build:") report bad input: stream lengths, a
// meshlet over 96 vertices or 126 triangles or with none, a local index past
// its vertices, a global index past the streams, a zero normal, a colour out
// of half range, a sphere that misses a vertex, or meshlets that do not
// cover Indices exactly.
func Build(in Input) (*File, error) {
	b, err := newBuilder(in)
	if err != nil {
		return nil, err
	}
	for m := range in.Meshlets {
		if err := b.meshlet(m); err != nil {
			return nil, err
		}
	}
	if in.Indices != nil {
		if err := checkCoverage(in); err != nil {
			return nil, err
		}
	}
	if err := Validate(b.f); err != nil {
		return nil, fmt.Errorf("msh7: build: result fails validation: %w", err)
	}
	if err := b.verify(); err != nil {
		return nil, err
	}
	return b.f, nil
}

func buildErr(format string, args ...any) error {
	return fmt.Errorf("msh7: build: "+format, args...)
}

// vertexKeys are a source vertex's encoded values.
type vertexKeys struct {
	pos     [3]uint32 // f32 bits
	skin    [6]uint32 // packed joint words, weight bits
	normal  [4]Half
	tangent [4]Half
	uv      [2]uint32 // f32 bits
	color   [4]Half
}

// vertexRefs are a source vertex's indices into the output streams.
type vertexRefs struct {
	pos, skin, normal, tangent, uv, color uint32
}

type builder struct {
	in      Input
	f       *File
	skinned bool
	keys    []vertexKeys
	refs    []vertexRefs
	seen    []bool

	posIdx     map[[3]uint32]uint32
	skinIdx    map[[6]uint32]uint32
	normalIdx  map[[4]Half]uint32
	tangentIdx map[[4]Half]uint32
	uvIdx      map[[2]uint32]uint32
	colorIdx   map[[4]Half]uint32

	// corners records, per meshlet, the source vertex of every primitive
	// index, for verify.
	corners [][]uint32
}

func newBuilder(in Input) (*builder, error) {
	n := len(in.Positions)
	if len(in.Normals) != n {
		return nil, buildErr("%d normals for %d positions (normals are required)", len(in.Normals), n)
	}
	for _, s := range []struct {
		name string
		n    int
		nil_ bool
	}{
		{"tangents", len(in.Tangents), in.Tangents == nil},
		{"uv0", len(in.UV0), in.UV0 == nil},
		{"colors", len(in.Colors), in.Colors == nil},
	} {
		if !s.nil_ && s.n != n {
			return nil, buildErr("%d %s for %d positions", s.n, s.name, n)
		}
	}
	b := &builder{
		in: in, f: &File{Class: ClassStatic},
		keys: make([]vertexKeys, n), refs: make([]vertexRefs, n), seen: make([]bool, n),
		posIdx: map[[3]uint32]uint32{}, skinIdx: map[[6]uint32]uint32{},
		normalIdx: map[[4]Half]uint32{}, tangentIdx: map[[4]Half]uint32{},
		uvIdx: map[[2]uint32]uint32{}, colorIdx: map[[4]Half]uint32{},
		corners: make([][]uint32, 0, len(in.Meshlets)),
	}
	if s := in.Skin; s != nil {
		if len(s.Joints) != n || len(s.Weights) != n {
			return nil, buildErr("skin: %d joints and %d weights for %d positions", len(s.Joints), len(s.Weights), n)
		}
		b.skinned = true
		b.f.Class = ClassSkinned
		if s.Skeleton != nil {
			if len(s.Skeleton.Joints) > MaxJoints {
				return nil, buildErr("skin: %d joints, at most %d", len(s.Skeleton.Joints), MaxJoints)
			}
			for _, j := range s.Skeleton.Joints {
				b.f.Joints = append(b.f.Joints, Joint{
					InverseBind: j.InverseBind, BindT: j.BindT, BindR: j.BindR, BindS: j.BindS, Parent: int32(j.Parent),
				})
				b.f.InverseBinds = append(b.f.InverseBinds, j.InverseBind)
			}
		}
	}
	return b, nil
}

// encodeVertex computes vertex v's encoded values.
func (b *builder) encodeVertex(v uint32) (vertexKeys, error) {
	in := b.in
	var k vertexKeys
	p := in.Positions[v]
	if !finite(p[0], p[1], p[2]) {
		return k, buildErr("vertex %d: position %v is not finite", v, p)
	}
	k.pos = [3]uint32{math.Float32bits(p[0]), math.Float32bits(p[1]), math.Float32bits(p[2])}
	n, ok := unit64(in.Normals[v])
	if !ok {
		return k, buildErr("vertex %d: normal %v is zero or not finite", v, in.Normals[v])
	}
	k.normal = [4]Half{HalfOf(float32(n[0])), HalfOf(float32(n[1])), HalfOf(float32(n[2])), 0}
	if in.Tangents != nil {
		t := in.Tangents[v]
		u, ok := unit64([3]float32{t[0], t[1], t[2]})
		if !ok {
			return k, buildErr("vertex %d: tangent %v is zero or not finite", v, t)
		}
		k.tangent = [4]Half{HalfOf(float32(u[0])), HalfOf(float32(u[1])), HalfOf(float32(u[2])), HalfOf(bitangentSign(t[3]))}
	} else {
		u := placeholderTangent(n)
		k.tangent = [4]Half{HalfOf(float32(u[0])), HalfOf(float32(u[1])), HalfOf(float32(u[2])), HalfOf(1)}
	}
	if !unitHalf(k.normal) || !unitHalf(k.tangent) {
		return k, buildErr("vertex %d: normal or tangent not unit length in half precision", v)
	}
	if in.UV0 != nil {
		u := in.UV0[v]
		if !finite(u[0], u[1]) {
			return k, buildErr("vertex %d: uv0 %v is not finite", v, u)
		}
		k.uv = [2]uint32{math.Float32bits(u[0]), math.Float32bits(u[1])}
	}
	c := mesh.Vec4{1, 1, 1, 1}
	if in.Colors != nil {
		c = in.Colors[v]
	}
	k.color = [4]Half{HalfOf(c[0]), HalfOf(c[1]), HalfOf(c[2]), HalfOf(c[3])}
	if !finite(k.color[0].Float32(), k.color[1].Float32(), k.color[2].Float32(), k.color[3].Float32()) {
		return k, buildErr("vertex %d: color %v is not finite in half precision", v, c)
	}
	if b.skinned {
		j, w := in.Skin.Joints[v], in.Skin.Weights[v]
		k.skin = [6]uint32{
			uint32(j[0]) | uint32(j[1])<<16, uint32(j[2]) | uint32(j[3])<<16,
			math.Float32bits(w[0]), math.Float32bits(w[1]), math.Float32bits(w[2]), math.Float32bits(w[3]),
		}
	}
	return k, nil
}

// bitangentSign maps a tangent's w to ±1 (negative values and -0 to -1).
func bitangentSign(w float32) float32 {
	if math.Signbit(float64(w)) {
		return -1
	}
	return 1
}

// placeholderTangent is a unit vector perpendicular to the unit normal n,
// for meshes without tangents: n crossed with mesh.PlaceholderAxis(n),
// the axis .hmesh uses (which crosses it the other way round; MSH7's
// bytes, zero signs included, stay as they were).
func placeholderTangent(n [3]float64) [3]float64 {
	t := cross64(n, mesh.PlaceholderAxis(n))
	l := math.Sqrt(dot64(t, t))
	return [3]float64{t[0] / l, t[1] / l, t[2] / l}
}

// intern returns key's index in idx, appending value to the stream with
// add when the key is new (first use).
func intern[K comparable](idx map[K]uint32, key K, add func()) uint32 {
	if i, ok := idx[key]; ok {
		return i
	}
	i := uint32(len(idx))
	idx[key] = i
	add()
	return i
}

// vertex returns vertex v's stream indices, numbering new values by first use.
func (b *builder) vertex(v uint32) (vertexRefs, error) {
	if b.seen[v] {
		return b.refs[v], nil
	}
	k, err := b.encodeVertex(v)
	if err != nil {
		return vertexRefs{}, err
	}
	f := b.f
	p := b.in.Positions[v]
	var r vertexRefs
	r.pos = intern(b.posIdx, k.pos, func() { f.Positions = append(f.Positions, p) })
	if b.skinned {
		w := b.in.Skin.Weights[v]
		r.skin = intern(b.skinIdx, k.skin, func() {
			f.Skin = append(f.Skin, Influence{Joints: b.in.Skin.Joints[v], Weights: [4]float32(w)})
		})
	}
	r.normal = intern(b.normalIdx, k.normal, func() { f.Normals = append(f.Normals, k.normal) })
	r.tangent = intern(b.tangentIdx, k.tangent, func() { f.Tangents = append(f.Tangents, k.tangent) })
	r.uv = intern(b.uvIdx, k.uv, func() {
		f.UV0 = append(f.UV0, [2]float32{math.Float32frombits(k.uv[0]), math.Float32frombits(k.uv[1])})
	})
	r.color = intern(b.colorIdx, k.color, func() { f.Colors = append(f.Colors, k.color) })
	b.keys[v], b.refs[v], b.seen[v] = k, r, true
	return r, nil
}

// meshlet appends meshlet m of the input to the file.
func (b *builder) meshlet(m int) error {
	im := b.in.Meshlets[m]
	f := b.f
	nt := len(im.Triangles) / 3
	if len(im.Triangles)%3 != 0 || nt < 1 || nt > MaxTriangles {
		return buildErr("meshlet %d: %d triangle indices, want 3·(1..%d)", m, len(im.Triangles), MaxTriangles)
	}
	// Local positions, attributes and vertices by first use over corners.
	localPos := map[[2]uint32]uint16{}
	localAttr := map[[4]uint32]uint16{}
	localVert := map[uint32]uint8{}
	var ch [NumChannels][]uint32 // refs per channel, in local order
	var lv []LocalVertexRef
	var gverts []uint32 // a source vertex of each local vertex
	prims := make([]uint8, 0, len(im.Triangles))
	corners := make([]uint32, 0, len(im.Triangles))
	for i, l := range im.Triangles {
		if int(l) >= len(im.Vertices) {
			return buildErr("meshlet %d: triangle index %d (corner %d) not < vertex count %d", m, l, i, len(im.Vertices))
		}
		g := im.Vertices[l]
		if uint64(g) >= uint64(len(b.in.Positions)) {
			return buildErr("meshlet %d: vertex %d not < vertex count %d", m, g, len(b.in.Positions))
		}
		r, err := b.vertex(g)
		if err != nil {
			return err
		}
		lp, ok := localPos[[2]uint32{r.pos, r.skin}]
		if !ok {
			lp = uint16(len(localPos))
			localPos[[2]uint32{r.pos, r.skin}] = lp
			ch[ChanPosition] = append(ch[ChanPosition], r.pos)
			ch[ChanSkin] = append(ch[ChanSkin], r.skin)
		}
		ak := [4]uint32{r.normal, r.tangent, r.uv, r.color}
		la, ok := localAttr[ak]
		if !ok {
			la = uint16(len(localAttr))
			localAttr[ak] = la
			for c, x := range ak {
				ch[ChanNormal+Channel(c)] = append(ch[ChanNormal+Channel(c)], x)
			}
		}
		vk := uint32(lp) | uint32(la)<<16
		v, ok := localVert[vk]
		if !ok {
			if len(localVert) >= MaxVertices {
				return buildErr("meshlet %d: more than %d distinct vertices", m, MaxVertices)
			}
			v = uint8(len(localVert))
			localVert[vk] = v
			lv = append(lv, LocalVertexRef{Position: lp, Attribute: la})
			gverts = append(gverts, g)
		}
		prims = append(prims, v)
		corners = append(corners, g)
	}
	b.corners = append(b.corners, corners)

	// Descriptor and reference bytes.
	d := MeshletDesc{
		LocalVertexOffset:  uint32(len(f.LocalVertices)),
		PrimitiveOffset:    uint32(len(f.Primitives) / 3),
		PositionRefOffset:  uint32(len(f.PositionRefs)),
		AttributeRefOffset: uint32(len(f.AttributeRefs)),
		Counts:             PackCounts(len(lv), nt, len(localPos), len(localAttr)),
		SkinBase:           NoSkin,
	}
	var code int
	f.PositionRefs, d.PositionBase, code = EncodeRefs(f.PositionRefs, ch[ChanPosition])
	d.Encoding |= uint32(code) << (2 * ChanPosition)
	if b.skinned {
		f.PositionRefs, d.SkinBase, code = EncodeRefs(f.PositionRefs, ch[ChanSkin])
		d.Encoding |= uint32(code) << (2 * ChanSkin)
	}
	bases := [...]*uint32{&d.NormalBase, &d.TangentBase, &d.UV0Base, &d.ColorBase}
	for i, c := range []Channel{ChanNormal, ChanTangent, ChanUV0, ChanColor} {
		f.AttributeRefs, *bases[i], code = EncodeRefs(f.AttributeRefs, ch[c])
		d.Encoding |= uint32(code) << (2 * c)
	}
	if uint64(len(f.PositionRefs)) > math.MaxUint32 || uint64(len(f.AttributeRefs)) > math.MaxUint32 ||
		uint64(len(f.Primitives)/3+nt) > math.MaxUint32 || uint64(len(f.LocalVertices)+len(lv)) > math.MaxUint32 {
		return buildErr("meshlet %d: reference streams exceed 4 GiB", m)
	}
	f.Meshlets = append(f.Meshlets, d)
	f.LocalVertices = append(f.LocalVertices, lv...)
	f.Primitives = append(f.Primitives, prims...)

	bnd, err := b.bounds(m, im, gverts, prims)
	if err != nil {
		return err
	}
	f.Bounds = append(f.Bounds, bnd)
	return nil
}

// bounds returns meshlet m's bounds record. gverts are the source vertices
// of its local vertices and prims its triangles over them.
func (b *builder) bounds(m int, im InputMeshlet, gverts []uint32, prims []uint8) (MeshletBounds, error) {
	pts := make([][3]float64, len(gverts))
	for i, g := range gverts {
		p := b.in.Positions[g]
		pts[i] = [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	// Unit face normals of the non-degenerate triangles, and their
	// area-weighted sum.
	var normals [][3]float64
	var sum [3]float64
	for t := 0; t+2 < len(prims); t += 3 {
		p0, p1, p2 := pts[prims[t]], pts[prims[t+1]], pts[prims[t+2]]
		n := cross64(sub64(p1, p0), sub64(p2, p0))
		l := math.Sqrt(dot64(n, n))
		if !(l > 0) || math.IsInf(l, 0) {
			continue
		}
		sum = [3]float64{sum[0] + n[0], sum[1] + n[1], sum[2] + n[2]}
		normals = append(normals, [3]float64{n[0] / l, n[1] / l, n[2] / l})
	}
	var out MeshletBounds
	var axis [3]float32
	var minDot float64
	if sb := im.Bounds; sb != nil {
		// Caller's sphere: it must hold every vertex.
		if !finite(sb.Center[0], sb.Center[1], sb.Center[2], sb.Radius) || sb.Radius < 0 {
			return out, buildErr("meshlet %d: bounds sphere (%v, %v) is not finite with radius >= 0", m, sb.Center, sb.Radius)
		}
		c := [3]float64{float64(sb.Center[0]), float64(sb.Center[1]), float64(sb.Center[2])}
		r := float64(sb.Radius)
		for i, p := range pts {
			d := sub64(p, c)
			if math.Sqrt(dot64(d, d)) > r*(1+1e-6)+1e-12 {
				return out, buildErr("meshlet %d: vertex %d lies outside its bounds sphere", m, gverts[i])
			}
		}
		out.Center, out.Radius = sb.Center, sb.Radius
		axis, minDot = sb.ConeAxis, MinDotFromCutoff(sb.ConeCutoff)
	} else {
		out.Center, out.Radius = aabbSphere(pts)
		if l := math.Sqrt(dot64(sum, sum)); l > 0 && !math.IsInf(l, 0) {
			// Measured against the float32 axis as stored.
			axis = [3]float32{float32(sum[0] / l), float32(sum[1] / l), float32(sum[2] / l)}
			a, _ := unit64(axis)
			minDot = 1
			for _, n := range normals {
				minDot = math.Min(minDot, dot64(n, a))
			}
		}
	}
	out.Cone = PackCone(axis, minDot)
	// Belt and braces: the decoded cone must hold every face normal.
	if q, c, ok := DecodeCone(out.Cone); ok && len(normals) > 0 {
		lo := 1.0
		for _, n := range normals {
			lo = math.Min(lo, dot64(n, q))
		}
		if c > lo-coneEps {
			bits := out.Cone & 0xFFFF
			out.Cone = 0
			if cut := math.Floor((lo - coneEps) * 255); cut >= 1 {
				out.Cone = bits | uint32(cut)<<16 | ConeEnabled
			}
		}
	}
	return out, nil
}

// aabbSphere is the engine's sphere centre (the AABB centre of the points)
// with the smallest float32 radius that holds every point in float64.
func aabbSphere(pts [][3]float64) ([3]float32, float32) {
	lo, hi := pts[0], pts[0]
	for _, p := range pts[1:] {
		for k := range 3 {
			lo[k], hi[k] = math.Min(lo[k], p[k]), math.Max(hi[k], p[k])
		}
	}
	c := [3]float32{float32((lo[0] + hi[0]) / 2), float32((lo[1] + hi[1]) / 2), float32((lo[2] + hi[2]) / 2)}
	c64 := [3]float64{float64(c[0]), float64(c[1]), float64(c[2])}
	r := 0.0
	for _, p := range pts {
		d := sub64(p, c64)
		r = math.Max(r, math.Sqrt(dot64(d, d)))
	}
	r32 := float32(r)
	if float64(r32) < r {
		r32 = math.Nextafter32(r32, float32(math.Inf(1)))
	}
	return c, r32
}

// verify decodes every corner of every meshlet back through the file's
// references and compares it with the source vertex's encoded values.
func (b *builder) verify() error {
	f := b.f
	for m, d := range f.Meshlets {
		refs, err := f.DecodeRefs(m)
		if err != nil {
			return fmt.Errorf("msh7: build: decoding meshlet %d back: %w", m, err)
		}
		for i, g := range b.corners[m] {
			lv := f.LocalVertices[int(d.LocalVertexOffset)+int(f.Primitives[3*int(d.PrimitiveOffset)+i])]
			k := b.keys[g]
			a := int(lv.Attribute)
			p := f.Positions[refs.Positions[lv.Position]]
			got := vertexKeys{
				pos:     [3]uint32{math.Float32bits(p[0]), math.Float32bits(p[1]), math.Float32bits(p[2])},
				normal:  f.Normals[refs.Normals[a]],
				tangent: f.Tangents[refs.Tangents[a]],
				color:   f.Colors[refs.Colors[a]],
			}
			u := f.UV0[refs.UV0[a]]
			got.uv = [2]uint32{math.Float32bits(u[0]), math.Float32bits(u[1])}
			if b.skinned {
				s := f.Skin[refs.Skin[lv.Position]]
				got.skin = [6]uint32{
					uint32(s.Joints[0]) | uint32(s.Joints[1])<<16, uint32(s.Joints[2]) | uint32(s.Joints[3])<<16,
					math.Float32bits(s.Weights[0]), math.Float32bits(s.Weights[1]), math.Float32bits(s.Weights[2]), math.Float32bits(s.Weights[3]),
				}
			}
			if got != k {
				return buildErr("meshlet %d: corner %d decodes to %+v, source vertex %d is %+v", m, i, got, g, k)
			}
		}
	}
	return nil
}

// checkCoverage checks that the meshlets hold exactly the triangles of
// in.Indices, each once, with their corner order up to rotation.
func checkCoverage(in Input) error {
	if len(in.Indices)%3 != 0 {
		return buildErr("index count %d is not a multiple of 3", len(in.Indices))
	}
	canon := func(a, b, c uint32) [3]uint32 {
		switch {
		case b < a && b <= c:
			return [3]uint32{b, c, a}
		case c < a && c < b:
			return [3]uint32{c, a, b}
		}
		return [3]uint32{a, b, c}
	}
	want := make([][3]uint32, 0, len(in.Indices)/3)
	for t := 0; t < len(in.Indices); t += 3 {
		want = append(want, canon(in.Indices[t], in.Indices[t+1], in.Indices[t+2]))
	}
	got := make([][3]uint32, 0, len(want))
	for _, m := range in.Meshlets {
		v := m.Vertices
		for t := 0; t+2 < len(m.Triangles); t += 3 {
			got = append(got, canon(v[m.Triangles[t]], v[m.Triangles[t+1]], v[m.Triangles[t+2]]))
		}
	}
	order := func(x, y [3]uint32) int {
		return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1]), cmp.Compare(x[2], y[2]))
	}
	slices.SortFunc(want, order)
	slices.SortFunc(got, order)
	if len(got) != len(want) {
		return buildErr("meshlets hold %d triangles, indices have %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			return buildErr("meshlets do not cover the indices: triangle %v", want[i])
		}
	}
	return nil
}

func sub64(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot64(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross64(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
