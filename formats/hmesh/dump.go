package hmesh

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Dump writes a stable, human-readable text dump of every field of f, one
// record per line, for golden files and `meshcook inspect --dump`. Floats are
// printed with strconv's shortest 'g' form for float32, so the dump is exact:
// two files dump the same text only if their fields are bit-for-bit equal
// (except that -0 prints as -0 and 0 as 0, which are distinct too).
func Dump(w io.Writer, f *File) error {
	if f == nil {
		return &FormatError{Offset: -1, Msg: "nil file"}
	}
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	d := f.Desc
	p("hmesh v%d\n", Version)
	p("desc %s\n", d)
	p("bounds %s\n", fmtBounds(f.Bounds))

	p("vertices %d\n", len(f.Vertices))
	for i, v := range f.Vertices {
		p("  v%d pos=%s normal=[%d %d] tangent=[%d %d] uv=%s\n", i, fv(v.Position[:]...), v.Normal[0], v.Normal[1], v.Tangent[0], v.Tangent[1], fv(v.UV[:]...))
	}
	p("indices %d\n", len(f.Indices))
	for t := 0; t+2 < len(f.Indices); t += 3 {
		p("  t%d %d %d %d\n", t/3, f.Indices[t], f.Indices[t+1], f.Indices[t+2])
	}
	if r := len(f.Indices) % 3; r != 0 {
		p("  rest %v\n", f.Indices[len(f.Indices)-r:])
	}
	p("meshlets %d\n", len(f.Meshlets))
	for k, m := range f.Meshlets {
		p("  m%d vertices=%d+%d triangles=%d+%d\n", k, m.VertexOffset, m.VertexCount, m.TriangleOffset, m.TriangleCount)
	}
	p("meshletVertices %d\n", len(f.MeshletVertices))
	for i := 0; i < len(f.MeshletVertices); i += 16 {
		p("  @%d %s\n", i, joinUints(f.MeshletVertices[i:min(i+16, len(f.MeshletVertices))]))
	}
	p("meshletTriangles %d\n", len(f.MeshletTriangles)/3)
	for t := 0; t+2 < len(f.MeshletTriangles); t += 3 {
		p("  t%d %d %d %d\n", t/3, f.MeshletTriangles[t], f.MeshletTriangles[t+1], f.MeshletTriangles[t+2])
	}
	p("meshletBounds %d\n", len(f.MeshletBounds))
	for k, b := range f.MeshletBounds {
		p("  b%d center=%s radius=%s axis=%s cutoff=%s\n", k, fv(b.Center[:]...), fv(b.Radius), fv(b.ConeAxis[:]...), fv(b.ConeCutoff))
	}
	p("materials %d\n", len(f.Materials))
	for i, m := range f.Materials {
		p("  slot%d %#016x\n", i, m)
	}
	p("submeshes %d\n", len(f.Submeshes))
	for s, sm := range f.Submeshes {
		slot := strconv.FormatUint(uint64(sm.MaterialSlot), 10)
		if sm.MaterialSlot == NoMaterial {
			slot = "none"
		}
		p("  s%d indices=%d+%d meshlets=%d+%d material=%s baseVertex=%d %s\n", s, sm.FirstIndex, sm.IndexCount, sm.FirstMeshlet, sm.MeshletCount, slot, sm.BaseVertex, fmtBounds(sm.Bounds))
	}
	if f.Skin != nil {
		p("skin %d\n", len(f.Skin))
		for i, s := range f.Skin {
			p("  v%d joints=[%d %d %d %d] weights=%s\n", i, s.Joints[0], s.Joints[1], s.Joints[2], s.Joints[3], fv(s.Weights[:]...))
		}
	}
	if f.Joints != nil {
		p("joints %d\n", len(f.Joints))
		for j, x := range f.Joints {
			p("  j%d parent=%d t=%s r=%s s=%s inverseBind=%s\n", j, x.Parent, fv(x.BindT[:]...), fv(x.BindR[:]...), fv(x.BindS[:]...), fv(x.InverseBind[:]...))
		}
	}
	if f.hasLods() {
		p("lods levels=%d rows=%d\n", f.LodCount, len(f.Lods))
		for i, l := range f.Lods {
			s, lv := i, 0
			if f.LodCount > 0 {
				s, lv = i/int(f.LodCount), i%int(f.LodCount)
			}
			p("  s%d lod%d indices=%d+%d\n", s, lv+1, l.FirstIndex, l.IndexCount)
		}
		p("lodIndices %d\n", len(f.LodIndices))
		for i := 0; i < len(f.LodIndices); i += 16 {
			p("  @%d %s\n", i, joinUints(f.LodIndices[i:min(i+16, len(f.LodIndices))]))
		}
	}
	if m := f.Morphs; m != nil {
		p("morphs targets=%d entries=%d\n", len(m.Targets), len(m.Entries))
		for s, r := range m.Ranges {
			p("  s%d targets=%d+%d\n", s, r.First, r.Count)
		}
		for t, x := range m.Targets {
			p("  target%d %q weight=%s\n", t, x.Name, fv(x.Weight))
		}
		for v := 0; v+1 < len(m.Offsets); v++ {
			for k := m.Offsets[v]; k < m.Offsets[v+1] && int(k) < len(m.Entries); k++ {
				e := m.Entries[k]
				p("  v%d target%d pos=%s normal=%s\n", v, e.Target, fv(e.Position[:]...), fv(e.Normal[:]...))
			}
		}
	}
	if c := f.ClusterLOD; c != nil {
		dumpClusterLOD(p, c)
	}
	for _, c := range f.Unknown {
		p("unknown %s flags=%#x size=%d\n", c.ID, c.Flags, len(c.Data))
	}
	return bw.Flush()
}

func fmtBounds(b Bounds) string {
	return "min=" + fv(b.Min[:]...) + " max=" + fv(b.Max[:]...) + " center=" + fv(b.Center[:]...) + " radius=" + fv(b.Radius)
}

// fv formats float32s exactly: one value bare, several in brackets.
func fv(xs ...float32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	if len(xs) == 1 {
		return parts[0]
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func joinUints(xs []uint32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatUint(uint64(x), 10)
	}
	return strings.Join(parts, " ")
}
