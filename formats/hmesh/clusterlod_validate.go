package hmesh

import (
	"math"
)

// clusterLOD checks the cluster-LOD chunks: counts against DESC and SUBM,
// level-0 clusters equal to MLET/MLBN, coarse cluster ranges, limits, local
// indices and bounds, groups tiling CLGM with every cluster in exactly one
// group, depth links, monotonic error and sphere containment from every
// refined group to the group of each cluster simplified from it, terminal
// groups exactly those nothing refines, submesh ranges tiling CLGR and
// CLND, and every BVH node containing its children (one leaf per group,
// one parent per non-root node, children after their parent).
func (v *validator) clusterLOD() error {
	c := v.f.ClusterLOD
	if c == nil {
		return nil
	}
	for _, step := range []func(*ClusterLOD) error{v.clusterRows, v.clusterGroups, v.clusterDAG, v.clusterSubmeshes, v.clusterNodes} {
		if err := step(c); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) clusterRows(c *ClusterLOD) error {
	f := v.f
	mc := len(f.Meshlets)
	switch {
	case len(c.Submeshes) != len(f.Submeshes):
		return v.errf(ChunkCLSM, 0, "%d rows for %d submeshes", len(c.Submeshes), len(f.Submeshes))
	case len(c.Clusters) < mc:
		return v.errf(ChunkCLUS, 0, "%d clusters, fewer than the %d meshlets of level 0", len(c.Clusters), mc)
	case len(c.Bounds) != len(c.Clusters):
		return v.errf(ChunkCLBN, 0, "%d bounds for %d clusters", len(c.Bounds), len(c.Clusters))
	case len(c.Triangles)%3 != 0:
		return v.errf(ChunkCLTR, 0, "%d bytes is not a whole number of triangles", len(c.Triangles))
	}
	for _, n := range []int{len(c.Clusters), len(c.Groups), len(c.Nodes), len(c.Members), len(f.MeshletVertices) + len(c.Vertices), len(f.MeshletTriangles)/3 + len(c.Triangles)/3} {
		if uint64(n) >= math.MaxUint32 {
			return v.errf(ChunkCLHD, 0, "%d entries, more than a u32 can count", n)
		}
	}
	vc := uint32(len(f.Vertices))
	for i, x := range c.Vertices {
		if x >= vc {
			return v.errf(ChunkCLVR, 4*int64(i), "entry %d is %d, not < vertexCount %d", i, x, vc)
		}
	}
	mv, mt := uint64(len(f.MeshletVertices)), uint64(len(f.MeshletTriangles)/3)
	nv, nt := mv+uint64(len(c.Vertices)), mt+uint64(len(c.Triangles)/3)
	maxV, maxT := f.Desc.MeshletMaxVerts, f.Desc.MeshletMaxTris
	ng := uint32(len(c.Groups))
	for i, cl := range c.Clusters {
		rel := int64(i) * ClusterSize
		if cl.Group >= ng {
			return v.errf(ChunkCLUS, rel+16, "cluster %d: group %d, not < groupCount %d", i, cl.Group, ng)
		}
		if i < mc {
			m := f.Meshlets[i]
			switch {
			case cl.VertexOffset != m.VertexOffset || cl.VertexCount != m.VertexCount || cl.TriangleOffset != m.TriangleOffset || cl.TriangleCount != m.TriangleCount:
				return v.errf(ChunkCLUS, rel, "cluster %d: ranges differ from MLET meshlet %d", i, i)
			case cl.Refined != NoRefined:
				return v.errf(ChunkCLUS, rel+20, "cluster %d: level-0 cluster refined from group %d, want 0xFFFFFFFF", i, cl.Refined)
			case !sameBits(c.Bounds[i], f.MeshletBounds[i]):
				return v.errf(ChunkCLBN, int64(i)*MeshletBoundsSize, "cluster %d: bounds differ from MLBN meshlet %d", i, i)
			}
			continue
		}
		switch {
		case cl.Refined >= ng:
			return v.errf(ChunkCLUS, rel+20, "cluster %d: refined group %d, not < groupCount %d", i, cl.Refined, ng)
		case cl.VertexCount < 1 || cl.VertexCount > maxV:
			return v.errf(ChunkCLUS, rel+4, "cluster %d: %d vertices, want 1..%d", i, cl.VertexCount, maxV)
		case cl.TriangleCount < 1 || cl.TriangleCount > maxT:
			return v.errf(ChunkCLUS, rel+12, "cluster %d: %d triangles, want 1..%d", i, cl.TriangleCount, maxT)
		case uint64(cl.VertexOffset) < mv || uint64(cl.VertexOffset)+uint64(cl.VertexCount) > nv:
			return v.errf(ChunkCLUS, rel, "cluster %d: vertex range [%d, +%d) outside CLVR [%d, %d)", i, cl.VertexOffset, cl.VertexCount, mv, nv)
		case uint64(cl.TriangleOffset) < mt || uint64(cl.TriangleOffset)+uint64(cl.TriangleCount) > nt:
			return v.errf(ChunkCLUS, rel+8, "cluster %d: triangle range [%d, +%d) outside CLTR [%d, %d)", i, cl.TriangleOffset, cl.TriangleCount, mt, nt)
		}
		verts := c.Vertices[uint64(cl.VertexOffset)-mv : uint64(cl.VertexOffset)-mv+uint64(cl.VertexCount)]
		t0 := 3 * (uint64(cl.TriangleOffset) - mt)
		tris := c.Triangles[t0 : t0+3*uint64(cl.TriangleCount)]
		for j, l := range tris {
			if uint32(l) >= cl.VertexCount {
				return v.errf(ChunkCLTR, int64(t0)+int64(j), "cluster %d: local index %d not < its vertexCount %d", i, l, cl.VertexCount)
			}
		}
		if err := v.clusterBounds(ChunkCLBN, int64(i)*MeshletBoundsSize, "cluster", i, c.Bounds[i], verts, tris); err != nil {
			return err
		}
	}
	return nil
}

// sameBits compares bounds bit for bit (NaN-free data compares with ==;
// this keeps -0/+0 and equal NaNs from mattering either way).
func sameBits(a, b MeshletBounds) bool {
	x := [8]float32{a.Center[0], a.Center[1], a.Center[2], a.Radius, a.ConeAxis[0], a.ConeAxis[1], a.ConeAxis[2], a.ConeCutoff}
	y := [8]float32{b.Center[0], b.Center[1], b.Center[2], b.Radius, b.ConeAxis[0], b.ConeAxis[1], b.ConeAxis[2], b.ConeCutoff}
	for k := range x {
		if math.Float32bits(x[k]) != math.Float32bits(y[k]) {
			return false
		}
	}
	return true
}

func (v *validator) clusterGroups(c *ClusterLOD) error {
	seen := make([]bool, len(c.Clusters))
	next := uint64(0)
	for g, gr := range c.Groups {
		rel := int64(g) * ClusterGroupSize
		switch {
		case !finite(gr.Center[:]...) || !finite(gr.Radius) || gr.Radius < 0:
			return v.errf(ChunkCLGR, rel, "group %d: sphere not finite or negative radius", g)
		case !errorValid(gr.Error, true):
			return v.errf(ChunkCLGR, rel+16, "group %d: error %v, want finite >= 0 or +Inf", g, gr.Error)
		case gr.Flags&^GroupFlagStuck != 0:
			return v.errf(ChunkCLGR, rel+30, "group %d: unknown flags %#x", g, gr.Flags)
		case gr.Flags&GroupFlagStuck != 0 && !math.IsInf(float64(gr.Error), 1):
			return v.errf(ChunkCLGR, rel+16, "group %d: stuck but its error %v is not terminal (+Inf)", g, gr.Error)
		case gr.MemberCount < 1:
			return v.errf(ChunkCLGR, rel+24, "group %d: no members", g)
		case uint64(gr.FirstMember) != next:
			return v.errf(ChunkCLGR, rel+20, "group %d: firstMember %d, want %d (groups tile CLGM in order)", g, gr.FirstMember, next)
		case next+uint64(gr.MemberCount) > uint64(len(c.Members)):
			return v.errf(ChunkCLGR, rel+24, "group %d: members [%d, +%d) past CLGM (%d entries)", g, gr.FirstMember, gr.MemberCount, len(c.Members))
		}
		for k := next; k < next+uint64(gr.MemberCount); k++ {
			m := c.Members[k]
			switch {
			case int(m) >= len(c.Clusters):
				return v.errf(ChunkCLGM, 4*int64(k), "group %d: member %d not < clusterCount %d", g, m, len(c.Clusters))
			case seen[m]:
				return v.errf(ChunkCLGM, 4*int64(k), "group %d: cluster %d is a member twice", g, m)
			case c.Clusters[m].Group != uint32(g):
				return v.errf(ChunkCLGM, 4*int64(k), "group %d: member cluster %d says it is in group %d", g, m, c.Clusters[m].Group)
			}
			seen[m] = true
		}
		next += uint64(gr.MemberCount)
	}
	if next != uint64(len(c.Members)) {
		return v.errf(ChunkCLGM, 4*int64(next), "%d entries, groups use %d", len(c.Members), next)
	}
	for i, ok := range seen {
		if !ok {
			return v.errf(ChunkCLUS, int64(i)*ClusterSize+16, "cluster %d is in no group's members", i)
		}
	}
	return nil
}

// sphereInside reports whether sphere (ic, ir) lies in (oc, or) within
// the cluster-LOD float slack.
func sphereInside(ic [3]float32, ir float32, oc [3]float32, or float32) bool {
	return dist(ic, oc)+float64(ir) <= float64(or)*(1+clusterErrorRelSlack)+clusterErrorRelSlack*float64(ir)
}

func errorAtMost(inner, outer float32) bool {
	return float64(inner) <= float64(outer)*(1+clusterErrorRelSlack)
}

func (v *validator) clusterDAG(c *ClusterLOD) error {
	mc := len(v.f.Meshlets)
	refinedBy := make([]bool, len(c.Groups))
	for i, cl := range c.Clusters {
		rel := int64(i) * ClusterSize
		g := c.Groups[cl.Group]
		if i < mc {
			if g.Depth != 0 {
				return v.errf(ChunkCLUS, rel+16, "cluster %d: level-0 cluster in group %d of depth %d", i, cl.Group, g.Depth)
			}
			continue
		}
		r := c.Groups[cl.Refined]
		refinedBy[cl.Refined] = true
		switch {
		case uint32(r.Depth)+1 != uint32(g.Depth):
			return v.errf(ChunkCLUS, rel+20, "cluster %d: refined group %d has depth %d, its group %d depth %d (want one less)", i, cl.Refined, r.Depth, cl.Group, g.Depth)
		case math.IsInf(float64(r.Error), 1):
			return v.errf(ChunkCLUS, rel+20, "cluster %d: refined from terminal group %d", i, cl.Refined)
		case !errorAtMost(r.Error, g.Error):
			return v.errf(ChunkCLGR, int64(cl.Group)*ClusterGroupSize+16, "group %d: error %v below the error %v of group %d it refines (cluster %d)", cl.Group, g.Error, r.Error, cl.Refined, i)
		case !sphereInside(r.Center, r.Radius, g.Center, g.Radius):
			return v.errf(ChunkCLGR, int64(cl.Group)*ClusterGroupSize, "group %d: sphere does not contain the sphere of group %d it refines (cluster %d)", cl.Group, cl.Refined, i)
		}
	}
	for g, gr := range c.Groups {
		inf := math.IsInf(float64(gr.Error), 1)
		if inf == refinedBy[g] {
			if inf {
				return v.errf(ChunkCLGR, int64(g)*ClusterGroupSize+16, "group %d: terminal (+Inf) but clusters are simplified from it", g)
			}
			return v.errf(ChunkCLGR, int64(g)*ClusterGroupSize+16, "group %d: error %v but no cluster is simplified from it (want +Inf)", g, gr.Error)
		}
	}
	return nil
}

func (v *validator) clusterSubmeshes(c *ClusterLOD) error {
	f := v.f
	var nextG, nextN uint64
	for s, sm := range c.Submeshes {
		rel := int64(s) * ClusterSubmeshSize
		switch {
		case uint64(sm.FirstGroup) != nextG:
			return v.errf(ChunkCLSM, rel, "submesh %d: firstGroup %d, want %d (submeshes tile CLGR in order)", s, sm.FirstGroup, nextG)
		case nextG+uint64(sm.GroupCount) > uint64(len(c.Groups)):
			return v.errf(ChunkCLSM, rel+4, "submesh %d: groups [%d, +%d) past CLGR (%d)", s, sm.FirstGroup, sm.GroupCount, len(c.Groups))
		case uint64(sm.FirstNode) != nextN:
			return v.errf(ChunkCLSM, rel+8, "submesh %d: firstNode %d, want %d (submeshes tile CLND in order)", s, sm.FirstNode, nextN)
		case nextN+uint64(sm.NodeCount) > uint64(len(c.Nodes)):
			return v.errf(ChunkCLSM, rel+12, "submesh %d: nodes [%d, +%d) past CLND (%d)", s, sm.FirstNode, sm.NodeCount, len(c.Nodes))
		case (sm.GroupCount == 0) != (sm.NodeCount == 0):
			return v.errf(ChunkCLSM, rel+12, "submesh %d: %d groups but %d nodes", s, sm.GroupCount, sm.NodeCount)
		}
		nextG += uint64(sm.GroupCount)
		nextN += uint64(sm.NodeCount)
		lo, hi := sm.FirstGroup, sm.FirstGroup+sm.GroupCount
		ml, mh := f.Submeshes[s].FirstMeshlet, f.Submeshes[s].FirstMeshlet+f.Submeshes[s].MeshletCount
		levels := uint32(0)
		for g := lo; g < hi; g++ {
			gr := c.Groups[g]
			levels = max(levels, uint32(gr.Depth)+1)
			for _, m := range c.Members[gr.FirstMember : gr.FirstMember+gr.MemberCount] {
				cl := c.Clusters[m]
				if int(m) < len(f.Meshlets) && (m < ml || m >= mh) || int(m) >= len(f.Meshlets) && (cl.Refined < lo || cl.Refined >= hi) {
					return v.errf(ChunkCLGR, int64(g)*ClusterGroupSize, "group %d of submesh %d: member cluster %d belongs to another submesh", g, s, m)
				}
			}
		}
		if sm.LevelCount != levels {
			return v.errf(ChunkCLSM, rel+16, "submesh %d: levelCount %d, its groups have %d levels", s, sm.LevelCount, levels)
		}
	}
	if nextG != uint64(len(c.Groups)) || nextN != uint64(len(c.Nodes)) {
		return v.errf(ChunkCLSM, 0, "submeshes cover %d of %d groups and %d of %d nodes", nextG, len(c.Groups), nextN, len(c.Nodes))
	}
	return nil
}

func (v *validator) clusterNodes(c *ClusterLOD) error {
	parents := make([]uint8, len(c.Nodes))
	leaves := make([]uint8, len(c.Groups))
	for s, sm := range c.Submeshes {
		lo, hi := uint64(sm.FirstNode), uint64(sm.FirstNode)+uint64(sm.NodeCount)
		for k := lo; k < hi; k++ {
			n := c.Nodes[k]
			rel := int64(k) * ClusterNodeSize
			switch {
			case !finite(n.Center[:]...) || !finite(n.Radius) || n.Radius < 0:
				return v.errf(ChunkCLND, rel, "node %d: sphere not finite or negative radius", k)
			case !errorValid(n.MaxError, true):
				return v.errf(ChunkCLND, rel+16, "node %d: maxError %v, want finite >= 0 or +Inf", k, n.MaxError)
			case n.Group < -1:
				return v.errf(ChunkCLND, rel+20, "node %d: group %d, want -1 or a group", k, n.Group)
			}
			if n.Group >= 0 {
				g := uint32(n.Group)
				switch {
				case g < sm.FirstGroup || g >= sm.FirstGroup+sm.GroupCount:
					return v.errf(ChunkCLND, rel+20, "node %d: group %d outside submesh %d's groups", k, g, s)
				case n.ChildCount != 0:
					return v.errf(ChunkCLND, rel+28, "node %d: a leaf with %d children", k, n.ChildCount)
				case leaves[g] != 0:
					return v.errf(ChunkCLND, rel+20, "node %d: group %d has a second leaf", k, g)
				}
				gr := c.Groups[g]
				if !sphereInside(gr.Center, gr.Radius, n.Center, n.Radius) || !errorAtMost(gr.Error, n.MaxError) {
					return v.errf(ChunkCLND, rel, "node %d: does not contain group %d's sphere and error", k, g)
				}
				leaves[g] = 1
				continue
			}
			first, end := uint64(n.ChildOffset), uint64(n.ChildOffset)+uint64(n.ChildCount)
			if n.ChildCount < 1 || first <= k || end > hi {
				return v.errf(ChunkCLND, rel+24, "node %d: children [%d, +%d) not after it inside submesh %d's nodes [%d, %d)", k, n.ChildOffset, n.ChildCount, s, lo, hi)
			}
			for ch := first; ch < end; ch++ {
				x := c.Nodes[ch]
				if parents[ch] != 0 {
					return v.errf(ChunkCLND, rel+24, "node %d: child %d has a second parent", k, ch)
				}
				parents[ch] = 1
				if !sphereInside(x.Center, x.Radius, n.Center, n.Radius) || !errorAtMost(x.MaxError, n.MaxError) {
					return v.errf(ChunkCLND, rel, "node %d: does not contain child %d's sphere and error", k, ch)
				}
			}
		}
		for k := lo; k < hi; k++ {
			if (parents[k] == 0) != (k == lo) {
				return v.errf(ChunkCLND, int64(k)*ClusterNodeSize, "node %d: not reachable from submesh %d's root %d", k, s, lo)
			}
		}
	}
	for g, n := range leaves {
		if n == 0 {
			return v.errf(ChunkCLGR, int64(g)*ClusterGroupSize, "group %d has no BVH leaf", g)
		}
	}
	return nil
}
