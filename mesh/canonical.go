package mesh

// Canonicalization: the cook's step 2. It turns whatever an importer produced
// into one canonical submesh: exact duplicates welded, degenerate triangles
// dropped, unit normals everywhere, MikkTSpace tangents where a UV0 stream
// exists, vertices in first-reference order. The same input always gives
// the same bytes, and canonicalizing a canonical submesh changes nothing
// (refresh --check relies on that).
//
// Decisions (docs/canonicalize.md has the long form):
//   - Weld compares raw float bits, so +0 and -0 are different and NaNs with
//     the same payload are equal. Bit equality is the only rule that never
//     merges vertices a renderer could tell apart.
//   - A triangle is degenerate when two of its corners have equal positions
//     (float equality, so +0 and -0 count as equal). Collinear triangles
//     with three distinct positions are kept: they may close a crack.
//   - Skin joints and weights and every morph target's position and normal
//     deltas are vertex streams like the others: compared bit for bit by
//     the weld and permuted with the vertices; degeneracy ignores them.
//   - Normals and tangents: see normals.go and tangents.go.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"

	"github.com/zeebo/xxh3"

	"github.com/meshcook/meshcook/internal/par"
)

// ErrInvalidSubmesh is wrapped by every error Validate (and so Canonicalize
// and GenerateTangents) returns.
var ErrInvalidSubmesh = errors.New("mesh: invalid submesh")

// unitTolerance is how far |v|² may be from 1 before a stored normal or
// tangent is renormalised. It is well above float32 rounding of a normalised
// vector (~2e-7), so canonical output is left bit-identical on a second pass.
const unitTolerance = 1e-6

// CanonicalOptions controls Canonicalize. The zero value is the default:
// drop degenerate triangles, generate normals when the source has none, and
// generate tangents when the source has none and has UV0 (and normals).
type CanonicalOptions struct {
	KeepDegenerate bool // keep triangles with two equal corner positions
	NoNormals      bool // do not generate a missing normal stream
	NoTangents     bool // do not generate a missing tangent stream
}

// CanonicalReport says what Canonicalize changed, as before → after counts.
type CanonicalReport struct {
	VerticesBefore, VerticesAfter   int // after = the final vertex count
	TrianglesBefore, TrianglesAfter int
	DegenerateDropped               int
	GeneratedNormals                bool
	GeneratedTangents               bool
	// RepairedNormals and RepairedTangents count vertices (after the first
	// weld) whose stored normal or tangent was zero or not finite and was
	// replaced.
	RepairedNormals  int
	RepairedTangents int
}

