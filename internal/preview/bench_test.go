package preview

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

// largeTriangles is the target mesh size.
const largeTriangles = 1_400_000

// BenchmarkRenderLarge draws the target picture, a 1.4M-triangle
// mesh (the corpus bunny subdivided) in three 1024² panels side by side
// (LOD0 shaded, LOD0 meshlets, LOD1 at half the triangles), encoded as
// PNG. Run it on one core with `make bench-png` (-cpu 1); the setup
// (subdivision, meshlets, simplification) is not timed. Besides the mean
// it reports the minimum and median per picture of wall time and of CPU
// time (the process's user+system time: on a shared machine wall time
// also counts waiting for a core).
func BenchmarkRenderLarge(b *testing.B) {
	m := largeModel(b)
	o := DefaultOptions()
	o.Size = 1024
	var wall, cpu []float64
	b.ResetTimer()
	for range b.N {
		t0, c0 := time.Now(), processCPU()
		img, err := Render(context.Background(), m, o)
		require.NoError(b, err)
		require.Equal(b, 3*1024, img.Bounds().Dx())
		require.NoError(b, EncodePNG(io.Discard, img))
		wall = append(wall, float64(time.Since(t0)))
		cpu = append(cpu, float64(processCPU()-c0))
	}
	b.StopTimer()
	// The machine may be shared: report each picture's minimum and median
	// wall and CPU times beside the mean.
	slices.Sort(wall)
	slices.Sort(cpu)
	b.ReportMetric(wall[0], "min-ns")
	b.ReportMetric(wall[len(wall)/2], "median-ns")
	b.ReportMetric(cpu[0], "min-cpu-ns")
	b.ReportMetric(cpu[len(cpu)/2], "median-cpu-ns")
}

// largeModel subdivides the corpus bunny to largeTriangles triangles and
// builds its meshlets and one LOD level at half the triangles.
func largeModel(b *testing.B) *Model {
	b.Helper()
	pos, idx := readOBJ(b, filepath.Join(testkit.Shared(b, "corpus/large/bunny_npm"), "bunny.obj"))
	for len(idx)/3*4 <= largeTriangles {
		pos, idx = subdivide(pos, idx)
	}
	pos, idx = centroidSplit(pos, idx, largeTriangles)
	require.Equal(b, largeTriangles, len(idx)/3)
	r, err := meshlet.Build(idx, pos, meshlet.DefaultOptions())
	require.NoError(b, err)
	m := &Model{Positions: pos, Meshlets: make([]int, len(r.Meshlets))}
	for i, ml := range r.Meshlets {
		verts := r.Vertices[ml.VertexOffset : ml.VertexOffset+ml.VertexCount]
		for _, l := range r.Triangles[3*ml.TriangleOffset : 3*(ml.TriangleOffset+ml.TriangleCount)] {
			m.Triangles = append(m.Triangles, verts[l])
		}
		m.Meshlets[i] = int(ml.TriangleCount)
	}
	s, err := simplify.Simplify(idx, pos, simplify.Attributes{}, simplify.Options{TargetIndexCount: len(idx) / 6 * 3, TargetError: 0.05})
	require.NoError(b, err)
	m.LODs = []LOD{{Triangles: s.Indices, Error: -1}}
	return m
}

// readOBJ reads the v and f lines of a triangulated OBJ.
func readOBJ(tb testing.TB, path string) ([][3]float32, []uint32) {
	f, err := os.Open(path)
	require.NoError(tb, err)
	defer f.Close()
	var pos [][3]float32
	var idx []uint32
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 4 {
			continue
		}
		switch fs[0] {
		case "v":
			var p [3]float32
			for k := range 3 {
				v, err := strconv.ParseFloat(fs[k+1], 32)
				require.NoError(tb, err)
				p[k] = float32(v)
			}
			pos = append(pos, p)
		case "f":
			for k := range 3 {
				v, err := strconv.Atoi(strings.SplitN(fs[k+1], "/", 2)[0])
				require.NoError(tb, err)
				idx = append(idx, uint32(v-1))
			}
		}
	}
	require.NoError(tb, sc.Err())
	return pos, idx
}

// subdivide splits every triangle into four at its edge midpoints (one
// shared midpoint per edge, so the surface stays watertight).
func subdivide(pos [][3]float32, idx []uint32) ([][3]float32, []uint32) {
	mid := map[[2]uint32]uint32{}
	at := func(a, b uint32) uint32 {
		k := [2]uint32{min(a, b), max(a, b)}
		if v, ok := mid[k]; ok {
			return v
		}
		p, q := pos[a], pos[b]
		pos = append(pos, [3]float32{(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2})
		mid[k] = uint32(len(pos) - 1)
		return mid[k]
	}
	out := make([]uint32, 0, 4*len(idx))
	for t := 0; t < len(idx); t += 3 {
		a, b, c := idx[t], idx[t+1], idx[t+2]
		ab, bc, ca := at(a, b), at(b, c), at(c, a)
		out = append(out, a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca)
	}
	return pos, out
}

// centroidSplit splits the first triangles into three around their
// centroids until there are want triangles (edges are untouched, so the
// surface stays watertight).
func centroidSplit(pos [][3]float32, idx []uint32, want int) ([][3]float32, []uint32) {
	out := make([]uint32, 0, 3*want)
	n := len(idx) / 3
	for t := 0; t < len(idx); t += 3 {
		a, b, c := idx[t], idx[t+1], idx[t+2]
		if n+2 > want {
			out = append(out, a, b, c)
			continue
		}
		p, q, r := pos[a], pos[b], pos[c]
		pos = append(pos, [3]float32{(p[0] + q[0] + r[0]) / 3, (p[1] + q[1] + r[1]) / 3, (p[2] + q[2] + r[2]) / 3})
		g := uint32(len(pos) - 1)
		out = append(out, a, b, g, b, c, g, c, a, g)
		n += 2
	}
	return pos, out
}
