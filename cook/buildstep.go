package cook

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zeebo/xxh3"

	"github.com/meshcook/meshcook/internal/atomicfile"
	"github.com/meshcook/meshcook/internal/par"

	"github.com/meshcook/meshcook/formats/cnb"
)

// This file makes cook a build step: the incremental cache around each
// job, committing (or, with Options.Check, comparing) outputs, and the
// report's cache, byte and check figures.

// JobStatus is what Options.JobDone hears after each job.
type JobStatus struct {
	Job    Job
	Cached bool    // the result came from the cache
	Remote bool    // ... and the remote cache served it (Cached is set too)
	MS     float64 // wall time of the job, cache lookup and write included
	Err    error   // the job's error, nil when it cooked
}

// Check statuses (CheckDiff.Status).
const (
	CheckMissing = "missing" // the cook would write it; it is not on disk
	CheckChanged = "changed" // on disk with other bytes
	CheckStale   = "stale"   // on disk under the output folder; the cook would not write it
)

// CheckDiff is one difference a check cook found (Options.Check).
type CheckDiff struct {
	Name   string `json:"name"` // relative to the output folder, '/'-separated
	Status string `json:"status"`
}

// lookupWorkers bounds how many jobs serveHits looks up (and stages) at
// once: lookups wait on files and, with a remote cache, on the network,
// so more of them run than there are cores.
const lookupWorkers = 8

// serveHits looks every job up in the cache before any job cooks,
// lookupWorkers at a time (so a remote cache's downloads run in parallel,
// bounded), writes each hit's outputs to temp files as soon as it is
// found, then commits every hit at once (commitStaged: two filesystem
// syncs for them all). served[i] reports that the cache served job i:
// results[i] is then set (its outputs, or the error committing them;
// such a job is not cooked again), and bases[i] is every job's base key
// for storeJob. Progress and JobDone hear of the hits in job
// order. The results do not depend on the order the lookups finish in:
// each job's is its own, and the cache orders what it keeps by job index.
func serveHits(ctx context.Context, jobs []Job, opts Options, results []jobResult, bases []string) (served []bool) {
	served = make([]bool, len(jobs))
	staged := make([]*stagedOutputs, len(jobs))
	par.Workers(len(jobs), lookupWorkers, func(_, i int) {
		if ctx.Err() != nil {
			return
		}
		start := time.Now()
		res, base := cachedJob(jobs[i], opts, i)
		bases[i] = base
		if !res.cached {
			return
		}
		served[i] = true
		res = strictJob(jobs[i], opts, res)
		if res.err == nil {
			w := time.Now()
			st, err := opts.stageOutputs(res.files)
			if err != nil {
				res = jobResult{err: err, warnings: res.warnings}
			} else {
				staged[i] = st
			}
			res.stageMS = map[string]float64{StageWrite: msSince(w)}
		}
		res.ms = msSince(start)
		results[i] = res
	})
	if ctx.Err() != nil { // Run returns the cancellation: replace nothing
		for _, st := range staged {
			if st != nil {
				st.abort()
			}
		}
		return served
	}
	var hits []int
	var commit []*stagedOutputs
	for i, st := range staged {
		if st != nil {
			hits = append(hits, i)
			commit = append(commit, st)
		}
	}
	w := time.Now()
	errs := commitStaged(opts.OutDir, commit)
	share := msSince(w) / float64(max(len(hits), 1))
	for k, i := range hits {
		r := &results[i]
		r.ms += share
		r.stageMS[StageWrite] += share
		if errs[k] != nil {
			*r = jobResult{err: errs[k], warnings: r.warnings, stageMS: r.stageMS, ms: r.ms}
			continue
		}
		r.outputs = commit[k].reps
	}
	done := 0
	for i := range jobs {
		if !served[i] {
			continue
		}
		done++
		if opts.Progress != nil {
			opts.Progress(done, len(jobs), jobs[i])
		}
		if opts.JobDone != nil {
			opts.JobDone(JobStatus{Job: jobs[i], Cached: results[i].cached, Remote: results[i].remote, MS: results[i].ms, Err: results[i].err})
		}
	}
	return served
}

// runJob cooks one job the cache did not serve (serveHits), adds it to the
// cache under base ("" without a cache) and commits its outputs.
func runJob(ctx context.Context, job Job, opts Options, order int, base string) jobResult {
	start := time.Now()
	res := cookJob(ctx, job, opts)
	if res.err == nil {
		res.deps = jobDeps(job, res.imported)
		storeJob(job, opts, order, base, &res)
	}
	res = strictJob(job, opts, res)
	if res.err == nil {
		w := time.Now()
		outs, err := opts.commitOutputs(res.files)
		if err != nil {
			res = jobResult{err: err, warnings: res.warnings, stageMS: res.stageMS}
		} else {
			res.outputs = outs
		}
		if res.stageMS == nil {
			res.stageMS = map[string]float64{}
		}
		res.stageMS[StageWrite] += msSince(w)
	}
	res.ms = msSince(start)
	return res
}

