package hmesh

import (
	"encoding/binary"
	"io"
	"math"

	"github.com/meshcook/meshcook/internal/par"
)

// SyncDesc sets f.Desc's counts, vertex stride and index width from f's
// slices, leaving Flags and the meshlet limits as they are.
func (f *File) SyncDesc() {
	f.Desc = descFor(f)
}

func descFor(f *File) Desc {
	d := f.Desc
	d.VertexCount = uint32(len(f.Vertices))
	d.IndexCount = uint32(len(f.Indices))
	d.MeshletCount = uint32(len(f.Meshlets))
	d.SubmeshCount = uint32(len(f.Submeshes))
	d.MaterialCount = uint32(len(f.Materials))
	d.VertexStride = VertexSize
	d.IndexWidth = indexWidthFor(uint64(len(f.Vertices)))
	return d
}

func indexWidthFor(vertexCount uint64) uint8 {
	if vertexCount <= 0xFFFF {
		return 2
	}
	return 4
}

// hasLods reports whether the LODI/LODT chunks are written.
func (f *File) hasLods() bool {
	return f.LodCount > 0 || len(f.Lods) > 0 || len(f.LodIndices) > 0
}

// Encode validates f (with Desc counts filled from the slices, see SyncDesc)
// and returns the exact bytes of the file: chunks in the order DESC, BNDS,
// VTXS, IDXS, MLET, MLVR, MLTR, MLBN, MTRL, SUBM, then SKIN, SKEL, LODI, LODT,
// MRPH, then CLHD, CLSM, CLUS, CLVR, CLTR, CLBN, CLGR, CLGM, CLND when
// present; payloads 16-byte aligned with zero padding. f is not
// modified. Unknown chunks are not written. A file with no triangles is
// refused: an empty mesh is never written.
func Encode(f *File) ([]byte, error) {
	return encode(f, true)
}

// EncodeUnchecked is Encode without its Validate, for a caller that reads
// the bytes back through Decode (which runs the same checks on what it
// decodes) before it uses them, as the cook does: the checks then run
// once, not twice. It still refuses nil and an empty mesh. The bytes of a
// File Validate would refuse are unspecified (Decode refuses them, or
// EncodeUnchecked returns an error); f is not modified.
func EncodeUnchecked(f *File) ([]byte, error) {
	return encode(f, false)
}

