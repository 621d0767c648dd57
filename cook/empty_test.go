package cook

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// emptyGLTF is a glTF whose one triangle has three coinciding corners, so
// canonicalization leaves no triangles; animated adds a clip moving the
// mesh's node.
func emptyGLTF(animated bool) []byte {
	var raw []byte
	f32 := func(vs ...float32) {
		for _, v := range vs {
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
		}
	}
	f32(1, 1, 1, 1, 1, 1, 1, 1, 1) // positions: 36 bytes
	f32(0, 1)                      // times: 8 bytes
	f32(0, 0, 0, 0, 2, 0)          // translations: 24 bytes
	uri := "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(raw)
	anim := ""
	if animated {
		anim = `, "animations": [{"name": "lift", "samplers": [{"input": 1, "output": 2}],
  "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]`
	}
	return []byte(`{"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
 "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
 "buffers": [{"byteLength": 68, "uri": "` + uri + `"}],
 "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 8}, {"buffer": 0, "byteOffset": 44, "byteLength": 24}],
 "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [1, 1, 1], "max": [1, 1, 1]},
  {"bufferView": 1, "componentType": 5126, "count": 2, "type": "SCALAR", "min": [0], "max": [1]},
  {"bufferView": 2, "componentType": 5126, "count": 2, "type": "VEC3"}]` + anim + `}`)
}

// filesUnder lists every file below dir, relative and slash-separated.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	}))
	slices.Sort(out)
	return out
}

// A source with no triangles left writes no mesh outputs for any target,
// only its .hanim when it has clips; the cook succeeds with one counted
// drop naming the source, and --strict refuses it.
func TestEmptySourceWritesNoMesh(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "flat.gltf"), emptyGLTF(false))
	writeFile(t, filepath.Join(src, "moving.gltf"), emptyGLTF(true))
	jobs, err := Plan([]string{src})
	require.NoError(t, err)

	for _, targets := range [][]string{{TargetHMesh}, {TargetHMesh, TargetMSH7}, {TargetMSH7}} {
		out := t.TempDir()
		opts := DefaultOptions()
		opts.OutDir, opts.Targets = out, targets
		rep, err := Run(context.Background(), jobs, opts)
		require.NoError(t, err)
		require.Empty(t, rep.Errors, "targets %v", targets)
		var want []string
		if slices.Contains(targets, TargetHMesh) {
			want = []string{"moving.hanim"}
		}
		assert.Equal(t, want, filesUnder(t, out), "targets %v: no mesh outputs", targets)
		var names []string
		for _, o := range rep.Outputs {
			names = append(names, o.Name)
		}
		assert.Equal(t, want, names, "targets %v: the report lists what was written", targets)
		assert.Equal(t, []DropReport{
			{Source: "flat.gltf", What: "no triangles: no mesh written", Count: 1},
			{Source: "moving.gltf", What: "no triangles: no mesh written", Count: 1},
		}, EmptyDrops(rep.Dropped), "targets %v", targets)
		assert.Contains(t, rep.Warnings, filepath.Join(src, "flat.gltf")+": dropped 1 no triangles: no mesh written")
	}

	// --strict: a drop is an input error; nothing is written.
	out := t.TempDir()
	opts := DefaultOptions()
	opts.OutDir, opts.Strict = out, true
	rep, err := Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	assert.Equal(t, 2, rep.InputErrors)
	require.Len(t, rep.Errors, 2)
	assert.Contains(t, rep.Errors[0], "no triangles: no mesh written")
	assert.Empty(t, filesUnder(t, out))
}

// InspectSource names the same drop the cook makes.
func TestInspectSourceNamesEmpty(t *testing.T) {
	src := t.TempDir()
	p := filepath.Join(src, "flat.gltf")
	writeFile(t, p, emptyGLTF(false))
	info, err := InspectSource(p, DefaultOptions())
	require.NoError(t, err)
	assert.Equal(t, []DropReport{{Source: "flat.gltf", What: "no triangles: no mesh written", Count: 1}}, EmptyDrops(info.Dropped))
}

// A world skips the empty source's mesh (no payload, no resources) and
// still writes the other sources' world.
func TestEmptySourceInWorld(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "flat.gltf"), emptyGLTF(false))
	box, err := os.ReadFile(filepath.Join("..", "testdata", "samples", "box.gltf"))
	require.NoError(t, err)
	writeFile(t, filepath.Join(src, "box.gltf"), box)
	for _, name := range []string{"box.bin", "checker.png"} {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "samples", name))
		require.NoError(t, err)
		writeFile(t, filepath.Join(src, name), b)
	}
	jobs, err := Plan([]string{src})
	require.NoError(t, err)
	out := t.TempDir()
	opts := DefaultOptions()
	opts.OutDir, opts.Targets = out, []string{TargetCNB}
	rep, err := Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	assert.Equal(t, []DropReport{{Source: "flat.gltf", What: "no triangles: no mesh written", Count: 1}}, EmptyDrops(rep.Dropped))
	meta, _ := readWorld(t, out)
	assert.NotEmpty(t, meta.Resources)
	lb, err := os.ReadFile(filepath.Join(out, WorldLockName))
	require.NoError(t, err)
	lock, err := ParseWorldLock(lb)
	require.NoError(t, err)
	var names []string
	for _, r := range lock.Resources {
		names = append(names, r.Name)
	}
	assert.Contains(t, names, "box/0", "the other source's mesh is in the world")
	for _, n := range names {
		assert.NotContains(t, n, "flat", "no resource of the empty source")
	}
}

func EmptyDrops(drops []DropReport) []DropReport {
	var out []DropReport
	for _, d := range drops {
		if d.What == EmptyDrop {
			out = append(out, d)
		}
	}
	return out
}
