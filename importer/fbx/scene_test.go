package fbx

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

// quadPositions imports quadScene with the model properties and returns
// the four corner positions (file space unless conversion applies).
func quadPositions(t *testing.T, opts Options, global []*Node, modelProps ...*Node) []mesh.Vec3 {
	t.Helper()
	sc := decodeAll(t, func(v int) []*Node { return quadScene(v, global, modelProps...) }, opts)
	if len(sc.Submeshes) != 1 || len(sc.Submeshes[0].Positions) != 4 {
		t.Fatalf("got %d submeshes", len(sc.Submeshes))
	}
	return sc.Submeshes[0].Positions
}

// TestPivotChain checks each link of the transform chain on the quad's
// corner (1,0,0) (file space, centimetres kept by PreserveSpace).
func TestPivotChain(t *testing.T) {
	keep := Options{PreserveSpace: true}
	cases := []struct {
		name  string
		props []*Node
		want  mesh.Vec3 // where corner (1,0,0) lands
	}{
		{"translation", []*Node{P("Lcl Translation", "Lcl Translation", 1.0, 2.0, 3.0)}, mesh.Vec3{2, 2, 3}},
		{"rotation Z 90", []*Node{P("Lcl Rotation", "Lcl Rotation", 0.0, 0.0, 90.0)}, mesh.Vec3{0, 1, 0}},
		// XYZ applies X first: X90 keeps (1,0,0), Y90 sends it to (0,0,-1).
		{"order XYZ", []*Node{P("Lcl Rotation", "Lcl Rotation", 90.0, 90.0, 0.0)}, mesh.Vec3{0, 0, -1}},
		// ZYX applies Y first: (0,0,-1), then X90 sends it to (0,1,0).
		{"order ZYX", []*Node{P("Lcl Rotation", "Lcl Rotation", 90.0, 90.0, 0.0), P("RotationOrder", "enum", int32(5))}, mesh.Vec3{0, 1, 0}},
		{"rotation pivot", []*Node{P("Lcl Rotation", "Lcl Rotation", 0.0, 0.0, 90.0), P("RotationPivot", "Vector3D", 2.0, 0.0, 0.0)}, mesh.Vec3{2, -1, 0}},
		{"rotation offset", []*Node{P("RotationOffset", "Vector3D", 0.0, 5.0, 0.0)}, mesh.Vec3{1, 5, 0}},
		{"pre rotation", []*Node{P("PreRotation", "Vector3D", 0.0, 0.0, 90.0)}, mesh.Vec3{0, 1, 0}},
		{"post rotation is inverted", []*Node{P("PostRotation", "Vector3D", 0.0, 0.0, 90.0)}, mesh.Vec3{0, -1, 0}},
		{"pre then lcl", []*Node{P("PreRotation", "Vector3D", 90.0, 0.0, 0.0), P("Lcl Rotation", "Lcl Rotation", 0.0, 0.0, 90.0)}, mesh.Vec3{0, 0, 1}},
		{"scaling pivot", []*Node{P("Lcl Scaling", "Lcl Scaling", 2.0, 2.0, 2.0), P("ScalingPivot", "Vector3D", 3.0, 0.0, 0.0)}, mesh.Vec3{-1, 0, 0}},
		{"scaling offset", []*Node{P("ScalingOffset", "Vector3D", 0.0, 0.0, 4.0)}, mesh.Vec3{1, 0, 4}},
		{"geometric", []*Node{P("GeometricTranslation", "Vector3D", 1.0, 0.0, 0.0), P("GeometricScaling", "Vector3D", 3.0, 1.0, 1.0), P("Lcl Rotation", "Lcl Rotation", 0.0, 0.0, 90.0)}, mesh.Vec3{0, 4, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := quadPositions(t, keep, nil, tc.props...)[1]
			if !near3(got, tc.want, 1e-5) {
				t.Fatalf("corner (1,0,0) → %v, want %v", got, tc.want)
			}
		})
	}
}

