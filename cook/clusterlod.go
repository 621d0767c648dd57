package cook

import (
	"context"

	"github.com/meshcook/meshcook/clusterlod"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

// This file builds the cluster hierarchy of each submesh (Options.ClusterLOD)
// and lays the hierarchies out as the .hmesh cluster-LOD chunks.

// buildClusterLOD builds one submesh's hierarchy over its meshlets, with
// the LOD options' attribute weights (generated normals unweighted, as
// buildLODs does), permissive and lock-border settings.
func buildClusterLOD(ctx context.Context, s *mesh.Submesh, pos [][3]float32, generatedNormals bool, r meshlet.Result, b []meshlet.Bounds, opts Options) (*clusterlod.Hierarchy, error) {
	o := opts.LOD
	co := clusterlod.DefaultOptions()
	co.Meshlet = opts.Meshlet
	co.Permissive = o.Permissive
	co.LockBorder = o.LockBorder
	var attrs simplify.Attributes
	if s.Normals != nil && !generatedNormals && o.NormalWeight > 0 {
		attrs.Normals = convert(s.Normals, func(v mesh.Vec3) [3]float32 { return v })
		co.Weights.Normal = o.NormalWeight
	}
	if s.UV0 != nil && o.UVWeight > 0 {
		attrs.UV0 = convert(s.UV0, func(v mesh.Vec2) [2]float32 { return v })
		co.Weights.UV = o.UVWeight
	}
	if s.Colors != nil && o.ColorWeight > 0 {
		attrs.Colors = convert(s.Colors, func(v mesh.Vec4) [4]float32 { return v })
		co.Weights.Color = o.ColorWeight
	}
	return clusterlod.Build(ctx, clusterlod.Input{Positions: pos, Attrs: attrs, Meshlets: r, Bounds: b}, co)
}

func convert[S, T any](src []S, fn func(S) T) []T {
	out := make([]T, len(src))
	for i, v := range src {
		out[i] = fn(v)
	}
	return out
}

// packClusterLOD fills f.ClusterLOD from the submeshes' hierarchies, after
// MLET/MLVR/MLTR/MLBN are packed: level-0 clusters are the meshlets, coarse
// clusters follow submesh after submesh, and every id (cluster, group,
// node) and vertex is offset to the file's numbering.
func packClusterLOD(f *hmesh.File, c *cooked, bases []uint32) {
	if len(c.clod) == 0 || c.clod[0] == nil {
		return
	}
	mc := uint32(len(f.Meshlets))
	cl := &hmesh.ClusterLOD{}
	coarse := 0
	for _, h := range c.clod {
		coarse += len(h.Coarse.Meshlets)
	}
	cl.Clusters = make([]hmesh.Cluster, mc, int(mc)+coarse)
	cl.Bounds = make([]hmesh.MeshletBounds, mc, int(mc)+coarse)
	copy(cl.Bounds, f.MeshletBounds)
	vbase := uint32(len(f.MeshletVertices))
	tbase := uint32(len(f.MeshletTriangles) / 3)
	next := mc // id of the next coarse cluster
	for i, h := range c.clod {
		sm := f.Submeshes[i]
		g0, n0 := uint32(len(cl.Groups)), uint32(len(cl.Nodes))
		clusterID := func(k uint32) uint32 {
			if k < sm.MeshletCount {
				return sm.FirstMeshlet + k
			}
			return next + k - sm.MeshletCount
		}
		for k, x := range h.Clusters {
			if uint32(k) < sm.MeshletCount {
				id := sm.FirstMeshlet + uint32(k)
				m := f.Meshlets[id]
				cl.Clusters[id] = hmesh.Cluster{VertexOffset: m.VertexOffset, VertexCount: m.VertexCount,
					TriangleOffset: m.TriangleOffset, TriangleCount: m.TriangleCount, Group: x.Group + g0, Refined: hmesh.NoRefined}
				continue
			}
			m := h.Coarse.Meshlets[uint32(k)-sm.MeshletCount]
			cl.Clusters = append(cl.Clusters, hmesh.Cluster{
				VertexOffset: m.VertexOffset + vbase + uint32(len(cl.Vertices)), VertexCount: m.VertexCount,
				TriangleOffset: m.TriangleOffset + tbase + uint32(len(cl.Triangles)/3), TriangleCount: m.TriangleCount,
				Group: x.Group + g0, Refined: x.Refined + g0,
			})
		}
		for _, b := range h.CoarseBounds {
			cl.Bounds = append(cl.Bounds, hmesh.MeshletBounds{Center: b.Center, Radius: b.Radius, ConeAxis: b.ConeAxis, ConeCutoff: b.ConeCutoff})
		}
		for _, v := range h.Coarse.Vertices {
			cl.Vertices = append(cl.Vertices, v+bases[i])
		}
		cl.Triangles = append(cl.Triangles, h.Coarse.Triangles...)
		m0 := uint32(len(cl.Members))
		for _, m := range h.Members {
			cl.Members = append(cl.Members, clusterID(m))
		}
		for _, g := range h.Groups {
			var flags uint16
			if g.Stuck {
				flags |= hmesh.GroupFlagStuck
			}
			cl.Groups = append(cl.Groups, hmesh.ClusterGroup{Center: g.Center, Radius: g.Radius, Error: g.Error,
				FirstMember: g.First + m0, MemberCount: g.Count, Depth: g.Depth, Flags: flags})
		}
		for _, n := range h.Nodes {
			node := hmesh.ClusterNode{Center: n.Center, Radius: n.Radius, MaxError: n.MaxError, Group: -1,
				ChildOffset: n.ChildOffset + n0, ChildCount: n.ChildCount}
			if n.Group >= 0 {
				node.Group = n.Group + int32(g0)
				node.ChildOffset = 0
			}
			cl.Nodes = append(cl.Nodes, node)
		}
		cl.Submeshes = append(cl.Submeshes, hmesh.ClusterSubmesh{FirstGroup: g0, GroupCount: uint32(len(h.Groups)),
			FirstNode: n0, NodeCount: uint32(len(h.Nodes)), LevelCount: uint32(h.Levels)})
		next += uint32(len(h.Coarse.Meshlets))
	}
	f.ClusterLOD = cl
}
