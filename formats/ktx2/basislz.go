package ktx2

import (
	"encoding/binary"
	"fmt"
)

// BasisLZ for ETC1S, written from the KTX 2.0 specification's "BasisLZ
// Global Data" and "BasisLZ/ETC1S Bitstream Specification" sections.
//
// Global data: endpointCount u16, selectorCount u16, then the byte lengths
// of the endpoint, selector and table sections and of the (empty) extended
// data, one 20-byte image descriptor per level (flags 0, RGB slice offset
// and length, alpha slice offset and length within the level), then the
// sections. Endpoints are DPCM coded (deltas mod 32 of each 5-bit channel,
// Huffman model picked by the previous value's range; intensity deltas mod
// 8); selectors are the first raw and the rest XOR-delta coded bytes. A
// slice codes, per 2×2 block group, how each block's endpoint is predicted
// (left, above, above-left, or a Huffman-coded delta from the previous
// block's index), runs of repeated group codes, and per block a selector:
// a codebook index, a reference into a 64-entry approximate move-to-front
// history, or a run of the history's first entry.

const (
	predSymbols     = 4*4*4*4 + 1 // 256 group codes + repeat-last
	predRepeat      = predSymbols - 1
	predMinRepeat   = 3
	historySize     = 64
	selRLEThreshold = 3
	selRLESymbols   = 64
	sgdHeaderSize   = 20
	imageDescSize   = 20
)

// Endpoint DPCM model ranges: the previous value picks the model.
func colorModel(prev uint8) int {
	switch {
	case prev <= 9:
		return 0
	case prev <= 21:
		return 1
	}
	return 2
}

// mtf is the approximate move-to-front selector history.
type mtf struct {
	v     []int
	rover int
}

func newMTF(n int) *mtf { return &mtf{v: make([]int, n), rover: n / 2} }

func (m *mtf) add(x int) {
	m.v[m.rover] = x
	m.rover++
	if m.rover == len(m.v) {
		m.rover = len(m.v) / 2
	}
}

func (m *mtf) use(i int) {
	if i > 0 {
		m.v[i/2], m.v[i] = m.v[i], m.v[i/2]
	}
}

func (m *mtf) find(x int) int {
	for i, v := range m.v {
		if v == x {
			return i
		}
	}
	return -1
}

// putVLC writes v in chunks of bits data bits with a continuation bit.
func putVLC(w *bitWriter, v uint32, bits uint) {
	for {
		c := v & (1<<bits - 1)
		v >>= bits
		if v == 0 {
			w.put(c, bits+1)
			return
		}
		w.put(c|1<<bits, bits+1)
	}
}

func getVLC(r *bitReader, bits uint) uint32 {
	var v uint32
	for ofs := uint(0); ofs < 32; ofs += bits {
		s := r.get(bits + 1)
		v |= (s & (1<<bits - 1)) << ofs
		if s>>bits == 0 {
			break
		}
	}
	return v
}

// sliceEvent is one coded item of a slice: a symbol of a model, then
// optional raw bits (VLC values are written by the emitter).
type sliceEvent struct {
	model uint8 // 0 pred, 1 delta, 2 selector, 3 selector RLE
	sym   uint32
	vlc   int8 // -1 none, else the VLC chunk size (4 or 7)
	extra uint32
}

