package payload

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Dump writes a stable, human-readable text dump of every field of a static
// payload, one record per line, for golden files and `meshcook inspect
// --dump`. Floats use strconv's shortest float32 form, so equal dumps mean
// bit-equal fields.
func Dump(w io.Writer, m *Static) error {
	if m == nil {
		return invalid("nil payload")
	}
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("payload static\n")
	dumpVertices(p, len(m.Vertices), func(i int) *Vertex { return &m.Vertices[i] }, nil)
	dumpTriangles(p, "indices", m.Indices)
	dumpLODs(p, m.LODs)
	if h := m.Heightfield; h != nil {
		p("heightfield %dx%d\n", h.Rows, h.Cols)
		for r := 0; r < int(h.Rows) && r*int(h.Cols) < len(h.Heights); r++ {
			row := h.Heights[r*int(h.Cols) : min(len(h.Heights), (r+1)*int(h.Cols))]
			p("  row%d %s\n", r, fv(row...))
		}
	}
	return bw.Flush()
}

// DumpSkinned writes a text dump of a skinned payload.
func DumpSkinned(w io.Writer, m *Skinned) error {
	if m == nil {
		return invalid("nil payload")
	}
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("payload skinned\n")
	dumpVertices(p, len(m.Vertices), func(i int) *Vertex { return &m.Vertices[i].Vertex }, func(i int) string {
		v := &m.Vertices[i]
		return fmt.Sprintf(" joints=%v weights=%s", v.Joints, fv(v.Weights[:]...))
	})
	dumpTriangles(p, "indices", m.Indices)
	p("joints %d\n", len(m.Joints))
	for i, j := range m.Joints {
		p("  j%d %q parent=%d t=%s r=%s s=%s\n", i, j.Name, j.Parent, fv(j.Translation[:]...), fv(j.RotationDeg[:]...), fv(j.Scale[:]...))
	}
	if mo := m.Morphs; mo != nil && len(mo.Targets) > 0 {
		p("morphs targets=%q entries=%d\n", mo.Targets, len(mo.Entries))
		for v := 0; v+1 < len(mo.Offsets); v++ {
			for e := mo.Offsets[v]; e < mo.Offsets[v+1] && int(e) < len(mo.Entries); e++ {
				en := mo.Entries[e]
				p("  v%d target=%d dpos=%s dnormal=%s\n", v, en.Target, fv(en.Position[:]...), fv(en.Normal[:]...))
			}
		}
	}
	dumpLODs(p, m.LODs)
	return bw.Flush()
}

func dumpVertices(p func(string, ...any), n int, at func(int) *Vertex, extra func(int) string) {
	p("vertices %d\n", n)
	for i := range n {
		v := at(i)
		s := ""
		if extra != nil {
			s = extra(i)
		}
		p("  v%d pos=%s normal=%s tangent=%s color=%s uv=%s%s\n", i, fv(v.Position[:]...), fv(v.Normal[:]...), fv(v.Tangent[:]...), fv(v.Color[:]...), fv(v.UV[:]...), s)
	}
}

func dumpTriangles(p func(string, ...any), what string, idx []uint16) {
	p("%s %d\n", what, len(idx))
	for t := 0; t+2 < len(idx); t += 3 {
		p("  t%d %d %d %d\n", t/3, idx[t], idx[t+1], idx[t+2])
	}
}

func dumpLODs(p func(string, ...any), lods []LOD) {
	if len(lods) == 0 {
		return
	}
	p("lods %d\n", len(lods))
	for i, l := range lods {
		p("  lod%d switchDistance=%s indices=%d\n", i+1, fv(l.SwitchDistance), len(l.Indices))
		for t := 0; t+2 < len(l.Indices); t += 3 {
			p("    t%d %d %d %d\n", t/3, l.Indices[t], l.Indices[t+1], l.Indices[t+2])
		}
	}
}

func fv(xs ...float32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return "[" + strings.Join(s, " ") + "]"
}
