package main

import "fmt"

// clodBigSplit is the grid split of the cluster-LOD section's >= 1M
// triangle mesh: each bunny triangle becomes clodBigSplit² triangles
// before one displaced midpoint subdivision (bunny-sub18: 3,674 × 18² =
// 1,190,376 triangles, bench/e2e's big-mesh count).
const clodBigSplit = 9

// clodBigName is that mesh's name (-mesh).
var clodBigName = fmt.Sprintf("bunny-sub%d", 2*clodBigSplit)

// clodBigMesh returns the >= 1M-triangle mesh of the cluster-LOD rows: the
// bunny split n×n on a barycentric grid (edge points shared, so it stays
// welded and closed), then subdivided once with subdivideDisplaced's
// noise, so the surface is dense and organic rather than flat facets.
func clodBigMesh(bunny *benchMesh) *benchMesh {
	g := gridSplit(bunny, clodBigSplit)
	m := subdivideDisplaced(g, 1)
	m.name = clodBigName
	return m
}

// gridSplit splits every triangle of src into n×n on a barycentric grid;
// the n-1 inner points of each edge are created once and shared by both
// triangles on the edge.
func gridSplit(src *benchMesh, n int) *benchMesh {
	pos := append([][3]float32(nil), src.positions...)
	type edgeKey [2]uint32
	edgePts := map[edgeKey]uint32{}
	// edgePoint is the k-th of n-1 inner points from a towards b.
	edgePoint := func(a, b uint32, k int) uint32 {
		lo, hi, kk := a, b, k
		if a > b {
			lo, hi, kk = b, a, n-k
		}
		first, ok := edgePts[edgeKey{lo, hi}]
		if !ok {
			first = uint32(len(pos))
			pl, ph := pos[lo], pos[hi]
			for s := 1; s < n; s++ {
				f := float32(s) / float32(n)
				pos = append(pos, [3]float32{pl[0] + (ph[0]-pl[0])*f, pl[1] + (ph[1]-pl[1])*f, pl[2] + (ph[2]-pl[2])*f})
			}
			edgePts[edgeKey{lo, hi}] = first
		}
		return first + uint32(kk-1)
	}
	idx := make([]uint32, 0, len(src.indices)*n*n)
	row := make([][]uint32, n+1) // row[i][j]: the point i steps towards b, j towards c
	for t := 0; t+2 < len(src.indices); t += 3 {
		a, b, c := src.indices[t], src.indices[t+1], src.indices[t+2]
		pa, pb, pc := pos[a], pos[b], pos[c]
		for i := 0; i <= n; i++ {
			row[i] = row[i][:0]
			for j := 0; i+j <= n; j++ {
				var v uint32
				switch {
				case i == 0 && j == 0:
					v = a
				case i == n:
					v = b
				case j == n:
					v = c
				case j == 0:
					v = edgePoint(a, b, i)
				case i == 0:
					v = edgePoint(a, c, j)
				case i+j == n:
					v = edgePoint(b, c, j)
				default:
					fi, fj := float32(i)/float32(n), float32(j)/float32(n)
					v = uint32(len(pos))
					pos = append(pos, [3]float32{
						pa[0] + (pb[0]-pa[0])*fi + (pc[0]-pa[0])*fj,
						pa[1] + (pb[1]-pa[1])*fi + (pc[1]-pa[1])*fj,
						pa[2] + (pb[2]-pa[2])*fi + (pc[2]-pa[2])*fj,
					})
				}
				row[i] = append(row[i], v)
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; i+j < n; j++ {
				idx = append(idx, row[i][j], row[i+1][j], row[i][j+1])
				if i+j+1 < n {
					idx = append(idx, row[i+1][j], row[i+1][j+1], row[i][j+1])
				}
			}
		}
	}
	return &benchMesh{name: fmt.Sprintf("%s-grid%d", src.name, n), positions: pos, indices: idx}
}
