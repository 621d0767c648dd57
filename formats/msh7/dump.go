package msh7

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Stats summarise a File for reports: how many meshlets keep a cone and
// how the references were encoded.
type Stats struct {
	Meshlets, Triangles, LocalVertices int
	Cones                              int // meshlets with an enabled cone
	// Widths counts channel encodings over all meshlets: [channel][code].
	// Skin counts only for skinned files.
	Widths [NumChannels][3]int
	// RefBytes is the position-ref plus attribute-ref bytes.
	RefBytes int
}

// Stats returns f's summary. f is expected to be valid.
func (f *File) Stats() Stats {
	s := Stats{
		Meshlets: len(f.Meshlets), Triangles: len(f.Primitives) / 3, LocalVertices: len(f.LocalVertices),
		RefBytes: len(f.PositionRefs) + len(f.AttributeRefs),
	}
	for m, d := range f.Meshlets {
		if m < len(f.Bounds) && f.Bounds[m].Cone != 0 {
			s.Cones++
		}
		for c := ChanPosition; c < NumChannels; c++ {
			if c == ChanSkin && f.Class != ClassSkinned {
				continue
			}
			if w := d.Width(c); w < 3 {
				s.Widths[c][w]++
			}
		}
	}
	return s
}

// Dump writes a deterministic text listing of f: header counts, every
// stream entry (halves shown as their float values), and every meshlet with
// its references decoded. It is for golden files and `meshcook inspect`.
func Dump(w io.Writer, f *File) error {
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	class := "static"
	if f.Class == ClassSkinned {
		class = "skinned"
	}
	p("msh7 class=%s\n", class)
	c := f.fileCounts()
	for i, n := range c {
		p("  %s=%d\n", countNames[i], n)
	}
	st := f.Stats()
	p("stats meshlets=%d triangles=%d localVertices=%d cones=%d refBytes=%d\n", st.Meshlets, st.Triangles, st.LocalVertices, st.Cones, st.RefBytes)
	p("positions %d\n", len(f.Positions))
	for i, v := range f.Positions {
		p("  p%d %s\n", i, fv(v[:]...))
	}
	for _, s := range []struct {
		name string
		hs   [][4]Half
	}{{"normals", f.Normals}, {"tangents", f.Tangents}} {
		p("%s %d\n", s.name, len(s.hs))
		for i, h := range s.hs {
			p("  %c%d %s\n", s.name[0], i, hv(h))
		}
	}
	p("uv0 %d\n", len(f.UV0))
	for i, v := range f.UV0 {
		p("  u%d %s\n", i, fv(v[:]...))
	}
	p("colors %d\n", len(f.Colors))
	for i, h := range f.Colors {
		p("  c%d %s\n", i, hv(h))
	}
	if f.Class == ClassSkinned {
		p("skin %d\n", len(f.Skin))
		for i, s := range f.Skin {
			p("  s%d joints=%v weights=%s\n", i, s.Joints, fv(s.Weights[:]...))
		}
		p("joints %d\n", len(f.Joints))
		for i, j := range f.Joints {
			p("  j%d parent=%d t=%s r=%s s=%s inverseBind=%s\n", i, j.Parent, fv(j.BindT[:]...), fv(j.BindR[:]...), fv(j.BindS[:]...), fv(j.InverseBind[:]...))
		}
		p("inverseBinds %d\n", len(f.InverseBinds))
		for i, m := range f.InverseBinds {
			p("  ib%d %s\n", i, fv(m[:]...))
		}
	}
	p("meshlets %d\n", len(f.Meshlets))
	for m, d := range f.Meshlets {
		p("  m%d vertices=%d+%d primitives=%d+%d positions=%d@%d attributes=%d@%d encoding=%#x\n", m,
			d.LocalVertexOffset, d.VertexCount(), d.PrimitiveOffset, d.PrimitiveCount(),
			d.PositionCount(), d.PositionRefOffset, d.AttributeCount(), d.AttributeRefOffset, d.Encoding)
		if m < len(f.Bounds) {
			b := f.Bounds[m]
			p("    sphere center=%s radius=%s cone=%#08x", fv(b.Center[:]...), fv(b.Radius), b.Cone)
			if a, cut, ok := DecodeCone(b.Cone); ok {
				p(" axis=[%.4f %.4f %.4f] cutoff=%d/255 (%.4f)", a[0], a[1], a[2], b.Cone>>16&255, cut)
			}
			p("\n")
		}
		refs, err := f.DecodeRefs(m)
		if err != nil {
			p("    refs: %v\n", err)
			continue
		}
		for _, ch := range []struct {
			c    Channel
			refs []uint32
		}{
			{ChanPosition, refs.Positions}, {ChanSkin, refs.Skin}, {ChanNormal, refs.Normals},
			{ChanTangent, refs.Tangents}, {ChanUV0, refs.UV0}, {ChanColor, refs.Colors},
		} {
			if ch.c == ChanSkin && f.Class != ClassSkinned {
				continue
			}
			p("    %s base=%d width=%d refs=%s\n", ch.c, d.Base(ch.c), WidthBytes(d.Width(ch.c)), uints(ch.refs))
		}
		end := uint64(d.LocalVertexOffset) + uint64(d.VertexCount())
		if end <= uint64(len(f.LocalVertices)) {
			var sb strings.Builder
			for i, l := range f.LocalVertices[d.LocalVertexOffset:end] {
				if i > 0 {
					sb.WriteByte(' ')
				}
				fmt.Fprintf(&sb, "%d/%d", l.Position, l.Attribute)
			}
			p("    local %s\n", sb.String())
		}
		pend := 3 * (uint64(d.PrimitiveOffset) + uint64(d.PrimitiveCount()))
		if pend <= uint64(len(f.Primitives)) {
			var sb strings.Builder
			for i, x := range f.Primitives[3*uint64(d.PrimitiveOffset) : pend] {
				if i > 0 {
					sb.WriteByte(' ')
					if i%3 == 0 {
						sb.WriteString("| ")
					}
				}
				sb.WriteString(strconv.Itoa(int(x)))
			}
			p("    triangles %s\n", sb.String())
		}
	}
	return bw.Flush()
}

// fv formats float32 values with the shortest representation that reads
// back exactly.
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

func hv(h [4]Half) string {
	return fv(h[0].Float32(), h[1].Float32(), h[2].Float32(), h[3].Float32())
}

func uints(xs []uint32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatUint(uint64(x), 10)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
