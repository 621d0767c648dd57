package gltf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/meshcook/meshcook/internal/srcpath"
	"github.com/meshcook/meshcook/mesh"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A plain indexed triangle list comes through with its streams, name and
// material.
func TestTriangleList(t *testing.T) {
	b := newBuilder()
	p := quad(b)
	p["material"] = 0
	b.node(obj{"mesh": b.mesh("Quad", p)})
	b.extra["materials"] = []obj{{"name": "m"}}
	s := mustGLB(t, b)
	if len(s.Submeshes) != 1 {
		t.Fatalf("%d submeshes, want 1", len(s.Submeshes))
	}
	sm := s.Submeshes[0]
	if sm.Name != "Quad/0" || sm.Material != 0 {
		t.Errorf("name %q material %d, want Quad/0 0", sm.Name, sm.Material)
	}
	if !slices.Equal(sm.Indices, []uint32{0, 1, 2, 0, 2, 3}) {
		t.Errorf("indices %v", sm.Indices)
	}
	if sm.Positions[2] != (mesh.Vec3{1, 1, 0}) || sm.Normals[3] != (mesh.Vec3{0, 0, 1}) {
		t.Errorf("positions %v normals %v", sm.Positions, sm.Normals)
	}
	if sm.Tangents != nil || sm.UV0 != nil || sm.Colors != nil {
		t.Error("absent streams must stay nil")
	}
}

// Strips alternate winding per glTF's corner order; fans pivot on vertex 0.
// Both keep every triangle of a planar CCW layout facing +z.
func TestStripAndFan(t *testing.T) {
	b := newBuilder()
	// strip zig-zag: 0 (0,0) 1 (1,0) 2 (0,1) 3 (1,1) 4 (0,2)
	strip := b.floats("VEC3", 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0)
	// fan around the origin: 0 center, 1..4 on a CCW arc
	fan := b.floats("VEC3", 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, -1, 1, 0)
	b.node(obj{"mesh": b.mesh("",
		obj{"attributes": obj{"POSITION": strip}, "mode": 5},
		obj{"attributes": obj{"POSITION": fan}, "mode": 6, "indices": b.u16s(0, 1, 2, 3, 4)},
	)})
	s := mustGLB(t, b)
	if len(s.Submeshes) != 2 {
		t.Fatalf("%d submeshes, want 2", len(s.Submeshes))
	}
	wantStrip := []uint32{0, 1, 2, 1, 3, 2, 2, 3, 4} // glTF: odd i → (v[i], v[i+2], v[i+1])
	wantFan := []uint32{1, 2, 0, 2, 3, 0, 3, 4, 0}
	if got := s.Submeshes[0].Indices; !slices.Equal(got, wantStrip) {
		t.Errorf("strip %v, want %v", got, wantStrip)
	}
	if got := s.Submeshes[1].Indices; !slices.Equal(got, wantFan) {
		t.Errorf("fan %v, want %v", got, wantFan)
	}
	for i := range s.Submeshes {
		sm := &s.Submeshes[i]
		if sm.Name != "mesh_0/"+string(rune('0'+i)) {
			t.Errorf("name %q", sm.Name)
		}
		for tri := 0; tri < sm.TriangleCount(); tri++ {
			if n := faceNormal(sm, tri); !nearVec3(n, mesh.Vec3{0, 0, 1}) {
				t.Errorf("%s triangle %d faces %v, want +z", sm.Name, tri, n)
			}
		}
	}
}

// A primitive without indices draws its vertices in order.
func TestNonIndexed(t *testing.T) {
	b := newBuilder()
	pos := b.floats("VEC3", 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1)
	b.node(obj{"mesh": b.mesh("", obj{"attributes": obj{"POSITION": pos}})})
	s := mustGLB(t, b)
	if got := s.Submeshes[0].Indices; !slices.Equal(got, []uint32{0, 1, 2, 3, 4, 5}) {
		t.Errorf("indices %v", got)
	}
}

