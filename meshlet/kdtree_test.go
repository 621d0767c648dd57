package meshlet

import (
	"math"
	"testing"
)

// nearest agrees with a brute-force search while points are removed,
// including clustered and coincident points that force count splits.
func TestKDTreeNearestMatchesBruteForce(t *testing.T) {
	g := lcg(21)
	var pts [][3]float32
	for i := 0; i < 3000; i++ {
		switch i % 3 {
		case 0: // spread out
			pts = append(pts, [3]float32{g.float() * 100, g.float() * 100, g.float() * 100})
		case 1: // a tight cluster
			pts = append(pts, [3]float32{50 + g.float()*1e-5, 50, 50})
		default: // exact duplicates
			pts = append(pts, [3]float32{7, 7, 7})
		}
	}
	kd := newKDTree(pts)
	gone := make([]bool, len(pts))
	for step := 0; step < 3000; step++ {
		q := [3]float32{g.float() * 100, g.float() * 100, g.float() * 100}
		if step%4 == 0 {
			q = [3]float32{50, 50, 50}
		}
		qd := [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
		want := math.Inf(1)
		for i, p := range pts {
			if !gone[i] {
				want = math.Min(want, dist2(qd, p))
			}
		}
		got := kd.nearest(q)
		if math.IsInf(want, 1) {
			if got != -1 {
				t.Fatalf("step %d: got %d from an empty tree", step, got)
			}
			break
		}
		if got < 0 || gone[got] || dist2(qd, pts[got]) != want {
			t.Fatalf("step %d: nearest %d, want distance %v", step, got, want)
		}
		gone[got] = true
		kd.remove(got)
	}
	if kd.nearest([3]float32{}) != -1 {
		t.Fatal("tree not empty after removing every point")
	}
}
