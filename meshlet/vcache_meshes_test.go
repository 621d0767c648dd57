package meshlet

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"testing"

	fbximport "github.com/meshcook/meshcook/importer/fbx"
	gltfimport "github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/mesh"
)

// Meshes for tuning and checking the vertex cache score tables. Only
// connectivity and numbering matter to a vertex cache, so the generators
// build index buffers alone: grids, tori, UV spheres with pole fans,
// subdivided icosahedra, random edge flips (irregular valences, as on
// scans and remeshed surfaces), subdivided irregular meshes (regular
// patches around odd vertices, as on the subdivided bench mesh), random
// subsets (holes and borders), many small parts in one buffer (as authored
// models are) and scrambled vertex numbering. Every mesh has its triangles
// shuffled, as the bench does.

// vcMesh is one named index buffer over vc vertices.
type vcMesh struct {
	name string
	idx  []uint32
	vc   int
}

func newVCMesh(name string, idx []uint32) vcMesh {
	vc := 0
	for _, v := range idx {
		vc = max(vc, int(v)+1)
	}
	return vcMesh{name: name, idx: idx, vc: vc}
}

// torusIndices is an n×m quad grid wrapped in both directions, each quad
// split along one diagonal.
func torusIndices(n, m int) []uint32 {
	at := func(i, j int) uint32 { return uint32((i%n)*m + j%m) }
	var idx []uint32
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			a, b, c, d := at(i, j), at(i+1, j), at(i, j+1), at(i+1, j+1)
			idx = append(idx, a, b, c, c, b, d)
		}
	}
	return idx
}

// uvSphereIndices is a closed UV sphere: two poles with triangle fans of
// `slices` triangles and stacks-1 rings of `slices` vertices, seam welded.
func uvSphereIndices(stacks, slices int) []uint32 {
	ring := func(i, j int) uint32 { return uint32(2 + (i-1)*slices + j%slices) }
	var idx []uint32
	for j := 0; j < slices; j++ {
		idx = append(idx, 0, ring(1, j), ring(1, j+1))
		idx = append(idx, 1, ring(stacks-1, j+1), ring(stacks-1, j))
	}
	for i := 1; i < stacks-1; i++ {
		for j := 0; j < slices; j++ {
			a, b, c, d := ring(i, j), ring(i+1, j), ring(i, j+1), ring(i+1, j+1)
			idx = append(idx, a, b, c, c, b, d)
		}
	}
	return idx
}

// icosahedronIndices is the 20 faces of an icosahedron over 12 vertices.
func icosahedronIndices() []uint32 {
	return []uint32{
		0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11,
		1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
		3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9,
		4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1,
	}
}

// subdivideIndices splits every triangle into four at its edge midpoints,
// levels times; new vertices are numbered after the old ones in order of
// first use.
func subdivideIndices(idx []uint32, levels int) []uint32 {
	for l := 0; l < levels; l++ {
		next := uint32(newVCMesh("", idx).vc)
		mid := map[[2]uint32]uint32{}
		edge := func(a, b uint32) uint32 {
			k := [2]uint32{min(a, b), max(a, b)}
			v, ok := mid[k]
			if !ok {
				v = next
				mid[k] = v
				next++
			}
			return v
		}
		out := make([]uint32, 0, 4*len(idx))
		for t := 0; t+2 < len(idx); t += 3 {
			a, b, c := idx[t], idx[t+1], idx[t+2]
			ab, bc, ca := edge(a, b), edge(b, c), edge(c, a)
			out = append(out, a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca)
		}
		idx = out
	}
	return idx
}

