package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
)

// cookedScene reads a cooked .hmesh (and its .hanim) back into the model,
// so that mesh.Pose poses exactly what a runtime would: VTXS per SUBM,
// SKIN/SKEL, MRPH deltas and rest weights, and every clip's channels.
func cookedScene(t *testing.T, hmeshPath string) *mesh.Scene {
	t.Helper()
	b, err := os.ReadFile(hmeshPath)
	require.NoError(t, err)
	f, err := hmesh.Decode(b)
	require.NoError(t, err)
	s := &mesh.Scene{}
	if len(f.Joints) > 0 {
		s.Skeleton = &mesh.Skeleton{}
		for _, j := range f.Joints {
			s.Skeleton.Joints = append(s.Skeleton.Joints, mesh.Joint{Parent: int(j.Parent), InverseBind: j.InverseBind, BindT: j.BindT, BindR: j.BindR, BindS: j.BindS})
		}
	}
	for si, sub := range f.Submeshes {
		// the submesh's vertices are those its indices use; keep the global
		// numbering and let Pose read all of them
		sm := mesh.Submesh{Material: -1}
		for _, v := range f.Vertices {
			sm.Positions = append(sm.Positions, v.Position)
		}
		sm.Indices = f.Indices[sub.FirstIndex : sub.FirstIndex+sub.IndexCount]
		if f.Skin != nil {
			for _, sv := range f.Skin {
				sm.Joints = append(sm.Joints, sv.Joints)
				sm.Weights = append(sm.Weights, sv.Weights)
			}
		}
		if m := f.Morphs; m != nil {
			r := m.Ranges[si]
			for k := uint32(0); k < r.Count; k++ {
				tgt := mesh.MorphTarget{Name: m.Targets[r.First+k].Name, Weight: m.Targets[r.First+k].Weight, Positions: make([]mesh.Vec3, len(f.Vertices))}
				for v := 0; v+1 < len(m.Offsets); v++ {
					for e := m.Offsets[v]; e < m.Offsets[v+1]; e++ {
						if m.Entries[e].Target == r.First+k {
							tgt.Positions[v] = m.Entries[e].Position
						}
					}
				}
				sm.Morphs = append(sm.Morphs, tgt)
			}
		}
		s.Submeshes = append(s.Submeshes, sm)
	}
	if hb, err := os.ReadFile(hmeshPath[:len(hmeshPath)-len(".hmesh")] + ".hanim"); err == nil {
		clips, err := hanim.Decode(hb)
		require.NoError(t, err)
		for _, c := range clips {
			a := mesh.Animation{Name: c.Name, Duration: c.Duration}
			for _, h := range c.Channels {
				a.Channels = append(a.Channels, mesh.Channel{Joint: int(h.Joint), Path: h.Path, Interp: mesh.Interpolation(h.Interp), Times: h.Times, Values: h.Values, Targets: h.Targets})
			}
			s.Animations = append(s.Animations, a)
		}
	}
	return s
}

// posedPoints is every vertex the submeshes' triangles use, posed.
func posedPoints(s *mesh.Scene, anim int, tm float32) []mesh.Vec3 {
	var out []mesh.Vec3
	for si, pos := range mesh.Pose(s, anim, tm) {
		for _, ix := range s.Submeshes[si].Indices {
			out = append(out, pos[ix])
		}
	}
	return out
}