func encode(f *File, check bool) ([]byte, error) {
	if f == nil {
		return nil, &FormatError{Offset: -1, Msg: "nil file"}
	}
	g := *f
	g.Desc = descFor(f)
	if check {
		if err := Validate(&g); err != nil {
			return nil, err
		}
	}
	if len(f.Indices) == 0 {
		return nil, &FormatError{Offset: -1, Msg: "no triangles: an empty mesh is not written"}
	}
	d := g.Desc

	type chunk struct {
		id   FourCC
		size uint64
		put  func([]byte) []byte
	}
	chunks := []chunk{
		{ChunkDESC, DescSize, func(b []byte) []byte { return appendDesc(b, d) }},
		{ChunkBNDS, BoundsSize, func(b []byte) []byte { return appendBounds(b, g.Bounds) }},
		{ChunkVTXS, VertexSize * uint64(len(g.Vertices)), func(b []byte) []byte {
			return putEach(b, len(g.Vertices), VertexSize, func(dst []byte, i int) {
				v := &g.Vertices[i]
				putF32s(dst, v.Position[:]...)
				binary.LittleEndian.PutUint16(dst[12:], uint16(v.Normal[0]))
				binary.LittleEndian.PutUint16(dst[14:], uint16(v.Normal[1]))
				binary.LittleEndian.PutUint16(dst[16:], uint16(v.Tangent[0]))
				binary.LittleEndian.PutUint16(dst[18:], uint16(v.Tangent[1]))
				putF32s(dst[20:], v.UV[:]...)
			})
		}},
		{ChunkIDXS, uint64(d.IndexWidth) * uint64(len(g.Indices)), func(b []byte) []byte {
			if d.IndexWidth == 2 {
				return putEach(b, len(g.Indices), 2, func(dst []byte, i int) { binary.LittleEndian.PutUint16(dst, uint16(g.Indices[i])) })
			}
			return putU32s(b, g.Indices)
		}},
		{ChunkMLET, MeshletSize * uint64(len(g.Meshlets)), func(b []byte) []byte {
			for _, m := range g.Meshlets {
				b = appendU32s(b, m.VertexOffset, m.VertexCount, m.TriangleOffset, m.TriangleCount)
			}
			return b
		}},
		{ChunkMLVR, 4 * uint64(len(g.MeshletVertices)), func(b []byte) []byte { return putU32s(b, g.MeshletVertices) }},
		{ChunkMLTR, uint64(len(g.MeshletTriangles)), func(b []byte) []byte { return append(b, g.MeshletTriangles...) }},
		{ChunkMLBN, MeshletBoundsSize * uint64(len(g.MeshletBounds)), func(b []byte) []byte {
			return putEach(b, len(g.MeshletBounds), MeshletBoundsSize, func(dst []byte, i int) {
				m := &g.MeshletBounds[i]
				putF32s(dst, m.Center[:]...)
				putF32s(dst[12:], m.Radius)
				putF32s(dst[16:], m.ConeAxis[:]...)
				putF32s(dst[28:], m.ConeCutoff)
			})
		}},
		{ChunkMTRL, 8 * uint64(len(g.Materials)), func(b []byte) []byte {
			for _, m := range g.Materials {
				b = binary.LittleEndian.AppendUint64(b, m)
			}
			return b
		}},
		{ChunkSUBM, SubMeshSize * uint64(len(g.Submeshes)), func(b []byte) []byte {
			for _, s := range g.Submeshes {
				b = appendU32s(b, s.FirstIndex, s.IndexCount, s.FirstMeshlet, s.MeshletCount, s.MaterialSlot, s.BaseVertex)
				b = appendBounds(b, s.Bounds)
			}
			return b
		}},
	}
	if g.Skin != nil {
		chunks = append(chunks, chunk{ChunkSKIN, SkinVertexSize * uint64(len(g.Skin)), func(b []byte) []byte {
			for _, s := range g.Skin {
				for _, j := range s.Joints {
					b = binary.LittleEndian.AppendUint16(b, j)
				}
				b = appendF32s(b, s.Weights[:]...)
			}
			return b
		}})
	}
	if g.Joints != nil {
		chunks = append(chunks, chunk{ChunkSKEL, JointSize * uint64(len(g.Joints)), func(b []byte) []byte {
			for _, j := range g.Joints {
				b = appendF32s(b, j.InverseBind[:]...)
				b = appendF32s(b, j.BindT[:]...)
				b = appendF32s(b, j.BindR[:]...)
				b = appendF32s(b, j.BindS[:]...)
				b = binary.LittleEndian.AppendUint32(b, uint32(j.Parent))
				b = binary.LittleEndian.AppendUint32(b, 0) // pad
			}
			return b
		}})
	}
	if g.hasLods() {
		chunks = append(chunks,
			chunk{ChunkLODI, 4 * uint64(len(g.LodIndices)), func(b []byte) []byte { return putU32s(b, g.LodIndices) }},
			chunk{ChunkLODT, LodHeaderSize + MeshLodSize*uint64(len(g.Lods)), func(b []byte) []byte {
				b = appendU32s(b, g.LodCount, d.SubmeshCount)
				for _, l := range g.Lods {
					b = appendU32s(b, l.FirstIndex, l.IndexCount)
				}
				return b
			}})
	}
	if g.Morphs != nil {
		chunks = append(chunks, chunk{ChunkMRPH, g.Morphs.size(), func(b []byte) []byte { return appendMorphs(b, g.Morphs) }})
	}
	if c := g.ClusterLOD; c != nil {
		sizes := c.sizes()
		for k, id := range clusterChunks() {
			chunks = append(chunks, chunk{id, sizes[k], func(b []byte) []byte { return c.append(b, k) }})
		}
	}

	// Lay out: header, table, then each payload on the next 16-byte boundary.
	n := uint64(len(chunks))
	offsets := make([]uint64, n)
	pos := alignUp(HeaderSize + ChunkEntrySize*n)
	for i, c := range chunks {
		offsets[i] = pos
		pos = alignUp(pos + c.size)
	}
	end := offsets[n-1] + chunks[n-1].size
	b := make([]byte, end) // zero: the padding
	h := appendU32s(b[:0], Magic, Version, uint32(n), 0)
	h = binary.LittleEndian.AppendUint64(h, 0)
	h = binary.LittleEndian.AppendUint64(h, 0)
	for i, c := range chunks {
		h = appendU32s(h, uint32(c.id), 0)
		h = binary.LittleEndian.AppendUint64(h, offsets[i])
		h = binary.LittleEndian.AppendUint64(h, c.size)
	}
	for i, c := range chunks {
		// Each payload is written in place: put appends to an empty slice
		// whose capacity is exactly the payload, so a payload of the wrong
		// size cannot overwrite its neighbour and is caught here.
		dst := b[offsets[i] : offsets[i] : offsets[i]+c.size]
		if got := c.put(dst); uint64(len(got)) != c.size || (c.size > 0 && &got[0] != &b[offsets[i]]) {
			// Unreachable: sizes above are computed from the same slices.
			return nil, &FormatError{Offset: int64(offsets[i]), Chunk: c.id.String(), Msg: "internal error: payload size mismatch"}
		}
	}
	return b, nil
}

