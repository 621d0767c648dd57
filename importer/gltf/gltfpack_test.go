package gltf

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
)

// crossDir is the Node project of independent references (npm gltfpack,
// meshoptimizer and @gltf-transform/core, pinned), installed by .ci/run;
// a missing one fails under CI and skips elsewhere.
func crossDir(t *testing.T, pkg string) string {
	t.Helper()
	dir := filepath.Join(testkit.RepoRoot(t), "importer", "gltf", "testdata", "node")
	unavailable := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s cross-check cannot run in CI: %s (install with `npm ci --prefix importer/gltf/testdata/node`)", pkg, why)
		}
		t.Skipf("%s cross-check skipped: %s (install with `npm ci --prefix importer/gltf/testdata/node`)", pkg, why)
	}
	if _, err := exec.LookPath("node"); err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")); err != nil {
		unavailable("node_modules/" + pkg + " is missing")
	}
	return dir
}

// corpusAssets is one source file per corpus asset folder (the first in
// sorted order: glTF/ before glTF-Binary/ and glTF-Embedded/), skipping
// files the importer refuses by design (Draco) and validator fixtures
// without a scene.
func corpusAssets(t *testing.T) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range corpusFiles(t, "gltf") {
		rel, _ := filepath.Rel(filepath.Join(corpusDir, "gltf"), p)
		asset := strings.Split(filepath.ToSlash(rel), "/")[0]
		if strings.Contains(rel, "validator_") || strings.Contains(strings.ToLower(rel), "draco") {
			continue
		}
		if _, err := Load(p, Options{}); err != nil {
			if errors.Is(err, ErrUnsupportedExtension) {
				continue
			}
			t.Fatalf("%s: %v", p, err)
		}
		key := asset
		if asset == "quantization_misc" || asset == "assimp_quad_skin" {
			key = rel // folders of unrelated files
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	return out
}

// posed is the scene's rest pose: every submesh's referenced vertices
// after canonicalization (welded, degenerate triangles dropped, as the
// cook does), skinned and morphed as a runtime draws them, and the cooked
// triangle count.
func posed(t *testing.T, s *mesh.Scene) ([]mesh.Vec3, int) {
	t.Helper()
	tris := 0
	for i := range s.Submeshes {
		sm := &s.Submeshes[i]
		_, err := mesh.Canonicalize(sm, mesh.CanonicalOptions{})
		require.NoError(t, err)
		tris += sm.TriangleCount()
	}
	var pts []mesh.Vec3
	for i, pos := range mesh.Pose(s, -1, 0) {
		for _, ix := range s.Submeshes[i].Indices {
			pts = append(pts, pos[ix])
		}
	}
	return pts, tris
}

// grid finds, for a point, the distance to the nearest of a point set.
type grid struct {
	cell  float64
	cells map[[3]int64][]mesh.Vec3
}

func newGrid(pts []mesh.Vec3, cell float64) *grid {
	g := &grid{cell: cell, cells: map[[3]int64][]mesh.Vec3{}}
	for _, p := range pts {
		k := g.key(p)
		g.cells[k] = append(g.cells[k], p)
	}
	return g
}

func (g *grid) key(p mesh.Vec3) [3]int64 {
	return [3]int64{int64(math.Floor(float64(p[0]) / g.cell)), int64(math.Floor(float64(p[1]) / g.cell)), int64(math.Floor(float64(p[2]) / g.cell))}
}

// nearest is the distance from p to the nearest point within one cell
// (+Inf when none is that close).
func (g *grid) nearest(p mesh.Vec3) float64 {
	k := g.key(p)
	best := math.Inf(1)
	for dx := int64(-1); dx <= 1; dx++ {
		for dy := int64(-1); dy <= 1; dy++ {
			for dz := int64(-1); dz <= 1; dz++ {
				for _, q := range g.cells[[3]int64{k[0] + dx, k[1] + dy, k[2] + dz}] {
					d := math.Sqrt(float64((p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2])))
					best = min(best, d)
				}
			}
		}
	}
	return best
}

// extent is the longest side of the points' bounding box.
func extent(pts []mesh.Vec3) float64 {
	b := mesh.ComputeBounds(pts, nil)
	return float64(max(b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2]))
}

// gltfpack -c (npm gltfpack, EXT_meshopt_compression with its default
// quantization: 14-bit positions) of every corpus asset imports to the
// same cooked triangle count as the original, and every posed vertex of
// either lies within the quantization error of one of the other's: half a
// step of 2^14 over the asset's extent per axis (√3/2 of a step in space),
// with 2 steps allowed. The compressed files are written to a temp dir.
func TestGltfpackCompressedCorpus(t *testing.T) {
	dir := crossDir(t, "gltfpack")
	assets := corpusAssets(t)
	out := t.TempDir()
	type result struct {
		path, packed string
		err          error
		log          []byte
	}
	results := make([]result, len(assets))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, p := range assets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			packed := filepath.Join(out, strings.ReplaceAll(filepath.ToSlash(p[len(corpusDir)+1:]), "/", "_")+".glb")
			abs, err := filepath.Abs(p)
			if err != nil {
				results[i] = result{path: p, err: err}
				return
			}
			cmd := exec.Command("node", filepath.Join("node_modules", "gltfpack", "cli.js"), "-i", abs, "-o", packed, "-c")
			cmd.Dir = dir
			log, err := cmd.CombinedOutput()
			results[i] = result{p, packed, err, log}
		}()
	}
	wg.Wait()
	for _, r := range results {
		t.Run(filepath.Base(r.path), func(t *testing.T) {
			require.NoError(t, r.err, "gltfpack: %s", r.log)
			orig, err := Load(r.path, Options{})
			require.NoError(t, err)
			packed, err := Load(r.packed, Options{})
			require.NoError(t, err, "the gltfpack -c variant must import")
			require.Contains(t, packedExtensions(t, r.packed), extMeshoptEXT, "gltfpack -c compresses")
			a, ta := posed(t, orig)
			b, tb := posed(t, packed)
			assert.Equal(t, ta, tb, "cooked triangle count")
			if len(a) == 0 {
				return
			}
			ext := extent(a)
			step := ext / (1<<14 - 1)
			tol := 2 * step
			ga, gb := newGrid(a, tol), newGrid(b, tol)
			worst := 0.0
			for _, p := range b {
				worst = max(worst, ga.nearest(p))
			}
			for _, p := range a {
				worst = max(worst, gb.nearest(p))
			}
			t.Logf("%s: %d triangles, worst position error %.3g (%.3g steps of %.3g)", filepath.Base(r.path), ta, worst, worst/step, step)
			assert.LessOrEqual(t, worst, tol, "positions beyond the quantization error")
		})
	}
}

// packedExtensions returns the extensionsUsed of a .glb gltfpack wrote.
func packedExtensions(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text, _, err := splitContainer(data, true)
	require.NoError(t, err)
	doc, err := parseDocument(text)
	require.NoError(t, err)
	return doc.ExtensionsUsed
}
