package msh7

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/meshlet"
)

// meshletInput is in with meshlets from meshcook's own builder at the MSH7
// limits and their bounds passed straight through, as the cook does.
func meshletInput(t testing.TB, in Input) Input {
	t.Helper()
	pos := make([][3]float32, len(in.Positions))
	for i, p := range in.Positions {
		pos[i] = p
	}
	r, err := meshlet.Build(in.Indices, pos, meshlet.Options{MaxVertices: MaxVertices, MaxTriangles: MaxTriangles, ConeWeight: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	bounds := meshlet.ComputeAllBounds(r, pos)
	in.Meshlets = nil
	for i, m := range r.Meshlets {
		b := bounds[i]
		in.Meshlets = append(in.Meshlets, InputMeshlet{
			Vertices:  r.Vertices[m.VertexOffset : m.VertexOffset+m.VertexCount],
			Triangles: r.Triangles[3*m.TriangleOffset : 3*(m.TriangleOffset+m.TriangleCount)],
			Bounds:    &SourceBounds{b.Center, b.Radius, b.ConeAxis, b.ConeCutoff},
		})
	}
	return in
}

// Built files pass the independent checker, run once over all of them.
func TestMeshcheckBuiltFiles(t *testing.T) {
	full := skinnedQuad()
	full.Skin.Weights[2] = mesh.Vec4{0.5, 0.5, 0, 0}
	joints := make([]mesh.Joint, MaxJoints)
	for i := range joints {
		joints[i] = mesh.Joint{Parent: i - 1, InverseBind: ident(), BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}}
	}
	full.Skin.Skeleton = &mesh.Skeleton{Joints: joints}
	skinnedSphere := sphereInput(10, 20, 1)
	skinnedSphere.Skin = &Skin{}
	for i := range skinnedSphere.Positions {
		skinnedSphere.Skin.Joints = append(skinnedSphere.Skin.Joints, [4]uint16{uint16(i % 3), 2, 0, 0})
		skinnedSphere.Skin.Weights = append(skinnedSphere.Skin.Weights, mesh.Vec4{0.75, 0.25, 0, 0})
	}
	skinnedSphere.Skin.Skeleton = &mesh.Skeleton{Joints: joints[:3]}

	cases := map[string]Input{
		"static_quad":       staticQuad(),
		"skinned_quad":      skinnedQuad(),
		"joint65535":        full,
		"sphere_greedy":     withMeshlets(sphereInput(16, 32, 2)),
		"sphere_meshlet":    meshletInput(t, sphereInput(24, 48, 5)),
		"skinned_sphere":    meshletInput(t, skinnedSphere),
		"strip_u8":          stripInput(200),
		"strip_u16":         stripInput(300),
		"sphere_no_streams": withMeshlets(Input{Positions: sphereInput(6, 12, 1).Positions, Normals: sphereInput(6, 12, 1).Normals, Indices: sphereInput(6, 12, 1).Indices}),
	}
	dir := t.TempDir()
	var paths []string
	for name, in := range cases {
		p := filepath.Join(dir, name+".msh7")
		if err := os.WriteFile(p, mustEncode(t, mustBuild(t, in)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, fx := range []string{"quad.msh7.hex", "skinned_quad.msh7.hex"} {
		p := filepath.Join(dir, fx+".msh7")
		if err := os.WriteFile(p, readHex(t, filepath.Join("testdata", fx)), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	tool := testkit.Meshcheck(t)
	out, err := exec.Command("python3", append([]string{tool, "--json"}, paths...)...).Output()
	sc := bufio.NewScanner(bytes.NewReader(out))
	n := 0
	for sc.Scan() {
		var r struct {
			File  string `json:"file"`
			OK    bool   `json:"ok"`
			Error string `json:"error"`
			Kind  string `json:"kind"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("meshcheck output %q: %v", sc.Text(), err)
		}
		n++
		if !r.OK || r.Kind != "msh7" {
			t.Errorf("%s: meshcheck: %s", filepath.Base(r.File), r.Error)
		}
	}
	if n != len(paths) {
		t.Fatalf("meshcheck reported %d of %d files (exit %v): %s", n, len(paths), err, out)
	}
}

// meshcook's meshlets go straight into Build: bounds are accepted, cones
// stay enabled on a smooth sphere, and the corners decode to the source.
func TestBuildFromMeshletPackage(t *testing.T) {
	src := sphereInput(24, 48, 5)
	in := meshletInput(t, src)
	f := mustBuild(t, in)
	greedy := mustBuild(t, withMeshlets(src))
	cones := 0
	for _, b := range f.Bounds {
		if b.Cone != 0 {
			cones++
		}
	}
	if cones*2 < len(f.Bounds) {
		t.Errorf("only %d of %d meshlets keep a cone", cones, len(f.Bounds))
	}
	t.Logf("%d triangles: meshlet.Build %d meshlets (%d cones), in-order greedy %d; %d position-ref and %d attribute-ref bytes",
		len(src.Indices)/3, len(f.Meshlets), cones, len(greedy.Meshlets), len(f.PositionRefs), len(f.AttributeRefs))
}