// encodeChunk is the element count of one parallel chunk of putEach.
const encodeChunk = 1 << 15

// putEach writes n records of size bytes each into b's spare capacity (b
// is empty), record i by put(dst, i) into its own size bytes, in parallel
// chunks (each record's bytes depend only on it), and returns the written
// slice.
func putEach(b []byte, n int, size uint64, put func(dst []byte, i int)) []byte {
	b = b[:uint64(n)*size]
	par.Ranges(n, encodeChunk, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			o := uint64(i) * size
			put(b[o:o+size:o+size], i)
		}
	})
	return b
}

// putU32s writes vs little-endian into b's spare capacity (b is empty).
func putU32s(b []byte, vs []uint32) []byte {
	return putEach(b, len(vs), 4, func(dst []byte, i int) { binary.LittleEndian.PutUint32(dst, vs[i]) })
}

func putF32s(dst []byte, vs ...float32) {
	for k, v := range vs {
		binary.LittleEndian.PutUint32(dst[4*k:], math.Float32bits(v))
	}
}

// Write encodes f (see Encode) and writes it to w in one call. It never
// closes w.
func Write(w io.Writer, f *File) error {
	b, err := Encode(f)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func alignUp(v uint64) uint64 {
	return (v + payloadAlign - 1) &^ (payloadAlign - 1)
}

func appendU32s(b []byte, vs ...uint32) []byte {
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

func appendF32s(b []byte, vs ...float32) []byte {
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

func appendDesc(b []byte, d Desc) []byte {
	b = appendU32s(b, d.VertexCount, d.IndexCount, d.MeshletCount, d.SubmeshCount, d.MaterialCount)
	b = binary.LittleEndian.AppendUint16(b, d.VertexStride)
	b = append(b, d.IndexWidth, d.Flags)
	return appendU32s(b, d.MeshletMaxVerts, d.MeshletMaxTris)
}

func appendBounds(b []byte, x Bounds) []byte {
	b = appendF32s(b, x.Min[:]...)
	b = appendF32s(b, x.Max[:]...)
	b = appendF32s(b, x.Center[:]...)
	return appendF32s(b, x.Radius)
}
