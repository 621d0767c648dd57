package simplify

// Edge cache storage. The cache (see edgeCache) is kept per triangle of
// the result, two entries each, instead of one per corner: a triangle
// lists at most two of its three edges on a closed mesh (an edge with a
// twin is listed from the end with the larger class, and the three
// comparisons around a triangle cannot all agree), so a third entry per
// triangle would stay empty. eslot says which corner each entry holds; a
// triangle that lists three edges (isolated triangles, some border
// corners) ranks its third uncached, which computes the same value. On the
// 1.19M-triangle benchmark mesh that is 92 MiB instead of 163. The
// attribute parts of the errors live beside the entries (state.eattr) and
// only when attributes are weighted: a positions-only mesh keeps 24 bytes
// an entry instead of 40 (the bench mesh cooked with --lod-weights
// normal=0: peak RSS 470 MiB before, 412 MiB after; the same bytes).
//
// An entry belongs to its corner while the corner holds the same edge:
// remapRange clears it when the corner's vertex or the next one moves, so
// the entry needs no copy of the edge's vertices, and a listed edge always
// has the direction it had (it follows from the kinds of its ends, which
// never change).

// emptySlot marks an entry of eslot that holds no corner; eslotEmpty is a
// triangle with both entries empty.
const (
	emptySlot  = 3
	eslotEmpty = emptySlot | emptySlot<<2
)

// noSlot marks a candidate ranked without a cache entry.
const noSlot = ^uint32(0)

// claimSlots gives the candidates that triangle tri lists (their slot
// fields holding their corner within the triangle, 0-2) the triangle's
// cache entries: an entry stays with its corner, and a corner without one
// takes a free entry or one held by a corner that lists nothing now
// (cleared); a third candidate gets noSlot.
func (s *state) claimSlots(tri int, list []collapse) {
	tag := s.eslot[tri]
	held := [2]uint32{uint32(tag & 3), uint32(tag >> 2 & 3)}
	listed := [3]bool{}
	for i := range list {
		listed[list[i].slot] = true
	}
	// Entries of corners that list nothing are free to take.
	for j, e := range held {
		if e != emptySlot && !listed[e] {
			held[j] = emptySlot
		}
	}
	base := 2 * uint32(tri)
	for i := range list {
		c := &list[i]
		e := c.slot
		switch {
		case held[0] == e:
			c.slot = base
		case held[1] == e:
			c.slot = base + 1
		case held[0] == emptySlot:
			held[0] = e
			s.ecache[base] = edgeCache{}
			c.slot = base
		case held[1] == emptySlot:
			held[1] = e
			s.ecache[base+1] = edgeCache{}
			c.slot = base + 1
		default:
			c.slot = noSlot
		}
	}
	s.eslot[tri] = uint8(held[0] | held[1]<<2)
}

// cacheFor is the cache entry of a candidate's slot and its attribute
// part, or none (cleared) when it has no slot; the attribute part is
// noAttr (cleared) when no attribute is weighted.
func (s *state) cacheFor(slot uint32, none *edgeCache, noAttr *edgeAttr) (*edgeCache, *edgeAttr) {
	if slot == noSlot {
		*none, *noAttr = edgeCache{}, edgeAttr{}
		return none, noAttr
	}
	if s.eattr == nil {
		*noAttr = edgeAttr{}
		return &s.ecache[slot], noAttr
	}
	return &s.ecache[slot], &s.eattr[slot]
}

// moveCache moves the cache entries of triangle from (its corners held
// old) to triangle to (holding now), clearing the entries whose edge
// changed; eattr (nil without weighted attributes) moves beside ecache
// (a cleared entry's attribute part is stale but never read: it is
// written with the entry's versions).
func moveCache(ecache []edgeCache, eattr []edgeAttr, eslot []uint8, from, to int, old, now [3]uint32) {
	tag := eslot[from]
	for j := range 2 {
		e := tag >> (2 * j) & 3
		if e == emptySlot {
			continue
		}
		n := (e + 1) % 3
		if old[e] != now[e] || old[n] != now[n] {
			ecache[2*from+j] = edgeCache{}
		}
	}
	if from != to {
		eslot[to] = tag
		ecache[2*to], ecache[2*to+1] = ecache[2*from], ecache[2*from+1]
		if eattr != nil {
			eattr[2*to], eattr[2*to+1] = eattr[2*from], eattr[2*from+1]
		}
	}
}
