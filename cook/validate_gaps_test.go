package cook

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/cnb"
)

// Issue #19's .cnb gaps: a NaN in a Material row's data bytes (refused in
// a .hmat) and bytes appended after a blob's payload section both passed.
func TestCheckWorldImagesGaps(t *testing.T) {
	out := t.TempDir()
	rep := cookWith(t, samplesDir(), out, "", func(o *Options) { o.Targets = []string{TargetCNB} })
	require.Empty(t, rep.Errors)
	blob, err := os.ReadFile(filepath.Join(out, WorldDataDir, "0"))
	require.NoError(t, err)
	_, err = CheckWorldImages([][]byte{blob})
	require.NoError(t, err)

	meta, _, err := cnb.ParseBlob(blob)
	require.NoError(t, err)
	var row []byte
	for _, r := range meta.Resources {
		if r.Kind == cnb.Material {
			row = r.Data
			break
		}
	}
	require.Len(t, row, 96)
	at := bytes.Index(blob, row)
	require.Positive(t, at)
	nan := bytes.Clone(blob)
	binary.LittleEndian.PutUint32(nan[at+28:], math.Float32bits(float32(math.NaN()))) // metallic
	_, err = CheckWorldImages([][]byte{nan})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Material")

	_, err = CheckWorldImages([][]byte{append(bytes.Clone(blob), 0, 0, 0, 0)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "4 bytes after the last payload")
}

// An empty mesh (no triangles left) is refused as import refuses it,
// instead of being written.
func TestEmptyMeshRefused(t *testing.T) {
	dir := t.TempDir()
	// one triangle whose three corners coincide: canonicalization drops it
	buf := base64.StdEncoding.EncodeToString(make([]byte, 36))
	writeFile(t, filepath.Join(dir, "empty.gltf"), []byte(`{"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
 "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
 "buffers": [{"byteLength": 36, "uri": "data:application/octet-stream;base64,`+buf+`"}],
 "bufferViews": [{"buffer": 0, "byteLength": 36}],
 "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [0, 0, 0]}]}`))
	out := t.TempDir()
	jobs, err := Plan([]string{dir})
	require.NoError(t, err)
	opts := DefaultOptions()
	opts.OutDir = out
	rep, err := Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	require.Len(t, rep.Errors, 1)
	assert.Contains(t, rep.Errors[0], "no triangles left")
	assert.Equal(t, 1, rep.InputErrors)
	ents, _ := os.ReadDir(out)
	assert.Empty(t, ents, "nothing written")
}
