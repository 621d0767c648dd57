package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/meshcook/meshcook/clusterlod"
	"github.com/meshcook/meshcook/meshlet"
)

// The cluster-LOD section: meshcook's clusterlod against meshoptimizer's
// demo/clusterlod.h built natively (clodanchor/, -clod-anchor BIN), both
// positions only with 128-vertex / 128-triangle clusters, every number
// computed here by the same code from each tool's hierarchy.

// clodTaus are the projected-error thresholds the cuts are measured at.
var clodTaus = []float64{0.5e-3, 1e-3, 2e-3, 4e-3, 8e-3}

// dag is one tool's hierarchy in a tool-neutral form.
type dag struct {
	clusters []clusterlod.Cluster
	groups   []clusterlod.Group
	tris     [][]uint32 // per cluster: its triangles, global vertex ids
}

// meshcookDAG builds meshcook's hierarchy: level-0 meshlets, their bounds
// and clusterlod.Build, all inside the timing.
func meshcookDAG(m *benchMesh) (*dag, error) {
	mo := meshlet.DefaultOptions()
	mo.MaxVertices, mo.MaxTriangles = 128, 128
	r, err := meshlet.Build(m.indices, m.positions, mo)
	if err != nil {
		return nil, err
	}
	b := meshlet.ComputeAllBounds(r, m.positions)
	opts := clusterlod.DefaultOptions()
	opts.Meshlet = mo
	h, err := clusterlod.Build(context.Background(), clusterlod.Input{Positions: m.positions, Meshlets: r, Bounds: b}, opts)
	if err != nil {
		return nil, err
	}
	d := &dag{clusters: h.Clusters, groups: h.Groups}
	expand := func(res meshlet.Result, ml meshlet.Meshlet) []uint32 {
		out := make([]uint32, 3*ml.TriangleCount)
		for k := range out {
			out[k] = res.Vertices[ml.VertexOffset+uint32(res.Triangles[3*ml.TriangleOffset+uint32(k)])]
		}
		return out
	}
	for _, ml := range r.Meshlets {
		d.tris = append(d.tris, expand(r, ml))
	}
	for _, ml := range h.Coarse.Meshlets {
		d.tris = append(d.tris, expand(h.Coarse, ml))
	}
	return d, nil
}

// anchorDAG runs clodanchor on the mesh file once and reads its hierarchy
// and its own in-process build wall and CPU times (ms).
func anchorDAG(exe, meshPath, outPath string) (*dag, float64, float64, error) {
	cmd := exec.Command(exe, meshPath, outPath, "1")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", exe, err)
	}
	b, err := os.ReadFile(outPath)
	if err != nil {
		return nil, 0, 0, err
	}
	le := binary.LittleEndian
	short := errors.New("clodanchor output is short")
	at := 0
	u32 := func() (uint32, error) {
		if at+4 > len(b) {
			return 0, short
		}
		v := le.Uint32(b[at:])
		at += 4
		return v, nil
	}
	f32 := func() (float32, error) {
		v, err := u32()
		return math.Float32frombits(v), err
	}
	if len(b) < 16 {
		return nil, 0, 0, short
	}
	ms, cpuMS := math.Float64frombits(le.Uint64(b)), math.Float64frombits(le.Uint64(b[8:]))
	at = 16
	gc, err := u32()
	if err != nil || uint64(gc)*24 > uint64(len(b)) {
		return nil, 0, 0, short
	}
	d := &dag{groups: make([]clusterlod.Group, gc)}
	for i := range d.groups {
		depth, _ := u32()
		g := &d.groups[i]
		g.Depth = uint16(depth)
		for k := range 3 {
			g.Center[k], _ = f32()
		}
		g.Radius, _ = f32()
		g.Error, err = f32()
		if err != nil {
			return nil, 0, 0, err
		}
		if g.Error == math.MaxFloat32 {
			g.Error = float32(math.Inf(1)) // FLT_MAX: terminal
		}
	}
	cc, err := u32()
	if err != nil {
		return nil, 0, 0, err
	}
	for range cc {
		refined, _ := u32()
		group, _ := u32()
		n, err := u32()
		if err != nil || uint64(at)+4*uint64(n) > uint64(len(b)) || group >= gc {
			return nil, 0, 0, short
		}
		c := clusterlod.Cluster{Group: group, Refined: refined} // -1 is NoGroup
		idx := make([]uint32, n)
		for k := range idx {
			idx[k] = le.Uint32(b[at+4*k:])
		}
		at += 4 * int(n)
		d.clusters = append(d.clusters, c)
		d.tris = append(d.tris, idx)
	}
	return d, ms, cpuMS, nil
}

