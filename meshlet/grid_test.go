package meshlet

import (
	"math"
	"testing"
)

// cellGrid.nearest agrees with a brute-force search within the radius (and
// nearestAny with one at any distance)
// while triangles are used, on clustered, duplicate and wide-spread
// centroids, for queries inside and outside the grid.
func TestCellGridNearestMatchesBruteForce(t *testing.T) {
	g := lcg(33)
	geom := make([]triGeom, 4000)
	for i := range geom {
		switch i % 4 {
		case 0:
			geom[i].c = [3]float32{g.float() * 100, g.float() * 100, g.float() * 3}
		case 1:
			geom[i].c = [3]float32{40 + g.float()*1e-4, 40, 1}
		case 2:
			geom[i].c = [3]float32{7, 7, 7}
		default:
			geom[i].c = [3]float32{g.float() * 1e4, 0, 0} // stretches the grid
		}
	}
	for _, r := range []float64{0.5, 5, 300} {
		emitted := make([]bool, len(geom))
		for i := 0; i < len(geom); i += 7 {
			emitted[i] = true // used before the grid is built
		}
		mn, mx := geomBox(geom)
		unused := 0
		for _, e := range emitted {
			unused += b2i(!e)
		}
		grid := newCellGrid(geom, emitted, unused, r, mn, mx)
		for step := 0; step < 3000; step++ {
			q := [3]float32{g.float()*120 - 10, g.float()*120 - 10, g.float() * 5}
			switch step % 5 {
			case 0:
				q = [3]float32{40, 40, 1}
			case 1:
				q = [3]float32{7, 7, 7.2}
			}
			qd := [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
			want, wantD := uint32(noTriangle), r*r
			for i := range geom {
				if d := dist2(qd, geom[i].c); !emitted[i] && (d < wantD || (d == wantD && uint32(i) < want)) {
					want, wantD = uint32(i), d
				}
			}
			if got := grid.nearest(q, geom, emitted); got != want {
				t.Fatalf("r %v step %d: nearest %d, want %d (distance %v)", r, step, got, want, math.Sqrt(wantD))
			}
			// At any distance: the nearest of all unused triangles.
			anyWant, anyD := uint32(noTriangle), math.Inf(1)
			for i := range geom {
				if d := dist2(qd, geom[i].c); !emitted[i] && (d < anyD || (d == anyD && uint32(i) < anyWant)) {
					anyWant, anyD = uint32(i), d
				}
			}
			if got, _ := grid.nearestAny(q, geom, emitted); got != anyWant {
				t.Fatalf("r %v step %d: nearestAny %d, want %d (distance %v)", r, step, got, anyWant, math.Sqrt(anyD))
			}
			if want != noTriangle {
				emitted[want] = true
			}
		}
	}
}
