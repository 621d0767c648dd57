package hmesh

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/clusterlod"
	"github.com/meshcook/meshcook/meshlet"
)

// clodFile is a one-submesh sphere with a real hierarchy (meshlet and
// clusterlod builds, small limits so it has several levels).
func clodFile(t testing.TB) *File {
	t.Helper()
	m := sphereMesh(24, 48, 1, 32, 32)
	idx := m.subs[0]
	mo := meshlet.Options{MaxVertices: 32, MaxTriangles: 32, ConeWeight: 0.25}
	r, err := meshlet.Build(idx, m.pos, mo)
	require.NoError(t, err)
	mb := meshlet.ComputeAllBounds(r, m.pos)
	co := clusterlod.DefaultOptions()
	co.Meshlet = mo
	h, err := clusterlod.Build(context.Background(), clusterlod.Input{Positions: m.pos, Meshlets: r, Bounds: mb}, co)
	require.NoError(t, err)
	require.Greater(t, h.Levels, 2)

	f := &File{Materials: []uint64{1}}
	f.Desc.MeshletMaxVerts, f.Desc.MeshletMaxTris = 32, 32
	for _, p := range m.pos {
		f.Vertices = append(f.Vertices, Vertex{Position: p, Normal: EncodeNormal(p), Tangent: EncodeTangent([3]float32{-p[2], 0, p[0]}, false)})
	}
	f.Indices = idx
	all := make([]uint32, len(m.pos))
	for i := range all {
		all[i] = uint32(i)
	}
	f.Bounds = boundsOf(m.pos, all)
	f.Submeshes = []SubMesh{{IndexCount: uint32(len(idx)), MeshletCount: uint32(len(r.Meshlets)), Bounds: f.Bounds}}
	for _, x := range r.Meshlets {
		f.Meshlets = append(f.Meshlets, Meshlet{x.VertexOffset, x.VertexCount, x.TriangleOffset, x.TriangleCount})
	}
	f.MeshletVertices, f.MeshletTriangles = r.Vertices, r.Triangles
	toBounds := func(b meshlet.Bounds) MeshletBounds {
		return MeshletBounds{Center: b.Center, Radius: b.Radius, ConeAxis: b.ConeAxis, ConeCutoff: b.ConeCutoff}
	}
	for _, b := range mb {
		f.MeshletBounds = append(f.MeshletBounds, toBounds(b))
	}
	c := &ClusterLOD{Vertices: h.Coarse.Vertices, Triangles: h.Coarse.Triangles, Members: h.Members}
	mv, mt := uint32(len(r.Vertices)), uint32(len(r.Triangles)/3)
	for k, x := range h.Clusters {
		row := Cluster{Group: x.Group, Refined: x.Refined}
		if k < len(r.Meshlets) {
			ml := r.Meshlets[k]
			row.VertexOffset, row.VertexCount, row.TriangleOffset, row.TriangleCount = ml.VertexOffset, ml.VertexCount, ml.TriangleOffset, ml.TriangleCount
			c.Bounds = append(c.Bounds, toBounds(mb[k]))
		} else {
			ml := h.Coarse.Meshlets[k-len(r.Meshlets)]
			row.VertexOffset, row.VertexCount, row.TriangleOffset, row.TriangleCount = ml.VertexOffset+mv, ml.VertexCount, ml.TriangleOffset+mt, ml.TriangleCount
			c.Bounds = append(c.Bounds, toBounds(h.CoarseBounds[k-len(r.Meshlets)]))
		}
		c.Clusters = append(c.Clusters, row)
	}
	for _, g := range h.Groups {
		var fl uint16
		if g.Stuck {
			fl = GroupFlagStuck
		}
		c.Groups = append(c.Groups, ClusterGroup{g.Center, g.Radius, g.Error, g.First, g.Count, g.Depth, fl})
	}
	for _, n := range h.Nodes {
		c.Nodes = append(c.Nodes, ClusterNode{n.Center, n.Radius, n.MaxError, n.Group, n.ChildOffset, n.ChildCount})
	}
	c.Submeshes = []ClusterSubmesh{{GroupCount: uint32(len(c.Groups)), NodeCount: uint32(len(c.Nodes)), LevelCount: uint32(h.Levels)}}
	f.ClusterLOD = c
	f.SyncDesc()
	require.NoError(t, Validate(f))
	return f
}