// TestHierarchyAndGeometricNotInherited: a child model inherits its
// parent's transform but not the parent's geometric transform.
func TestHierarchyAndGeometricNotInherited(t *testing.T) {
	nodes := func(v int) []*Node {
		return doc7(v, nil, []*Node{
			geometryNode(100, "Quad", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0}, []int32{0, 1, ^2}),
			modelNode(200, "Parent", "Null", P("Lcl Translation", "Lcl Translation", 10.0, 0.0, 0.0),
				P("GeometricTranslation", "Vector3D", 0.0, 100.0, 0.0)),
			modelNode(201, "Child", "Mesh", P("Lcl Scaling", "Lcl Scaling", 2.0, 2.0, 2.0)),
		}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(201), int64(200)}, {"OO", int64(100), int64(201)}})
	}
	sc := decodeAll(t, nodes, Options{PreserveSpace: true})
	if got := sc.Submeshes[0].Positions[1]; !near3(got, mesh.Vec3{12, 0, 0}, 1e-5) {
		t.Fatalf("child corner at %v, want (12,0,0)", got)
	}
	if sc.Submeshes[0].Name != "Child" {
		t.Fatalf("name %q", sc.Submeshes[0].Name)
	}
}

// TestSpaceConversion: Z-up centimetre files (3ds Max's axes) come out Y-up
// in metres; a mirrored axis system keeps front faces front.
func TestSpaceConversion(t *testing.T) {
	zup := []*Node{
		P("UpAxis", "int", int32(2)), P("UpAxisSign", "int", int32(1)),
		P("FrontAxis", "int", int32(1)), P("FrontAxisSign", "int", int32(-1)),
		P("CoordAxis", "int", int32(0)), P("CoordAxisSign", "int", int32(1)),
		P("UnitScaleFactor", "double", 2.54),
	}
	// Quad corner (0,1,0) is file "-front" (-Y is front), so it lands at -Z.
	pos := quadPositions(t, Options{}, zup, P("Lcl Translation", "Lcl Translation", 0.0, 0.0, 100.0))
	if !near3(pos[3], mesh.Vec3{0, 2.54, -0.0254}, 1e-6) {
		t.Fatalf("corner (0,1,100) → %v", pos[3])
	}
	// Default settings: Y up, centimetres.
	if pos := quadPositions(t, Options{}, nil); !near3(pos[2], mesh.Vec3{0.01, 0.01, 0}, 1e-7) {
		t.Fatalf("cm → m: %v", pos[2])
	}
	// Options.Scale multiplies after conversion.
	if pos := quadPositions(t, Options{Scale: 100}, nil); !near3(pos[2], mesh.Vec3{1, 1, 0}, 1e-5) {
		t.Fatalf("scaled: %v", pos[2])
	}
	// A left-handed file (X mirrored): the triangle winding flips so the
	// face still points along its (mirrored) normal.
	mirror := []*Node{P("CoordAxisSign", "int", int32(-1)), P("UnitScaleFactor", "double", 100.0)}
	sc := decodeAll(t, func(v int) []*Node { return quadScene(v, mirror) }, Options{})
	s := sc.Submeshes[0]
	a, b, c := s.Positions[s.Indices[0]], s.Positions[s.Indices[1]], s.Positions[s.Indices[2]]
	if nz := b.Sub(a).Cross(c.Sub(a))[2]; nz <= 0 {
		t.Fatalf("mirrored quad faces -Z (winding not flipped): %v", nz)
	}
	if s.Positions[1] != (mesh.Vec3{-1, 0, 0}) {
		t.Fatalf("mirrored corner %v", s.Positions[1])
	}
}

func triArea(p []mesh.Vec3, idx []uint32) (area float64, allFront bool, normal mesh.Vec3) {
	allFront = true
	var total mesh.Vec3
	for i := 0; i+2 < len(idx); i += 3 {
		a, b, c := p[idx[i]], p[idx[i+1]], p[idx[i+2]]
		total = total.Add(b.Sub(a).Cross(c.Sub(a)))
	}
	for i := 0; i+2 < len(idx); i += 3 {
		a, b, c := p[idx[i]], p[idx[i+1]], p[idx[i+2]]
		n := b.Sub(a).Cross(c.Sub(a))
		if n.Dot(total) < -1e-9 {
			allFront = false
		}
		area += float64(n.Length()) / 2
	}
	return area, allFront, total
}

