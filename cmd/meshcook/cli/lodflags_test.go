package cli

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/cook"
)

// --lod-weights sets the named keys and keeps the others.
func TestParseWeights(t *testing.T) {
	o := cook.DefaultOptions().LOD
	require.NoError(t, parseWeights("uv=0, color=0.25", &o))
	assert.Equal(t, float32(0.5), o.NormalWeight)
	assert.Equal(t, float32(0), o.UVWeight)
	assert.Equal(t, float32(0.25), o.ColorWeight)
	for _, bad := range []string{"normal", "normal=x", "tangent=1", "normal=1,,uv=1"} {
		assert.Error(t, parseWeights(bad, &o), bad)
	}
	assert.Equal(t, "normal=0.5,uv=0.5,color=1", formatWeights(cook.DefaultOptions().LOD))
}
