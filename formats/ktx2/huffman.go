package ktx2

import (
	"errors"
	"slices"
)

// Canonical Huffman codes as BasisLZ stores them (KTX 2.0 "BasisLZ/ETC1S
// Bitstream Specification", "Compressed Huffman Tables"): Deflate's
// canonical code assignment (RFC 1951 §3.2.2), codes sent most significant
// bit first into the LSB-first bit stream, at most 16 bits; a table is its
// code lengths, run-length coded with a small Huffman code of its own.

const (
	maxCodeLen    = 16
	maxLenCodeLen = 7 // lengths of the code-length code are 3 bits
	maxSymbols    = 1<<14 - 1
)

// codeLenOrder is the order the 21 code-length-code lengths are sent in.
var codeLenOrder = [21]uint8{17, 18, 19, 20, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15, 16}

// huffCode is an encoder's table: a length and a code per symbol.
type huffCode struct {
	lens  []uint8
	codes []uint32 // bit-reversed, ready for the LSB-first writer
}

// buildLengths returns Huffman code lengths (at most limit bits) for the
// symbol frequencies. Every symbol with a non-zero frequency gets a code;
// when only one does, it gets length 1. With no used symbol, symbol 0 gets
// length 1, so every table is valid. Ties break on the symbol number, so
// the lengths depend only on the frequencies.
func buildLengths(freq []uint32, limit int) []uint8 {
	lens := make([]uint8, len(freq))
	var used []int
	for s, f := range freq {
		if f > 0 {
			used = append(used, s)
		}
	}
	if len(used) <= 1 {
		s := 0
		if len(used) == 1 {
			s = used[0]
		}
		if s >= len(lens) {
			lens = append(lens, make([]uint8, s+1-len(lens))...)
		}
		lens[s] = 1
		return lens
	}
	f := make([]uint64, len(freq))
	for s, v := range freq {
		f[s] = uint64(v)
	}
	for {
		depth := huffmanDepths(f, used)
		m := 0
		for _, s := range used {
			m = max(m, depth[s])
		}
		if m <= limit {
			for _, s := range used {
				lens[s] = uint8(depth[s])
			}
			return lens
		}
		// Too deep: flatten the frequencies and retry.
		for _, s := range used {
			f[s] = f[s]/2 + 1
		}
	}
}

// huffmanDepths builds a Huffman tree over the used symbols with the
// two-queue method and returns each leaf's depth.
func huffmanDepths(f []uint64, used []int) []int {
	type node struct {
		w           uint64
		left, right int // children, -1 for leaves
		sym         int
	}
	leaves := slices.Clone(used)
	slices.SortStableFunc(leaves, func(a, b int) int {
		switch {
		case f[a] < f[b]:
			return -1
		case f[a] > f[b]:
			return 1
		}
		return a - b
	})
	nodes := make([]node, 0, 2*len(leaves))
	for _, s := range leaves {
		nodes = append(nodes, node{w: f[s], left: -1, right: -1, sym: s})
	}
	li, qi := 0, len(leaves) // next leaf; next internal node
	pick := func() int {
		if li < len(leaves) && (qi >= len(nodes) || nodes[li].w <= nodes[qi].w) {
			li++
			return li - 1
		}
		qi++
		return qi - 1
	}
	for len(nodes)-len(leaves) < len(leaves)-1 {
		a := pick()
		b := pick()
		nodes = append(nodes, node{w: nodes[a].w + nodes[b].w, left: a, right: b, sym: -1})
	}
	depth := make([]int, len(f))
	var walk func(n, d int)
	walk = func(n, d int) {
		if nodes[n].left < 0 {
			depth[nodes[n].sym] = d
			return
		}
		walk(nodes[n].left, d+1)
		walk(nodes[n].right, d+1)
	}
	walk(len(nodes)-1, 0)
	return depth
}

// canonicalCodes assigns Deflate's canonical codes to lengths.
func canonicalCodes(lens []uint8) []uint32 {
	var count [32]uint32
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [32]uint32
	code := uint32(0)
	for l := 1; l < 32; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]uint32, len(lens))
	for s, l := range lens {
		if l == 0 {
			continue
		}
		c := next[l]
		next[l]++
		var r uint32
		for range l {
			r = r<<1 | c&1
			c >>= 1
		}
		codes[s] = r
	}
	return codes
}

// newHuffCode builds the code for a frequency table.
func newHuffCode(freq []uint32) *huffCode {
	lens := buildLengths(freq, maxCodeLen)
	return &huffCode{lens: lens, codes: canonicalCodes(lens)}
}

// put writes symbol s.
func (h *huffCode) put(w *bitWriter, s int) {
	w.put(h.codes[s], uint(h.lens[s]))
}

