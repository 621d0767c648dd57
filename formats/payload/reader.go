package payload

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// reader is a bounded little-endian cursor; offsets in its errors count
// from the payload's first byte.
type reader struct {
	b   []byte
	off int
}

func (r *reader) left() int { return len(r.b) - r.off }

func (r *reader) errAt(off int, cause error, format string, args ...any) *FormatError {
	return &FormatError{Offset: int64(off), Msg: fmt.Sprintf(format, args...), Err: cause}
}

func (r *reader) take(n int, what string) ([]byte, error) {
	if n < 0 || n > r.left() {
		return nil, r.errAt(r.off, io.ErrUnexpectedEOF, "truncated %s: need %d bytes, %d left", what, n, r.left())
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s, nil
}

func (r *reader) u32(what string) (uint32, error) {
	s, err := r.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(s), nil
}

// count reads a u32 count of items of size bytes each and refuses one the
// remaining bytes cannot hold, before anything is allocated.
func (r *reader) count(size int, what string) (int, error) {
	at := r.off
	n, err := r.u32(what + " count")
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(size) > uint64(r.left()) {
		return 0, r.errAt(at, io.ErrUnexpectedEOF, "%s count %d needs %d bytes, %d left", what, n, uint64(n)*uint64(size), r.left())
	}
	return int(n), nil
}

// peekMagic reports whether the next four bytes are magic, without moving.
func (r *reader) peekMagic(magic string) bool {
	return r.left() >= 4 && string(r.b[r.off:r.off+4]) == magic
}

func getF32s(s []byte, dst []float32) []byte {
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(s))
		s = s[4:]
	}
	return s
}

func getVertex(s []byte, v *Vertex) []byte {
	s = getF32s(s, v.Position[:])
	s = getF32s(s, v.Normal[:])
	s = getF32s(s, v.Tangent[:])
	s = getF32s(s, v.Color[:])
	return getF32s(s, v.UV[:])
}

// vertices reads u32 vertex_count and the static vertices, checking the
// count fits u16 indexing and every component is finite.
func (r *reader) vertices() ([]Vertex, error) {
	at := r.off
	n, err := r.count(VertexSize, "vertex")
	if err != nil {
		return nil, err
	}
	if n > MaxChunkVertices {
		return nil, r.errAt(at, nil, "%d vertices: u16 indices address at most %d", n, MaxChunkVertices)
	}
	if n == 0 {
		return nil, nil
	}
	vs := make([]Vertex, n)
	for i := range vs {
		s, _ := r.take(VertexSize, "vertex")
		getVertex(s, &vs[i])
		if !finiteVertex(&vs[i]) {
			return nil, r.errAt(r.off-VertexSize, nil, "vertex %d not finite", i)
		}
	}
	return vs, nil
}

// indices reads u32 count and a u16 triangle list whose indices must be
// below vc.
func (r *reader) indices(vc int, what string) ([]uint16, error) {
	at := r.off
	n, err := r.count(2, what)
	if err != nil {
		return nil, err
	}
	if n%3 != 0 {
		return nil, r.errAt(at, nil, "%s count %d is not a multiple of 3", what, n)
	}
	if n == 0 {
		return nil, nil
	}
	idx := make([]uint16, n)
	for i := range idx {
		idx[i] = binary.LittleEndian.Uint16(r.b[r.off:])
		if int(idx[i]) >= vc {
			return nil, r.errAt(r.off, nil, "%s: index %d not below vertex count %d", what, idx[i], vc)
		}
		r.off += 2
	}
	return idx, nil
}

// lods reads the LODS block when it is next, else returns nil.
func (r *reader) lods(vc int) ([]LOD, error) {
	if !r.peekMagic(MagicLODs) {
		return nil, nil
	}
	r.off += 4
	at := r.off
	n, err := r.count(8, "LOD")
	if err != nil {
		return nil, err
	}
	if n == 0 {
		// Writers omit the block when there are no alternates; refusing it
		// keeps decoding exact.
		return nil, r.errAt(at, nil, "LODS block with no alternates")
	}
	lods := make([]LOD, n)
	last := float32(math.Inf(-1))
	for i := range lods {
		at = r.off
		s, err := r.take(4, "LOD switch distance")
		if err != nil {
			return nil, err
		}
		d := math.Float32frombits(binary.LittleEndian.Uint32(s))
		if !finite32(d) || d < last {
			return nil, r.errAt(at, nil, "LOD %d: switch distance %g not finite or below the previous level's %g", i+1, d, last)
		}
		last = d
		idx, err := r.indices(vc, fmt.Sprintf("LOD %d index", i+1))
		if err != nil {
			return nil, err
		}
		lods[i] = LOD{SwitchDistance: d, Indices: idx}
	}
	return lods, nil
}