// Validate checks the Submesh contracts: every present stream has one entry
// per position, Indices is a triangle list of in-range indices (at most
// 2³¹-1 of them), and every position is finite. Errors wrap
// ErrInvalidSubmesh.
func (s *Submesh) Validate() error {
	n := len(s.Positions)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidSubmesh, s.Name, fmt.Sprintf(format, args...))
	}
	if s.Normals != nil && len(s.Normals) != n {
		return bad("%d normals for %d positions", len(s.Normals), n)
	}
	if s.Tangents != nil && len(s.Tangents) != n {
		return bad("%d tangents for %d positions", len(s.Tangents), n)
	}
	if s.UV0 != nil && len(s.UV0) != n {
		return bad("%d uv0 entries for %d positions", len(s.UV0), n)
	}
	if s.Colors != nil && len(s.Colors) != n {
		return bad("%d colors for %d positions", len(s.Colors), n)
	}
	if s.Joints != nil && len(s.Joints) != n {
		return bad("%d joint entries for %d positions", len(s.Joints), n)
	}
	if s.Weights != nil && len(s.Weights) != n {
		return bad("%d weight entries for %d positions", len(s.Weights), n)
	}
	for i, m := range s.Morphs {
		if m.Positions != nil && len(m.Positions) != n {
			return bad("morph target %d %q: %d position deltas for %d positions", i, m.Name, len(m.Positions), n)
		}
		if m.Normals != nil && len(m.Normals) != n {
			return bad("morph target %d %q: %d normal deltas for %d positions", i, m.Name, len(m.Normals), n)
		}
	}
	if len(s.Indices)%3 != 0 {
		return bad("%d indices is not a multiple of 3", len(s.Indices))
	}
	if int64(len(s.Indices)) > math.MaxInt32 {
		// Per-corner work (splits, tangent groups) is indexed with int32.
		return bad("%d indices exceeds the limit of %d", len(s.Indices), math.MaxInt32)
	}
	// The per-element checks run in parallel chunks; par.First reports the
	// element a loop in order would.
	if i := par.First(len(s.Indices), validateChunk, func(lo, hi int) int {
		for i, ix := range s.Indices[lo:hi] {
			if uint64(ix) >= uint64(n) {
				return lo + i
			}
		}
		return -1
	}); i >= 0 {
		return bad("index %d at %d out of range (%d vertices)", s.Indices[i], i, n)
	}
	if i := par.First(n, validateChunk, func(lo, hi int) int {
		for i, p := range s.Positions[lo:hi] {
			if !p.IsFinite() {
				return lo + i
			}
		}
		return -1
	}); i >= 0 {
		return bad("position %d is not finite (%v)", i, s.Positions[i])
	}
	return nil
}

// Canonicalize rewrites s in place: normalise stored normals and tangents,
// drop degenerate triangles, weld, generate missing normals and tangents,
// then weld again so that the result has no bit-identical duplicate
// vertices. Unreferenced vertices are removed and the survivors are ordered
// by first reference in the index buffer, so the result is deterministic and
// Canonicalize is idempotent. Triangle order is kept.
//
// It returns an error wrapping ErrInvalidSubmesh, and leaves s unchanged,
// when s breaks the Submesh contracts (see Validate).
func Canonicalize(s *Submesh, opts CanonicalOptions) (CanonicalReport, error) {
	return CanonicalizeContext(context.Background(), s, opts)
}

