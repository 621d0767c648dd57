package cook

import (
	"context"
	"fmt"
	"path"
	"slices"

	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

// cooked is the canonical scene plus per-submesh meshlets, ready for the
// format adapters.
type cooked struct {
	scene *mesh.Scene
	// positions are each canonical submesh's positions as the plain
	// arrays the algorithm packages take (computed once, after reorder).
	positions [][][3]float32
	meshlets  []meshlet.Result
	mbounds   [][]meshlet.Bounds
	lods      [][]simplify.Level // per submesh, one per LOD ratio (nil when LODs are off)
	report    MeshReport
}

// cookJob runs one source through every stage. It never panics: a panic in
// an algorithm is turned into an input error naming the source, so one bad
// file cannot take down a whole build.
func cookJob(ctx context.Context, job Job, opts Options) (res jobResult) {
	sw := newStopwatch()
	defer func() {
		sw.End()
		res.stageMS = sw.ms
		if p := recover(); p != nil {
			res.err = &InternalError{Path: job.Source, Err: fmt.Errorf("panic: %v", p)}
		}
	}()

	sw.Begin(StageImport)
	scene, err := importSource(job, opts)
	if err != nil {
		return jobResult{err: &importError{err}}
	}
	for _, w := range scene.Warnings {
		res.warnings = append(res.warnings, fmt.Sprintf("%s: %s", job.Source, w))
	}
	res.drops = dropReports(job, scene.Drops)
	res.imported = scene.Files
	if err := ctx.Err(); err != nil {
		return jobResult{err: err}
	}
	estimate, err := checkSceneBudget(job, scene, opts.Budget)
	if err != nil {
		return jobResult{err: err, warnings: res.warnings}
	}
	release, err := reserve(ctx, estimate)
	if err != nil {
		return jobResult{err: err}
	}
	defer release()

	// Draw merging (mesh.MergeDraws) is for the .hmesh and .msh7 targets;
	// a .cnb world keeps one mesh payload per primitive (spec §3 names
	// them per primitive), so it cooks an unmerged copy when both are asked.
	draws := len(scene.Submeshes)
	targets := opts.targets()
	wantFlat := slices.Contains(targets, TargetCNB)
	wantMerged := !opts.KeepNodes && slices.ContainsFunc(targets, func(t string) bool { return t != TargetCNB })
	var flat *mesh.Scene
	if wantFlat && wantMerged {
		flat = scene.Clone()
	}
	if wantMerged {
		mesh.MergeDraws(scene)
	}
	c, err := process(ctx, job, scene, opts, sw)
	if err != nil {
		return jobResult{err: err, warnings: res.warnings, drops: res.drops}
	}
	c.report.DrawsBefore, c.report.Draws = draws, len(scene.Submeshes)
	cFlat := c
	if flat != nil {
		if cFlat, err = process(ctx, job, flat, opts, sw); err != nil {
			return jobResult{err: err, warnings: res.warnings, drops: res.drops}
		}
	}

	sw.Begin(StagePack)
	var files []outputFile
	for _, t := range targets {
		var out []outputFile
		var err error
		switch t {
		case TargetHMesh:
			out, err = packHMesh(job, c, opts)
			if err == nil {
				more, warnings, cerr := packCompanions(job, c) // .hanim, .ktx2
				out, err = append(out, more...), cerr
				res.warnings = append(res.warnings, warnings...)
			}
		case TargetMSH7:
			out, err = packMSH7(job, c, opts)
		case TargetCNB:
			var warnings []string
			res.cnb, warnings, err = cnbResources(job, cFlat, opts)
			res.warnings = append(res.warnings, warnings...)
		}
		if err != nil {
			return jobResult{err: packError(job, string(t), err), warnings: res.warnings}
		}
		files = append(files, out...)
	}

	sw.Begin(StageValidate)
	for _, f := range files {
		if err := f.validate(); err != nil {
			return jobResult{err: &InternalError{Path: job.Source, Output: path.Join(opts.OutDir, f.name), Err: err}, warnings: res.warnings}
		}
	}

	sw.End()
	res.files = files // runJob commits them (StageWrite)
	res.mesh = &c.report
	return res
}

// dropReports names each of the scene's drops by its file: the job's
// source (relative, as the report shows it), or the referenced file the
// importer named, relative to the source's folder.
func dropReports(job Job, drops []mesh.Drop) []DropReport {
	var out []DropReport
	for _, d := range drops {
		src := job.Rel
		if d.Source != "" {
			src = path.Join(path.Dir(job.Rel), d.Source)
		}
		out = append(out, DropReport{Source: src, What: d.What, Count: d.Count})
	}
	return out
}

// importError marks an importer error: importers already name the file, so
// the message is passed through as is. It still counts as bad input.
type importError struct{ err error }

func (e *importError) Error() string { return e.err.Error() }
func (e *importError) Unwrap() error { return e.err }

// process canonicalizes every submesh and builds its meshlets and bounds.
func process(ctx context.Context, job Job, scene *mesh.Scene, opts Options, sw *stopwatch) (*cooked, error) {
	c := &cooked{scene: scene}
	c.report = MeshReport{Name: job.Name, Source: job.Rel, Submeshes: len(scene.Submeshes)}
	c.positions = make([][][3]float32, len(scene.Submeshes))
	c.meshlets = make([]meshlet.Result, len(scene.Submeshes))
	c.mbounds = make([][]meshlet.Bounds, len(scene.Submeshes))
	c.lods = make([][]simplify.Level, len(scene.Submeshes))
	for i := range scene.Submeshes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		s := &scene.Submeshes[i]
		sw.Begin(StageCanonicalize)
		cr, err := mesh.Canonicalize(s, mesh.CanonicalOptions{})
		if err != nil {
			return nil, &InputError{Path: job.Source, Err: fmt.Errorf("submesh %d (%s): %w", i, s.Name, err)}
		}
		if cr.GeneratedNormals {
			c.report.GeneratedNormals++
		}
		if cr.GeneratedTangents {
			c.report.GeneratedTangents++
		}
		c.report.DegenerateDropped += cr.DegenerateDropped

		// Classic index path: vertex-cache order for IDXS, then vertices in
		// first-use order so index reads walk VTXS forwards. Meshlets and
		// LODs are built on the reordered streams.
		sw.Begin(StageReorder)
		s.Indices = meshlet.OptimizeVertexCache(s.Indices, len(s.Positions))
		mesh.ReorderVerticesByFirstUse(s)
		pos := positions3(s.Positions)
		c.positions[i] = pos

		sw.Begin(StageLODs)
		levels, err := buildLODs(s, pos, opts.LOD)
		if err != nil {
			return nil, &InputError{Path: job.Source, Err: fmt.Errorf("submesh %d (%s): lods: %w", i, s.Name, err)}
		}
		c.lods[i] = levels

		sw.Begin(StageMeshlets)
		r, err := meshlet.Build(s.Indices, pos, opts.Meshlet)
		if err != nil {
			return nil, &InputError{Path: job.Source, Err: fmt.Errorf("submesh %d (%s): meshlets: %w", i, s.Name, err)}
		}
		c.meshlets[i] = r

		sw.Begin(StageBounds)
		c.mbounds[i] = meshlet.ComputeAllBounds(r, pos)

		c.report.Vertices += len(s.Positions)
		c.report.Triangles += s.TriangleCount()
		c.report.Meshlets += len(r.Meshlets)
		for _, m := range r.Meshlets {
			c.report.AvgMeshletTris += float64(m.TriangleCount)
			c.report.AvgMeshletVerts += float64(m.VertexCount)
		}
	}
	c.report.Lods = lodReports(c, opts.LOD.Ratios)
	if n := c.report.Meshlets; n > 0 {
		c.report.AvgMeshletTris = round2(c.report.AvgMeshletTris / float64(n))
		c.report.AvgMeshletVerts = round2(c.report.AvgMeshletVerts / float64(n))
	}
	return c, nil
}

