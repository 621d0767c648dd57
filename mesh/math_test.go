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

// AxisPerpendicular is built from PlaceholderTangent now; its bits are
// those of the formula it had before (kept here).
func TestAxisPerpendicularBitsUnchanged(t *testing.T) {
	before := func(n Vec3) Vec3 {
		x, y, z := math.Abs(float64(n[0])), math.Abs(float64(n[1])), math.Abs(float64(n[2]))
		var a [3]float64
		switch {
		case x <= y && x <= z:
			a = [3]float64{1, 0, 0}
		case y <= z:
			a = [3]float64{0, 1, 0}
		default:
			a = [3]float64{0, 0, 1}
		}
		nx, ny, nz := float64(n[0]), float64(n[1]), float64(n[2])
		t := [3]float64{a[1]*nz - a[2]*ny, a[2]*nx - a[0]*nz, a[0]*ny - a[1]*nx}
		l := math.Sqrt(t[0]*t[0] + t[1]*t[1] + t[2]*t[2])
		if !(l > 0) {
			return Vec3{1, 0, 0}
		}
		return Vec3{float32(t[0] / l), float32(t[1] / l), float32(t[2] / l)}
	}
	normals := []Vec3{{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0, -1, 0}, {1, 1, 1}, {-1, 1, 0}, {}, {float32(math.NaN()), 0, 1}}
	for i := range 20000 {
		f := float64(i)
		normals = append(normals, Vec3{float32(math.Sin(f * 1.7)), float32(math.Cos(f * 0.3)), float32(math.Sin(f*0.11) - 0.5)})
	}
	for _, n := range normals {
		got, want := AxisPerpendicular(n), before(n)
		for k := range got {
			assert.Equal(t, math.Float32bits(want[k]), math.Float32bits(got[k]), "normal %v", n)
		}
	}
}