// The chunks round-trip, re-encode byte-identically, come after the base
// chunks without changing them, and the independent checker (which skips
// unknown chunks) still accepts the file.
func TestClusterLODRoundTrip(t *testing.T) {
	f := clodFile(t)
	b := mustEncode(t, f)
	g, err := Decode(b)
	require.NoError(t, err)
	require.Empty(t, g.Unknown)
	require.Equal(t, f.ClusterLOD, g.ClusterLOD)
	require.Equal(t, b, mustEncode(t, g))

	base := *f
	base.ClusterLOD = nil
	bb := mustEncode(t, &base)
	n := binary.LittleEndian.Uint32(b[8:])
	require.EqualValues(t, binary.LittleEndian.Uint32(bb[8:])+9, n)
	// The base chunks' payloads are unchanged.
	for i := range int(binary.LittleEndian.Uint32(bb[8:])) {
		e, eb := b[32+24*i:], bb[32+24*i:]
		require.Equal(t, binary.LittleEndian.Uint32(eb), binary.LittleEndian.Uint32(e))
		o, s := binary.LittleEndian.Uint64(e[8:]), binary.LittleEndian.Uint64(e[16:])
		ob := binary.LittleEndian.Uint64(eb[8:])
		require.True(t, bytes.Equal(bb[ob:ob+s], b[o:o+s]))
	}
	names := []string{}
	for i := range int(n) {
		names = append(names, FourCC(binary.LittleEndian.Uint32(b[32+24*i:])).String())
	}
	require.Equal(t, []string{"CLHD", "CLSM", "CLUS", "CLVR", "CLTR", "CLBN", "CLGR", "CLGM", "CLND"}, names[len(names)-9:])
	meshcheck(t, "clod.hmesh", b)
}