// sliceEvents computes the coded items of one slice.
func sliceEvents(sl etc1sSlice, blocks []etc1sBlockRef, nEP, nSel int) []sliceEvent {
	var ev []sliceEvent
	bw, bh := sl.bw, sl.bh
	at := func(x, y int) etc1sBlockRef { return blocks[sl.first+y*bw+x] }
	// Endpoint prediction per block: 0 left, 1 above, 2 above-left, 3 delta.
	pred := func(x, y int) uint32 {
		if x >= bw || y >= bh {
			return 0
		}
		e := at(x, y).ep
		switch {
		case x > 0 && at(x-1, y).ep == e:
			return 0
		case y > 0 && at(x, y-1).ep == e:
			return 1
		case x > 0 && y > 0 && at(x-1, y-1).ep == e:
			return 2
		}
		return 3
	}
	// Group codes of the even rows, in decode order.
	var groups []uint32
	for y := 0; y < bh; y += 2 {
		for x := 0; x < bw; x += 2 {
			groups = append(groups, pred(x, y)|pred(x+1, y)<<2|pred(x, y+1)<<4|pred(x+1, y+1)<<6)
		}
	}
	// Each group's event list position: the events of group g are emitted
	// when the decoder reaches it; runs of repeats cover later groups.
	groupEvents := make([][]sliceEvent, len(groups))
	prevSym := uint32(0)
	for g := 0; g < len(groups); {
		if groups[g] == prevSym {
			r := 0
			for g+r < len(groups) && groups[g+r] == prevSym {
				r++
			}
			if r >= predMinRepeat {
				groupEvents[g] = append(groupEvents[g], sliceEvent{model: 0, sym: predRepeat, vlc: 4, extra: uint32(r - predMinRepeat)})
				g += r
				continue
			}
		}
		groupEvents[g] = append(groupEvents[g], sliceEvent{model: 0, sym: groups[g], vlc: -1})
		prevSym = groups[g]
		g++
	}
	hist := newMTF(historySize)
	rle := 0
	prevEP := 0
	gi := 0
	for y := range bh {
		for x := range bw {
			if x&1 == 0 && y&1 == 0 {
				ev = append(ev, groupEvents[gi]...)
				gi++
			}
			b := at(x, y)
			if pred(x, y) == 3 {
				ev = append(ev, sliceEvent{model: 1, sym: uint32((b.ep - prevEP + nEP) % nEP), vlc: -1})
			}
			prevEP = b.ep
			if rle > 0 {
				rle--
				continue
			}
			k := hist.find(b.sel)
			if k == 0 {
				// A run of blocks all using the history's first entry.
				r := 0
				for i := y*bw + x; i < bw*bh && blocks[sl.first+i].sel == b.sel; i++ {
					r++
				}
				if r >= selRLEThreshold {
					ev = append(ev, sliceEvent{model: 2, sym: uint32(nSel + historySize), vlc: -1})
					if n := r - selRLEThreshold; n < selRLESymbols-1 {
						ev = append(ev, sliceEvent{model: 3, sym: uint32(n), vlc: -1})
					} else {
						ev = append(ev, sliceEvent{model: 3, sym: selRLESymbols - 1, vlc: 7, extra: uint32(n)})
					}
					rle = r - 1
					continue
				}
			}
			if k >= 0 {
				ev = append(ev, sliceEvent{model: 2, sym: uint32(nSel + k), vlc: -1})
				hist.use(k)
				continue
			}
			ev = append(ev, sliceEvent{model: 2, sym: uint32(b.sel), vlc: -1})
			hist.add(b.sel)
		}
	}
	return ev
}

