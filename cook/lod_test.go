package cook

import (
	"context"
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/simplify"
)

// bumpyGrid is an n×n open grid over a smooth height field: an open
// border all round and a surface whose curvature the simplifier must
// spend triangles on.
func bumpyGrid(n int) *mesh.Submesh {
	s := gridSubmesh(n)
	for i, p := range s.Positions {
		x, z := float64(p[0])/float64(n-1), float64(p[2])/float64(n-1)
		s.Positions[i][1] = float32(0.2 * float64(n-1) * math.Sin(3*x) * math.Cos(2*z))
	}
	return s
}

// cookScene runs the cook's pipeline on in-memory submeshes.
func cookScene(t *testing.T, rel string, opts Options, subs ...*mesh.Submesh) *cooked {
	t.Helper()
	scene := &mesh.Scene{}
	for _, s := range subs {
		c := *s
		c.Positions = slices.Clone(s.Positions)
		c.Normals = slices.Clone(s.Normals)
		c.Indices = slices.Clone(s.Indices)
		scene.Submeshes = append(scene.Submeshes, c)
	}
	c, err := process(context.Background(), Job{Source: rel, Rel: rel, Name: "m"}, scene, opts, newStopwatch())
	require.NoError(t, err)
	return c
}

func lodOptions(edit func(*LODOptions)) Options {
	o := DefaultOptions()
	o.LOD.Ratios = []float32{0.5, 0.25, 0.1}
	edit(&o.LOD)
	return o
}

// Every level reaches its target (the limit allows it), draws only LOD0's
// vertices, and reports an error within the limit; the report counts no
// stall, short level or fallback.
func TestLODLevelsReachTargetsWithinLimit(t *testing.T) {
	src := bumpyGrid(40)
	c := cookScene(t, "g.gltf", lodOptions(func(o *LODOptions) { o.Error = 0.05 }), src)
	s := &c.scene.Submeshes[0]
	tris := s.TriangleCount()
	require.Len(t, c.lods[0], 3)
	for i, l := range c.lods[0] {
		target := int(float64(tris)*float64(l.Ratio)) * 3
		assert.LessOrEqual(t, len(l.Indices), target, "level %d", i)
		assert.Greater(t, len(l.Indices), 0, "level %d", i)
		assert.LessOrEqual(t, l.Error, float32(0.05), "level %d", i)
		for _, ix := range l.Indices {
			require.Less(t, int(ix), len(s.Positions))
		}
	}
	for _, r := range c.report.Lods {
		assert.Zero(t, r.Stalled+r.Short+r.Sloppy)
		assert.LessOrEqual(t, r.Error, float32(0.05))
	}
}

// Normals the cook generated carry nothing the positions lack, so their
// weight does not change the levels; authored normals do.
func TestLODGeneratedNormalsAreNotWeighted(t *testing.T) {
	src := bumpyGrid(30)
	noWeight := lodOptions(func(o *LODOptions) { o.NormalWeight = 0 })
	heavy := lodOptions(func(o *LODOptions) { o.NormalWeight = 2 })
	a := cookScene(t, "g.gltf", noWeight, src)
	b := cookScene(t, "g.gltf", heavy, src)
	require.Equal(t, 1, a.report.GeneratedNormals)
	for i := range a.lods[0] {
		assert.Equal(t, a.lods[0][i].Indices, b.lods[0][i].Indices, "level %d", i)
	}

	// The same surface with its (generated) normals stored as authored ones.
	authored := bumpyGrid(30)
	mesh.GenerateNormals(authored)
	a = cookScene(t, "g.gltf", noWeight, authored)
	b = cookScene(t, "g.gltf", heavy, authored)
	require.Zero(t, a.report.GeneratedNormals)
	assert.NotEqual(t, a.lods[0][2].Indices, b.lods[0][2].Indices)
}