// CanonicalizeContext is Canonicalize that stops when ctx is done, with an
// error wrapping ctx.Err(). It checks ctx before it starts and between its
// steps (drop, weld, normals, tangents, final weld); a stopped call may
// leave s partly rewritten (still valid), so the caller discards it.
func CanonicalizeContext(ctx context.Context, s *Submesh, opts CanonicalOptions) (CanonicalReport, error) {
	var r CanonicalReport
	if err := ctxErr(ctx); err != nil {
		return r, err
	}
	if err := s.Validate(); err != nil {
		return r, err
	}
	r.VerticesBefore, r.TrianglesBefore = len(s.Positions), s.TriangleCount()

	// Stored streams: unit length, w = ±1; remember vertices needing repair.
	var badNormal, badTangent []bool
	if s.Normals != nil {
		s.Normals = slices.Clone(s.Normals) // keep the caller's array intact
		badNormal = make([]bool, len(s.Normals))
		par.Ranges(len(s.Normals), validateChunk, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				u, ok := unitVec3(s.Normals[i])
				s.Normals[i], badNormal[i] = u, !ok
			}
		})
	}
	if s.Tangents != nil {
		s.Tangents = slices.Clone(s.Tangents)
		badTangent = make([]bool, len(s.Tangents))
		par.Ranges(len(s.Tangents), validateChunk, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				t := s.Tangents[i]
				u, ok := unitVec3(Vec3{t[0], t[1], t[2]})
				w := float32(1)
				if t[3] < 0 {
					w = -1
				}
				s.Tangents[i], badTangent[i] = Vec4{u[0], u[1], u[2], w}, !ok
			}
		})
	}

	// Drop degenerate triangles, then weld, carrying the repair marks along
	// with the vertices. (Dropping first gives the same result as welding
	// first, since degeneracy depends on positions only, and lets the weld
	// remove the vertices only those triangles used.)
	if !opts.KeepDegenerate {
		r.DegenerateDropped = dropDegenerate(s)
	}
	if err := ctxErr(ctx); err != nil {
		return r, err
	}
	remap := weld(s)
	badNormal = remapFlags(badNormal, remap, len(s.Positions))
	badTangent = remapFlags(badTangent, remap, len(s.Positions))
	if err := ctxErr(ctx); err != nil {
		return r, err
	}

	// Normals: generate, or repair the bad ones from generated corner values.
	switch {
	case s.Normals == nil && !opts.NoNormals:
		remap = generateNormals(s)
		badTangent = remapFlags(badTangent, remap, len(s.Positions))
		r.GeneratedNormals = true
	case s.Normals != nil:
		r.RepairedNormals = countTrue(badNormal)
		if r.RepairedNormals > 0 {
			gen := cornerNormals(s)
			corner := make([]Vec4, len(s.Indices))
			for c, v := range s.Indices {
				n := s.Normals[v]
				if badNormal[v] {
					n = gen[c]
				}
				corner[c] = Vec4{n[0], n[1], n[2], 0}
			}
			remap = splitCorners(s, corner)
			badTangent = remapFlags(badTangent, remap, len(s.Positions))
			s.Normals = vec3s(corner, s)
		}
	}

	if err := ctxErr(ctx); err != nil {
		return r, err
	}

	// Tangents: generate when missing, repair stored ones that were bad.
	switch {
	case s.Tangents == nil && !opts.NoTangents && s.UV0 != nil && s.Normals != nil:
		if err := generateTangents(ctx, s); err != nil {
			return r, err // a done ctx (s was validated and stays valid)
		}
		r.GeneratedTangents = true
	case s.Tangents != nil:
		for v, b := range badTangent {
			if !b {
				continue
			}
			r.RepairedTangents++
			n := Vec3{0, 1, 0}
			if s.Normals != nil {
				n = s.Normals[v]
			}
			t := perpendicular(n)
			s.Tangents[v] = Vec4{t[0], t[1], t[2], 1}
		}
	}

	if err := ctxErr(ctx); err != nil {
		return r, err
	}
	// The first weld left no two vertices alike, in first-use order; only
	// new or replaced values (generated normals split vertices, repaired or
	// generated tangents can make two equal) give the second one work. On
	// the others it is the identity: skipped, it was 40% of the step on a
	// 1.19M-triangle scan with stored normals.
	if r.GeneratedNormals || r.RepairedNormals > 0 || r.GeneratedTangents || r.RepairedTangents > 0 {
		weld(s)
	}
	r.VerticesAfter, r.TrianglesAfter = len(s.Positions), s.TriangleCount()
	return r, nil
}

// ctxErr is ctx's error wrapped for this package's callers.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("mesh: %w", err)
	}
	return nil
}

// Weld merges vertices whose every present stream is bit-identical
// (float bits are compared, so +0 and -0 are different values and NaNs with
// equal bits are equal; skin joints and weights and every morph target's
// deltas are streams too), drops vertices no triangle references, orders the
// survivors by first reference in Indices and remaps Indices. It returns how
// many vertices were removed. A submesh that fails Validate is left
// unchanged and 0 is returned.
func Weld(s *Submesh) int {
	if s.Validate() != nil {
		return 0
	}
	before := len(s.Positions)
	weld(s)
	return before - len(s.Positions)
}

// weldKey is the bit pattern of every stream of one vertex; absent streams
// are zero for every vertex of the submesh, so they never separate two.
// Morph deltas, whose count varies, are packed into morphs (empty when the
// submesh has no morph targets, so static meshes pay nothing for them).
type weldKey struct {
	base   [22]uint32
	morphs string
}