// The cooked outputs pose like the sources: a generated node-animated
// file (rigid skin), the morph-animated and skinned corpus assets, cooked
// with the default options (draw merging, welding, CUBICSPLINE resampled
// to linear), posed from the .hmesh/.hanim at sampled times, land on
// glTF-Transform's posed vertices (importer/gltf/testdata/node/pose.mjs)
// and the reverse, within 1e-4 of the model size.
func TestCookedPoseMatchesGltfTransform(t *testing.T) {
	dir := filepath.Join(testkit.RepoRoot(t), "importer", "gltf", "testdata", "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@gltf-transform", "core")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("glTF-Transform is not installed (npm ci --prefix importer/gltf/testdata/node)")
		}
		t.Skip("glTF-Transform is not installed (npm ci --prefix importer/gltf/testdata/node)")
	}
	corpus := testkit.Shared(t, "corpus/gltf")
	gen := t.TempDir()
	cases := []struct {
		src   string
		anims []int
	}{
		{nodeAnimGLB(t, gen), []int{0}},
		{filepath.Join(corpus, "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"), []int{0}},
		{filepath.Join(corpus, "SimpleMorph/glTF/SimpleMorph.gltf"), []int{0}},
		{filepath.Join(corpus, "CesiumMan/glTF/CesiumMan.gltf"), []int{0}},
		{filepath.Join(corpus, "Fox/glTF/Fox.gltf"), []int{0, 2}},
		{filepath.Join(corpus, "SimpleSkin/simple_skin.gltf"), []int{0}},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.src), func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := run(t, "cook", c.src, "-o", out)
			require.Equal(t, ExitOK, code, stderr)
			stem := filepath.Base(c.src)
			stem = stem[:len(stem)-len(filepath.Ext(stem))]
			s := cookedScene(t, filepath.Join(out, stem+".hmesh"))
			size := gridExtent(posedPoints(s, -1, 0))
			tol := 1e-4 * size // CUBICSPLINE resampled to linear stays inside it too
			for _, a := range c.anims {
				require.Less(t, a, len(s.Animations))
				d := s.Animations[a].Duration
				times := []float32{0, 0.13 * d, 0.5 * d, 0.77 * d, d}
				args := []string{"pose.mjs", c.src, fmt.Sprint(a)}
				for _, tm := range times {
					args = append(args, fmt.Sprint(tm))
				}
				cmd := exec.Command("node", args...)
				cmd.Dir = dir
				raw, err := cmd.Output()
				require.NoError(t, err)
				var ref struct {
					Times []struct{ Submeshes [][]float64 }
				}
				require.NoError(t, json.Unmarshal(raw, &ref))
				worst := 0.0
				for i, tm := range times {
					var want []mesh.Vec3
					for _, sub := range ref.Times[i].Submeshes {
						for v := 0; v+2 < len(sub); v += 3 {
							want = append(want, mesh.Vec3{float32(sub[v]), float32(sub[v+1]), float32(sub[v+2])})
						}
					}
					got := posedPoints(s, a, tm)
					worst = max(worst, setDistance(got, want, 4*tol), setDistance(want, got, 4*tol))
				}
				t.Logf("clip %d (%.3g s): worst distance %.3g = %.2g of the model size %.3g", a, d, worst, worst/size, size)
				require.LessOrEqual(t, worst, tol)
			}
		})
	}
}

