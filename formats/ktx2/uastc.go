package ktx2

import "fmt"

// UASTC LDR 4×4 blocks, written from the Basis Universal "UASTC LDR 4x4
// Texture Specification" (and checked against its reference transcoder's
// decoder): every 4×4 block is 128 bits holding a mode, transcoding hints,
// and a subset of an ASTC 4×4 block's endpoints and weights.
//
// Layout of a block, bits LSB first from byte 0:
//
//	mode          Huffman-style prefix code, 2..7 bits (uastcModes[m].code)
//	hints         BC1 hints, ETC1 flip/diff/intensities/bias, ETC2 alpha
//	              hints; which are present depends on the mode
//	[ccs]         2 bits, dual-plane modes 6, 11, 13
//	endpoints     BISE: the trit or quint bundles first (5 trits in 8 bits
//	              or 3 quints in 7 bits, as base-3/base-5 numbers, the last
//	              bundle shortened), then each value's low bits
//	weights       plain binary, pixel order, the first weight of each plane
//	              (the anchor) one bit shorter: its top bit is 0
//
// Mode 8 is a solid color: R, G, B, A bytes then the ETC1 solid-color
// hints. Decoding interpolates 8-bit endpoints expanded to 16 bits
// (e·257) with weights in 0..64, as ASTC's LDR decode does for UNORM.
//
// This encoder writes the single-subset modes: 0, 1, 5, 18 (RGB), 10, 12,
// 14 (RGBA), 15 (luminance+alpha), the dual-plane modes 6 (RGB), 11, 13
// (RGBA) and 17 (LA), the two-subset RGB modes 2 and 4 (30 common
// patterns, generated from their ASTC seeds), and 8 (solid). Each block tries the modes that fit
// its alpha and grey content and keeps the one with the least squared
// error; ties go to the lower mode number, so the output is a pure
// function of the pixels.

// uastcMode is one row of the UASTC mode table.
type uastcMode struct {
	code, codeLen uint32
	weightBits    int // per weight, the anchor has one fewer
	epRange       int // BISE range of the endpoints (index into bise)
	comps         int // 3 RGB, 4 RGBA, 2 LA
	planes        int
	hintBits      int // all hint bits after the mode code
	bc1Hint1      bool
	etc1Bias      bool
	etc2Hints     bool
	subsets       int // 1, or 2 for the partitioned modes written here
	patBits       int // bits of the common-pattern index
}

// uastcModes are the 19 modes; modes 3, 7, 9 and 16 are filled in only
// beyond their codes (never written, refused when read).
var uastcModes = [19]uastcMode{
	0:  {code: 0x1, codeLen: 4, weightBits: 4, epRange: 19, comps: 3, planes: 1, hintBits: 15, bc1Hint1: true, etc1Bias: true},
	1:  {code: 0x35, codeLen: 6, weightBits: 2, epRange: 20, comps: 3, planes: 1, hintBits: 15, bc1Hint1: true, etc1Bias: true},
	2:  {code: 0x1D, codeLen: 5, weightBits: 3, epRange: 8, comps: 3, planes: 1, hintBits: 15, bc1Hint1: true, etc1Bias: true, subsets: 2, patBits: 5},
	3:  {code: 0x3, codeLen: 5},
	4:  {code: 0x13, codeLen: 5, weightBits: 2, epRange: 12, comps: 3, planes: 1, hintBits: 15, bc1Hint1: true, etc1Bias: true, subsets: 2, patBits: 5},
	5:  {code: 0xB, codeLen: 5, weightBits: 3, epRange: 20, comps: 3, planes: 1, hintBits: 15, bc1Hint1: true, etc1Bias: true},
	6:  {code: 0x1B, codeLen: 5, weightBits: 2, epRange: 18, comps: 3, planes: 2, hintBits: 15, bc1Hint1: true, etc1Bias: true},
	7:  {code: 0x7, codeLen: 5},
	8:  {code: 0x17, codeLen: 5},
	9:  {code: 0xF, codeLen: 5},
	10: {code: 0x2, codeLen: 3, weightBits: 4, epRange: 13, comps: 4, planes: 1, hintBits: 17, etc2Hints: true},
	11: {code: 0x0, codeLen: 2, weightBits: 2, epRange: 13, comps: 4, planes: 2, hintBits: 17, etc2Hints: true},
	12: {code: 0x6, codeLen: 3, weightBits: 3, epRange: 19, comps: 4, planes: 1, hintBits: 17, etc2Hints: true},
	13: {code: 0x1F, codeLen: 5, weightBits: 1, epRange: 20, comps: 4, planes: 2, hintBits: 23, bc1Hint1: true, etc1Bias: true, etc2Hints: true},
	14: {code: 0xD, codeLen: 5, weightBits: 2, epRange: 20, comps: 4, planes: 1, hintBits: 23, bc1Hint1: true, etc1Bias: true, etc2Hints: true},
	15: {code: 0x5, codeLen: 7, weightBits: 4, epRange: 20, comps: 2, planes: 1, hintBits: 23, bc1Hint1: true, etc1Bias: true, etc2Hints: true},
	16: {code: 0x15, codeLen: 6},
	17: {code: 0x25, codeLen: 6, weightBits: 2, epRange: 20, comps: 2, planes: 2, hintBits: 23, bc1Hint1: true, etc1Bias: true, etc2Hints: true},
	18: {code: 0x9, codeLen: 4, weightBits: 5, epRange: 11, comps: 3, planes: 1, hintBits: 15, bc1Hint1: true, etc1Bias: true},
}

