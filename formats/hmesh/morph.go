package hmesh

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unicode/utf8"
)

// The MRPH chunk (optional, meshcook's addition; docs/formats/hmesh.md
// "Morph targets") holds every submesh's morph targets as sparse
// per-vertex deltas, laid out like the mesh payload's MRPS block:
//
//	MorphHeader        16 B  targetCount u32, entryCount u32, nameBytes u32, reserved u32 (0)
//	MorphRange[SUBM]    8 B  firstTarget u32, targetCount u32 (per submesh, in SUBM order)
//	MorphTarget[tc]    12 B  nameOffset u32, nameLength u32 (into the names), weight f32 (rest weight)
//	names                    nameBytes bytes of UTF-8, then zero bytes to a multiple of 4
//	offsets                  u32[vertexCount + 1]: vertex v owns entries [off[v], off[v+1])
//	MorphEntry[ec]     28 B  target u32, position delta f32×3, normal delta f32×3
//
// Submesh ranges tile the targets in order (firstTarget of submesh s is
// the sum of the counts before it). A vertex's entries name targets in
// ascending order, each once; every entry has a component whose magnitude
// exceeds MorphDeltaEpsilon. A renderer poses vertex v as
// position + Σ weight[t]·delta[t], with weight[t] the target's rest weight
// unless a .hanim path-3 channel drives the submesh's range.

// ChunkMRPH is the morph target chunk.
const ChunkMRPH FourCC = 'M' | 'R'<<8 | 'P'<<16 | 'H'<<24

// Morph record sizes in bytes.
const (
	MorphHeaderSize = 16
	MorphRangeSize  = 8
	MorphTargetSize = 12
	MorphEntrySize  = 28
)

// MorphDeltaEpsilon is the payload's MORPH_DELTA_EPSILON: a dense delta is
// kept only when some component's magnitude exceeds it.
const MorphDeltaEpsilon = 1e-6

// Morphs is the MRPH chunk.
type Morphs struct {
	Ranges  []MorphRange  // one per submesh
	Targets []MorphTarget // all submeshes' targets, submesh after submesh
	Offsets []uint32      // vertexCount + 1 entries (CSR)
	Entries []MorphEntry
}

// MorphRange is a submesh's targets: [First, First+Count) of Targets.
type MorphRange struct{ First, Count uint32 }

// MorphTarget is one target's name and rest weight.
type MorphTarget struct {
	Name   string
	Weight float32
}

// MorphEntry is one sparse delta of one vertex.
type MorphEntry struct {
	Target   uint32
	Position [3]float32
	Normal   [3]float32
}

// namesSize is the names block's size on disk, padded to 4 bytes.
func (m *Morphs) namesSize() (raw, padded uint64) {
	for _, t := range m.Targets {
		raw += uint64(len(t.Name))
	}
	return raw, (raw + 3) &^ 3
}

// size is the MRPH payload size.
func (m *Morphs) size() uint64 {
	_, names := m.namesSize()
	return MorphHeaderSize + MorphRangeSize*uint64(len(m.Ranges)) + MorphTargetSize*uint64(len(m.Targets)) +
		names + 4*uint64(len(m.Offsets)) + MorphEntrySize*uint64(len(m.Entries))
}

// appendMorphs writes the MRPH payload.
func appendMorphs(b []byte, m *Morphs) []byte {
	raw, padded := m.namesSize()
	b = appendU32s(b, uint32(len(m.Targets)), uint32(len(m.Entries)), uint32(raw), 0)
	for _, r := range m.Ranges {
		b = appendU32s(b, r.First, r.Count)
	}
	off := uint32(0)
	for _, t := range m.Targets {
		b = appendU32s(b, off, uint32(len(t.Name)))
		b = appendF32s(b, t.Weight)
		off += uint32(len(t.Name))
	}
	for _, t := range m.Targets {
		b = append(b, t.Name...)
	}
	b = append(b, make([]byte, padded-raw)...)
	b = appendU32s(b, m.Offsets...)
	for _, e := range m.Entries {
		b = appendU32s(b, e.Target)
		b = appendF32s(b, e.Position[:]...)
		b = appendF32s(b, e.Normal[:]...)
	}
	return b
}