func (s *Submesh) weldKey(v uint32) weldKey {
	var key weldKey
	k := &key.base
	p := s.Positions[v]
	k[0], k[1], k[2] = math.Float32bits(p[0]), math.Float32bits(p[1]), math.Float32bits(p[2])
	if s.Normals != nil {
		n := s.Normals[v]
		k[3], k[4], k[5] = math.Float32bits(n[0]), math.Float32bits(n[1]), math.Float32bits(n[2])
	}
	if s.Tangents != nil {
		t := s.Tangents[v]
		k[6], k[7], k[8], k[9] = math.Float32bits(t[0]), math.Float32bits(t[1]), math.Float32bits(t[2]), math.Float32bits(t[3])
	}
	if s.UV0 != nil {
		t := s.UV0[v]
		k[10], k[11] = math.Float32bits(t[0]), math.Float32bits(t[1])
	}
	if s.Colors != nil {
		c := s.Colors[v]
		k[12], k[13], k[14], k[15] = math.Float32bits(c[0]), math.Float32bits(c[1]), math.Float32bits(c[2]), math.Float32bits(c[3])
	}
	if s.Joints != nil {
		j := s.Joints[v]
		k[16], k[17] = uint32(j[0])|uint32(j[1])<<16, uint32(j[2])|uint32(j[3])<<16
	}
	if s.Weights != nil {
		w := s.Weights[v]
		k[18], k[19], k[20], k[21] = math.Float32bits(w[0]), math.Float32bits(w[1]), math.Float32bits(w[2]), math.Float32bits(w[3])
	}
	if len(s.Morphs) > 0 {
		b := make([]byte, 0, 24*len(s.Morphs))
		put := func(d Vec3) {
			for _, x := range d {
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
			}
		}
		for _, m := range s.Morphs {
			if m.Positions != nil {
				put(m.Positions[v])
			}
			if m.Normals != nil {
				put(m.Normals[v])
			}
		}
		key.morphs = string(b)
	}
	return key
}

// weld is Weld on a valid submesh. It returns, for every new vertex, the old
// vertex it was copied from.
//
// Keys are hashed in parallel chunks and weldClasses groups equal
// vertices, in parallel by hash ranges, walking the vertices in order (a
// walk in index order would probe its table at random and, on a
// 1.19M-triangle scan, take twice as long); one pass in index order then
// numbers the groups by first use, each group by the vertex that first
// references it, whatever the core count.
func weld(s *Submesh) []uint32 {
	n := len(s.Positions)
	hashes := make([]uint64, n)
	par.Ranges(n, weldChunk, func(_, lo, hi int) {
		for v := lo; v < hi; v++ {
			hashes[v] = s.weldHash(uint32(v))
		}
	})
	class := s.weldClasses(hashes)
	// newOf is the new number of each class, at its leader.
	newOf := make([]uint32, n)
	for i := range newOf {
		newOf[i] = math.MaxUint32
	}
	src := make([]uint32, 0, n)
	idx := make([]uint32, len(s.Indices))
	for c, v := range s.Indices {
		k := class[v]
		if newOf[k] == math.MaxUint32 {
			newOf[k] = uint32(len(src))
			src = append(src, v)
		}
		idx[c] = newOf[k]
	}
	s.gather(src)
	s.Indices = idx
	return src
}

// weldClasses maps every vertex to the lowest-numbered vertex equal to it
// (same hash, then same key). Vertices are split by the top bits of their
// hash into one range per goroutine (equal vertices fall in one), each
// with its own open-addressing table, filled in vertex order; how many
// ranges there are changes nothing in the result.
func (s *Submesh) weldClasses(hashes []uint64) []uint32 {
	class := make([]uint32, len(hashes))
	parts := uint64(runtime.GOMAXPROCS(0))
	par.Each(int(parts), func(p int) {
		mine := func(h uint64) bool { return (h>>32)*parts>>32 == uint64(p) }
		count := 0
		for _, h := range hashes {
			if mine(h) {
				count++
			}
		}
		mask := uint64(tableSize(count) - 1)
		table := make([]uint32, mask+1) // vertex + 1; 0 is empty
		for v, h := range hashes {
			if !mine(h) {
				continue
			}
			for slot := h & mask; ; slot = (slot + 1) & mask {
				e := table[slot]
				if e == 0 {
					table[slot] = uint32(v) + 1
					class[v] = uint32(v)
					break
				}
				if u := e - 1; hashes[u] == h && s.weldKey(u) == s.weldKey(uint32(v)) {
					class[v] = u
					break
				}
			}
		}
	})
	return class
}