const uastcSolid = 8

// subsetsOf is a mode's subset count (1 unless partitioned).
func (m *uastcMode) subsetsOf() int { return max(1, m.subsets) }

// pattern2Seeds are the ASTC partition seeds of UASTC's 30 common
// two-subset patterns (modes 2 and 4), indexed by the block's pattern field
// (UASTC specification, the BC7/ASTC common partition table).
var pattern2Seeds = [30]int{28, 20, 16, 29, 91, 9, 107, 72, 149, 204, 50, 114, 496, 17, 78, 39,
	252, 828, 43, 156, 116, 210, 476, 273, 684, 359, 246, 195, 694, 524}

// astcHash52 and astcPartition are ASTC's partition selection function
// (Khronos ASTC specification, "Partition pattern generation").
func astcHash52(p uint32) uint32 {
	p ^= p >> 15
	p -= p << 17
	p += p << 7
	p += p << 4
	p ^= p >> 5
	p += p << 16
	p ^= p >> 7
	p ^= p >> 3
	p ^= p << 6
	p ^= p >> 17
	return p
}

func astcPartition(seed, x, y, z, count int, small bool) int {
	if small {
		x, y, z = x<<1, y<<1, z<<1
	}
	seed += (count - 1) * 1024
	rnum := astcHash52(uint32(seed))
	var sd [13]uint32
	for i, sh := range [12]uint{0, 4, 8, 12, 16, 20, 24, 28, 18, 22, 26} {
		sd[i+1] = rnum >> sh & 0xF
	}
	sd[12] = (rnum>>30 | rnum<<2) & 0xF
	for i := 1; i <= 12; i++ {
		sd[i] *= sd[i]
	}
	var sh1, sh2 uint
	if seed&1 != 0 {
		sh1, sh2 = 5, 5
		if seed&2 != 0 {
			sh1 = 4
		}
		if count == 3 {
			sh2 = 6
		}
	} else {
		sh1, sh2 = 5, 5
		if count == 3 {
			sh1 = 6
		}
		if seed&2 != 0 {
			sh2 = 4
		}
	}
	sh3 := sh2
	if seed&0x10 != 0 {
		sh3 = sh1
	}
	for i := 1; i <= 8; i++ {
		if i&1 == 1 {
			sd[i] >>= sh1
		} else {
			sd[i] >>= sh2
		}
	}
	for i := 9; i <= 12; i++ {
		sd[i] >>= sh3
	}
	ux, uy, uz := uint32(x), uint32(y), uint32(z)
	a := (sd[1]*ux + sd[2]*uy + sd[11]*uz + rnum>>14) & 0x3F
	b := (sd[3]*ux + sd[4]*uy + sd[12]*uz + rnum>>10) & 0x3F
	c := (sd[5]*ux + sd[6]*uy + sd[9]*uz + rnum>>6) & 0x3F
	d := (sd[7]*ux + sd[8]*uy + sd[10]*uz + rnum>>2) & 0x3F
	if count < 4 {
		d = 0
	}
	if count < 3 {
		c = 0
	}
	switch {
	case a >= b && a >= c && a >= d:
		return 0
	case b >= c && b >= d:
		return 1
	case c >= d:
		return 2
	}
	return 3
}

