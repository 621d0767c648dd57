package cook

import (
	"context"
	"errors"
	"fmt"
	"path"
	"runtime"
	"slices"
	"sync"

	"github.com/meshcook/meshcook/clusterlod"
	"github.com/meshcook/meshcook/internal/par"
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
	lods      [][]simplify.Level      // per submesh, one per LOD ratio (nil when LODs are off)
	clod      []*clusterlod.Hierarchy // per submesh (nil unless Options.ClusterLOD)
	// bounds are each submesh's mesh.ComputeBounds, for the .hmesh target
	// (zero otherwise), computed beside meshlets and LODs.
	bounds []mesh.Bounds
	report MeshReport
}

// cookJob runs one source through every stage. It never panics: a panic in
// an algorithm is turned into an input error naming the source, so one bad
// file cannot take down a whole build.
func cookJob(ctx context.Context, job Job, opts Options) (res jobResult) {
	sw := newStopwatch().reporting(job, opts.StageProgress)
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
	sw.End() // process times its own stages, concurrently
	// The textures encode beside the mesh stages (startTextures); a job
	// that returns early stops them and waits.
	texCtx, stopTextures := context.WithCancel(ctx)
	var textures *pendingTextures
	if slices.Contains(targets, TargetHMesh) {
		textures = startTextures(texCtx, job, scene, opts.Textures, sw)
	} else {
		sw.Start(StageTextures, -1).Stop()
	}
	defer func() {
		stopTextures()
		if textures != nil {
			_, _, _ = textures.wait()
		}
	}()
	c, err := process(ctx, job, scene, opts, sw)
	if err != nil {
		return jobResult{err: err, warnings: res.warnings, drops: res.drops}
	}
	c.report.DrawsBefore, c.report.Draws = draws, len(scene.Submeshes)
	cFlat := c
	if flat != nil {
		fo := opts
		fo.ClusterLOD = false // the .cnb world carries no hierarchy
		if cFlat, err = process(ctx, job, flat, fo, sw); err != nil {
			return jobResult{err: err, warnings: res.warnings, drops: res.drops}
		}
	}

	// A source with no triangles left writes no mesh outputs (no .hmesh,
	// .hmat, .ktx2 or .msh7, no world resources), only what it carries
	// besides (its .hanim), and says so in one counted drop.
	empty := c.report.Triangles == 0

	sw.Begin(StagePack)
	var files []outputFile
	for _, t := range targets {
		var out []outputFile
		var err error
		switch {
		case empty && t == TargetHMesh:
			clip, warnings, herr := packHAnim(job, c)
			if herr != nil {
				err = fmt.Errorf("hanim: %w", herr)
			} else if clip != nil {
				out = append(out, *clip)
			}
			for _, w := range warnings {
				res.warnings = append(res.warnings, job.Source+": "+w)
			}
		case empty:
		case t == TargetHMesh:
			out, err = packHMesh(job, c, opts)
			if err == nil {
				more, warnings, cerr := packCompanions(job, c, textures) // .hanim, .ktx2
				out, err = append(out, more...), cerr
				res.warnings = append(res.warnings, warnings...)
			}
		case t == TargetMSH7:
			out, err = packMSH7(ctx, job, c, opts)
		case t == TargetCNB:
			var warnings []string
			res.cnb, warnings, err = cnbResources(job, cFlat, opts)
			res.warnings = append(res.warnings, warnings...)
			if n := emptySubmeshes(cFlat.scene); n > 0 {
				res.drop(job, n, "submeshes with no triangles: no world mesh payload written")
			}
		}
		if err != nil {
			return jobResult{err: packError(job, string(t), err), warnings: res.warnings}
		}
		files = append(files, out...)
	}
	if err := ctx.Err(); err != nil {
		return jobResult{err: err} // the pack stage skips its work once ctx is done
	}
	if empty {
		res.drop(job, 1, EmptyDrop)
	}

	// Every output is validated at once (up to GOMAXPROCS); the first
	// failure in output order is reported.
	sw.Begin(StageValidate)
	verrs := make([]error, len(files))
	par.Each(len(files), func(k int) {
		verrs[k] = guard(job, files[k].validate)
	})
	for k, err := range verrs {
		if err != nil {
			var ie *InternalError
			if errors.As(err, &ie) {
				return jobResult{err: err, warnings: res.warnings}
			}
			return jobResult{err: &InternalError{Path: job.Source, Output: path.Join(opts.OutDir, files[k].name), Err: err}, warnings: res.warnings}
		}
	}

	sw.End()
	res.files = files // runJob commits them (StageWrite)
	res.mesh = &c.report
	return res
}

