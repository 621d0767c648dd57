package fbx

import (
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

// P builds a Properties70 entry.
func P(name, typ string, vals ...any) *Node {
	return n("P", append([]any{name, typ, "", "A"}, vals...)...)
}

func props70(ps ...*Node) *Node { return n("Properties70", ps) }

// doc7 wraps objects and connections (kind, child, parent[, property])
// into a 7.x file's top-level nodes.
func doc7(version int, global []*Node, objects []*Node, conns [][]any) []*Node {
	var cs []*Node
	for _, c := range conns {
		cs = append(cs, n("C", c...))
	}
	return []*Node{
		n("FBXHeaderExtension", n("FBXHeaderVersion", int32(1003)), n("FBXVersion", int32(version))),
		n("GlobalSettings", n("Version", int32(1000)), props70(global...)),
		n("Definitions",
			n("Version", int32(100)),
			n("ObjectType", "Model", n("Count", int32(1)),
				n("PropertyTemplate", "FbxNode", props70(
					P("Lcl Scaling", "Lcl Scaling", 1.0, 1.0, 1.0),
					P("RotationOrder", "enum", int32(0)),
				)))),
		n("Objects", objects),
		n("Connections", cs),
	}
}

func geometryNode(id int64, name string, pos []float64, pvi []int32, layers ...*Node) *Node {
	kids := []any{id, "Geometry::" + name, "Mesh",
		n("Vertices", pos), n("PolygonVertexIndex", pvi)}
	for _, l := range layers {
		kids = append(kids, l)
	}
	return n("Geometry", kids...)
}

func layerNode(elem, dataName, mapping, ref string, data []float64, indexName string, index []int32) *Node {
	nd := n(elem, int32(0),
		n("Version", int32(101)),
		n("MappingInformationType", mapping),
		n("ReferenceInformationType", ref),
		n(dataName, data))
	if indexName != "" {
		nd.Children = append(nd.Children, n(indexName, index))
	}
	return nd
}

func modelNode(id int64, name, sub string, ps ...*Node) *Node {
	return n("Model", id, "Model::"+name, sub, n("Version", int32(232)), props70(ps...))
}

func materialNode(id int64, name string, rgb [3]float64) *Node {
	return n("Material", id, "Material::"+name, "", n("ShadingModel", "lambert"),
		props70(P("DiffuseColor", "Color", rgb[0], rgb[1], rgb[2])))
}

// quadScene is one unit quad in the XY plane (counter-clockwise seen
// from +Z) under a model with the given properties.
func quadScene(version int, global []*Node, modelProps ...*Node) []*Node {
	return doc7(version, global, []*Node{
		geometryNode(100, "Quad", []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}, []int32{0, 1, 2, ^3}),
		modelNode(200, "QuadModel", "Mesh", modelProps...),
	}, [][]any{{"OO", int64(200), int64(0)}, {"OO", int64(100), int64(200)}})
}

// decodeAll imports the same nodes written as binary 7400, binary 7500
// (zlib arrays) and ASCII, and checks they agree; it returns the first.
func decodeAll(t *testing.T, nodes func(version int) []*Node, opts Options) *mesh.Scene {
	t.Helper()
	files := map[string][]byte{
		"b7400.fbx": writeBinary(7400, nodes(7400), false),
		"b7500.fbx": writeBinary(7500, nodes(7500), true),
		"a7500.fbx": writeASCII(7500, nodes(7500)),
	}
	var ref *mesh.Scene
	for _, name := range []string{"b7400.fbx", "b7500.fbx", "a7500.fbx"} {
		sc, err := Decode(files[name], name, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ref == nil {
			ref = sc
			continue
		}
		if len(sc.Submeshes) != len(ref.Submeshes) {
			t.Fatalf("%s: %d submeshes, want %d", name, len(sc.Submeshes), len(ref.Submeshes))
		}
		for i := range sc.Submeshes {
			a, b := &ref.Submeshes[i], &sc.Submeshes[i]
			if len(a.Positions) != len(b.Positions) || len(a.Indices) != len(b.Indices) {
				t.Fatalf("%s: submesh %d shape differs", name, i)
			}
			for k := range a.Positions {
				if !near3(a.Positions[k], b.Positions[k], 1e-6) {
					t.Fatalf("%s: submesh %d position %d: %v vs %v", name, i, k, b.Positions[k], a.Positions[k])
				}
			}
		}
	}
	return ref
}

func near3(a, b mesh.Vec3, tol float32) bool {
	for i := range 3 {
		if d := a[i] - b[i]; d > tol || d < -tol {
			return false
		}
	}
	return true
}
