package mesh

import (
	"math/rand/v2"
	"runtime"
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

// dupSoup is a triangle soup of about n vertices, each written out once
// per corner, over a few hundred distinct values per stream and in a
// shuffled order, with some vertices no triangle uses: the weld has
// duplicates in every hash range to find, first referenced anywhere.
func dupSoup(n int, skinned, morphed bool) *Submesh {
	r := rand.New(rand.NewPCG(18, 1))
	s := &Submesh{Name: "soup"}
	if morphed {
		s.Morphs = []MorphTarget{{Name: "m", Positions: []Vec3{}, Normals: []Vec3{}}}
	}
	for range n {
		p := r.IntN(300)
		s.Positions = append(s.Positions, Vec3{float32(p % 7), float32(p % 11), float32(p % 13)})
		s.Normals = append(s.Normals, Vec3{0, 0, float32(1 - 2*r.IntN(2))})
		if skinned {
			s.Joints = append(s.Joints, [4]uint16{uint16(r.IntN(2)), 0, 0, 0})
			s.Weights = append(s.Weights, Vec4{1, 0, 0, 0})
		}
		if morphed {
			d := Vec3{float32(r.IntN(2)), 0, 0}
			s.Morphs[0].Positions = append(s.Morphs[0].Positions, d)
			s.Morphs[0].Normals = append(s.Morphs[0].Normals, d)
		}
	}
	for range n / 3 {
		s.Indices = append(s.Indices, uint32(r.IntN(n)), uint32(r.IntN(n)), uint32(r.IntN(n)))
	}
	return s
}

// referenceWeld is Weld written as its definition: corners in order, a
// map from key to the new number of the first vertex with that key.
func referenceWeld(s *Submesh) {
	newOf := map[weldKey]uint32{}
	var src, idx []uint32
	for _, v := range s.Indices {
		k := s.weldKey(v)
		nv, ok := newOf[k]
		if !ok {
			nv = uint32(len(src))
			newOf[k] = nv
			src = append(src, v)
		}
		idx = append(idx, nv)
	}
	s.gather(src)
	s.Indices = idx
}

// Weld groups equal vertices in parallel (by hash ranges, one per
// goroutine): the result is its definition's for every GOMAXPROCS, with
// and without skin streams and morph deltas (which take weldKey's hash).
func TestWeldSameForEveryGOMAXPROCS(t *testing.T) {
	for _, tc := range []struct{ skinned, morphed bool }{{false, false}, {true, false}, {false, true}} {
		src := dupSoup(3*weldChunk+11, tc.skinned, tc.morphed)
		want := clone(src)
		referenceWeld(want)
		require.Less(t, len(want.Positions), len(src.Positions)/10, "the soup has duplicates")
		for _, procs := range []int{1, 2, 3, 8} {
			prev := runtime.GOMAXPROCS(procs)
			got := clone(src)
			removed := Weld(got)
			runtime.GOMAXPROCS(prev)
			assert.Equal(t, len(src.Positions)-len(want.Positions), removed, "GOMAXPROCS %d %+v", procs, tc)
			assert.Equal(t, encode(want), encode(got), "GOMAXPROCS %d %+v", procs, tc)
		}
	}
}

// Canonicalize (stored-stream normalisation and Validate in chunks, the
// weld) gives the same bytes for every GOMAXPROCS, and Validate reports
// the first bad element in order.
func TestCanonicalizeSameForEveryGOMAXPROCS(t *testing.T) {
	src := uvGrid(300)
	src.Normals = make([]Vec3, len(src.Positions))
	for i := range src.Normals {
		src.Normals[i] = Vec3{float32(i % 5), 1, 2} // not unit: normalised
	}
	src.Normals[2*validateChunk+3] = Vec3{} // repaired
	var want []byte
	for _, procs := range []int{1, 2, 3, 8} {
		prev := runtime.GOMAXPROCS(procs)
		got := clone(src)
		_, err := Canonicalize(got, CanonicalOptions{NoTangents: true})
		bad := clone(src)
		bad.Indices[len(bad.Indices)-5] = uint32(len(bad.Positions))
		bad.Indices[validateChunk+7] = uint32(len(bad.Positions) + 1)
		badErr := bad.Validate()
		runtime.GOMAXPROCS(prev)
		require.NoError(t, err)
		if want == nil {
			want = encode(got)
		}
		assert.Equal(t, want, encode(got), "GOMAXPROCS %d", procs)
		require.ErrorIs(t, badErr, ErrInvalidSubmesh)
		assert.Contains(t, badErr.Error(), "index 90001 at 32775 out of range", "GOMAXPROCS %d", procs)
	}
}