// EmptyDrop is the drop (DropReport.What) of a source with no triangles:
// none of its mesh outputs is written (its .hanim still is, when it has
// clips).
const EmptyDrop = "no triangles: no mesh written"

// emptySubmeshes counts the submeshes left with no triangles.
func emptySubmeshes(scene *mesh.Scene) int {
	n := 0
	for i := range scene.Submeshes {
		if scene.Submeshes[i].TriangleCount() == 0 {
			n++
		}
	}
	return n
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

// process canonicalizes every submesh and builds its LODs, meshlets and
// bounds. Submeshes cook concurrently (up to GOMAXPROCS), and within one
// submesh the LOD chain runs alongside meshlets and bounds: each piece
// writes only its own slots, and the report is summed in submesh order
// afterwards, so nothing depends on the core count.
func process(ctx context.Context, job Job, scene *mesh.Scene, opts Options, sw *stopwatch) (*cooked, error) {
	n := len(scene.Submeshes)
	c := &cooked{scene: scene}
	c.report = MeshReport{Name: job.Name, Source: job.Rel, Submeshes: n}
	c.positions = make([][][3]float32, n)
	c.meshlets = make([]meshlet.Result, n)
	c.mbounds = make([][]meshlet.Bounds, n)
	c.lods = make([][]simplify.Level, n)
	c.clod = make([]*clusterlod.Hierarchy, n)
	c.bounds = make([]mesh.Bounds, n)
	canon := make([]mesh.CanonicalReport, n)
	errs := make([]error, n)
	tris := 0
	for i := range scene.Submeshes {
		tris += max(scene.Submeshes[i].TriangleCount(), 1)
	}
	for _, stage := range []string{StageCanonicalize, StageReorder, StageLODs, StageMeshlets, StageBounds} {
		sw.Expect(stage, tris)
	}
	par.Each(n, func(i int) {
		errs[i] = guard(job, func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			canon[i], err = processSubmesh(ctx, job, &scene.Submeshes[i], i, c, opts, sw)
			return err
		})
	})
	for _, err := range errs {
		if err != nil {
			return nil, err // the first failing submesh, whatever finished first
		}
	}
	for i := range scene.Submeshes {
		cr := canon[i]
		if cr.GeneratedNormals {
			c.report.GeneratedNormals++
		}
		if cr.GeneratedTangents {
			c.report.GeneratedTangents++
		}
		c.report.DegenerateDropped += cr.DegenerateDropped
		s := &scene.Submeshes[i]
		c.report.Vertices += len(s.Positions)
		c.report.Triangles += s.TriangleCount()
		c.report.Meshlets += len(c.meshlets[i].Meshlets)
		for _, m := range c.meshlets[i].Meshlets {
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

// processSubmesh cooks submesh i into c's slots i: canonical streams,
// vertex-cache order, then the LOD chain on one goroutine while this one
// builds meshlets and their bounds. A done ctx stops each step, the LOD
// chain's included (simplify.ChainContext), as it goes with ctx's error.
func processSubmesh(ctx context.Context, job Job, s *mesh.Submesh, i int, c *cooked, opts Options, sw *stopwatch) (mesh.CanonicalReport, error) {
	fail := func(what string, err error) error {
		return &InputError{Path: job.Source, Err: fmt.Errorf("submesh %d (%s): %s%w", i, s.Name, what, err)}
	}
	units := max(s.TriangleCount(), 1) // this submesh's share of each stage's progress
	t := sw.Start(StageCanonicalize, units)
	cr, err := mesh.CanonicalizeContext(ctx, s, mesh.CanonicalOptions{})
	t.Stop()
	if err != nil {
		return cr, ctxOr(ctx, fail("", err))
	}

	// Classic index path: vertex-cache order for IDXS, then vertices in
	// first-use order so index reads walk VTXS forwards. Meshlets and
	// LODs are built on the reordered streams.
	t = sw.Start(StageReorder, units)
	s.Indices, err = vertexCacheOrderContext(ctx, s.Indices, s.Positions)
	if err != nil {
		return cr, err // only a done ctx stops it
	}
	mesh.ReorderVerticesByFirstUse(s)
	pos := mesh.Floats3(s.Positions) // a view: the algorithms only read it
	c.positions[i] = pos
	t.Stop()

	// The LOD chain reads s and pos only, as meshlets and bounds do.
	var lodErr, boundsErr error
	var wg sync.WaitGroup
	if slices.Contains(opts.targets(), TargetHMesh) {
		wg.Go(func() {
			boundsErr = guard(job, func() error {
				// Untimed: it runs beside the stages the stopwatch shows.
				c.bounds[i] = mesh.ComputeBounds(s.Positions, nil)
				return nil
			})
		})
	}
	wg.Go(func() {
		lodErr = guard(job, func() error {
			t := sw.Start(StageLODs, units)
			defer t.Stop()
			// The chain's share of the stage moves with the triangles it
			// has removed; the levels' vertex-cache order is the rest.
			progress := func(done, total int) { t.Progress(int(int64(units) * int64(done) * 9 / (10 * int64(total)))) }
			levels, err := buildLODs(ctx, s, pos, cr.GeneratedNormals, opts.LOD.ForSource(job.Rel), progress)
			c.lods[i] = levels
			return err
		})
	})
	t = sw.Start(StageMeshlets, units)
	r, err := meshlet.BuildContext(ctx, s.Indices, pos, opts.Meshlet)
	t.Stop()
	if err == nil {
		c.meshlets[i] = r
		t = sw.Start(StageBounds, units)
		c.mbounds[i], err = meshlet.ComputeAllBoundsContext(ctx, r, pos)
		t.Stop()
	}
	wg.Wait()
	if err == nil && lodErr == nil && opts.ClusterLOD && slices.Contains(opts.targets(), TargetHMesh) {
		// The hierarchy is .hmesh's only (its CL** chunks); timed as LOD work.
		t = sw.Start(StageLODs, 0)
		cerr := guard(job, func() error {
			var err error
			c.clod[i], err = buildClusterLOD(ctx, s, pos, cr.GeneratedNormals, c.meshlets[i], c.mbounds[i], opts)
			return err
		})
		t.Stop()
		var ie *InternalError
		switch {
		case errors.As(cerr, &ie):
			return cr, cerr
		case cerr != nil:
			return cr, ctxOr(ctx, fail("cluster lod: ", cerr))
		}
	}
	switch {
	case ctx.Err() != nil:
		return cr, ctx.Err() // cancelled, not a fault of the source
	case boundsErr != nil:
		return cr, boundsErr // only a panic, already an internal error
	case lodErr != nil:
		var ie *InternalError
		if errors.As(lodErr, &ie) {
			return cr, lodErr
		}
		return cr, fail("lods: ", lodErr)
	case err != nil:
		return cr, fail("meshlets: ", err)
	}
	return cr, nil
}

// guard runs fn and turns a panic into an internal error naming the
// source: cookJob's recover sees only its own goroutine's panics.
func guard(job Job, fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = &InternalError{Path: job.Source, Err: fmt.Errorf("panic: %v", p)}
		}
	}()
	return fn()
}

// buildLODs simplifies one submesh into the configured levels (see
// simplify.Chain: each level continues from the previous one, so levels
// nest) and puts each level in vertex-cache order over the shared vertices.
// The source's own normals, UVs and colours are weighted as attributes;
// normals the cook generated from the positions are not (simplify/doc.go
// says why). progress (nil: none) hears the chain's removed triangles
// (simplify.Options.Progress). A done ctx stops it with ctx's error.
func buildLODs(ctx context.Context, s *mesh.Submesh, pos [][3]float32, generatedNormals bool, o LODOptions, progress func(done, total int)) ([]simplify.Level, error) {
	if len(o.Ratios) == 0 {
		return nil, nil
	}
	// Views of the streams, not copies: the simplifier only reads them.
	var attrs simplify.Attributes
	if !generatedNormals && o.NormalWeight > 0 {
		attrs.Normals = mesh.Floats3(s.Normals)
	}
	if o.UVWeight > 0 {
		attrs.UV0 = mesh.Floats2(s.UV0)
	}
	if o.ColorWeight > 0 {
		attrs.Colors = mesh.Floats4(s.Colors)
	}
	levels, err := simplify.ChainContext(ctx, s.Indices, pos, attrs, o.Ratios, simplify.Options{
		TargetError:      o.Error,
		AttributeWeights: simplify.Weights{Normal: o.NormalWeight, UV: o.UVWeight, Color: o.ColorWeight},
		LockBorder:       o.LockBorder,
		Permissive:       o.Permissive,
		Sloppy:           o.Sloppy,
		Progress:         progress,
	})
	if err != nil {
		return nil, err
	}
	if len(s.Indices)/3 >= collectAfterChainTris {
		runtime.GC()
	}
	// Each level is ordered on its own: in parallel, each into its own slot.
	errs := make([]error, len(levels))
	par.Each(len(levels), func(i int) {
		if len(levels[i].Indices) > 0 {
			levels[i].Indices, errs[i] = vertexCacheOrderContext(ctx, levels[i].Indices, pos)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err // only a done ctx stops it
		}
	}
	return levels, nil
}

// collectAfterChainTris is the submesh size (triangles) from which the
// cook runs a garbage collection as soon as the LOD chain returns. The
// chain's state (quadrics, adjacency, collapse lists: about 420 bytes a
// triangle) is the cook's largest allocation and is garbage from then on,
// but at GOGC 20 (cli.gcPercent) the collector only notices once the
// level orderings that follow have allocated another fifth of the heap on
// top of it: that was the cook's peak. Measured on the 1.19M-triangle
// bench mesh (bench/e2e), three runs each: peak RSS 564-578 MiB with the
// collection, 577-683 MiB without (the spike depends on where the last
// cycle fell); the collection itself takes a few milliseconds, as the
// live data are pointer-free. Below this size the state is small and a
// forced cycle per submesh would cost more than it saves.
const collectAfterChainTris = 1 << 18

// refineMaxTris is the largest index buffer (in triangles) whose vertex
// cache order gets meshlet's refine pass, which removes 1-3% of the greedy
// order's misses at about 1.4 times the greedy search's cost. Measured on
// the bench (bench/e2e, pprof): on the 1.19M-triangle mesh it was 1.3 s of
// CPU, against 3.0 s for gltfpack's whole run; on FlightHelmet 0.16 s of
// the cook's 1.02 s. It pays for itself only where it costs a few
// milliseconds: buffers of up to 2^14 triangles (the bunny).
const refineMaxTris = 1 << 14

// vertexCacheOrderContext is the cook's vertex-cache order of one index
// buffer over positions: above refineMaxTris the greedy order in spatial
// parts on every core (meshlet.OptimizeVertexCacheSplitContext); a done
// ctx stops it (its only error).
func vertexCacheOrderContext[P ~[3]float32](ctx context.Context, indices []uint32, positions []P) ([]uint32, error) {
	if len(indices)/3 > refineMaxTris {
		return meshlet.OptimizeVertexCacheSplitContext(ctx, indices, positions)
	}
	return meshlet.OptimizeVertexCacheContext(ctx, indices, len(positions))
}

// ctxOr is ctx's error when ctx is done (a step stopped by cancellation
// is not a fault of the source), else err.
func ctxOr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	return err
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
				if levels[l].Short {
					out[l].Short++
				}
				if levels[l].Sloppy {
					out[l].Sloppy++
				}
			} else {
				out[l].Stalled++
			}
			out[l].Triangles += drawn
		}
	}
	return out
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }

// drop records a drop the cook itself makes (not the importer's): counted
// in the report under the source's relative name, and a warning naming
// the source.
func (r *jobResult) drop(job Job, count int, what string) {
	r.drops = append(r.drops, DropReport{Source: job.Rel, What: what, Count: count})
	r.warnings = append(r.warnings, fmt.Sprintf("%s: dropped %d %s", job.Source, count, what))
}