// decodeMorphs parses the MRPH payload p (at file offset at) for a file of
// vertexCount vertices and submeshCount submeshes, bounding every count by
// the bytes that remain before allocating.
func decodeMorphs(p []byte, at int64, vertexCount, submeshCount uint32) (*Morphs, error) {
	le := binary.LittleEndian
	eof := func(rel int, what string) error {
		return errAt(at+int64(rel), ChunkMRPH, io.ErrUnexpectedEOF, "truncated %s (payload is %d bytes)", what, len(p))
	}
	if len(p) < MorphHeaderSize {
		return nil, eof(0, "MorphHeader")
	}
	tc, ec, nb := uint64(le.Uint32(p)), uint64(le.Uint32(p[4:])), uint64(le.Uint32(p[8:]))
	if r := le.Uint32(p[12:]); r != 0 {
		return nil, errAt(at+12, ChunkMRPH, nil, "reserved word is %#x, want 0", r)
	}
	padded := (nb + 3) &^ 3
	want := MorphHeaderSize + MorphRangeSize*uint64(submeshCount) + MorphTargetSize*tc + padded +
		4*(uint64(vertexCount)+1) + MorphEntrySize*ec
	if uint64(len(p)) != want {
		return nil, errAt(at, ChunkMRPH, nil, "payload is %d bytes, want %d (16 + 8 × %d submeshes + 12 × %d targets + %d name bytes + 4 × (%d vertices + 1) + 28 × %d entries)",
			len(p), want, submeshCount, tc, padded, vertexCount, ec)
	}
	m := &Morphs{}
	o := MorphHeaderSize
	m.Ranges = make([]MorphRange, submeshCount)
	for i := range m.Ranges {
		m.Ranges[i] = MorphRange{le.Uint32(p[o:]), le.Uint32(p[o+4:])}
		o += MorphRangeSize
	}
	m.Targets = make([]MorphTarget, tc)
	namesAt := o + MorphTargetSize*int(tc)
	for i := range m.Targets {
		no, nl := uint64(le.Uint32(p[o:])), uint64(le.Uint32(p[o+4:]))
		if no > nb || nl > nb-no {
			return nil, errAt(at+int64(o), ChunkMRPH, nil, "target %d: name [%d, +%d) past the %d name bytes", i, no, nl, nb)
		}
		m.Targets[i] = MorphTarget{Name: string(p[namesAt+int(no) : namesAt+int(no+nl)]), Weight: math.Float32frombits(le.Uint32(p[o+8:]))}
		o += MorphTargetSize
	}
	for i := nb; i < padded; i++ {
		if p[namesAt+int(i)] != 0 {
			return nil, errAt(at+int64(namesAt)+int64(i), ChunkMRPH, nil, "name padding byte is not 0")
		}
	}
	o = namesAt + int(padded)
	m.Offsets = decodeU32s(p[o : o+4*(int(vertexCount)+1)])
	o += 4 * (int(vertexCount) + 1)
	m.Entries = decodeArray(p[o:], MorphEntrySize, func(e []byte) MorphEntry {
		return MorphEntry{Target: le.Uint32(e), Position: readF32x3(e[4:]), Normal: readF32x3(e[16:])}
	})
	return m, nil
}

// morphs validates MRPH against the rest of the file.
func (v *validator) morphs() error {
	m := v.f.Morphs
	if m == nil {
		return nil
	}
	id := ChunkMRPH
	sc, vc := len(v.f.Submeshes), len(v.f.Vertices)
	if len(m.Ranges) != sc {
		return v.errf(id, 0, "%d submesh ranges, want one per submesh (%d)", len(m.Ranges), sc)
	}
	if uint64(len(m.Targets)) > math.MaxUint32 || uint64(len(m.Entries)) > math.MaxUint32 {
		return v.errf(id, 0, "%d targets, %d entries exceed the u32 counts", len(m.Targets), len(m.Entries))
	}
	next := uint64(0)
	for s, r := range m.Ranges {
		if uint64(r.First) != next {
			return v.errf(id, MorphHeaderSize+MorphRangeSize*int64(s), "submesh %d: first target %d, want %d (ranges tile the targets in order)", s, r.First, next)
		}
		next += uint64(r.Count)
	}
	if next != uint64(len(m.Targets)) {
		return v.errf(id, 0, "submesh ranges cover %d targets, the chunk has %d", next, len(m.Targets))
	}
	tAt := int64(MorphHeaderSize + MorphRangeSize*sc)
	raw, padded := m.namesSize()
	if raw > math.MaxUint32 {
		return v.errf(id, 8, "%d name bytes exceed the u32 count", raw)
	}
	for i, t := range m.Targets {
		if !utf8.ValidString(t.Name) {
			return v.errf(id, tAt+MorphTargetSize*int64(i), "target %d: name is not valid UTF-8", i)
		}
		if !finite(t.Weight) {
			return v.errf(id, tAt+MorphTargetSize*int64(i)+8, "target %d %q: rest weight %v is not finite", i, t.Name, t.Weight)
		}
	}
	oAt := tAt + MorphTargetSize*int64(len(m.Targets)) + int64(padded)
	if len(m.Offsets) != vc+1 {
		return v.errf(id, oAt, "%d offsets, want vertexCount + 1 = %d", len(m.Offsets), vc+1)
	}
	if m.Offsets[0] != 0 || uint64(m.Offsets[vc]) != uint64(len(m.Entries)) {
		return v.errf(id, oAt, "offsets run %d..%d, want 0..%d (entryCount)", m.Offsets[0], m.Offsets[vc], len(m.Entries))
	}
	eAt := oAt + 4*int64(vc+1)
	for vert := range vc {
		lo, hi := m.Offsets[vert], m.Offsets[vert+1]
		if hi < lo || uint64(hi) > uint64(len(m.Entries)) {
			return v.errf(id, oAt+4*int64(vert+1), "offset %d of vertex %d after %d: offsets must not decrease or pass entryCount %d", hi, vert+1, lo, len(m.Entries))
		}
		for k := lo; k < hi; k++ {
			e := m.Entries[k]
			rel := eAt + MorphEntrySize*int64(k)
			switch {
			case uint64(e.Target) >= uint64(len(m.Targets)):
				return v.errf(id, rel, "vertex %d entry %d: target %d, the chunk has %d", vert, k, e.Target, len(m.Targets))
			case k > lo && e.Target <= m.Entries[k-1].Target:
				return v.errf(id, rel, "vertex %d entry %d: target %d after %d (targets ascend, each once)", vert, k, e.Target, m.Entries[k-1].Target)
			case !finite(e.Position[:]...) || !finite(e.Normal[:]...):
				return v.errf(id, rel+4, "vertex %d entry %d: delta is not finite", vert, k)
			case !aboveEpsilon(e):
				return v.errf(id, rel+4, "vertex %d entry %d: every component at or below MorphDeltaEpsilon", vert, k)
			}
		}
	}
	return nil
}