// clodStats are the hierarchy's measures.
type clodStats struct {
	levels, clusters, dagTris int
	checks, violations        int
	cutTris                   []int
	cutOpen, cutNonManifold   []int
	cuts                      []*benchMesh
}

func measureDAG(m *benchMesh, d *dag, cam clusterlod.Camera, pid []uint32, border map[uint32]bool) clodStats {
	s := clodStats{clusters: len(d.clusters)}
	for _, g := range d.groups {
		s.levels = max(s.levels, int(g.Depth)+1)
	}
	for i, c := range d.clusters {
		s.dagTris += len(d.tris[i]) / 3
		if c.Refined == clusterlod.NoGroup {
			continue
		}
		g, r := d.groups[c.Group], d.groups[c.Refined]
		s.checks++
		if cam.Projected(g.Center, g.Radius, g.Error) < cam.Projected(r.Center, r.Radius, r.Error) || r.Error > g.Error {
			s.violations++
		}
	}
	for _, tau := range clodTaus {
		cut := clusterlod.Cut(d.clusters, d.groups, cam, tau)
		var idx []uint32
		for _, c := range cut {
			idx = append(idx, d.tris[c]...)
		}
		open, nm := edgeDefects(idx, pid, border)
		s.cutTris = append(s.cutTris, len(idx)/3)
		s.cutOpen = append(s.cutOpen, open)
		s.cutNonManifold = append(s.cutNonManifold, nm)
		s.cuts = append(s.cuts, &benchMesh{positions: m.positions, indices: idx})
	}
	return s
}

// edgeCounts counts each undirected edge over position classes.
func edgeCounts(idx []uint32, pid []uint32) map[[2]uint32]int {
	count := map[[2]uint32]int{}
	for t := 0; t+2 < len(idx); t += 3 {
		for k := range 3 {
			a, b := pid[idx[t+k]], pid[idx[t+(k+1)%3]]
			if a != b {
				count[[2]uint32{min(a, b), max(a, b)}]++
			}
		}
	}
	return count
}

// edgeDefects returns a cut's open edges that tear the surface (not both
// ends on LOD0's open border: a border simplified along itself is not a
// tear) and its non-manifold edges (more than two triangles).
func edgeDefects(idx []uint32, pid []uint32, border map[uint32]bool) (open, nonManifold int) {
	for e, n := range edgeCounts(idx, pid) {
		switch {
		case n == 1 && !(border[e[0]] && border[e[1]]):
			open++
		case n > 2:
			nonManifold++
		}
	}
	return open, nonManifold
}

// positionClasses numbers bit-identical positions.
func positionClasses(pos [][3]float32) []uint32 {
	ids := make([]uint32, len(pos))
	seen := map[[3]float32]uint32{}
	for i, p := range pos {
		id, ok := seen[p]
		if !ok {
			id = uint32(len(seen))
			seen[p] = id
		}
		ids[i] = id
	}
	return ids
}