// TestTriangulation: quads by the shorter valid diagonal, ear clipping for
// concave n-gons (area preserved, every triangle facing the same way).
func TestTriangulation(t *testing.T) {
	toVec := func(p []vec3d) []mesh.Vec3 {
		out := make([]mesh.Vec3, len(p))
		for i, v := range p {
			out[i] = mesh.Vec3{float32(v[0]), float32(v[1]), float32(v[2])}
		}
		return out
	}
	idx := func(tris []int32) []uint32 {
		out := make([]uint32, len(tris))
		for i, v := range tris {
			out[i] = uint32(v)
		}
		return out
	}
	budget := earClipBudget
	// A kite whose 1–3 diagonal is shorter.
	kite := []vec3d{{0, 0, 0}, {2, 0.5, 0}, {4, 0, 0}, {2, -0.5, 0}}
	kite = []vec3d{kite[0], kite[3], kite[2], kite[1]} // counter-clockwise
	if got := quad(kite); got[0] != 0 || got[1] != 1 || got[2] != 3 {
		t.Fatalf("kite split %v, want the short 1–3 diagonal", got)
	}
	// A dart (concave at corner 3): only the 1–3 diagonal is valid even
	// though 0–2 is shorter.
	// (The corners (0,0) (2,-2) (0,4) (-2,-2) listed counter-clockwise.)
	dart := []vec3d{{0, 0, 0}, {-2, -2, 0}, {0, 4, 0}, {2, -2, 0}}
	tris, _ := triangulate(dart, nil, &budget)
	if area, front, _ := triArea(toVec(dart), idx(tris)); !front || math.Abs(area-8) > 1e-6 {
		t.Fatalf("dart: area %v front %v (%v)", area, front, tris)
	}
	// Equal diagonals (a square) always use 0–2, whatever the noise.
	sq := []vec3d{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1 + 1e-9, 0}}
	if got := quad(sq); got[1] != 1 || got[2] != 2 {
		t.Fatalf("square split %v", got)
	}
	// An L-shaped hexagon, tilted out of every axis plane.
	l := []vec3d{{0, 0, 0}, {2, 0, 0}, {2, 1, 0}, {1, 1, 0}, {1, 2, 0}, {0, 2, 0}}
	rot := euler([3]float64{30, 40, 50}, 0)
	for i, p := range l {
		l[i] = point(rot, p[0], p[1], p[2])
	}
	tris, _ = triangulate(l, nil, &budget)
	if len(tris) != 3*4 {
		t.Fatalf("hexagon: %d triangles", len(tris)/3)
	}
	area, front, normal := triArea(toVec(l), idx(tris))
	if !front || math.Abs(area-3) > 1e-5 {
		t.Fatalf("L: area %v front %v", area, front)
	}
	nn := newell(l)
	if float64(normal.Dot(mesh.Vec3{float32(nn[0]), float32(nn[1]), float32(nn[2])})) <= 0 {
		t.Fatal("L: winding reversed")
	}
	// A spent budget fans, and says so.
	spent := 0
	if tris, fanned := triangulate(l, nil, &spent); !fanned || len(tris) != 12 || tris[3] != 0 {
		t.Fatalf("spent budget: fanned %v, %v", fanned, tris)
	}
	// A large convex polygon is ear-clipped whole.
	var circle []vec3d
	for i := range 2000 {
		a := float64(i) * 2 * math.Pi / 2000
		circle = append(circle, vec3d{math.Cos(a), math.Sin(a), 0})
	}
	if tris, fanned := triangulate(circle, nil, &budget); fanned || len(tris) != 3*1998 {
		t.Fatalf("circle: fanned %v, %d triangles", fanned, len(tris)/3)
	}
	// A star (self-touching spikes) still yields n-2 triangles.
	var star []vec3d
	for i := range 10 {
		r := 1.0
		if i%2 == 1 {
			r = 0.4
		}
		a := float64(i) * math.Pi / 5
		star = append(star, vec3d{r * math.Cos(a), r * math.Sin(a), 0})
	}
	tris, _ = triangulate(star, nil, &budget)
	if area, front, _ := triArea(toVec(star), idx(tris)); len(tris) != 24 || !front || area <= 0 {
		t.Fatalf("star: %d triangles, front %v", len(tris)/3, front)
	}
}