// writeTable writes the code's lengths as BasisLZ's read_huffman_table
// reads them.
func (h *huffCode) writeTable(w *bitWriter) {
	n := len(h.lens)
	for n > 0 && h.lens[n-1] == 0 {
		n--
	}
	// Run-length code the lengths: 17/18 zero runs, 19/20 repeats of the
	// previous non-zero length.
	type rl struct {
		sym, extra uint32
		bits       uint
	}
	var out []rl
	for i := 0; i < n; {
		v := h.lens[i]
		r := 1
		for i+r < n && h.lens[i+r] == v {
			r++
		}
		i += r
		if v == 0 {
			for r >= 11 {
				k := min(r, 138)
				out = append(out, rl{18, uint32(k - 11), 7})
				r -= k
			}
			if r >= 3 {
				out = append(out, rl{17, uint32(r - 3), 3})
				r = 0
			}
			for ; r > 0; r-- {
				out = append(out, rl{0, 0, 0})
			}
			continue
		}
		out = append(out, rl{uint32(v), 0, 0})
		r--
		for r >= 7 {
			k := min(r, 134)
			out = append(out, rl{20, uint32(k - 7), 7})
			r -= k
		}
		if r >= 3 {
			out = append(out, rl{19, uint32(r - 3), 2})
			r = 0
		}
		for ; r > 0; r-- {
			out = append(out, rl{uint32(v), 0, 0})
		}
	}
	freq := make([]uint32, 21)
	for _, e := range out {
		freq[e.sym]++
	}
	cl := buildLengths(freq, maxLenCodeLen)
	cl = append(cl, make([]uint8, 21-len(cl))...)
	cc := canonicalCodes(cl)
	num := 21
	for num > 1 && cl[codeLenOrder[num-1]] == 0 {
		num--
	}
	w.put(uint32(n), 14)
	w.put(uint32(num), 5)
	for i := range num {
		w.put(uint32(cl[codeLenOrder[i]]), 3)
	}
	for _, e := range out {
		w.put(cc[e.sym], uint(cl[e.sym]))
		if e.bits > 0 {
			w.put(e.extra, e.bits)
		}
	}
}

// huffDecoder decodes one canonical code.
type huffDecoder struct {
	count  [maxCodeLen + 1]int
	first  [maxCodeLen + 1]int // first code of each length
	offset [maxCodeLen + 1]int // index into syms of that first code
	syms   []int
	single int // the symbol of a one-symbol code, else -1
}

var errHuffman = errors.New("invalid Huffman table")

// newHuffDecoder builds a decoder from code lengths; like the reference
// decoder it demands a complete code unless one symbol is used.
func newHuffDecoder(lens []uint8) (*huffDecoder, error) {
	d := &huffDecoder{single: -1}
	used := 0
	for s, l := range lens {
		if l > maxCodeLen {
			return nil, errHuffman
		}
		if l > 0 {
			d.count[l]++
			used++
			d.single = s
		}
	}
	if used == 0 {
		return nil, errHuffman
	}
	if used > 1 {
		d.single = -1
		left := 1
		for l := 1; l <= maxCodeLen; l++ {
			left = left<<1 - d.count[l]
			if left < 0 {
				return nil, errHuffman
			}
		}
		if left != 0 {
			return nil, errHuffman
		}
	}
	code, idx := 0, 0
	for l := 1; l <= maxCodeLen; l++ {
		d.first[l], d.offset[l] = code, idx
		code = (code + d.count[l]) << 1
		idx += d.count[l]
	}
	d.syms = make([]int, used)
	next := d.offset
	for s, l := range lens {
		if l > 0 {
			d.syms[next[l]] = s
			next[l]++
		}
	}
	return d, nil
}

// get decodes one symbol.
func (d *huffDecoder) get(r *bitReader) int {
	if d.single >= 0 {
		r.get(1)
		return d.single
	}
	code := 0
	for l := 1; l <= maxCodeLen; l++ {
		code = code<<1 | int(r.get(1))
		if i := code - d.first[l]; i < d.count[l] {
			return d.syms[d.offset[l]+i]
		}
	}
	r.eof = true // not reached for a complete code
	return 0
}

// readHuffTable reads a table written by writeTable.
func readHuffTable(r *bitReader) (*huffDecoder, error) {
	n := int(r.get(14))
	if n == 0 {
		return nil, errHuffman
	}
	num := int(r.get(5))
	if num < 1 || num > 21 {
		return nil, errHuffman
	}
	cl := make([]uint8, 21)
	for i := range num {
		cl[codeLenOrder[i]] = uint8(r.get(3))
	}
	cd, err := newHuffDecoder(cl)
	if err != nil {
		return nil, err
	}
	lens := make([]uint8, n)
	for cur := 0; cur < n; {
		if r.eof {
			return nil, errHuffman
		}
		c := cd.get(r)
		switch {
		case c <= 16:
			lens[cur] = uint8(c)
			cur++
		case c == 17:
			cur += int(r.get(3)) + 3
		case c == 18:
			cur += int(r.get(7)) + 11
		default:
			if cur == 0 || lens[cur-1] == 0 {
				return nil, errHuffman
			}
			var k int
			if c == 19 {
				k = int(r.get(2)) + 3
			} else {
				k = int(r.get(7)) + 7
			}
			if cur+k > n {
				return nil, errHuffman
			}
			for range k {
				lens[cur] = lens[cur-1]
				cur++
			}
		}
		if cur > n {
			return nil, errHuffman
		}
	}
	if r.eof {
		return nil, errHuffman
	}
	return newHuffDecoder(lens)
}
