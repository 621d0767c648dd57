package payload

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// quatYXZ builds q = qy(yaw)·qx(pitch)·qz(roll) (xyzw), the rotation
// R = Ry·Rx·Rz that EulerYXZDegrees decomposes.
func quatYXZ(pitch, yaw, roll float64) [4]float32 {
	mul := func(a, b [4]float64) [4]float64 {
		return [4]float64{
			a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
			a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
			a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
			a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
		}
	}
	r := math.Pi / 180
	qy := [4]float64{0, math.Sin(yaw * r / 2), 0, math.Cos(yaw * r / 2)}
	qx := [4]float64{math.Sin(pitch * r / 2), 0, 0, math.Cos(pitch * r / 2)}
	qz := [4]float64{0, 0, math.Sin(roll * r / 2), math.Cos(roll * r / 2)}
	q := mul(mul(qy, qx), qz)
	return [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), float32(q[3])}
}

// rotYXZ is the row-major matrix Ry(yaw)·Rx(pitch)·Rz(roll).
func rotYXZ(e [3]float32) [3][3]float64 {
	r := math.Pi / 180
	sp, cp := math.Sincos(float64(e[0]) * r)
	sy, cy := math.Sincos(float64(e[1]) * r)
	sr, cr := math.Sincos(float64(e[2]) * r)
	return [3][3]float64{
		{cy*cr + sy*sp*sr, -cy*sr + sy*sp*cr, sy * cp},
		{cp * sr, cp * cr, -sp},
		{-sy*cr + cy*sp*sr, sy*sr + cy*sp*cr, cy * cp},
	}
}

func TestEulerYXZDegrees(t *testing.T) {
	cases := [][3]float64{{0, 0, 0}, {30, 0, 0}, {0, 45, 0}, {0, 0, -60}, {10, 20, 30}, {-80, 170, -100}, {45, -135, 90}}
	for _, c := range cases {
		got := EulerYXZDegrees(quatYXZ(c[0], c[1], c[2]))
		for k := range 3 {
			if math.Abs(float64(got[k])-c[k]) > 1e-3 {
				t.Errorf("angles %v: got %v", c, got)
				break
			}
		}
	}
	// A non-unit quaternion is normalised first.
	q := quatYXZ(10, 20, 30)
	for k := range q {
		q[k] *= 3
	}
	if got := EulerYXZDegrees(q); math.Abs(float64(got[2])-30) > 1e-3 {
		t.Errorf("scaled quaternion: %v", got)
	}
	if got := EulerYXZDegrees([4]float32{}); got != [3]float32{} {
		t.Errorf("zero quaternion: %v", got)
	}
	// Gimbal lock (pitch ±90°): roll is folded into yaw and set to 0, and the
	// angles still rebuild the same rotation.
	for _, c := range [][3]float64{{90, 30, 20}, {-90, 10, 50}} {
		q := quatYXZ(c[0], c[1], c[2])
		got := EulerYXZDegrees(q)
		if got[2] != 0 || math.Abs(math.Abs(float64(got[0]))-90) > 1e-2 {
			t.Errorf("gimbal %v: got %v, want pitch ±90 and roll 0", c, got)
		}
		want, have := rotYXZ([3]float32{float32(c[0]), float32(c[1]), float32(c[2])}), rotYXZ(got)
		for i := range 3 {
			for j := range 3 {
				if math.Abs(want[i][j]-have[i][j]) > 1e-3 {
					t.Fatalf("gimbal %v: %v does not rebuild the rotation", c, got)
				}
			}
		}
	}
}

func TestReorderJoints(t *testing.T) {
	// Children listed before parents: hand(0) → arm(2) → root(1), leg(3) → root.
	in := []Joint{{Name: "hand", Parent: 2}, {Name: "root", Parent: -1}, {Name: "arm", Parent: 1}, {Name: "leg", Parent: 1}}
	out, remap, err := ReorderJoints(in)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, j := range out {
		names = append(names, j.Name)
	}
	if strings.Join(names, ",") != "root,arm,hand,leg" {
		t.Fatalf("order %v", names)
	}
	if !reflect.DeepEqual(remap, []int{2, 0, 1, 3}) {
		t.Fatalf("remap %v", remap)
	}
	for i, j := range out {
		if int(j.Parent) >= i {
			t.Fatalf("joint %d parent %d not before it", i, j.Parent)
		}
	}
	if out[2].Parent != 1 || out[3].Parent != 0 || out[1].Parent != 0 {
		t.Fatalf("parents not remapped: %+v", out)
	}
	vs := []SkinnedVertex{{Joints: [4]uint16{0, 1, 2, 3}}}
	if err := RemapVertexJoints(vs, remap); err != nil || vs[0].Joints != [4]uint16{2, 0, 1, 3} {
		t.Fatalf("vertex joints %v, %v", vs[0].Joints, err)
	}
	if err := RemapVertexJoints([]SkinnedVertex{{Joints: [4]uint16{4}}}, remap); err == nil {
		t.Fatal("joint past remap accepted")
	}
	// Already parents-first: identity.
	same := []Joint{{Parent: -1}, {Parent: 0}, {Parent: 0}, {Parent: 2}}
	if _, remap, _ := ReorderJoints(same); !reflect.DeepEqual(remap, []int{0, 1, 2, 3}) {
		t.Fatalf("stable order broken: %v", remap)
	}
	if _, _, err := ReorderJoints([]Joint{{Parent: 1}, {Parent: 0}}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Fatalf("cycle: %v", err)
	}
	if _, _, err := ReorderJoints([]Joint{{Parent: 0}}); err == nil {
		t.Fatal("self parent accepted")
	}
	if _, _, err := ReorderJoints([]Joint{{Parent: 5}}); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("bad parent: %v", err)
	}
}

