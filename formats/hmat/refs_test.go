package hmat

import (
	"reflect"
	"testing"
)

// fnv1a64 is an independent FNV-1a 64 (offset basis 14695981039346656037,
// prime 1099511628211), so Hash is not checked against hash/fnv alone.
func fnv1a64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func TestHash(t *testing.T) {
	// Frozen: a change here breaks every cooked asset's material refs.
	if got := Hash("models/chair/leather"); got != 0x5593b4deb18216f7 {
		t.Errorf("Hash(models/chair/leather) = %#x", got)
	}
	if got := Hash(""); got != 0xcbf29ce484222325 {
		t.Errorf("Hash(\"\") = %#x, want the FNV-1a 64 offset basis", got)
	}
	for _, s := range []string{"models/chair/leather", "models/chair/material_0", "a", "props/lamp/image_3"} {
		if Hash(s) != fnv1a64(s) {
			t.Errorf("Hash(%q) = %#x, independent FNV-1a %#x", s, Hash(s), fnv1a64(s))
		}
	}
}

func TestSourceRef(t *testing.T) {
	cases := map[string]string{
		"assets/models/chair.glb":     "models/chair",
		"models/chair.glb":            "models/chair",
		`Assets\Props\Lamp.GLTF`:      "props/lamp",
		"./assets/a/b.v2.glb":         "a/b.v2",
		"assets/x/../y/Tree.fbx":      "y/tree",
		"/assets/models/crate.gltf":   "models/crate",
		"other/assets/models/box.glb": "other/assets/models/box",
	}
	for in, want := range cases {
		if got := SourceRef(in); got != want {
			t.Errorf("SourceRef(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLeaves(t *testing.T) {
	cases := []struct {
		names []string
		want  []string
	}{
		{[]string{"Wood", "", "Leather", "Wood"}, []string{"material_0", "material_1", "leather", "material_3"}},
		{[]string{"Wood", "wood"}, []string{"material_0", "material_1"}}, // unique only case-insensitively
		{[]string{"Metal"}, []string{"metal"}},
		// A name equal to another entry's fallback falls back too.
		{[]string{"material_1", ""}, []string{"material_0", "material_1"}},
		{[]string{"material_2", "material_1", ""}, []string{"material_0", "material_1", "material_2"}},
		{nil, []string{}},
	}
	for _, c := range cases {
		got := Leaves(c.names, MaterialPrefix)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Leaves(%q) = %q, want %q", c.names, got, c.want)
		}
		for i := range c.names {
			if l := Leaf(c.names, i, MaterialPrefix); l != c.want[i] {
				t.Errorf("Leaf(%q, %d) = %q", c.names, i, l)
			}
		}
	}
	if got := Leaf([]string{"", "Albedo"}, 0, ImagePrefix); got != "image_0" {
		t.Errorf("image leaf %q", got)
	}
}

func TestSlots(t *testing.T) {
	slots, order := Slots([]int{2, -1, 0, 2, 0, 3})
	if !reflect.DeepEqual(slots, []uint32{0, NoMaterial, 1, 0, 1, 2}) || !reflect.DeepEqual(order, []int{2, 0, 3}) {
		t.Errorf("Slots = %v, %v", slots, order)
	}
	slots, order = Slots(nil)
	if len(slots) != 0 || len(order) != 0 {
		t.Errorf("empty: %v %v", slots, order)
	}
}

// Why: formats.md's worked example is the contract for MTRL.
func TestChairExample(t *testing.T) {
	names := []string{"Wood", "", "Leather", "Wood"}
	src := SourceRef("assets/models/chair.glb")
	slots, order := Slots([]int{2, 0})
	var mtrl []uint64
	for _, m := range order {
		mtrl = append(mtrl, Hash(Ref(src, Leaf(names, m, MaterialPrefix))))
	}
	want := []uint64{fnv1a64("models/chair/leather"), fnv1a64("models/chair/material_0")}
	if !reflect.DeepEqual(mtrl, want) || !reflect.DeepEqual(slots, []uint32{0, 1}) {
		t.Fatalf("MTRL = %#x slots %v, want %#x [0 1]", mtrl, slots, want)
	}
	if mtrl[0] != 0x5593b4deb18216f7 {
		t.Errorf("MTRL[0] = %#x", mtrl[0])
	}
}
