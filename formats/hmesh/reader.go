package hmesh

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/meshcook/meshcook/internal/par"
)

// chunkSpan is one chunk table entry.
type chunkSpan struct {
	id          FourCC
	flags       uint32
	offset      uint64
	size        uint64
	tableOffset int64 // where the entry itself sits
}

// decoder holds the input and the parsed chunk table.
type decoder struct {
	b      []byte
	chunks map[FourCC]chunkSpan
}

func errAt(off int64, chunk FourCC, cause error, format string, args ...any) *FormatError {
	e := &FormatError{Offset: off, Msg: fmt.Sprintf(format, args...), Err: cause}
	if chunk != 0 {
		e.Chunk = chunk.String()
	}
	return e
}

// Decode parses and validates a whole .hmesh file. Every count is checked
// against the bytes present before anything is allocated. Chunks may come in
// any order; unknown chunks are kept in File.Unknown. Payloads must start on
// 16-byte boundaries, after the chunk table, and must not overlap. The
// returned File passes Validate, so Encode accepts it.
func Decode(b []byte) (*File, error) {
	d := decoder{b: b, chunks: map[FourCC]chunkSpan{}}
	f := &File{}

	// Header.
	if len(b) < 4 {
		return nil, errAt(int64(len(b)), 0, io.ErrUnexpectedEOF, "truncated file header")
	}
	if m := binary.LittleEndian.Uint32(b); m != Magic {
		return nil, errAt(0, 0, nil, "bad magic %q, want \"HMSH\"", b[:4])
	}
	if len(b) < HeaderSize {
		return nil, errAt(int64(len(b)), 0, io.ErrUnexpectedEOF, "truncated file header")
	}
	if v := binary.LittleEndian.Uint32(b[4:]); v != Version {
		return nil, errAt(4, 0, nil, "unsupported version %d, want %d", v, Version)
	}
	// flags @12 and reserved @16/@24 are written 0 and ignored on read.
	n := uint64(binary.LittleEndian.Uint32(b[8:]))
	tableEnd := HeaderSize + ChunkEntrySize*n
	if tableEnd > uint64(len(b)) {
		return nil, errAt(int64(len(b)), 0, io.ErrUnexpectedEOF, "truncated chunk table: %d entries need %d bytes, file has %d", n, tableEnd, len(b))
	}
	firstPayload := alignUp(tableEnd)

	// Chunk table.
	var unknown []chunkSpan
	seen := make(map[FourCC]bool, n)
	spans := make([]chunkSpan, 0, n)
	for i := range n {
		at := HeaderSize + ChunkEntrySize*i
		e := b[at:]
		c := chunkSpan{
			id:          FourCC(binary.LittleEndian.Uint32(e)),
			flags:       binary.LittleEndian.Uint32(e[4:]),
			offset:      binary.LittleEndian.Uint64(e[8:]),
			size:        binary.LittleEndian.Uint64(e[16:]),
			tableOffset: int64(at),
		}
		switch {
		case c.offset > uint64(len(b)) || c.size > uint64(len(b))-c.offset:
			return nil, errAt(int64(at), c.id, io.ErrUnexpectedEOF, "payload [%#x, +%d) past end of file (%d bytes)", c.offset, c.size, len(b))
		case c.offset%payloadAlign != 0:
			return nil, errAt(int64(at), c.id, nil, "payload offset %#x not 16-byte aligned", c.offset)
		case c.offset < firstPayload:
			return nil, errAt(int64(at), c.id, nil, "payload offset %#x overlaps the header or chunk table (payloads start at %#x)", c.offset, firstPayload)
		}
		if seen[c.id] {
			return nil, errAt(int64(at), c.id, nil, "duplicate chunk")
		}
		seen[c.id] = true
		if c.id.known() {
			if c.flags != 0 {
				return nil, errAt(int64(at)+4, c.id, nil, "unsupported chunk flags %#x", c.flags)
			}
			d.chunks[c.id] = c
		} else {
			unknown = append(unknown, c)
		}
		spans = append(spans, c)
	}
	slices.SortFunc(spans, func(x, y chunkSpan) int {
		if x.offset != y.offset {
			return cmpU64(x.offset, y.offset)
		}
		return cmpU64(x.size, y.size)
	})
	for i := 1; i < len(spans); i++ {
		p, c := spans[i-1], spans[i]
		if p.offset+p.size > c.offset {
			return nil, errAt(int64(c.offset), c.id, nil, "payload overlaps chunk %s [%#x, +%d)", p.id, p.offset, p.size)
		}
	}
	for _, id := range requiredChunks() {
		if _, ok := d.chunks[id]; !ok {
			return nil, errAt(-1, id, nil, "missing required chunk")
		}
	}

	// DESC first: it sizes everything else. Then every chunk in a fixed
	// order, each by its own function (as image/png's parseChunk).
	for _, c := range chunkDecoders() {
		if err := c(&d, f); err != nil {
			return nil, err
		}
	}

	for _, u := range unknown {
		f.Unknown = append(f.Unknown, Chunk{ID: u.id, Flags: u.flags, Data: slices.Clone(d.payload(u.id, u))})
	}

	base := make(map[FourCC]int64, len(d.chunks))
	for id, c := range d.chunks {
		base[id] = int64(c.offset)
	}
	if err := validate(f, base); err != nil {
		return nil, err
	}
	// Nothing may follow the last payload but its zero padding to the next
	// 16-byte boundary: appended bytes would be read by no one.
	end := firstPayload
	if k := len(spans); k > 0 {
		end = max(end, spans[k-1].offset+spans[k-1].size)
	}
	if tail := b[min(end, uint64(len(b))):]; uint64(len(tail)) > alignUp(end)-end || bytes.IndexFunc(tail, func(r rune) bool { return r != 0 }) >= 0 {
		return nil, errAt(int64(end), 0, nil, "%d bytes after the last chunk's payload (at most zero padding to a 16-byte boundary)", len(tail))
	}
	return f, nil
}

