package gltf

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"testing"
	"testing/fstest"

	"github.com/meshcook/meshcook/mesh"
)

// glTF component type codes as written in JSON.
const (
	cByte   = 5120
	cUbyte  = 5121
	cShort  = 5122
	cUshort = 5123
	cUint   = 5125
	cFloat  = 5126
)

// obj is a JSON object; json.Marshal sorts its keys, so documents are
// byte-stable.
type obj = map[string]any

// builder assembles a small glTF document and its one binary buffer.
type builder struct {
	bin     []byte
	views   []obj
	accs    []obj
	meshes  []obj
	nodes   []obj
	extra   obj // more top-level properties (scenes, materials, ...)
	noScene bool
}

func newBuilder() *builder { return &builder{extra: obj{}} }

// view appends data (4-byte aligned) as a new buffer view; stride 0 leaves
// byteStride unset.
func (b *builder) view(data []byte, stride int) int {
	for len(b.bin)%4 != 0 {
		b.bin = append(b.bin, 0)
	}
	v := obj{"buffer": 0, "byteOffset": len(b.bin), "byteLength": len(data)}
	if stride != 0 {
		v["byteStride"] = stride
	}
	b.bin = append(b.bin, data...)
	b.views = append(b.views, v)
	return len(b.views) - 1
}

// acc adds an accessor over view (view < 0: none).
func (b *builder) acc(view, offset, ct int, typ string, count int, normalized bool) int {
	a := obj{"componentType": ct, "type": typ, "count": count}
	if view >= 0 {
		a["bufferView"] = view
		if offset != 0 {
			a["byteOffset"] = offset
		}
	}
	if normalized {
		a["normalized"] = true
	}
	b.accs = append(b.accs, a)
	return len(b.accs) - 1
}

// floats adds a tightly packed float accessor of the given type.
func (b *builder) floats(typ string, vals ...float32) int {
	comps := map[string]int{"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[typ]
	return b.acc(b.view(f32bytes(vals...), 0), 0, cFloat, typ, len(vals)/comps, false)
}

// u16s adds a SCALAR unsigned short accessor (indices).
func (b *builder) u16s(vals ...uint16) int {
	data := make([]byte, 2*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint16(data[2*i:], v)
	}
	return b.acc(b.view(data, 0), 0, cUshort, "SCALAR", len(vals), false)
}

// mesh adds a mesh with the given primitives.
func (b *builder) mesh(name string, prims ...obj) int {
	m := obj{"primitives": prims}
	if name != "" {
		m["name"] = name
	}
	b.meshes = append(b.meshes, m)
	return len(b.meshes) - 1
}

// node adds a node.
func (b *builder) node(n obj) int {
	b.nodes = append(b.nodes, n)
	return len(b.nodes) - 1
}

// json returns the document text with buffer 0 given by uri ("" for the GLB
// BIN chunk); scene 0 lists every parentless node unless noScene is set.
func (b *builder) json(t testing.TB, uri string) []byte {
	doc := obj{"asset": obj{"version": "2.0"}}
	for k, v := range b.extra {
		doc[k] = v
	}
	if len(b.bin) > 0 {
		buf := obj{"byteLength": len(b.bin)}
		if uri != "" {
			buf["uri"] = uri
		}
		doc["buffers"] = []obj{buf}
		doc["bufferViews"] = b.views
	}
	if len(b.accs) > 0 {
		doc["accessors"] = b.accs
	}
	if len(b.meshes) > 0 {
		doc["meshes"] = b.meshes
	}
	if len(b.nodes) > 0 {
		doc["nodes"] = b.nodes
		if _, ok := doc["scenes"]; !ok && !b.noScene {
			child := map[int]bool{}
			for _, n := range b.nodes {
				if c, ok := n["children"].([]int); ok {
					for _, i := range c {
						child[i] = true
					}
				}
			}
			var roots []int
			for i := range b.nodes {
				if !child[i] {
					roots = append(roots, i)
				}
			}
			doc["scenes"] = []obj{{"nodes": roots}}
			doc["scene"] = 0
		}
	}
	text, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// glb returns the document as a .glb with its BIN chunk.
func (b *builder) glb(t testing.TB) []byte {
	return glbBytes(b.json(t, ""), b.bin)
}

// dataURI returns the document as a .gltf with an embedded base64 buffer.
func (b *builder) dataURI(t testing.TB) []byte {
	return b.json(t, "data:application/octet-stream;base64,"+base64.StdEncoding.EncodeToString(b.bin))
}

// glbBytes wraps a JSON chunk and an optional BIN chunk in a GLB container.
func glbBytes(text, bin []byte) []byte {
	pad := func(p []byte, with byte) []byte {
		for len(p)%4 != 0 {
			p = append(p, with)
		}
		return p
	}
	text = pad(append([]byte(nil), text...), ' ')
	out := binary.LittleEndian.AppendUint32(nil, glbMagic)
	out = binary.LittleEndian.AppendUint32(out, 2)
	out = binary.LittleEndian.AppendUint32(out, 0) // total, patched below
	out = binary.LittleEndian.AppendUint32(out, uint32(len(text)))
	out = binary.LittleEndian.AppendUint32(out, glbChunkJSON)
	out = append(out, text...)
	if len(bin) > 0 {
		bin = pad(append([]byte(nil), bin...), 0)
		out = binary.LittleEndian.AppendUint32(out, uint32(len(bin)))
		out = binary.LittleEndian.AppendUint32(out, glbChunkBIN)
		out = append(out, bin...)
	}
	binary.LittleEndian.PutUint32(out[8:], uint32(len(out)))
	return out
}

func f32bytes(vals ...float32) []byte {
	out := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v))
	}
	return out
}

// decodeGLB imports b as x.glb from a MapFS.
func decodeGLB(t *testing.T, b *builder) (*mesh.Scene, error) {
	t.Helper()
	return Decode(fstest.MapFS{"x.glb": {Data: b.glb(t)}}, "x.glb", Options{})
}

// mustGLB imports b as x.glb and fails the test on error.
func mustGLB(t *testing.T, b *builder) *mesh.Scene {
	t.Helper()
	s, err := decodeGLB(t, b)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	checkScene(t, "x.glb", s)
	return s
}

// quad returns a builder holding one unit quad in z = 0 (two CCW
// triangles seen from +z) with normals +z, and the primitive's object.
func quad(b *builder) obj {
	pos := b.floats("VEC3", 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0)
	nrm := b.floats("VEC3", 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1)
	idx := b.u16s(0, 1, 2, 0, 2, 3)
	return obj{"attributes": obj{"POSITION": pos, "NORMAL": nrm}, "indices": idx}
}

// faceNormal is the geometric normal of triangle t (CCW front).
func faceNormal(sm *mesh.Submesh, t int) mesh.Vec3 {
	a, b, c := sm.Positions[sm.Indices[3*t]], sm.Positions[sm.Indices[3*t+1]], sm.Positions[sm.Indices[3*t+2]]
	return b.Sub(a).Cross(c.Sub(a)).Normalize()
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }

func nearVec3(a, b mesh.Vec3) bool { return near(a[0], b[0]) && near(a[1], b[1]) && near(a[2], b[2]) }