// patterns2 are the two-subset patterns (pixel → subset, raster order)
// and anchors2 each subset's anchor: its first pixel.
var patterns2, anchors2 = func() ([30][16]uint8, [30][2]uint8) {
	var pats [30][16]uint8
	var anc [30][2]uint8
	for k, seed := range pattern2Seeds {
		seen := [2]bool{}
		for i := range 16 {
			s := astcPartition(seed, i&3, i>>2, 0, 2, true)
			pats[k][i] = uint8(s)
			if !seen[s] {
				seen[s] = true
				anc[k][s] = uint8(i)
			}
		}
	}
	return pats, anc
}()

// uastcModeOf decodes the mode prefix code from the first 7 bits.
func uastcModeOf(b0 byte) int {
	for m, md := range uastcModes {
		if uint32(b0)&(1<<md.codeLen-1) == md.code {
			return m
		}
	}
	return -1 // the 7-bit code 0x45 is reserved
}

// biseRange is one ASTC integer range: values 0..levels-1 made of bits
// low bits and an optional trit (×3) or quint (×5) on top.
type biseRange struct {
	bits          int
	trits, quints bool
	levels        int
	unq           [256]uint8 // code → 8-bit endpoint value
	best          [256]uint8 // 8-bit value → nearest code (ties: lower value)
}

// bise holds the ranges UASTC uses, indexed like the ASTC range list
// (0 = 0..1, …, 20 = 0..255); entries UASTC never uses stay zero.
var bise = func() [21]*biseRange {
	var t [21]*biseRange
	// ASTC endpoint unquantization for trit/quint ranges (ASTC spec,
	// "Endpoint unquantization"): B is built from the low bits named by
	// each letter (a = bit 0), C is a per-range constant.
	type tq struct {
		bits   int
		trits  bool
		quints bool
		b      string
		c      uint32
	}
	for r, p := range map[int]tq{
		7: {2, true, false, "b000b0bb0", 93}, 8: {4, false, false, "", 0},
		11: {5, false, false, "", 0}, 13: {4, true, false, "dcb000dcb", 22},
		18: {5, false, true, "edcb0000e", 6}, 19: {6, true, false, "fedcb000f", 5},
		20: {8, false, false, "", 0}, 12: {3, false, true, "cb0000cbc", 26},
	} {
		br := &biseRange{bits: p.bits, trits: p.trits, quints: p.quints}
		br.levels = 1 << p.bits
		if p.trits {
			br.levels *= 3
		} else if p.quints {
			br.levels *= 5
		}
		for v := range br.levels {
			low := uint32(v) & (1<<p.bits - 1)
			hi := uint32(v) >> p.bits
			if !p.trits && !p.quints {
				// Bit replication to 8 bits.
				var val uint32
				for left := 8; left > 0; left -= p.bits {
					x := low
					if left < p.bits {
						x >>= p.bits - left
						val |= x
					} else {
						val |= x << (left - p.bits)
					}
				}
				br.unq[v] = uint8(val)
				continue
			}
			var a uint32
			if low&1 != 0 {
				a = 0x1FF
			}
			var b uint32
			for _, ch := range p.b {
				b <<= 1
				if ch != '0' {
					b |= low >> (ch - 'a') & 1
				}
			}
			t := hi*p.c + b
			t ^= a
			br.unq[v] = uint8(a&0x80 | t>>2)
		}
		for x := range 256 {
			bestD := 1 << 30
			for v := range br.levels {
				d := int(br.unq[v]) - x
				if d < 0 {
					d = -d
				}
				if d < bestD || d == bestD && br.unq[v] < br.unq[br.best[x]] {
					bestD = d
					br.best[x] = uint8(v)
				}
			}
		}
		t[r] = br
	}
	return t
}()