// writeBasisLZ codes the codebooks and slices: global data and per level
// its slice bytes.
func writeBasisLZ(eps []etc1sEndpoint, sels [][16]uint8, slices_ []etc1sSlice, blocks []etc1sBlockRef, alpha bool, nLevels int) ([]byte, [][]byte, error) {
	nEP, nSel := len(eps), len(sels)
	if nEP < 1 || nEP > 0xFFFF || nSel < 1 || nSel > 0xFFFF {
		return nil, nil, errAt(-1, "ETC1S codebooks of %d endpoints and %d selectors", nEP, nSel)
	}

	// Endpoints.
	var epFreq [3][32]uint32
	var intenFreq [8]uint32
	prev := [3]uint8{16, 16, 16}
	prevT := uint8(0)
	for _, e := range eps {
		intenFreq[(e.t-prevT)&7]++
		prevT = e.t
		for c := range 3 {
			epFreq[colorModel(prev[c])][(e.c[c]-prev[c])&31]++
			prev[c] = e.c[c]
		}
	}
	var cm [3]*huffCode
	for i := range cm {
		cm[i] = newHuffCode(epFreq[i][:])
	}
	im := newHuffCode(intenFreq[:])
	var ew bitWriter
	for _, h := range cm {
		h.writeTable(&ew)
	}
	im.writeTable(&ew)
	ew.put(0, 1) // not greyscale
	prev, prevT = [3]uint8{16, 16, 16}, 0
	for _, e := range eps {
		im.put(&ew, int((e.t-prevT)&7))
		prevT = e.t
		for c := range 3 {
			cm[colorModel(prev[c])].put(&ew, int((e.c[c]-prev[c])&31))
			prev[c] = e.c[c]
		}
	}
	epData := ew.bytes()

	// Selectors: rows packed 2 bits per pixel, XOR deltas.
	packed := make([][4]uint8, nSel)
	for i, s := range sels {
		for y := range 4 {
			packed[i][y] = s[y*4] | s[y*4+1]<<2 | s[y*4+2]<<4 | s[y*4+3]<<6
		}
	}
	var selFreq [256]uint32
	for i := 1; i < nSel; i++ {
		for j := range 4 {
			selFreq[packed[i][j]^packed[i-1][j]]++
		}
	}
	sm := newHuffCode(selFreq[:])
	var sw bitWriter
	sw.put(0, 2) // reserved
	sw.put(0, 1) // compressed
	sm.writeTable(&sw)
	for j := range 4 {
		sw.put(uint32(packed[0][j]), 8)
	}
	for i := 1; i < nSel; i++ {
		for j := range 4 {
			sm.put(&sw, int(packed[i][j]^packed[i-1][j]))
		}
	}
	selData := sw.bytes()

	// Slices: events first, then the four models from their counts.
	events := make([][]sliceEvent, len(slices_))
	freq := [4][]uint32{make([]uint32, predSymbols), make([]uint32, nEP), make([]uint32, nSel+historySize+1), make([]uint32, selRLESymbols)}
	for i, sl := range slices_ {
		events[i] = sliceEvents(sl, blocks, nEP, nSel)
		for _, e := range events[i] {
			freq[e.model][e.sym]++
		}
	}
	var models [4]*huffCode
	var tw bitWriter
	for i := range models {
		models[i] = newHuffCode(freq[i])
		models[i].writeTable(&tw)
	}
	tw.put(historySize, 13)
	tables := tw.bytes()

	perLevel := 1 + int(bit(alpha))
	levels := make([][]byte, nLevels)
	descs := make([]byte, 0, imageDescSize*nLevels)
	le := binary.LittleEndian
	for p := range nLevels {
		var lvl []byte
		var d [5]uint32
		for k := range perLevel {
			var w bitWriter
			for _, e := range events[p*perLevel+k] {
				models[e.model].put(&w, int(e.sym))
				if e.vlc > 0 {
					putVLC(&w, e.extra, uint(e.vlc))
				}
			}
			b := w.bytes()
			if len(b) == 0 {
				b = []byte{0} // a slice is never empty
			}
			d[1+2*k], d[2+2*k] = uint32(len(lvl)), uint32(len(b))
			lvl = append(lvl, b...)
		}
		for _, v := range d {
			descs = le.AppendUint32(descs, v)
		}
		levels[p] = lvl
	}
	sgd := make([]byte, 0, sgdHeaderSize+len(descs)+len(epData)+len(selData)+len(tables))
	sgd = le.AppendUint16(sgd, uint16(nEP))
	sgd = le.AppendUint16(sgd, uint16(nSel))
	sgd = le.AppendUint32(sgd, uint32(len(epData)))
	sgd = le.AppendUint32(sgd, uint32(len(selData)))
	sgd = le.AppendUint32(sgd, uint32(len(tables)))
	sgd = le.AppendUint32(sgd, 0)
	sgd = append(sgd, descs...)
	sgd = append(sgd, epData...)
	sgd = append(sgd, selData...)
	sgd = append(sgd, tables...)
	return sgd, levels, nil
}

