package meshlet

import "math"

// BuildEngineReference is the NWBLot engine's own greedy meshlet builder as
// nwb.md §4 describes it, kept only so cooks and benchmarks can report how
// many meshlets meshcook's Build saves against it. It is not used for
// output.
//
// seed = lowest unvisited triangle; grow by a frontier of triangles that
// share a position with the meshlet, each scored
//
//	20·shared − 8·missing − 4·max(0, R'−R) − |c − mean centroid|
//	  + 10·coherence − 12·coneWidening − 24·disconnected
//
// with ties to the lower index. The spec leaves some terms open; meshcook
// reads them as: shared/missing = the triangle's corners already in / not
// in the meshlet; R, R' = the largest distance from the meshlet's mean
// triangle centroid to its vertices before and after adding the triangle;
// c = the triangle's centroid; coherence = dot(triangle normal, meshlet's
// mean normal); coneWidening = the drop of the meshlet's minimum normal dot
// with that mean; disconnected = 1 when the triangle shares no edge with
// the meshlet (only a corner). indices must be valid (Build's contract).
func BuildEngineReference(indices []uint32, positions [][3]float32, maxVertices, maxTriangles int) Result {
	triCount := len(indices) / 3
	var res Result
	if triCount == 0 {
		return res
	}
	// Vertex → triangles adjacency.
	offsets := make([]int32, len(positions)+1)
	for _, v := range indices {
		offsets[v+1]++
	}
	for i := range positions {
		offsets[i+1] += offsets[i]
	}
	adj := make([]int32, len(indices))
	fill := append([]int32(nil), offsets[:len(positions)]...)
	for t := 0; t < triCount; t++ {
		for k := 0; k < 3; k++ {
			v := indices[3*t+k]
			adj[fill[v]] = int32(t)
			fill[v]++
		}
	}
	normal := make([][3]float64, triCount)
	centroid := make([][3]float64, triCount)
	for t := 0; t < triCount; t++ {
		p0, p1, p2 := positions[indices[3*t]], positions[indices[3*t+1]], positions[indices[3*t+2]]
		e1 := [3]float64{float64(p1[0] - p0[0]), float64(p1[1] - p0[1]), float64(p1[2] - p0[2])}
		e2 := [3]float64{float64(p2[0] - p0[0]), float64(p2[1] - p0[1]), float64(p2[2] - p0[2])}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		if l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2]); l > 0 {
			n = [3]float64{n[0] / l, n[1] / l, n[2] / l}
		}
		normal[t] = n
		for k := 0; k < 3; k++ {
			centroid[t][k] = (float64(p0[k]) + float64(p1[k]) + float64(p2[k])) / 3
		}
	}

	used := make([]bool, triCount)
	local := make(map[uint32]uint8) // global vertex → local index, per meshlet
	seedCursor := 0
	for {
		for seedCursor < triCount && used[seedCursor] {
			seedCursor++
		}
		if seedCursor == triCount {
			break
		}
		m := Meshlet{VertexOffset: uint32(len(res.Vertices)), TriangleOffset: uint32(len(res.Triangles) / 3)}
		clear(local)
		var sumC, sumN [3]float64
		var verts []uint32
		var members []int
		tris := 0
		add := func(t int) {
			used[t] = true
			for k := 0; k < 3; k++ {
				v := indices[3*t+k]
				li, ok := local[v]
				if !ok {
					li = uint8(len(verts))
					local[v] = li
					verts = append(verts, v)
					res.Vertices = append(res.Vertices, v)
				}
				res.Triangles = append(res.Triangles, li)
			}
			tris++
			members = append(members, t)
			for k := 0; k < 3; k++ {
				sumC[k] += centroid[t][k]
				sumN[k] += normal[t][k]
			}
		}
		add(seedCursor)
		for tris < maxTriangles {
			meanC := [3]float64{sumC[0] / float64(tris), sumC[1] / float64(tris), sumC[2] / float64(tris)}
			meanN := engineUnit(sumN)
			minDot := 1.0
			for _, t := range members {
				minDot = math.Min(minDot, normal[t][0]*meanN[0]+normal[t][1]*meanN[1]+normal[t][2]*meanN[2])
			}
			radius := 0.0
			for _, v := range verts {
				radius = math.Max(radius, engineDist(positions[v], meanC))
			}
			best, bestScore := -1, math.Inf(-1)
			for _, v := range verts {
				for _, t32 := range adj[offsets[v]:offsets[v+1]] {
					t := int(t32)
					if used[t] {
						continue
					}
					shared := 0
					r2 := radius
					for k := 0; k < 3; k++ {
						w := indices[3*t+k]
						if _, ok := local[w]; ok {
							shared++
						} else {
							r2 = math.Max(r2, engineDist(positions[w], meanC))
						}
					}
					if len(verts)+3-shared > maxVertices {
						continue
					}
					dc := math.Sqrt(engineSq(centroid[t][0]-meanC[0]) + engineSq(centroid[t][1]-meanC[1]) + engineSq(centroid[t][2]-meanC[2]))
					coherence := normal[t][0]*meanN[0] + normal[t][1]*meanN[1] + normal[t][2]*meanN[2]
					widen := math.Max(0, minDot-coherence)
					disconnected := 0.0
					if shared < 2 {
						disconnected = 1
					}
					score := 20*float64(shared) - 8*float64(3-shared) - 4*math.Max(0, r2-radius) - dc +
						10*coherence - 12*widen - 24*disconnected
					if score > bestScore || (score == bestScore && t < best) {
						best, bestScore = t, score
					}
				}
			}
			if best < 0 {
				break
			}
			add(best)
		}
		m.VertexCount = uint32(len(verts))
		m.TriangleCount = uint32(tris)
		res.Meshlets = append(res.Meshlets, m)
	}
	return res
}

func engineUnit(v [3]float64) [3]float64 {
	l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	if l == 0 {
		return v
	}
	return [3]float64{v[0] / l, v[1] / l, v[2] / l}
}

func engineDist(p [3]float32, c [3]float64) float64 {
	return math.Sqrt(engineSq(float64(p[0])-c[0]) + engineSq(float64(p[1])-c[1]) + engineSq(float64(p[2])-c[2]))
}

func engineSq(x float64) float64 { return x * x }
