package hanim

import (
	"encoding/binary"
	"io"
	"math"
)

// Encode validates clips and returns the .hanim bytes. The same clips always
// give the same bytes; the reserved header word and every pad byte are 0.
func Encode(clips []Clip) ([]byte, error) {
	if err := Validate(clips); err != nil {
		return nil, err
	}
	size := HeaderSize
	for _, c := range clips {
		size += clipHeaderMin + len(c.Name)
		for _, h := range c.Channels {
			size += ChannelHeaderSize + 4*len(h.Times)*(1+h.Components())
		}
	}
	le := binary.LittleEndian
	b := make([]byte, 0, size)
	b = le.AppendUint32(b, Magic)
	b = le.AppendUint32(b, Version)
	b = le.AppendUint32(b, uint32(len(clips)))
	b = le.AppendUint32(b, 0)
	for _, c := range clips {
		b = le.AppendUint16(b, uint16(len(c.Name)))
		b = append(b, c.Name...)
		b = le.AppendUint32(b, math.Float32bits(c.Duration))
		b = le.AppendUint32(b, uint32(len(c.Channels)))
		for _, h := range c.Channels {
			comps := h.Components()
			b = le.AppendUint32(b, h.Joint)
			b = append(b, byte(h.Path), h.Interp, byte(comps), 0)
			b = le.AppendUint32(b, uint32(len(h.Times)))
			for k, t := range h.Times {
				b = le.AppendUint32(b, math.Float32bits(t))
				for _, v := range h.Values[k*comps : (k+1)*comps] {
					b = le.AppendUint32(b, math.Float32bits(v))
				}
			}
		}
	}
	return b, nil
}

// Write encodes clips to w. It never closes w.
func Write(w io.Writer, clips []Clip) error {
	b, err := Encode(clips)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