// Sparse values replace base values, or zeros when there is no base view.
func TestSparse(t *testing.T) {
	b := newBuilder()
	base := b.floats("VEC3", 0, 0, 0, 1, 0, 0, 0, 1, 0, 5, 5, 5)
	sparseIdx := b.view([]byte{3, 0}, 0) // ushort index 3
	sparseVal := b.view(f32bytes(1, 1, 0), 0)
	b.accs[base]["sparse"] = obj{"count": 1,
		"indices": obj{"bufferView": sparseIdx, "componentType": cUshort},
		"values":  obj{"bufferView": sparseVal}}
	// zeros-based accessor: uv all zero except vertex 1 and 2
	uv := b.acc(-1, 0, cFloat, "VEC2", 4, false)
	uvIdx := b.view([]byte{1, 2}, 0) // ubyte indices 1, 2
	uvVal := b.view(f32bytes(0.5, 0.25, 0.75, 1), 0)
	b.accs[uv]["sparse"] = obj{"count": 2,
		"indices": obj{"bufferView": uvIdx, "componentType": cUbyte},
		"values":  obj{"bufferView": uvVal}}
	b.node(obj{"mesh": b.mesh("", obj{"attributes": obj{"POSITION": base, "TEXCOORD_0": uv}, "indices": b.u16s(0, 1, 2, 0, 2, 3)})})
	sm := mustGLB(t, b).Submeshes[0]
	wantPos := []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}
	wantUV := []mesh.Vec2{{0, 0}, {0.5, 0.25}, {0.75, 1}, {0, 0}}
	if !slices.Equal(sm.Positions, wantPos) || !slices.Equal(sm.UV0, wantUV) {
		t.Errorf("positions %v uv %v, want %v %v", sm.Positions, sm.UV0, wantPos, wantUV)
	}
}

// Interleaved attributes share one view with byteStride; accessors start
// at their byteOffset within the stride.
func TestInterleaved(t *testing.T) {
	b := newBuilder()
	var data []float32
	for i := 0; i < 3; i++ {
		f := float32(i)
		data = append(data, f, 10+f, 20+f /* pos */, 0, 0, 1 /* normal */, f/2, 1-f/2 /* uv */)
	}
	v := b.view(f32bytes(data...), 32)
	pos := b.acc(v, 0, cFloat, "VEC3", 3, false)
	nrm := b.acc(v, 12, cFloat, "VEC3", 3, false)
	uv := b.acc(v, 24, cFloat, "VEC2", 3, false)
	b.node(obj{"mesh": b.mesh("", obj{"attributes": obj{"POSITION": pos, "NORMAL": nrm, "TEXCOORD_0": uv}})})
	sm := mustGLB(t, b).Submeshes[0]
	for i := 0; i < 3; i++ {
		f := float32(i)
		if sm.Positions[i] != (mesh.Vec3{f, 10 + f, 20 + f}) || sm.Normals[i] != (mesh.Vec3{0, 0, 1}) || sm.UV0[i] != (mesh.Vec2{f / 2, 1 - f/2}) {
			t.Errorf("vertex %d: %v %v %v", i, sm.Positions[i], sm.Normals[i], sm.UV0[i])
		}
	}
}

