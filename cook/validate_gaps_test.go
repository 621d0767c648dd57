package cook

import (
	"bytes"
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
