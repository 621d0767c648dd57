package cnb

import (
	"errors"
	"strconv"

	"github.com/meshcook/meshcook/formats/postcard"
)

// Minimum encoded sizes of one element of each metadata vector, used to
// bound vector lengths against the bytes that remain before allocating.
const (
	minDefSize        = 5  // name tag, kind, discriminant, args len, payload tag
	minResourceSize   = 4  // kind, handle, payload tag, data len
	minCountSize      = 2  // tag, count
	minSceneGroupSize = 3  // scene, resources len, defs len
	minResRefSize     = 2  // kind, handle
	minBoundsSize     = 27 // handle, 6 × f32, two counts
	minCacheEntrySize = 4  // kind, key len, offset, len
)

func encodeLocator(e *postcard.Encoder, p *PayloadLocator) {
	if p == nil {
		e.OptionNone()
		return
	}
	e.OptionSome()
	e.U32(p.BlobIndex)
	e.U64(p.Offset)
	e.U64(p.Len)
}

// appendBlobMeta appends the postcard encoding of m: fields in schema
// order, Options as 0x00 / 0x01+value, vectors length-prefixed.
func appendBlobMeta(dst []byte, m *BlobMeta) []byte {
	e := postcard.NewEncoder(dst)
	e.Len(len(m.Defs))
	for i := range m.Defs {
		d := &m.Defs[i]
		if d.Name == nil {
			e.OptionNone()
		} else {
			e.OptionSome()
			e.U32(uint32(*d.Name))
		}
		e.Variant(uint32(d.Kind))
		e.U8(d.Discriminant)
		e.ByteArray(d.Args)
		encodeLocator(e, d.Payload)
	}
	e.Len(len(m.Resources))
	for i := range m.Resources {
		r := &m.Resources[i]
		e.U8(uint8(r.Kind))
		e.U32(r.Handle)
		encodeLocator(e, r.Payload)
		e.ByteArray(r.Data)
	}
	e.Len(len(m.Manifest.ComponentCounts))
	for _, c := range m.Manifest.ComponentCounts {
		e.U8(c.Tag)
		e.U32(c.Count)
	}
	e.U32(m.Manifest.MaxBlobIndex)
	e.Len(len(m.SceneGroups))
	for i := range m.SceneGroups {
		g := &m.SceneGroups[i]
		e.U32(uint32(g.Scene))
		e.Len(len(g.Resources))
		for _, r := range g.Resources {
			e.U8(uint8(r.Kind))
			e.U32(r.Handle)
		}
		e.Len(len(g.Defs))
		for _, d := range g.Defs {
			e.U32(uint32(d))
		}
	}
	e.Len(len(m.MeshBounds))
	for i := range m.MeshBounds {
		b := &m.MeshBounds[i]
		e.U32(b.Handle)
		for _, x := range b.Min {
			e.F32(x)
		}
		for _, x := range b.Max {
			e.F32(x)
		}
		e.U32(b.VertexCount)
		e.U32(b.IndexCount)
	}
	if p := m.PhysicsBudget; p == nil {
		e.OptionNone()
	} else {
		e.OptionSome()
		for _, v := range [7]uint32{p.Fixed, p.Dynamic, p.Kinematic, p.Sensors, p.Joints, p.Anchors, p.SpawnHeadroom} {
			e.U32(v)
		}
	}
	return e.Bytes()
}

func appendCacheMeta(dst []byte, m *CacheMeta) []byte {
	e := postcard.NewEncoder(dst)
	e.String(m.Toolchain)
	e.Len(len(m.Entries))
	for _, c := range m.Entries {
		e.Variant(uint32(c.Kind))
		e.String(c.Key)
		e.U64(c.Offset)
		e.U64(c.Len)
	}
	return e.Bytes()
}

// pathElem is one step of a field path: a name, or an index when idx >= 0.
type pathElem struct {
	name string
	idx  int
}

// reader decodes metadata with a sticky error: after the first failure
// every read returns zero, and err holds a FormatError naming the field by
// its schema path (e.g. "resources[3].payload.offset").
type reader struct {
	d    *postcard.Decoder
	path []pathElem
	err  error
}

func (r *reader) field(last string) string {
	s := ""
	for _, p := range r.path {
		if p.idx >= 0 {
			s += "[" + strconv.Itoa(p.idx) + "]"
			continue
		}
		if s != "" {
			s += "."
		}
		s += p.name
	}
	if last != "" {
		if s != "" {
			s += "."
		}
		s += last
	}
	return s
}