// Quantized attributes decode with glTF's normalization rules, and
// unnormalized integers keep their integer values.
func TestQuantized(t *testing.T) {
	b := newBuilder()
	// POSITION: unnormalized ubyte, padded to 4 bytes per element (stride 4)
	pos := b.acc(b.view([]byte{0, 0, 0, 0, 255, 0, 0, 0, 0, 7, 0, 0}, 4), 0, cUbyte, "VEC3", 3, false)
	// NORMAL: normalized byte, -128 clamps to -1 ; padded stride 4
	nrm := b.acc(b.view([]byte{0, 0, 127, 0, 0, 0, 0x80, 0, 127, 0, 0, 0}, 4), 0, cByte, "VEC3", 3, true)
	// TANGENT: normalized short
	tan := make([]byte, 0, 24)
	for i := 0; i < 3; i++ {
		for _, v := range []int16{32767, 0, 0, -32767} {
			tan = binary.LittleEndian.AppendUint16(tan, uint16(v))
		}
	}
	tng := b.acc(b.view(tan, 0), 0, cShort, "VEC4", 3, true)
	// TEXCOORD_0: normalized ushort
	uvb := make([]byte, 0, 12)
	for _, v := range []uint16{0, 65535, 65535, 0, 32768, 32768} {
		uvb = binary.LittleEndian.AppendUint16(uvb, v)
	}
	uv := b.acc(b.view(uvb, 0), 0, cUshort, "VEC2", 3, true)
	// COLOR_0: normalized ubyte vec3 → alpha 1
	col := b.acc(b.view([]byte{255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 51, 0}, 4), 0, cUbyte, "VEC3", 3, true)
	// second primitive: normalized byte positions and normalized short UVs,
	// which nothing renormalizes afterwards
	pos2 := b.acc(b.view([]byte{127, 0x80, 64, 0, 0x81, 0, 0, 0, 0, 0, 127, 0}, 4), 0, cByte, "VEC3", 3, true)
	uv2b := make([]byte, 0, 12)
	for _, v := range []int16{-32768, 32767, 16384, 0, 0, -1} {
		uv2b = binary.LittleEndian.AppendUint16(uv2b, uint16(v))
	}
	uv2 := b.acc(b.view(uv2b, 0), 0, cShort, "VEC2", 3, true)
	b.node(obj{"mesh": b.mesh("", obj{"attributes": obj{"POSITION": pos, "NORMAL": nrm, "TANGENT": tng, "TEXCOORD_0": uv, "COLOR_0": col}},
		obj{"attributes": obj{"POSITION": pos2, "TEXCOORD_0": uv2}})})
	b.extra["extensionsUsed"] = []string{"KHR_mesh_quantization"}
	b.extra["extensionsRequired"] = []string{"KHR_mesh_quantization"}
	s := mustGLB(t, b)
	sm2 := s.Submeshes[1]
	if p := sm2.Positions; p[0] != (mesh.Vec3{1, -1, 64.0 / 127}) || p[1] != (mesh.Vec3{-1, 0, 0}) || p[2] != (mesh.Vec3{0, 0, 1}) {
		t.Errorf("normalized byte positions %v", p)
	}
	if uv := sm2.UV0; uv[0] != (mesh.Vec2{-1, 1}) || uv[1] != (mesh.Vec2{16384.0 / 32767, 0}) || uv[2] != (mesh.Vec2{0, -1.0 / 32767}) {
		t.Errorf("normalized short uvs %v", uv)
	}
	sm := s.Submeshes[0]
	if want := []mesh.Vec3{{0, 0, 0}, {255, 0, 0}, {0, 7, 0}}; !slices.Equal(sm.Positions, want) {
		t.Errorf("positions %v, want %v", sm.Positions, want)
	}
	if want := []mesh.Vec3{{0, 0, 1}, {0, 0, -1}, {1, 0, 0}}; !slices.Equal(sm.Normals, want) {
		t.Errorf("normals %v, want %v", sm.Normals, want)
	}
	if tg := sm.Tangents[1]; tg != (mesh.Vec4{1, 0, 0, -1}) {
		t.Errorf("tangent %v, want 1 0 0 -1", tg)
	}
	if uv := sm.UV0; uv[0] != (mesh.Vec2{0, 1}) || uv[1] != (mesh.Vec2{1, 0}) || !near(uv[2][0], 32768.0/65535) {
		t.Errorf("uv %v", uv)
	}
	if c := sm.Colors; c[0] != (mesh.Vec4{1, 0, 0, 1}) || c[1] != (mesh.Vec4{0, 1, 0, 1}) || !near(c[2][2], 0.2) || c[2][3] != 1 {
		t.Errorf("colors %v", c)
	}
}

// u8 indices read as indices.
func TestUbyteIndices(t *testing.T) {
	b := newBuilder()
	pos := b.floats("VEC3", 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0)
	idx := b.acc(b.view([]byte{3, 2, 0, 2, 1, 0}, 0), 0, cUbyte, "SCALAR", 6, false)
	b.node(obj{"mesh": b.mesh("", obj{"attributes": obj{"POSITION": pos}, "indices": idx})})
	if got := mustGLB(t, b).Submeshes[0].Indices; !slices.Equal(got, []uint32{3, 2, 0, 2, 1, 0}) {
		t.Errorf("indices %v", got)
	}
}

