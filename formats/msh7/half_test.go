package msh7

import (
	"math"
	"testing"
)

// HalfOf rounds to nearest, ties to even, through subnormals and overflow.
func TestHalfOf(t *testing.T) {
	for _, tc := range []struct {
		f    float32
		want Half
	}{
		{1, 0x3C00},
		{-2, 0xC000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{65504, 0x7BFF},                       // largest finite
		{65519, 0x7BFF},                       // below the midpoint
		{65520, 0x7C00},                       // midpoint rounds to even: infinity
		{1 + 1.0/2048, 0x3C00},                // tie between 1 and 1+2^-10 → even (1)
		{1 + 3.0/2048, 0x3C02},                // tie → even (1+2^-9)
		{float32(math.Ldexp(1, -24)), 0x0001}, // smallest subnormal
		{float32(math.Ldexp(1, -25)), 0x0000}, // half of it: tie → even (0)
		{float32(math.Ldexp(3, -25)), 0x0002}, // 1.5 ulp: tie → even (2)
		{float32(math.Ldexp(1, -14)), 0x0400}, // smallest normal
		{float32(math.Inf(-1)), 0xFC00},
	} {
		if got := HalfOf(tc.f); got != tc.want {
			t.Errorf("HalfOf(%g) = %#04x, want %#04x", tc.f, got, tc.want)
		}
		if !math.IsInf(float64(tc.f), 0) && tc.want&0x7C00 != 0x7C00 && HalfOf(tc.f).Float32() != HalfOf(HalfOf(tc.f).Float32()).Float32() {
			t.Errorf("HalfOf(%g) does not round-trip", tc.f)
		}
	}
	if h := HalfOf(float32(math.NaN())); h&0x7C00 != 0x7C00 || h&0x3FF == 0 {
		t.Errorf("HalfOf(NaN) = %#04x, want a NaN", h)
	}
}
