package cli

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/mesh"
)

// morphSphereGLTF writes a UV sphere (rings × segs, with normals) whose
// one morph target pushes every vertex out along its normal by 0.2 × its
// height, and an animation that drives the weight 0 → 1 → 0.
func morphSphereGLTF(t *testing.T, dir string, rings, segs int) string {
	t.Helper()
	var pos, nrm, delta []float32
	var idx []uint32
	for r := 0; r <= rings; r++ {
		th := math.Pi * float64(r) / float64(rings)
		for s := 0; s <= segs; s++ {
			ph := 2 * math.Pi * float64(s) / float64(segs)
			n := [3]float32{float32(math.Sin(th) * math.Cos(ph)), float32(math.Cos(th)), float32(math.Sin(th) * math.Sin(ph))}
			pos = append(pos, n[:]...)
			nrm = append(nrm, n[:]...)
			k := 0.2 * (n[1] + 1) / 2
			delta = append(delta, n[0]*k, n[1]*k, n[2]*k)
		}
	}
	for r := 0; r < rings; r++ {
		for s := 0; s < segs; s++ {
			a := uint32(r*(segs+1) + s)
			b, c, d := a+1, a+uint32(segs+1), a+uint32(segs+2)
			idx = append(idx, a, b, c, b, d, c)
		}
	}
	var buf []byte
	put := func(fs []float32) (int, int) {
		off := len(buf)
		for _, f := range fs {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
		}
		return off, len(buf) - off
	}
	po, pl := put(pos)
	no, nl := put(nrm)
	do, dl := put(delta)
	io := len(buf)
	for _, i := range idx {
		buf = binary.LittleEndian.AppendUint32(buf, i)
	}
	tOff, tLen := put([]float32{0, 1, 2})
	wOff, wLen := put([]float32{0, 1, 0})
	nv := len(pos) / 3
	view := func(off, n int) map[string]any {
		return map[string]any{"buffer": 0, "byteOffset": off, "byteLength": n}
	}
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0}}},
		"nodes":  []any{map[string]any{"mesh": 0, "name": "ball"}},
		"meshes": []any{map[string]any{"name": "ball", "extras": map[string]any{"targetNames": []string{"bulge"}},
			"primitives": []any{map[string]any{"attributes": map[string]any{"POSITION": 0, "NORMAL": 1}, "indices": 3, "targets": []any{map[string]any{"POSITION": 2}}}}}},
		"animations": []any{map[string]any{"name": "breathe",
			"samplers": []any{map[string]any{"input": 4, "output": 5}},
			"channels": []any{map[string]any{"sampler": 0, "target": map[string]any{"node": 0, "path": "weights"}}}}},
		"buffers":     []any{map[string]any{"byteLength": len(buf), "uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf)}},
		"bufferViews": []any{view(po, pl), view(no, nl), view(do, dl), view(io, 4*len(idx)), view(tOff, tLen), view(wOff, wLen)},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3", "min": []float64{-1, -1, -1}, "max": []float64{1, 1, 1}},
			map[string]any{"bufferView": 1, "componentType": 5126, "count": nv, "type": "VEC3"},
			map[string]any{"bufferView": 2, "componentType": 5126, "count": nv, "type": "VEC3", "min": []float64{-0.2, -0.2, -0.2}, "max": []float64{0.2, 0.2, 0.2}},
			map[string]any{"bufferView": 3, "componentType": 5125, "count": len(idx), "type": "SCALAR"},
			map[string]any{"bufferView": 4, "componentType": 5126, "count": 3, "type": "SCALAR", "min": []float64{0}, "max": []float64{2}},
			map[string]any{"bufferView": 5, "componentType": 5126, "count": 3, "type": "SCALAR"},
		},
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	p := filepath.Join(dir, "ball.gltf")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// A morphing sphere cooks its target into MRPH and its weights channel into
// .hanim path 3, and its LODs do not stall: each level reaches its ratio,
// indexes LOD0's vertices (so the deltas apply to every level) and, posed
// at full weight, stays on the bulged surface within the level's error.
func TestMorphingSphereLODs(t *testing.T) {
	src := morphSphereGLTF(t, t.TempDir(), 24, 48)
	out := t.TempDir()
	rep := cookJSON(t, src, "-o", out)
	require.Len(t, rep.Meshes, 1)
	m := rep.Meshes[0]
	require.Len(t, m.Lods, 2)
	for _, l := range m.Lods {
		assert.Zero(t, l.Stalled, "LOD %v stalled", l.Ratio)
		assert.LessOrEqual(t, float32(l.Triangles), l.Ratio*float32(m.Triangles)*1.1, "LOD %v reaches its ratio", l.Ratio)
	}
	b, err := os.ReadFile(filepath.Join(out, "ball.hmesh"))
	require.NoError(t, err)
	f, err := hmesh.Decode(b)
	require.NoError(t, err)
	require.NotNil(t, f.Morphs)
	require.Equal(t, []hmesh.MorphTarget{{Name: "bulge"}}, f.Morphs.Targets)
	// every LOD index has its vertex's delta: pose LOD vertices at weight 1
	// and check they lie on the bulged sphere r(y) = 1 + 0.2·(y+1)/2 (the
	// morph is radial), as LOD0's vertices do exactly
	delta := make([][3]float32, len(f.Vertices))
	for v := 0; v+1 < len(f.Morphs.Offsets); v++ {
		for k := f.Morphs.Offsets[v]; k < f.Morphs.Offsets[v+1]; k++ {
			delta[v] = f.Morphs.Entries[k].Position
		}
	}
	for _, ix := range f.LodIndices {
		p := f.Vertices[ix].Position
		q := [3]float32{p[0] + delta[ix][0], p[1] + delta[ix][1], p[2] + delta[ix][2]}
		r := math.Sqrt(float64(q[0]*q[0] + q[1]*q[1] + q[2]*q[2]))
		assert.InDelta(t, 1+0.2*(float64(p[1])+1)/2, r, 1e-5)
	}
	hb, err := os.ReadFile(filepath.Join(out, "ball.hanim"))
	require.NoError(t, err)
	clips, err := hanim.Decode(hb)
	require.NoError(t, err)
	require.Len(t, clips, 1)
	require.Len(t, clips[0].Channels, 1)
	ch := clips[0].Channels[0]
	assert.Equal(t, mesh.PathWeights, ch.Path)
	assert.Equal(t, 1, ch.Targets)
	assert.Equal(t, []float32{0, 1, 0}, ch.Values)
	meshcheck(t, []string{filepath.Join(out, "ball.hmesh"), filepath.Join(out, "ball.hanim")})
	code, stdout, _ := run(t, "inspect", "--json", filepath.Join(out, "ball.hmesh"))
	require.Equal(t, ExitOK, code)
	var hs hmeshSummary
	require.NoError(t, json.Unmarshal([]byte(stdout), &hs))
	assert.Equal(t, 1, hs.MorphTargets)
	assert.Equal(t, len(f.Morphs.Entries), hs.MorphEntries)
}
