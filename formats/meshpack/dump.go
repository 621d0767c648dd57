package meshpack

import (
	"bufio"
	"fmt"
	"io"
)

// Dump prints every entry of p, vertex by vertex and range by range, as
// stable text (floats in Go's shortest round-trip form), for diffs of
// baked packs.
func Dump(w io.Writer, p *Pack) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "meshpack v%d %s entries %d\n", Version, p.Family, len(p.Entries))
	for ei := range p.Entries {
		e := &p.Entries[ei]
		fmt.Fprintf(bw, "entry %d %q vertices %d indices %d ranges %d\n", ei, e.Name, e.VertexCount(), len(e.Indices), len(e.Ranges))
		fmt.Fprintf(bw, "  bounds center %v radius %v\n", e.Bounds.Center, e.Bounds.Radius)
		for i, v := range e.Static {
			fmt.Fprintf(bw, "  v %d pos %v normal %v uv %v color %v material %v\n", i, v.Position, v.Normal, v.TexCoord, v.Color, v.Material)
		}
		for i, v := range e.Rigged {
			fmt.Fprintf(bw, "  v %d pos %v normal %v uv %v bones %v weights %v role %d\n", i, v.Position, v.Normal, v.TexCoord, v.BoneIndices, v.BoneWeights, v.ColorRole)
		}
		for i := 0; i+3 <= len(e.Indices); i += 3 {
			fmt.Fprintf(bw, "  t %d %v\n", i/3, e.Indices[i:i+3])
		}
		for i, r := range e.Ranges {
			fmt.Fprintf(bw, "  range %d first %d count %d\n", i, r.FirstIndex, r.IndexCount)
		}
	}
	return bw.Flush()
}