func (r *reader) fail(err error, last string) {
	if r.err != nil {
		return
	}
	var pe *postcard.FormatError
	if errors.As(err, &pe) {
		r.err = &FormatError{Offset: pe.Offset, Field: r.field(last), Msg: pe.Msg, Err: err}
		return
	}
	r.err = &FormatError{Offset: r.d.Offset(), Field: r.field(last), Msg: err.Error(), Err: err}
}

func (r *reader) enter(name string) { r.path = append(r.path, pathElem{name: name, idx: -1}) }
func (r *reader) index(i int)       { r.path = append(r.path, pathElem{idx: i}) }
func (r *reader) leave()            { r.path = r.path[:len(r.path)-1] }
func (r *reader) ok() bool          { return r.err == nil }
func (r *reader) check(err error, last string) {
	if err != nil {
		r.fail(err, last)
	}
}

func (r *reader) u8(f string) uint8 {
	if r.err != nil {
		return 0
	}
	v, err := r.d.U8()
	r.check(err, f)
	return v
}

func (r *reader) u32(f string) uint32 {
	if r.err != nil {
		return 0
	}
	v, err := r.d.U32()
	r.check(err, f)
	return v
}

func (r *reader) u64(f string) uint64 {
	if r.err != nil {
		return 0
	}
	v, err := r.d.U64()
	r.check(err, f)
	return v
}

func (r *reader) f32(f string) float32 {
	if r.err != nil {
		return 0
	}
	v, err := r.d.F32()
	r.check(err, f)
	return v
}

func (r *reader) option(f string) bool {
	if r.err != nil {
		return false
	}
	v, err := r.d.Option()
	r.check(err, f)
	return v
}

func (r *reader) variant(count uint32, f string) uint32 {
	if r.err != nil {
		return 0
	}
	v, err := r.d.Variant(count)
	r.check(err, f)
	return v
}

func (r *reader) seq(minSize int, f string) int {
	if r.err != nil {
		return 0
	}
	n, err := r.d.SeqLen(minSize)
	r.check(err, f)
	return n
}

// bytes copies a byte array out of the input, so decoded metadata does not
// alias the blob image. Empty arrays decode as nil.
func (r *reader) bytes(f string) []byte {
	if r.err != nil {
		return nil
	}
	v, err := r.d.ByteArray()
	r.check(err, f)
	if len(v) == 0 {
		return nil
	}
	return append([]byte(nil), v...)
}

func (r *reader) string(f string) string {
	if r.err != nil {
		return ""
	}
	v, err := r.d.String()
	r.check(err, f)
	return v
}

func (r *reader) done() {
	if r.err == nil {
		if err := r.d.Done(); err != nil {
			r.fail(err, "")
		}
	}
}

func (r *reader) locator(f string) *PayloadLocator {
	if !r.option(f) {
		return nil
	}
	r.enter(f)
	defer r.leave()
	p := &PayloadLocator{BlobIndex: r.u32("blob_index"), Offset: r.u64("offset"), Len: r.u64("len")}
	if !r.ok() {
		return nil
	}
	return p
}