// TestLayerMappings: every mapping and reference mode reads the right
// element per corner.
func TestLayerMappings(t *testing.T) {
	pos := []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0}
	pvi := []int32{0, 1, ^2, 0, 2, ^3} // two triangles
	uvs := []float64{0, 0, 0.25, 0, 0.5, 0, 0.75, 0, 1, 0}
	cases := []struct {
		name  string
		layer *Node
		want  []float32 // u per emitted corner, in corner order
	}{
		{"ByPolygonVertex Direct", layerNode("LayerElementUV", "UV", "ByPolygonVertex", "Direct", append(uvs, 0.1, 0), "", nil), []float32{0, 0.25, 0.5, 0.75, 1, 0.1}},
		{"ByPolygonVertex IndexToDirect", layerNode("LayerElementUV", "UV", "ByPolygonVertex", "IndexToDirect", uvs, "UVIndex", []int32{4, 3, 2, 1, 0, 0}), []float32{1, 0.75, 0.5, 0.25, 0, 0}},
		{"ByVertice Direct", layerNode("LayerElementUV", "UV", "ByVertice", "Direct", uvs, "", nil), []float32{0, 0.25, 0.5, 0, 0.5, 0.75}},
		{"ByVertex Index", layerNode("LayerElementUV", "UV", "ByVertex", "Index", uvs, "UVIndex", []int32{1, 1, 1, 2, 2}), []float32{0.25, 0.25, 0.25, 0.25, 0.25, 0.5}},
		{"ByPolygon Direct", layerNode("LayerElementUV", "UV", "ByPolygon", "Direct", uvs, "", nil), []float32{0, 0, 0, 0.25, 0.25, 0.25}},
		{"AllSame", layerNode("LayerElementUV", "UV", "AllSame", "Direct", []float64{0.5, 0}, "", nil), []float32{0.5, 0.5, 0.5, 0.5, 0.5, 0.5}},
		{"ByEdge dropped", layerNode("LayerElementUV", "UV", "ByEdge", "Direct", uvs, "", nil), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nodes := func(v int) []*Node {
				return doc7(v, nil, []*Node{
					geometryNode(100, "G", pos, pvi, tc.layer),
					modelNode(200, "M", "Mesh"),
				}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)}})
			}
			sc := decodeAll(t, nodes, Options{})
			s := sc.Submeshes[0]
			if tc.want == nil {
				if s.UV0 != nil || len(sc.Warnings) != 1 || !strings.Contains(sc.Warnings[0], "ByEdge") {
					t.Fatalf("uv %v warnings %q", s.UV0, sc.Warnings)
				}
				return
			}
			for i, w := range tc.want {
				if s.UV0[i][0] != w || s.UV0[i][1] != 1 {
					t.Fatalf("corner %d: uv %v, want (%v, 1) (v flipped to top-left origin)", i, s.UV0[i], w)
				}
			}
		})
	}
}