// World transforms compose down the hierarchy (matrix and TRS); a mirrored
// node flips winding so the geometric normal still agrees with the baked
// vertex normal, and flips the tangent's bitangent sign.
func TestHierarchyAndMirror(t *testing.T) {
	b := newBuilder()
	p := quad(b)
	p["attributes"].(obj)["TANGENT"] = b.floats("VEC4", 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1)
	m := b.mesh("Q", p)
	// root: translate (10,0,0) as a matrix; child: scale 2 TRS; mirror: scale x -1
	child := b.node(obj{"mesh": m, "scale": []float64{2, 2, 2}, "translation": []float64{0, 5, 0}})
	mirror := b.node(obj{"mesh": m, "scale": []float64{-1, 1, 1}})
	b.node(obj{"children": []int{child, mirror}, "matrix": []float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1}})
	s := mustGLB(t, b)
	if len(s.Submeshes) != 2 {
		t.Fatalf("%d submeshes, want 2", len(s.Submeshes))
	}
	scaled, mirrored := &s.Submeshes[0], &s.Submeshes[1]
	// scaled: world = T(10,0,0)·T(0,5,0)·S(2)
	if got := scaled.Positions[2]; got != (mesh.Vec3{12, 7, 0}) {
		t.Errorf("scaled vertex 2 at %v, want 12 7 0", got)
	}
	if !slices.Equal(scaled.Indices, []uint32{0, 1, 2, 0, 2, 3}) {
		t.Errorf("unmirrored winding changed: %v", scaled.Indices)
	}
	// mirrored: world = T(10,0,0)·S(-1,1,1)
	if got := mirrored.Positions[1]; got != (mesh.Vec3{9, 0, 0}) {
		t.Errorf("mirrored vertex 1 at %v, want 9 0 0", got)
	}
	for _, sm := range []*mesh.Submesh{scaled, mirrored} {
		for tri := 0; tri < sm.TriangleCount(); tri++ {
			n := faceNormal(sm, tri)
			if !nearVec3(n, sm.Normals[sm.Indices[3*tri]]) || !nearVec3(n, mesh.Vec3{0, 0, 1}) {
				t.Errorf("%s triangle %d: face normal %v, vertex normal %v", sm.Name, tri, n, sm.Normals[sm.Indices[3*tri]])
			}
		}
	}
	if got := mirrored.Tangents[0]; got != (mesh.Vec4{-1, 0, 0, -1}) {
		t.Errorf("mirrored tangent %v, want -1 0 0 -1", got)
	}
	if got := scaled.Tangents[0]; got != (mesh.Vec4{1, 0, 0, 1}) {
		t.Errorf("scaled tangent %v, want 1 0 0 1 (renormalized)", got)
	}
}

