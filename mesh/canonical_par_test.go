package mesh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A strip long enough for several parallel chunks, with degenerate
// triangles at the start, on chunk seams and at the end: the kept ones come
// out in input order, as a one-pass filter keeps them.
func TestDropDegenerateAcrossChunks(t *testing.T) {
	tris := 3*degenerateChunk + 17
	s := &Submesh{Positions: make([]Vec3, tris+2)}
	for v := range s.Positions {
		s.Positions[v] = Vec3{float32(v / 2), float32(v % 2), 0}
	}
	var want []uint32
	bad := map[int]bool{0: true, degenerateChunk - 1: true, degenerateChunk: true, 2*degenerateChunk + 5: true, tris - 1: true}
	for tr := range tris {
		a, b, c := uint32(tr), uint32(tr+1), uint32(tr+2)
		if bad[tr] {
			c = a // two corners at one position
		} else {
			want = append(want, a, b, c)
		}
		s.Indices = append(s.Indices, a, b, c)
	}
	require.Equal(t, len(bad), DropDegenerate(s))
	assert.Equal(t, want, s.Indices)

	// Nothing to drop: the index buffer is left as it is.
	before := &s.Indices[0]
	require.Equal(t, 0, DropDegenerate(s))
	assert.Same(t, before, &s.Indices[0])
}

// Canonicalize welds a second time only after it generated or replaced
// values; a mesh with good stored normals skips it, and the result is what
// the second weld would have left.
func TestCanonicalizeSecondWeldOnlyWhenNeeded(t *testing.T) {
	for _, s := range []*Submesh{uvSphere(12, 24), cube24()} {
		withNormals := clone(s)
		_, err := Canonicalize(withNormals, CanonicalOptions{NoTangents: true})
		require.NoError(t, err)
		require.NotNil(t, withNormals.Normals)

		// Now stored and unit: nothing is generated, so no second weld.
		again := clone(withNormals)
		r, err := Canonicalize(again, CanonicalOptions{NoTangents: true})
		require.NoError(t, err)
		assert.False(t, r.GeneratedNormals, s.Name)
		welded := clone(again)
		assert.Zero(t, Weld(welded), s.Name)
		assert.Equal(t, encode(welded), encode(again), s.Name)
		assert.Equal(t, encode(withNormals), encode(again), s.Name)
	}
}