// flipEdges applies up to `flips` random edge flips to a consistently wound
// triangle mesh (winding kept, no vertex left below valence 4 or pushed
// above maxValence, no duplicate edges), which spreads vertex valences the
// way scanned and remeshed surfaces have them.
func flipEdges(idx []uint32, flips, maxValence int, seed int64) []uint32 {
	out := append([]uint32(nil), idx...)
	n := len(out) / 3
	key := func(a, b uint32) [2]uint32 { return [2]uint32{min(a, b), max(a, b)} }
	owners := map[[2]uint32][]int{}
	add := func(t int) {
		for k := 0; k < 3; k++ {
			e := key(out[3*t+k], out[3*t+(k+1)%3])
			owners[e] = append(owners[e], t)
		}
	}
	remove := func(t int) {
		for k := 0; k < 3; k++ {
			e := key(out[3*t+k], out[3*t+(k+1)%3])
			l := owners[e]
			for i, u := range l {
				if u == t {
					l[i] = l[len(l)-1]
					l = l[:len(l)-1]
					break
				}
			}
			if len(l) == 0 {
				delete(owners, e)
			} else {
				owners[e] = l
			}
		}
	}
	for t := 0; t < n; t++ {
		add(t)
	}
	valence := make([]int, newVCMesh("", idx).vc)
	for e := range owners {
		valence[e[0]]++
		valence[e[1]]++
	}
	r := rand.New(rand.NewSource(seed))
	for i := 0; i < flips; i++ {
		t, k := r.Intn(n), r.Intn(3)
		a, b, c := out[3*t+k], out[3*t+(k+1)%3], out[3*t+(k+2)%3]
		l := owners[key(a, b)]
		if len(l) != 2 || valence[a] <= 4 || valence[b] <= 4 {
			continue
		}
		u := l[0]
		if u == t {
			u = l[1]
		}
		// u is (b, a, d) in some rotation; the quad is a, d, b, c.
		d, ok := uint32(0), false
		for j := 0; j < 3; j++ {
			if out[3*u+j] == b && out[3*u+(j+1)%3] == a {
				d, ok = out[3*u+(j+2)%3], true
			}
		}
		if !ok || d == c || valence[c] >= maxValence || valence[d] >= maxValence {
			continue
		}
		if _, exists := owners[key(c, d)]; exists {
			continue
		}
		remove(t)
		remove(u)
		copy(out[3*t:3*t+3], []uint32{a, d, c})
		copy(out[3*u:3*u+3], []uint32{d, b, c})
		add(t)
		add(u)
		valence[a]--
		valence[b]--
		valence[c]++
		valence[d]++
	}
	return out
}

// dropTriangles keeps each triangle with probability 1-frac.
func dropTriangles(idx []uint32, frac float64, seed int64) []uint32 {
	r := rand.New(rand.NewSource(seed))
	var out []uint32
	for t := 0; t+2 < len(idx); t += 3 {
		if r.Float64() >= frac {
			out = append(out, idx[t:t+3]...)
		}
	}
	return out
}

// scrambleVertices renumbers the vertices by a random permutation.
func scrambleVertices(idx []uint32, seed int64) []uint32 {
	perm := rand.New(rand.NewSource(seed)).Perm(newVCMesh("", idx).vc)
	out := make([]uint32, len(idx))
	for i, v := range idx {
		out[i] = uint32(perm[v])
	}
	return out
}

// manyParts is `parts` small generated meshes (grids, spheres, tori,
// subdivided icosahedra of random sizes) in one buffer, each numbered
// after the previous, as an authored model's pieces are.
func manyParts(parts int, seed int64) []uint32 {
	return concatParts(parts, seed, func(r *rand.Rand) []uint32 {
		switch r.Intn(4) {
		case 0:
			part, _ := gridIndices(2 + r.Intn(14))
			return part
		case 1:
			return uvSphereIndices(3+r.Intn(12), 4+r.Intn(20))
		case 2:
			return torusIndices(3+r.Intn(10), 3+r.Intn(20))
		default:
			return subdivideIndices(icosahedronIndices(), r.Intn(3))
		}
	})
}

// concatParts is `parts` index buffers drawn by part from one generator
// seeded with seed, in one buffer, each numbered after the previous.
func concatParts(parts int, seed int64, part func(r *rand.Rand) []uint32) []uint32 {
	r := rand.New(rand.NewSource(seed))
	var out []uint32
	base := uint32(0)
	for range parts {
		p := part(r)
		for _, v := range p {
			out = append(out, v+base)
		}
		base += uint32(newVCMesh("", p).vc)
	}
	return out
}