// A .gltf with a base64 data URI buffer imports like the .glb.
func TestDataURIBuffer(t *testing.T) {
	b := newBuilder()
	b.node(obj{"mesh": b.mesh("Q", quad(b))})
	s, err := Decode(fstest.MapFS{"a/x.gltf": {Data: b.dataURI(t)}}, "a/x.gltf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := mustGLB(t, b)
	if !reflect.DeepEqual(s, want) {
		t.Errorf("data uri scene differs from glb scene:\n%+v\n%+v", s, want)
	}
}

// External buffers resolve inside the source's folder (percent-escapes
// decoded); URIs that leave it are refused before anything is read.
func TestExternalURIs(t *testing.T) {
	b := newBuilder()
	b.node(obj{"mesh": b.mesh("Q", quad(b))})
	fsys := fstest.MapFS{
		"m/x.gltf":          {Data: b.json(t, "bin/my%20data.bin")},
		"m/bin/my data.bin": {Data: b.bin},
		"shared.bin":        {Data: b.bin},
		"m/escape.gltf":     {Data: b.json(t, "../shared.bin")},
		"m/escape2.gltf":    {Data: b.json(t, "bin/../../shared.bin")},
		"m/escape3.gltf":    {Data: b.json(t, `..\shared.bin`)},
		"m/abs.gltf":        {Data: b.json(t, "/shared.bin")},
		"m/scheme.gltf":     {Data: b.json(t, "file:///shared.bin")},
		"m/http.gltf":       {Data: b.json(t, "https://example.com/x.bin")},
		"m/drive.gltf":      {Data: b.json(t, `C:\x.bin`)},
		"m/missing.gltf":    {Data: b.json(t, "nope.bin")},
		"m/short.gltf":      {Data: b.json(t, "short.bin")},
		"m/short.bin":       {Data: b.bin[:10]},
		"m/image_escape.gltf": {Data: func() []byte {
			b2 := newBuilder()
			b2.extra["images"] = []obj{{"uri": "../../etc/passwd"}}
			return b2.json(t, "")
		}()},
	}
	if _, err := Decode(fsys, "m/x.gltf", Options{}); err != nil {
		t.Fatalf("local buffer: %v", err)
	}
	for _, name := range []string{"m/escape.gltf", "m/escape2.gltf", "m/escape3.gltf", "m/abs.gltf", "m/scheme.gltf", "m/http.gltf", "m/drive.gltf", "m/image_escape.gltf"} {
		_, err := Decode(fsys, name, Options{})
		if !errors.Is(err, ErrOutsideFolder) || !strings.HasPrefix(err.Error(), "gltf: "+name+": ") {
			t.Errorf("%s: err %v, want ErrOutsideFolder naming the file", name, err)
		}
	}
	for _, name := range []string{"m/missing.gltf", "m/short.gltf"} {
		if _, err := Decode(fsys, name, Options{}); err == nil || errors.Is(err, ErrOutsideFolder) {
			t.Errorf("%s: err %v, want a read error", name, err)
		}
	}
}

// Points and lines are skipped and counted once per instance in one warning.
func TestPointsSkipped(t *testing.T) {
	b := newBuilder()
	p := quad(b)
	pts := obj{"attributes": obj{"POSITION": p["attributes"].(obj)["POSITION"]}, "mode": 0}
	lines := obj{"attributes": obj{"POSITION": p["attributes"].(obj)["POSITION"]}, "mode": 1}
	m := b.mesh("M", pts, p, lines)
	b.node(obj{"mesh": m})
	b.node(obj{"mesh": m, "translation": []float64{0, 0, 5}})
	s := mustGLB(t, b)
	if len(s.Submeshes) != 2 || s.Submeshes[0].Name != "M/1" || s.Submeshes[1].Name != "M/1" {
		t.Fatalf("submeshes %d (%v)", len(s.Submeshes), s.Submeshes)
	}
	if want := []string{"dropped 4 points/lines primitives"}; !slices.Equal(s.Warnings, want) {
		t.Errorf("warnings %q, want %q", s.Warnings, want)
	}
	// the shared mesh was decoded once but each instance owns its streams
	if s.Submeshes[1].Positions[0][2] != 5 || s.Submeshes[0].Positions[0][2] != 0 {
		t.Errorf("instances share or mis-bake positions: %v %v", s.Submeshes[0].Positions[0], s.Submeshes[1].Positions[0])
	}
}

// Without scenes, every parentless node is a root; with scenes but no
// default, every scene's roots are imported once.
func TestRootsWithoutDefaultScene(t *testing.T) {
	b := newBuilder()
	m := b.mesh("M", quad(b))
	c := b.node(obj{"mesh": m})
	b.node(obj{"mesh": m, "children": []int{c}})
	b.node(obj{"mesh": m})
	b.noScene = true
	if s := mustGLB(t, b); len(s.Submeshes) != 3 {
		t.Errorf("no scenes: %d submeshes, want 3", len(s.Submeshes))
	}
	b.extra["scenes"] = []obj{{"nodes": []int{1}}, {"nodes": []int{2, 1}}}
	if s := mustGLB(t, b); len(s.Submeshes) != 3 {
		t.Errorf("two scenes: %d submeshes, want 3", len(s.Submeshes))
	}
}

// Materials keep source order and glTF defaults; textures resolve to image
// indices; image URIs are kept only for external files; the bytes of every
// image a material references are loaded (buffer view, file), the others'
// are not.
func TestMaterialsAndImages(t *testing.T) {
	b := newBuilder()
	b.node(obj{"mesh": b.mesh("", quad(b))})
	b.view([]byte{1, 2, 3, 4}, 0)
	b.extra["images"] = []obj{
		{"uri": "tex/a%20b.png", "name": "A"},
		{"uri": "data:image/png;base64,iVBORw0KGgo="},
		{"bufferView": 3, "mimeType": "image/jpeg"},
	}
	b.extra["textures"] = []obj{{"source": 2}, {"source": 0}, {}}
	b.extra["materials"] = []obj{
		{},
		{"name": "full", "pbrMetallicRoughness": obj{
			"baseColorFactor": []float64{0.5, 0.25, 1, 0.5}, "metallicFactor": 0.1, "roughnessFactor": 0.2,
			"baseColorTexture": obj{"index": 1}, "metallicRoughnessTexture": obj{"index": 0}},
			"normalTexture":    obj{"index": 0, "scale": 0.5},
			"occlusionTexture": obj{"index": 1, "strength": 0.25},
			"emissiveTexture":  obj{"index": 2},
			"emissiveFactor":   []float64{1, 0.5, 0},
			"alphaMode":        "MASK", "alphaCutoff": 0.3, "doubleSided": true},
		{"alphaMode": "BLEND"},
	}
	fsys := fstest.MapFS{"x.glb": {Data: b.glb(t)}, "tex/a b.png": {Data: []byte("png bytes")}}
	s, err := Decode(fsys, "x.glb", Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkScene(t, "x.glb", s)
	if len(s.Materials) != 3 || s.Materials[0] != mesh.DefaultMaterial() {
		t.Fatalf("materials %+v", s.Materials)
	}
	want := mesh.Material{
		Name: "full", BaseColorFactor: mesh.Vec4{0.5, 0.25, 1, 0.5}, EmissiveFactor: mesh.Vec3{1, 0.5, 0},
		Metallic: 0.1, Roughness: 0.2, NormalScale: 0.5, OcclusionStrength: 0.25, AlphaCutoff: 0.3,
		AlphaMode: mesh.AlphaMask, DoubleSided: true,
		BaseColorTexture: 0, MetallicRoughnessTexture: 2, NormalTexture: 2, OcclusionTexture: 0, EmissiveTexture: -1,
	}
	if s.Materials[1] != want {
		t.Errorf("material 1\n got %+v\nwant %+v", s.Materials[1], want)
	}
	if s.Materials[2].AlphaMode != mesh.AlphaBlend {
		t.Errorf("material 2 alpha mode %d", s.Materials[2].AlphaMode)
	}
	wantImages := []mesh.Image{{Name: "A", URI: "tex/a%20b.png", Data: []byte("png bytes")}, {MimeType: "image/png"}, {MimeType: "image/jpeg", Data: []byte{1, 2, 3, 4}}}
	if !reflect.DeepEqual(s.Images, wantImages) {
		t.Errorf("images %+v, want %+v", s.Images, wantImages)
	}
}

// The same bytes give the same Scene.
func TestDeterministic(t *testing.T) {
	b := newBuilder()
	m := b.mesh("M", quad(b))
	for i := 0; i < 5; i++ {
		b.node(obj{"mesh": m, "rotation": []float64{0, 0, math.Sin(float64(i)), math.Cos(float64(i))}})
	}
	a, c := mustGLB(t, b), mustGLB(t, b)
	if !reflect.DeepEqual(a, c) {
		t.Error("two decodes of the same file differ")
	}
}

// Required extensions: compression and unknown ones are refused by name;
// quantization, texture transform and material extensions are accepted.
func TestRequiredExtensions(t *testing.T) {
	for _, tc := range []struct {
		ext string
		ok  bool
	}{
		{"KHR_mesh_quantization", true},
		{"KHR_texture_transform", true},
		{"KHR_materials_unlit", true},
		{"KHR_materials_emissive_strength", true},
		{"KHR_draco_mesh_compression", false},
		{"EXT_meshopt_compression", true},
		{"KHR_meshopt_compression", true},
		{"VENDOR_unknown", false},
	} {
		b := newBuilder()
		b.node(obj{"mesh": b.mesh("", quad(b))})
		b.extra["extensionsUsed"] = []string{tc.ext}
		b.extra["extensionsRequired"] = []string{tc.ext}
		_, err := decodeGLB(t, b)
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.ext, err)
		}
		if !tc.ok && (!errors.Is(err, ErrUnsupportedExtension) || !strings.Contains(err.Error(), "unsupported required extension \""+tc.ext+"\"")) {
			t.Errorf("%s: err %v, want unsupported required extension", tc.ext, err)
		}
	}
}

