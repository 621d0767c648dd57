package ktx2

import "encoding/binary"

// Bit streams of the Basis Universal formats: both UASTC blocks and the
// BasisLZ sections are written from the least significant bit of the first
// byte upwards, values LSB first.

// bitWriter appends bits LSB first.
type bitWriter struct {
	b    []byte
	acc  uint64
	nacc uint
}

// put appends the low n bits of v (n <= 32).
func (w *bitWriter) put(v uint32, n uint) {
	w.acc |= uint64(v&(1<<n-1)) << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.b = append(w.b, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// bytes flushes a partial byte (zero-padded) and returns the stream.
func (w *bitWriter) bytes() []byte {
	if w.nacc > 0 {
		w.b = append(w.b, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
	return w.b
}

// bitLen is the number of bits written so far.
func (w *bitWriter) bitLen() int { return len(w.b)*8 + int(w.nacc) }

// bitReader reads bits LSB first; reading past the end sets eof and
// returns zeros, so callers check eof once per structure.
type bitReader struct {
	b   []byte
	pos int // bit position
	eof bool
}

// get returns the next n bits (n <= 32).
func (r *bitReader) get(n uint) uint32 {
	var v uint32
	for i := uint(0); i < n; i++ {
		at := r.pos >> 3
		if at >= len(r.b) {
			r.eof = true
			return 0
		}
		v |= uint32(r.b[at]>>(r.pos&7)&1) << i
		r.pos++
	}
	return v
}

// blockWriter builds a 16-byte block bit by bit from bit 0 (the low bit
// of byte 0), as one 128-bit little-endian number.
type blockWriter struct {
	lo, hi uint64
	at     int
}

// put appends the low n bits of v (n <= 32).
func (w *blockWriter) put(v uint32, n int) {
	x := uint64(v) & (1<<n - 1)
	if w.at < 64 {
		w.lo |= x << w.at
		w.hi |= x >> (64 - w.at) // 0 unless the bits straddle bit 64
	} else {
		w.hi |= x << (w.at - 64)
	}
	w.at += n
}

func (w *blockWriter) bytes() [16]byte {
	var blk [16]byte
	binary.LittleEndian.PutUint64(blk[:8], w.lo)
	binary.LittleEndian.PutUint64(blk[8:], w.hi)
	return blk
}

// blockBits reads n bits of a 16-byte block at bit offset at.
func blockBits(blk *[16]byte, at, n int) uint32 {
	var v uint32
	for i := range n {
		v |= uint32(blk[(at+i)>>3]>>((at+i)&7)&1) << i
	}
	return v
}
