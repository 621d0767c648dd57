package ktx2

// UASTC block encoder.
//
// Per mode, each group of channels sharing one weight plane is fitted by
//  1. the principal axis of the pixels (integer covariance, power
//     iteration), endpoints at the extreme projections;
//  2. rounds of: quantize the endpoints to the mode's BISE range, choose
//     each pixel's weight (the nearest along the decoded line, then the
//     best of it and its two neighbours by exact decoded error), and refit
//     the endpoints by least squares on those weights.
// All arithmetic is integer, so the bytes are the same on every machine.

// etc1Inten are the ETC1 intensity modifier tables, indexed by selector
// value (0 = −b, 1 = −a, 2 = +a, 3 = +b).
var etc1Inten = [8][4]int32{
	{-8, -2, 2, 8}, {-17, -5, 5, 17}, {-29, -9, 9, 29}, {-42, -13, 13, 42},
	{-60, -18, 18, 60}, {-80, -24, 24, 80}, {-106, -33, 33, 106}, {-183, -47, 47, 183},
}

// uastcEffort picks which modes a block tries.
type uastcEffort int

const (
	uastcFast uastcEffort = iota // the 4-bit-weight modes and solid
	uastcGood                    // + 5-bit RGB and dual-plane modes
	uastcBest                    // + the 2- and 3-bit-weight modes
)

// encodeUASTC returns the best block it finds for 16 RGBA pixels (raster
// order) and that block's decoded pixels.
func encodeUASTC(px *[16][4]uint8, effort uastcEffort) ([16]byte, [16][4]uint8) {
	solid, opaque, grey := true, true, true
	for i := range px {
		p := px[i]
		if p != px[0] {
			solid = false
		}
		if p[3] != 255 {
			opaque = false
		}
		if p[0] != p[1] || p[1] != p[2] {
			grey = false
		}
	}
	if solid {
		b := uastcBlock{mode: uastcSolid, sol: px[0]}
		b.etc = solidETC1Hints(px[0])
		var dec [16][4]uint8
		for i := range dec {
			dec[i] = px[0]
		}
		return b.pack(), dec
	}
	var modes []int
	switch {
	case grey:
		modes = []int{15}
		if !opaque && effort >= uastcGood {
			modes = append(modes, 17)
		}
	case opaque:
		modes = []int{0}
		if effort >= uastcGood {
			modes = append(modes, 18, 6)
		}
		if effort >= uastcBest {
			modes = append(modes, 1, 5)
		}
	default:
		modes = []int{10}
		if effort >= uastcGood {
			modes = append(modes, 11, 13)
		}
		if effort >= uastcBest {
			modes = append(modes, 12, 14)
		}
	}
	var best uastcBlock
	bestErr := int64(-1)
	for k, m := range modes {
		if k > 0 && bestErr <= goodEnoughErr {
			break // the first mode is already within a code or so
		}
		md := &uastcModes[m]
		ccs := -1
		if md.planes == 2 {
			ccs = worstChannel(px, &best.px, md.comps)
		}
		b, e := fitUASTC(px, m, ccs)
		if bestErr < 0 || e < bestErr {
			best, bestErr = b, e
		}
	}
	if opaque && !grey && effort >= uastcGood && bestErr > partitionMinErr {
		for _, pat := range bestPatterns(px, 2) {
			for _, m := range []int{2, 4} {
				b, e := fitPartitioned(px, m, pat)
				if e < bestErr {
					best, bestErr = b, e
				}
			}
		}
	}
	best.etc = etc1HintsFor(&best.px)
	return best.pack(), best.px
}

// partitionMinErr is the squared block error (all channels) below which
// the two-subset modes are not tried: about one code per channel.
const partitionMinErr = 48