// The vertex budget refuses accessors no bytes bound, and instancing past
// the limit, before allocating.
func TestLimits(t *testing.T) {
	b := newBuilder()
	zeros := b.acc(-1, 0, cFloat, "VEC3", 1<<40, false) // a trillion zero vertices
	b.node(obj{"mesh": b.mesh("", obj{"attributes": obj{"POSITION": zeros}})})
	if _, err := decodeGLB(t, b); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("huge view-less accessor: err %v", err)
	}
	b = newBuilder()
	m := b.mesh("", quad(b))
	for i := 0; i < 10; i++ {
		b.node(obj{"mesh": m})
	}
	fsys := fstest.MapFS{"x.glb": {Data: b.glb(t)}}
	if _, err := Decode(fsys, "x.glb", Options{MaxVertices: 39}); err == nil || !strings.Contains(err.Error(), "MaxVertices") {
		t.Errorf("10 instances of 4 vertices under a 39 limit: err %v", err)
	}
	if _, err := Decode(fsys, "x.glb", Options{MaxSubmeshes: 9}); err == nil || !strings.Contains(err.Error(), "MaxSubmeshes") {
		t.Errorf("10 instances under a 9 submesh limit: err %v", err)
	}
	if _, err := Decode(fsys, "x.glb", Options{MaxVertices: 40, MaxIndices: 60, MaxSubmeshes: 10}); err != nil {
		t.Errorf("exactly at the limit: %v", err)
	}
}

