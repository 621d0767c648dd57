package hmesh

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

// testMesh describes a mesh for build: shared positions and, per submesh,
// a triangle list of global indices.
type testMesh struct {
	pos        [][3]float32
	subs       [][]uint32
	slots      []uint32 // per submesh
	materials  []uint64
	maxV, maxT uint32
}

// build turns m into a valid File the simple way: meshlets greedily in
// triangle order, AABB-centred spheres, meshoptimizer-style normal cones.
func build(t testing.TB, m testMesh) *File {
	t.Helper()
	f := &File{Materials: m.materials}
	f.Desc.Flags = FlagHasTangents
	f.Desc.MeshletMaxVerts, f.Desc.MeshletMaxTris = m.maxV, m.maxT
	for i, p := range m.pos {
		n := EncodeNormal(p) // outward for shapes around the origin
		f.Vertices = append(f.Vertices, Vertex{
			Position: p,
			Normal:   n,
			Tangent:  EncodeTangent([3]float32{-p[2], 0, p[0]}, i%2 == 1),
			UV:       [2]float32{float32(i%7) / 7, float32(i%5) / 5},
		})
	}
	all := make([]uint32, len(m.pos))
	for i := range all {
		all[i] = uint32(i)
	}
	f.Bounds = boundsOf(m.pos, all)
	for s, idx := range m.subs {
		sm := SubMesh{
			FirstIndex:   uint32(len(f.Indices)),
			IndexCount:   uint32(len(idx)),
			FirstMeshlet: uint32(len(f.Meshlets)),
			MaterialSlot: m.slots[s],
			Bounds:       boundsOf(m.pos, idx),
		}
		f.Indices = append(f.Indices, idx...)
		var local []uint32
		var tris []uint8
		flush := func() {
			if len(tris) == 0 {
				return
			}
			ml := Meshlet{
				VertexOffset:   uint32(len(f.MeshletVertices)),
				VertexCount:    uint32(len(local)),
				TriangleOffset: uint32(len(f.MeshletTriangles) / 3),
				TriangleCount:  uint32(len(tris) / 3),
			}
			f.Meshlets = append(f.Meshlets, ml)
			f.MeshletVertices = append(f.MeshletVertices, local...)
			f.MeshletTriangles = append(f.MeshletTriangles, tris...)
			f.MeshletBounds = append(f.MeshletBounds, meshletBoundsOf(m.pos, local, tris))
			local, tris = nil, nil
		}
		for tIdx := 0; tIdx < len(idx); tIdx += 3 {
			tri := idx[tIdx : tIdx+3]
			added := 0
			for _, g := range tri {
				if indexOf(local, g) < 0 {
					added++
				}
			}
			if uint32(len(local)+added) > m.maxV || uint32(len(tris)/3+1) > m.maxT {
				flush()
			}
			for _, g := range tri {
				l := indexOf(local, g)
				if l < 0 {
					l = len(local)
					local = append(local, g)
				}
				tris = append(tris, uint8(l))
			}
		}
		flush()
		sm.MeshletCount = uint32(len(f.Meshlets)) - sm.FirstMeshlet
		f.Submeshes = append(f.Submeshes, sm)
	}
	f.SyncDesc()
	return f
}

func indexOf(s []uint32, v uint32) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// roundUp returns the smallest float32 >= v.
func roundUp(v float64) float32 {
	r := float32(v)
	if float64(r) < v {
		r = math.Nextafter32(r, float32(math.Inf(1)))
	}
	return r
}

func boundsOf(pos [][3]float32, idx []uint32) Bounds {
	var b Bounds
	if len(idx) == 0 {
		return b
	}
	b.Min, b.Max = pos[idx[0]], pos[idx[0]]
	for _, i := range idx {
		for k := range 3 {
			b.Min[k] = min(b.Min[k], pos[i][k])
			b.Max[k] = max(b.Max[k], pos[i][k])
		}
	}
	for k := range 3 {
		b.Center[k] = (b.Min[k] + b.Max[k]) / 2
	}
	r := 0.0
	for _, i := range idx {
		r = max(r, dist(pos[i], b.Center))
	}
	b.Radius = roundUp(r)
	return b
}

func meshletBoundsOf(pos [][3]float32, local []uint32, tris []uint8) MeshletBounds {
	b := boundsOf(pos, local)
	mb := MeshletBounds{Center: b.Center, Radius: b.Radius, ConeAxis: [3]float32{0, 0, 1}, ConeCutoff: 1}
	var normals [][3]float64
	var sum [3]float64
	for t := 0; t < len(tris); t += 3 {
		p0, p1, p2 := pos[local[tris[t]]], pos[local[tris[t+1]]], pos[local[tris[t+2]]]
		var e1, e2 [3]float64
		for k := range 3 {
			e1[k] = float64(p1[k]) - float64(p0[k])
			e2[k] = float64(p2[k]) - float64(p0[k])
		}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l == 0 {
			continue
		}
		for k := range 3 {
			n[k] /= l
			sum[k] += n[k]
		}
		normals = append(normals, n)
	}
	l := math.Sqrt(sum[0]*sum[0] + sum[1]*sum[1] + sum[2]*sum[2])
	if len(normals) == 0 || l == 0 {
		return mb
	}
	axis := [3]float64{sum[0] / l, sum[1] / l, sum[2] / l}
	mindp := 1.0
	for _, n := range normals {
		mindp = min(mindp, n[0]*axis[0]+n[1]*axis[1]+n[2]*axis[2])
	}
	if mindp <= 0.1 {
		return mb
	}
	mb.ConeAxis = [3]float32{float32(axis[0]), float32(axis[1]), float32(axis[2])}
	mb.ConeCutoff = roundUp(math.Sqrt(1 - mindp*mindp))
	return mb
}