// TestNormalsTangentsColors: per-corner attributes pass through the model
// transform (normals by the inverse transpose) and tangent w comes from
// the binormal's side.
func TestNormalsTangentsColors(t *testing.T) {
	nodes := func(v int) []*Node {
		return doc7(v, nil, []*Node{
			geometryNode(100, "G", []float64{0, 0, 0, 1, 0, 0, 0, 1, 0}, []int32{0, 1, ^2},
				layerNode("LayerElementNormal", "Normals", "ByVertice", "Direct", []float64{0, 0, 1, 0, 0, 1, 0, 0, 2}, "", nil),
				layerNode("LayerElementTangent", "Tangents", "AllSame", "Direct", []float64{1, 0, 0}, "", nil),
				layerNode("LayerElementBinormal", "Binormals", "ByPolygon", "Direct", []float64{0, -1, 0}, "", nil),
				layerNode("LayerElementColor", "Colors", "ByPolygonVertex", "IndexToDirect", []float64{1, 0, 0, 1, 0, 1, 0, 0.5}, "ColorIndex", []int32{0, 1, 1})),
			modelNode(200, "M", "Mesh", P("Lcl Rotation", "Lcl Rotation", 90.0, 0.0, 0.0), P("Lcl Scaling", "Lcl Scaling", 1.0, 1.0, 5.0)),
		}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)}})
	}
	sc := decodeAll(t, nodes, Options{})
	s := sc.Submeshes[0]
	// X90 sends +Z to -Y.
	for i, nrm := range s.Normals {
		if !near3(nrm, mesh.Vec3{0, -1, 0}, 1e-6) {
			t.Fatalf("normal %d: %v", i, nrm)
		}
	}
	if tg := s.Tangents[0]; !near3(mesh.Vec3{tg[0], tg[1], tg[2]}, mesh.Vec3{1, 0, 0}, 1e-6) || tg[3] != -1 {
		t.Fatalf("tangent %v (binormal opposite cross(n,t) gives w=-1)", tg)
	}
	if s.Colors[0] != (mesh.Vec4{1, 0, 0, 1}) || s.Colors[2] != (mesh.Vec4{0, 1, 0, 0.5}) {
		t.Fatalf("colors %v", s.Colors)
	}
}

// TestMaterialsBySlot: polygons split into one submesh per material slot,
// slots resolved through the model's material connections in order.
func TestMaterialsBySlot(t *testing.T) {
	nodes := func(v int) []*Node {
		return doc7(v, nil, []*Node{
			materialNode(300, "Red", [3]float64{1, 0, 0}),
			materialNode(301, "Green", [3]float64{0, 1, 0}),
			geometryNode(100, "G", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, []int32{0, 1, ^2, 0, 2, ^3, 1, 2, ^3},
				layerNode("LayerElementMaterial", "Materials", "ByPolygon", "IndexToDirect", []float64{1, 0, 1}, "", nil)),
			modelNode(200, "M", "Mesh"),
		}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)},
			// Connection order makes Green slot 0 and Red slot 1.
			{"OO", int64(301), int64(200)}, {"OO", int64(300), int64(200)}})
	}
	sc := decodeAll(t, nodes, Options{})
	if len(sc.Materials) != 2 || sc.Materials[0].Name != "Red" || sc.Materials[0].BaseColorFactor != (mesh.Vec4{1, 0, 0, 1}) {
		t.Fatalf("materials %+v", sc.Materials)
	}
	if len(sc.Submeshes) != 2 {
		t.Fatalf("%d submeshes", len(sc.Submeshes))
	}
	// Slot 0 (Green, material 1) holds polygon 1; slot 1 (Red) polygons 0, 2.
	if sc.Submeshes[0].Material != 1 || sc.Submeshes[0].TriangleCount() != 1 ||
		sc.Submeshes[1].Material != 0 || sc.Submeshes[1].TriangleCount() != 2 {
		t.Fatalf("submeshes: mat %d (%d tris), mat %d (%d tris)", sc.Submeshes[0].Material, sc.Submeshes[0].TriangleCount(),
			sc.Submeshes[1].Material, sc.Submeshes[1].TriangleCount())
	}
}

// TestWarningsAggregated: many bad items make one counted line.
func TestWarningsAggregated(t *testing.T) {
	nodes := func(v int) []*Node {
		return doc7(v, nil, []*Node{
			geometryNode(100, "G", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0}, []int32{0, 1, ^2, ^0, ^1, 0, ^1, ^2}),
			modelNode(200, "M", "Mesh"),
		}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)}})
	}
	sc := decodeAll(t, nodes, Options{})
	if len(sc.Warnings) != 1 || !strings.Contains(sc.Warnings[0], "fewer than 3 corners") {
		t.Fatalf("warnings %q", sc.Warnings)
	}
	if sc.Submeshes[0].TriangleCount() != 1 {
		t.Fatalf("%d triangles", sc.Submeshes[0].TriangleCount())
	}
}