// Each malformed document fails with a one-line error that names the file
// and says what is wrong.
func TestInvalid(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(b *builder, p obj)
		want string
	}{
		{"missing position", func(b *builder, p obj) { delete(p["attributes"].(obj), "POSITION") }, "missing POSITION"},
		{"index out of range", func(b *builder, p obj) { p["indices"] = b.u16s(0, 1, 4) }, "index 2 is 4, only 4 vertices"},
		{"position vec2", func(b *builder, p obj) { p["attributes"].(obj)["POSITION"] = b.floats("VEC2", 0, 0, 1, 0, 1, 1, 0, 1) }, "type VEC2 of FLOAT is not allowed"},
		{"uint position", func(b *builder, p obj) {
			p["attributes"].(obj)["POSITION"] = b.acc(b.view(make([]byte, 48), 0), 0, cUint, "VEC3", 4, false)
		}, "not allowed"},
		{"float indices", func(b *builder, p obj) { p["indices"] = b.floats("SCALAR", 0, 1, 2) }, "not allowed"},
		{"accessor overrun", func(b *builder, p obj) {
			p["attributes"].(obj)["POSITION"] = b.acc(b.view(make([]byte, 40), 0), 0, cFloat, "VEC3", 4, false)
		}, "overrun buffer view"},
		{"accessor offset overrun", func(b *builder, p obj) {
			p["attributes"].(obj)["POSITION"] = b.acc(b.view(make([]byte, 48), 0), 8, cFloat, "VEC3", 4, false)
		}, "overrun buffer view"},
		{"stride smaller than element", func(b *builder, p obj) {
			p["attributes"].(obj)["POSITION"] = b.acc(b.view(make([]byte, 48), 8), 0, cFloat, "VEC3", 4, false)
		}, "byteStride 8 is smaller"},
		{"view overruns buffer", func(b *builder, p obj) { b.views[0]["byteLength"] = 1 << 20 }, "overrun buffer 0"},
		{"count mismatch", func(b *builder, p obj) { p["attributes"].(obj)["NORMAL"] = b.floats("VEC3", 0, 0, 1) }, "has 1 elements, POSITION has 4"},
		{"non-finite position", func(b *builder, p obj) {
			nan := float32(math.NaN())
			p["attributes"].(obj)["POSITION"] = b.floats("VEC3", 0, 0, 0, 1, 0, 0, 1, nan, 0, 0, 1, 0)
		}, "element 2 is not finite"},
		{"unnormalized integer color", func(b *builder, p obj) {
			p["attributes"].(obj)["COLOR_0"] = b.acc(b.view(make([]byte, 16), 0), 0, cUbyte, "VEC4", 4, false)
		}, "integer colors must be normalized"},
		{"missing material", func(b *builder, p obj) { p["material"] = 3 }, "material 3 does not exist"},
		{"sparse index out of range", func(b *builder, p obj) {
			pos := p["attributes"].(obj)["POSITION"].(int)
			b.accs[pos]["sparse"] = obj{"count": 1,
				"indices": obj{"bufferView": b.view([]byte{9, 0, 0, 0}, 0), "componentType": cUint},
				"values":  obj{"bufferView": b.view(make([]byte, 12), 0)}}
		}, "sparse index 0 is 9"},
		{"node cycle", func(b *builder, p obj) {
			b.nodes[0]["children"] = []int{1}
			b.node(obj{"children": []int{0}})
			b.extra["scenes"] = []obj{{"nodes": []int{0}}}
		}, "cycle"},
		{"two parents", func(b *builder, p obj) {
			b.node(obj{"children": []int{0}})
			b.node(obj{"children": []int{0}})
		}, "node 0 has two parents"},
		{"null node", func(b *builder, p obj) { b.nodes = append(b.nodes, nil) }, "nodes[1] is null"},
		{"bad scene node", func(b *builder, p obj) { b.extra["scenes"] = []obj{{"nodes": []int{7}}} }, "node 7 does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder()
			p := quad(b)
			b.node(obj{"mesh": b.mesh("", p)})
			tc.edit(b, p)
			_, err := decodeGLB(t, b)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "gltf: x.glb: ") || !strings.Contains(msg, tc.want) || strings.ContainsAny(msg, "\r\n") {
				t.Errorf("error %q, want one line starting \"gltf: x.glb: \" containing %q", msg, tc.want)
			}
		})
	}
}

