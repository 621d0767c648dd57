package hmesh

import (
	"encoding/binary"
	"math"
	"strconv"
)

// The cluster-LOD chunks (optional, meshcook's addition, written by `cook
// --cluster-lod`; docs/formats/hmesh.md "Cluster LOD") hold a Nanite-style
// hierarchy per submesh. Level 0 is MLET: cluster i < meshletCount is
// meshlet i. They come all together or not at all:
//
//	CLHD  16 B              version u32 = 1, clusterCount, groupCount, nodeCount
//	CLSM  24 B × submeshes  firstGroup, groupCount, firstNode, nodeCount, levelCount, pad 0
//	CLUS  24 B × clusters   vertexOffset, vertexCount, triangleOffset, triangleCount
//	                        (into MLVR+CLVR and MLTR+CLTR as one range each),
//	                        group, refined (0xFFFFFFFF at level 0)
//	CLVR  u32[]             global vertex indices of coarse clusters
//	CLTR  u8×3[]            local triangles of coarse clusters
//	CLBN  32 B × clusters   MeshletBounds of every cluster
//	CLGR  32 B × groups     center f32×3, radius, error (+Inf: terminal),
//	                        firstMember, memberCount (CLGM), depth u16, flags u16
//	CLGM  u32[]             member cluster ids, group after group
//	CLND  32 B × nodes      center f32×3, radius, maxError, group i32 (-1:
//	                        internal), childOffset, childCount (CLND)

// Cluster-LOD chunk tags, in writer order.
const (
	ChunkCLHD FourCC = 'C' | 'L'<<8 | 'H'<<16 | 'D'<<24
	ChunkCLSM FourCC = 'C' | 'L'<<8 | 'S'<<16 | 'M'<<24
	ChunkCLUS FourCC = 'C' | 'L'<<8 | 'U'<<16 | 'S'<<24
	ChunkCLVR FourCC = 'C' | 'L'<<8 | 'V'<<16 | 'R'<<24
	ChunkCLTR FourCC = 'C' | 'L'<<8 | 'T'<<16 | 'R'<<24
	ChunkCLBN FourCC = 'C' | 'L'<<8 | 'B'<<16 | 'N'<<24
	ChunkCLGR FourCC = 'C' | 'L'<<8 | 'G'<<16 | 'R'<<24
	ChunkCLGM FourCC = 'C' | 'L'<<8 | 'G'<<16 | 'M'<<24
	ChunkCLND FourCC = 'C' | 'L'<<8 | 'N'<<16 | 'D'<<24
)

// clusterChunks lists the cluster-LOD chunks in writer order.
func clusterChunks() [9]FourCC {
	return [9]FourCC{ChunkCLHD, ChunkCLSM, ChunkCLUS, ChunkCLVR, ChunkCLTR, ChunkCLBN, ChunkCLGR, ChunkCLGM, ChunkCLND}
}

// Cluster-LOD record sizes and constants.
const (
	ClusterLODVersion    = 1
	ClusterHeaderSize    = 16
	ClusterSubmeshSize   = 24
	ClusterSize          = 24
	ClusterGroupSize     = 32
	ClusterNodeSize      = 32
	NoRefined            = 0xFFFFFFFF // Cluster.Refined at level 0
	GroupFlagStuck       = 1          // ClusterGroup.Flags bit 0
	clusterErrorRelSlack = 1e-6       // monotonic error and sphere slack
)

// ClusterLOD is the cluster-LOD chunk set. CLHD's counts are the slices'
// lengths.
type ClusterLOD struct {
	Submeshes []ClusterSubmesh // CLSM, one per SUBM row
	Clusters  []Cluster        // CLUS
	Vertices  []uint32         // CLVR
	Triangles []uint8          // CLTR
	Bounds    []MeshletBounds  // CLBN, one per cluster
	Groups    []ClusterGroup   // CLGR
	Members   []uint32         // CLGM
	Nodes     []ClusterNode    // CLND
}

// ClusterSubmesh is one submesh's groups, BVH nodes (its root is
// FirstNode) and level count.
type ClusterSubmesh struct {
	FirstGroup, GroupCount, FirstNode, NodeCount, LevelCount uint32
}

// Cluster is one CLUS row.
type Cluster struct {
	VertexOffset, VertexCount, TriangleOffset, TriangleCount uint32
	Group, Refined                                           uint32
}

// ClusterGroup is one CLGR row.
type ClusterGroup struct {
	Center                   [3]float32
	Radius, Error            float32
	FirstMember, MemberCount uint32
	Depth, Flags             uint16
}

// ClusterNode is one CLND row.
type ClusterNode struct {
	Center                  [3]float32
	Radius, MaxError        float32
	Group                   int32
	ChildOffset, ChildCount uint32
}

