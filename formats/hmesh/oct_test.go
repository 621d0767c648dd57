package hmesh

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

func angle(a [3]float32, b [3]float64) float64 {
	la := math.Sqrt(float64(a[0])*float64(a[0]) + float64(a[1])*float64(a[1]) + float64(a[2])*float64(a[2]))
	lb := math.Sqrt(b[0]*b[0] + b[1]*b[1] + b[2]*b[2])
	d := (float64(a[0])*b[0] + float64(a[1])*b[1] + float64(a[2])*b[2]) / (la * lb)
	// acos is ill-conditioned near 1; use the cross product too.
	cx := float64(a[1])*b[2] - float64(a[2])*b[1]
	cy := float64(a[2])*b[0] - float64(a[0])*b[2]
	cz := float64(a[0])*b[1] - float64(a[1])*b[0]
	return math.Atan2(math.Sqrt(cx*cx+cy*cy+cz*cz)/(la*lb), d)
}

func randomUnit(r *rand.Rand) [3]float64 {
	for {
		v := [3]float64{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1}
		l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		if l > 0.1 && l <= 1 {
			return [3]float64{v[0] / l, v[1] / l, v[2] / l}
		}
	}
}

// Why: octahedral SNORM16 must keep directions to ~1e-4 rad, and the tangent
// sign bit must survive without hurting the direction much.
func TestOctahedralPrecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var worstN, worstT float64
	for i := range 20000 {
		u := randomUnit(r)
		if i < 26 { // axes, edges and corners of the octahedron's folds
			u = [3]float64{float64(i%3 - 1), float64(i/3%3 - 1), float64(i/9%3 - 1)}
			if u == [3]float64{} {
				continue
			}
		}
		in := [3]float32{float32(u[0]), float32(u[1]), float32(u[2])}
		n := DecodeNormal(EncodeNormal(in))
		worstN = max(worstN, angle(n, u))
		neg := r.IntN(2) == 1
		tv, gotNeg := DecodeTangent(EncodeTangent(in, neg))
		if gotNeg != neg {
			t.Fatalf("tangent %v sign %v decoded as %v", in, neg, gotNeg)
		}
		worstT = max(worstT, angle(tv, u))
		if l := math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])); math.Abs(l-1) > 1e-6 {
			t.Fatalf("decoded normal length %g", l)
		}
	}
	if worstN > 5e-5 {
		t.Errorf("worst normal error %.3g rad, want <= 5e-5", worstN)
	}
	if worstT > 1e-4 {
		t.Errorf("worst tangent error %.3g rad, want <= 1e-4", worstT)
	}
	t.Logf("worst angular error: normal %.3g rad, tangent %.3g rad", worstN, worstT)
}

func TestOctahedralEdgeCases(t *testing.T) {
	if got := EncodeNormal([3]float32{}); got != [2]int16{0, 0} {
		t.Errorf("zero vector encodes as %v, want +Z (0,0)", got)
	}
	if got := EncodeNormal([3]float32{float32(math.NaN()), 0, 0}); got != [2]int16{0, 0} {
		t.Errorf("NaN encodes as %v", got)
	}
	// Non-unit input is normalized.
	if a, b := EncodeNormal([3]float32{3, 4, -5}), EncodeNormal([3]float32{0.3, 0.4, -0.5}); a != b {
		t.Errorf("scale changes encoding: %v vs %v", a, b)
	}
	// Bit 0 of x carries the sign even for extreme x.
	for _, v := range [][3]float32{{1, 0, 0}, {-1, 0, 0}, {0, 0, -1}, {0.7071, 0, -0.7071}} {
		for _, neg := range []bool{false, true} {
			e := EncodeTangent(v, neg)
			if (e[0]&1 != 0) != neg || e[0] < -32767 {
				t.Errorf("EncodeTangent(%v, %v) = %v", v, neg, e)
			}
		}
	}
	// Every int16 pair decodes to unit length (meshcheck requires it of normals).
	for _, x := range []int16{-32768, -32767, -1, 0, 1, 32767} {
		for _, y := range []int16{-32768, -16384, 0, 16384, 32767} {
			n := DecodeNormal([2]int16{x, y})
			if l := math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])); math.Abs(l-1) > 1e-6 {
				t.Errorf("DecodeNormal(%d, %d) length %g", x, y, l)
			}
		}
	}
}

