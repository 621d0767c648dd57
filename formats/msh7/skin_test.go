package msh7

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/mesh"
)

// skinnedQuad is a unit quad in z = 0 with two triangles, skinned to a
// two-joint skeleton. Vertex 1 carries a -0 weight and vertex 2 joint 65535
// with weight 0, both of which must survive bit for bit.
func skinnedQuad() Input {
	negZero := float32(math.Copysign(0, -1))
	in := Input{
		Positions: []mesh.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
		Normals:   []mesh.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		Tangents:  []mesh.Vec4{{1, 0, 0, 1}, {1, 0, 0, 1}, {1, 0, 0, -1}, {1, 0, 0, 1}},
		UV0:       []mesh.Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
		Skin: &Skin{
			Joints:  [][4]uint16{{0, 0, 0, 0}, {1, 0, 0, 0}, {1, 65535, 0, 0}, {0, 1, 0, 0}},
			Weights: []mesh.Vec4{{1, 0, 0, 0}, {1, negZero, 0, 0}, {1, 0, 0, 0}, {0.25, 0.75, 0, 0}},
			Skeleton: &mesh.Skeleton{Joints: []mesh.Joint{
				{Name: "root", Parent: -1, InverseBind: ident(), BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}},
				{Name: "tip", Parent: 0, InverseBind: ident(), BindT: mesh.Vec3{0, 1, 0}, BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}},
			}},
		},
	}
	in.Meshlets = []InputMeshlet{{Vertices: []uint32{0, 1, 2, 3}, Triangles: []uint8{0, 1, 2, 0, 2, 3}}}
	return in
}

func ident() [16]float32 { return [16]float32{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1} }

func TestSkinnedRoundTrip(t *testing.T) {
	in := skinnedQuad()
	f := mustBuild(t, in)
	if f.Class != ClassSkinned || len(f.Skin) != 4 || len(f.Joints) != 2 || len(f.InverseBinds) != 2 {
		t.Fatalf("class %d, %d skin, %d joints, %d inverse binds", f.Class, len(f.Skin), len(f.Joints), len(f.InverseBinds))
	}
	b := mustEncode(t, f)
	g, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Fatal("decoded file differs")
	}
	refs, err := g.DecodeRefs(0)
	if err != nil {
		t.Fatal(err)
	}
	// Each source vertex's influence, bit for bit, through the skin refs.
	d := g.Meshlets[0]
	for i, l := range in.Meshlets[0].Triangles {
		src := in.Meshlets[0].Vertices[l]
		lv := g.LocalVertices[int(d.LocalVertexOffset)+int(g.Primitives[i])]
		s := g.Skin[refs.Skin[lv.Position]]
		if s.Joints != in.Skin.Joints[src] {
			t.Fatalf("vertex %d: joints %v, want %v", src, s.Joints, in.Skin.Joints[src])
		}
		for k := range 4 {
			if math.Float32bits(s.Weights[k]) != math.Float32bits(in.Skin.Weights[src][k]) {
				t.Fatalf("vertex %d: weight %d bits %#x, want %#x", src, k, math.Float32bits(s.Weights[k]), math.Float32bits(in.Skin.Weights[src][k]))
			}
		}
	}
	// Byte level: the influence of the first skin record with joint 65535.
	lay, _ := layoutOf(g.fileCounts())
	found := false
	for i, s := range g.Skin {
		if s.Joints[1] == 65535 {
			at := lay.skin + uint64(i)*InfluenceSize
			if w0 := uint32(b[at]) | uint32(b[at+1])<<8 | uint32(b[at+2])<<16 | uint32(b[at+3])<<24; w0 != 1|65535<<16 {
				t.Fatalf("joint word 0 = %#x, want %#x", w0, uint32(1|65535<<16))
			}
			found = true
		}
	}
	if !found {
		t.Fatal("joint 65535 lost")
	}
	if g.Joints[1].Parent != 0 || g.Joints[0].Parent != -1 || g.Joints[1].BindT != [3]float32{0, 1, 0} {
		t.Fatalf("joints %+v", g.Joints)
	}
}

// Joint 65535 with a non-zero weight is valid when the skeleton has 65536
// joints, and the file still passes meshcheck.
func TestSkinJoint65535WithFullSkeleton(t *testing.T) {
	in := skinnedQuad()
	in.Skin.Weights[2] = mesh.Vec4{0.5, 0.5, 0, 0}
	joints := make([]mesh.Joint, MaxJoints)
	for i := range joints {
		joints[i] = mesh.Joint{Parent: i - 1, InverseBind: ident(), BindR: mesh.Vec4{0, 0, 0, 1}, BindS: mesh.Vec3{1, 1, 1}}
	}
	in.Skin.Skeleton = &mesh.Skeleton{Joints: joints}
	f := mustBuild(t, in)
	b := mustEncode(t, f)
	if _, err := Decode(b); err != nil {
		t.Fatal(err)
	}

	// With 2 joints the same weight makes joint 65535 invalid.
	in.Skin.Skeleton = skinnedQuad().Skin.Skeleton
	if _, err := Build(in); err == nil || !strings.Contains(err.Error(), "joint 65535") {
		t.Fatalf("Build with joint 65535 of 2: %v", err)
	}
}

// A static mesh has no skin channel: skin base NoSkin, width 0.
func TestStaticHasNoSkinChannel(t *testing.T) {
	in := skinnedQuad()
	in.Skin = nil
	f := mustBuild(t, in)
	if f.Class != ClassStatic || f.Meshlets[0].SkinBase != NoSkin || f.Meshlets[0].Width(ChanSkin) != 0 {
		t.Fatalf("static: class %d skin base %#x", f.Class, f.Meshlets[0].SkinBase)
	}
	// Positions 0 and 2 differ only in skin in the skinned build; here
	// the quad's four positions stay four.
	if len(f.Positions) != 4 || len(f.PositionRefs) != 4 {
		t.Fatalf("%d positions, %d position-ref bytes", len(f.Positions), len(f.PositionRefs))
	}
	if _, err := Decode(mustEncode(t, f)); err != nil {
		t.Fatal(err)
	}
}