// bestPatterns returns the k two-subset patterns whose subsets are most
// uniform (least squared distance to each subset's mean RGB), best first,
// ties to the lower index.
func bestPatterns(px *[16][4]uint8, k int) []int {
	type cand struct {
		pat int
		e   int64
	}
	var cs [len(patterns2)]cand
	for p := range patterns2 {
		var s, s2 [2][3]int64
		var cnt [2]int64
		for i := range 16 {
			g := patterns2[p][i]
			cnt[g]++
			for c := range 3 {
				v := int64(px[i][c])
				s[g][c] += v
				s2[g][c] += v * v
			}
		}
		var e int64
		for g := range 2 {
			if cnt[g] == 0 {
				continue
			}
			for c := range 3 {
				e += s2[g][c] - s[g][c]*s[g][c]/cnt[g]
			}
		}
		cs[p] = cand{p, e}
	}
	out := make([]int, 0, k)
	used := [len(patterns2)]bool{}
	for range k {
		b := -1
		for p := range cs {
			if !used[p] && (b < 0 || cs[p].e < cs[b].e) {
				b = p
			}
		}
		used[b] = true
		out = append(out, b)
	}
	return out
}

// fitPartitioned encodes an opaque block in two-subset RGB mode m with
// pattern pat and returns the block and its squared error over RGBA.
func fitPartitioned(px *[16][4]uint8, m, pat int) (uastcBlock, int64) {
	md := &uastcModes[m]
	b := uastcBlock{mode: m, pat: pat}
	r := bise[md.epRange]
	wt := uastcWeights[md.weightBits]
	for s := range 2 {
		var x [16][4]int32
		var idx [16]int
		cnt := 0
		for i := range 16 {
			if int(patterns2[pat][i]) == s {
				for c := range 3 {
					x[cnt][c] = int32(px[i][c])
				}
				idx[cnt] = i
				cnt++
			}
		}
		lo, hi, w, dec, _ := fitPixels(&x, cnt, 3, r, wt)
		// The subset's anchor (its first pixel) needs its top bit 0.
		if int(w[0]) >= len(wt)/2 {
			lo, hi = hi, lo
			for j := range cnt {
				w[j] = uint8(len(wt)-1) - w[j]
			}
		}
		for c := range 3 {
			b.ep[s*6+2*c], b.ep[s*6+2*c+1] = lo[c], hi[c]
		}
		for j := range cnt {
			i := idx[j]
			b.w[i] = w[j]
			b.px[i] = [4]uint8{uint8(dec[j][0]), uint8(dec[j][1]), uint8(dec[j][2]), 255}
		}
	}
	var total int64
	for i := range 16 {
		for c := range 4 {
			d := int64(b.px[i][c]) - int64(px[i][c])
			total += d * d
		}
	}
	return b, total
}

// goodEnoughErr is the block squared error (all channels) at which the
// first mode tried is kept without trying the others.
const goodEnoughErr = 32

// worstChannel picks the dual-plane channel: the one the first mode's
// decoded pixels got most wrong (LA modes: always alpha).
func worstChannel(px, dec *[16][4]uint8, comps int) int {
	if comps == 2 {
		return 3
	}
	best, bestE := 0, int64(-1)
	for c := range comps {
		var e int64
		for i := range 16 {
			d := int64(px[i][c]) - int64(dec[i][c])
			e += d * d
		}
		if e > bestE {
			best, bestE = c, e
		}
	}
	return best
}

// compsOf lists, for a mode's component count, which RGBA channel each
// endpoint component reads: LA reads R (the block is grey) and A.
func compsOf(comps int) []int {
	switch comps {
	case 2:
		return []int{0, 3}
	case 3:
		return []int{0, 1, 2}
	}
	return []int{0, 1, 2, 3}
}

