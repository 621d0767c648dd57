package gltf

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
)

// poseReference runs testdata/node/pose.mjs (glTF-Transform) on file for
// one animation (-1: rest pose) at the given times.
func poseReference(t *testing.T, dir, file string, anim int, times []float32) [][][]float64 {
	t.Helper()
	abs, err := filepath.Abs(file)
	require.NoError(t, err)
	args := []string{"pose.mjs", abs, fmt.Sprint(anim)}
	for _, tm := range times {
		args = append(args, fmt.Sprint(tm))
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err, "node pose.mjs %s", file)
	var res struct {
		Times []struct {
			T         float64
			Submeshes [][]float64
		}
	}
	require.NoError(t, json.Unmarshal(out, &res))
	ref := make([][][]float64, len(res.Times))
	for i, r := range res.Times {
		ref[i] = r.Submeshes
	}
	return ref
}

// Posed positions of the animated corpus assets (morph weights, skins) and
// of a generated node-animated file (STEP, LINEAR and CUBICSPLINE on a
// non-joint node, so the rigid skin of importer/rig) match glTF-Transform's
// reading of the same files, posed by glTF's rules, within 1e-4 of the
// model size, at key times and between keys.
func TestPoseMatchesGltfTransform(t *testing.T) {
	dir := crossDir(t, "@gltf-transform/core")
	b := newBuilder()
	nodeAnimScene(b)
	generated := filepath.Join(t.TempDir(), "node_anim.glb")
	require.NoError(t, os.WriteFile(generated, b.glb(t), 0o644))
	corpus := func(rel string) string { return filepath.Join(corpusDir, "gltf", rel) }
	cases := []struct {
		file  string
		anims []int
	}{
		{generated, []int{0}},
		{corpus("AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"), []int{0}},
		{corpus("SimpleMorph/glTF/SimpleMorph.gltf"), []int{0}},
		{corpus("MorphPrimitivesTest/glTF/MorphPrimitivesTest.gltf"), []int{-1}},
		{corpus("CesiumMan/glTF/CesiumMan.gltf"), []int{0}},
		{corpus("Fox/glTF/Fox.gltf"), []int{0, 1, 2}},
		{corpus("SimpleSkin/simple_skin.gltf"), []int{0}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			if c.file != generated {
				corpusFiles(t, "gltf") // skips without the corpus
			}
			s, err := Load(c.file, Options{})
			require.NoError(t, err)
			var rest []mesh.Vec3
			for _, p := range mesh.Pose(s, -1, 0) {
				rest = append(rest, p...)
			}
			size := extent(rest)
			tol := 1e-4 * size
			for _, a := range c.anims {
				var times []float32
				d := float32(0)
				if a >= 0 {
					d = s.Animations[a].Duration
				}
				for _, f := range []float32{0, 0.13, 0.25, 0.5, 0.618, 0.77, 1} {
					times = append(times, f*d)
				}
				ref := poseReference(t, dir, c.file, a, times)
				worst := 0.0
				for i, tm := range times {
					got := mesh.Pose(s, a, tm)
					require.Len(t, ref[i], len(got), "submesh count")
					for si := range got {
						require.Len(t, ref[i][si], 3*len(got[si]), "submesh %d vertex count", si)
						for v, p := range got[si] {
							for k := range 3 {
								worst = max(worst, math.Abs(float64(p[k])-ref[i][si][3*v+k]))
							}
						}
					}
				}
				t.Logf("animation %d over %v s: worst |Δ| %.3g = %.2g of the model size %.3g", a, d, worst, worst/size, size)
				require.LessOrEqual(t, worst, tol)
			}
		})
	}
}