// tableSize is the power of two at least twice n (and at least 1): an
// open-addressing table at most half full.
func tableSize(n int) int {
	size := 1
	for size < 2*n {
		size <<= 1
	}
	return size
}

// weldChunk is the vertex count of one parallel chunk of key hashing.
const weldChunk = 1 << 15

// weldHash is vertex v's weldKey hash: the words of its present streams
// mixed as weldKey.hash mixes them, without building the key (a submesh
// with morph targets builds it). Absent streams are the same for every
// vertex, so leaving them out keeps equal keys at equal hashes.
func (s *Submesh) weldHash(v uint32) uint64 {
	if len(s.Morphs) > 0 {
		k := s.weldKey(v)
		return k.hash()
	}
	h := uint64(0)
	mix := func(a, b float32) { h = mixWord(h, uint64(math.Float32bits(a))|uint64(math.Float32bits(b))<<32) }
	mix4 := func(x Vec4) { mix(x[0], x[1]); mix(x[2], x[3]) }
	p := s.Positions[v]
	mix(p[0], p[1])
	mix(p[2], 0)
	if s.Normals != nil {
		n := s.Normals[v]
		mix(n[0], n[1])
		mix(n[2], 0)
	}
	if s.Tangents != nil {
		mix4(s.Tangents[v])
	}
	if s.UV0 != nil {
		mix(s.UV0[v][0], s.UV0[v][1])
	}
	if s.Colors != nil {
		mix4(s.Colors[v])
	}
	if s.Joints != nil {
		j := s.Joints[v]
		h = mixWord(h, uint64(j[0])|uint64(j[1])<<16|uint64(j[2])<<32|uint64(j[3])<<48)
	}
	if s.Weights != nil {
		mix4(s.Weights[v])
	}
	return fmix64(h)
}

// fmix64 is MurmurHash3's 64-bit finalizer.
func fmix64(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// hash mixes the key's words (two at a time, MurmurHash3's 64-bit
// finalizer at the end) and the morph bytes' xxh3.
func (k *weldKey) hash() uint64 {
	h := uint64(len(k.morphs))
	if k.morphs != "" {
		h = xxh3.HashString(k.morphs)
	}
	for i := 0; i+1 < len(k.base); i += 2 {
		h = mixWord(h, uint64(k.base[i])|uint64(k.base[i+1])<<32)
	}
	return fmix64(h)
}

// mixWord mixes one 64-bit word into h (MurmurHash3's 64-bit block step).
func mixWord(h, w uint64) uint64 {
	h ^= w * 0x87c37b91114253d5
	return bits.RotateLeft64(h, 31) * 0x4cf5ad432745937f
}

// gather replaces every present stream by its entries at src, in order.
// Streams that were present stay non-nil even when src is empty.
func (s *Submesh) gather(src []uint32) {
	s.Positions = gatherSlice(s.Positions, src)
	s.Normals = gatherSlice(s.Normals, src)
	s.Tangents = gatherSlice(s.Tangents, src)
	s.UV0 = gatherSlice(s.UV0, src)
	s.Colors = gatherSlice(s.Colors, src)
	s.Joints = gatherSlice(s.Joints, src)
	s.Weights = gatherSlice(s.Weights, src)
	if s.Morphs != nil {
		morphs := make([]MorphTarget, len(s.Morphs))
		for i, m := range s.Morphs {
			morphs[i] = MorphTarget{Name: m.Name, Positions: gatherSlice(m.Positions, src), Normals: gatherSlice(m.Normals, src), Weight: m.Weight}
		}
		s.Morphs = morphs // a new slice: the caller's targets stay intact
	}
}

func gatherSlice[T any](in []T, src []uint32) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(src))
	par.Ranges(len(src), gatherChunk, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = in[src[i]]
		}
	})
	return out
}

