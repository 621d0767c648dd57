package simplify

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seamedGrid is an open n×n grid over z = sin(πy)/4, curved along y
// only, with a UV seam down its middle column: the quads left of it use
// u = x, those right of it u = x + 1, so the column has two wedges. Moving
// a seam vertex along the seam (y) costs curvature; moving it across (x)
// is free, but only Permissive allows that.
func seamedGrid(n int) testMesh {
	var m testMesh
	add := func(i, j int, du float32) uint32 {
		x, y := float64(i)/float64(n), float64(j)/float64(n)
		m.pos = append(m.pos, [3]float32{float32(x), float32(y), float32(math.Sin(math.Pi*y) / 4)})
		m.attrs.UV0 = append(m.attrs.UV0, [2]float32{float32(x) + du, float32(y)})
		return uint32(len(m.pos) - 1)
	}
	left := make([][]uint32, n+1)
	right := make([][]uint32, n+1)
	for j := 0; j <= n; j++ {
		left[j], right[j] = make([]uint32, n+1), make([]uint32, n+1)
		for i := 0; i <= n; i++ {
			switch {
			case i < n/2:
				left[j][i] = add(i, j, 0)
			case i > n/2:
				right[j][i] = add(i, j, 1)
			default:
				left[j][i], right[j][i] = add(i, j, 0), add(i, j, 1)
			}
		}
	}
	for j := range n {
		for i := range n {
			w := left
			if i >= n/2 {
				w = right
			}
			a, b, c, d := w[j][i], w[j][i+1], w[j+1][i+1], w[j+1][i]
			m.idx = append(m.idx, a, b, c, a, c, d)
		}
	}
	return m
}

// straddlers counts the triangles of a seamedGrid with corners from both
// sides of the seam (u < 0.5 and u > 1.5): only a collapse across the
// seam makes one.
func straddlers(m testMesh, idx []uint32) int {
	n := 0
	for i := 0; i+2 < len(idx); i += 3 {
		var l, r bool
		for k := range 3 {
			u := m.attrs.UV0[idx[i+k]][0]
			l, r = l || u < 0.5, r || u > 1.5
		}
		if l && r {
			n++
		}
	}
	return n
}

// By default a seam vertex only moves along its seam; Permissive lets it
// move off the seam, so some triangle then spans it. Either way the
// surface stays unflipped, with its border.
func TestSimplifyPermissiveCrossesUVSeam(t *testing.T) {
	m := seamedGrid(16)
	target := len(m.idx) / 4 / 3 * 3
	for _, permissive := range []bool{false, true} {
		r := mustSimplify(t, m, Options{TargetIndexCount: target, TargetError: 1, Permissive: permissive})
		requireValid(t, m.idx, r.Indices, len(m.pos))
		requireNoFlips(t, m, r.Indices)
		assert.LessOrEqual(t, len(r.Indices), target)
		if permissive {
			assert.Positive(t, straddlers(m, r.Indices), "permissive: no collapse crossed the seam")
		} else {
			assert.Zero(t, straddlers(m, r.Indices), "default: a collapse crossed the seam")
		}
	}
}

// Crossing a seam costs the moved wedges' attribute error: with a heavy UV
// weight and a tight limit, permissive simplification stays off the seam.
func TestSimplifyPermissiveHonoursAttributeError(t *testing.T) {
	m := seamedGrid(16)
	target := len(m.idx) / 4 / 3 * 3
	r := mustSimplify(t, m, Options{TargetIndexCount: target, TargetError: 0.05, Permissive: true, AttributeWeights: Weights{UV: 10}})
	require.LessOrEqual(t, r.Error, float32(0.05))
	assert.Zero(t, straddlers(m, r.Indices))
}

// Permissive output is the same for every GOMAXPROCS and run.
func TestSimplifyPermissiveDeterministic(t *testing.T) {
	m := cylinder(40, 64)
	opts := Options{TargetIndexCount: len(m.idx) / 8 / 3 * 3, TargetError: 1, Permissive: true, AttributeWeights: Weights{Normal: 0.5, UV: 0.5}}
	a := mustSimplify(t, m, opts)
	b := mustSimplify(t, m, opts)
	assert.Equal(t, a, b)
}
