package mesh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The views share the streams' memory: a write through one shows in the
// other, and nil stays nil (an absent stream).
func TestFloatsViewsShareMemory(t *testing.T) {
	p := []Vec3{{1, 2, 3}, {4, 5, 6}}
	v := Floats3(p)
	require.Len(t, v, 2)
	assert.Equal(t, [3]float32{4, 5, 6}, v[1])
	v[0][1] = 9
	assert.Equal(t, Vec3{1, 9, 3}, p[0])

	uv := []Vec2{{0.5, 0.25}}
	assert.Equal(t, [][2]float32{{0.5, 0.25}}, Floats2(uv))
	c := []Vec4{{1, 2, 3, 4}}
	assert.Equal(t, [][4]float32{{1, 2, 3, 4}}, Floats4(c))

	assert.Nil(t, Floats2(nil))
	assert.Nil(t, Floats3(nil))
	assert.Nil(t, Floats4(nil))
	assert.NotNil(t, Floats3([]Vec3{}))
	assert.Empty(t, Floats3([]Vec3{}))
}
