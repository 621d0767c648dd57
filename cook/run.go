package cook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/meshcook/meshcook/internal/budget"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

// Options control a cook. The zero value is not useful; start from
// DefaultOptions, which is the one place defaults live (the CLI reads it).
type Options struct {
	// OutDir is the folder outputs are written under.
	OutDir string
	// Jobs is how many sources cook at once; <= 0 means GOMAXPROCS.
	Jobs int
	// Meshlet are the meshlet build limits and cone weight.
	Meshlet meshlet.Options
	// LOD controls the reduced levels written to .hmesh LODI/LODT.
	LOD LODOptions
	// Textures say how referenced images become .ktx2 files.
	Textures TextureOptions
	// Targets are the output formats to write (TargetHMesh, ...), in any
	// order; empty means hmesh.
	Targets []string
	// Progress, when set, is called after each job finishes (from one
	// goroutine at a time), with the count done so far.
	Progress func(done, total int, job Job)
	// BlobCeiling is the largest payload section of one .cnb blob
	// (TargetCNB) before the next payload starts a new blob; 0 puts every
	// payload in its own blob. DefaultOptions: 1 GiB.
	BlobCeiling uint64
	// Scenes are the project's scenes in declaration order (TargetCNB):
	// resources only one scene's sources produce go to that scene's group.
	Scenes []SceneSpec
	// Cache, when set, serves unchanged jobs from an incremental cache and
	// keeps what cooked (buildstep.go). Run flushes and closes it: open one
	// per Run.
	Cache *Cache
	// Check cooks into memory and compares with OutDir instead of writing:
	// Report.Check lists what differs.
	Check bool
	// DryRun cooks (through Cache, which it reads and fills) and reports
	// every output in Report.Outputs without writing any: what `meshcook
	// plan` uses to declare each job's outputs.
	DryRun bool
	// Prune removes the outputs an earlier cook wrote into OutDir that
	// this one does not produce (outputs of deleted or renamed sources),
	// never a file meshcook did not write (prune.go). It needs Cache, where
	// each cook records what it wrote, and is skipped when a source fails.
	Prune bool
	// JobDone, when set, is called after each job (from one goroutine at a
	// time), after Progress.
	JobDone func(JobStatus)
	// KeepNodes keeps one submesh per source primitive instance instead of
	// merging submeshes that draw alike (mesh.MergeDraws, the default).
	KeepNodes bool
	// Strict makes a job whose source has data the outputs do not carry
	// (Report.Dropped) fail as bad input: nothing of it is written.
	Strict bool
	// StageProgress, when set, is called as the stages of running jobs
	// start and finish pieces of work (from one goroutine at a time per
	// job, from several jobs' goroutines at once with Jobs > 1). It must
	// return quickly.
	StageProgress func(StageEvent)
	// StrictPaths refuses a source, or a file a source refers to, whose
	// real path leaves its folder through a symbolic link
	// (internal/srcpath); by default links are followed.
	StrictPaths bool
	// Budget bounds what one source may make the cook allocate, and the
	// memory the jobs cooking at once share (internal/budget); zero fields
	// are the defaults.
	Budget budget.Budget
	// ClusterLOD writes a cluster hierarchy per submesh (.hmesh CLHD..CLND,
	// package clusterlod), built over the meshlets with the LOD options'
	// attribute weights, permissive and lock-border settings.
	ClusterLOD bool

	// importer, when set, imports every source whose kind cook reads in
	// place of that kind's importer (tests: a scene no file gives).
	importer func(path string, opts Options) (*mesh.Scene, error)
}

// LODOptions are the distance-LOD settings.
type LODOptions struct {
	// Ratios are the target fractions of LOD0's triangles, strictly
	// decreasing in (0, 1); empty writes no LOD chunks.
	Ratios []float32
	// Error is the largest simplification error allowed, relative to the
	// submesh's extent (the longest side of its bounding box).
	Error float32
	// NormalWeight, UVWeight and ColorWeight weigh the source's own
	// normals, UVs and vertex colours against geometric error in the
	// simplifier's quadrics. Normals the cook generated (the source had
	// none) are never weighted: they carry nothing the positions lack
	// (see simplify/doc.go).
	NormalWeight, UVWeight, ColorWeight float32
	// LockBorder keeps open-border vertices and edges in every level.
	LockBorder bool
	// Permissive lets collapses cross attribute seams (UV seams).
	Permissive bool
	// Sloppy falls back to vertex clustering when edge collapse stalls
	// above a level's target; the level's error includes the clustering's.
	Sloppy bool
	// Distances are the .cnb switch distances of the reduced levels, one
	// per ratio, non-decreasing; empty uses the default rule
	// (payload.DefaultSwitchDistance per mesh).
	Distances []float32
	// BySource overrides these options for the sources whose path matches
	// one of an entry's globs (meshcook.json lodBySource); later entries
	// win. Ratios and distances stay the same for every source.
	BySource []LODOverride
}

