package preview

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"testing"
)

// FuzzRender draws models made from arbitrary bytes (NaN, infinite and
// huge positions, indices past the vertices, meshlet counts that do not
// add up) in every view: Render returns an error or a picture, never
// panics, and draws the same bytes twice.
func FuzzRender(f *testing.F) {
	f.Add([]byte{}, uint8(0), int16(35), int8(25))
	seed := new(bytes.Buffer)
	for _, v := range []float32{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0.5} {
		binary.Write(seed, binary.LittleEndian, v)
	}
	seed.Write([]byte{0, 1, 2, 1, 3, 2})
	f.Add(seed.Bytes(), uint8(1), int16(200), int8(-80))
	f.Add(append(seed.Bytes(), 0xff, 0xff, 0x7f, 0x7f), uint8(6), int16(0), int8(90))
	f.Fuzz(func(t *testing.T, data []byte, view uint8, yaw int16, pitch int8) {
		m := modelFromBytes(data)
		views := append([]View{ViewDefault}, Views()...)
		o := Options{View: views[int(view)%len(views)], Yaw: float64(yaw), Pitch: math.Max(-90, math.Min(90, float64(pitch))), Size: MinSize}
		img, err := Render(context.Background(), m, o)
		if err != nil {
			return
		}
		again, err := Render(context.Background(), m, o)
		if err != nil || !bytes.Equal(img.Pix, again.Pix) {
			t.Fatalf("second draw differs (err %v)", err)
		}
	})
}

// modelFromBytes reads up to 64 vertices (3 float32 positions each), then
// one byte per index, then meshlet sizes, from data; normals and UVs are
// derived from the positions.
func modelFromBytes(data []byte) *Model {
	m := &Model{}
	nv := min(len(data)/24, 64)
	for i := range nv {
		var p [3]float32
		for k := range 3 {
			p[k] = math.Float32frombits(binary.LittleEndian.Uint32(data[12*i+4*k:]))
		}
		m.Positions = append(m.Positions, p)
		m.Normals = append(m.Normals, p)
		m.UVs = append(m.UVs, [2]float32{p[0], p[1]})
	}
	rest := data[12*nv:]
	ni := len(rest) / 3 * 3
	for _, b := range rest[:ni] {
		m.Triangles = append(m.Triangles, uint32(b)%uint32(max(nv, 1)+1))
	}
	if len(rest) > ni {
		// A trailing byte asks for meshlets of that many triangles (the
		// last one takes what is left) and for LOD1 = every other triangle.
		per := int(rest[ni])%8 + 1
		for left := len(m.Triangles) / 3; left > 0; left -= per {
			m.Meshlets = append(m.Meshlets, min(per, left))
		}
		m.ConeCulls = func(i int, eye [3]float64) bool { return (i+int(eye[0]))%2 == 0 }
		var half []uint32
		for t := 0; t+5 < len(m.Triangles); t += 6 {
			half = append(half, m.Triangles[t:t+3]...)
		}
		m.LODs = []LOD{{Triangles: half, Error: -1}}
	}
	return m
}