// TestSceneErrors: scene problems are located (binary offset, ASCII line)
// and wrap ErrScene.
func TestSceneErrors(t *testing.T) {
	bad := func(v int) []*Node {
		return doc7(v, nil, []*Node{
			geometryNode(100, "G", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0}, []int32{0, 1, ^7}),
			modelNode(200, "M", "Mesh"),
		}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)}})
	}
	_, err := Decode(writeBinary(7500, bad(7500), false), "b.fbx", Options{})
	if err == nil || !errors.Is(err, ErrScene) || !strings.Contains(err.Error(), `fbx: b.fbx: offset 0x`) ||
		!strings.Contains(err.Error(), `geometry "G": polygon vertex index 7 at corner 2 out of range (3 vertices)`) {
		t.Fatalf("binary: %v", err)
	}
	_, err = Decode(writeASCII(7500, bad(7500)), "a.fbx", Options{})
	if err == nil || !errors.Is(err, ErrScene) || !strings.HasPrefix(err.Error(), "fbx: a.fbx:") ||
		strings.Contains(err.Error(), "offset") {
		t.Fatalf("ascii: %v", err)
	}
	inf := func(v int) []*Node {
		return doc7(v, nil, []*Node{
			geometryNode(100, "G", []float64{0, 0, 0, 1, 0, 0, 1, math.Inf(1), 0}, []int32{0, 1, ^2}),
			modelNode(200, "M", "Mesh"),
		}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)}})
	}
	if _, err := Decode(writeBinary(7400, inf(7400), false), "i.fbx", Options{}); err == nil || !strings.Contains(err.Error(), "non-finite vertex data") {
		t.Fatalf("non-finite: %v", err)
	}
	if _, err := Decode(writeBinary(7400, quadScene(7400, nil), false), "c.fbx", Options{MaxCorners: 3}); !errors.Is(err, ErrLimit) {
		t.Fatalf("corner limit: %v", err)
	}
}

// TestHiddenModels: Visibility 0 skips a model unless IncludeHidden.
func TestHiddenModels(t *testing.T) {
	nodes := func(v int) []*Node { return quadScene(v, nil, P("Visibility", "Visibility", 0.0)) }
	if sc := decodeAll(t, nodes, Options{}); len(sc.Submeshes) != 0 || len(sc.Warnings) != 1 {
		t.Fatalf("hidden: %d submeshes, warnings %q", len(sc.Submeshes), sc.Warnings)
	}
	if sc := decodeAll(t, nodes, Options{IncludeHidden: true}); len(sc.Submeshes) != 1 {
		t.Fatalf("included: %d submeshes", len(sc.Submeshes))
	}
}

// TestLocal keeps the model transform out of the positions.
func TestLocal(t *testing.T) {
	pos := quadPositions(t, Options{Local: true, PreserveSpace: true}, nil,
		P("Lcl Translation", "Lcl Translation", 5.0, 0.0, 0.0), P("GeometricTranslation", "Vector3D", 0.0, 1.0, 0.0))
	if !near3(pos[1], mesh.Vec3{1, 1, 0}, 1e-6) {
		t.Fatalf("local corner %v", pos[1])
	}
}