// weightTable returns the 0..64 weights of a plain-binary weight range of
// n bits: ASTC's unquantization replicates the bits to 6 and adds one
// above 32.
func weightTable(n int) []int32 {
	out := make([]int32, 1<<n)
	for v := range out {
		var x int
		for left := 6; left > 0; left -= n {
			if left < n {
				x |= v >> (n - left)
			} else {
				x |= v << (left - n)
			}
		}
		if x > 32 {
			x++
		}
		out[v] = int32(x)
	}
	return out
}

var uastcWeights = [6][]int32{nil, weightTable(1), weightTable(2), weightTable(3), weightTable(4), weightTable(5)}

// astcInterp interpolates two 8-bit endpoints with a 0..64 weight the way
// a UNORM ASTC decoder does.
func astcInterp(l, h, w int32) int32 {
	l16, h16 := l<<8|l, h<<8|h
	return (l16*(64-w) + h16*w + 32) >> 6 >> 8
}

// uastcBlock is one encoded or decoded block in unpacked form.
type uastcBlock struct {
	mode int
	ccs  int          // dual plane: the channel on plane 1 (0..3)
	pat  int          // partitioned modes: the common-pattern index
	ep   [12]uint8    // BISE codes, [subset*comps*2 + comp*2 + 0|1]
	w    [32]uint8    // weights, pixel-major, plane-minor
	sol  [4]uint8     // solid color
	etc  etc1Hints    // ETC1 transcoding hints
	px   [16][4]uint8 // decoded pixels (filled by the encoder)
}

// etc1Hints are the hints a UASTC → ETC1 transcoder reads.
type etc1Hints struct {
	flip, diff     bool
	inten0, inten1 uint8
	sel            uint8 // solid blocks: the selector
	r, g, b        uint8 // solid blocks: the 5-bit base color
}

// pack writes b as 16 bytes.
func (b *uastcBlock) pack() [16]byte {
	var bw blockWriter
	md := &uastcModes[b.mode]
	put := bw.put
	put(md.code, int(md.codeLen))
	if b.mode == uastcSolid {
		for _, c := range b.sol {
			put(uint32(c), 8)
		}
		put(bit(b.etc.diff), 1)
		put(uint32(b.etc.inten0), 3)
		put(uint32(b.etc.sel), 2)
		put(uint32(b.etc.r), 5)
		put(uint32(b.etc.g), 5)
		put(uint32(b.etc.b), 5)
		return bw.bytes()
	}
	// Hints: BC1 hints are left 0 (the BC1 transcoder then encodes from
	// the decoded pixels), ETC1 bias 0 (none), ETC2 hints 0.
	put(0, 1) // bc1 hint 0: every listed mode has it
	if md.bc1Hint1 {
		put(0, 1)
	}
	put(bit(b.etc.flip), 1)
	put(bit(b.etc.diff), 1)
	put(uint32(b.etc.inten0), 3)
	put(uint32(b.etc.inten1), 3)
	if md.etc1Bias {
		put(0, 5)
	}
	if md.etc2Hints {
		put(0, 8)
	}
	if md.patBits > 0 {
		put(uint32(b.pat), md.patBits)
	}
	if md.planes == 2 && b.mode != 17 {
		put(uint32(b.ccs), 2)
	}
	r := bise[md.epRange]
	n := md.comps * 2 * md.subsetsOf()
	putBISE(r, b.ep[:n], put)
	wb := md.weightBits
	for i := range 16 * md.planes {
		nb := wb
		if isAnchor(md, b.pat, i) {
			nb--
		}
		put(uint32(b.w[i]), nb)
	}
	return bw.bytes()
}

// isAnchor reports whether weight i (pixel-major, plane-minor) is a
// subset's or plane's first, stored one bit shorter.
func isAnchor(md *uastcMode, pat, i int) bool {
	if md.subsetsOf() == 1 {
		return i < md.planes
	}
	return uint8(i) == anchors2[pat][0] || uint8(i) == anchors2[pat][1]
}

func bit(v bool) uint32 {
	if v {
		return 1
	}
	return 0
}

