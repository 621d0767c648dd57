package meshlet_test

import (
	"fmt"

	"github.com/meshcook/meshcook/meshlet"
)

// Two triangles forming a quad fit one meshlet; its cone points along +Z.
func ExampleBuild() {
	positions := [][3]float32{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}
	indices := []uint32{0, 1, 2, 0, 2, 3}
	r, err := meshlet.Build(indices, positions, meshlet.DefaultOptions())
	if err != nil {
		panic(err)
	}
	b := meshlet.ComputeBounds(r, 0, positions)
	fmt.Println(len(r.Meshlets), r.Meshlets[0].VertexCount, r.Meshlets[0].TriangleCount)
	fmt.Println(r.Vertices, r.Triangles)
	fmt.Println(b.Center, b.ConeAxis, b.ConeCutoff < 0.01)
	// Output:
	// 1 4 2
	// [0 1 2 3] [0 1 2 0 2 3]
	// [0.5 0.5 0] [0 0 1] true
}
