package msh7

import "math"

// Cone packing (formats.md §4, nwb.md §4).
//
// A meshlet's normal cone is an axis a and a cutoff c, the smallest dot
// product between a and the unit normal of any of its triangles (the
// engine's convention; c ≤ 0 means no cone). The packed word holds
//
//	bits  0-7   unorm8 of the octahedral x of a (x·0.5+0.5)
//	bits  8-15  unorm8 of the octahedral y of a
//	bits 16-23  cutoff, unorm8 rounded down
//	bits 24-31  flags: bit 0 enabled, the rest 0
//
// and the word is 0 when there is no cone. Decoding gives a quantised axis
// â whose angle δ to a is up to about 0.95° (0.943° measured over 200,000
// random directions), so a cutoff measured against a no longer bounds the
// normals around â. PackCone widens it by δ, as the engine's cook does:
// c' = c·d − √(1−c²)·√(1−d²) = cos(θ + δ), where θ = acos c and d = cos δ =
// dot(a, â), takes coneEps off for the engine's float32 decode, and rounds
// down to the 1/255 grid. Every normal within θ of a is within θ + δ of â,
// so the packed cone contains the exact one and culls nothing the exact
// cone would not.

// coneEps is taken off the widened cutoff before rounding down, so the
// engine decoding the axis in float32 (errors ~1e-7) still sees a cone that
// contains every normal.
const coneEps = 1e-6

// ConeEnabled is the flags bit of an enabled cone.
const ConeEnabled = 1 << 24

// unorm8 is floor(saturate(v)·255 + 0.5); NaN gives 0.
func unorm8(v float64) uint32 {
	if !(v > 0) {
		return 0
	}
	if v > 1 {
		v = 1
	}
	return uint32(math.Floor(v*255 + 0.5))
}

// signNonNeg is sign(v) with sign(0) = +1, the fold's convention.
func signNonNeg(v float64) float64 {
	if v < 0 {
		return -1
	}
	return 1
}

// PackAxis octahedral-encodes a direction into the cone word's low 16 bits:
// normalised by its L1 norm, folded when z < 0 (x' = (1-|y|)·sign(x), y' =
// (1-|x|)·sign(y), sign(0) = +1), each coordinate stored as unorm8(v·0.5 +
// 0.5), x in bits 0-7 and y in bits 8-15. +Z packs to 0x8080, and so does a
// degenerate axis (zero, or with a non-finite component).
func PackAxis(a [3]float32) uint16 {
	x, y, z := float64(a[0]), float64(a[1]), float64(a[2])
	l1 := math.Abs(x) + math.Abs(y) + math.Abs(z)
	if !(l1 > 0) || math.IsInf(l1, 0) {
		return 0x8080
	}
	x, y, z = x/l1, y/l1, z/l1
	if z < 0 {
		x, y = (1-math.Abs(y))*signNonNeg(x), (1-math.Abs(x))*signNonNeg(y)
	}
	return uint16(unorm8(x*0.5+0.5) | unorm8(y*0.5+0.5)<<8)
}

// DecodeAxis returns the unit direction the engine decodes from PackAxis
// bits (in float64).
func DecodeAxis(bits uint16) [3]float64 {
	x := float64(bits&255)/255*2 - 1
	y := float64(bits>>8)/255*2 - 1
	z := 1 - math.Abs(x) - math.Abs(y)
	if z < 0 {
		x, y = (1-math.Abs(y))*signNonNeg(x), (1-math.Abs(x))*signNonNeg(y)
	}
	l := math.Sqrt(x*x + y*y + z*z)
	return [3]float64{x / l, y / l, z / l}
}

// PackCone returns the packed cone word for axis and minDot, the smallest
// dot product between the (normalised) axis and any triangle normal.
//
// Contracts:
//   - minDot ≤ 0 or NaN (no useful cone), or a degenerate axis → 0;
//   - otherwise the cutoff is widened by the axis quantisation error and
//     rounded down (see above); when that leaves 0 the word is 0;
//   - a non-zero word has the enabled bit and a non-zero cutoff, and every
//     unit n with dot(n, axis) ≥ minDot has dot(n, â) ≥ the decoded cutoff.
func PackCone(axis [3]float32, minDot float64) uint32 {
	if !(minDot > 0) {
		return 0
	}
	a, ok := unit64(axis)
	if !ok {
		return 0
	}
	c := math.Min(minDot, 1)
	bits := PackAxis(axis)
	q := DecodeAxis(bits)
	d := math.Max(-1, math.Min(1, a[0]*q[0]+a[1]*q[1]+a[2]*q[2]))
	w := c*d - math.Sqrt(1-c*c)*math.Sqrt(1-d*d) - coneEps
	if !(w > 0) {
		return 0
	}
	cut := uint32(math.Floor(math.Min(w, 1) * 255))
	if cut == 0 {
		return 0
	}
	return uint32(bits) | cut<<16 | ConeEnabled
}

// DecodeCone returns the decoded axis â and cutoff (minimum normal dot) of
// a packed cone word, and whether it is enabled.
func DecodeCone(word uint32) (axis [3]float64, cutoff float64, enabled bool) {
	if word&ConeEnabled == 0 {
		return [3]float64{}, 0, false
	}
	return DecodeAxis(uint16(word)), float64(word>>16&255) / 255, true
}

// MinDotFromCutoff converts a meshoptimizer-style cone cutoff (meshlet.Bounds:
// the sine of the normal spread, 1 = no cone) to this format's convention
// (the cosine, the smallest normal dot): √(1 − s²), or 0 (no cone) when s is
// not in [0, 1).
func MinDotFromCutoff(s float32) float64 {
	v := float64(s)
	if !(v >= 0 && v < 1) {
		return 0
	}
	return math.Sqrt(1 - v*v)
}

// Culls reports whether the engine may skip meshlet bounds b for a camera at
// cam: its cone is enabled and the whole sphere lies inside the region where
// every normal within the cone faces away,
//
//	dot(C - cam, â) ≥ √(1 - c²)·|C - cam| + r
//
// (meshoptimizer's apex-free test with the cone's sine as its cutoff).
func (b MeshletBounds) Culls(cam [3]float64) bool {
	a, c, ok := DecodeCone(b.Cone)
	if !ok {
		return false
	}
	return coneCulls(a, c, [3]float64{float64(b.Center[0]), float64(b.Center[1]), float64(b.Center[2])}, float64(b.Radius), cam)
}

func coneCulls(a [3]float64, minDot float64, center [3]float64, radius float64, cam [3]float64) bool {
	v := [3]float64{center[0] - cam[0], center[1] - cam[1], center[2] - cam[2]}
	l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	return v[0]*a[0]+v[1]*a[1]+v[2]*a[2] >= math.Sqrt(1-minDot*minDot)*l+radius
}

// unit64 normalises a in float64; ok is false for a zero or non-finite
// vector.
func unit64(a [3]float32) ([3]float64, bool) {
	x, y, z := float64(a[0]), float64(a[1]), float64(a[2])
	l := math.Sqrt(x*x + y*y + z*z)
	if !(l > 0) || math.IsInf(l, 0) {
		return [3]float64{}, false
	}
	return [3]float64{x / l, y / l, z / l}, true
}
