package cnb

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Dump writes a stable, human-readable text dump of every field of a world
// blob's metadata, one record per line, for golden files and `meshcook
// inspect --dump`. payloadLen is the blob's payload-section length (printed
// in the header line). Floats use strconv's shortest float32 form, so equal
// dumps mean bit-equal fields; byte arrays print as hex.
func Dump(w io.Writer, meta *BlobMeta, payloadLen int) error {
	if meta == nil {
		return invalid("", "nil metadata")
	}
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	p("cnb world schema=%d payloadBytes=%d\n", SchemaVersion, payloadLen)
	p("defs %d\n", len(meta.Defs))
	for i, d := range meta.Defs {
		name := "none"
		if d.Name != nil {
			name = strconv.FormatUint(uint64(*d.Name), 10)
		}
		p("  d%d name=%s kind=%d discriminant=%d args=%s payload=%s\n", i, name, d.Kind, d.Discriminant, hexBytes(d.Args), fmtLocator(d.Payload))
	}
	p("resources %d\n", len(meta.Resources))
	for i, r := range meta.Resources {
		p("  r%d %v#%d payload=%s data=%s\n", i, r.Kind, r.Handle, fmtLocator(r.Payload), hexBytes(r.Data))
	}
	p("manifest maxBlobIndex=%d counts=[", meta.Manifest.MaxBlobIndex)
	for i, c := range meta.Manifest.ComponentCounts {
		if i > 0 {
			p(" ")
		}
		p("%d:%d", c.Tag, c.Count)
	}
	p("]\n")
	p("sceneGroups %d\n", len(meta.SceneGroups))
	for i, g := range meta.SceneGroups {
		refs := make([]string, len(g.Resources))
		for j, r := range g.Resources {
			refs[j] = fmt.Sprintf("%v#%d", r.Kind, r.Handle)
		}
		p("  g%d scene=%d resources=[%s] defs=%v\n", i, g.Scene, strings.Join(refs, " "), g.Defs)
	}
	p("meshBounds %d\n", len(meta.MeshBounds))
	for _, b := range meta.MeshBounds {
		p("  mesh#%d min=%s max=%s vertices=%d indices=%d\n", b.Handle, fv(b.Min[:]), fv(b.Max[:]), b.VertexCount, b.IndexCount)
	}
	if pb := meta.PhysicsBudget; pb == nil {
		p("physicsBudget none\n")
	} else {
		p("physicsBudget fixed=%d dynamic=%d kinematic=%d sensors=%d joints=%d anchors=%d spawnHeadroom=%d\n",
			pb.Fixed, pb.Dynamic, pb.Kinematic, pb.Sensors, pb.Joints, pb.Anchors, pb.SpawnHeadroom)
	}
	return bw.Flush()
}

// DumpCache writes a text dump of a cache segment's metadata.
func DumpCache(w io.Writer, meta *CacheMeta, payloadLen int) error {
	if meta == nil {
		return invalid("", "nil metadata")
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "cnb cache version=%d payloadBytes=%d toolchain=%q\n", CacheSegmentVersion, payloadLen, meta.Toolchain)
	fmt.Fprintf(bw, "entries %d\n", len(meta.Entries))
	for i, e := range meta.Entries {
		fmt.Fprintf(bw, "  e%d %v key=%q at=%d+%d\n", i, e.Kind, e.Key, e.Offset, e.Len)
	}
	return bw.Flush()
}

// String returns the cache entry kind's name.
func (k CacheEntryKind) String() string {
	switch k {
	case CachePipeline:
		return "Pipeline"
	case CacheShader:
		return "Shader"
	case CachePayload:
		return "Payload"
	case CacheExpansion:
		return "Expansion"
	case CacheThumbnail:
		return "Thumbnail"
	}
	return fmt.Sprintf("CacheEntryKind(%d)", uint32(k))
}

func fmtLocator(p *PayloadLocator) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("blob%d@%d+%d", p.BlobIndex, p.Offset, p.Len)
}

func hexBytes(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	return fmt.Sprintf("%x", b)
}

func fv(xs []float32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	return "[" + strings.Join(s, " ") + "]"
}