// fitUASTC encodes px in mode m (ccs: the dual-plane channel, or -1) and
// returns the block with its decoded pixels and squared error.
func fitUASTC(px *[16][4]uint8, m, ccs int) (uastcBlock, int64) {
	md := &uastcModes[m]
	b := uastcBlock{mode: m}
	if md.planes == 2 {
		b.ccs = ccs
	}
	comps := compsOf(md.comps)
	r := bise[md.epRange]
	wt := uastcWeights[md.weightBits]
	// Groups of component indices (into comps) sharing a weight plane.
	var groups [2][]int
	for k, ch := range comps {
		if md.planes == 2 && ch == ccs {
			groups[1] = append(groups[1], k)
		} else {
			groups[0] = append(groups[0], k)
		}
	}
	var total int64
	for plane := range md.planes {
		g := groups[plane]
		if len(g) == 0 {
			continue
		}
		var x [16][4]int32
		for i := range 16 {
			for j, k := range g {
				x[i][j] = int32(px[i][comps[k]])
			}
		}
		mult := int64(1)
		if md.comps == 2 && plane == 0 {
			mult = 3 // L stands for R, G and B
		}
		lo, hi, w, dec, e := fitGroup(&x, len(g), r, wt)
		total += e * mult
		// Anchor: the first weight of the plane must have its top bit 0.
		if int(w[0]) >= len(wt)/2 {
			lo, hi = hi, lo
			for i := range w {
				w[i] = uint8(len(wt)-1) - w[i]
			}
		}
		for j, k := range g {
			b.ep[2*k], b.ep[2*k+1] = lo[j], hi[j]
			for i := range 16 {
				b.px[i][comps[k]] = uint8(dec[i][j])
			}
		}
		for i := range 16 {
			b.w[i*md.planes+plane] = w[i]
		}
	}
	// Decoded pixels: LA modes copy L to G and B; RGB modes decode
	// alpha 255.
	for i := range 16 {
		switch md.comps {
		case 2:
			b.px[i][1], b.px[i][2] = b.px[i][0], b.px[i][0]
		case 3:
			b.px[i][3] = 255
		}
	}
	if md.comps != 2 {
		// The error over RGBA, so modes compare fairly (RGB modes decode
		// alpha 255, which equals the opaque source).
		total = 0
		for i := range 16 {
			for c := range 4 {
				d := int64(b.px[i][c]) - int64(px[i][c])
				total += d * d
			}
		}
	}
	return b, total
}

// fitGroup fits n channels of x (values 0..255) sharing one weight per
// pixel: BISE codes lo/hi per channel, weight indices, squared error.
func fitGroup(x *[16][4]int32, n int, r *biseRange, wt []int32) (lo, hi [4]uint8, w [16]uint8, dec [16][4]int32, bestErr int64) {
	return fitPixels(x, 16, n, r, wt)
}