// nodeAnimGLB writes a file without skins whose non-joint node W is
// animated by STEP scale, LINEAR translation and CUBICSPLINE rotation and
// carries a quad (through a static child), beside a static quad.
func nodeAnimGLB(t *testing.T, dir string) string {
	t.Helper()
	s2 := math.Sqrt(0.5)
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0, 3}}},
		"nodes": []any{
			map[string]any{"name": "R", "translation": []float64{1, 0, 0}, "children": []int{1}},
			map[string]any{"name": "W", "translation": []float64{0, 1, 0}, "children": []int{2}},
			map[string]any{"name": "Q", "mesh": 0, "translation": []float64{0, 0, 3}},
			map[string]any{"name": "S", "mesh": 0, "rotation": []float64{0, s2, 0, s2}},
		},
	}
	var buf []float32
	add := func(v ...float32) int { buf = append(buf, v...); return len(v) }
	type acc struct {
		off, n   int
		typ      string
		count    int
		min, max []float64
	}
	var accs []acc
	mk := func(typ string, count int, v ...float32) int {
		off := len(buf) * 4
		n := add(v...)
		accs = append(accs, acc{off, n * 4, typ, count, nil, nil})
		return len(accs) - 1
	}
	pos := mk("VEC3", 4, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0)
	accs[pos].min, accs[pos].max = []float64{0, 0, 0}, []float64{1, 1, 0}
	times := mk("SCALAR", 3, 0, 1, 2)
	accs[times].min, accs[times].max = []float64{0}, []float64{2}
	sc := mk("VEC3", 3, 1, 1, 1, 2, 2, 2, 1, 1, 1)
	tr := mk("VEC3", 3, 0, 1, 0, 4, 1, 0, 4, 5, 0)
	f := float32(s2)
	rot := mk("VEC4", 9, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, f, f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)
	var raw []byte
	for _, v := range buf {
		raw = binaryAppendF32(raw, v)
	}
	idxOff := len(raw)
	for _, i := range []uint16{0, 1, 2, 0, 2, 3} {
		raw = append(raw, byte(i), byte(i>>8))
	}
	var views, accessors []any
	for i, a := range accs {
		views = append(views, map[string]any{"buffer": 0, "byteOffset": a.off, "byteLength": a.n})
		m := map[string]any{"bufferView": i, "componentType": 5126, "count": a.count, "type": a.typ}
		if a.min != nil {
			m["min"], m["max"] = a.min, a.max
		}
		accessors = append(accessors, m)
	}
	views = append(views, map[string]any{"buffer": 0, "byteOffset": idxOff, "byteLength": 12})
	accessors = append(accessors, map[string]any{"bufferView": len(views) - 1, "componentType": 5123, "count": 6, "type": "SCALAR"})
	doc["bufferViews"], doc["accessors"] = views, accessors
	doc["meshes"] = []any{map[string]any{"name": "quad", "primitives": []any{map[string]any{"attributes": map[string]any{"POSITION": pos}, "indices": len(accessors) - 1}}}}
	doc["animations"] = []any{map[string]any{"name": "go",
		"samplers": []any{
			map[string]any{"input": times, "output": sc, "interpolation": "STEP"},
			map[string]any{"input": times, "output": tr},
			map[string]any{"input": times, "output": rot, "interpolation": "CUBICSPLINE"},
		},
		"channels": []any{
			map[string]any{"sampler": 0, "target": map[string]any{"node": 1, "path": "scale"}},
			map[string]any{"sampler": 1, "target": map[string]any{"node": 1, "path": "translation"}},
			map[string]any{"sampler": 2, "target": map[string]any{"node": 1, "path": "rotation"}},
		}}}
	binPath := filepath.Join(dir, "node_anim.bin")
	require.NoError(t, os.WriteFile(binPath, raw, 0o644))
	doc["buffers"] = []any{map[string]any{"byteLength": len(raw), "uri": "node_anim.bin"}}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	p := filepath.Join(dir, "node_anim.gltf")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

func binaryAppendF32(b []byte, v float32) []byte {
	u := math.Float32bits(v)
	return append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
}

func gridExtent(pts []mesh.Vec3) float64 {
	b := mesh.ComputeBounds(pts, nil)
	return float64(max(b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2]))
}

// setDistance is the largest distance from a point of a to its nearest
// point of b (searched on a grid of cell size cell; +Inf when none is
// within a cell).
func setDistance(a, b []mesh.Vec3, cell float64) float64 {
	key := func(p mesh.Vec3) [3]int64 {
		return [3]int64{int64(math.Floor(float64(p[0]) / cell)), int64(math.Floor(float64(p[1]) / cell)), int64(math.Floor(float64(p[2]) / cell))}
	}
	cells := map[[3]int64][]mesh.Vec3{}
	for _, q := range b {
		cells[key(q)] = append(cells[key(q)], q)
	}
	worst := 0.0
	for _, p := range a {
		k, best := key(p), math.Inf(1)
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					for _, q := range cells[[3]int64{k[0] + dx, k[1] + dy, k[2] + dz}] {
						d := math.Sqrt(float64((p[0]-q[0])*(p[0]-q[0]) + (p[1]-q[1])*(p[1]-q[1]) + (p[2]-q[2])*(p[2]-q[2])))
						best = min(best, d)
					}
				}
			}
		}
		worst = max(worst, best)
	}
	return worst
}
