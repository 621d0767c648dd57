package meshlet

import "math"

// gridMaxCells bounds the uniform grid's cells per axis: cells grow past
// the reach radius on meshes far wider than their meshlets, so the grid
// stays small (at most gridMaxCells³ cells) whatever the input.
const gridMaxCells = 64

// gridCellsPerReach is how many cells span the query radius, and
// gridCellsPerTriangle the most cells per triangle bucketed (cells grow
// past r/gridCellsPerReach when there are more). A query scans the cells
// around it ring by ring and stops once the nearest triangle found is
// nearer than the ring's inner distance: quarter-reach cells stop sooner
// when the nearest piece is near (the usual case), 3% less time on
// FlightHelmet than half-reach ones; the per-triangle cap keeps the grid
// of a dense part from costing more to build than it saves.
const (
	gridCellsPerReach    = 4
	gridCellsPerTriangle = 1
)

// cellGrid answers "nearest unused triangle within radius r" for the
// builder's spatial fallback: triangle centroids bucketed in a uniform
// grid of cells r/gridCellsPerReach wide (or wider, see above). A query
// scans rings of cells around the query point's cell, from the 3×3×3
// block outwards, and stops after ring k once it found a triangle within
// k cell widths (anything outside the block is farther), or at r. Building is a counting sort (O(n)); used triangles
// are dropped from their cell as queries meet them.
type cellGrid struct {
	origin [3]float64
	inv    float64 // 1 / cell size
	size   float64
	rings  int // cells out to r: ceil(r / size)
	dims   [3]int
	r2     float64
	off    []uint32 // cell c's triangles are tri[off[c]:off[c]+cnt[c]]
	cnt    []uint32
	tri    []uint32
}

// newCellGrid buckets the triangles not yet emitted (unused of them) by
// their centroids; r > 0 is the query radius and box0..box1 a box holding
// every centroid (that of all triangles: nearest is exact for any box
// holding them).
func newCellGrid(geom []triGeom, emitted []bool, unused int, r float64, box0, box1 [3]float32) *cellGrid {
	g := &cellGrid{r2: float64(r * r)}
	var mn, mx [3]float64
	for k := 0; k < 3; k++ {
		mn[k], mx[k] = float64(box0[k]), float64(box1[k])
	}
	size := r / gridCellsPerReach
	for k := 0; k < 3; k++ {
		size = math.Max(size, (mx[k]-mn[k])/gridMaxCells)
	}
	for size < r && gridCells(mn, mx, size) > gridCellsPerTriangle*unused+64 {
		size *= 1.25
	}
	g.origin, g.inv, g.size = mn, 1/size, size
	g.rings = max(1, int(math.Ceil(r/size)))
	cells := 1
	for k := 0; k < 3; k++ {
		g.dims[k] = min(int((mx[k]-mn[k])*g.inv)+1, gridMaxCells+1)
		cells *= g.dims[k]
	}
	// Counting sort: each unused triangle's cell is computed once (at[t]);
	// the running sum leaves off[c] at the end of cell c, and the fill
	// walks the triangles backwards, moving it to the start (cells list
	// their triangles in increasing order).
	off := make([]uint32, cells+1)
	cnt := make([]uint32, cells)
	at := make([]uint32, len(emitted))
	geom = geom[:len(emitted)]
	// A centroid's cell: it lies in the grid's box, so (x-origin)*inv is
	// in [0, dims], where truncation is Floor.
	ox, oy, oz, inv := g.origin[0], g.origin[1], g.origin[2], g.inv
	dx, dy, dz := g.dims[0], g.dims[1], g.dims[2]
	for t, used := range emitted {
		if !used {
			p := &geom[t].c
			x := min(max(int((float64(p[0])-ox)*inv), 0), dx-1)
			y := min(max(int((float64(p[1])-oy)*inv), 0), dy-1)
			z := min(max(int((float64(p[2])-oz)*inv), 0), dz-1)
			c := (z*dy+y)*dx + x
			at[t] = uint32(c)
			off[c]++
		}
	}
	sum := uint32(0)
	for c := range cnt {
		n := off[c]
		cnt[c] = n
		sum += n
		off[c] = sum
	}
	off[cells] = sum
	tri := make([]uint32, sum)
	for t := len(emitted) - 1; t >= 0; t-- {
		if !emitted[t] {
			c := at[t]
			off[c]--
			tri[off[c]] = uint32(t)
		}
	}
	g.off, g.cnt, g.tri = off, cnt, tri
	return g
}