// strictJob is res, or with Options.Strict the input error of a result
// that drops data.
func strictJob(job Job, opts Options, res jobResult) jobResult {
	if res.err == nil && opts.Strict && len(res.drops) > 0 {
		return jobResult{err: strictError(job, res.drops), warnings: res.warnings, drops: res.drops, stageMS: res.stageMS}
	}
	return res
}

func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// cachedJob looks the job up: the source's bytes name the base key, whose
// Pipeline entry lists the files to hash for the full key. base is "" when
// there is no cache (or Check is set: a check proves outputs from the
// sources alone) or the source cannot be read.
func cachedJob(job Job, opts Options, order int) (res jobResult, base string) {
	c := opts.Cache
	if c == nil || opts.Check {
		return res, ""
	}
	src, err := os.ReadFile(job.Source)
	if err != nil {
		return res, ""
	}
	base = baseKey(c.toolchain, opts, job, src)
	db, ok := c.get(cnb.CachePipeline, base, order)
	if !ok {
		return res, base
	}
	deps := decodeDeps(job, db)
	if opts.StrictPaths && job.escapes(deps) {
		return res, base // the cook refuses it, naming the link
	}
	contents, ok := readDeps(deps)
	if !ok {
		return res, base
	}
	var r *jobResult // decoded by the remote's check, or below
	rb, ok, remote := c.getFrom(cnb.CachePayload, fullKey(base, deps, contents), order, func(b []byte) (err error) {
		r, err = checkRemoteRecord(b)
		return err
	})
	if !ok {
		return res, base
	}
	if r == nil {
		var err error
		if r, err = decodeRecord(rb); err != nil {
			c.warn("cache: entry for %s ignored: %v", job.Source, err)
			return res, base
		}
	}
	r.deps, r.cached, r.remote = deps, true, remote
	return *r, base
}

// storeJob adds a cooked job to the cache. The source is read again after
// the cook and the entry dropped when it changed meanwhile. The referenced
// files are read after the cook too: one edited while the job cooked could
// pair the old result with the new bytes' key (as with any build tool that
// hashes inputs it does not hold open; the next edit or --no-cache fixes it).
func storeJob(job Job, opts Options, order int, base string, res *jobResult) {
	c := opts.Cache
	if c == nil || base == "" {
		return
	}
	contents, ok := readDeps(res.deps)
	if !ok {
		return
	}
	rb, err := encodeRecord(res)
	if err != nil {
		return
	}
	src, err := os.ReadFile(job.Source)
	if err != nil || baseKey(c.toolchain, opts, job, src) != base {
		return
	}
	c.put(cnb.CachePipeline, base, encodeDeps(job, res.deps), order)
	c.put(cnb.CachePayload, fullKey(base, res.deps, contents), rb, order)
}

// removeStaleTemps removes the temp files killed cooks left for outputs
// this cook produced (internal/atomicfile.RemoveStale): only a cook killed
// between creating and renaming one leaves it, and the next cook that
// produces the same output removes it, whether or not it had to rewrite
// the output. Temps of a writer still running (a concurrent cook's) are
// left alone, and so are temps of outputs this cook did not produce. One
// directory read per output folder.
func removeStaleTemps(outputs []OutputReport) {
	produced := map[string]bool{}
	var dirs []string
	for _, o := range outputs {
		produced[o.Path] = true
		if d := filepath.Dir(o.Path); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		atomicfile.RemoveStale(d, func(target string) bool { return produced[filepath.Join(d, target)] })
	}
}