// buildLODs simplifies one submesh into the configured levels (see
// simplify.Chain: each level continues from the previous one, so levels
// nest) and puts each level in vertex-cache order over the shared vertices.
func buildLODs(s *mesh.Submesh, pos [][3]float32, o LODOptions) ([]simplify.Level, error) {
	if len(o.Ratios) == 0 {
		return nil, nil
	}
	var attrs simplify.Attributes
	if s.Normals != nil {
		attrs.Normals = make([][3]float32, len(s.Normals))
		for i, n := range s.Normals {
			attrs.Normals[i] = n
		}
	}
	if s.UV0 != nil {
		attrs.UV0 = make([][2]float32, len(s.UV0))
		for i, uv := range s.UV0 {
			attrs.UV0[i] = uv
		}
	}
	levels, err := simplify.Chain(s.Indices, pos, attrs, o.Ratios, simplify.Options{
		TargetError:      o.Error,
		AttributeWeights: simplify.Weights{Normal: o.NormalWeight, UV: o.UVWeight},
	})
	if err != nil {
		return nil, err
	}
	for i := range levels {
		if len(levels[i].Indices) > 0 {
			levels[i].Indices = meshlet.OptimizeVertexCache(levels[i].Indices, len(pos))
		}
	}
	return levels, nil
}

// lodReports sums each level over the submeshes; a stalled level draws its
// previous level (LOD0 for the first).
func lodReports(c *cooked, ratios []float32) []LodReport {
	out := make([]LodReport, len(ratios))
	for l, r := range ratios {
		out[l].Ratio = r
	}
	for i, levels := range c.lods {
		drawn := c.scene.Submeshes[i].TriangleCount()
		for l := range out {
			if l < len(levels) && len(levels[l].Indices) > 0 {
				drawn = len(levels[l].Indices) / 3
				out[l].Error = max(out[l].Error, levels[l].Error)
			} else {
				out[l].Stalled++
			}
			out[l].Triangles += drawn
		}
	}
	return out
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// positions3 views mesh positions as the plain arrays algorithm packages take.
func positions3(p []mesh.Vec3) [][3]float32 {
	out := make([][3]float32, len(p))
	for i, v := range p {
		out[i] = v
	}
	return out
}
