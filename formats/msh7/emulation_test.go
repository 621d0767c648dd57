package msh7

import (
	"encoding/binary"
	"math"
	"testing"
	"unsafe"
)

// The compute-emulation record: 64 bytes, fields at the seed's offsets,
// both in the Go struct (so it can be copied to a GPU buffer as is) and in
// AppendEmulationVertex's bytes.
func TestEmulationVertexLayout(t *testing.T) {
	var v EmulationVertex
	if s := unsafe.Sizeof(v); s != EmulationVertexSize || EmulationVertexSize != 64 {
		t.Fatalf("size %d, want 64", s)
	}
	for _, f := range []struct {
		name      string
		got, want uintptr
	}{
		{"Position", unsafe.Offsetof(v.Position), EmuPositionOffset},
		{"Normal", unsafe.Offsetof(v.Normal), EmuNormalOffset},
		{"Tangent", unsafe.Offsetof(v.Tangent), EmuTangentOffset},
		{"UV0", unsafe.Offsetof(v.UV0), EmuUV0Offset},
		{"Color", unsafe.Offsetof(v.Color), EmuColorOffset},
		{"WorldPosition", unsafe.Offsetof(v.WorldPosition), EmuWorldPositionOffset},
	} {
		if f.got != f.want {
			t.Errorf("%s at %d, want %d", f.name, f.got, f.want)
		}
	}
	// The seed's numbers, literally.
	if EmuPositionOffset != 0 || EmuNormalOffset != 16 || EmuTangentOffset != 24 || EmuUV0Offset != 32 || EmuColorOffset != 40 || EmuWorldPositionOffset != 48 {
		t.Fatal("offset constants drifted from formats.md §4")
	}

	v = EmulationVertex{
		Position:      [4]float32{1, 2, 3, 1},
		Normal:        [4]Half{HalfOf(0), HalfOf(0), HalfOf(1), 0},
		Tangent:       [4]Half{HalfOf(1), 0, 0, HalfOf(-1)},
		UV0:           [2]float32{0.25, 0.75},
		Color:         [4]Half{HalfOf(1), HalfOf(0.5), HalfOf(0.25), HalfOf(1)},
		WorldPosition: [4]float32{11, 12, 13, 1},
	}
	b := AppendEmulationVertex([]byte{0xEE}, v)[1:]
	if len(b) != 64 {
		t.Fatalf("%d bytes", len(b))
	}
	le := binary.LittleEndian
	f32 := func(at int) float32 { return math.Float32frombits(le.Uint32(b[at:])) }
	h := func(at int) Half { return Half(le.Uint16(b[at:])) }
	if f32(0) != 1 || f32(8) != 3 || f32(12) != 1 {
		t.Error("position bytes")
	}
	if h(16+4) != HalfOf(1) || h(24) != HalfOf(1) || h(24+6) != HalfOf(-1) {
		t.Error("normal/tangent bytes")
	}
	// Two packed words per half4, low half first.
	if le.Uint32(b[40:]) != uint32(HalfOf(1))|uint32(HalfOf(0.5))<<16 {
		t.Error("color word 0")
	}
	if f32(32) != 0.25 || f32(36) != 0.75 || f32(48) != 11 || f32(60) != 1 {
		t.Error("uv0/world bytes")
	}
	// The struct's memory is the record (little-endian hosts).
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&v)), 64)
	if string(mem) != string(b) && le.Uint16([]byte{1, 0}) == 1 {
		t.Error("struct memory differs from AppendEmulationVertex")
	}
}

// File.EmulationVertex decodes through the refs and applies the world
// matrix.
func TestFileEmulationVertex(t *testing.T) {
	f := mustBuild(t, staticQuad())
	world := [16]float32{2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 10, 20, 30, 1}
	// Local vertex 2 is source vertex 2 = (1, 1, 0), tangent sign -1.
	v, err := f.EmulationVertex(0, 2, &world)
	if err != nil {
		t.Fatal(err)
	}
	if v.Position != [4]float32{1, 1, 0, 1} || v.WorldPosition != [4]float32{12, 22, 30, 1} {
		t.Fatalf("position %v world %v", v.Position, v.WorldPosition)
	}
	if v.Tangent[3].Float32() != -1 || v.Normal[2].Float32() != 1 || v.Color != [4]Half{HalfOf(1), HalfOf(1), HalfOf(1), HalfOf(1)} || v.UV0 != [2]float32{1, 0} {
		t.Fatalf("attributes %+v", v)
	}
	if _, err := f.EmulationVertex(0, 4, nil); err == nil {
		t.Fatal("local vertex 4 of 4 accepted")
	}
	if _, err := f.EmulationVertex(1, 0, nil); err == nil {
		t.Fatal("meshlet 1 of 1 accepted")
	}
}