// LODOverride is one meshcook.json lodBySource entry: LOD options for the
// sources matching its globs (relative to the project folder, as the
// project's sources globs). Nil fields keep the base value.
type LODOverride struct {
	Sources    []string    `json:"sources"`
	Error      *float32    `json:"lodError,omitempty"`
	Weights    *LODWeights `json:"lodWeights,omitempty"`
	LockBorder *bool       `json:"lodLockBorder,omitempty"`
	Permissive *bool       `json:"lodPermissive,omitempty"`
	Sloppy     *bool       `json:"lodSloppy,omitempty"`
}

// LODWeights are attribute weights as meshcook.json writes them; nil
// fields keep the base value.
type LODWeights struct {
	Normal *float32 `json:"normal,omitempty"`
	UV     *float32 `json:"uv,omitempty"`
	Color  *float32 `json:"color,omitempty"`
}

// applyWeights copies the set weights over o.
func (o *LODOptions) applyWeights(w *LODWeights) {
	if w == nil {
		return
	}
	if w.Normal != nil {
		o.NormalWeight = *w.Normal
	}
	if w.UV != nil {
		o.UVWeight = *w.UV
	}
	if w.Color != nil {
		o.ColorWeight = *w.Color
	}
}

// ForSource returns the LOD options of the source at rel (its path
// relative to the project folder): the base options with every matching
// BySource entry applied in order.
func (o LODOptions) ForSource(rel string) LODOptions {
	out := o
	out.BySource = nil
	for _, ov := range o.BySource {
		if matchAny(ov.Sources, rel) {
			out.apply(ov)
		}
	}
	return out
}

// apply copies the fields ov sets over o.
func (o *LODOptions) apply(ov LODOverride) {
	if ov.Error != nil {
		o.Error = *ov.Error
	}
	o.applyWeights(ov.Weights)
	if ov.LockBorder != nil {
		o.LockBorder = *ov.LockBorder
	}
	if ov.Permissive != nil {
		o.Permissive = *ov.Permissive
	}
	if ov.Sloppy != nil {
		o.Sloppy = *ov.Sloppy
	}
}

// kMaxLODWeight is the largest attribute weight (simplify's limit).
const kMaxLODWeight = 1e6

// validate checks the options that do not depend on the source.
func (o LODOptions) validate() error {
	prev := float32(1)
	for _, r := range o.Ratios {
		if !(r > 0 && r < prev) {
			return fmt.Errorf("lod ratios %v: each must be in (0, 1) and smaller than the one before", o.Ratios)
		}
		prev = r
	}
	check := func(lo LODOptions) error {
		if !(lo.Error >= 0) || lo.Error > 1 {
			return fmt.Errorf("lod error %g: want a fraction of the mesh extent in [0, 1]", lo.Error)
		}
		for _, w := range []float32{lo.NormalWeight, lo.UVWeight, lo.ColorWeight} {
			if !(w >= 0) || w > kMaxLODWeight {
				return fmt.Errorf("lod weight %g: want 0..%g", w, float32(kMaxLODWeight))
			}
		}
		return nil
	}
	if err := check(o); err != nil {
		return err
	}
	for i, ov := range o.BySource {
		if len(ov.Sources) == 0 {
			return fmt.Errorf("lodBySource[%d]: sources: name at least one glob", i)
		}
		for _, g := range ov.Sources {
			if err := checkGlob(g); err != nil {
				return fmt.Errorf("lodBySource[%d]: %w", i, err)
			}
		}
		// Each entry applied alone over the base must be valid; entries
		// only set fields, so every combination is then valid too.
		one := o
		one.apply(ov)
		if err := check(one); err != nil {
			return fmt.Errorf("lodBySource[%d]: %w", i, err)
		}
	}
	return nil
}

// DefaultOptions returns the documented defaults: meshlets of at most 64
// vertices and 124 triangles, cone weight 0.25; LODs at 50% and 25% of the
// triangles with at most 1% error, authored normals and UVs weighted 0.5
// and colours 1; .cnb blobs of at most 1 GiB of
// payload; one worker per CPU.
func DefaultOptions() Options {
	return Options{
		Meshlet: meshlet.DefaultOptions(),
		LOD: LODOptions{
			Ratios:       simplify.DefaultRatios(),
			Error:        simplify.DefaultTargetError,
			NormalWeight: 0.5,
			UVWeight:     0.5,
			ColorWeight:  1,
		},
		BlobCeiling: DefaultBlobCeiling,
		Budget:      budget.Default(),
		Textures:    DefaultTextureOptions(),
	}
}

