package msh7

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// Round trip: a built sphere encodes, decodes to the same File, re-encodes
// to the same bytes and passes meshcheck.
func TestBuildRoundTrip(t *testing.T) {
	in := withMeshlets(sphereInput(12, 24, 2))
	f := mustBuild(t, in)
	b := mustEncode(t, f)
	g, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Fatal("decoded file differs from the built one")
	}
	if b2 := mustEncode(t, g); !bytes.Equal(b, b2) {
		t.Fatal("re-encoding changed the bytes")
	}
	t.Logf("%d vertices → %d positions, %d normals, %d meshlets, %d bytes",
		len(in.Positions), len(f.Positions), len(f.Normals), len(f.Meshlets), len(b))
}

// Every emitted corner decodes to the source vertex's values.
func TestBuildCornersDecodeToSource(t *testing.T) {
	in := withMeshlets(sphereInput(8, 16, 1.5))
	f := mustBuild(t, in)
	for m, im := range in.Meshlets {
		d := f.Meshlets[m]
		for i, l := range im.Triangles {
			g := im.Vertices[l]
			local := int(f.Primitives[3*int(d.PrimitiveOffset)+i])
			v, err := f.EmulationVertex(m, local, nil)
			if err != nil {
				t.Fatal(err)
			}
			p := in.Positions[g]
			if v.Position != [4]float32{p[0], p[1], p[2], 1} {
				t.Fatalf("meshlet %d corner %d: position %v, want %v", m, i, v.Position, p)
			}
			for k := range 3 {
				if math.Abs(float64(v.Normal[k].Float32()-in.Normals[g][k])) > 1e-3 {
					t.Fatalf("meshlet %d corner %d: normal %v, want %v", m, i, v.Normal, in.Normals[g])
				}
			}
			if v.UV0 != [2]float32(in.UV0[g]) {
				t.Fatalf("meshlet %d corner %d: uv0 %v, want %v", m, i, v.UV0, in.UV0[g])
			}
		}
	}
}

func TestBuildErrors(t *testing.T) {
	quad := staticQuad
	for _, tc := range []struct {
		name string
		edit func(in *Input)
		msg  string
	}{
		{"no normals", func(in *Input) { in.Normals = nil }, "0 normals for 4 positions (normals are required)"},
		{"short tangents", func(in *Input) { in.Tangents = in.Tangents[:3] }, "3 tangents for 4 positions"},
		{"short skin", func(in *Input) {
			in.Skin = &Skin{Joints: make([][4]uint16, 4), Weights: make([]mesh.Vec4, 3)}
		}, "skin: 4 joints and 3 weights for 4 positions"},
		{"empty meshlet", func(in *Input) { in.Meshlets[0].Triangles = nil }, "meshlet 0: 0 triangle indices"},
		{"ragged triangles", func(in *Input) { in.Meshlets[0].Triangles = in.Meshlets[0].Triangles[:4] }, "meshlet 0: 4 triangle indices"},
		{"127 triangles", func(in *Input) {
			in.Meshlets[0].Triangles = bytes.Repeat([]byte{0, 1, 2}, 127)
			in.Indices = nil
		}, "meshlet 0: 381 triangle indices, want 3·(1..126)"},
		{"local index", func(in *Input) { in.Meshlets[0].Triangles[5] = 4 }, "meshlet 0: triangle index 4 (corner 5) not < vertex count 4"},
		{"global index", func(in *Input) { in.Meshlets[0].Vertices[3] = 9 }, "meshlet 0: vertex 9 not < vertex count 4"},
		{"zero normal", func(in *Input) { in.Normals[2] = mesh.Vec3{} }, "vertex 2: normal [0 0 0] is zero or not finite"},
		{"NaN position", func(in *Input) { in.Positions[1][0] = float32(math.NaN()) }, "vertex 1: position [NaN 0 0] is not finite"},
		{"color past half", func(in *Input) {
			in.Colors = []mesh.Vec4{{1, 1, 1, 1}, {1, 1, 1, 1}, {1e5, 1, 1, 1}, {1, 1, 1, 1}}
		}, "vertex 2: color [100000 1 1 1] is not finite in half precision"},
		{"sphere misses", func(in *Input) {
			in.Meshlets[0].Bounds = &SourceBounds{Center: [3]float32{0.5, 0.5, 0}, Radius: 0.7}
		}, "meshlet 0: vertex 0 lies outside its bounds sphere"},
		{"NaN sphere", func(in *Input) {
			in.Meshlets[0].Bounds = &SourceBounds{Radius: float32(math.NaN())}
		}, "meshlet 0: bounds sphere"},
		{"coverage", func(in *Input) { in.Indices = append(in.Indices, 1, 2, 3) }, "meshlets hold 2 triangles, indices have 3"},
		{"coverage order", func(in *Input) { in.Indices = []uint32{0, 2, 1, 0, 2, 3} }, "meshlets do not cover the indices: triangle [0 2 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := quad()
			tc.edit(&in)
			_, err := Build(in)
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "msh7: build: ") {
				t.Fatalf("Build: %v, want %q", err, tc.msg)
			}
		})
	}
	// More than 96 distinct vertices in one meshlet: 126 triangles along
	// one band of a 100-segment sphere touch 128 vertices.
	in := sphereInput(4, 100, 1)
	var big InputMeshlet
	local := map[uint32]uint8{}
	for _, v := range in.Indices[:3*126] {
		l, ok := local[v]
		if !ok {
			l = uint8(len(big.Vertices))
			local[v] = l
			big.Vertices = append(big.Vertices, v)
		}
		big.Triangles = append(big.Triangles, l)
	}
	in.Meshlets, in.Indices = []InputMeshlet{big}, nil
	if _, err := Build(in); err == nil || !strings.Contains(err.Error(), "more than 96 distinct vertices") {
		t.Fatalf("Build with a 97+ vertex meshlet: %v", err)
	}
}