// decodeETC1S decodes BasisLZ global data and each level's slices into the
// levels' RGBA pixels (which must be allocated). sgdOff is the file offset
// of sgd for errors.
func decodeETC1S(sgd []byte, sgdOff int64, data [][]byte, alpha bool, out []Level) error {
	le := binary.LittleEndian
	bad := func(at int, format string, args ...any) error {
		return errAt(sgdOff+int64(at), "BasisLZ: "+format, args...)
	}
	if len(sgd) < sgdHeaderSize+imageDescSize*len(out) {
		return bad(0, "global data of %d bytes, want at least %d", len(sgd), sgdHeaderSize+imageDescSize*len(out))
	}
	nEP, nSel := int(le.Uint16(sgd[0:])), int(le.Uint16(sgd[2:]))
	lens := [4]uint64{uint64(le.Uint32(sgd[4:])), uint64(le.Uint32(sgd[8:])), uint64(le.Uint32(sgd[12:])), uint64(le.Uint32(sgd[16:]))}
	if nEP == 0 || nSel == 0 {
		return bad(0, "%d endpoints and %d selectors, want at least 1 of each", nEP, nSel)
	}
	if lens[3] != 0 {
		return bad(16, "extendedByteLength %d, want 0 for ETC1S", lens[3])
	}
	at := sgdHeaderSize + imageDescSize*len(out)
	if uint64(at)+lens[0]+lens[1]+lens[2] != uint64(len(sgd)) {
		return bad(4, "section lengths %d+%d+%d do not fill the %d bytes after the image descriptors", lens[0], lens[1], lens[2], len(sgd)-at)
	}
	epData := sgd[at : at+int(lens[0])]
	selData := sgd[at+int(lens[0]) : at+int(lens[0]+lens[1])]
	tabData := sgd[at+int(lens[0]+lens[1]):]

	// Endpoints.
	r := &bitReader{b: epData}
	var cm [3]*huffDecoder
	for i := range cm {
		var err error
		if cm[i], err = readHuffTable(r); err != nil {
			return bad(at, "endpoint color model %d: %v", i, err)
		}
	}
	imd, err := readHuffTable(r)
	if err != nil {
		return bad(at, "endpoint intensity model: %v", err)
	}
	grey := r.get(1) != 0
	eps := make([]etc1sEndpoint, nEP)
	prev := [3]uint8{16, 16, 16}
	prevT := uint8(0)
	for i := range eps {
		eps[i].t = (prevT + uint8(imd.get(r))) & 7
		prevT = eps[i].t
		nc := 3
		if grey {
			nc = 1
		}
		for c := range nc {
			v := (prev[c] + uint8(cm[colorModel(prev[c])].get(r))) & 31
			eps[i].c[c], prev[c] = v, v
		}
		if grey {
			eps[i].c[1], eps[i].c[2] = eps[i].c[0], eps[i].c[0]
		}
	}
	if r.eof {
		return bad(at, "endpoint codebook runs past its %d bytes", len(epData))
	}

	// Selectors.
	at += len(epData)
	r = &bitReader{b: selData}
	if r.get(2) != 0 {
		return bad(at, "selector codebook: reserved bits set")
	}
	sels := make([][4]uint8, nSel)
	if r.get(1) != 0 {
		for i := range sels {
			for j := range 4 {
				sels[i][j] = uint8(r.get(8))
			}
		}
	} else {
		dm, err := readHuffTable(r)
		if err != nil {
			return bad(at, "selector delta model: %v", err)
		}
		for j := range 4 {
			sels[0][j] = uint8(r.get(8))
		}
		for i := 1; i < nSel; i++ {
			for j := range 4 {
				sels[i][j] = uint8(dm.get(r)) ^ sels[i-1][j]
			}
		}
	}
	if r.eof {
		return bad(at, "selector codebook runs past its %d bytes", len(selData))
	}

	// Slice tables.
	at += len(selData)
	r = &bitReader{b: tabData}
	var models [4]*huffDecoder
	for i := range models {
		if models[i], err = readHuffTable(r); err != nil {
			return bad(at, "slice model %d: %v", i, err)
		}
	}
	hsize := int(r.get(13))
	if r.eof || hsize > historySize {
		return bad(at, "selector history of %d entries (at most %d)", hsize, historySize)
	}

	// Slices.
	for p := range out {
		d := sgd[sgdHeaderSize+imageDescSize*p:]
		var f [5]uint32
		for k := range f {
			f[k] = le.Uint32(d[4*k:])
		}
		descAt := sgdHeaderSize + imageDescSize*p
		if f[0] != 0 {
			return bad(descAt, "level %d: imageFlags %#x, want 0", p, f[0])
		}
		passes := 1
		if alpha {
			passes = 2
		} else if f[3] != 0 || f[4] != 0 {
			return bad(descAt+12, "level %d: alpha slice without an alpha sample in the DFD", p)
		}
		for k := range passes {
			off, n := uint64(f[1+2*k]), uint64(f[2+2*k])
			if n == 0 || off+n > uint64(len(data[p])) {
				return bad(descAt+4+8*k, "level %d: slice %d at %d+%d outside the %d-byte level", p, k, off, n, len(data[p]))
			}
			if err := decodeSlice(data[p][off:off+n], eps, sels, &models, hsize, &out[p], k == 1); err != nil {
				return bad(descAt+4+8*k, "level %d slice %d: %v", p, k, err)
			}
		}
		if !alpha {
			for i := 3; i < len(out[p].Pixels); i += 4 {
				out[p].Pixels[i] = 255
			}
		}
	}
	return nil
}