// splitCharts cuts a mesh into about `charts` patches grown breadth-first
// from random seed triangles across shared edges, and gives each patch its
// own copies of its vertices, numbered patch by patch in first use: the UV
// seams and hard edges of authored meshes, whose border vertices a vertex
// cache sees as distinct.
func splitCharts(idx []uint32, charts int, seed int64) []uint32 {
	n := len(idx) / 3
	key := func(a, b uint32) [2]uint32 { return [2]uint32{min(a, b), max(a, b)} }
	edgeTris := map[[2]uint32][]int{}
	for t := 0; t < n; t++ {
		for k := 0; k < 3; k++ {
			e := key(idx[3*t+k], idx[3*t+(k+1)%3])
			edgeTris[e] = append(edgeTris[e], t)
		}
	}
	chart := make([]int, n)
	for t := range chart {
		chart[t] = -1
	}
	r := rand.New(rand.NewSource(seed))
	var queue []int
	for c := 0; c < charts; c++ {
		if t := r.Intn(n); chart[t] < 0 {
			chart[t] = c
			queue = append(queue, t)
		}
	}
	for head := 0; head < len(queue); head++ {
		t := queue[head]
		for k := 0; k < 3; k++ {
			for _, u := range edgeTris[key(idx[3*t+k], idx[3*t+(k+1)%3])] {
				if chart[u] < 0 {
					chart[u] = chart[t]
					queue = append(queue, u)
				}
			}
		}
	}
	order := make([]int, n)
	for t := range order {
		order[t] = t
	}
	sort.SliceStable(order, func(i, j int) bool { return chart[order[i]] < chart[order[j]] })
	ids := map[[2]uint32]uint32{}
	out := make([]uint32, len(idx))
	for _, t := range order {
		for k := 0; k < 3; k++ {
			kv := [2]uint32{uint32(chart[t] + 1), idx[3*t+k]}
			id, ok := ids[kv]
			if !ok {
				id = uint32(len(ids))
				ids[kv] = id
			}
			out[3*t+k] = id
		}
	}
	return out[:3*n]
}

// tubeOrStrip is a w×h quad grid (each quad split along one diagonal),
// wrapped around its w direction into an open cylinder when tube is set,
// numbered row by row along w.
func tubeOrStrip(w, h int, tube bool) []uint32 {
	cols := w + 1
	if tube {
		cols = w
	}
	at := func(i, j int) uint32 { return uint32(j*cols + i%cols) }
	var idx []uint32
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			a, b, c, d := at(i, j), at(i+1, j), at(i, j+1), at(i+1, j+1)
			idx = append(idx, a, b, c, c, b, d)
		}
	}
	return idx
}

// manyStrips is `parts` thin strips and tubes (1-6 quads across or 6-32
// around, up to 200 long) in one buffer, each numbered after the
// previous: the straps, rims, cables and trims of authored models, whose
// vertices mostly have valence 4 (strip borders) or 6.
func manyStrips(parts int, seed int64) []uint32 {
	return concatParts(parts, seed, func(r *rand.Rand) []uint32 {
		var part []uint32
		if r.Intn(2) == 0 {
			part = tubeOrStrip(1+r.Intn(6), 4+r.Intn(197), false)
		} else {
			part = tubeOrStrip(6+r.Intn(27), 1+r.Intn(30), true)
		}
		if r.Intn(2) == 0 {
			part = scrambleVertices(part, r.Int63())
		}
		return part
	})
}

// diagonalGrid is an n×n grid whose quads are split along random
// diagonals.
func diagonalGrid(n int, seed int64) []uint32 {
	r := rand.New(rand.NewSource(seed))
	var idx []uint32
	w := uint32(n + 1)
	for y := uint32(0); y < uint32(n); y++ {
		for x := uint32(0); x < uint32(n); x++ {
			a := y*w + x
			if r.Intn(2) == 0 {
				idx = append(idx, a, a+w, a+1, a+1, a+w, a+w+1)
			} else {
				idx = append(idx, a, a+w+1, a+1, a, a+w, a+w+1)
			}
		}
	}
	return idx
}