// chunkDecoder decodes one chunk (or a pair that comes together) into f;
// DESC's comes first and sizes the others. An optional chunk's decoder
// does nothing when the chunk is absent.
type chunkDecoder func(d *decoder, f *File) error

// chunkDecoders lists the decoders in the order Decode runs them.
func chunkDecoders() []chunkDecoder {
	return []chunkDecoder{
		decodeDESC, decodeBNDS, decodeVTXS, decodeIDXS, decodeMLET, decodeMLVR, decodeMLTR, decodeMLBN, decodeMTRL, decodeSUBM,
		decodeSKIN, decodeSKEL, decodeLODs, decodeMRPH, decodeCLOD,
	}
}

func decodeDESC(d *decoder, f *File) error {
	desc, err := d.sized(ChunkDESC, DescSize, "MeshDesc")
	if err != nil {
		return err
	}
	f.Desc = Desc{
		VertexCount:     binary.LittleEndian.Uint32(desc),
		IndexCount:      binary.LittleEndian.Uint32(desc[4:]),
		MeshletCount:    binary.LittleEndian.Uint32(desc[8:]),
		SubmeshCount:    binary.LittleEndian.Uint32(desc[12:]),
		MaterialCount:   binary.LittleEndian.Uint32(desc[16:]),
		VertexStride:    binary.LittleEndian.Uint16(desc[20:]),
		IndexWidth:      desc[22],
		Flags:           desc[23],
		MeshletMaxVerts: binary.LittleEndian.Uint32(desc[24:]),
		MeshletMaxTris:  binary.LittleEndian.Uint32(desc[28:]),
	}
	dsc := f.Desc
	descOff := int64(d.chunks[ChunkDESC].offset)
	if dsc.VertexStride != VertexSize {
		return errAt(descOff+20, ChunkDESC, nil, "vertexStride %d, want %d", dsc.VertexStride, VertexSize)
	}
	if w := indexWidthFor(uint64(dsc.VertexCount)); dsc.IndexWidth != w {
		return errAt(descOff+22, ChunkDESC, nil, "indexWidth %d for %d vertices, want %d", dsc.IndexWidth, dsc.VertexCount, w)
	}
	return nil
}

func decodeBNDS(d *decoder, f *File) error {
	p, err := d.sized(ChunkBNDS, BoundsSize, "MeshBounds")
	if err != nil {
		return err
	}
	f.Bounds = readBounds(p)
	return nil
}

func decodeVTXS(d *decoder, f *File) error {
	p, err := d.sized(ChunkVTXS, VertexSize*uint64(f.Desc.VertexCount), "vertexCount × 28")
	if err != nil {
		return err
	}
	f.Vertices = decodeArray(p, VertexSize, func(e []byte) Vertex {
		return Vertex{
			Position: readF32x3(e),
			Normal:   [2]int16{int16(binary.LittleEndian.Uint16(e[12:])), int16(binary.LittleEndian.Uint16(e[14:]))},
			Tangent:  [2]int16{int16(binary.LittleEndian.Uint16(e[16:])), int16(binary.LittleEndian.Uint16(e[18:]))},
			UV:       [2]float32{readF32(e[20:]), readF32(e[24:])},
		}
	})
	return nil
}

func decodeIDXS(d *decoder, f *File) error {
	iw := uint64(f.Desc.IndexWidth)
	p, err := d.sized(ChunkIDXS, iw*uint64(f.Desc.IndexCount), "indexCount × indexWidth")
	if err != nil {
		return err
	}
	f.Indices = decodeArray(p, int(iw), func(e []byte) uint32 {
		if iw == 2 {
			return uint32(binary.LittleEndian.Uint16(e))
		}
		return binary.LittleEndian.Uint32(e)
	})
	return nil
}