// Why: the spec's decoder is meshcheck's oct_decode; ours must agree with it
// value for value, not just in spirit.
func TestDecodeNormalMatchesMeshcheck(t *testing.T) {
	script := testkit.Meshcheck(t)
	r := rand.New(rand.NewPCG(3, 4))
	var pairs [][2]int16
	for range 200 {
		pairs = append(pairs, [2]int16{int16(r.IntN(65536) - 32768), int16(r.IntN(65536) - 32768)})
	}
	pairs = append(pairs, [2]int16{0, 0}, [2]int16{32767, 0}, [2]int16{-32768, -32768}, [2]int16{16384, -16384})
	var in strings.Builder
	for _, p := range pairs {
		fmt.Fprintf(&in, "%d %d\n", p[0], p[1])
	}
	prog := "import sys; sys.path.insert(0, sys.argv[1]); import meshcheck\n" +
		"for l in sys.stdin:\n x, y = map(int, l.split()); print(*('%r' % v for v in meshcheck.oct_decode(x, y)))"
	cmd := exec.Command("python3", "-c", prog, filepath.Dir(script))
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(pairs) {
		t.Fatalf("%d lines for %d pairs", len(lines), len(pairs))
	}
	for i, p := range pairs {
		var want [3]float64
		if _, err := fmt.Sscan(lines[i], &want[0], &want[1], &want[2]); err != nil {
			t.Fatal(err)
		}
		if got := octDecode64(int32(p[0]), int32(p[1])); got != want {
			t.Errorf("oct_decode(%v): go %v, python %v", p, got, want)
		}
		got32 := DecodeNormal(p)
		for k := range 3 {
			if got32[k] != float32(want[k]) {
				t.Errorf("DecodeNormal(%v)[%d] = %v, want float32(%v)", p, k, got32[k], want[k])
			}
		}
	}
}

func TestPlaceholderTangent(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		u := randomUnit(r)
		if i < 6 {
			u = [3]float64{}
			u[i/2] = float64(1 - 2*(i%2))
		}
		n := [3]float32{float32(u[0]), float32(u[1]), float32(u[2])}
		tv, neg := DecodeTangent(PlaceholderTangent(n))
		if neg {
			t.Fatalf("placeholder for %v has the sign bit set", n)
		}
		dot := float64(tv[0])*u[0] + float64(tv[1])*u[1] + float64(tv[2])*u[2]
		if math.Abs(dot) > 2e-4 {
			t.Fatalf("placeholder for %v: dot with normal %g", n, dot)
		}
	}
	first, again := PlaceholderTangent([3]float32{}), PlaceholderTangent([3]float32{})
	if first != again {
		t.Fatal("not deterministic")
	}
}

// The placeholder tangent comes from mesh.PlaceholderTangent now; its
// slot bits are those of the formula .hmesh wrote before (kept here), for
// axis-aligned, tied and random normals.
func TestPlaceholderTangentBitsUnchanged(t *testing.T) {
	before := func(n [3]float32) [2]int16 {
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
		return EncodeTangent([3]float32{float32(a[1]*nz - a[2]*ny), float32(a[2]*nx - a[0]*nz), float32(a[0]*ny - a[1]*nx)}, false)
	}
	normals := [][3]float32{{0, 0, 1}, {0, 0, -1}, {1, 0, 0}, {0, -1, 0}, {1, 1, 1}, {-1, 1, 0}, {0, 0, 0}}
	r := rand.New(rand.NewPCG(7, 7))
	for range 20000 {
		normals = append(normals, [3]float32{float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())})
	}
	for _, n := range normals {
		if got, want := PlaceholderTangent(n), before(n); got != want {
			t.Fatalf("normal %v: slot %v, before %v", n, got, want)
		}
	}
}

