package mesh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestComputeBoundsMatchesReference pins ComputeBounds bit for bit to the
// straightforward form it was written in before it was sped up
// (referenceBounds below: a closure per point, a root per distance), on
// clouds small and large enough for farthest's parallel chunks, with and
// without an index list, and a cloud with duplicate points.
func TestComputeBoundsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	clouds := map[string][]Vec3{"one": {{1, 2, 3}}, "two": {{0, 0, 0}, {-0, 1, 0}}}
	for _, n := range []int{3, 17, 1000, 3*farthestChunk + 5} {
		p := make([]Vec3, n)
		for i := range p {
			// A lumpy shell: the grow and refine passes all move the centre.
			u, v := rng.Float64()*2*math.Pi, rng.Float64()*math.Pi
			r := 1 + 0.3*math.Sin(5*u)*math.Cos(3*v) + 0.01*rng.Float64()
			p[i] = Vec3{float32(r * math.Sin(v) * math.Cos(u) * 3), float32(r*math.Sin(v)*math.Sin(u) + 10), float32(r * math.Cos(v) * 0.5)}
		}
		clouds[string(rune('a'+len(clouds)))] = p
	}
	dup := make([]Vec3, 500)
	for i := range dup {
		dup[i] = Vec3{float32(i % 3), 0, float32(i % 5)}
	}
	clouds["dup"] = dup
	for name, p := range clouds {
		require.Equal(t, referenceBounds(p, nil), ComputeBounds(p, nil), name)
		idx := make([]uint32, 0, len(p))
		for i := len(p) - 1; i >= 0; i -= 2 {
			idx = append(idx, uint32(i))
		}
		require.Equal(t, referenceBounds(p, idx), ComputeBounds(p, idx), name+" indexed")
	}
	require.Equal(t, Bounds{}, ComputeBounds(nil, nil))
}

func referenceBounds(positions []Vec3, idx []uint32) Bounds {
	n := len(positions)
	if idx != nil {
		n = len(idx)
	}
	if n == 0 {
		return Bounds{}
	}
	at := func(i int) [3]float64 {
		p := positions[i]
		if idx != nil {
			p = positions[idx[i]]
		}
		return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	lo, hi := at(0), at(0)
	for i := 1; i < n; i++ {
		p := at(i)
		for k := 0; k < 3; k++ {
			lo[k] = math.Min(lo[k], p[k])
			hi[k] = math.Max(hi[k], p[k])
		}
	}
	var minI, maxI [3]int
	for i := 1; i < n; i++ {
		p := at(i)
		for k := 0; k < 3; k++ {
			if p[k] < at(minI[k])[k] {
				minI[k] = i
			}
			if p[k] > at(maxI[k])[k] {
				maxI[k] = i
			}
		}
	}
	best, bestD := 0, -1.0
	for k := 0; k < 3; k++ {
		if d := dist(at(minI[k]), at(maxI[k])); d > bestD {
			best, bestD = k, d
		}
	}
	a, b := at(minI[best]), at(maxI[best])
	c := [3]float64{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}
	r := bestD / 2
	grow := func(c [3]float64, r float64) ([3]float64, float64) {
		for i := 0; i < n; i++ {
			p := at(i)
			if d := dist(p, c); d > r {
				nr := (r + d) / 2
				t := (nr - r) / d
				for k := 0; k < 3; k++ {
					c[k] += (p[k] - c[k]) * t
				}
				r = nr
			}
		}
		return c, r
	}
	worstFrom := func(c [3]float64) float64 {
		var w float64
		for i := 0; i < n; i++ {
			w = math.Max(w, dist(at(i), c))
		}
		return w
	}
	c, r = grow(c, r)
	bc, br := c, r
	for pass := 0; pass < sphereRefinePasses; pass++ {
		tc, tr := grow(bc, br*0.95)
		tr = math.Max(tr, worstFrom(tc))
		if tr < br {
			bc, br = tc, tr
		}
	}
	out := Bounds{}
	for k := 0; k < 3; k++ {
		out.Min[k], out.Max[k], out.Center[k] = float32(lo[k]), float32(hi[k]), float32(bc[k])
	}
	worst := worstFrom([3]float64{float64(out.Center[0]), float64(out.Center[1]), float64(out.Center[2])})
	rr := float32(worst)
	for float64(rr) < worst {
		rr = math.Nextafter32(rr, float32(math.Inf(1)))
	}
	out.Radius = rr
	return out
}

func benchCloud(n int) []Vec3 {
	rng := rand.New(rand.NewPCG(3, 5))
	p := make([]Vec3, n)
	for i := range p {
		u, v := rng.Float64()*2*math.Pi, rng.Float64()*math.Pi
		p[i] = Vec3{float32(math.Sin(v) * math.Cos(u)), float32(math.Sin(v) * math.Sin(u)), float32(math.Cos(v))}
	}
	return p
}

// BenchmarkComputeBounds600k against BenchmarkReferenceBounds600k is the
// speed-up of ComputeBounds over its straightforward form (run with -cpu 1
// for the one-core share).
func BenchmarkComputeBounds600k(b *testing.B) {
	p := benchCloud(600_000)
	for b.Loop() {
		ComputeBounds(p, nil)
	}
}

func BenchmarkReferenceBounds600k(b *testing.B) {
	p := benchCloud(600_000)
	for b.Loop() {
		referenceBounds(p, nil)
	}
}
