package gltf

import (
	"encoding/binary"
	"math"
	"runtime"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// bigStrip builds a triangle strip of n vertices (n-2 triangles as a
// list) with float positions, normalized-short normals, float tangents and
// UVs and normalized-byte colours: enough elements for several decode
// chunks, and both the float and the integer decode paths.
func bigStrip(b *builder, n int) obj {
	pos := make([]float32, 0, 3*n)
	tan := make([]float32, 0, 4*n)
	uv := make([]float32, 0, 2*n)
	nrm := make([]byte, 0, 6*n)
	col := make([]byte, 0, 4*n)
	for i := range n {
		x, y := float32(i/2), float32(i%2)
		pos = append(pos, x, y, float32(math.Sin(float64(i)*0.01)))
		tan = append(tan, 1, 0, 0, float32(1-2*(i%3/2)))
		uv = append(uv, x/float32(n), y)
		s := int16(i%2000 - 1000)
		for _, c := range [3]int16{s, 16000, -s / 2} {
			nrm = binary.LittleEndian.AppendUint16(nrm, uint16(c))
		}
		col = append(col, byte(i), byte(i>>8), byte(i>>16), 255)
	}
	idx := make([]byte, 0, 12*n)
	for t := 0; t+2 < n; t++ {
		for _, v := range [3]int{t, t + 1 + t%2, t + 2 - t%2} {
			idx = binary.LittleEndian.AppendUint32(idx, uint32(v))
		}
	}
	return obj{
		"attributes": obj{
			"POSITION":   b.floats("VEC3", pos...),
			"NORMAL":     b.acc(b.view(nrm, 0), 0, cShort, "VEC3", n, true),
			"TANGENT":    b.floats("VEC4", tan...),
			"TEXCOORD_0": b.floats("VEC2", uv...),
			"COLOR_0":    b.acc(b.view(col, 0), 0, cUbyte, "VEC4", n, true),
		},
		"indices": b.acc(b.view(idx, 0), 0, cUint, "SCALAR", 3*(n-2), false),
	}
}

// decodeAt imports data as x.glb with GOMAXPROCS set to procs.
func decodeAt(t *testing.T, data []byte, procs int) (*mesh.Scene, error) {
	t.Helper()
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	return Decode(fstest.MapFS{"x.glb": {Data: data}}, "x.glb", Options{})
}

// Accessors are decoded, and placed primitives transformed, in parallel
// chunks: the scene is the same for every GOMAXPROCS, for a mirrored
// instance (tangent signs and windings flip) and a plain one.
func TestDecodeSameForEveryGOMAXPROCS(t *testing.T) {
	b := newBuilder()
	n := 3*decodeChunk + 7
	m := b.mesh("strip", bigStrip(b, n))
	b.node(obj{"mesh": m, "scale": []float64{-1, 2, 0.5}, "rotation": []float64{0, 0.6, 0, 0.8}})
	b.node(obj{"mesh": m, "translation": []float64{1, 2, 3}})
	data := b.glb(t)
	want, err := decodeAt(t, data, 1)
	require.NoError(t, err)
	require.Len(t, want.Submeshes, 2)
	require.Len(t, want.Submeshes[0].Positions, n)
	for _, procs := range []int{2, 3, 8} {
		got, err := decodeAt(t, data, procs)
		require.NoError(t, err)
		assert.Equal(t, want.Submeshes, got.Submeshes, "GOMAXPROCS %d", procs)
	}
}

// A bad element in a late chunk is reported as a loop in order would:
// the first one, whichever chunk finishes first.
func TestDecodeFirstBadElementForEveryGOMAXPROCS(t *testing.T) {
	n := 3*decodeChunk + 7
	for _, tc := range []struct {
		name  string
		spoil func(b *builder, prim obj)
		want  string
	}{
		{"non-finite position", func(b *builder, prim obj) {
			view := b.views[b.accs[prim["attributes"].(obj)["POSITION"].(int)]["bufferView"].(int)]
			off := view["byteOffset"].(int)
			for _, v := range []int{n - 3, 2*decodeChunk + 5, decodeChunk + 1} {
				binary.LittleEndian.PutUint32(b.bin[off+12*v+4:], math.Float32bits(float32(math.Inf(1))))
			}
		}, "element 32769 is not finite"},
		{"index out of range", func(b *builder, prim obj) {
			view := b.views[b.accs[prim["indices"].(int)]["bufferView"].(int)]
			off := view["byteOffset"].(int)
			for _, c := range []int{3*n - 8, 2*decodeChunk + 9, decodeChunk + 2} {
				binary.LittleEndian.PutUint32(b.bin[off+4*c:], uint32(n+c))
			}
		}, "index 32770 is 131081"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder()
			prim := bigStrip(b, n)
			b.node(obj{"mesh": b.mesh("strip", prim)})
			tc.spoil(b, prim)
			data := b.glb(t)
			for _, procs := range []int{1, 2, 8} {
				_, err := decodeAt(t, data, procs)
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want, "GOMAXPROCS %d", procs)
			}
		})
	}
}
