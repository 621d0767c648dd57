package cli

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/meshcook/meshcook/clusterlod"
	"github.com/meshcook/meshcook/formats/hmesh"
)

// defaultCutErrors are the thresholds inspect cuts a hierarchy at when
// --error is not given (fractions of the screen height).
var defaultCutErrors = []float64{0.5e-3, 1e-3, 2e-3, 4e-3, 8e-3}

// clusterLODSummary is inspect's view of a .hmesh cluster hierarchy
// (CLHD..CLND): per-level counts and the cut at each threshold from
// clusterlod.CornerCamera.
type clusterLODSummary struct {
	Levels           int          `json:"levels"` // largest over submeshes
	Clusters         int          `json:"clusters"`
	Groups           int          `json:"groups"`
	StuckGroups      int          `json:"stuckGroups"`
	ClustersPerLevel []int        `json:"clustersPerLevel"`
	TrianglesPerLvl  []int        `json:"trianglesPerLevel"`
	DAGTriangles     int          `json:"dagTriangles"` // every cluster's triangles
	Camera           [3]float32   `json:"camera"`
	Cuts             []cutSummary `json:"cuts"`
}

// cutSummary is the cut at one threshold.
type cutSummary struct {
	Error     float64 `json:"error"`
	Clusters  int     `json:"clusters"`
	Triangles int     `json:"triangles"`
}

// summarizeClusterLOD summarizes f's hierarchy (nil without one) and cuts
// it at each of errs.
func summarizeClusterLOD(f *hmesh.File, errs []float64) *clusterLODSummary {
	c := f.ClusterLOD
	if c == nil {
		return nil
	}
	s := &clusterLODSummary{Clusters: len(c.Clusters), Groups: len(c.Groups), Cuts: []cutSummary{}}
	for _, sm := range c.Submeshes {
		s.Levels = max(s.Levels, int(sm.LevelCount))
	}
	s.ClustersPerLevel = make([]int, s.Levels)
	s.TrianglesPerLvl = make([]int, s.Levels)
	clusters := make([]clusterlod.Cluster, len(c.Clusters))
	groups := make([]clusterlod.Group, len(c.Groups))
	for i, g := range c.Groups {
		groups[i] = clusterlod.Group{Center: g.Center, Radius: g.Radius, Error: g.Error, First: g.FirstMember, Count: g.MemberCount, Depth: g.Depth, Stuck: g.Flags&hmesh.GroupFlagStuck != 0}
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
		cut := cutSummary{Error: tau}
		for _, k := range clusterlod.Cut(clusters, groups, cam, tau) {
			cut.Clusters++
			cut.Triangles += int(c.Clusters[k].TriangleCount)
		}
		s.Cuts = append(s.Cuts, cut)
	}
	return s
}

func printClusterLOD(w io.Writer, s *clusterLODSummary, lod0 uint32) {
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

// runInspectCuts is inspect --error: the .hmesh summary with its
// hierarchy cut at errs.
func runInspectCuts(stdout io.Writer, path string, errs []float64, asJSON, dump bool) error {
	if dump {
		return usageError("inspect: --error cuts a hierarchy; drop --dump")
	}
	for _, e := range errs {
		if !(e > 0) || math.IsInf(e, 0) {
			return usageError("inspect: --error %v: want a finite error > 0", e)
		}
	}
	b, k, err := readKind(path)
	if err != nil {
		return err
	}
	if k.name != "hmesh" {
		return usageError("inspect: --error needs a .hmesh, not %s", k.name)
	}
	f, err := hmesh.Decode(b)
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("inspect: %s: %w", path, err))
	}
	if f.ClusterLOD == nil {
		return withCode(ExitBadInput, fmt.Errorf("inspect: %s: --error: no cluster hierarchy (cook with --cluster-lod)", path))
	}
	s := summarizeHMesh(path, f, errs)
	if asJSON {
		return writeJSON(stdout, s)
	}
	printHMesh(stdout, s)
	return nil
}