func TestNormalizeWeights(t *testing.T) {
	if got := NormalizeWeights([4]float32{2, 2, 0, 0}); got != [4]float32{0.5, 0.5, 0, 0} {
		t.Errorf("got %v", got)
	}
	if got := NormalizeWeights([4]float32{1e-7, 0, 0, 0}); got != [4]float32{1, 0, 0, 0} {
		t.Errorf("weightless: %v", got)
	}
}

func TestDefaultSwitchDistance(t *testing.T) {
	cases := []struct {
		r    float32
		k    int
		want float32
	}{
		{1, 1, 12}, {1, 2, 24}, {1, 3, 48}, {0.1, 1, 3}, {0.25, 2, 6}, {2.5, 1, 30}, {1, 0, 12},
	}
	for _, c := range cases {
		if got := DefaultSwitchDistance(c.r, c.k); got != c.want {
			t.Errorf("r=%g k=%d: got %g, want %g", c.r, c.k, got, c.want)
		}
	}
	min, max := Bounds(quad().Vertices)
	if min != [3]float32{0, 0, 0} || max != [3]float32{1, 1, 0} {
		t.Fatalf("bounds %v %v", min, max)
	}
	if r := HalfDiagonal(min, max); math.Abs(float64(r)-math.Sqrt2/2) > 1e-7 {
		t.Fatalf("half diagonal %g", r)
	}
}

// grid returns an n×n vertex grid's triangle list.
func grid(n int) []uint32 {
	var idx []uint32
	for r := 0; r+1 < n; r++ {
		for c := 0; c+1 < n; c++ {
			v := uint32(r*n + c)
			idx = append(idx, v, v+1, v+uint32(n), v+1, v+uint32(n)+1, v+uint32(n))
		}
	}
	return idx
}

// A 300×300 grid (90,000 vertices) splits into two chunks that together
// hold every triangle in order, each under the u16 limit, sharing the
// boundary row by duplication.
func TestSplitChunks(t *testing.T) {
	const n = 300
	idx := grid(n)
	if !NeedsSplit(n * n) {
		t.Fatal("90000 vertices must need a split")
	}
	chunks, err := SplitChunks(idx, n*n)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 2 {
		t.Fatalf("%d chunks, want 2", len(chunks))
	}
	var rebuilt []uint32
	total := 0
	for k, c := range chunks {
		if len(c.Vertices) > MaxChunkVertices {
			t.Fatalf("chunk %d: %d vertices", k, len(c.Vertices))
		}
		seen := map[uint32]bool{}
		for _, v := range c.Vertices {
			if seen[v] {
				t.Fatalf("chunk %d lists vertex %d twice", k, v)
			}
			seen[v] = true
		}
		for _, x := range c.Indices {
			rebuilt = append(rebuilt, c.Vertices[x])
		}
		total += len(c.Vertices)
	}
	if !reflect.DeepEqual(rebuilt, idx) {
		t.Fatal("chunks do not hold the triangles in order")
	}
	if len(chunks[0].Vertices) > MaxChunkVertices || len(chunks[0].Vertices) < MaxChunkVertices-2 {
		t.Fatalf("first chunk not filled greedily: %d vertices", len(chunks[0].Vertices))
	}
	if total <= n*n {
		t.Fatalf("no shared vertex duplicated: %d total", total)
	}
	// Each chunk encodes as a valid payload.
	for _, c := range chunks {
		m := &Static{Vertices: make([]Vertex, len(c.Vertices)), Indices: c.Indices}
		if err := Validate(m); err != nil {
			t.Fatal(err)
		}
	}
	if NeedsSplit(65535) || !NeedsSplit(65536) {
		t.Fatal("NeedsSplit threshold")
	}
	if ChunkName("tree", 1, 2) != "tree_prim_1_chunk_2" {
		t.Fatal("ChunkName")
	}
}

func TestSplitChunksSmallAndInvalid(t *testing.T) {
	chunks, err := SplitChunks([]uint32{2, 0, 2, 2, 1, 0}, 3)
	if err != nil || len(chunks) != 1 {
		t.Fatalf("%v %v", chunks, err)
	}
	if !reflect.DeepEqual(chunks[0], Chunk{Vertices: []uint32{2, 0, 1}, Indices: []uint16{0, 1, 0, 0, 2, 1}}) {
		t.Fatalf("got %+v", chunks[0])
	}
	// A huge vertex count costs nothing: working memory follows the indices.
	if c, err := SplitChunks([]uint32{0, 1, 2}, 1<<40); err != nil || len(c) != 1 || len(c[0].Vertices) != 3 {
		t.Fatalf("huge vertex count: %v", err)
	}
	if c, err := SplitChunks(nil, 0); c != nil || err != nil {
		t.Fatal("empty input")
	}
	if _, err := SplitChunks([]uint32{0, 1}, 2); err == nil {
		t.Fatal("non-triangle count accepted")
	}
	if _, err := SplitChunks([]uint32{0, 1, 3}, 3); err == nil {
		t.Fatal("index past vertex count accepted")
	}
}