// aboveEpsilon reports whether some component of e exceeds
// MorphDeltaEpsilon in magnitude.
func aboveEpsilon(e MorphEntry) bool {
	for _, x := range append(e.Position[:], e.Normal[:]...) {
		if math.Abs(float64(x)) > MorphDeltaEpsilon {
			return true
		}
	}
	return false
}

// SparseDelta is one vertex's dense delta of one target, as the cook has it.
type SparseDelta struct {
	Position, Normal [3]float32
}

// BuildMorphs makes the MRPH chunk from dense per-submesh targets: targets
// [s] are submesh s's, each with one delta per vertex of the submesh, and
// bases[s] is the submesh's first vertex in VTXS (submeshes' vertices are
// consecutive, as the cook writes them); vertexCount is VTXS's length.
// Deltas at or below MorphDeltaEpsilon are left out. It returns nil when no
// submesh has a target.
func BuildMorphs(names [][]string, weights [][]float32, deltas [][][]SparseDelta, bases []uint32, vertexCount int) (*Morphs, error) {
	has := false
	for _, n := range names {
		has = has || len(n) > 0
	}
	if !has {
		return nil, nil
	}
	m := &Morphs{Ranges: make([]MorphRange, len(names)), Offsets: make([]uint32, vertexCount+1)}
	counts := make([]uint32, vertexCount)
	type pending struct {
		vertex int
		e      MorphEntry
	}
	var all []pending
	for s := range names {
		m.Ranges[s] = MorphRange{First: uint32(len(m.Targets)), Count: uint32(len(names[s]))}
		if len(weights[s]) != len(names[s]) || len(deltas[s]) != len(names[s]) {
			return nil, fmt.Errorf("hmesh: submesh %d: %d names, %d weights, %d delta sets", s, len(names[s]), len(weights[s]), len(deltas[s]))
		}
		first := uint32(len(m.Targets))
		for k, name := range names[s] {
			m.Targets = append(m.Targets, MorphTarget{Name: name, Weight: weights[s][k]})
		}
		nv := -1
		for k, d := range deltas[s] {
			if nv >= 0 && len(d) != nv {
				return nil, fmt.Errorf("hmesh: submesh %d target %d: %d deltas, target 0 has %d", s, k, len(d), nv)
			}
			nv = len(d)
		}
		for v := 0; v < nv; v++ {
			gv := int(bases[s]) + v
			if gv >= vertexCount {
				return nil, fmt.Errorf("hmesh: submesh %d: vertex %d past the %d vertices", s, gv, vertexCount)
			}
			for k := range deltas[s] {
				e := MorphEntry{Target: first + uint32(k), Position: deltas[s][k][v].Position, Normal: deltas[s][k][v].Normal}
				if aboveEpsilon(e) {
					all = append(all, pending{gv, e})
					counts[gv]++
				}
			}
		}
	}
	for v := range counts {
		m.Offsets[v+1] = m.Offsets[v] + counts[v]
	}
	m.Entries = make([]MorphEntry, len(all))
	fill := append([]uint32(nil), m.Offsets[:vertexCount]...)
	for _, p := range all {
		m.Entries[fill[p.vertex]] = p.e
		fill[p.vertex]++
	}
	return m, nil
}
