package msh7

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
)

// sphereInput is a UV sphere of radius r with every stream filled: unit
// normals, tangents along +longitude, uv0 and a colour gradient.
func sphereInput(rings, segs int, r float32) Input {
	var in Input
	for i := 0; i <= rings; i++ {
		th := math.Pi * float64(i) / float64(rings)
		for j := 0; j <= segs; j++ {
			ph := 2 * math.Pi * float64(j) / float64(segs)
			n := mesh.Vec3{float32(math.Sin(th) * math.Cos(ph)), float32(math.Cos(th)), float32(math.Sin(th) * math.Sin(ph))}
			in.Positions = append(in.Positions, mesh.Vec3{n[0] * r, n[1] * r, n[2] * r})
			in.Normals = append(in.Normals, n)
			in.Tangents = append(in.Tangents, mesh.Vec4{float32(-math.Sin(ph)), 0, float32(math.Cos(ph)), 1})
			in.UV0 = append(in.UV0, mesh.Vec2{float32(j) / float32(segs), float32(i) / float32(rings)})
			in.Colors = append(in.Colors, mesh.Vec4{float32(i) / float32(rings), 0.5, float32(j) / float32(segs), 1})
		}
	}
	row := uint32(segs + 1)
	for i := range uint32(rings) {
		for j := range uint32(segs) {
			a, b := i*row+j, i*row+j+1
			c, d := a+row, b+row
			// Counter-clockwise seen from outside.
			in.Indices = append(in.Indices, a, b, c, b, d, c)
		}
	}
	return in
}

// greedyMeshlets cuts indices into meshlets in triangle order (a test
// stand-in for meshlet.Build), local vertices numbered by first use.
func greedyMeshlets(indices []uint32, maxV, maxT int) []InputMeshlet {
	var out []InputMeshlet
	cur := InputMeshlet{}
	local := map[uint32]uint8{}
	flush := func() {
		if len(cur.Triangles) > 0 {
			out = append(out, cur)
		}
		cur, local = InputMeshlet{}, map[uint32]uint8{}
	}
	for t := 0; t+2 < len(indices); t += 3 {
		tri := indices[t : t+3]
		fresh := 0
		for k, v := range tri {
			if _, ok := local[v]; !ok && !(k > 0 && tri[0] == v) && !(k == 2 && tri[1] == v) {
				fresh++
			}
		}
		if len(cur.Vertices)+fresh > maxV || len(cur.Triangles)/3 >= maxT {
			flush()
		}
		for _, v := range tri {
			l, ok := local[v]
			if !ok {
				l = uint8(len(cur.Vertices))
				local[v] = l
				cur.Vertices = append(cur.Vertices, v)
			}
			cur.Triangles = append(cur.Triangles, l)
		}
	}
	flush()
	return out
}

// withMeshlets returns in with greedy 96/126 meshlets.
func withMeshlets(in Input) Input {
	in.Meshlets = greedyMeshlets(in.Indices, MaxVertices, MaxTriangles)
	return in
}

func mustBuild(t testing.TB, in Input) *File {
	t.Helper()
	f, err := Build(in)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return f
}

func mustEncode(t testing.TB, f *File) []byte {
	t.Helper()
	b, err := Encode(f)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b
}

// meshcheck runs the independent checker on b and returns its output and
// whether it passed; it skips the test when python3 or the tool is absent.
func meshcheck(t *testing.T, b []byte) (string, bool) {
	t.Helper()
	tool := testkit.Meshcheck(t)
	p := filepath.Join(t.TempDir(), "mesh.msh7")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", tool, p).CombinedOutput()
	return strings.TrimSpace(string(out)), err == nil
}

func requireMeshcheck(t *testing.T, b []byte) {
	t.Helper()
	if out, ok := meshcheck(t, b); !ok {
		t.Fatalf("meshcheck failed: %s", out)
	}
}