// validateChunk is the element count of one parallel chunk of Validate's
// checks and of the stored streams' normalisation.
const validateChunk = 1 << 15

// gatherChunk is the entry count of one parallel chunk of gatherSlice.
const gatherChunk = 1 << 15

// remapFlags carries per-vertex flags through a remap (new vertex → old).
func remapFlags(flags []bool, src []uint32, n int) []bool {
	if flags == nil {
		return nil
	}
	out := make([]bool, n)
	par.Ranges(len(src), gatherChunk, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = flags[src[i]]
		}
	})
	return out
}

func countTrue(b []bool) int {
	n := 0
	for _, x := range b {
		if x {
			n++
		}
	}
	return n
}

// DropDegenerate removes triangles with two corners at equal positions
// (float equality per component, so +0 equals -0; after Weld this is the
// same as bit equality up to the sign of zero) and returns how many it
// removed. Triangle order is kept; vertices are not touched (Weld removes
// any left unreferenced). A submesh that fails Validate is left unchanged.
func DropDegenerate(s *Submesh) int {
	if s.Validate() != nil {
		return 0
	}
	return dropDegenerate(s)
}

// dropDegenerate is DropDegenerate on a valid submesh. Triangles are
// tested in parallel chunks, each counting its own; only a mesh that has
// some allocates the new index buffer, once, at its final size, and the
// chunks copy their kept triangles to offsets summed in chunk order.
func dropDegenerate(s *Submesh) int {
	tris := len(s.Indices) / 3
	degenerate := func(t int) bool {
		pa, pb, pc := s.Positions[s.Indices[3*t]], s.Positions[s.Indices[3*t+1]], s.Positions[s.Indices[3*t+2]]
		return pa == pb || pa == pc || pb == pc
	}
	counts := make([]int, (tris+degenerateChunk-1)/degenerateChunk)
	par.Ranges(tris, degenerateChunk, func(k, lo, hi int) {
		for t := lo; t < hi; t++ {
			if degenerate(t) {
				counts[k]++
			}
		}
	})
	dropped := 0
	offsets := make([]int, len(counts)) // first kept triangle of each chunk
	for k, n := range counts {
		offsets[k] = min(k*degenerateChunk, tris) - dropped
		dropped += n
	}
	if dropped == 0 {
		return 0
	}
	out := make([]uint32, 3*(tris-dropped))
	par.Ranges(tris, degenerateChunk, func(k, lo, hi int) {
		o := 3 * offsets[k]
		for t := lo; t < hi; t++ {
			if !degenerate(t) {
				copy(out[o:o+3], s.Indices[3*t:3*t+3])
				o += 3
			}
		}
	})
	s.Indices = out
	return dropped
}

// degenerateChunk is the triangle count of one parallel chunk of
// dropDegenerate.
const degenerateChunk = 1 << 15