// sizes returns the payload sizes of the nine chunks, in writer order.
func (c *ClusterLOD) sizes() [9]uint64 {
	return [9]uint64{
		ClusterHeaderSize, ClusterSubmeshSize * uint64(len(c.Submeshes)), ClusterSize * uint64(len(c.Clusters)),
		4 * uint64(len(c.Vertices)), uint64(len(c.Triangles)), MeshletBoundsSize * uint64(len(c.Bounds)),
		ClusterGroupSize * uint64(len(c.Groups)), 4 * uint64(len(c.Members)), ClusterNodeSize * uint64(len(c.Nodes)),
	}
}

// append writes chunk k (clusterChunks order) of c.
func (c *ClusterLOD) append(b []byte, k int) []byte {
	switch k {
	case 0:
		return appendU32s(b, ClusterLODVersion, uint32(len(c.Clusters)), uint32(len(c.Groups)), uint32(len(c.Nodes)))
	case 1:
		for _, s := range c.Submeshes {
			b = appendU32s(b, s.FirstGroup, s.GroupCount, s.FirstNode, s.NodeCount, s.LevelCount, 0)
		}
	case 2:
		for _, x := range c.Clusters {
			b = appendU32s(b, x.VertexOffset, x.VertexCount, x.TriangleOffset, x.TriangleCount, x.Group, x.Refined)
		}
	case 3:
		b = appendU32s(b, c.Vertices...)
	case 4:
		b = append(b, c.Triangles...)
	case 5:
		for _, m := range c.Bounds {
			b = appendF32s(b, m.Center[:]...)
			b = appendF32s(b, m.Radius)
			b = appendF32s(b, m.ConeAxis[:]...)
			b = appendF32s(b, m.ConeCutoff)
		}
	case 6:
		for _, g := range c.Groups {
			b = appendF32s(b, g.Center[:]...)
			b = appendF32s(b, g.Radius, g.Error)
			b = appendU32s(b, g.FirstMember, g.MemberCount)
			b = binary.LittleEndian.AppendUint16(b, g.Depth)
			b = binary.LittleEndian.AppendUint16(b, g.Flags)
		}
	case 7:
		b = appendU32s(b, c.Members...)
	case 8:
		for _, n := range c.Nodes {
			b = appendF32s(b, n.Center[:]...)
			b = appendF32s(b, n.Radius, n.MaxError)
			b = appendU32s(b, uint32(n.Group), n.ChildOffset, n.ChildCount)
		}
	}
	return b
}

// decodeClusterLOD reads the nine chunks (all present, or none: nil).
// Every count is checked against its chunk's size before allocating.
func (d *decoder) decodeClusterLOD(submeshCount uint32) (*ClusterLOD, error) {
	present := 0
	for _, id := range clusterChunks() {
		if _, ok := d.chunks[id]; ok {
			present++
		}
	}
	if present == 0 {
		return nil, nil
	}
	if ids := clusterChunks(); present != len(ids) {
		for _, id := range ids {
			if _, ok := d.chunks[id]; !ok {
				return nil, errAt(-1, id, nil, "missing cluster-LOD chunk (CLHD, CLSM, CLUS, CLVR, CLTR, CLBN, CLGR, CLGM and CLND come together)")
			}
		}
	}
	hd, err := d.sized(ChunkCLHD, ClusterHeaderSize, "ClusterLodHeader")
	if err != nil {
		return nil, err
	}
	hdOff := int64(d.chunks[ChunkCLHD].offset)
	if v := binary.LittleEndian.Uint32(hd); v != ClusterLODVersion {
		return nil, errAt(hdOff, ChunkCLHD, nil, "unsupported cluster-LOD version %d, want %d", v, ClusterLODVersion)
	}
	cc := uint64(binary.LittleEndian.Uint32(hd[4:]))
	gc := uint64(binary.LittleEndian.Uint32(hd[8:]))
	nc := uint64(binary.LittleEndian.Uint32(hd[12:]))
	c := &ClusterLOD{}
	var p []byte
	if p, err = d.sized(ChunkCLSM, ClusterSubmeshSize*uint64(submeshCount), "submeshCount × 24"); err != nil {
		return nil, err
	}
	smOff := int64(d.chunks[ChunkCLSM].offset)
	c.Submeshes = make([]ClusterSubmesh, 0, submeshCount)
	for i := range int(submeshCount) {
		e := p[i*ClusterSubmeshSize:]
		if pad := binary.LittleEndian.Uint32(e[20:]); pad != 0 {
			return nil, errAt(smOff+int64(i*ClusterSubmeshSize)+20, ChunkCLSM, nil, "submesh %d: pad %d, want 0", i, pad)
		}
		c.Submeshes = append(c.Submeshes, ClusterSubmesh{
			binary.LittleEndian.Uint32(e), binary.LittleEndian.Uint32(e[4:]), binary.LittleEndian.Uint32(e[8:]),
			binary.LittleEndian.Uint32(e[12:]), binary.LittleEndian.Uint32(e[16:]),
		})
	}
	if p, err = d.sized(ChunkCLUS, ClusterSize*cc, "clusterCount × 24"); err != nil {
		return nil, err
	}
	c.Clusters = decodeArray(p, ClusterSize, func(e []byte) Cluster {
		u := func(k int) uint32 { return binary.LittleEndian.Uint32(e[4*k:]) }
		return Cluster{u(0), u(1), u(2), u(3), u(4), u(5)}
	})
	if p, err = d.multiple(ChunkCLVR, 4); err != nil {
		return nil, err
	}
	c.Vertices = decodeU32s(p)
	if p, err = d.multiple(ChunkCLTR, 3); err != nil {
		return nil, err
	}
	c.Triangles = append([]uint8(nil), p...)
	if p, err = d.sized(ChunkCLBN, MeshletBoundsSize*cc, "clusterCount × 32"); err != nil {
		return nil, err
	}
	c.Bounds = decodeArray(p, MeshletBoundsSize, func(e []byte) MeshletBounds {
		return MeshletBounds{Center: readF32x3(e), Radius: readF32(e[12:]), ConeAxis: readF32x3(e[16:]), ConeCutoff: readF32(e[28:])}
	})
	if p, err = d.sized(ChunkCLGR, ClusterGroupSize*gc, "groupCount × 32"); err != nil {
		return nil, err
	}
	c.Groups = decodeArray(p, ClusterGroupSize, func(e []byte) ClusterGroup {
		return ClusterGroup{
			Center: readF32x3(e), Radius: readF32(e[12:]), Error: readF32(e[16:]),
			FirstMember: binary.LittleEndian.Uint32(e[20:]), MemberCount: binary.LittleEndian.Uint32(e[24:]),
			Depth: binary.LittleEndian.Uint16(e[28:]), Flags: binary.LittleEndian.Uint16(e[30:]),
		}
	})
	if p, err = d.multiple(ChunkCLGM, 4); err != nil {
		return nil, err
	}
	c.Members = decodeU32s(p)
	if p, err = d.sized(ChunkCLND, ClusterNodeSize*nc, "nodeCount × 32"); err != nil {
		return nil, err
	}
	c.Nodes = decodeArray(p, ClusterNodeSize, func(e []byte) ClusterNode {
		return ClusterNode{
			Center: readF32x3(e), Radius: readF32(e[12:]), MaxError: readF32(e[16:]),
			Group:       int32(binary.LittleEndian.Uint32(e[20:])),
			ChildOffset: binary.LittleEndian.Uint32(e[24:]), ChildCount: binary.LittleEndian.Uint32(e[28:]),
		}
	})
	return c, nil
}