// decodeBlobMeta decodes exactly one BlobMeta from meta, which starts at
// absolute offset base of the blob image. Empty vectors decode as nil.
func decodeBlobMeta(meta []byte, base int64) (*BlobMeta, *recordOffsets, error) {
	r := &reader{d: postcard.NewDecoderAt(meta, base)}
	m := &BlobMeta{}
	o := &recordOffsets{}

	if n := r.seq(minDefSize, "defs"); n > 0 {
		m.Defs = make([]BlobAssetDef, n)
		o.defs = make([]int64, n)
		r.enter("defs")
		for i := range m.Defs {
			o.defs[i] = r.d.Offset()
			r.index(i)
			d := &m.Defs[i]
			if r.option("name") {
				id := AssetID(r.u32("name"))
				d.Name = &id
			}
			d.Kind = AssetKind(r.variant(1, "kind"))
			d.Discriminant = r.u8("discriminant")
			d.Args = r.bytes("args_bytes")
			d.Payload = r.locator("payload")
			r.leave()
			if !r.ok() {
				return nil, nil, r.err
			}
		}
		r.leave()
	}

	if n := r.seq(minResourceSize, "resources"); n > 0 {
		m.Resources = make([]ResourceRecord, n)
		o.resources = make([]int64, n)
		r.enter("resources")
		for i := range m.Resources {
			o.resources[i] = r.d.Offset()
			r.index(i)
			rr := &m.Resources[i]
			rr.Kind = ResourceKind(r.u8("resource_kind"))
			rr.Handle = r.u32("handle")
			rr.Payload = r.locator("payload")
			rr.Data = r.bytes("data_bytes")
			r.leave()
			if !r.ok() {
				return nil, nil, r.err
			}
		}
		r.leave()
	}

	o.manifest = r.d.Offset()
	r.enter("manifest")
	if n := r.seq(minCountSize, "component_counts"); n > 0 {
		m.Manifest.ComponentCounts = make([]ComponentCount, n)
		r.enter("component_counts")
		for i := range m.Manifest.ComponentCounts {
			r.index(i)
			m.Manifest.ComponentCounts[i] = ComponentCount{Tag: r.u8("0"), Count: r.u32("1")}
			r.leave()
		}
		r.leave()
	}
	m.Manifest.MaxBlobIndex = r.u32("max_blob_index")
	r.leave()

	if n := r.seq(minSceneGroupSize, "scene_groups"); n > 0 {
		m.SceneGroups = make([]SceneGroup, n)
		o.groups = make([]int64, n)
		r.enter("scene_groups")
		for i := range m.SceneGroups {
			o.groups[i] = r.d.Offset()
			r.index(i)
			g := &m.SceneGroups[i]
			g.Scene = AssetID(r.u32("scene"))
			if k := r.seq(minResRefSize, "resources"); k > 0 {
				g.Resources = make([]ResourceRef, k)
				r.enter("resources")
				for j := range g.Resources {
					r.index(j)
					g.Resources[j] = ResourceRef{Kind: ResourceKind(r.u8("0")), Handle: r.u32("1")}
					r.leave()
				}
				r.leave()
			}
			if k := r.seq(1, "defs"); k > 0 {
				g.Defs = make([]AssetID, k)
				r.enter("defs")
				for j := range g.Defs {
					r.index(j)
					g.Defs[j] = AssetID(r.u32(""))
					r.leave()
				}
				r.leave()
			}
			r.leave()
			if !r.ok() {
				return nil, nil, r.err
			}
		}
		r.leave()
	}

	if n := r.seq(minBoundsSize, "mesh_bounds"); n > 0 {
		m.MeshBounds = make([]MeshBoundsRecord, n)
		o.bounds = make([]int64, n)
		r.enter("mesh_bounds")
		for i := range m.MeshBounds {
			o.bounds[i] = r.d.Offset()
			r.index(i)
			b := &m.MeshBounds[i]
			b.Handle = r.u32("handle")
			for k := range b.Min {
				b.Min[k] = r.f32("min")
			}
			for k := range b.Max {
				b.Max[k] = r.f32("max")
			}
			b.VertexCount = r.u32("vertex_count")
			b.IndexCount = r.u32("index_count")
			r.leave()
			if !r.ok() {
				return nil, nil, r.err
			}
		}
		r.leave()
	}

	if r.option("physics_budget") {
		r.enter("physics_budget")
		m.PhysicsBudget = &PhysicsBudgetRecord{
			Fixed: r.u32("fixed"), Dynamic: r.u32("dynamic"), Kinematic: r.u32("kinematic"),
			Sensors: r.u32("sensors"), Joints: r.u32("joints"), Anchors: r.u32("anchors"),
			SpawnHeadroom: r.u32("spawn_headroom"),
		}
		r.leave()
	}
	r.done()
	if r.err != nil {
		return nil, nil, r.err
	}
	return m, o, nil
}

func decodeCacheMeta(meta []byte, base int64) (*CacheMeta, []int64, error) {
	r := &reader{d: postcard.NewDecoderAt(meta, base)}
	m := &CacheMeta{Toolchain: r.string("toolchain")}
	var offs []int64
	if n := r.seq(minCacheEntrySize, "entries"); n > 0 {
		m.Entries = make([]CacheEntry, n)
		offs = make([]int64, n)
		r.enter("entries")
		for i := range m.Entries {
			offs[i] = r.d.Offset()
			r.index(i)
			c := &m.Entries[i]
			c.Kind = CacheEntryKind(r.variant(uint32(numCacheEntryKinds), "kind"))
			c.Key = r.string("key")
			c.Offset = r.u64("offset")
			c.Len = r.u64("len")
			r.leave()
			if !r.ok() {
				return nil, nil, r.err
			}
		}
		r.leave()
	}
	r.done()
	if r.err != nil {
		return nil, nil, r.err
	}
	return m, offs, nil
}
