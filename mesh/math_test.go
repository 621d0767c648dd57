package mesh

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Normalize gives unit length even when the float32 square sum is
// subnormal or overflows (importer/gltf's FuzzDecode found a normal of
// length 0.999 from a vector of length ~1e-20), and zero for zero or
// non-finite vectors.
func TestNormalizeExtremes(t *testing.T) {
	for _, v := range []Vec3{
		{7.58e-21, 7.58e-21, -9.99e-21},
		{1e-30, 0, 0},
		{0, 3e-39, 4e-39}, // subnormal components
		{1e20, -1e20, 1e20},
		{3e38, 3e38, 0},
		{0.2, 0.3, -0.9},
	} {
		n := v.Normalize()
		l := math.Sqrt(float64(n[0])*float64(n[0]) + float64(n[1])*float64(n[1]) + float64(n[2])*float64(n[2]))
		assert.InDelta(t, 1, l, 1e-6, "%v → %v", v, n)
	}
	inf := float32(math.Inf(1))
	for _, v := range []Vec3{{}, {inf, 0, 0}, {float32(math.NaN()), 1, 0}} {
		assert.Equal(t, Vec3{}, v.Normalize(), "%v", v)
	}
	// Ordinary vectors keep the float32 path bit for bit.
	v := Vec3{0.2, 0.3, -0.9}
	assert.Equal(t, v.Scale(1/v.Length()), v.Normalize())
}
