package hmat

import (
	"encoding/binary"
	"io"
	"math"
)

// Encode validates ms and returns the exact bytes of the .hmat file.
func Encode(ms []Material) ([]byte, error) {
	if err := Validate(ms); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	b := make([]byte, 0, HeaderSize+MaterialSize*len(ms))
	b = le.AppendUint32(b, Magic)
	b = le.AppendUint32(b, Version)
	b = le.AppendUint32(b, uint32(len(ms)))
	b = le.AppendUint32(b, 0) // flags
	for _, m := range ms {
		for _, f := range m.floats() {
			b = le.AppendUint32(b, math.Float32bits(f))
		}
		b = le.AppendUint32(b, m.Flags)
		b = le.AppendUint32(b, 0) // pad
		for _, t := range m.textures() {
			b = le.AppendUint64(b, t)
		}
	}
	return b, nil
}

// Write encodes ms (see Encode) and writes it to w in one call. It never
// closes w.
func Write(w io.Writer, ms []Material) error {
	b, err := Encode(ms)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// floats returns the 12 f32 fields in on-disk order (@0 to @44).
func (m *Material) floats() [12]float32 {
	c, e := m.BaseColorFactor, m.EmissiveFactor
	return [12]float32{c[0], c[1], c[2], c[3], e[0], e[1], e[2], m.Metallic, m.Roughness, m.NormalScale, m.OcclusionStrength, m.AlphaCutoff}
}

// textures returns the 5 texture refs in on-disk order (@56 to @88).
func (m *Material) textures() [5]uint64 {
	return [5]uint64{m.BaseColorTex, m.MetallicRoughnessTex, m.NormalTex, m.OcclusionTex, m.EmissiveTex}
}
