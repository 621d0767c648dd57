package meshpack

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/klauspost/compress/zstd"
)

// Encode validates p and returns its raw (uncompressed) bytes. An entry
// with no triangles is refused: an empty mesh is never written (Decode
// still reads one).
func Encode(p *Pack) ([]byte, error) {
	if err := Validate(p); err != nil {
		return nil, err
	}
	for i := range p.Entries {
		if len(p.Entries[i].Indices) == 0 {
			return nil, fmt.Errorf("meshpack: entry %d %q: no triangles: an empty mesh is not written", i, p.Entries[i].Name)
		}
	}
	size := HeaderSize
	vs := p.Family.VertexSize()
	for i := range p.Entries {
		e := &p.Entries[i]
		size += EntryHeaderSize + len(e.Name) + e.VertexCount()*vs + 4*len(e.Indices) + RangeSize*len(e.Ranges)
	}
	b := make([]byte, 0, size)
	b = binary.LittleEndian.AppendUint32(b, p.Family.Magic())
	b = binary.LittleEndian.AppendUint32(b, Version)
	b = binary.LittleEndian.AppendUint32(b, uint32(vs))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p.Entries)))
	for i := range p.Entries {
		e := &p.Entries[i]
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.Name)))
		b = binary.LittleEndian.AppendUint32(b, uint32(e.VertexCount()))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.Indices)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.Ranges)))
		b = appendF32s(b, e.Bounds.Center[:]...)
		b = appendF32s(b, e.Bounds.Radius)
		b = append(b, e.Name...)
		for _, v := range e.Static {
			b = appendF32s(b, v.Position[:]...)
			b = appendF32s(b, v.Normal[:]...)
			b = appendF32s(b, v.TexCoord[:]...)
			b = appendF32s(b, v.Color[:]...)
			b = appendF32s(b, v.Material[:]...)
		}
		for _, v := range e.Rigged {
			b = appendF32s(b, v.Position[:]...)
			b = appendF32s(b, v.Normal[:]...)
			b = appendF32s(b, v.TexCoord[:]...)
			b = append(b, v.BoneIndices[:]...)
			b = appendF32s(b, v.BoneWeights[:]...)
			b = append(b, v.ColorRole, 0, 0, 0)
		}
		for _, x := range e.Indices {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		for _, r := range e.Ranges {
			b = binary.LittleEndian.AppendUint32(b, r.FirstIndex)
			b = binary.LittleEndian.AppendUint32(b, r.IndexCount)
		}
	}
	if len(b) != size {
		return nil, fmt.Errorf("meshpack: internal: wrote %d bytes, planned %d", len(b), size)
	}
	return b, nil
}

// Marshal validates p and returns the file bytes: one zstd frame around
// Encode's bytes. The same Pack always gives the same bytes (one encoder
// goroutine, fixed level, content size and checksum in the frame).
func Marshal(p *Pack) ([]byte, error) {
	raw, err := Encode(p)
	if err != nil {
		return nil, err
	}
	return Compress(raw)
}

// Compress wraps raw pack bytes in one zstd frame.
func Compress(raw []byte) ([]byte, error) {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderLevel(zstd.SpeedBetterCompression),
		zstd.WithEncoderCRC(true),
		zstd.WithZeroFrames(true))
	if err != nil {
		return nil, fmt.Errorf("meshpack: zstd encoder: %w", err)
	}
	defer enc.Close()
	return enc.EncodeAll(raw, nil), nil
}

func appendF32s(b []byte, xs ...float32) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
