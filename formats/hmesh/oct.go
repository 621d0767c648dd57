package hmesh

import (
	"math"

	"github.com/meshcook/meshcook/mesh"
)

// Octahedral unit-vector encoding (Cigolle et al. 2014, "A Survey of
// Efficient Representations for Independent Unit Vectors"; the layout
// meshoptimizer's meshopt_encodeOct uses): project onto the octahedron
// |x|+|y|+|z| = 1, fold the lower hemisphere over the diagonals, store x and y
// as SNORM16 (value × 32767). The encoder tries the neighbouring quantized
// points and keeps the one that decodes closest to the input, which keeps the
// angular error under about 3e-5 rad.

const octScale = 32767

// octDecode64 is the reference decoder; it matches tools/meshcheck.py's
// oct_decode operation for operation (float64, sign(0) = +1).
func octDecode64(x, y int32) [3]float64 {
	fx, fy, fz := octFold(float64(x)/octScale, float64(y)/octScale)
	n := math.Sqrt(fx*fx + fy*fy + fz*fz)
	if n == 0 {
		return [3]float64{}
	}
	return [3]float64{fx / n, fy / n, fz / n}
}

// octFold is the point of the octahedron that the coordinates (fx, fy)
// = (x, y)/octScale stand for, before it is normalized.
func octFold(fx, fy float64) (float64, float64, float64) {
	fz := 1 - math.Abs(fx) - math.Abs(fy)
	if fz < 0 {
		fx, fy = (1-math.Abs(fy))*signNonNeg(fx), (1-math.Abs(fx))*signNonNeg(fy)
	}
	return fx, fy, fz
}

func signNonNeg(v float64) float64 {
	if v >= 0 {
		return 1
	}
	return -1
}

// octProject returns the unquantized octahedral coordinates of v in [-1, 1]²,
// scaled by octScale, and the normalized v. A zero or non-finite v projects
// to +Z.
func octProject(v [3]float32) (px, py float64, u [3]float64) {
	x, y, z := float64(v[0]), float64(v[1]), float64(v[2])
	l1 := math.Abs(x) + math.Abs(y) + math.Abs(z)
	if !(l1 > 0) || math.IsInf(l1, 0) {
		return 0, 0, [3]float64{0, 0, 1}
	}
	n := math.Sqrt(x*x + y*y + z*z)
	u = [3]float64{x / n, y / n, z / n}
	x, y, z = x/l1, y/l1, z/l1
	if z < 0 {
		x, y = (1-math.Abs(y))*signNonNeg(x), (1-math.Abs(x))*signNonNeg(y)
	}
	return x * octScale, y * octScale, u
}

func clampOct(v float64) int32 {
	return int32(max(-octScale, min(octScale, v)))
}

// octMargin is how far the best candidate's quick dot must lead every
// other's for octBest to keep it without computing the exact dots. The
// quick dot (f·u)/|f| (one division) and octDecode64's (f/|f|)·u are each
// a few float64 roundings of a sum of terms at most 1 in size, so they
// differ by less than 1e-15: a lead of 1e-12 in quick dots is a strict
// lead in exact ones. Neighbouring candidates' dots differ by ~1e-10, so
// few vectors need the exact pass.
const octMargin = 1e-12

// octBest picks, among the given x and y candidates, the pair whose decode
// is closest to u (the first such pair in x-major order on a tie). It
// ranks the candidates by quick dots and, unless the best leads by
// octMargin, by octBestExact, whose choice it always is.
func octBest(xs, ys []int32, u [3]float64) [2]int16 {
	// A repeated candidate decodes alike, so it never replaces the first.
	if len(xs) == 2 && xs[0] == xs[1] {
		xs = xs[:1]
	}
	if len(ys) == 2 && ys[0] == ys[1] {
		ys = ys[:1]
	}
	var fys [2]float64
	for j, y := range ys {
		fys[j] = float64(y) / octScale
	}
	best, bestDot, second := [2]int16{}, math.Inf(-1), math.Inf(-1)
	for _, x := range xs {
		fx0 := float64(x) / octScale
		for j, y := range ys {
			fx, fy, fz := octFold(fx0, fys[j])
			dot := 0.0
			if n := math.Sqrt(fx*fx + fy*fy + fz*fz); n != 0 {
				dot = (fx*u[0] + fy*u[1] + fz*u[2]) / n
			}
			switch {
			case dot > bestDot:
				best, bestDot, second = [2]int16{int16(x), int16(y)}, dot, bestDot
			case dot > second:
				second = dot
			}
		}
	}
	if bestDot-second > octMargin {
		return best
	}
	return octBestExact(xs, ys, u)
}