// sphereMesh is a UV sphere band (poles cut off) of radius r split into
// three latitude submeshes; the last one has no material.
func sphereMesh(rings, segs int, r float32, maxV, maxT uint32) testMesh {
	m := testMesh{maxV: maxV, maxT: maxT, materials: []uint64{0x1111, 0x2222}, slots: []uint32{1, 0, NoMaterial}}
	for i := 0; i <= rings; i++ {
		th := 0.3 + (math.Pi-0.6)*float64(i)/float64(rings)
		for j := 0; j < segs; j++ {
			ph := 2 * math.Pi * float64(j) / float64(segs)
			m.pos = append(m.pos, [3]float32{
				r * float32(math.Cos(ph)*math.Sin(th)),
				r * float32(math.Cos(th)),
				r * float32(math.Sin(ph)*math.Sin(th)),
			})
		}
	}
	m.subs = make([][]uint32, 3)
	for i := 0; i < rings; i++ {
		s := i * 3 / rings
		for j := 0; j < segs; j++ {
			a := uint32(i*segs + j)
			b := uint32(i*segs + (j+1)%segs)
			c, d := a+uint32(segs), b+uint32(segs)
			// outward-facing (counter-clockwise seen from outside)
			m.subs[s] = append(m.subs[s], a, b, c, b, d, c)
		}
	}
	return m
}

// triFile is the smallest valid mesh: one triangle, one meshlet, one submesh.
func triFile() *File {
	return &File{
		Desc:   Desc{Flags: FlagHasTangents, MeshletMaxVerts: 64, MeshletMaxTris: 124},
		Bounds: Bounds{Min: [3]float32{0, 0, 0}, Max: [3]float32{1, 1, 0}, Center: [3]float32{0.5, 0.5, 0}, Radius: 0.70710677},
		Vertices: []Vertex{
			{Position: [3]float32{0, 0, 0}, Normal: EncodeNormal([3]float32{0, 0, 1}), Tangent: EncodeTangent([3]float32{1, 0, 0}, false), UV: [2]float32{0, 1}},
			{Position: [3]float32{1, 0, 0}, Normal: EncodeNormal([3]float32{0, 0, 1}), Tangent: EncodeTangent([3]float32{1, 0, 0}, false), UV: [2]float32{1, 1}},
			{Position: [3]float32{0, 1, 0}, Normal: EncodeNormal([3]float32{0, 0, 1}), Tangent: EncodeTangent([3]float32{1, 0, 0}, true), UV: [2]float32{0, 0}},
		},
		Indices:          []uint32{0, 1, 2},
		Meshlets:         []Meshlet{{0, 3, 0, 1}},
		MeshletVertices:  []uint32{0, 1, 2},
		MeshletTriangles: []uint8{0, 1, 2},
		MeshletBounds:    []MeshletBounds{{Center: [3]float32{0.5, 0.5, 0}, Radius: 0.70710677, ConeAxis: [3]float32{0, 0, 1}, ConeCutoff: 0}},
		Materials:        []uint64{0x0123456789abcdef},
		Submeshes: []SubMesh{{IndexCount: 3, MeshletCount: 1, MaterialSlot: 0,
			Bounds: Bounds{Min: [3]float32{0, 0, 0}, Max: [3]float32{1, 1, 0}, Center: [3]float32{0.5, 0.5, 0}, Radius: 0.70710677}}},
	}
}

// richFile has three submeshes, many meshlets, skinning and LODs.
func richFile(t testing.TB) *File {
	f := build(t, sphereMesh(9, 16, 2, 16, 12))
	f.Joints = []Joint{
		{InverseBind: identity(), BindR: [4]float32{0, 0, 0, 1}, BindS: [3]float32{1, 1, 1}, Parent: -1},
		{InverseBind: identity(), BindT: [3]float32{0, 1, 0}, BindR: [4]float32{0, 0, 0, 1}, BindS: [3]float32{1, 1, 1}, Parent: 0},
		{InverseBind: identity(), BindT: [3]float32{0, -1, 0}, BindR: [4]float32{0, 0.70710677, 0, 0.70710677}, BindS: [3]float32{1, 1, 1}, Parent: 0},
	}
	for i, v := range f.Vertices {
		w := (v.Position[1] + 2) / 4
		f.Skin = append(f.Skin, SkinVertex{Joints: [4]uint16{1, 2, uint16(i % 3), 0}, Weights: [4]float32{w, 1 - w, 0, 0}})
	}
	f.LodCount = 2
	for _, sm := range f.Submeshes {
		idx := f.Indices[sm.FirstIndex : sm.FirstIndex+sm.IndexCount]
		half := idx[:len(idx)/6*3]
		f.Lods = append(f.Lods, MeshLod{uint32(len(f.LodIndices)), uint32(len(half))})
		f.LodIndices = append(f.LodIndices, half...)
		f.Lods = append(f.Lods, MeshLod{0, 0}) // stalled
	}
	return f
}

func identity() [16]float32 {
	return [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
}

// meshcheck writes b to a temp file and runs tools/meshcheck.py on it,
// failing the test when the checker rejects it.
func meshcheck(t *testing.T, name string, b []byte) {
	t.Helper()
	script := testkit.Meshcheck(t)
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("meshcheck rejected %s: %v\n%s", name, err, out)
	}
	if !strings.HasPrefix(string(out), "ok") {
		t.Fatalf("meshcheck output: %s", out)
	}
}