func decodeMLET(d *decoder, f *File) error {
	p, err := d.sized(ChunkMLET, MeshletSize*uint64(f.Desc.MeshletCount), "meshletCount × 16")
	if err != nil {
		return err
	}
	f.Meshlets = decodeArray(p, MeshletSize, func(e []byte) Meshlet {
		return Meshlet{binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:]), binary.LittleEndian.Uint32(e[8:]), binary.LittleEndian.Uint32(e[12:])}
	})
	return nil
}

func decodeMLVR(d *decoder, f *File) error {
	p, err := d.multiple(ChunkMLVR, 4)
	if err != nil {
		return err
	}
	f.MeshletVertices = decodeU32s(p)
	return nil
}

func decodeMLTR(d *decoder, f *File) error {
	p, err := d.multiple(ChunkMLTR, 3)
	if err != nil {
		return err
	}
	if len(p) > 0 {
		f.MeshletTriangles = slices.Clone(p)
	}
	return nil
}

func decodeMLBN(d *decoder, f *File) error {
	p, err := d.sized(ChunkMLBN, MeshletBoundsSize*uint64(f.Desc.MeshletCount), "meshletCount × 32")
	if err != nil {
		return err
	}
	f.MeshletBounds = decodeArray(p, MeshletBoundsSize, func(e []byte) MeshletBounds {
		return MeshletBounds{Center: readF32x3(e), Radius: readF32(e[12:]), ConeAxis: readF32x3(e[16:]), ConeCutoff: readF32(e[28:])}
	})
	return nil
}

func decodeMTRL(d *decoder, f *File) error {
	p, err := d.sized(ChunkMTRL, 8*uint64(f.Desc.MaterialCount), "materialCount × 8")
	if err != nil {
		return err
	}
	f.Materials = decodeArray(p, 8, binary.LittleEndian.Uint64)
	return nil
}

func decodeSUBM(d *decoder, f *File) error {
	p, err := d.sized(ChunkSUBM, SubMeshSize*uint64(f.Desc.SubmeshCount), "submeshCount × 64")
	if err != nil {
		return err
	}
	f.Submeshes = decodeArray(p, SubMeshSize, func(e []byte) SubMesh {
		return SubMesh{
			FirstIndex: binary.LittleEndian.Uint32(e), IndexCount: binary.LittleEndian.Uint32(e[4:]),
			FirstMeshlet: binary.LittleEndian.Uint32(e[8:]), MeshletCount: binary.LittleEndian.Uint32(e[12:]),
			MaterialSlot: binary.LittleEndian.Uint32(e[16:]), BaseVertex: binary.LittleEndian.Uint32(e[20:]),
			Bounds: readBounds(e[24:]),
		}
	})
	return nil
}

// Optional chunks. A present chunk decodes to a non-nil slice, even when
// empty, so that Encode writes it again.

func decodeSKIN(d *decoder, f *File) error {
	if _, ok := d.chunks[ChunkSKIN]; !ok {
		return nil
	}
	p, err := d.sized(ChunkSKIN, SkinVertexSize*uint64(f.Desc.VertexCount), "vertexCount × 24")
	if err != nil {
		return err
	}
	f.Skin = make([]SkinVertex, 0, len(p)/SkinVertexSize)
	for e := range slices.Chunk(p, SkinVertexSize) {
		var s SkinVertex
		for k := range 4 {
			s.Joints[k] = binary.LittleEndian.Uint16(e[2*k:])
			s.Weights[k] = readF32(e[8+4*k:])
		}
		f.Skin = append(f.Skin, s)
	}
	return nil
}

func decodeSKEL(d *decoder, f *File) error {
	if _, ok := d.chunks[ChunkSKEL]; !ok {
		return nil
	}
	p, err := d.multiple(ChunkSKEL, JointSize)
	if err != nil {
		return err
	}
	f.Joints = make([]Joint, 0, len(p)/JointSize)
	for e := range slices.Chunk(p, JointSize) {
		var j Joint
		for k := range 16 {
			j.InverseBind[k] = readF32(e[4*k:])
		}
		j.BindT = readF32x3(e[64:])
		for k := range 4 {
			j.BindR[k] = readF32(e[76+4*k:])
		}
		j.BindS = readF32x3(e[92:])
		j.Parent = int32(binary.LittleEndian.Uint32(e[104:]))
		// pad @108 is ignored
		f.Joints = append(f.Joints, j)
	}
	return nil
}