func compareClusterLOD(cfg config, meshes []*benchMesh, tmp string, w io.Writer) error {
	fmt.Fprintf(w, "\n## Cluster LOD (meshcook clusterlod vs meshoptimizer demo/clusterlod.h native, clodDefaultConfig(128); positions only, 128/128 clusters; cuts from twice the max corner, fovy 60°, znear 0.01; Hausdorff = three-mesh-bvh symmetric distance of the cut to LOD0 / bbox diagonal, vertices + %d samples)\n\n", bvhSamples)
	if cfg.clodAnchor == "" {
		fmt.Fprintln(w, "skipped: no -clod-anchor (make bench-clod MESHOPT_DIR=... builds it; README.md \"Cluster LOD\")")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "mesh\ttris\ttool\tms\tcpu ms\tms -j 2\tlevels\tclusters\tDAG\tmono viol/checks\t")
	for _, tau := range clodTaus {
		fmt.Fprintf(tw, "cut %g\thd %g\ttears/nm\t", tau, tau)
	}
	fmt.Fprintln(tw)
	for _, m := range meshes {
		meshPath := filepath.Join(tmp, m.name+".clod.bin")
		if err := writeMeshBin(meshPath, m); err != nil {
			return err
		}
		// Alternate the tools over cfg.runs rounds: anchor, meshcook on
		// one core, meshcook on two; medians.
		var theirs, ours *dag
		var msA, ms1, ms2, cpuA, cpu1 []float64
		for round := range cfg.runs + cfg.warmup {
			d, ms, cpuMS, err := anchorDAG(cfg.clodAnchor, meshPath, filepath.Join(tmp, m.name+".clod.out"))
			if err != nil {
				return err
			}
			theirs = d
			for _, procs := range []int{1, 2} {
				prev := runtime.GOMAXPROCS(procs)
				runtime.GC()
				c0, t0 := cpuTime(), time.Now()
				d, err := meshcookDAG(m)
				el := float64(time.Since(t0).Microseconds()) / 1000
				cel := float64((cpuTime() - c0).Microseconds()) / 1000
				runtime.GOMAXPROCS(prev)
				if err != nil {
					return fmt.Errorf("%s: meshcook: %w", m.name, err)
				}
				ours = d
				if round >= cfg.warmup {
					if procs == 1 {
						ms1, cpu1 = append(ms1, el), append(cpu1, cel)
					} else {
						ms2 = append(ms2, el)
					}
				}
			}
			if round >= cfg.warmup {
				msA, cpuA = append(msA, ms), append(cpuA, cpuMS)
			}
		}
		var hi [3]float32
		for _, p := range m.positions {
			for k := range 3 {
				hi[k] = max(hi[k], p[k])
			}
		}
		cam := clusterlod.CornerCamera(hi)
		pid := positionClasses(m.positions)
		border := map[uint32]bool{}
		lod0Open, lod0NM := 0, 0
		for e, n := range edgeCounts(m.indices, pid) {
			switch {
			case n == 1:
				border[e[0]], border[e[1]] = true, true
				lod0Open++
			case n > 2:
				lod0NM++
			}
		}
		rows := []struct {
			tool     string
			d        *dag
			ms, ms2  string
			cpu      string
			st       clodStats
			hausdorf []float64
		}{
			{tool: "meshcook", d: ours, ms: fmt.Sprintf("%.0f", medianOf(ms1)), ms2: fmt.Sprintf("%.0f", medianOf(ms2)), cpu: fmt.Sprintf("%.0f", medianOf(cpu1))},
			{tool: "meshopt", d: theirs, ms: fmt.Sprintf("%.0f", medianOf(msA)), ms2: "-", cpu: fmt.Sprintf("%.0f", medianOf(cpuA))},
		}
		for i := range rows {
			r := &rows[i]
			r.st = measureDAG(m, r.d, cam, pid, border)
			hd, err := bvhErrors(cfg, tmp, m, r.st.cuts)
			if err != nil {
				return err
			}
			r.hausdorf = hd
		}
		fmt.Fprintf(tw, "%s\t%d\tLOD0\t\t\t\t\t\t\t\t", m.name, len(m.indices)/3)
		for range clodTaus {
			fmt.Fprintf(tw, "\t\t%d/%d\t", lod0Open, lod0NM)
		}
		fmt.Fprintln(tw)
		src := float64(len(m.indices) / 3)
		for _, r := range rows {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t%d\t%.3fx\t%d/%d\t", m.name, len(m.indices)/3, r.tool, r.ms, r.cpu, r.ms2,
				r.st.levels, r.st.clusters, float64(r.st.dagTris)/src, r.st.violations, r.st.checks)
			for k := range clodTaus {
				fmt.Fprintf(tw, "%d\t%.5f\t%d/%d\t", r.st.cutTris[k], r.hausdorf[k], r.st.cutOpen[k], r.st.cutNonManifold[k])
			}
			fmt.Fprintln(tw)
		}
		a, b := rows[0], rows[1]
		fmt.Fprintf(tw, "%s\t\tratio\t%s\t%s\t%s\t\t\t%s\t\t", m.name, ratio(medianOf(ms1), medianOf(msA)), ratio(medianOf(cpu1), medianOf(cpuA)), ratio(medianOf(ms2), medianOf(msA)),
			ratio(float64(a.st.dagTris), float64(b.st.dagTris)))
		for k := range clodTaus {
			fmt.Fprintf(tw, "%s\t%s\t\t", ratio(float64(a.st.cutTris[k]), float64(b.st.cutTris[k])), ratio(a.hausdorf[k], b.hausdorf[k]))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}
