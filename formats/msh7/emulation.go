package msh7

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Compute-emulation vertex record (formats.md §4, seed 001's
// NWB_MESH_EMULATION_VERTEX_* contract): the 64-byte vertex the engine's
// compute emulation writes and its raster input layout reads.
const (
	EmulationVertexSize    = 64
	EmuPositionOffset      = 0  // f32×4: object-space position, w = 1
	EmuNormalOffset        = 16 // half×4 (RGBA16_FLOAT)
	EmuTangentOffset       = 24 // half×4 (RGBA16_FLOAT)
	EmuUV0Offset           = 32 // f32×2
	EmuColorOffset         = 40 // half×4 (RGBA16_FLOAT)
	EmuWorldPositionOffset = 48 // f32×4: world-space position, w = 1
)

// EmulationVertex is the 64-byte compute-emulation vertex. Its Go layout is
// the on-GPU layout (no padding; TestEmulationVertexLayout pins it). The
// shader stores each half×4 as two u32 words, low half first, which is the
// same bytes as four little-endian halves.
type EmulationVertex struct {
	Position      [4]float32
	Normal        [4]Half
	Tangent       [4]Half
	UV0           [2]float32
	Color         [4]Half
	WorldPosition [4]float32
}

// AppendEmulationVertex appends v's 64 bytes to dst.
func AppendEmulationVertex(dst []byte, v EmulationVertex) []byte {
	f32 := func(b []byte, xs ...float32) []byte {
		for _, x := range xs {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	half4 := func(b []byte, h [4]Half) []byte {
		// Two packed u32 words, as the compute shader stores them.
		b = binary.LittleEndian.AppendUint32(b, uint32(h[0])|uint32(h[1])<<16)
		return binary.LittleEndian.AppendUint32(b, uint32(h[2])|uint32(h[3])<<16)
	}
	dst = f32(dst, v.Position[:]...)
	dst = half4(dst, v.Normal)
	dst = half4(dst, v.Tangent)
	dst = f32(dst, v.UV0[:]...)
	dst = half4(dst, v.Color)
	return f32(dst, v.WorldPosition[:]...)
}

// EmulationVertex returns the record the engine generates for local vertex
// local of meshlet m: its references decoded, position with w = 1 and the
// world position world·position (world is a column-major affine matrix;
// nil means identity), rounded to float32.
func (f *File) EmulationVertex(m, local int, world *[16]float32) (EmulationVertex, error) {
	refs, err := f.DecodeRefs(m)
	if err != nil {
		return EmulationVertex{}, err
	}
	d := f.Meshlets[m]
	if local < 0 || local >= d.VertexCount() || uint64(d.LocalVertexOffset)+uint64(local) >= uint64(len(f.LocalVertices)) {
		return EmulationVertex{}, fmt.Errorf("msh7: meshlet %d: local vertex %d out of range [0, %d)", m, local, d.VertexCount())
	}
	lv := f.LocalVertices[int(d.LocalVertexOffset)+local]
	if int(lv.Position) >= len(refs.Positions) || int(lv.Attribute) >= len(refs.Normals) {
		return EmulationVertex{}, fmt.Errorf("msh7: meshlet %d: local vertex %d refs out of range", m, local)
	}
	p := f.Positions[refs.Positions[lv.Position]]
	a := int(lv.Attribute)
	v := EmulationVertex{
		Position: [4]float32{p[0], p[1], p[2], 1},
		Normal:   f.Normals[refs.Normals[a]],
		Tangent:  f.Tangents[refs.Tangents[a]],
		UV0:      f.UV0[refs.UV0[a]],
		Color:    f.Colors[refs.Colors[a]],
	}
	v.WorldPosition = [4]float32{p[0], p[1], p[2], 1}
	if world != nil {
		w := world
		for r := range 3 {
			s := float64(w[r])*float64(p[0]) + float64(w[4+r])*float64(p[1]) + float64(w[8+r])*float64(p[2]) + float64(w[12+r])
			v.WorldPosition[r] = float32(s)
		}
	}
	return v, nil
}