// Broken containers fail cleanly.
func TestInvalidContainer(t *testing.T) {
	b := newBuilder()
	b.node(obj{"mesh": b.mesh("", quad(b))})
	good := b.glb(t)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty json document"},
		{"truncated", good[:len(good)-1], "header says"},
		// issue #19: a header length (612) short of the file size (616)
		{"bytes past the declared length", append(append([]byte(nil), good...), 0, 0, 0, 0), fmt.Sprintf("header says %d bytes, file has %d", len(good), len(good)+4)},
		{"version 1", append(append([]byte(nil), good[:4]...), append([]byte{1, 0, 0, 0}, good[8:]...)...), "container version 1"},
		{"json chunk too long", func() []byte {
			d := append([]byte(nil), good...)
			binary.LittleEndian.PutUint32(d[12:], 1<<30)
			return d
		}(), "past end of file"},
		{"no bin chunk", glbBytes(b.json(t, ""), nil), "buffer 0 has no data"},
		{"not json", []byte("{\"asset\":"), "json: unexpected end"},
		{"no asset", []byte("{}"), "asset is required"},
	} {
		// A .glb must start with the GLB magic; the text cases are
		// JSON documents, read as .gltf.
		name := "x.glb"
		if len(tc.data) < 4 || string(tc.data[:4]) != "glTF" {
			name = "x.gltf"
		}
		_, err := Decode(fstest.MapFS{name: {Data: tc.data}}, name, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "gltf: "+name+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

// Load reads from disk and names the path it was given.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	b := newBuilder()
	b.node(obj{"mesh": b.mesh("Q", quad(b))})
	if err := os.WriteFile(dir+"/x.gltf", b.json(t, "x.bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/x.bin", b.bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := Load(dir+"/x.gltf", Options{}); err != nil || len(s.Submeshes) != 1 {
		t.Fatalf("load: %v", err)
	}
	if err := os.WriteFile(dir+"/esc.gltf", b.json(t, "../x.bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir+"/esc.gltf", Options{}); !errors.Is(err, ErrOutsideFolder) || !strings.HasPrefix(err.Error(), "gltf: "+dir+"/esc.gltf: ") {
		t.Errorf("escaping load: %v", err)
	}
	// a symbolic link inside the folder is followed (a Bazel execroot is
	// made of them), unless StrictPaths, which refuses one that leads out
	out := t.TempDir()
	if err := os.WriteFile(out+"/outside.bin", b.bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out+"/outside.bin", dir+"/link.bin"); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.WriteFile(dir+"/link.gltf", b.json(t, "link.bin"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir+"/link.gltf", Options{}); err != nil {
		t.Errorf("buffer through a symlink: %v", err)
	}
	if _, err := Load(dir+"/link.gltf", Options{StrictPaths: true}); !errors.Is(err, srcpath.ErrLinkOutside) || !strings.Contains(err.Error(), "link.bin") {
		t.Errorf("strict paths: buffer through a symlink out of the folder: %v", err)
	}
	if _, err := Load(dir+"/x.gltf", Options{StrictPaths: true}); err != nil {
		t.Errorf("strict paths, plain file: %v", err)
	}
	// the source itself may be a link: only its references are confined
	if err := os.Symlink(dir+"/x.gltf", out+"/alias.gltf"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out+"/x.bin", b.bin, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(out+"/alias.gltf", Options{}); err != nil {
		t.Errorf("symlinked source: %v", err)
	}
	if _, err := Load(dir+"/none.gltf", Options{}); err == nil || !strings.HasPrefix(err.Error(), "gltf: "+dir+"/none.gltf: ") {
		t.Errorf("missing file: %v", err)
	}
}

// A file named .glb must be a GLB container: JSON text (or anything else)
// under that name is refused by its magic, as one line, before any JSON
// parsing; the same text named .gltf still parses.
func TestGLBNameNeedsMagic(t *testing.T) {
	text := []byte(`{"asset":{"version":"2.0"}}`)
	for _, data := range [][]byte{text, nil, []byte("gl")} {
		_, err := Decode(fstest.MapFS{"x.GLB": {Data: data}}, "x.GLB", Options{})
		require.Error(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), "gltf: x.GLB: not a GLB (bad magic "), err.Error())
	}
	_, err := Decode(fstest.MapFS{"x.gltf": {Data: text}}, "x.gltf", Options{})
	require.NoError(t, err)
}
