package hanim

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/meshcook/meshcook/mesh"
)

// Decode parses and validates a whole .hanim file. Every count is bounded by
// the bytes that remain before anything is allocated; bytes after the last
// clip, a non-zero reserved word or pad byte, and a components byte that does
// not match the path are errors. The reserved header word must be 0.
func Decode(b []byte) ([]Clip, error) {
	r := reader{b: b}
	if len(b) < 4 {
		return nil, r.eof("header")
	}
	if m := binary.LittleEndian.Uint32(b); m != Magic {
		return nil, &FormatError{Offset: 0, Msg: fmt.Sprintf("bad magic %q, want \"HANM\"", b[:4])}
	}
	if len(b) < HeaderSize {
		return nil, r.eof("header")
	}
	r.off = 4
	if v := r.u32(); v != Version {
		return nil, &FormatError{Offset: 4, Msg: fmt.Sprintf("unsupported version %d, want %d", v, Version)}
	}
	n := r.u32()
	if res := r.u32(); res != 0 {
		return nil, &FormatError{Offset: 12, Msg: fmt.Sprintf("reserved word is 0x%x, want 0", res)}
	}
	if uint64(n) > uint64(r.left()/clipHeaderMin) {
		return nil, &FormatError{Offset: 8, Msg: fmt.Sprintf("%d clips cannot fit in the %d bytes left", n, r.left()), Err: io.ErrUnexpectedEOF}
	}
	clips := make([]Clip, n)
	for ci := range clips {
		c := &clips[ci]
		at := r.off
		if r.left() < 2 {
			return nil, r.eof(fmt.Sprintf("clip %d name length", ci))
		}
		nl := int(r.u16())
		if r.left() < nl+8 {
			return nil, r.eof(fmt.Sprintf("clip %d (%d-byte name at 0x%x)", ci, nl, at))
		}
		c.Name = string(r.b[r.off : r.off+nl])
		r.off += nl
		c.Duration = math.Float32frombits(r.u32())
		cn := r.u32()
		if uint64(cn) > uint64(r.left()/ChannelHeaderSize) {
			return nil, &FormatError{Offset: int64(r.off - 4), Msg: fmt.Sprintf("clip %d: %d channels cannot fit in the %d bytes left", ci, cn, r.left()), Err: io.ErrUnexpectedEOF}
		}
		c.Channels = make([]Channel, cn)
		for hi := range c.Channels {
			h := &c.Channels[hi]
			hat := r.off
			if r.left() < ChannelHeaderSize {
				return nil, r.eof(fmt.Sprintf("clip %d channel %d header", ci, hi))
			}
			h.Joint = r.u32()
			path, interp, comps, pad := r.b[r.off], r.b[r.off+1], r.b[r.off+2], r.b[r.off+3]
			r.off += 4
			kc := r.u32()
			switch {
			case path > byte(mesh.PathWeights):
				return nil, &FormatError{Offset: int64(hat + 4), Msg: fmt.Sprintf("clip %d channel %d: path %d", ci, hi, path)}
			case interp > InterpLinear:
				return nil, &FormatError{Offset: int64(hat + 5), Msg: fmt.Sprintf("clip %d channel %d: interpolation %d (0 step or 1 linear)", ci, hi, interp)}
			case path == byte(mesh.PathWeights) && comps == 0:
				return nil, &FormatError{Offset: int64(hat + 6), Msg: fmt.Sprintf("clip %d channel %d: morph weights of 0 targets", ci, hi)}
			case path != byte(mesh.PathWeights) && int(comps) != mesh.AnimPath(path).Components():
				return nil, &FormatError{Offset: int64(hat + 6), Msg: fmt.Sprintf("clip %d channel %d: %d components for path %d, want %d", ci, hi, comps, path, mesh.AnimPath(path).Components())}
			case pad != 0:
				return nil, &FormatError{Offset: int64(hat + 7), Msg: fmt.Sprintf("clip %d channel %d: pad byte is 0x%x, want 0", ci, hi, pad)}
			}
			h.Path, h.Interp = mesh.AnimPath(path), interp
			if h.Path == mesh.PathWeights {
				h.Targets = int(comps)
			}
			keySize := 4 * (1 + int(comps))
			if uint64(kc) > uint64(r.left()/keySize) {
				return nil, &FormatError{Offset: int64(hat + 8), Msg: fmt.Sprintf("clip %d channel %d: %d keys of %d bytes cannot fit in the %d bytes left", ci, hi, kc, keySize, r.left()), Err: io.ErrUnexpectedEOF}
			}
			h.Times = make([]float32, kc)
			h.Values = make([]float32, int(kc)*int(comps))
			for k := range h.Times {
				h.Times[k] = math.Float32frombits(r.u32())
				for j := 0; j < int(comps); j++ {
					h.Values[k*int(comps)+j] = math.Float32frombits(r.u32())
				}
			}
		}
	}
	if r.left() != 0 {
		return nil, &FormatError{Offset: int64(r.off), Msg: fmt.Sprintf("%d trailing bytes after the last clip", r.left())}
	}
	if err := Validate(clips); err != nil {
		return nil, err
	}
	return clips, nil
}

// Read reads a whole .hanim from r and decodes it.
func Read(r io.Reader) ([]Clip, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("hanim: %w", err)
	}
	return Decode(b)
}

// reader walks b; callers check left() before every read.
type reader struct {
	b   []byte
	off int
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) u16() uint16 {
	v := binary.LittleEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u32() uint32 {
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) eof(what string) error {
	return &FormatError{Offset: int64(len(r.b)), Msg: fmt.Sprintf("truncated %s", what), Err: io.ErrUnexpectedEOF}
}