// putBISE writes values in UASTC's BISE order: the trit/quint bundles,
// then the low bits of every value.
func putBISE(r *biseRange, vals []uint8, put func(uint32, int)) {
	if r.trits || r.quints {
		base, group, full := uint32(3), 5, 8
		short := []int{0, 2, 4, 5, 7}
		if r.quints {
			base, group, full = 5, 3, 7
			short = []int{0, 3, 5}
		}
		for g := 0; g < len(vals); g += group {
			var acc, mul uint32 = 0, 1
			k := min(group, len(vals)-g)
			for j := range k {
				acc += uint32(vals[g+j]>>r.bits) * mul
				mul *= base
			}
			n := full
			if k < group {
				n = short[k]
			}
			put(acc, n)
		}
	}
	for _, v := range vals {
		put(uint32(v)&(1<<r.bits-1), r.bits)
	}
}

// unpackUASTC decodes one block to 16 RGBA pixels.
func unpackUASTC(blk *[16]byte, out *[16][4]uint8) error {
	mode := uastcModeOf(blk[0] & 0x7f)
	if mode < 0 {
		return fmt.Errorf("reserved mode code %#02x", blk[0]&0x7f)
	}
	md := &uastcModes[mode]
	at := int(md.codeLen)
	get := func(n int) uint32 {
		v := blockBits(blk, at, n)
		at += n
		return v
	}
	if mode == uastcSolid {
		c := [4]uint8{uint8(get(8)), uint8(get(8)), uint8(get(8)), uint8(get(8))}
		for i := range out {
			out[i] = c
		}
		return nil
	}
	if md.comps == 0 {
		return fmt.Errorf("mode %d is not supported by this reader", mode)
	}
	at += md.hintBits
	pat := 0
	if md.patBits > 0 {
		pat = int(get(md.patBits))
		if pat >= len(patterns2) {
			return fmt.Errorf("mode %d: pattern %d out of range", mode, pat)
		}
	}
	ccs := -1
	if md.planes == 2 {
		ccs = 3
		if mode != 17 {
			ccs = int(get(2))
		}
	}
	r := bise[md.epRange]
	n := md.comps * 2 * md.subsetsOf()
	var ep [12]uint32
	var tq [12]uint32
	if r.trits || r.quints {
		base, group, full := uint32(3), 5, 8
		short := []int{0, 2, 4, 5, 7}
		if r.quints {
			base, group, full = 5, 3, 7
			short = []int{0, 3, 5}
		}
		for g := 0; g < n; g += group {
			k := min(group, n-g)
			nb := full
			if k < group {
				nb = short[k]
			}
			acc := get(nb)
			for j := range k {
				tq[g+j] = acc % base
				acc /= base
			}
		}
	}
	for i := range n {
		ep[i] = get(r.bits) | tq[i]<<r.bits
		if int(ep[i]) >= r.levels {
			return fmt.Errorf("mode %d: endpoint code %d out of range", mode, ep[i])
		}
	}
	wt := uastcWeights[md.weightBits]
	var w [32]int32
	for i := range 16 * md.planes {
		nb := md.weightBits
		if isAnchor(md, pat, i) {
			nb--
		}
		w[i] = wt[get(nb)]
	}
	// Endpoints as RGBA 8-bit pairs, per subset.
	var lo, hi [2][4]int32
	for s := range md.subsetsOf() {
		e := ep[s*md.comps*2:]
		for c := range 4 {
			lo[s][c], hi[s][c] = 255, 255
		}
		switch md.comps {
		case 2:
			l0, l1 := int32(r.unq[e[0]]), int32(r.unq[e[1]])
			lo[s] = [4]int32{l0, l0, l0, int32(r.unq[e[2]])}
			hi[s] = [4]int32{l1, l1, l1, int32(r.unq[e[3]])}
		default:
			for c := range md.comps {
				lo[s][c], hi[s][c] = int32(r.unq[e[2*c]]), int32(r.unq[e[2*c+1]])
			}
		}
	}
	for i := range 16 {
		s := 0
		if md.subsetsOf() == 2 {
			s = int(patterns2[pat][i])
		}
		for c := range 4 {
			wi := w[i*md.planes]
			if c == ccs {
				wi = w[i*2+1]
			}
			out[i][c] = uint8(astcInterp(lo[s][c], hi[s][c], wi))
		}
	}
	return nil
}