// gridCells is how many cells of the given size cover mn..mx (each axis
// capped at gridMaxCells+1, as newCellGrid sizes its grid).
func gridCells(mn, mx [3]float64, size float64) int {
	cells := 1
	for k := 0; k < 3; k++ {
		cells *= min(int((mx[k]-mn[k])/size)+1, gridMaxCells+1)
	}
	return cells
}

// coord is the cell index of x along axis k, clamped to the grid.
func (g *cellGrid) coord(x float64, k int) int {
	i := int(math.Floor((x - g.origin[k]) * g.inv))
	return max(0, min(i, g.dims[k]-1))
}

// nearest returns the unused triangle whose centroid is nearest q and
// within the radius (the lowest index on ties), or noTriangle.
func (g *cellGrid) nearest(q [3]float32, geom []triGeom, emitted []bool) uint32 {
	best, _ := g.search(q, geom, emitted, g.rings, g.r2, false)
	return best
}

// nearestAny returns the unused triangle whose centroid is nearest q at
// any distance (the lowest index on ties; noTriangle when the grid holds
// none) and how many cells and points it visited. It widens the ring
// scan to the whole grid, stopping once every cell left is strictly
// farther than the nearest found, so a tie outside the scanned block
// cannot be missed.
func (g *cellGrid) nearestAny(q [3]float32, geom []triGeom, emitted []bool) (uint32, int) {
	return g.search(q, geom, emitted, max(g.dims[0], g.dims[1], g.dims[2]), math.Inf(1), true)
}

// search is nearest out to rings rings and squared radius r2; strict
// stops only when the nearest found is strictly nearer than the cells
// left. It also returns how many cells and points it visited.
func (g *cellGrid) search(q [3]float32, geom []triGeom, emitted []bool, rings int, r2 float64, strict bool) (uint32, int) {
	qd := [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
	var qc [3]int
	inside := true
	for k := 0; k < 3; k++ {
		i := math.Floor((qd[k] - g.origin[k]) * g.inv)
		inside = inside && i >= 0 && i < float64(g.dims[k])
		qc[k] = g.coord(qd[k], k)
	}
	best, bestD := uint32(noTriangle), r2
	visited := 0
	qx, qy, qz := qc[0], qc[1], qc[2]
	dx, dy, dz := g.dims[0], g.dims[1], g.dims[2]
	for ring := 1; ring <= rings; ring++ {
		// The cells exactly ring cells from the query's cell (for ring
		// 1, the whole 3×3×3 block around it): full rows on the two z
		// faces and two y faces, the two x ends of the other rows.
		x0, x1 := max(qx-ring, 0), min(qx+ring, dx-1)
		for z := max(qz-ring, 0); z <= min(qz+ring, dz-1); z++ {
			for y := max(qy-ring, 0); y <= min(qy+ring, dy-1); y++ {
				row := (z*dy + y) * dx
				if ring == 1 || abs(z-qz) == ring || abs(y-qy) == ring {
					for x := x0; x <= x1; x++ {
						visited += 1 + int(g.cnt[row+x])
						best, bestD = g.scanCell(row+x, &qd, geom, emitted, best, bestD)
					}
					continue
				}
				if x := qx - ring; x >= 0 {
					visited += 1 + int(g.cnt[row+x])
					best, bestD = g.scanCell(row+x, &qd, geom, emitted, best, bestD)
				}
				if x := qx + ring; x < dx {
					visited += 1 + int(g.cnt[row+x])
					best, bestD = g.scanCell(row+x, &qd, geom, emitted, best, bestD)
				}
			}
		}
		// Every cell outside this block is more than ring cells away from
		// the query's cell, so farther than ring*size from q.
		if lim2 := float64(float64(ring)*g.size) * float64(float64(ring)*g.size); inside && (bestD < lim2 || !strict && bestD == lim2) {
			break
		}
	}
	return best, visited
}

// scanCell updates the nearest triangle with cell c's unused triangles,
// dropping the used ones from the cell.
func (g *cellGrid) scanCell(c int, qd *[3]float64, geom []triGeom, emitted []bool, best uint32, bestD float64) (uint32, float64) {
	lo := int(g.off[c])
	lst := g.tri[lo : lo+int(g.cnt[c])]
	for i := 0; i < len(lst); {
		t := lst[i]
		if emitted[t] {
			lst[i] = lst[len(lst)-1]
			lst = lst[:len(lst)-1]
			continue
		}
		i++
		if d := sqDist(qd[0], qd[1], qd[2], &geom[t].c); d < bestD || (d == bestD && t < best) {
			best, bestD = t, d
		}
	}
	g.cnt[c] = uint32(len(lst))
	return best, bestD
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