// Why: octBest ranks candidates by quick dots and falls back to the
// reference decoder's only when the lead is under octMargin; its choice
// must be octBestExact's for every input, so the bytes never change:
// random directions, axes and octant seams, grids of quantized points
// (whose candidates repeat or tie), with both tangent parities.
func TestOctBestMatchesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 3))
	var dirs [][3]float32
	for range 200000 {
		u := randomUnit(r)
		dirs = append(dirs, [3]float32{float32(u[0]), float32(u[1]), float32(u[2])})
	}
	for _, a := range []float32{0, 1, -1, 0.5, -0.5, 1e-8, -1e-8} {
		for _, b := range []float32{0, 1, -1, 0.5, -0.5, 1e-8} {
			for _, c := range []float32{0, 1, -1, 0.25, -1e-8} {
				dirs = append(dirs, [3]float32{a, b, c})
			}
		}
	}
	for x := int32(-octScale); x <= octScale; x += 997 {
		for y := int32(-octScale); y <= octScale; y += 1009 {
			d := octDecode64(x, y)
			dirs = append(dirs, [3]float32{float32(d[0]), float32(d[1]), float32(d[2])})
		}
	}
	exactNormal := func(v [3]float32) [2]int16 {
		px, py, u := octProject(v)
		return octBestExact([]int32{clampOct(math.Floor(px)), clampOct(math.Ceil(px))},
			[]int32{clampOct(math.Floor(py)), clampOct(math.Ceil(py))}, u)
	}
	fallbacks := 0
	for _, v := range dirs {
		if got, want := EncodeNormal(v), exactNormal(v); got != want {
			t.Fatalf("EncodeNormal(%v) = %v, the exact ranking gives %v", v, got, want)
		}
		_, _, u := octProject(v)
		for _, neg := range []bool{false, true} {
			got := EncodeTangent(v, neg)
			// the same candidates, ranked exactly
			px, py, _ := octProject(v)
			lo, parity := int32(math.Floor(px)), int32(0)
			if neg {
				parity = 1
			}
			if lo&1 != parity {
				lo--
			}
			xs := []int32{lo, lo + 2}
			for i := range xs {
				for xs[i] > octScale {
					xs[i] -= 2
				}
				for xs[i] < -octScale {
					xs[i] += 2
				}
			}
			if want := octBestExact(xs, []int32{clampOct(math.Floor(py)), clampOct(math.Ceil(py))}, u); got != want {
				t.Fatalf("EncodeTangent(%v, %v) = %v, the exact ranking gives %v", v, neg, got, want)
			}
		}
		if quickLead(v) <= octMargin {
			fallbacks++
		}
	}
	if fallbacks == 0 {
		t.Fatal("no input took the exact pass: the fallback is untested")
	}
}

// quickLead is how far EncodeNormal's best quick dot leads the next.
func quickLead(v [3]float32) float64 {
	px, py, u := octProject(v)
	best, second := math.Inf(-1), math.Inf(-1)
	for _, x := range []int32{clampOct(math.Floor(px)), clampOct(math.Ceil(px))} {
		for _, y := range []int32{clampOct(math.Floor(py)), clampOct(math.Ceil(py))} {
			fx, fy, fz := octFold(float64(x)/octScale, float64(y)/octScale)
			d := (fx*u[0] + fy*u[1] + fz*u[2]) / math.Sqrt(fx*fx+fy*fy+fz*fz)
			switch {
			case d > best:
				best, second = d, best
			case d > second:
				second = d
			}
		}
	}
	return best - second
}