// generatedVCMeshes builds one instance of every generator family; seed
// picks sizes, flips, drops and shuffles, so two seeds give two disjoint
// sets of the same kinds of mesh (training and held-out).
func generatedVCMeshes(seed int64) []vcMesh {
	r := rand.New(rand.NewSource(seed))
	s := func() int64 { return r.Int63() }
	size := func(lo, hi int) int { return lo + r.Intn(hi-lo+1) }
	var ms []vcMesh
	add := func(name string, idx []uint32) {
		ms = append(ms, newVCMesh(fmt.Sprintf("%s/%d", name, seed), shuffleTriangles(idx, s())))
	}
	g, _ := gridIndices(size(40, 70))
	add("grid", g)
	add("diagonal-grid", diagonalGrid(size(50, 80), s()))
	n := size(50, 80)
	add("flipped-grid", flipEdges(g, n*n, 9, s()))
	tn, tm := size(20, 40), size(60, 120)
	add("torus", torusIndices(tn, tm))
	add("flipped-torus", flipEdges(torusIndices(tn, tm), tn*tm, 10, s()))
	add("uv-sphere", uvSphereIndices(size(20, 40), size(30, 80)))
	ico := subdivideIndices(icosahedronIndices(), 4)
	add("icosphere", ico)
	add("flipped-icosphere-scrambled", scrambleVertices(flipEdges(ico, len(ico)/3, 9, s()), s()))
	coarse := flipEdges(subdivideIndices(icosahedronIndices(), 2), 400, 9, s())
	add("subdivided-irregular", subdivideIndices(coarse, 2))
	add("subset-flipped-torus", dropTriangles(flipEdges(torusIndices(tn+7, tm), tn*tm, 9, s()), 0.1+0.2*r.Float64(), s()))
	add("subset-grid", dropTriangles(diagonalGrid(size(60, 80), s()), 0.05+0.1*r.Float64(), s()))
	add("scrambled-torus", scrambleVertices(torusIndices(tn, tm+11), s()))
	add("parts", manyParts(size(40, 100), s()))
	add("strips", manyStrips(size(10, 30), s()))
	add("charts-flipped-torus", splitCharts(flipEdges(torusIndices(tn, tm), tn*tm, 9, s()), size(5, 50), s()))
	add("charts-subdivided-irregular", splitCharts(subdivideIndices(coarse, 2), size(3, 30), s()))
	g2, _ := gridIndices(size(40, 70))
	add("charts-grid", splitCharts(g2, size(3, 30), s()))
	add("charts-uv-sphere", splitCharts(uvSphereIndices(size(20, 50), size(30, 90)), size(2, 12), s()))
	add("rect-grid", tubeOrStrip(size(8, 40), size(60, 200), false))
	add("tall-grid", tubeOrStrip(size(60, 200), size(8, 40), false))
	add("tube", tubeOrStrip(size(16, 64), size(20, 100), true))
	add("charts-diagonal-grid", splitCharts(diagonalGrid(size(40, 70), s()), size(5, 50), s()))
	return ms
}

// corpusVCMeshes loads the named corpus files (paths under
// ../shared/corpus), merging each file's submeshes into one buffer as the
// bench does, and shuffles their triangles. Missing files are logged and
// left out. Never the bench meshes (bunny, FlightHelmet).
func corpusVCMeshes(t testing.TB, names []string) []vcMesh {
	var out []vcMesh
	for i, name := range names {
		path := filepath.Join("..", "..", "shared", "corpus", name)
		var scene *mesh.Scene
		var err error
		if filepath.Ext(name) == ".fbx" {
			scene, err = fbximport.Load(path, fbximport.Options{})
		} else {
			scene, err = gltfimport.Load(path, gltfimport.Options{})
		}
		if err != nil {
			t.Logf("without corpus mesh %s: %v", name, err)
			continue
		}
		var idx []uint32
		base := uint32(0)
		for _, s := range scene.Submeshes {
			if _, err := mesh.Canonicalize(&s, mesh.CanonicalOptions{}); err != nil {
				continue
			}
			for _, v := range s.Indices {
				idx = append(idx, v+base)
			}
			base += uint32(len(s.Positions))
		}
		if len(idx) >= 900 {
			out = append(out, newVCMesh(name, shuffleTriangles(idx, int64(200+i))))
		}
	}
	return out
}

// vcacheTrainingMeshes is what TestTuneVertexCacheTables minimises over.
func vcacheTrainingMeshes(t testing.TB) []vcMesh {
	ms := append(generatedVCMeshes(1), generatedVCMeshes(2)...)
	return append(ms, corpusVCMeshes(t, []string{
		"gltf/CesiumMan/glTF-Binary/CesiumMan.glb",
		"gltf/Fox/glTF-Binary/Fox.glb",
	})...)
}

// vcacheHeldOutMeshes is never tuned on: other seeds of the generators and
// other corpus meshes.
func vcacheHeldOutMeshes(t testing.TB) []vcMesh {
	ms := generatedVCMeshes(3)
	return append(ms, corpusVCMeshes(t, []string{
		"gltf/NormalTangentTest/NormalTangentTest.glb",
		"gltf/PrimitiveModeNormalsTest/PrimitiveModeNormalsTest.glb",
		"gltf/MultiUVTest/MultiUVTest.gltf",
	})...)
}
