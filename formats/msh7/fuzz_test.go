package msh7

import (
	"bytes"
	"math"
	"strings"

	"errors"
	"github.com/meshcook/meshcook/mesh"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode: Decode never panics, fails only with ErrFormat, and whatever
// it accepts re-encodes to the same bytes and decodes to the same File.
func FuzzDecode(f *testing.F) {
	for _, in := range []Input{staticQuad(), skinnedQuad(), withMeshlets(sphereInput(4, 8, 1))} {
		f.Add(mustEncode(f, mustBuild(f, in)))
	}
	for _, fx := range []string{"quad.msh7.hex", "skinned_quad.msh7.hex"} {
		f.Add(readHex(f, filepath.Join("testdata", fx)))
	}
	f.Add([]byte("7HSM"))
	f.Add(append([]byte("6HSM"), make([]byte, 116)...))
	f.Add(append([]byte("7HSM"), make([]byte, 116)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		g, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not ErrFormat: %v", err)
			}
			return
		}
		b2, err := Encode(g)
		if len(g.Primitives) == 0 && err != nil {
			require.ErrorContains(t, err, "no triangles", "an empty payload is read, never written")
			return
		}
		if err != nil {
			t.Fatalf("Encode rejected a decoded file: %v", err)
		}
		if !bytes.Equal(b, b2) {
			t.Fatal("re-encoding changed the bytes")
		}
		g2, err := Decode(b2)
		if err != nil || !reflect.DeepEqual(g, g2) {
			t.Fatalf("round trip changed the file: %v", err)
		}
		for m := range g.Meshlets {
			if _, err := g.DecodeRefs(m); err != nil {
				t.Fatalf("accepted file has undecodable meshlet %d: %v", m, err)
			}
		}
	})
}

// FuzzBuild: Build never panics on arbitrary small inputs, and whatever it
// returns encodes, decodes to the same File and decodes every corner back.
func FuzzBuild(f *testing.F) {
	// 3 vertices (static), one meshlet of one triangle.
	f.Add([]byte{2, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 4, 0, 0, 2, 0, 0, 1, 2, 0, 1, 2})
	// 4 skinned vertices, two meshlets.
	f.Add([]byte{3, 1, 0, 0, 0, 0, 4, 0, 0, 0, 4, 4, 0, 4, 0, 4, 0, 0, 3, 1, 0, 1, 2, 3, 0, 1, 2, 0, 2, 3, 2, 0, 0, 1, 2, 0, 1, 9})
	// Degenerate and back-facing triangles, a zero normal.
	f.Add([]byte{3, 0, 0, 0, 0, 5, 0, 0, 0, 3, 8, 8, 0, 1, 0, 8, 0, 2, 3, 2, 3, 2, 1, 0, 0, 0, 0, 1, 3, 2, 1, 0, 3, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		in, ok := fuzzInput(b)
		if !ok {
			return
		}
		g, err := Build(in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "msh7: build: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		enc, err := Encode(g)
		if len(g.Primitives) == 0 {
			require.ErrorContains(t, err, "no triangles", "an empty build is refused, never written")
			return
		}
		if err != nil {
			t.Fatalf("Encode rejected a built file: %v", err)
		}
		g2, err := Decode(enc)
		if err != nil || !reflect.DeepEqual(g, g2) {
			t.Fatalf("built file does not round-trip: %v", err)
		}
	})
}

// fuzzInput reads a small mesh from b: vertex count, a skin flag, then
// per vertex 3 position bytes and a normal selector, then meshlets of
// (vertex count, triangle count, vertex indices, local indices).
func fuzzInput(b []byte) (Input, bool) {
	r := 0
	next := func() (byte, bool) {
		if r >= len(b) {
			return 0, false
		}
		r++
		return b[r-1], true
	}
	nb, ok := next()
	if !ok {
		return Input{}, false
	}
	n := int(nb%32) + 1
	flags, _ := next()
	var in Input
	if flags&1 != 0 {
		in.Skin = &Skin{}
	}
	normals := []mesh.Vec3{{0, 0, 1}, {0, 1, 0}, {1, 0, 0}, {0, 0, -1}, {0.6, 0.8, 0}, {0, 0, 0}}
	for range n {
		var p [4]byte
		for k := range p {
			p[k], _ = next()
		}
		in.Positions = append(in.Positions, mesh.Vec3{float32(int8(p[0])) / 4, float32(int8(p[1])) / 4, float32(int8(p[2])) / 4})
		in.Normals = append(in.Normals, normals[int(p[3])%len(normals)])
		if in.Skin != nil {
			in.Skin.Joints = append(in.Skin.Joints, [4]uint16{uint16(p[0]), uint16(p[1]) << 8, 65535, 0})
			in.Skin.Weights = append(in.Skin.Weights, mesh.Vec4{1, 0, 0, float32(math.Copysign(0, -1))})
		}
	}
	for len(in.Meshlets) < 4 {
		vb, ok1 := next()
		tb, ok2 := next()
		if !ok1 || !ok2 {
			break
		}
		var m InputMeshlet
		for range int(vb%8) + 1 {
			v, _ := next()
			m.Vertices = append(m.Vertices, uint32(v)%uint32(n+1)) // n is out of range
		}
		for range 3 * (int(tb%6) + 1) {
			l, _ := next()
			m.Triangles = append(m.Triangles, l%uint8(len(m.Vertices)+1))
		}
		in.Meshlets = append(in.Meshlets, m)
	}
	return in, true
}
