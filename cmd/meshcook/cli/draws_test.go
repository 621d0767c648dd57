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

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/internal/testkit"
)

// cubesGLTF writes a .gltf of n unit cubes sharing one mesh and one
// material, each on its own node along x, with an embedded buffer.
func cubesGLTF(t *testing.T, dir string, n int) string {
	t.Helper()
	var pos, nrm []float32
	var idx []uint16
	// six faces, four corners each
	for axis := range 3 {
		for _, sign := range []float32{-1, 1} {
			u, v := (axis+1)%3, (axis+2)%3
			base := uint16(len(pos) / 3)
			for _, c := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				var p, q [3]float32
				p[axis], p[u], p[v] = sign*0.5, c[0]*0.5, c[1]*0.5
				q[axis] = sign
				pos = append(pos, p[:]...)
				nrm = append(nrm, q[:]...)
			}
			if sign > 0 {
				idx = append(idx, base, base+1, base+2, base, base+2, base+3)
			} else {
				idx = append(idx, base, base+2, base+1, base, base+3, base+2)
			}
		}
	}
	var buf []byte
	for _, f := range append(pos, nrm...) {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
	}
	for _, i := range idx {
		buf = binary.LittleEndian.AppendUint16(buf, i)
	}
	nodes := make([]map[string]any, n)
	roots := make([]int, n)
	for i := range nodes {
		nodes[i] = map[string]any{"mesh": 0, "translation": []float64{2 * float64(i), 0, 0}}
		roots[i] = i
	}
	doc := map[string]any{
		"asset":     map[string]any{"version": "2.0"},
		"scene":     0,
		"scenes":    []any{map[string]any{"nodes": roots}},
		"nodes":     nodes,
		"materials": []any{map[string]any{"name": "paint"}},
		"meshes": []any{map[string]any{"name": "cube", "primitives": []any{map[string]any{
			"attributes": map[string]any{"POSITION": 0, "NORMAL": 1}, "indices": 2, "material": 0}}}},
		"buffers": []any{map[string]any{"byteLength": len(buf), "uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf)}},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": 288},
			map[string]any{"buffer": 0, "byteOffset": 288, "byteLength": 288},
			map[string]any{"buffer": 0, "byteOffset": 576, "byteLength": 72},
		},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": 24, "type": "VEC3", "min": []float64{-0.5, -0.5, -0.5}, "max": []float64{0.5, 0.5, 0.5}},
			map[string]any{"bufferView": 1, "componentType": 5126, "count": 24, "type": "VEC3"},
			map[string]any{"bufferView": 2, "componentType": 5123, "count": 36, "type": "SCALAR"},
		},
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	p := filepath.Join(dir, "cubes.gltf")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

func cookJSON(t *testing.T, args ...string) cook.Report {
	t.Helper()
	code, stdout, stderr := run(t, append([]string{"cook", "--json"}, args...)...)
	require.Equal(t, ExitOK, code, stderr)
	var rep cook.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))
	return rep
}

// 500 cubes sharing one material cook to one draw; --keep-nodes keeps 500.
func TestCook500CubesOneDraw(t *testing.T) {
	src := cubesGLTF(t, t.TempDir(), 500)
	out := t.TempDir()
	rep := cookJSON(t, src, "-o", out)
	require.Len(t, rep.Meshes, 1)
	m := rep.Meshes[0]
	assert.Equal(t, 500, m.DrawsBefore)
	assert.Equal(t, 1, m.Draws)
	assert.Equal(t, 1, m.Submeshes)
	assert.Equal(t, 500*12, m.Triangles)
	b, err := os.ReadFile(filepath.Join(out, "cubes.hmesh"))
	require.NoError(t, err)
	f, err := hmesh.Decode(b)
	require.NoError(t, err)
	require.Len(t, f.Submeshes, 1)
	assert.Equal(t, uint32(500*36), f.Submeshes[0].IndexCount)
	assert.InDelta(t, 998.5, f.Bounds.Max[0], 1e-4)
	meshcheck(t, []string{filepath.Join(out, "cubes.hmesh")})

	keep := cookJSON(t, src, "-o", t.TempDir(), "--keep-nodes")
	assert.Equal(t, 500, keep.Meshes[0].Draws)
	assert.Equal(t, 500, keep.Meshes[0].Submeshes)
	assert.Equal(t, m.Triangles, keep.Meshes[0].Triangles)
}

// FlightHelmet: six meshes with six materials, draws = materials.
func TestCookFlightHelmetDrawsEqualMaterials(t *testing.T) {
	dir := testkit.Shared(t, "corpus/gltf/FlightHelmet")
	out := t.TempDir()
	rep := cookJSON(t, filepath.Join(dir, "FlightHelmet.gltf"), "-o", out, "--lods", "")
	require.Len(t, rep.Meshes, 1)
	b, err := os.ReadFile(filepath.Join(out, "FlightHelmet.hmesh"))
	require.NoError(t, err)
	f, err := hmesh.Decode(b)
	require.NoError(t, err)
	assert.Equal(t, len(f.Materials), rep.Meshes[0].Draws)
	assert.Equal(t, 6, rep.Meshes[0].Draws)
}

// A source with points and lines drops them: the drop is a warning and a
// "dropped" entry; --strict refuses the source (exit 3, nothing written).
func TestCookDroppedAndStrict(t *testing.T) {
	src := filepath.Join(testkit.Shared(t, "corpus/gltf/MeshPrimitiveModes"), "MeshPrimitiveModes.gltf")
	rep := cookJSON(t, src, "-o", t.TempDir())
	assert.Equal(t, []cook.DropReport{{Source: "MeshPrimitiveModes.gltf", What: "points/lines primitives", Count: 4}}, rep.Dropped)
	assert.Contains(t, rep.Warnings, src+": dropped 4 points/lines primitives")

	out := t.TempDir()
	code, stdout, stderr := run(t, "cook", "--json", "--strict", src, "-o", out)
	assert.Equal(t, ExitBadInput, code)
	assert.Contains(t, stderr, "--strict: would drop 4 points/lines primitives")
	var strict cook.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &strict))
	assert.Equal(t, rep.Dropped, strict.Dropped)
	assert.Empty(t, strict.Outputs)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries, "a refused source writes nothing")
}
