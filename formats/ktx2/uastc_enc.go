package ktx2

import "math"

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
	bf := blockFit{px: px}
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
		limit := int64(math.MaxInt64) // the first mode is always kept
		if k > 0 {
			limit = bestErr
		}
		b, e := bf.fitMode(m, ccs, limit)
		if bestErr < 0 || e < bestErr {
			best, bestErr = b, e
		}
	}
	if opaque && !grey && effort >= uastcGood && bestErr > partitionMinErr {
		for _, pat := range bestPatterns(px, 2) {
			var sub subsets2
			sub.init(px, pat)
			for _, m := range []int{2, 4} {
				b, e := sub.fit(px, m, bestErr)
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
//
// A pattern's error is Σ over subsets and channels of s2 − s²/cnt (s the
// sum, s2 the sum of squares, integer division). The s2 terms add up to
// the whole block's, the same for every pattern, so only the subset sums
// are taken per pattern: subset 1's from its pixels, subset 0's as the
// block's minus subset 1's.
func bestPatterns(px *[16][4]uint8, k int) []int {
	var all uint64 // R, G, B sums in 16-bit lanes (16 × 255 < 2^16)
	var sq int64
	var packed [16]uint64
	for i := range 16 {
		r, g, b := uint64(px[i][0]), uint64(px[i][1]), uint64(px[i][2])
		packed[i] = r | g<<16 | b<<32
		all += packed[i]
		sq += int64(r*r + g*g + b*b)
	}
	var cs [len(patterns2)]int64
	for p := range patterns2 {
		pp := &pattern2Subset1[p]
		var s1 uint64
		for _, i := range pp.px[:pp.n] {
			s1 += packed[i]
		}
		s0 := all - s1
		n1, n0 := int64(pp.n), int64(16-pp.n)
		e := sq
		for c := range 3 {
			a, b := int64(s0>>(16*c)&0xffff), int64(s1>>(16*c)&0xffff)
			if n0 > 0 {
				e -= a * a / n0
			}
			if n1 > 0 {
				e -= b * b / n1
			}
		}
		cs[p] = e
	}
	out := make([]int, 0, k)
	used := [len(patterns2)]bool{}
	for range k {
		b := -1
		for p := range cs {
			if !used[p] && (b < 0 || cs[p] < cs[b]) {
				b = p
			}
		}
		used[b] = true
		out = append(out, b)
	}
	return out
}

// pattern2Subset1 lists, per two-subset pattern, the pixels in subset 1.
var pattern2Subset1 = func() (t [len(patterns2)]struct {
	px [16]uint8
	n  int
}) {
	for p := range patterns2 {
		for i, g := range patterns2[p] {
			if g == 1 {
				t[p].px[t[p].n] = uint8(i)
				t[p].n++
			}
		}
	}
	return t
}()

// subsets2 are the two subsets of a block under a two-subset pattern:
// each one's pixels (RGB, in raster order), where they sit in the block,
// and the seed of its line fit, shared by the modes tried.
type subsets2 struct {
	pat  int
	x    [2][16][4]int32
	idx  [2][16]uint8
	cnt  [2]int
	seed [2]lineSeed
}

// init sets sb to the subsets of px under pattern pat.
func (sb *subsets2) init(px *[16][4]uint8, pat int) {
	*sb = subsets2{pat: pat}
	for i := range 16 {
		s := patterns2[pat][i]
		j := sb.cnt[s]
		for c := range 3 {
			sb.x[s][j][c] = int32(px[i][c])
		}
		sb.idx[s][j] = uint8(i)
		sb.cnt[s]++
	}
	for s := range 2 {
		sb.seed[s] = lineStart(&sb.x[s], sb.cnt[s])
	}
}

// fit encodes the opaque block px in two-subset RGB mode m and returns
// the block and its squared error over RGBA. An error of limit or more is
// all it returns once it knows the error reaches limit (the block is then
// incomplete).
func (sb *subsets2) fit(px *[16][4]uint8, m int, limit int64) (uastcBlock, int64) {
	md := &uastcModes[m]
	b := uastcBlock{mode: m, pat: sb.pat}
	r := bise[md.epRange]
	wt := uastcWeights[md.weightBits]
	var sum int64 // the subsets' errors so far
	for s := range 2 {
		cnt := sb.cnt[s]
		lo, hi, w, dec, e := fitLine(&sb.x[s], cnt, 3, sb.seed[s], r, wt, limit-sum)
		if sum += e; sum >= limit {
			return b, sum
		}
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
			i := sb.idx[s][j]
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
		return compsLA
	case 3:
		return compsRGB
	}
	return compsRGBA
}

var compsLA, compsRGB, compsRGBA = []int{0, 3}, []int{0, 1, 2}, []int{0, 1, 2, 3}

// blockFit is one block's single-subset fits; it keeps each group's line
// seed (which depends only on the group's channels) for the modes after
// the first.
type blockFit struct {
	px   *[16][4]uint8
	have uint16 // bit mask: seed[mask] is set
	seed [16]lineSeed
}

// fitMode encodes the block in mode m (ccs: the dual-plane channel, or -1)
// and returns the block with its decoded pixels and squared error. As for
// subsets2.fit, an error of limit or more may come with an incomplete
// block.
func (bf *blockFit) fitMode(m, ccs int, limit int64) (uastcBlock, int64) {
	px := bf.px
	md := &uastcModes[m]
	b := uastcBlock{mode: m}
	if md.planes == 2 {
		b.ccs = ccs
	}
	comps := compsOf(md.comps)
	r := bise[md.epRange]
	wt := uastcWeights[md.weightBits]
	// Groups of component indices (into comps) sharing a weight plane,
	// and the RGBA channels each covers.
	var groups [2][4]int
	var ng [2]int
	var mask [2]uint16
	for k, ch := range comps {
		g := 0
		if md.planes == 2 && ch == ccs {
			g = 1
		}
		groups[g][ng[g]] = k
		ng[g]++
		mask[g] |= 1 << ch
	}
	var total int64
	for plane := range md.planes {
		g := groups[plane][:ng[plane]]
		if len(g) == 0 {
			continue
		}
		var x [16][4]int32
		for i := range 16 {
			for j, k := range g {
				x[i][j] = int32(px[i][comps[k]])
			}
		}
		if bf.have&(1<<mask[plane]) == 0 {
			bf.seed[mask[plane]] = lineStart(&x, 16)
			bf.have |= 1 << mask[plane]
		}
		mult := int64(1)
		if md.comps == 2 && plane == 0 {
			mult = 3 // L stands for R, G and B
		}
		// Every plane's error (×mult) is part of the total: a plane that
		// ends past the limit ends the fit.
		lo, hi, w, dec, e := fitLine(&x, 16, len(g), bf.seed[mask[plane]], r, wt, divCeil(limit-total, mult))
		if total += e * mult; total >= limit {
			return b, total
		}
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
	if md.comps == 3 {
		// The error over RGBA, so modes compare fairly: the planes cover
		// R, G and B with the decoded values, and RGB modes decode alpha
		// 255 (which equals an opaque source).
		for i := range 16 {
			d := 255 - int64(px[i][3])
			total += d * d
		}
	}
	return b, total
}

// lineSeed is where a group's endpoint rounds start (8-bit values).
type lineSeed struct{ e0, e1 [4]int32 }

// lineStart returns the seed of a fit of the first cnt pixels of x
// (values 0..255): the extreme projections on their principal axis
// (integer covariance, power iteration), or their mean when flat. The
// lanes past the group's channels are 0 in x; they stay 0 in the
// covariance, the axis and the seed, so every step runs over all four.
func lineStart(x *[16][4]int32, cnt int) lineSeed {
	// Sums and sums of products (upper triangle) in 32 bits: 16·255² <
	// 2^21.
	var s0, s1, s2, s3 int32
	var q00, q01, q02, q03, q11, q12, q13, q22, q23, q33 int32
	for i := range cnt & 31 {
		p := &x[i&15]
		a, b, c, d := p[0], p[1], p[2], p[3]
		s0, s1, s2, s3 = s0+a, s1+b, s2+c, s3+d
		q00, q01, q02, q03 = q00+a*a, q01+a*b, q02+a*c, q03+a*d
		q11, q12, q13 = q11+b*b, q12+b*c, q13+b*d
		q22, q23, q33 = q22+c*c, q23+c*d, q33+d*d
	}
	N := int64(cnt)
	s := [4]int64{int64(s0), int64(s1), int64(s2), int64(s3)}
	q := [4][4]int64{
		{int64(q00), int64(q01), int64(q02), int64(q03)},
		{int64(q01), int64(q11), int64(q12), int64(q13)},
		{int64(q02), int64(q12), int64(q22), int64(q23)},
		{int64(q03), int64(q13), int64(q23), int64(q33)},
	}
	// The covariance ×cnt.
	var cov [4][4]int64
	for a := range 4 {
		for b := range 4 {
			cov[a][b] = N*q[a][b] - s[a]*s[b]
		}
	}
	// Power iteration from the channel with the largest variance; a
	// vector the step maps to itself is kept by every later step.
	var v [4]int64
	big := 0
	for c := 1; c < 4; c++ {
		if cov[c][c] > cov[big][big] {
			big = c
		}
	}
	v[big] = 4096
	for range 6 {
		var nv [4]int64
		var m int64
		for a := range 4 {
			r := &cov[a]
			nv[a] = r[0]*v[0]>>12 + r[1]*v[1]>>12 + r[2]*v[2]>>12 + r[3]*v[3]>>12
			m = max(m, abs64(nv[a]))
		}
		if m == 0 {
			break
		}
		same := true
		for a := range 4 {
			var na int64
			if nv[a] != 0 { // a zero lane (no division)
				na = nv[a] * 4096 / m
			}
			same = same && na == v[a]
			v[a] = na
		}
		if same {
			break
		}
	}
	vv := v[0]*v[0] + v[1]*v[1] + v[2]*v[2] + v[3]*v[3]
	// Endpoints at the extreme projections (or the mean for a flat group).
	var sd lineSeed
	if vv == 0 || cov[big][big] == 0 {
		for c := range 4 {
			sd.e0[c] = int32(divRound(s[c], N))
			sd.e1[c] = sd.e0[c]
		}
		return sd
	}
	// A pixel's projection (N·x − s)·v is N·(x·v) − s·v, increasing in
	// x·v (below 4·255·4096 in size, so 32 bits).
	v0, v1, v2, v3 := int32(v[0]), int32(v[1]), int32(v[2]), int32(v[3])
	lo, hi := int32(math.MaxInt32), int32(math.MinInt32)
	for i := range cnt & 31 {
		p := &x[i&15]
		xv := p[0]*v0 + p[1]*v1 + p[2]*v2 + p[3]*v3
		lo, hi = min(lo, xv), max(hi, xv)
	}
	sv := s[0]*v[0] + s[1]*v[1] + s[2]*v[2] + s[3]*v[3]
	pmin, pmax := N*int64(lo)-sv, N*int64(hi)-sv
	for c := range 4 {
		if v[c] == 0 && s[c] == 0 {
			continue // a zero lane
		}
		sd.e0[c] = clamp255(divRound(s[c]*vv+pmin*v[c], N*vv))
		sd.e1[c] = clamp255(divRound(s[c]*vv+pmax*v[c], N*vv))
	}
	return sd
}

// fitLine fits n channels of the first cnt pixels of x sharing one weight
// per pixel, in rounds from the seed: quantize the endpoints to the BISE
// range r, pick the weights, refit the endpoints by least squares on
// them. It returns the BISE codes lo/hi per channel, the weight indices,
// the decoded values and the squared error of the best round. The caller
// only uses fits with an error below limit: a fit it knows reaches limit
// may return early with any error ≥ limit.
func fitLine(x *[16][4]int32, cnt, n int, sd lineSeed, r *biseRange, wt []int32, limit int64) (lo, hi [4]uint8, w [16]uint8, dec [16][4]int32, bestErr int64) {
	e0, e1 := sd.e0, sd.e1
	bestErr = -1
	var plo, phi [4]uint8 // the previous round's codes
	for iter := range 3 {
		var qlo, qhi [4]uint8
		var dl, dh [4]int32
		for c := range n {
			qlo[c], qhi[c] = r.best[e0[c]], r.best[e1[c]]
			dl[c], dh[c] = int32(r.unq[qlo[c]]), int32(r.unq[qhi[c]])
		}
		// The same codes as the previous round give the same weights,
		// error and refit: every later round would repeat it.
		if iter > 0 && qlo == plo && qhi == phi {
			break
		}
		plo, phi = qlo, qhi
		// The last round's weights are only kept when they beat the best
		// so far and the caller's limit, so it may stop at either.
		stop := int64(math.MaxInt64)
		if iter == 2 {
			stop = limit
			if bestErr >= 0 {
				stop = min(stop, bestErr)
			}
		}
		ww, dd, err := pickWeights(x, cnt, &dl, &dh, wt, stop)
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
// dl/dh and returns them with the decoded values and the squared error;
// once the error reaches stop it returns that partial error (≥ stop).
// The lanes past the group's channels are 0 in x, dl and dh, so every
// sum runs over all four (the zero lanes add nothing).
//
// A pixel's first guess is the table weight k0 nearest its projection t =
// round(64·p/dd) on the line (clamped to 0..64; p = (x−dl)·(dh−dl),
// dd = |dh−dl|²); then the best of k0−1, k0 and k0+1 by decoded error,
// the lowest on a tie. t is taken without a division (divisor).
func pickWeights(x *[16][4]int32, cnt int, dl, dh *[4]int32, wt []int32, stop int64) ([16]uint8, [16][4]int32, int64) {
	levels := len(wt)
	// pal[k+1] is weight k's decoded color; pal[0] and pal[levels+1]
	// are far from every pixel (an error above 4·255², but 4·4351² stays
	// in 32 bits), so the neighbours of k0 need no range tests.
	var pal [34][4]int32
	pal[0] = [4]int32{palFar, palFar, palFar, palFar}
	pal[levels+1] = pal[0]
	var dv [4]int32
	var dd int32
	for c := range 4 {
		dv[c] = dh[c] - dl[c]
		dd += dv[c] * dv[c]
	}
	for k := range levels {
		for c := range 4 {
			pal[k+1][c] = astcInterp(dl[c], dh[c], wt[k])
		}
	}
	inv := newDivisor(dd)
	var w [16]uint8
	var dec [16][4]int32
	var total int64
	near := nearestTable[levels]
	for i := range cnt {
		xi := &x[i]
		p := (xi[0]-dl[0])*dv[0] + (xi[1]-dl[1])*dv[1] + (xi[2]-dl[2])*dv[2] + (xi[3]-dl[3])*dv[3]
		t := 0 // p <= 0 rounds to 0 or below (and dd = 0 is one point)
		if p >= dd && dd > 0 {
			t = 64 // 64 or above
		} else if p > 0 {
			t = inv.round64(p, dd)
		}
		k := int(near[t]) & 31 // pal index of k0−1
		e0 := palErr(&pal[k], xi)
		e1 := palErr(&pal[k+1], xi)
		e2 := palErr(&pal[k+2], xi)
		bestK, bestE := k, e0
		if e1 < bestE {
			bestK, bestE = k+1, e1
		}
		if e2 < bestE {
			bestK, bestE = k+2, e2
		}
		w[i] = uint8(bestK - 1)
		dec[i] = pal[bestK]
		if total += int64(bestE); total >= stop {
			break
		}
	}
	return w, dec, total
}

// palFar is pickWeights' sentinel color.
const palFar = 4096

// palErr is the squared distance of a decoded color to a pixel.
func palErr(c, x *[4]int32) int32 {
	d0, d1, d2, d3 := c[0]-x[0], c[1]-x[1], c[2]-x[2], c[3]-x[3]
	return d0*d0 + d1*d1 + d2*d2 + d3*d3
}

// divisor divides by one dd (0 < dd <= 4·255²) by a multiply: m =
// ⌈2^45/dd⌉. For n < 64.5·dd, ⌊n·m/2^45⌋ = ⌊n/dd⌋: n·m/2^45 = n/dd +
// n·ε/2^45 with ε = m·dd − 2^45 < dd, and n·ε < 64.5·dd² < 2^45, so the
// extra is below 1/dd and cannot carry past the next multiple of dd;
// n·m < 2^52 stays in 64 bits.
type divisor uint64

func newDivisor(dd int32) divisor {
	if dd <= 0 {
		return 0
	}
	return divisor((1<<45 + uint64(dd) - 1) / uint64(dd))
}

// round64 is round(64·p/dd) = ⌊(64·p + ⌊dd/2⌋)/dd⌋ for 0 < p < dd.
func (m divisor) round64(p, dd int32) int {
	return int((uint64(64*p+dd/2) * uint64(m)) >> 45)
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

// divCeil divides rounding up; n >= 0, d > 0.
func divCeil(n, d int64) int64 {
	return n/d + int64(bit(n%d != 0))
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
	// Each pixel's R+G+B, and the RGB sums of the four 2×2 quadrants,
	// of which each subblock is two.
	var lum [16]int32
	var quad [4][3]int32 // top left, top right, bottom left, bottom right
	for i := range 16 {
		r, g, b := int32(px[i][0]), int32(px[i][1]), int32(px[i][2])
		q := &quad[i>>3<<1|i>>1&1]
		q[0], q[1], q[2] = q[0]+r, q[1]+g, q[2]+b
		lum[i] = r + g + b
	}
	var halves [2][2][3]int32 // by flip and subblock, as etc1SubsetPixels
	for c := range 3 {
		halves[0][0][c], halves[0][1][c] = quad[0][c]+quad[2][c], quad[1][c]+quad[3][c]
		halves[1][0][c], halves[1][1][c] = quad[0][c]+quad[1][c], quad[2][c]+quad[3][c]
	}
	h := etc1Hints{diff: true}
	bestE := int64(-1)
	for flip := range 2 {
		t0, e0 := etc1SubTable(&lum, &etc1SubsetPixels[flip][0], &halves[flip][0])
		t1, e1 := etc1SubTable(&lum, &etc1SubsetPixels[flip][1], &halves[flip][1])
		if e := e0 + e1; bestE < 0 || e < bestE {
			bestE = e
			h.flip = flip == 1
			h.inten0, h.inten1 = t0, t1
		}
	}
	return h
}

// etc1SubTable returns the intensity table for the subblock made of the
// pixels idx, and its cost; lum holds every pixel's R+G+B and sum the
// subblock's RGB sums.
func etc1SubTable(lum *[16]int32, idx *[8]uint8, sum *[3]int32) (uint8, int64) {
	var base int32
	for c := range 3 {
		base += expand5((sum[c]*31 + 1020) / (8 * 255))
	}
	// Each pixel's mean offset from the base; a table's cost is the
	// squared distance of every offset to its nearest modifier (the
	// chroma residual is the same for every table, clamping is ignored:
	// these are hints). The modifiers are ±a, ±b with 0 < a < b, so an
	// offset's nearest one has its sign and the distance is that of
	// |offset| to a or b: a for the |offset|s below (a+b)/2.
	// For a table t, the offsets nearer a are those with 2·|o| < a+b,
	// and a+b grows with t: so an offset is nearer a from table
	// etc1NearA[|o|] on. Bucketed by that table, every table's cost
	// comes from running sums: Σo² − 2a·Σ_near o + k·a² − 2b·Σ_far o +
	// (8−k)·b², k the offsets nearer a.
	var cnt, sums [16]int64 // by table, 8: nearer b in every table
	var all, sq int64
	for _, i := range idx {
		o := lum[i&15] - base
		o = max(o, -o)
		t := etc1NearA[o&1023]
		cnt[t&15]++
		sums[t&15] += int64(o)
		all, sq = all+int64(o), sq+int64(o*o)
	}
	bestT, bestTE := 0, int64(-1)
	var k, near int64
	for t := range 8 {
		k, near = k+cnt[t], near+sums[t]
		a, b := int64(3*etc1Inten[t][2]), int64(3*etc1Inten[t][3])
		te := sq - 2*a*near + k*a*a - 2*b*(all-near) + (8-k)*b*b
		if bestTE < 0 || te < bestTE {
			bestT, bestTE = t, te
		}
	}
	return uint8(bestT), bestTE
}

// etc1NearA maps an offset |o| (at most 3·255) to the first intensity
// table whose a is nearer it than b (8: none is): the count of tables
// with a+b ≤ 2·|o| (3·the modifiers, as etc1SubTable scales them).
var etc1NearA = func() (m [1024]uint8) {
	for o := range m {
		for t := range 8 {
			if 3*(etc1Inten[t][2]+etc1Inten[t][3]) <= 2*int32(o) {
				m[o]++
			}
		}
	}
	return m
}()

// etc1SubsetPixels lists the pixels of each ETC1 subblock, by flip
// (0: left and right halves, 1: top and bottom) and subblock, in raster
// order.
var etc1SubsetPixels = func() (t [2][2][8]uint8) {
	for flip := range 2 {
		var n [2]int
		for y := range 4 {
			for x := range 4 {
				sub := 1
				if (flip == 0 && x < 2) || (flip == 1 && y < 2) {
					sub = 0
				}
				t[flip][sub][n[sub]] = uint8(y*4 + x)
				n[sub]++
			}
		}
	}
	return t
}()
