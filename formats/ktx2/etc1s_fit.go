package ktx2

import (
	"math"
	"slices"
)

// ETC1S endpoint fitting: the base color and intensity table that code a
// set of pixels (one block, or every block of a cluster) with the least
// squared RGB error when each pixel takes its best selector.
//
// A pixel decodes to clamp(base + modifier[table][selector]) in all three
// channels, so for fixed selectors the best base is, per channel, the
// pixels' mean minus the mean modifier actually applied (clamping
// included). The search starts every table at the rounded mean color,
// alternates selector choice and that least-squares base until the error
// stops falling, then tries the 26 base colors around the best one (each
// refined the same way). Everything is integer arithmetic.

// fitEffort is how hard fitETC1S searches.
type fitEffort struct {
	refines   int  // least-squares rounds per start
	tables    int  // how many of the best starting tables are refined
	neighbors bool // try the 26 neighbours of the best base
}

// etc1sPixels is the pixel set being fitted and its channel sums, with
// what evalLine reads: each pixel's r+g+b, and per row of 4 pixels (16
// bits each) the sums of r, g, b and of their squares.
type etc1sPixels struct {
	blocks [][16][3]uint8
	sum    [3]int64
	n      int64
	x      []int32
	rows   [][4]int32
}

func newETC1SPixels(blocks [][16][3]uint8) *etc1sPixels {
	p := &etc1sPixels{}
	p.reset(blocks)
	return p
}

// reset makes p the set of blocks, reusing its buffers.
func (p *etc1sPixels) reset(blocks [][16][3]uint8) {
	p.blocks, p.n, p.sum = blocks, int64(len(blocks))*16, [3]int64{}
	p.x, p.rows = slices.Grow(p.x[:0], 16*len(blocks))[:16*len(blocks)], slices.Grow(p.rows[:0], 4*len(blocks))[:4*len(blocks)]
	for k := range p.rows {
		var row [4]int32
		for j, px := range blocks[k/4][k%4*4 : k%4*4+4] {
			r, g, b := int32(px[0]), int32(px[1]), int32(px[2])
			p.x[4*k+j] = r + g + b
			row[0] += r
			row[1] += g
			row[2] += b
			row[3] += r*r + g*g + b*b
		}
		p.rows[k] = row
		for c := range 3 {
			p.sum[c] += int64(row[c])
		}
	}
}

// eval returns the error of e with each pixel's best selector and how many
// pixels use each selector; it stops early (returning an error above
// limit and meaningless counts) once the error exceeds limit, which it
// checks after every row of a block.
func (p *etc1sPixels) eval(e etc1sEndpoint, limit int64) (int64, [4]int64) {
	if t, cnt, ok := p.evalLine(e, limit); ok {
		return t, cnt
	}
	return p.evalClamped(e, limit)
}

// evalClamped is eval for any endpoint.
func (p *etc1sPixels) evalClamped(e etc1sEndpoint, limit int64) (int64, [4]int64) {
	col := e.colors()
	// The four colors in locals: the selector loop below is unrolled
	// (same comparisons in the same order as a loop over s).
	r0, g0, b0 := col[0][0], col[0][1], col[0][2]
	r1, g1, b1 := col[1][0], col[1][1], col[1][2]
	r2, g2, b2 := col[2][0], col[2][1], col[2][2]
	r3, g3, b3 := col[3][0], col[3][1], col[3][2]
	var total int64
	var cnt [4]int64
	for i := range p.blocks {
		b := &p.blocks[i]
		var bt int32
		for j := range 16 {
			r, g, bl := int32(b[j][0]), int32(b[j][1]), int32(b[j][2])
			dr, dg, db := r0-r, g0-g, b0-bl
			best, bs := dr*dr+dg*dg+db*db, 0
			dr, dg, db = r1-r, g1-g, b1-bl
			if d := dr*dr + dg*dg + db*db; d < best {
				best, bs = d, 1
			}
			dr, dg, db = r2-r, g2-g, b2-bl
			if d := dr*dr + dg*dg + db*db; d < best {
				best, bs = d, 2
			}
			dr, dg, db = r3-r, g3-g, b3-bl
			if d := dr*dr + dg*dg + db*db; d < best {
				best, bs = d, 3
			}
			bt += best
			cnt[bs]++
			if j&3 == 3 && total+int64(bt) > limit {
				return total + int64(bt), cnt
			}
		}
		total += int64(bt)
	}
	return total, cnt
}