// fitPixels is fitGroup over the first cnt pixels of x.
func fitPixels(x *[16][4]int32, cnt, n int, r *biseRange, wt []int32) (lo, hi [4]uint8, w [16]uint8, dec [16][4]int32, bestErr int64) {
	// Sums and covariance (×cnt) of the channels.
	N := int64(cnt)
	var s [4]int64
	for i := range cnt {
		for c := range n {
			s[c] += int64(x[i][c])
		}
	}
	var cov [4][4]int64
	for a := range n {
		for bb := range n {
			var sxy int64
			for i := range cnt {
				sxy += int64(x[i][a]) * int64(x[i][bb])
			}
			cov[a][bb] = N*sxy - s[a]*s[bb]
		}
	}
	// Power iteration from the channel with the largest variance.
	var v [4]int64
	big := 0
	for c := range n {
		if cov[c][c] > cov[big][big] {
			big = c
		}
	}
	v[big] = 4096
	for range 6 {
		var nv [4]int64
		var m int64
		for a := range n {
			for bb := range n {
				nv[a] += cov[a][bb] * v[bb] >> 12
			}
			m = max(m, abs64(nv[a]))
		}
		if m == 0 {
			break
		}
		for a := range n {
			v[a] = nv[a] * 4096 / m
		}
	}
	var vv int64
	for c := range n {
		vv += v[c] * v[c]
	}
	// Endpoints at the extreme projections (or the mean for a flat group).
	var e0, e1 [4]int32
	if vv == 0 || cov[big][big] == 0 {
		for c := range n {
			e0[c] = int32(divRound(s[c], N))
			e1[c] = e0[c]
		}
	} else {
		pmin, pmax := int64(1)<<62, -int64(1)<<62
		for i := range cnt {
			var p int64
			for c := range n {
				p += (N*int64(x[i][c]) - s[c]) * v[c]
			}
			pmin, pmax = min(pmin, p), max(pmax, p)
		}
		for c := range n {
			e0[c] = clamp255(divRound(s[c]*vv+pmin*v[c], N*vv))
			e1[c] = clamp255(divRound(s[c]*vv+pmax*v[c], N*vv))
		}
	}
	bestErr = -1
	for iter := range 3 {
		var qlo, qhi [4]uint8
		var dl, dh [4]int32
		for c := range n {
			qlo[c], qhi[c] = r.best[e0[c]], r.best[e1[c]]
			dl[c], dh[c] = int32(r.unq[qlo[c]]), int32(r.unq[qhi[c]])
		}
		ww, dd, err := pickWeights(x, cnt, n, &dl, &dh, wt)
		if bestErr < 0 || err < bestErr {
			bestErr, lo, hi, w, dec = err, qlo, qhi, ww, dd
		}
		if err == 0 || iter == 2 {
			break
		}
		// Least-squares refit of the endpoints on these weights.
		var A, B, C int64
		for i := range cnt {
			t := int64(wt[ww[i]])
			A += (64 - t) * (64 - t)
			B += (64 - t) * t
			C += t * t
		}
		det := A*C - B*B
		if det == 0 {
			break
		}
		for c := range n {
			var X0, X1 int64
			for i := range cnt {
				t := int64(wt[ww[i]])
				X0 += (64 - t) * int64(x[i][c])
				X1 += t * int64(x[i][c])
			}
			e0[c] = clamp255(divRound(64*(C*X0-B*X1), det))
			e1[c] = clamp255(divRound(64*(A*X1-B*X0), det))
		}
	}
	return lo, hi, w, dec, bestErr
}

// pickWeights chooses each pixel's weight index for decoded endpoints
// dl/dh and returns them with the decoded values and the squared error.
func pickWeights(x *[16][4]int32, cnt, n int, dl, dh *[4]int32, wt []int32) ([16]uint8, [16][4]int32, int64) {
	levels := len(wt)
	var pal [32][4]int32
	for k := range levels {
		for c := range n {
			pal[k][c] = astcInterp(dl[c], dh[c], wt[k])
		}
	}
	var dd int64
	for c := range n {
		d := int64(dh[c] - dl[c])
		dd += d * d
	}
	var w [16]uint8
	var dec [16][4]int32
	var total int64
	near := nearestTable[len(wt)]
	for i := range cnt {
		k0 := 0
		if dd > 0 {
			var p int64
			for c := range n {
				p += int64(x[i][c]-dl[c]) * int64(dh[c]-dl[c])
			}
			t := min(64, max(0, divRound(64*p, dd))) // 0..64 along the line
			k0 = int(near[t])
		}
		bestK, bestE := 0, int64(-1)
		for k := max(0, k0-1); k <= min(levels-1, k0+1); k++ {
			var e int64
			for c := range n {
				d := int64(pal[k][c] - x[i][c])
				e += d * d
			}
			if bestE < 0 || e < bestE {
				bestK, bestE = k, e
			}
		}
		w[i] = uint8(bestK)
		dec[i] = pal[bestK]
		total += bestE
	}
	return w, dec, total
}

