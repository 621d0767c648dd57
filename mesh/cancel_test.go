package mesh

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callsCtx is a context whose Err is nil for its first n calls and
// context.Canceled after them: it stops a function at its (n+1)th look.
type callsCtx struct {
	context.Context
	left atomic.Int64
}

func afterCalls(n int64) *callsCtx {
	c := &callsCtx{Context: context.Background()}
	c.left.Store(n)
	return c
}

func (c *callsCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// uvGrid is an n×n grid with UVs and no normals or tangents, so every
// step of Canonicalize runs (the tangents generated).
func uvGrid(n int) *Submesh {
	s := &Submesh{Name: "grid"}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			s.Positions = append(s.Positions, Vec3{float32(x), float32(y), float32((x * y) % 3)})
			s.UV0 = append(s.UV0, Vec2{float32(x) / float32(n), float32(y) / float32(n)})
		}
	}
	for y := 0; y+1 < n; y++ {
		for x := 0; x+1 < n; x++ {
			a := uint32(y*n + x)
			s.Indices = append(s.Indices, a, a+1, a+uint32(n)+1, a, a+uint32(n)+1, a+uint32(n))
		}
	}
	return s
}

// CanonicalizeContext looks at its context between its steps, the
// tangent generation's included: stopped at any look it returns an error
// wrapping context.Canceled; given enough looks it is Canonicalize.
func TestCanonicalizeContext(t *testing.T) {
	want := uvGrid(40)
	wantRep, err := Canonicalize(want, CanonicalOptions{})
	require.NoError(t, err)
	require.True(t, wantRep.GeneratedTangents)
	stopped := 0
	for n := int64(0); n < 100; n++ {
		s := uvGrid(40)
		rep, err := CanonicalizeContext(afterCalls(n), s, CanonicalOptions{})
		if err != nil {
			require.ErrorIs(t, err, context.Canceled, "%d looks", n)
			assert.Contains(t, err.Error(), "mesh: ")
			stopped++
			continue
		}
		assert.Equal(t, wantRep, rep)
		assert.True(t, bytes.Equal(encode(want), encode(s)), "%d looks: not Canonicalize's result", n)
		break
	}
	assert.GreaterOrEqual(t, stopped, 8, "looks at the start, between the steps and inside tangent generation")
}