// evalLine is eval for an endpoint none of whose colors clamps (ok false
// when one does). Every pixel's four colors are then base + m·(1,1,1) for
// the table's modifiers m, so with d = base − pixel the error of a
// selector is |d|² + m·(2D + 3m), D = d_r + d_g + d_b: a convex function
// of m, whose first least value over the increasing modifiers −b, −a, a,
// b is after as many of them as the midpoints −(a+b)/2, 0, (a+b)/2 that
// lie above −2D/3 (strictly). That is the selector eval's loop keeps,
// with the same error. D is Σbase − (r+g+b), and a row's Σ|d|² is
// Σ over channels of 4·base² − 2·base·Σ + Σ(squares): per pixel only D's
// selector and term remain.
func (p *etc1sPixels) evalLine(e etc1sEndpoint, limit int64) (int64, [4]int64, bool) {
	mods := &etc1Inten[e.t]
	a, b := mods[2], mods[3]
	var base [3]int32
	for c := range 3 {
		base[c] = expand5(int32(e.c[c]))
		if base[c]-b < 0 || base[c]+b > 255 {
			return 0, [4]int64{}, false
		}
	}
	sb := base[0] + base[1] + base[2]
	sq4 := 4 * (base[0]*base[0] + base[1]*base[1] + base[2]*base[2])
	ab3 := 3 * (a + b)
	var total, done int64
	var c1, c2, c3 int64 // pixels past the first, second, third midpoint
	for i, row := range p.rows {
		rt := sq4 - 2*(base[0]*row[0]+base[1]*row[1]+base[2]*row[2]) + row[3]
		for _, x := range p.x[4*i : 4*i+4] {
			d2 := 2 * (sb - x)
			s1, s2, s3 := bit(d2 < ab3), bit(d2 < 0), bit(d2 < -ab3)
			m := mods[s1+s2+s3]
			rt += m * (d2 + 3*m)
			c1 += int64(s1)
			c2 += int64(s2)
			c3 += int64(s3)
		}
		done += 4
		if total += int64(rt); total > limit {
			break
		}
	}
	return total, [4]int64{done - c1, c1 - c2, c2 - c3, c3}, true
}

// refine returns the least-squares base color for e's table given how
// many pixels use each selector.
func (p *etc1sPixels) refine(e etc1sEndpoint, cnt [4]int64) etc1sEndpoint {
	out := e
	for c := range 3 {
		b := expand5(int32(e.c[c]))
		var d int64
		for s := range 4 {
			d += cnt[s] * int64(min(255, max(0, b+etc1Inten[e.t][s]))-b)
		}
		out.c[c] = uint8(min(31, max(0, divRound((p.sum[c]-d)*31, p.n*255))))
	}
	return out
}

// fitETC1S returns the best endpoint found for the pixels and its error.
func fitETC1S(blocks [][16][3]uint8, eff fitEffort) (etc1sEndpoint, int64) {
	return newETC1SPixels(blocks).fit(eff)
}

// fit is fitETC1S of p's blocks.
func (p *etc1sPixels) fit(eff fitEffort) (etc1sEndpoint, int64) {
	var mean [3]uint8
	for c := range 3 {
		mean[c] = uint8(min(31, divRound(p.sum[c]*31, p.n*255)))
	}
	best, bestErr := etc1sEndpoint{}, int64(math.MaxInt64)
	var tried []etc1sEndpoint
	seen := func(e etc1sEndpoint) bool {
		for _, x := range tried {
			if x == e {
				return true
			}
		}
		tried = append(tried, e)
		return false
	}
	// chain refines e (error err, selector counts cnt) while the error
	// falls. The best error is at most err, so a step whose error passes
	// err ends the chain without being kept, whatever eval returns past
	// it.
	chain := func(e etc1sEndpoint, err int64, cnt [4]int64) {
		for range eff.refines {
			ne := p.refine(e, cnt)
			if ne == e || seen(ne) {
				return
			}
			nerr, ncnt := p.eval(ne, err)
			if nerr < bestErr {
				best, bestErr = ne, nerr
			}
			if nerr >= err {
				return
			}
			e, err, cnt = ne, nerr, ncnt
		}
	}
	// Every table at the mean color; the best few refined. Once that
	// many are sorted, a table whose error passes the last of them can
	// neither be refined nor be the best, and sorts after it (the
	// ordering is stable) whatever error above it eval returns.
	var start [8]struct {
		err int64
		cnt [4]int64
	}
	order := [8]int{}
	for t := range 8 {
		e := etc1sEndpoint{c: mean, t: uint8(t)}
		seen(e)
		limit := int64(math.MaxInt64)
		if t >= eff.tables {
			limit = start[order[eff.tables-1]].err
		}
		start[t].err, start[t].cnt = p.eval(e, limit)
		if start[t].err < bestErr {
			best, bestErr = e, start[t].err
		}
		order[t] = t
		for k := t; k > 0 && start[order[k]].err < start[order[k-1]].err; k-- {
			order[k], order[k-1] = order[k-1], order[k]
		}
	}
	if bestErr == 0 {
		return best, 0
	}
	for _, t := range order[:eff.tables] {
		chain(etc1sEndpoint{c: mean, t: uint8(t)}, start[t].err, start[t].cnt)
	}
	// The neighbours of the best base, unless it is already close.
	if eff.neighbors && bestErr > 3*p.n {
		center := best
		for d := range 27 {
			if d == 13 {
				continue
			}
			e := center
			ok := true
			for c, o := range [3]int{d%3 - 1, d/3%3 - 1, d/9 - 1} {
				v := int(e.c[c]) + o
				if v < 0 || v > 31 {
					ok = false
				}
				e.c[c] = uint8(v)
			}
			if !ok || seen(e) {
				continue
			}
			if err, cnt := p.eval(e, bestErr); err < bestErr {
				best, bestErr = e, err
				chain(e, err, cnt)
			}
		}
	}
	return best, bestErr
}

// evalOnly is eval without the counts.
func (p *etc1sPixels) evalOnly(e etc1sEndpoint, limit int64) int64 {
	t, _ := p.eval(e, limit)
	return t
}