// TestASCII6 reads a hand-written 6.1 file: names instead of ids, geometry
// inside the Model, Properties60, implicit lists.
func TestASCII6(t *testing.T) {
	src := `; FBX 6.1.0 project file
FBXHeaderExtension:  {
	FBXVersion: 6100
}
Objects:  {
	Model: "Model::Tri", "Mesh" {
		Version: 232
		Properties60:  {
			Property: "Lcl Translation", "Lcl Translation", "A+",0,0,100
		}
		Vertices: 0,0,0,100,0,0
		,0,100,0
		PolygonVertexIndex: 0,1,-3
		LayerElementNormal: 0 {
			MappingInformationType: "ByPolygonVertex"
			ReferenceInformationType: "Direct"
			Normals: 0,0,1,0,0,1,0,0,1
		}
	}
	Material: "Material::Blue", "" {
		Properties60:  {
			Property: "DiffuseColor", "ColorRGB", "",0,0,1
		}
	}
	GlobalSettings:  {
		Properties60:  {
			Property: "UnitScaleFactor", "double", "",1
		}
	}
}
Connections:  {
	Connect: "OO", "Model::Tri", "Model::Scene"
	Connect: "OO", "Material::Blue", "Model::Tri"
}
`
	sc, err := Decode([]byte(src), "six.fbx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Submeshes) != 1 || sc.Submeshes[0].Name != "Tri" || sc.Submeshes[0].Material != 0 {
		t.Fatalf("%+v", sc.Submeshes)
	}
	s := sc.Submeshes[0]
	if !near3(s.Positions[1], mesh.Vec3{1, 0, 1}, 1e-6) || s.Normals[0] != (mesh.Vec3{0, 0, 1}) {
		t.Fatalf("positions %v normals %v", s.Positions, s.Normals)
	}
	if sc.Materials[0].BaseColorFactor != (mesh.Vec4{0, 0, 1, 1}) {
		t.Fatalf("material %+v", sc.Materials[0])
	}
}

// TestTemplateDefaults: a property a model does not set comes from its
// class's PropertyTemplate; one it sets overrides the template.
func TestTemplateDefaults(t *testing.T) {
	nodes := func(v int, own ...*Node) []*Node {
		doc := quadScene(v, nil, own...)
		tmpl := doc[2].Child("ObjectType").Child("PropertyTemplate").Child("Properties70")
		tmpl.Children = append(tmpl.Children, P("Lcl Translation", "Lcl Translation", 0.0, 0.0, 7.0))
		return doc
	}
	pos := decodeAll(t, func(v int) []*Node { return nodes(v) }, Options{PreserveSpace: true}).Submeshes[0].Positions
	if !near3(pos[0], mesh.Vec3{0, 0, 7}, 1e-6) {
		t.Fatalf("template translation not applied: %v", pos[0])
	}
	pos = decodeAll(t, func(v int) []*Node {
		return nodes(v, P("Lcl Translation", "Lcl Translation", 1.0, 0.0, 0.0))
	}, Options{PreserveSpace: true}).Submeshes[0].Positions
	if !near3(pos[0], mesh.Vec3{1, 0, 0}, 1e-6) {
		t.Fatalf("own property did not override the template: %v", pos[0])
	}
}

// TestEmbeddedTexture: a Texture connected to a material's DiffuseColor
// becomes its base color texture, with the Video's embedded bytes.
func TestEmbeddedTexture(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nfake")
	nodes := func(v int) []*Node {
		doc := quadScene(v, nil)
		objs := doc[3]
		objs.Children = append(objs.Children,
			materialNode(300, "M", [3]float64{1, 1, 1}),
			n("Texture", int64(400), "Texture::Tex", "", n("RelativeFilename", `textures\wood.png`)),
			n("Video", int64(500), "Video::Vid", "Clip", n("Content", png)))
		conns := doc[4]
		conns.Children = append(conns.Children,
			n("C", "OO", int64(300), int64(200)),
			n("C", "OP", int64(400), int64(300), "DiffuseColor"),
			n("C", "OO", int64(500), int64(400)))
		return doc
	}
	// Binary only: ASCII stores Content as base64 text.
	sc, err := Decode(writeBinary(7500, nodes(7500), false), "t.fbx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Images) != 1 || sc.Images[0].URI != "textures/wood.png" || sc.Images[0].MimeType != "image/png" ||
		string(sc.Images[0].Data) != string(png) {
		t.Fatalf("images %+v", sc.Images)
	}
	if sc.Materials[0].BaseColorTexture != 0 || sc.Submeshes[0].Material != 0 {
		t.Fatalf("material %+v", sc.Materials[0])
	}
}
