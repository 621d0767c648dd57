package msh7

import (
	"bytes"
	"math"
	"reflect"
	"testing"
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