// borderEdges returns the open directed edges of a triangle list.
func borderEdges(idx []uint32) map[[2]uint32]bool {
	all := map[[2]uint32]bool{}
	for t := 0; t+2 < len(idx); t += 3 {
		for e := 0; e < 3; e++ {
			all[[2]uint32{idx[t+e], idx[t+(e+1)%3]}] = true
		}
	}
	out := map[[2]uint32]bool{}
	for e := range all {
		if !all[[2]uint32{e[1], e[0]}] {
			out[e] = true
		}
	}
	return out
}

// With LockBorder every level keeps LOD0's open border edge for edge (the
// same vertices, so bit-identical positions); without it the border
// simplifies too.
func TestLODLockBorderKeepsBorderBitIdentical(t *testing.T) {
	src := bumpyGrid(30)
	locked := cookScene(t, "g.gltf", lodOptions(func(o *LODOptions) { o.LockBorder = true; o.Error = 1 }), src)
	free := cookScene(t, "g.gltf", lodOptions(func(o *LODOptions) { o.Error = 1 }), src)
	s := &locked.scene.Submeshes[0]
	want := borderEdges(s.Indices)
	require.Len(t, want, 4*29)
	for i, l := range locked.lods[0] {
		require.NotEmpty(t, l.Indices, "level %d", i)
		assert.Equal(t, want, borderEdges(l.Indices), "level %d", i)
	}
	assert.Less(t, len(borderEdges(free.lods[0][2].Indices)), len(want))
}

// A mesh whose edge collapse stalls (closed tetrahedra cannot lose a
// triangle without tearing) reaches its targets only with the sloppy
// fallback, which the report counts, with its error within the limit.
func TestLODSloppyFallbackReported(t *testing.T) {
	src := &mesh.Submesh{Material: -1}
	for k := 0; k < 400; k++ {
		x := float32(k%20) * 0.3
		z := float32(k/20) * 0.3
		b := uint32(len(src.Positions))
		src.Positions = append(src.Positions, mesh.Vec3{x, 0, z}, mesh.Vec3{x + 0.1, 0, z}, mesh.Vec3{x, 0, z + 0.1}, mesh.Vec3{x, 0.1, z})
		src.Indices = append(src.Indices, b, b+2, b+1, b, b+1, b+3, b+1, b+2, b+3, b, b+3, b+2)
	}
	one := func(o *LODOptions) { o.Ratios, o.Error = []float32{0.5}, 0.5 }
	plain := cookScene(t, "t.gltf", lodOptions(one), src)
	assert.Equal(t, 1, plain.report.Lods[0].Stalled)
	sloppy := cookScene(t, "t.gltf", lodOptions(func(o *LODOptions) { one(o); o.Sloppy = true }), src)
	tris := sloppy.scene.Submeshes[0].TriangleCount()
	for i, r := range sloppy.report.Lods {
		assert.Equal(t, 1, r.Sloppy, "level %d", i)
		assert.Zero(t, r.Stalled, "level %d", i)
		assert.Greater(t, r.Error, float32(0), "level %d", i)
		assert.LessOrEqual(t, r.Error, float32(0.5), "level %d", i)
		assert.LessOrEqual(t, r.Triangles, int(float64(tris)*float64(r.Ratio)), "level %d", i)
	}
}

// lodBySource entries apply to the sources their globs match, in order.
func TestLODOptionsForSource(t *testing.T) {
	yes, half := true, float32(0.25)
	o := DefaultOptions().LOD
	o.BySource = []LODOverride{
		{Sources: []string{"scans/**"}, Error: &half, Weights: &LODWeights{UV: new(float32)}},
		{Sources: []string{"scans/tiles/*.glb"}, LockBorder: &yes},
	}
	require.NoError(t, o.validate())
	got := o.ForSource("scans/tiles/a.glb")
	assert.Equal(t, float32(0.25), got.Error)
	assert.Equal(t, float32(0), got.UVWeight)
	assert.Equal(t, float32(0.5), got.NormalWeight)
	assert.True(t, got.LockBorder)
	assert.Nil(t, got.BySource)
	other := o.ForSource("props/a.glb")
	assert.Equal(t, DefaultOptions().LOD.Error, other.Error)
	assert.False(t, other.LockBorder)

	bad := float32(2)
	o.BySource = append(o.BySource, LODOverride{Sources: []string{"x/*"}, Error: &bad})
	assert.ErrorContains(t, o.validate(), "lodBySource[2]: lod error 2")
	o.BySource = []LODOverride{{LockBorder: &yes}}
	assert.ErrorContains(t, o.validate(), "name at least one glob")
}

