package mesh

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func tri(material int, x float32) Submesh {
	return Submesh{Name: "t", Material: material,
		Positions: []Vec3{{x, 0, 0}, {x + 1, 0, 0}, {x, 1, 0}},
		Normals:   []Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		Indices:   []uint32{0, 1, 2}}
}

// Submeshes merge by material and stream set in first-use order; a
// submesh with other streams or with morph targets stays apart, and
// morph-weight channels follow their submesh's new index.
func TestMergeDraws(t *testing.T) {
	a0, b0, a1 := tri(0, 0), tri(1, 10), tri(0, 20)
	a0.Name, b0.Name, a1.Name = "a0", "b0", "a1"
	noNormals := tri(0, 30)
	noNormals.Normals = nil
	morph := tri(0, 40)
	morph.Morphs = []MorphTarget{{Name: "m", Positions: make([]Vec3, 3)}}
	a2 := tri(0, 50)
	scene := &Scene{
		Submeshes:  []Submesh{a0, b0, a1, noNormals, morph, a2},
		Animations: []Animation{{Channels: []Channel{{Joint: 4, Path: PathWeights, Targets: 1}, {Joint: 4, Path: PathTranslation}}}},
	}
	flat := scene.Clone()
	remap := MergeDraws(scene)
	assert.Equal(t, []int{0, 1, 0, 2, 3, 0}, remap)
	require.Len(t, scene.Submeshes, 4)
	m := scene.Submeshes[0]
	assert.Equal(t, "a0", m.Name)
	assert.Equal(t, 9, len(m.Positions))
	assert.Equal(t, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8}, m.Indices)
	assert.Equal(t, Vec3{20, 0, 0}, m.Positions[3])
	assert.Equal(t, Vec3{50, 0, 0}, m.Positions[6])
	assert.Len(t, m.Normals, 9)
	assert.Equal(t, "b0", scene.Submeshes[1].Name)
	assert.Nil(t, scene.Submeshes[2].Normals)
	assert.Len(t, scene.Submeshes[3].Morphs, 1)
	assert.Equal(t, 3, scene.Animations[0].Channels[0].Joint, "the weights channel follows its submesh")
	assert.Equal(t, 4, scene.Animations[0].Channels[1].Joint, "joint channels are not submesh indices")
	// the clone taken before is untouched
	assert.Len(t, flat.Submeshes, 6)
	assert.Equal(t, 4, flat.Animations[0].Channels[0].Joint)

	// nothing to merge: nothing changes
	one := &Scene{Submeshes: []Submesh{tri(0, 0), tri(1, 0)}}
	assert.Equal(t, []int{0, 1}, MergeDraws(one))
	assert.Len(t, one.Submeshes, 2)
}