// Validate rejects each broken invariant of each chunk.
func TestClusterLODValidateRejects(t *testing.T) {
	f0 := clodFile(t)
	c0 := f0.ClusterLOD
	mc := len(f0.Meshlets)
	coarse := mc // first coarse cluster
	lastG := len(c0.Groups) - 1
	// a group some coarse cluster refines, and that cluster's group
	refG, upG := c0.Clusters[coarse].Refined, c0.Clusters[coarse].Group
	leaf := -1
	for k, n := range c0.Nodes {
		if n.Group >= 0 {
			leaf = k
			break
		}
	}
	inf := float32(math.Inf(1))
	cases := []struct {
		name, want string
		edit       func(c *ClusterLOD)
	}{
		{"CLSM rows", "rows for", func(c *ClusterLOD) { c.Submeshes = append(c.Submeshes, ClusterSubmesh{}) }},
		{"CLSM levels", "levelCount", func(c *ClusterLOD) { c.Submeshes[0].LevelCount++ }},
		{"CLSM groups", "tile CLGR", func(c *ClusterLOD) { c.Submeshes[0].FirstGroup = 1 }},
		{"CLSM nodes", "past CLND", func(c *ClusterLOD) { c.Submeshes[0].NodeCount++ }},
		{"CLUS level 0 range", "differ from MLET", func(c *ClusterLOD) { c.Clusters[0].TriangleCount-- }},
		{"CLUS level 0 refined", "level-0 cluster refined", func(c *ClusterLOD) { c.Clusters[1].Refined = 0 }},
		{"CLUS group range", "not < groupCount", func(c *ClusterLOD) { c.Clusters[2].Group = uint32(len(c.Groups)) }},
		{"CLUS refined range", "refined group", func(c *ClusterLOD) { c.Clusters[coarse].Refined = uint32(len(c.Groups)) }},
		{"CLUS coarse in MLVR", "outside CLVR", func(c *ClusterLOD) { c.Clusters[coarse].VertexOffset = 0 }},
		{"CLUS coarse tris", "outside CLTR", func(c *ClusterLOD) { c.Clusters[coarse].TriangleOffset += 1 << 20 }},
		{"CLUS limit", "vertices, want 1..", func(c *ClusterLOD) { c.Clusters[coarse].VertexCount = 33 }},
		{"CLVR range", "not < vertexCount", func(c *ClusterLOD) { c.Vertices[0] = uint32(len(f0.Vertices)) }},
		{"CLTR local", "local index", func(c *ClusterLOD) { c.Triangles[0] = 31 }},
		{"CLTR size", "whole number", func(c *ClusterLOD) { c.Triangles = c.Triangles[:len(c.Triangles)-1] }},
		{"CLBN level 0", "differ from MLBN", func(c *ClusterLOD) { c.Bounds[0].Radius *= 2 }},
		{"CLBN sphere", "outside its bounding sphere", func(c *ClusterLOD) { c.Bounds[coarse].Radius /= 2 }},
		{"CLBN finite", "not finite", func(c *ClusterLOD) { c.Bounds[coarse].Center[0] = float32(math.NaN()) }},
		{"CLBN count", "bounds for", func(c *ClusterLOD) { c.Bounds = c.Bounds[:len(c.Bounds)-1] }},
		{"CLGR finite", "sphere not finite", func(c *ClusterLOD) { c.Groups[0].Radius = float32(math.NaN()) }},
		{"CLGR error NaN", "error NaN", func(c *ClusterLOD) { c.Groups[0].Error = float32(math.NaN()) }},
		{"CLGR error negative", "want finite >= 0", func(c *ClusterLOD) { c.Groups[0].Error = -1 }},
		{"CLGR flags", "unknown flags", func(c *ClusterLOD) { c.Groups[0].Flags = 2 }},
		{"CLGR stuck finite", "stuck but", func(c *ClusterLOD) { c.Groups[0].Flags = GroupFlagStuck }},
		{"CLGR tiling", "groups tile CLGM", func(c *ClusterLOD) { c.Groups[1].FirstMember++ }},
		{"CLGR empty", "no members", func(c *ClusterLOD) { c.Groups[0].MemberCount = 0 }},
		{"CLGR monotonic error", "below the error", func(c *ClusterLOD) { c.Groups[upG].Error = c.Groups[refG].Error / 2 }},
		{"CLGR containment", "does not contain the sphere", func(c *ClusterLOD) { c.Groups[upG].Radius = c.Groups[refG].Radius / 2 }},
		{"CLGR depth", "want one less", func(c *ClusterLOD) { c.Groups[upG].Depth += 1 }},
		{"CLGR terminal refined", "refined from terminal", func(c *ClusterLOD) { c.Groups[refG].Error = inf }},
		{"CLGR finite top", "no cluster is simplified from it", func(c *ClusterLOD) { c.Groups[lastG].Error = 1e9 }},
		{"CLGM twice", "member twice", func(c *ClusterLOD) { c.Members[1] = c.Members[0] }},
		{"CLGM wrong group", "says it is in group", func(c *ClusterLOD) { c.Clusters[c.Members[0]].Group = uint32(lastG) }},
		{"CLGM range", "not < clusterCount", func(c *ClusterLOD) { c.Members[0] = uint32(len(c.Clusters)) }},
		{"CLND leaf children", "a leaf with", func(c *ClusterLOD) { c.Nodes[leaf].ChildCount = 1 }},
		{"CLND leaf group twice", "second leaf", func(c *ClusterLOD) { c.Nodes[leaf+1].Group = c.Nodes[leaf].Group }},
		{"CLND containment", "does not contain", func(c *ClusterLOD) { c.Nodes[0].Radius /= 2 }},
		{"CLND max error", "does not contain", func(c *ClusterLOD) { c.Nodes[0].MaxError = 0 }},
		{"CLND backwards", "not after it", func(c *ClusterLOD) { c.Nodes[len(c.Nodes)-1] = ClusterNode{Group: -1, ChildOffset: 0, ChildCount: 1} }},
		{"CLND bad group", "want -1 or a group", func(c *ClusterLOD) { c.Nodes[0].Group = -2 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := *f0
			c := deepCopyCLOD(c0)
			tc.edit(c)
			f.ClusterLOD = c
			err := Validate(&f)
			require.Error(t, err)
			require.ErrorIs(t, err, ErrFormat)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func deepCopyCLOD(c *ClusterLOD) *ClusterLOD {
	return &ClusterLOD{
		Submeshes: append([]ClusterSubmesh(nil), c.Submeshes...),
		Clusters:  append([]Cluster(nil), c.Clusters...),
		Vertices:  append([]uint32(nil), c.Vertices...),
		Triangles: append([]uint8(nil), c.Triangles...),
		Bounds:    append([]MeshletBounds(nil), c.Bounds...),
		Groups:    append([]ClusterGroup(nil), c.Groups...),
		Members:   append([]uint32(nil), c.Members...),
		Nodes:     append([]ClusterNode(nil), c.Nodes...),
	}
}

// Byte-level errors: the header's version, a missing chunk, CLSM's pad,
// chunk sizes that do not match CLHD's counts; each with its offset.
func TestClusterLODDecodeRejects(t *testing.T) {
	b := mustEncode(t, clodFile(t))
	n := int(binary.LittleEndian.Uint32(b[8:]))
	find := func(id string) (entry, off int) {
		for i := range n {
			e := 32 + 24*i
			if FourCC(binary.LittleEndian.Uint32(b[e:])).String() == id {
				return e, int(binary.LittleEndian.Uint64(b[e+8:]))
			}
		}
		t.Fatalf("no %s", id)
		return 0, 0
	}
	cases := []struct {
		name, want string
		edit       func(b []byte) []byte
	}{
		{"version", "unsupported cluster-LOD version 2", func(b []byte) []byte {
			_, o := find("CLHD")
			binary.LittleEndian.PutUint32(b[o:], 2)
			return b
		}},
		{"missing", "missing cluster-LOD chunk", func(b []byte) []byte {
			e, _ := find("CLGM")
			copy(b[e:], "ZZZZ")
			return b
		}},
		{"pad", "pad 7", func(b []byte) []byte {
			_, o := find("CLSM")
			binary.LittleEndian.PutUint32(b[o+20:], 7)
			return b
		}},
		{"count", "clusterCount × 24", func(b []byte) []byte {
			_, o := find("CLHD")
			binary.LittleEndian.PutUint32(b[o+4:], binary.LittleEndian.Uint32(b[o+4:])+1)
			return b
		}},
		{"node count", "nodeCount × 32", func(b []byte) []byte {
			_, o := find("CLHD")
			binary.LittleEndian.PutUint32(b[o+12:], 1<<30)
			return b
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.edit(bytes.Clone(b)))
			require.ErrorIs(t, err, ErrFormat)
			require.Contains(t, err.Error(), tc.want)
			var fe *FormatError
			require.ErrorAs(t, err, &fe)
		})
	}
}

// triCLOD is triFile with a two-level hierarchy: the meshlet in group 0
// (error 0.25), one coarse cluster (the same triangle through CLVR/CLTR)
// simplified from it in terminal group 1, and a root over two leaves.
func triCLOD() *File {
	f := triFile()
	mb := f.MeshletBounds[0]
	c := [3]float32{0.5, 0.5, 0}
	inf := float32(math.Inf(1))
	f.ClusterLOD = &ClusterLOD{
		Submeshes: []ClusterSubmesh{{FirstGroup: 0, GroupCount: 2, FirstNode: 0, NodeCount: 3, LevelCount: 2}},
		Clusters:  []Cluster{{0, 3, 0, 1, 0, NoRefined}, {3, 3, 1, 1, 1, 0}},
		Vertices:  []uint32{0, 1, 2},
		Triangles: []uint8{0, 1, 2},
		Bounds:    []MeshletBounds{mb, mb},
		Groups:    []ClusterGroup{{c, mb.Radius, 0.25, 0, 1, 0, 0}, {c, 0.75, inf, 1, 1, 1, 0}},
		Members:   []uint32{0, 1},
		Nodes: []ClusterNode{
			{c, 0.75, inf, -1, 1, 2},
			{c, mb.Radius, 0.25, 0, 0, 0},
			{c, 0.75, inf, 1, 0, 0},
		},
	}
	return f
}

// Why: every byte of the nine chunks is pinned by hand against
// spec/formats.md "cluster-LOD chunks"; they follow MRPH's place, after
// the ten base chunks, in writer order.
func TestClusterLODChunkBytes(t *testing.T) {
	b := mustEncode(t, triCLOD())
	le := binary.LittleEndian
	chunk := func(id string) string {
		at := payloadAt(t, b, id)
		return hex.EncodeToString(b[at : at+int(le.Uint64(b[entryAt(t, b, id)+16:]))])
	}
	half, rad, r75, quarter, inf := "0000003f", "f304353f", "0000403f", "0000803e", "0000807f"
	center := half + half + "00000000"
	bounds := center + rad + "00000000" + "00000000" + "0000803f" + "00000000"
	want := map[string]string{
		"CLHD": "01000000" + "02000000" + "02000000" + "03000000",
		"CLSM": "00000000" + "02000000" + "00000000" + "03000000" + "02000000" + "00000000",
		"CLUS": "00000000" + "03000000" + "00000000" + "01000000" + "00000000" + "ffffffff" +
			"03000000" + "03000000" + "01000000" + "01000000" + "01000000" + "00000000",
		"CLVR": "00000000" + "01000000" + "02000000",
		"CLTR": "000102",
		"CLBN": bounds + bounds,
		"CLGR": center + rad + quarter + "00000000" + "01000000" + "0000" + "0000" +
			center + r75 + inf + "01000000" + "01000000" + "0100" + "0000",
		"CLGM": "00000000" + "01000000",
		"CLND": center + r75 + inf + "ffffffff" + "01000000" + "02000000" +
			center + rad + quarter + "00000000" + "00000000" + "00000000" +
			center + r75 + inf + "01000000" + "00000000" + "00000000",
	}
	for id, w := range want {
		require.Equal(t, w, chunk(id), id)
	}
	for k, id := range []string{"CLHD", "CLSM", "CLUS", "CLVR", "CLTR", "CLBN", "CLGR", "CLGM", "CLND"} {
		e := HeaderSize + ChunkEntrySize*(10+k)
		require.Equal(t, id, string(b[e:e+4]))
	}
	var sb stringsBuilder
	g, err := Decode(b)
	require.NoError(t, err)
	require.NoError(t, Dump(&sb, g))
	require.Contains(t, sb.String(), "clusterLod clusters=2 groups=2 nodes=3\n  s0 groups=0+2 nodes=0+3 levels=2\n  c0 vertices=0+3 triangles=0+1 group=0 refined=none")
	require.Contains(t, sb.String(), "  g1 center=[0.5 0.5 0] radius=0.75 error=+Inf members=1+1 depth=1 flags=0x0\n")
	meshcheck(t, "triclod.hmesh", b)
}