// nearestTable maps, per weight count, a 0..64 weight to the index of the
// nearest table weight.
var nearestTable = func() [33]*[65]uint8 {
	var m [33]*[65]uint8
	for bits := 1; bits <= 5; bits++ {
		wt := uastcWeights[bits]
		t := new([65]uint8)
		for v := range t {
			best, bd := 0, int32(1<<30)
			for k, x := range wt {
				d := x - int32(v)
				if d < 0 {
					d = -d
				}
				if d < bd {
					best, bd = k, d
				}
			}
			t[v] = uint8(best)
		}
		m[len(wt)] = t
	}
	return m
}()

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// divRound divides rounding half away from zero; d > 0.
func divRound(n, d int64) int64 {
	if n >= 0 {
		return (n + d/2) / d
	}
	return -((-n + d/2) / d)
}

func clamp255(v int64) int32 {
	return int32(min(255, max(0, v)))
}

// expand5 widens a 5-bit ETC1 color component to 8 bits.
func expand5(v int32) int32 { return v<<3 | v>>2 }

// solidETC1Hints picks the differential ETC1 color, intensity table and
// selector that best represent one solid color.
func solidETC1Hints(c [4]uint8) etc1Hints {
	h := etc1Hints{diff: true}
	bestE := int64(-1)
	for t := range 8 {
		for s := range 4 {
			var e int64
			var base [3]uint8
			for ch := range 3 {
				mod := etc1Inten[t][s]
				b5 := min(31, max(0, (int32(c[ch])-mod)*31/255))
				bestB, bestD := b5, int64(-1)
				for cand := max(0, b5-1); cand <= min(31, b5+1); cand++ {
					d := int64(min(255, max(0, expand5(cand)+mod)) - int32(c[ch]))
					if bestD < 0 || d*d < bestD {
						bestB, bestD = cand, d*d
					}
				}
				base[ch] = uint8(bestB)
				e += bestD
			}
			if bestE < 0 || e < bestE {
				bestE = e
				h.inten0, h.sel = uint8(t), uint8(s)
				h.r, h.g, h.b = base[0], base[1], base[2]
			}
		}
	}
	return h
}

// etc1HintsFor picks the flip and the two intensity tables the UASTC →
// ETC1 transcoder should use for a block that decodes to px; it always
// takes differential mode (the transcoder clamps the color delta).
func etc1HintsFor(px *[16][4]uint8) etc1Hints {
	h := etc1Hints{diff: true}
	bestE := int64(-1)
	for flip := range 2 {
		var e int64
		var inten [2]uint8
		for sub := range 2 {
			var idx [8]int
			n := 0
			for y := range 4 {
				for x := range 4 {
					in := x < 2
					if flip == 1 {
						in = y < 2
					}
					if in == (sub == 0) {
						idx[n] = y*4 + x
						n++
					}
				}
			}
			var sum [3]int32
			for _, i := range idx {
				for c := range 3 {
					sum[c] += int32(px[i][c])
				}
			}
			var base [3]int32
			for c := range 3 {
				base[c] = expand5((sum[c]*31 + 1020) / (8 * 255))
			}
			// Each pixel's mean offset from the base; a table's cost is
			// the squared distance of every offset to its nearest
			// modifier (the chroma residual is the same for every table,
			// clamping is ignored: these are hints).
			var off [8]int32
			for j, i := range idx {
				off[j] = int32(px[i][0]) + int32(px[i][1]) + int32(px[i][2]) - base[0] - base[1] - base[2]
			}
			bestT, bestTE := 0, int64(-1)
			for t := range 8 {
				var te int64
				for _, o := range off {
					bd := int64(1) << 40
					for _, m := range etc1Inten[t] {
						d := int64(3*m - o)
						bd = min(bd, d*d)
					}
					te += bd
				}
				if bestTE < 0 || te < bestTE {
					bestT, bestTE = t, te
				}
			}
			inten[sub] = uint8(bestT)
			e += bestTE
		}
		if bestE < 0 || e < bestE {
			bestE = e
			h.flip = flip == 1
			h.inten0, h.inten1 = inten[0], inten[1]
		}
	}
	return h
}
