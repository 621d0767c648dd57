package preview

import (
	"fmt"
	"image/color"

	"github.com/meshcook/meshcook/clusterlod"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/internal/render"
)

// CutError is the threshold the cut panel draws a cluster hierarchy at
// (hmesh.DefaultCutErrors' middle value: a fraction of the screen height,
// from clusterlod.CornerCamera, as inspect's cut summary).
const CutError = 2e-3

// ClusterCut is a cluster-LOD cut to draw (ViewCut): the triangles of the
// clusters the cut selects, over the model's vertices, and for each
// triangle its cluster's level and id.
type ClusterCut struct {
	Error     float64 // the threshold it was cut at
	Triangles []uint32
	Levels    []int // per triangle: its cluster's level (its group's depth)
	Clusters  []int // per triangle: its cluster
}

// levelPalette are the cut panel's level colours, finest first: a
// blue-to-red ramp, then violet and grey; deeper levels reuse it.
var levelPalette = []color.RGBA{
	{70, 120, 235, 255}, {50, 190, 200, 255}, {80, 200, 90, 255}, {205, 215, 60, 255},
	{245, 150, 45, 255}, {230, 65, 55, 255}, {205, 75, 185, 255}, {140, 100, 230, 255},
	{170, 170, 170, 255},
}

// clusterShades are the brightness steps neighbouring clusters of one
// level take (by cluster id), so cluster borders show within a level.
var clusterShades = []float64{1, 0.84, 0.68}

// LevelColor is cluster level l's colour in the cut panel, before its
// cluster's shade.
func LevelColor(l int) color.RGBA { return levelPalette[l%len(levelPalette)] }

// CutColor is the colour of a cluster of level l with id c in the cut
// panel: LevelColor(l) at one of three brightness steps by c.
func CutColor(l, c int) color.RGBA {
	return render.Scale(LevelColor(l), clusterShades[c%len(clusterShades)])
}

// label is the cut panel's label: threshold, triangles and the levels
// drawn.
func (c *ClusterCut) label() string {
	lo, hi := -1, -1
	for _, l := range c.Levels {
		if lo < 0 || l < lo {
			lo = l
		}
		hi = max(hi, l)
	}
	return fmt.Sprintf("cut %g: %d tris, levels %d-%d", c.Error, len(c.Triangles)/3, lo, hi)
}

// check reports whether the cut's arrays agree with each other and n
// vertices.
func (c *ClusterCut) check(n int) error {
	t := len(c.Triangles) / 3
	if len(c.Triangles)%3 != 0 || len(c.Levels) != t || len(c.Clusters) != t {
		return fmt.Errorf("preview: cut of %d indices has %d levels and %d clusters", len(c.Triangles), len(c.Levels), len(c.Clusters))
	}
	for _, i := range c.Triangles {
		if int(i) >= n {
			return fmt.Errorf("preview: cut index %d past %d vertices", i, n)
		}
	}
	for k := range c.Levels {
		if c.Levels[k] < 0 || c.Clusters[k] < 0 {
			return fmt.Errorf("preview: cut triangle %d has a negative level or cluster", k)
		}
	}
	return nil
}

// hmeshCut cuts f's cluster hierarchy at tau from clusterlod.CornerCamera
// (nil without one). Cluster ranges run into MLVR then CLVR and MLTR then
// CLTR as one concatenated range each (formats.md, CLUS).
func hmeshCut(f *hmesh.File, tau float64) (*ClusterCut, error) {
	c := f.ClusterLOD
	if c == nil {
		return nil, nil
	}
	clusters := make([]clusterlod.Cluster, len(c.Clusters))
	for i, x := range c.Clusters {
		if int(x.Group) >= len(c.Groups) {
			return nil, fmt.Errorf("preview: hmesh cluster %d: group %d past %d", i, x.Group, len(c.Groups))
		}
		clusters[i] = clusterlod.Cluster{Group: x.Group, Refined: x.Refined}
	}
	groups := make([]clusterlod.Group, len(c.Groups))
	for i, g := range c.Groups {
		groups[i] = clusterlod.Group{Center: g.Center, Radius: g.Radius, Error: g.Error, Depth: g.Depth}
	}
	cut := &ClusterCut{Error: tau}
	for _, k := range clusterlod.Cut(clusters, groups, clusterlod.CornerCamera(f.Bounds.Max), tau) {
		x := c.Clusters[k]
		for t := uint64(0); t < 3*uint64(x.TriangleCount); t++ {
			l, ok := joinedAt(f.MeshletTriangles, c.Triangles, 3*uint64(x.TriangleOffset)+t)
			if !ok || uint32(l) >= x.VertexCount {
				return nil, fmt.Errorf("preview: hmesh cluster %d: triangles past MLTR/CLTR", k)
			}
			v, ok := joinedAt(f.MeshletVertices, c.Vertices, uint64(x.VertexOffset)+uint64(l))
			if !ok {
				return nil, fmt.Errorf("preview: hmesh cluster %d: vertices past MLVR/CLVR", k)
			}
			cut.Triangles = append(cut.Triangles, v)
		}
		for range x.TriangleCount {
			cut.Levels = append(cut.Levels, int(c.Groups[x.Group].Depth))
			cut.Clusters = append(cut.Clusters, k)
		}
	}
	return cut, cut.check(len(f.Vertices))
}

// joinedAt is element k of a then b as one range.
func joinedAt[T any](a, b []T, k uint64) (T, bool) {
	if k < uint64(len(a)) {
		return a[k], true
	}
	if k -= uint64(len(a)); k < uint64(len(b)) {
		return b[k], true
	}
	var zero T
	return zero, false
}