// finishRun fills the report's build-step figures once every job and the
// world are done, and flushes the cache.
func finishRun(jobs []Job, results []jobResult, opts Options, rep *Report) {
	for _, r := range results {
		switch {
		case opts.Cache == nil:
		case r.cached:
			rep.CacheHits++
		default:
			rep.CacheMisses++
		}
	}
	for _, o := range rep.Outputs {
		if o.Changed && !opts.Check && !opts.DryRun {
			rep.BytesWritten += int64(o.Bytes)
		}
	}
	switch {
	case opts.Check:
		rep.Check = checkDiffs(opts, rep)
	case !opts.DryRun:
		removeStaleTemps(rep.Outputs)
	}
	if opts.Cache != nil {
		if !opts.Check {
			rep.Warnings = append(rep.Warnings, opts.Cache.Flush()...)
		}
		rep.Warnings = append(rep.Warnings, opts.Cache.takeWarnings()...)
		if rep.Remote = opts.Cache.RemoteReport(); rep.Remote != nil {
			for _, r := range results {
				if r.remote {
					rep.Remote.Jobs++
				}
			}
		}
		opts.Cache.release()
	}
	// Inputs of each output: its job's source and dependencies; world
	// outputs read every job's.
	byName := map[string][]string{}
	var all []string
	for i, r := range results {
		if r.err != nil {
			continue
		}
		in := append([]string{jobs[i].Source}, r.deps...)
		all = append(all, in...)
		for _, o := range r.outputs {
			byName[o.Name] = in
		}
	}
	for i := range rep.Outputs {
		if in, ok := byName[rep.Outputs[i].Name]; ok {
			rep.Outputs[i].Inputs = in
		} else {
			rep.Outputs[i].Inputs = all
		}
	}
}

// checkDiffs lists the outputs a check cook found missing or changed, and
// the files under the output folder it would not write (temp files of a
// killed cook and cache folders excepted), sorted by name.
func checkDiffs(opts Options, rep *Report) []CheckDiff {
	diffs := []CheckDiff{}
	want := map[string]bool{}
	for _, o := range rep.Outputs {
		want[o.Name] = true
		if !o.Changed {
			continue
		}
		st := CheckChanged
		if _, err := os.Stat(o.Path); errors.Is(err, fs.ErrNotExist) {
			st = CheckMissing
		}
		diffs = append(diffs, CheckDiff{Name: o.Name, Status: st})
	}
	var cacheDir string
	if opts.Cache != nil {
		cacheDir, _ = filepath.Abs(opts.Cache.dir)
	}
	filepath.WalkDir(opts.OutDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if abs, _ := filepath.Abs(p); d.Name() == CacheDirName || (cacheDir != "" && abs == cacheDir) {
				return filepath.SkipDir
			}
			return nil
		}
		if atomicfile.Target(d.Name()) != "" {
			return nil
		}
		rel, err := filepath.Rel(opts.OutDir, p)
		if err != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if !want[rel] {
			diffs = append(diffs, CheckDiff{Name: rel, Status: CheckStale})
		}
		return nil
	})
	sort.Slice(diffs, func(i, j int) bool { return diffs[i].Name < diffs[j].Name })
	return slices.Clip(diffs)
}

// WriteDepfile writes a Makefile-syntax depfile: one rule per output,
// naming every file that output's job read (its source, external buffers,
// textures; every source for the world's files), then one rule for the
// depfile itself naming every input. The depfile is rewritten by every
// cook, so Make can use it as the stamp of the cook (outputs whose bytes
// did not change keep their old mtimes). Paths are escaped for make and
// ninja (spaces, '#', '$', backslashes before them).
func WriteDepfile(path string, rep *Report) error {
	var b strings.Builder
	rule := func(target string, inputs []string) {
		b.WriteString(depEscape(target))
		b.WriteString(":")
		for _, in := range inputs {
			b.WriteString(" \\\n  ")
			b.WriteString(depEscape(in))
		}
		b.WriteString("\n")
	}
	var all []string
	for _, o := range rep.Outputs {
		rule(o.Path, o.Inputs)
		for _, in := range o.Inputs {
			if !slices.Contains(all, in) {
				all = append(all, in)
			}
		}
	}
	rule(path, all)
	if err := writeAtomic(path, []byte(b.String())); err != nil {
		return fmt.Errorf("cook: depfile %s: %w", path, err)
	}
	return nil
}

// depEscape escapes a path for a make rule: '$' as "$$", '#' as "\#", a
// space as "\ " (with any backslashes right before it doubled), and
// backslashes turned to '/' on Windows-style paths are left as they are.
func depEscape(p string) string {
	p = filepath.ToSlash(p)
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '$':
			b.WriteString("$$")
		case '#':
			b.WriteString(`\#`)
		case ' ', '\t':
			// backslashes before a space must be doubled
			for j := i - 1; j >= 0 && p[j] == '\\'; j-- {
				b.WriteByte('\\')
			}
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func xxh3Hex(b []byte) string { return fmt.Sprintf("%016x", xxh3.Hash(b)) }

// strictError is the input error Options.Strict makes of a job whose
// source has data its outputs would not carry.
func strictError(job Job, drops []DropReport) error {
	parts := make([]string, len(drops))
	for i, d := range drops {
		parts[i] = fmt.Sprintf("%d %s", d.Count, d.What)
	}
	return &InputError{Path: job.Source, Err: fmt.Errorf("--strict: would drop %s", strings.Join(parts, "; "))}
}