// A caller cone that does not hold the meshlet's normals is narrowed to
// what the normals allow (or dropped), never trusted.
func TestBuildDistrustsWrongCones(t *testing.T) {
	for _, tc := range []struct {
		axis [3]float32
		cut  float32
		on   bool
	}{
		{[3]float32{1, 0, 0}, 0.1, false},   // claims the normals hug +X; the quad faces +Z
		{[3]float32{0.2, 0, 1}, 0.01, true}, // 11° off, claims 0.6°
	} {
		in := staticQuad()
		in.Meshlets[0].Bounds = &SourceBounds{Center: [3]float32{0.5, 0.5, 0}, Radius: 0.71, ConeAxis: tc.axis, ConeCutoff: tc.cut}
		f := mustBuild(t, in)
		q, c, ok := DecodeCone(f.Bounds[0].Cone)
		if ok != tc.on {
			t.Fatalf("axis %v: cone %#08x, enabled %v want %v", tc.axis, f.Bounds[0].Cone, ok, tc.on)
		}
		if ok && q[2] < c {
			t.Fatalf("axis %v: decoded cone (%v, %v) misses the +Z normal", tc.axis, q, c)
		}
	}
}

// Build is deterministic and idempotent on its own output order.
func TestBuildDeterministic(t *testing.T) {
	in := withMeshlets(sphereInput(10, 20, 1))
	a := mustEncode(t, mustBuild(t, in))
	b := mustEncode(t, mustBuild(t, in))
	if !bytes.Equal(a, b) {
		t.Fatal("two builds differ")
	}
}

func TestSubmeshInput(t *testing.T) {
	q := skinnedQuad()
	s := &mesh.Submesh{Positions: q.Positions, Normals: q.Normals, Tangents: q.Tangents, UV0: q.UV0, Indices: q.Indices,
		Joints: q.Skin.Joints, Weights: q.Skin.Weights}
	in := SubmeshInput(s, q.Skin.Skeleton)
	in.Meshlets = q.Meshlets
	a, b := mustEncode(t, mustBuild(t, in)), mustEncode(t, mustBuild(t, q))
	if !bytes.Equal(a, b) {
		t.Fatal("SubmeshInput build differs from the direct one")
	}
	s.Joints, s.Weights = nil, nil
	if in := SubmeshInput(s, q.Skin.Skeleton); in.Skin != nil {
		t.Fatal("static submesh got a skin")
	}
}

// An empty mesh builds to no meshlets (vertices no meshlet references are
// dropped), and Encode refuses it: an empty mesh is never written. The
// reader still accepts the bare header older cooks wrote.
func TestBuildEmpty(t *testing.T) {
	for _, in := range []Input{{}, {Positions: staticQuad().Positions, Normals: staticQuad().Normals}} {
		f := mustBuild(t, in)
		require.Empty(t, f.Positions)
		_, err := Encode(f)
		require.ErrorContains(t, err, "msh7: no triangles: an empty mesh is not written")
	}
	_, err := Decode(append([]byte("7HSM"), make([]byte, HeaderSize-4)...))
	require.NoError(t, err)
}