// decodeLODs decodes LODI and LODT, which come together.
func decodeLODs(d *decoder, f *File) error {
	_, hasLODI := d.chunks[ChunkLODI]
	_, hasLODT := d.chunks[ChunkLODT]
	if hasLODI != hasLODT {
		id := ChunkLODI
		if hasLODT {
			id = ChunkLODT
		}
		return errAt(int64(d.chunks[id].tableOffset), id, nil, "LODI and LODT must come together")
	}
	if !hasLODI {
		return nil
	}
	p, err := d.multiple(ChunkLODI, 4)
	if err != nil {
		return err
	}
	f.LodIndices = decodeU32s(p)
	lt := d.chunks[ChunkLODT]
	p = d.payload(ChunkLODT)
	if len(p) < LodHeaderSize {
		return errAt(int64(lt.offset), ChunkLODT, io.ErrUnexpectedEOF, "payload is %d bytes, too short for the 8-byte LodTableHeader", len(p))
	}
	f.LodCount = binary.LittleEndian.Uint32(p)
	sc := f.Desc.SubmeshCount
	if got := binary.LittleEndian.Uint32(p[4:]); got != sc {
		return errAt(int64(lt.offset)+4, ChunkLODT, nil, "submeshCount %d, DESC says %d", got, sc)
	}
	rows := uint64(f.LodCount) * uint64(sc)
	if want := LodHeaderSize + MeshLodSize*rows; uint64(len(p)) != want {
		return errAt(int64(lt.offset), ChunkLODT, nil, "payload is %d bytes, want %d (8 + 8 × lodCount %d × submeshCount %d)", len(p), want, f.LodCount, sc)
	}
	f.Lods = decodeArray(p[LodHeaderSize:], MeshLodSize, func(e []byte) MeshLod {
		return MeshLod{binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:])}
	})
	return nil
}

func decodeMRPH(d *decoder, f *File) error {
	c, ok := d.chunks[ChunkMRPH]
	if !ok {
		return nil
	}
	var err error
	f.Morphs, err = decodeMorphs(d.payload(ChunkMRPH), int64(c.offset), f.Desc.VertexCount, f.Desc.SubmeshCount)
	return err
}

// decodeCLOD decodes the nine cluster-LOD chunks, which come together
// (clusterlod.go).
func decodeCLOD(d *decoder, f *File) error {
	var err error
	f.ClusterLOD, err = d.decodeClusterLOD(f.Desc.SubmeshCount)
	return err
}

// Read reads a whole .hmesh from r and decodes it. It refuses input longer
// than limit bytes (limit <= 0 means no limit) before decoding.
func Read(r io.Reader, limit int64) (*File, error) {
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("hmesh: read: %w", err)
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, errAt(limit, 0, nil, "file larger than the %d-byte limit", limit)
	}
	return Decode(b)
}

// payload returns a known chunk's bytes (or, given its span, any chunk's).
func (d *decoder) payload(id FourCC, span ...chunkSpan) []byte {
	c := d.chunks[id]
	if len(span) > 0 {
		c = span[0]
	}
	return d.b[c.offset : c.offset+c.size]
}

// sized returns a chunk's payload after checking it is exactly want bytes.
func (d *decoder) sized(id FourCC, want uint64, what string) ([]byte, error) {
	c := d.chunks[id]
	if c.size != want {
		return nil, errAt(c.tableOffset+16, id, nil, "payload is %d bytes, want %d (%s)", c.size, want, what)
	}
	return d.payload(id), nil
}

// multiple returns a chunk's payload after checking its size is a multiple
// of elem.
func (d *decoder) multiple(id FourCC, elem uint64) ([]byte, error) {
	c := d.chunks[id]
	if c.size%elem != 0 {
		return nil, errAt(c.tableOffset+16, id, nil, "payload is %d bytes, not a multiple of %d", c.size, elem)
	}
	return d.payload(id), nil
}

// decodeArray decodes p as consecutive elem-byte records, in parallel
// chunks (each record decodes on its own); nil when empty.
func decodeArray[T any](p []byte, elem int, fn func([]byte) T) []T {
	if len(p) == 0 {
		return nil
	}
	out := make([]T, len(p)/elem)
	par.Ranges(len(out), encodeChunk, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = fn(p[i*elem : (i+1)*elem : (i+1)*elem])
		}
	})
	return out
}

func decodeU32s(p []byte) []uint32 {
	return decodeArray(p, 4, binary.LittleEndian.Uint32)
}

func readF32(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) }

func readF32x3(b []byte) [3]float32 { return [3]float32{readF32(b), readF32(b[4:]), readF32(b[8:])} }

func readBounds(b []byte) Bounds {
	return Bounds{Min: readF32x3(b), Max: readF32x3(b[12:]), Center: readF32x3(b[24:]), Radius: readF32(b[36:])}
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