// heightfield reads the HFLD block when it is next, else returns nil.
func (r *reader) heightfield() (*Heightfield, error) {
	if !r.peekMagic(MagicHeightfield) {
		return nil, nil
	}
	r.off += 4
	at := r.off
	rows, err := r.u32("heightfield rows")
	if err != nil {
		return nil, err
	}
	cols, err := r.u32("heightfield cols")
	if err != nil {
		return nil, err
	}
	if n := uint64(rows) * uint64(cols); n*4 > uint64(r.left()) {
		return nil, r.errAt(at, io.ErrUnexpectedEOF, "heightfield %d×%d needs %d bytes, %d left", rows, cols, n*4, r.left())
	}
	h := &Heightfield{Rows: rows, Cols: cols}
	if rows > 0 && cols > 0 {
		h.Heights = make([]float32, int(rows)*int(cols))
	}
	getF32s(r.b[r.off:], h.Heights)
	for i, v := range h.Heights {
		if !finite32(v) {
			return nil, r.errAt(r.off+4*i, nil, "heightfield: height %d not finite", i)
		}
	}
	r.off += 4 * len(h.Heights)
	return h, nil
}

func (r *reader) done() error {
	if r.left() != 0 {
		return r.errAt(r.off, nil, "%d trailing bytes", r.left())
	}
	return nil
}

// static reads vertices and LOD0 indices.
func (r *reader) static() (*Static, error) {
	if r.peekMagic(MagicSkinned) {
		return nil, r.errAt(0, nil, "skinned payload (SKMV); use DecodeSkinned")
	}
	vs, err := r.vertices()
	if err != nil {
		return nil, err
	}
	idx, err := r.indices(len(vs), "LOD0 index")
	if err != nil {
		return nil, err
	}
	return &Static{Vertices: vs, Indices: idx}, nil
}

// Decode reads a static payload's vertices and LOD0 indices and ignores
// everything after them (seed: deserialise), so it reads every static
// payload, with or without trailers. LODs and Heightfield are left nil.
func Decode(b []byte) (*Static, error) {
	r := reader{b: b}
	return r.static()
}

// DecodeWithLODs reads vertices, LOD0 indices and the LODS block when
// present (seed: deserialise_with_lods); anything after that (the HFLD
// trailer) is ignored. A payload without LODS yields nil LODs.
func DecodeWithLODs(b []byte) (*Static, error) {
	r := reader{b: b}
	m, err := r.static()
	if err != nil {
		return nil, err
	}
	if m.LODs, err = r.lods(len(m.Vertices)); err != nil {
		return nil, err
	}
	return m, nil
}

// DecodeHeightfield walks past the vertices, LOD0 indices and optional LODS
// block and reads the HFLD trailer (seed: deserialise_heightfield). It
// returns nil, nil when the payload carries no trailer. The trailer must
// end the payload.
func DecodeHeightfield(b []byte) (*Heightfield, error) {
	r := reader{b: b}
	m, err := r.static()
	if err != nil {
		return nil, err
	}
	if _, err := r.lods(len(m.Vertices)); err != nil {
		return nil, err
	}
	h, err := r.heightfield()
	if err != nil || h == nil {
		return nil, err
	}
	return h, r.done()
}

// Parse reads a whole static payload strictly: vertices, LOD0, the optional
// LODS and HFLD blocks in that order, and nothing after them. It is the
// reader for validation; Encode(Parse(b)) == b for every b it accepts.
func Parse(b []byte) (*Static, error) {
	r := reader{b: b}
	m, err := r.static()
	if err != nil {
		return nil, err
	}
	if m.LODs, err = r.lods(len(m.Vertices)); err != nil {
		return nil, err
	}
	if m.Heightfield, err = r.heightfield(); err != nil {
		return nil, err
	}
	return m, r.done()
}

// DecodeSkinned reads a whole skinned payload (seed: deserialise_skinned):
// the LODS block, if any, is parsed and discarded (LODs nil). Nothing may
// follow the last block.
func DecodeSkinned(b []byte) (*Skinned, error) {
	m, err := DecodeSkinnedWithLODs(b)
	if err != nil {
		return nil, err
	}
	m.LODs = nil
	return m, nil
}