// errorValid reports whether e is a finite error >= 0 or, when inf is
// allowed, +Inf (a terminal group).
func errorValid(e float32, inf bool) bool {
	f := float64(e)
	return (f >= 0 && !math.IsInf(f, 0)) || (inf && math.IsInf(f, 1))
}

// dumpClusterLOD prints every field of the cluster-LOD chunks (Dump).
func dumpClusterLOD(p func(string, ...any), c *ClusterLOD) {
	p("clusterLod clusters=%d groups=%d nodes=%d\n", len(c.Clusters), len(c.Groups), len(c.Nodes))
	for s, x := range c.Submeshes {
		p("  s%d groups=%d+%d nodes=%d+%d levels=%d\n", s, x.FirstGroup, x.GroupCount, x.FirstNode, x.NodeCount, x.LevelCount)
	}
	for k, x := range c.Clusters {
		refined := "none"
		if x.Refined != NoRefined {
			refined = strconv.FormatUint(uint64(x.Refined), 10)
		}
		b := c.Bounds[k]
		p("  c%d vertices=%d+%d triangles=%d+%d group=%d refined=%s center=%s radius=%s axis=%s cutoff=%s\n", k,
			x.VertexOffset, x.VertexCount, x.TriangleOffset, x.TriangleCount, x.Group, refined,
			fv(b.Center[:]...), fv(b.Radius), fv(b.ConeAxis[:]...), fv(b.ConeCutoff))
	}
	p("clusterVertices %d\n", len(c.Vertices))
	for i := 0; i < len(c.Vertices); i += 16 {
		p("  @%d %s\n", i, joinUints(c.Vertices[i:min(i+16, len(c.Vertices))]))
	}
	p("clusterTriangles %d\n", len(c.Triangles)/3)
	for t := 0; t+2 < len(c.Triangles); t += 3 {
		p("  t%d %d %d %d\n", t/3, c.Triangles[t], c.Triangles[t+1], c.Triangles[t+2])
	}
	for g, x := range c.Groups {
		p("  g%d center=%s radius=%s error=%s members=%d+%d depth=%d flags=%#x\n", g,
			fv(x.Center[:]...), fv(x.Radius), fv(x.Error), x.FirstMember, x.MemberCount, x.Depth, x.Flags)
	}
	p("groupMembers %d\n", len(c.Members))
	for i := 0; i < len(c.Members); i += 16 {
		p("  @%d %s\n", i, joinUints(c.Members[i:min(i+16, len(c.Members))]))
	}
	for k, n := range c.Nodes {
		p("  n%d center=%s radius=%s maxError=%s group=%d children=%d+%d\n", k,
			fv(n.Center[:]...), fv(n.Radius), fv(n.MaxError), n.Group, n.ChildOffset, n.ChildCount)
	}
}