// meshcook.json carries the LOD controls, globally and per source glob.
func TestProjectLODOptions(t *testing.T) {
	pr, err := ParseProject([]byte(`{"sources": ["**/*.glb"], "options": {
		"lodWeights": {"normal": 1, "color": 0.5}, "lodLockBorder": true, "lodSloppy": true,
		"lodBySource": [{"sources": ["scans/**"], "lodPermissive": true, "lodError": 0.05, "lodLockBorder": false}]}}`))
	require.NoError(t, err)
	opts := DefaultOptions()
	require.NoError(t, pr.Apply(&opts))
	assert.Equal(t, float32(1), opts.LOD.NormalWeight)
	assert.Equal(t, float32(0.5), opts.LOD.UVWeight)
	assert.Equal(t, float32(0.5), opts.LOD.ColorWeight)
	assert.True(t, opts.LOD.LockBorder && opts.LOD.Sloppy && !opts.LOD.Permissive)
	scan := opts.LOD.ForSource("scans/a.glb")
	assert.True(t, scan.Permissive && scan.Sloppy && !scan.LockBorder)
	assert.Equal(t, float32(0.05), scan.Error)

	for _, bad := range []string{
		`{"sources": ["*.glb"], "options": {"lodWeights": {"normal": -1}}}`,
		`{"sources": ["*.glb"], "options": {"lodWeights": {"texcoord": 1}}}`,
		`{"sources": ["*.glb"], "options": {"lodBySource": [{"sources": ["../x"]}]}}`,
		`{"sources": ["*.glb"], "options": {"lodBySource": [{"sources": ["x"], "lodErr": 1}]}}`,
	} {
		_, err := ParseProject([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// Every LOD control changes the cache key.
func TestLODOptionsInCacheKey(t *testing.T) {
	job := Job{Source: "a.gltf", Rel: "a.gltf", Name: "a", SourceRef: "a"}
	k0 := baseKey("t", DefaultOptions(), job, []byte("src"))
	yes := true
	for name, edit := range map[string]func(*LODOptions){
		"error":      func(o *LODOptions) { o.Error = 0.02 },
		"normal":     func(o *LODOptions) { o.NormalWeight = 0.25 },
		"uv":         func(o *LODOptions) { o.UVWeight = 0.25 },
		"color":      func(o *LODOptions) { o.ColorWeight = 0.25 },
		"lockBorder": func(o *LODOptions) { o.LockBorder = true },
		"permissive": func(o *LODOptions) { o.Permissive = true },
		"sloppy":     func(o *LODOptions) { o.Sloppy = true },
		"bySource":   func(o *LODOptions) { o.BySource = []LODOverride{{Sources: []string{"x/*"}, Sloppy: &yes}} },
	} {
		o := DefaultOptions()
		edit(&o.LOD)
		assert.NotEqual(t, k0, baseKey("t", o, job, []byte("src")), name)
	}
}

// The LOD stage gives the same levels for every GOMAXPROCS, with every
// control on.
func TestLODSameForEveryGOMAXPROCS(t *testing.T) {
	src := bumpyGrid(200) // 79k triangles: the simplifier's parallel regions run
	opts := lodOptions(func(o *LODOptions) { o.Error = 1; o.LockBorder, o.Permissive, o.Sloppy = true, true, true })
	var want [][]simplify.Level
	for _, procs := range []int{1, 2, 3} {
		prev := runtime.GOMAXPROCS(procs)
		c := cookScene(t, "g.gltf", opts, src)
		runtime.GOMAXPROCS(prev)
		if want == nil {
			want = c.lods
			continue
		}
		assert.Equal(t, want, c.lods, "GOMAXPROCS %d", procs)
	}
}
