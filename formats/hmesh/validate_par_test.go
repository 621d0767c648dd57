package hmesh

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Why: Validate checks large arrays in parallel chunks; the error it
// returns must still be the first one in file order (what a loop in order
// finds), whatever the core count, and a clean large file must pass.
func TestValidateFirstErrorAnyCores(t *testing.T) {
	big := build(t, gridMesh(260, 260, 260)) // 67,600 vertices, 134,162 triangles
	require.Greater(t, len(big.Indices), 20*validateChunk)
	big.SyncDesc()
	require.NoError(t, Validate(big))

	far := len(big.Indices) - 7 // several chunks after near
	near := 3*validateChunk + 5
	m1 := len(big.Meshlets) - 3
	cases := []struct {
		name string
		edit func(f *File)
		want string
	}{
		{"vertices", func(f *File) {
			f.Vertices[len(f.Vertices)-2].Position[0] = float32(math.NaN())
			f.Vertices[validateChunk+9].UV[1] = float32(math.Inf(1))
		}, "vertex 16393 not finite"},
		{"indices", func(f *File) {
			f.Indices[far] = 1 << 30
			f.Indices[near] = 1<<30 + 1
		}, "index 49157 is 1073741825"},
		{"meshlet vertices", func(f *File) {
			f.MeshletVertices[len(f.MeshletVertices)-1] = 1 << 29
			f.MeshletVertices[2*validateChunk+1] = 1<<29 + 1
		}, "entry 32769 is 536870913"},
		{"meshlets", func(f *File) {
			f.MeshletBounds[m1].Radius = -1
			f.MeshletBounds[70].Radius = 1e-6
		}, "meshlet 70: vertex"},
		{"submesh bounds", func(f *File) {
			f.Submeshes[0].Bounds.Radius = 1 // far corners first fail near the start
		}, "submesh 0: vertex 0 outside its bounds"},
		{"lod indices", func(f *File) {
			f.LodCount = 1
			f.LodIndices = append([]uint32(nil), f.Indices...)
			f.Lods = []MeshLod{{0, uint32(len(f.LodIndices))}}
			f.LodIndices[far] = 1 << 28
			f.LodIndices[near] = 1<<28 + 1
		}, "entry 49157 is 268435457"},
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, c := range cases {
		for _, procs := range []int{1, 2, 8} {
			runtime.GOMAXPROCS(procs)
			f := clone(big)
			c.edit(f)
			err := Validate(f)
			require.ErrorContains(t, err, c.want, "%s at GOMAXPROCS %d", c.name, procs)
		}
	}
}

// clone copies the slices Validate's cases edit.
func clone(f *File) *File {
	g := *f
	g.Vertices = append([]Vertex(nil), f.Vertices...)
	g.Indices = append([]uint32(nil), f.Indices...)
	g.MeshletVertices = append([]uint32(nil), f.MeshletVertices...)
	g.MeshletBounds = append([]MeshletBounds(nil), f.MeshletBounds...)
	g.Submeshes = append([]SubMesh(nil), f.Submeshes...)
	return &g
}

// BenchmarkEncodeLarge and BenchmarkDecodeLarge time a 1.27M-triangle grid
// (Encode validates the File first; Decode validates what it read).
func BenchmarkEncodeLarge(b *testing.B) {
	f := build(b, gridMesh(800, 800, 800))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Encode(f); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeLarge(b *testing.B) {
	data := mustEncode(b, build(b, gridMesh(800, 800, 800)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// Why: sortTris sorts each run of one smallest corner by insertion when it
// is short and with slices.SortFunc when long; either way the triangles
// come out in cmpTri order, repeats included, as one full sort leaves them.
func TestSortTrisMatchesFullSort(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	const verts = 5000
	var ts []tri
	for range 5000 {
		// runs of a few triangles, and one of hundreds
		a := uint32(r.IntN(verts / 2))
		if r.IntN(8) == 0 {
			a = 3
		}
		b, c := a+uint32(r.IntN(8)), a+uint32(r.IntN(verts/2))
		ts = append(ts, sortedTri(a, b, c))
	}
	want := slices.Clone(ts)
	slices.SortFunc(want, cmpTri)
	got, _ := sortTris(slices.Clone(ts), nil, verts)
	require.Equal(t, want, got)
}

// referenceCoverage is coverage as it was written first: both sides
// gathered, then sorted by sortTris, then compared in order.
func referenceCoverage(f *File) error {
	v := &validator{f: f}
	for s, sm := range f.Submeshes {
		ie := uint64(sm.FirstIndex) + uint64(sm.IndexCount)
		me := uint64(sm.FirstMeshlet) + uint64(sm.MeshletCount)
		if ie > uint64(len(f.Indices)) || me > uint64(len(f.Meshlets)) || sm.IndexCount%3 != 0 {
			return v.errf(ChunkSUBM, int64(s)*SubMeshSize, "submesh %d: range past IDXS or MLET", s)
		}
		var want []tri
		idx := f.Indices[sm.FirstIndex:ie]
		for t := 0; t < len(idx); t += 3 {
			want = append(want, sortedTri(idx[t], idx[t+1], idx[t+2]))
		}
		want, _ = sortTris(want, nil, len(f.Vertices))
		got, err := v.meshletTris(nil, sm.FirstMeshlet, me)
		if err != nil {
			return err
		}
		got, _ = sortTris(got, nil, len(f.Vertices))
		if len(want) != len(got) {
			return v.errf(ChunkSUBM, int64(s)*SubMeshSize, "submesh %d: its meshlets hold %d triangles, its index range %d", s, len(got), len(want))
		}
		for i := range want {
			if want[i] != got[i] {
				return v.errf(ChunkSUBM, int64(s)*SubMeshSize, "submesh %d: its meshlets do not hold exactly its triangles (first difference: indices %v, meshlets %v)", s, want[i], got[i])
			}
		}
	}
	return nil
}

// Why: coverage bucket-sorts each side in place when its corners are in
// range and gathers then sorts otherwise; on a clean file and on every
// kind of damage it must answer as the gather-and-sort form does, at
// every GOMAXPROCS (the index side runs on its own goroutine).
func TestCoverageMatchesReference(t *testing.T) {
	big := build(t, gridMesh(260, 260, 260))
	big.SyncDesc()
	last := len(big.Meshlets) - 1
	cases := []struct {
		name string
		edit func(f *File)
	}{
		{"clean", func(*File) {}},
		{"index changed", func(f *File) { f.Indices[len(f.Indices)-2] = f.Indices[0] }},
		{"index out of range", func(f *File) { f.Indices[5*validateChunk] = uint32(len(f.Vertices) + 3) }},
		{"meshlet vertex out of range", func(f *File) { f.MeshletVertices[f.Meshlets[last].VertexOffset] = 1 << 30 }},
		{"meshlet vertex changed", func(f *File) { f.MeshletVertices[f.Meshlets[7].VertexOffset+1] = 0 }},
		{"local index past", func(f *File) { f.MeshletTriangles[3*f.Meshlets[9].TriangleOffset+4] = 250 }},
		{"meshlet range past", func(f *File) { f.Meshlets[last].VertexOffset = 1 << 31 }},
		{"triangle dropped", func(f *File) { f.Meshlets[3].TriangleCount-- }},
	}
	prev := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(prev)
	for _, c := range cases {
		f := clone(big)
		f.MeshletTriangles = slices.Clone(big.MeshletTriangles)
		f.Meshlets = slices.Clone(big.Meshlets)
		c.edit(f)
		want := referenceCoverage(f)
		if c.name == "clean" {
			require.NoError(t, want)
		} else {
			require.Error(t, want, c.name)
		}
		for _, procs := range []int{1, 2, 8} {
			runtime.GOMAXPROCS(procs)
			got := ValidateMeshletCoverage(f)
			if want == nil {
				require.NoError(t, got, "%s at GOMAXPROCS %d", c.name, procs)
				continue
			}
			require.EqualError(t, got, want.Error(), "%s at GOMAXPROCS %d", c.name, procs)
		}
	}
}