// decodeSlice decodes one slice into lv: RGB, or alpha from the decoded
// green channel.
func decodeSlice(b []byte, eps []etc1sEndpoint, sels [][4]uint8, m *[4]*huffDecoder, hsize int, lv *Level, alphaSlice bool) error {
	bw, bh := blockGrid(lv.Width, lv.Height)
	nEP, nSel := len(eps), len(sels)
	r := &bitReader{b: b}
	hist := newMTF(max(hsize, 1))
	prevRow := make([]int, bw)
	curRow := make([]int, bw)
	predBits := make([]uint32, (bw+1)/2)
	var cur, prevSym, repeat uint32
	rle := 0
	prevEP := 0
	var px [16][4]uint8
	for by := range bh {
		for bx := range bw {
			if bx&1 == 0 {
				if by&1 == 0 {
					if repeat > 0 {
						repeat--
						cur = prevSym
					} else {
						cur = uint32(m[0].get(r))
						if cur == predRepeat {
							repeat = getVLC(r, 4) + predMinRepeat - 1
							cur = prevSym
						} else {
							prevSym = cur
						}
					}
					predBits[bx>>1] = cur >> 4
				} else {
					cur = predBits[bx>>1]
				}
			}
			pred := cur & 3
			cur >>= 2
			var ep int
			switch pred {
			case 0:
				if bx == 0 {
					return fmt.Errorf("block (%d, %d): left prediction in the first column", bx, by)
				}
				ep = prevEP
			case 1:
				if by == 0 {
					return fmt.Errorf("block (%d, %d): above prediction in the first row", bx, by)
				}
				ep = prevRow[bx]
			case 2:
				if bx == 0 || by == 0 {
					return fmt.Errorf("block (%d, %d): above-left prediction on an edge", bx, by)
				}
				ep = prevRow[bx-1]
			default:
				ep = prevEP + m[1].get(r)
				if ep >= nEP {
					ep -= nEP
				}
			}
			curRow[bx] = ep
			prevEP = ep
			var sel int
			if rle > 0 {
				rle--
				sel = hist.v[0]
			} else {
				sym := m[2].get(r)
				if sym == nSel+hsize {
					run := m[3].get(r)
					if run == selRLESymbols-1 {
						rle = int(getVLC(r, 7)) + selRLEThreshold
					} else {
						rle = run + selRLEThreshold
					}
					rle--
					sym = nSel
				}
				switch {
				case sym >= nSel:
					k := sym - nSel
					if k >= hsize {
						return fmt.Errorf("block (%d, %d): history reference %d past %d entries", bx, by, k, hsize)
					}
					sel = hist.v[k]
					hist.use(k)
				default:
					sel = sym
					if hsize > 0 {
						hist.add(sel)
					}
				}
			}
			if ep >= nEP || sel >= nSel {
				return fmt.Errorf("block (%d, %d): codebook index out of range", bx, by)
			}
			col := eps[ep].colors()
			for y := range 4 {
				row := sels[sel][y]
				for x := range 4 {
					c := col[row>>(2*x)&3]
					if alphaSlice {
						px[y*4+x][3] = uint8(c[1])
					} else {
						px[y*4+x] = [4]uint8{uint8(c[0]), uint8(c[1]), uint8(c[2]), 0}
					}
				}
			}
			storeSlice(lv, bx, by, &px, alphaSlice)
		}
		if r.eof {
			return fmt.Errorf("row %d runs past the slice's %d bytes", by, len(b))
		}
		prevRow, curRow = curRow, prevRow
	}
	return nil
}

// storeSlice writes a decoded block's RGB (alpha slice: A) into lv.
func storeSlice(lv *Level, bx, by int, px *[16][4]uint8, alphaSlice bool) {
	for y := range 4 {
		sy := by*4 + y
		if sy >= lv.Height {
			break
		}
		for x := range 4 {
			sx := bx*4 + x
			if sx >= lv.Width {
				break
			}
			i := (sy*lv.Width + sx) * 4
			if alphaSlice {
				lv.Pixels[i+3] = px[y*4+x][3]
			} else {
				copy(lv.Pixels[i:i+3], px[y*4+x][:3])
			}
		}
	}
}