// octBestExact is octBest by the reference decoder's dots.
func octBestExact(xs, ys []int32, u [3]float64) [2]int16 {
	best, bestDot := [2]int16{}, math.Inf(-1)
	for _, x := range xs {
		for _, y := range ys {
			d := octDecode64(x, y)
			dot := d[0]*u[0] + d[1]*u[1] + d[2]*u[2]
			if dot > bestDot {
				best, bestDot = [2]int16{int16(x), int16(y)}, dot
			}
		}
	}
	return best
}

// EncodeNormal encodes a direction (normalized here; it need not be unit) as
// octahedral SNORM16. A zero or non-finite vector encodes as +Z.
func EncodeNormal(n [3]float32) [2]int16 {
	px, py, u := octProject(n)
	xs := []int32{clampOct(math.Floor(px)), clampOct(math.Ceil(px))}
	ys := []int32{clampOct(math.Floor(py)), clampOct(math.Ceil(py))}
	return octBest(xs, ys, u)
}

// DecodeNormal decodes an octahedral SNORM16 normal to a unit vector. It
// matches tools/meshcheck.py's oct_decode (computed in float64, then rounded
// to float32).
func DecodeNormal(v [2]int16) [3]float32 {
	d := octDecode64(int32(v[0]), int32(v[1]))
	return [3]float32{float32(d[0]), float32(d[1]), float32(d[2])}
}

// EncodeTangent encodes a tangent direction like EncodeNormal and stores the
// bitangent sign in bit 0 of x (1 = negative bitangent, glTF tangent.w = -1).
// The encoder only considers x values of the right parity, so the stored x is
// still the best quantization with that parity: decoding x as is (bit
// included) is within about 1e-4 rad of t. Shaders read the slot as SINT:
// sign = (x & 1) != 0 ? -1 : 1, direction = octDecode(x/32767, y/32767).
func EncodeTangent(t [3]float32, negativeBitangent bool) [2]int16 {
	px, py, u := octProject(t)
	want := int32(0)
	if negativeBitangent {
		want = 1
	}
	// The two integers of parity want nearest to px, kept inside the range
	// (±32767 are odd, so an even x stays within ±32766).
	lo := int32(math.Floor(px))
	if lo&1 != want {
		lo--
	}
	xs := make([]int32, 0, 2)
	for _, x := range [2]int32{lo, lo + 2} {
		for x > octScale {
			x -= 2
		}
		for x < -octScale {
			x += 2
		}
		xs = append(xs, x)
	}
	ys := []int32{clampOct(math.Floor(py)), clampOct(math.Ceil(py))}
	return octBest(xs, ys, u)
}

// DecodeTangent decodes a tangent slot written by EncodeTangent: the unit
// tangent direction (x decoded as stored) and the bitangent sign bit.
func DecodeTangent(v [2]int16) (t [3]float32, negativeBitangent bool) {
	return DecodeNormal(v), v[0]&1 != 0
}

// PlaceholderTangent returns the tangent slot meshcook writes for a mesh
// without tangents (Desc.Flags bit 0 clear): a unit vector perpendicular to
// the normal n, sign bit 0, chosen deterministically (n crossed with the
// coordinate axis n is least aligned with). Readers ignore it; it exists so
// the slot always decodes to a valid direction.
func PlaceholderTangent(n [3]float32) [2]int16 {
	t := mesh.PlaceholderTangent([3]float64{float64(n[0]), float64(n[1]), float64(n[2])})
	return EncodeTangent([3]float32{float32(t[0]), float32(t[1]), float32(t[2])}, false)
}