// Validate checks the options a user can set.
func (o Options) Validate() error {
	if err := o.Meshlet.Validate(); err != nil {
		return err
	}
	for _, t := range o.Targets {
		if !slices.Contains(KnownTargets(), t) {
			return fmt.Errorf("unknown target %q (known: %s)", t, strings.Join(KnownTargets(), ", "))
		}
	}
	if err := o.LOD.validate(); err != nil {
		return err
	}
	if err := o.validateWorld(); err != nil {
		return err
	}
	return o.Textures.Validate()
}

// jobResult is everything one job produced, joined in job order.
type jobResult struct {
	outputs  []OutputReport
	mesh     *MeshReport
	warnings []string
	drops    []DropReport // what the source had that the outputs do not carry
	err      error
	stageMS  map[string]float64
	cnb      []cnbResource // this job's world resources (TargetCNB)
	files    []outputFile  // encoded and validated outputs, committed by runJob
	imported []string      // mesh.Scene.Files of the source
	deps     []string      // files read besides the source (jobDeps)
	cached   bool          // served from Options.Cache
	remote   bool          // ... by its remote level
	ms       float64       // wall time of the job
}

// Run cooks every job and returns the report. Failed jobs are reported in
// Report.Errors (and counted by kind) and write nothing; the others still
// cook. The returned error is only for a cancelled context or invalid
// options.
func Run(ctx context.Context, jobs []Job, opts Options) (*Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("cook: %w", err)
	}
	if opts.Prune && (opts.Cache == nil || opts.Check || opts.DryRun) {
		return nil, errors.New("cook: prune needs a cook that writes through the cache (where each cook records what it wrote): not with no cache, check or dry run")
	}
	if st, err := os.Stat(opts.OutDir); err == nil && !st.IsDir() {
		// One error for the run, not one per source.
		return nil, &OutputError{Path: opts.OutDir, Err: errors.New("is a file, not a folder (-o names the output folder)")}
	}
	if opts.Cache != nil {
		defer opts.Cache.release() // also when cancelled; finishRun flushes first
	}
	workers := opts.Jobs
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(len(jobs), 1))

	ctx = budget.WithPool(ctx, budget.NewPool(opts.Budget.OrDefault().Memory))
	results := make([]jobResult, len(jobs))
	bases := make([]string, len(jobs))
	served := make([]bool, len(jobs))
	if opts.Cache != nil && !opts.Check {
		served = serveHits(ctx, jobs, opts, results, bases) // buildstep.go
	}
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for _, s := range served {
		if s {
			done++
		}
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = runJob(ctx, jobs[i], opts, i, bases[i])
				mu.Lock()
				done++
				if opts.Progress != nil {
					opts.Progress(done, len(jobs), jobs[i])
				}
				if opts.JobDone != nil {
					opts.JobDone(JobStatus{Job: jobs[i], Cached: results[i].cached, Remote: results[i].remote, MS: results[i].ms, Err: results[i].err})
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range jobs {
		if served[i] {
			continue
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("cook: %w", err)
	}

	// Join in job order so the report is deterministic.
	rep := &Report{Outputs: []OutputReport{}, Meshes: []MeshReport{}, Warnings: []string{}, Errors: []string{}, Dropped: []DropReport{}}
	stageMS := map[string]float64{}
	for _, r := range results {
		for k, v := range r.stageMS {
			stageMS[k] += v
		}
		rep.Warnings = append(rep.Warnings, r.warnings...)
		rep.Dropped = append(rep.Dropped, r.drops...)
		if r.err != nil {
			rep.Errors = append(rep.Errors, r.err.Error())
			var oe *OutputError
			var ie *InternalError
			switch {
			case errors.As(r.err, &ie):
				rep.InternalErrors++
			case errors.As(r.err, &oe):
				rep.OutputErrors++
			default:
				rep.InputErrors++
			}
			continue
		}
		rep.Outputs = append(rep.Outputs, r.outputs...)
		if r.mesh != nil {
			rep.Meshes = append(rep.Meshes, *r.mesh)
		}
	}
	for _, name := range stageOrder {
		rep.Stages = append(rep.Stages, StageReport{Name: name, MS: roundMS(stageMS[name])})
	}
	if slices.Contains(opts.targets(), TargetCNB) {
		writeWorld(ctx, jobs, results, opts, rep)
	}
	finishRun(jobs, results, opts, rep)
	recordOutputs(opts, rep)
	return rep, nil
}

func roundMS(ms float64) float64 { return float64(int64(ms*1000+0.5)) / 1000 }

// StageEvent reports a job's progress through one stage
// (Options.StageProgress): a piece of the stage started or stopped.
type StageEvent struct {
	Job   Job
	Stage string
	// Done and Total measure the stage's work in units: triangles of the
	// submeshes whose piece of the stage finished, of all submeshes'
	// (one unit for the job-wide stages: import, pack, validate); a
	// running LOD chain adds its share as the simplifier removes
	// triangles (simplify.Options.Progress).
	Done, Total int
	// Elapsed is the wall time since the stage first started for the job.
	Elapsed time.Duration
	// Finished is set on the event that completes the stage for the job.
	Finished bool
}

// stopwatch accumulates wall time per stage for one job and reports its
// progress. Stages of one job can run at once on several goroutines
// (process): each adds its own time, so a stage's figure is summed over
// them and the stages of a job can add up to more than its wall time.
type stopwatch struct {
	mu    sync.Mutex
	ms    map[string]float64
	stage string // Begin's running stage
	start time.Time

	job      Job
	progress func(StageEvent) // nil: no reports
	units    map[string]*stageUnits
}

// stageUnits is one stage's work for progress reports.
type stageUnits struct {
	done, total int
	expected    bool // total comes from Expect
	first       time.Time
}

func newStopwatch() *stopwatch {
	return &stopwatch{ms: map[string]float64{}, units: map[string]*stageUnits{}}
}

// reporting returns s reporting to fn (nil: none) for job.
func (s *stopwatch) reporting(job Job, fn func(StageEvent)) *stopwatch {
	s.job, s.progress = job, fn
	return s
}

// Expect adds total units to the work of stage (one unit if never set; a
// job whose scene is processed twice, merged and flat, expects twice).
func (s *stopwatch) Expect(stage string, total int) {
	s.mu.Lock()
	u := s.unitsOf(stage)
	if !u.expected {
		u.total, u.expected = 0, true
	}
	u.total += total
	s.mu.Unlock()
}

func (s *stopwatch) unitsOf(stage string) *stageUnits {
	u := s.units[stage]
	if u == nil {
		u = &stageUnits{total: 1}
		s.units[stage] = u
	}
	return u
}

// Begin ends the running stage (if any) and starts the named one: the
// sequential stages of the job's own goroutine, one unit each.
func (s *stopwatch) Begin(stage string) {
	s.End()
	s.stage, s.start = stage, time.Now()
	s.event(stage, 0, s.start, false)
}

// End stops the running stage.
func (s *stopwatch) End() {
	if s.stage != "" {
		s.stop(s.stage, s.start, -1)
		s.stage = ""
	}
}

// Start times one piece of a stage, of the given units, on any goroutine
// until Stop.
func (s *stopwatch) Start(stage string, units int) stageTimer {
	now := time.Now()
	s.event(stage, 0, now, false)
	return stageTimer{s, stage, now, units, new(int)}
}

// event reports stage progress: done more units finished at now.
func (s *stopwatch) event(stage string, done int, now time.Time, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := s.unitsOf(stage)
	if u.first.IsZero() {
		u.first = now
	}
	if done < 0 {
		done = u.total - u.done // a whole job-wide stage
	}
	u.done += done
	if s.progress != nil {
		s.progress(StageEvent{Job: s.job, Stage: stage, Done: u.done, Total: u.total,
			Elapsed: now.Sub(u.first), Finished: stopped && u.done >= u.total})
	}
}

// stop adds the piece's time and reports its units done (-1: the stage).
func (s *stopwatch) stop(stage string, start time.Time, units int) {
	now := time.Now()
	s.mu.Lock()
	s.ms[stage] += float64(now.Sub(start).Microseconds()) / 1000
	s.mu.Unlock()
	s.event(stage, units, now, true)
}

// stageTimer is one running piece of a stage (stopwatch.Start).
type stageTimer struct {
	sw       *stopwatch
	stage    string
	start    time.Time
	units    int
	reported *int // units Progress reported done
}

// Progress reports that done of the piece's units are finished, while it
// runs (a long piece's fraction, so a bar moves within the stage); called
// on the goroutine that calls Stop. Stop reports the rest.
func (t stageTimer) Progress(done int) {
	done = min(max(done, 0), t.units)
	if d := done - *t.reported; d > 0 {
		*t.reported = done
		t.sw.event(t.stage, d, time.Now(), false)
	}
}

func (t stageTimer) Stop() { t.sw.stop(t.stage, t.start, t.units-*t.reported) }
