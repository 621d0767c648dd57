package hmesh

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/meshcook/meshcook/clusterlod"
)

// DefaultCutErrors returns the thresholds inspect cuts a hierarchy at
// when none are given (fractions of the screen height), a fresh slice per
// call so that no caller can change another's.
func DefaultCutErrors() []float64 { return []float64{0.5e-3, 1e-3, 2e-3, 4e-3, 8e-3} }

// ClusterLODSummary is inspect's view of a cluster hierarchy
// (CLHD..CLND): per-level counts and the cut at each threshold from
// clusterlod.CornerCamera.
type ClusterLODSummary struct {
	Levels           int          `json:"levels"` // largest over submeshes
	Clusters         int          `json:"clusters"`
	Groups           int          `json:"groups"`
	StuckGroups      int          `json:"stuckGroups"`
	ClustersPerLevel []int        `json:"clustersPerLevel"`
	TrianglesPerLvl  []int        `json:"trianglesPerLevel"`
	DAGTriangles     int          `json:"dagTriangles"` // every cluster's triangles
	Camera           [3]float32   `json:"camera"`
	Cuts             []CutSummary `json:"cuts"`
}

// CutSummary is the cut at one threshold.
type CutSummary struct {
	Error     float64 `json:"error"`
	Clusters  int     `json:"clusters"`
	Triangles int     `json:"triangles"`
}

// SummarizeClusterLOD summarizes f's hierarchy (nil without one) and cuts
// it at each of errs.
func SummarizeClusterLOD(f *File, errs []float64) *ClusterLODSummary {
	c := f.ClusterLOD
	if c == nil {
		return nil
	}
	s := &ClusterLODSummary{Clusters: len(c.Clusters), Groups: len(c.Groups), Cuts: []CutSummary{}}
	for _, sm := range c.Submeshes {
		s.Levels = max(s.Levels, int(sm.LevelCount))
	}
	s.ClustersPerLevel = make([]int, s.Levels)
	s.TrianglesPerLvl = make([]int, s.Levels)
	clusters := make([]clusterlod.Cluster, len(c.Clusters))
	groups := make([]clusterlod.Group, len(c.Groups))
	for i, g := range c.Groups {
		groups[i] = clusterlod.Group{Center: g.Center, Radius: g.Radius, Error: g.Error, First: g.FirstMember, Count: g.MemberCount, Depth: g.Depth, Stuck: g.Flags&GroupFlagStuck != 0}
		if groups[i].Stuck {
			s.StuckGroups++
		}
	}
	for i, x := range c.Clusters {
		clusters[i] = clusterlod.Cluster{Group: x.Group, Refined: x.Refined}
		if d := int(c.Groups[x.Group].Depth); d < s.Levels {
			s.ClustersPerLevel[d]++
			s.TrianglesPerLvl[d] += int(x.TriangleCount)
		}
		s.DAGTriangles += int(x.TriangleCount)
	}
	cam := clusterlod.CornerCamera(f.Bounds.Max)
	s.Camera = cam.Position
	for _, tau := range errs {
		cut := CutSummary{Error: tau}
		for _, k := range clusterlod.Cut(clusters, groups, cam, tau) {
			cut.Clusters++
			cut.Triangles += int(c.Clusters[k].TriangleCount)
		}
		s.Cuts = append(s.Cuts, cut)
	}
	return s
}

// writeText prints the hierarchy's lines of the .hmesh summary; lod0 is
// the mesh's triangle count.
func (s *ClusterLODSummary) writeText(w io.Writer, lod0 uint32) {
	if s == nil {
		return
	}
	fmt.Fprintf(w, "  cluster LOD: %d levels, %d clusters in %d groups (%d stuck), DAG %d triangles (%.3fx LOD0)\n",
		s.Levels, s.Clusters, s.Groups, s.StuckGroups, s.DAGTriangles, float64(s.DAGTriangles)/math.Max(1, float64(lod0)))
	per := make([]string, len(s.ClustersPerLevel))
	for l, n := range s.ClustersPerLevel {
		per[l] = fmt.Sprintf("%d:%d/%d", l, n, s.TrianglesPerLvl[l])
	}
	fmt.Fprintf(w, "    clusters/triangles per level %s\n", strings.Join(per, " "))
	if len(s.Cuts) > 0 {
		fmt.Fprintf(w, "    cuts from %v (fovy 60°):\n", s.Camera)
	}
	for _, c := range s.Cuts {
		fmt.Fprintf(w, "      error %g: %d clusters, %d triangles\n", c.Error, c.Clusters, c.Triangles)
	}
}

// SummarizeCuts is the .hmesh summary of b with its cluster hierarchy cut
// at errs (inspect --error); a file without one is an error.
func SummarizeCuts(path string, b []byte, errs []float64) (*Summary, error) {
	f, err := Decode(b)
	if err != nil {
		return nil, err
	}
	if f.ClusterLOD == nil {
		return nil, fmt.Errorf("hmesh: %s: no cluster hierarchy (cook with --cluster-lod)", path)
	}
	s := Summarize(path, f)
	s.ClusterLOD = SummarizeClusterLOD(f, errs)
	return s, nil
}