// DecodeSkinnedWithLODs reads a whole skinned payload including its LOD
// alternates (seed: deserialise_skinned_with_lods). A payload without MRPS
// yields nil Morphs; without LODS, nil LODs. Nothing may follow the last
// block; EncodeSkinned of the result gives back b.
func DecodeSkinnedWithLODs(b []byte) (*Skinned, error) {
	r := reader{b: b}
	if !r.peekMagic(MagicSkinned) {
		return nil, r.errAt(0, nil, "bad magic %q, want %q", r.b[:min(4, len(r.b))], MagicSkinned)
	}
	r.off = 4
	at := r.off
	vc, err := r.count(SkinnedVertexSize, "skinned vertex")
	if err != nil {
		return nil, err
	}
	if vc > MaxChunkVertices {
		return nil, r.errAt(at, nil, "%d vertices: u16 indices address at most %d", vc, MaxChunkVertices)
	}
	// Empty arrays decode as nil, as the encoders' inputs usually are.
	m := &Skinned{}
	if vc > 0 {
		m.Vertices = make([]SkinnedVertex, vc)
	}
	for i := range m.Vertices {
		v := &m.Vertices[i]
		s, _ := r.take(SkinnedVertexSize, "skinned vertex")
		s = getVertex(s, &v.Vertex)
		for k := range v.Joints {
			v.Joints[k] = binary.LittleEndian.Uint16(s[2*k:])
		}
		getF32s(s[8:], v.Weights[:])
		if !finiteVertex(&v.Vertex) || !finite32(v.Weights[:]...) {
			return nil, r.errAt(r.off-SkinnedVertexSize, nil, "vertex %d not finite", i)
		}
	}
	if m.Indices, err = r.indices(vc, "LOD0 index"); err != nil {
		return nil, err
	}
	jointsAt := r.off
	// A joint takes at least 48 bytes (empty name).
	nj, err := r.count(48, "joint")
	if err != nil {
		return nil, err
	}
	if nj > 0 {
		m.Joints = make([]Joint, nj)
	}
	for i := range m.Joints {
		if m.Joints[i], err = r.joint(i); err != nil {
			return nil, err
		}
	}
	if nj > 0 {
		for i := range m.Vertices {
			for _, j := range m.Vertices[i].Joints {
				if int(j) >= nj {
					return nil, r.errAt(8+SkinnedVertexSize*i+VertexSize, nil, "vertex %d: joint %d past joint count %d (joint block at %#x)", i, j, nj, jointsAt)
				}
			}
		}
	}
	if r.peekMagic(MagicMorphs) {
		if m.Morphs, err = r.morphs(vc); err != nil {
			return nil, err
		}
	}
	if m.LODs, err = r.lods(vc); err != nil {
		return nil, err
	}
	return m, r.done()
}

func (r *reader) joint(i int) (Joint, error) {
	var j Joint
	at := r.off
	n, err := r.count(1, fmt.Sprintf("joint %d name", i))
	if err != nil {
		return j, err
	}
	s, _ := r.take(n, "joint name")
	j.Name = string(s)
	s, err = r.take(40, fmt.Sprintf("joint %d pose", i))
	if err != nil {
		return j, err
	}
	j.Parent = int32(binary.LittleEndian.Uint32(s))
	s = getF32s(s[4:], j.Translation[:])
	s = getF32s(s, j.RotationDeg[:])
	getF32s(s, j.Scale[:])
	if err := checkJoint(&j, i); err != nil {
		return j, r.errAt(at, nil, "%s", err.(*FormatError).Msg)
	}
	return j, nil
}

func (r *reader) morphs(vc int) (*Morphs, error) {
	blockAt := r.off
	r.off += 4
	tcAt := r.off
	tc, err := r.count(4, "morph target")
	if err != nil {
		return nil, err
	}
	if tc == 0 {
		// Writers omit the block when there are no targets; refusing it
		// keeps decoding exact (EncodeSkinned gives back the input).
		return nil, r.errAt(tcAt, nil, "MRPS block with no morph targets")
	}
	m := &Morphs{Targets: make([]string, tc)}
	for t := range m.Targets {
		n, err := r.count(1, fmt.Sprintf("morph target %d name", t))
		if err != nil {
			return nil, err
		}
		s, _ := r.take(n, "morph target name")
		m.Targets[t] = string(s)
	}
	ecAt := r.off
	ec, err := r.u32("morph entry count")
	if err != nil {
		return nil, err
	}
	if need := 4*(uint64(vc)+1) + MorphEntrySize*uint64(ec); need > uint64(r.left()) {
		return nil, r.errAt(ecAt, io.ErrUnexpectedEOF, "morph offsets and %d entries need %d bytes, %d left", ec, need, r.left())
	}
	m.Offsets = make([]uint32, vc+1)
	for v := range m.Offsets {
		m.Offsets[v] = binary.LittleEndian.Uint32(r.b[r.off:])
		r.off += 4
	}
	if ec > 0 {
		m.Entries = make([]MorphEntry, ec)
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		s := r.b[r.off : r.off+MorphEntrySize]
		e.Target = binary.LittleEndian.Uint32(s)
		s = getF32s(s[4:], e.Position[:])
		getF32s(s, e.Normal[:])
		r.off += MorphEntrySize
	}
	if err := checkMorphs(m, vc); err != nil {
		return nil, r.errAt(blockAt, nil, "%s (MRPS block)", err.(*FormatError).Msg)
	}
	return m, nil
}