// splitCorners gives every corner (entry of Indices) its own value of a new
// per-vertex attribute, duplicating a vertex only where the corners that
// share it disagree bit-wise. It rewrites the streams (first-reference
// order, unreferenced vertices dropped) and Indices, moves the value of each
// new vertex to corner[newVertex] (read it back with vec3s or vec4s) and
// returns new vertex → old vertex.
func splitCorners(s *Submesh, corner []Vec4) []uint32 {
	type key struct {
		v    uint32
		bits [4]uint32
	}
	bitsOf := func(x Vec4) [4]uint32 {
		return [4]uint32{math.Float32bits(x[0]), math.Float32bits(x[1]), math.Float32bits(x[2]), math.Float32bits(x[3])}
	}
	// Most vertices keep one value: compare with the vertex's first copy
	// and fall back to the map only for the second and later variants.
	firstCopy := make([]uint32, len(s.Positions))
	for i := range firstCopy {
		firstCopy[i] = math.MaxUint32
	}
	extra := make(map[key]uint32)
	src := make([]uint32, 0, len(s.Positions))
	first := make([]int, 0, len(s.Positions)) // corner that introduced each new vertex
	idx := make([]uint32, len(s.Indices))
	for c, v := range s.Indices {
		b := bitsOf(corner[c])
		nv := firstCopy[v]
		switch {
		case nv == math.MaxUint32:
			nv = uint32(len(src))
			firstCopy[v] = nv
			src, first = append(src, v), append(first, c)
		case bitsOf(corner[first[nv]]) == b:
		default:
			k := key{v, b}
			var ok bool
			if nv, ok = extra[k]; !ok {
				nv = uint32(len(src))
				extra[k] = nv
				src, first = append(src, v), append(first, c)
			}
		}
		idx[c] = nv
	}
	s.gather(src)
	s.Indices = idx
	// Compact the corner values to one per new vertex, in place: first[i] >= i.
	for i, c := range first {
		corner[i] = corner[c]
	}
	return src
}

// vec4s returns the per-vertex values splitCorners left at the front of
// corner; vec3s drops w.
func vec4s(corner []Vec4, s *Submesh) []Vec4 {
	return append(make([]Vec4, 0, len(s.Positions)), corner[:len(s.Positions)]...)
}

func vec3s(corner []Vec4, s *Submesh) []Vec3 {
	out := make([]Vec3, len(s.Positions))
	for i := range out {
		c := corner[i]
		out[i] = Vec3{c[0], c[1], c[2]}
	}
	return out
}

// unitVec3 returns v scaled to unit length (left bit-identical when already
// within unitTolerance of it) and whether v had a usable direction.
func unitVec3(v Vec3) (Vec3, bool) {
	x, y, z := float64(v[0]), float64(v[1]), float64(v[2])
	l2 := x*x + y*y + z*z
	if math.Abs(l2-1) <= unitTolerance {
		return v, true
	}
	if !(l2 > 0) || math.IsInf(l2, 0) || !v.IsFinite() {
		// Infinite components overflow l2 but still give no usable
		// direction we would trust; treat them as missing.
		return Vec3{}, false
	}
	return unit64(x, y, z), true
}

// unit64 normalises a non-zero finite float64 vector to float32, with
// negative zeros made positive so equal directions have equal bits.
func unit64(x, y, z float64) Vec3 {
	l := math.Sqrt(x*x + y*y + z*z)
	return Vec3{float32(x/l) + 0, float32(y/l) + 0, float32(z/l) + 0}
}

// perpendicular returns a unit vector perpendicular to n (unit or not):
// the world axis least aligned with n, Gram-Schmidt orthogonalised. For a
// zero n it returns +X.
func perpendicular(n Vec3) Vec3 {
	x, y, z := float64(n[0]), float64(n[1]), float64(n[2])
	l2 := x*x + y*y + z*z
	if !(l2 > 0) || math.IsInf(l2, 0) {
		return Vec3{1, 0, 0}
	}
	l := math.Sqrt(l2)
	x, y, z = x/l, y/l, z/l
	var a [3]float64
	ax, ay, az := math.Abs(x), math.Abs(y), math.Abs(z)
	switch {
	case ax <= ay && ax <= az:
		a[0] = 1
	case ay <= az:
		a[1] = 1
	default:
		a[2] = 1
	}
	d := a[0]*x + a[1]*y + a[2]*z
	return unit64(a[0]-d*x, a[1]-d*y, a[2]-d*z)
}
