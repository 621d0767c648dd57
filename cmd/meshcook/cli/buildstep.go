package cli

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/internal/safename"
)

// buildStepFlags are cook's build-system flags: cache, check, depfile,
// logging and stats (docs/build-integration.md).
type buildStepFlags struct {
	cache    string
	noCache  bool
	cacheMax string
	check    bool
	dryRun   bool
	depfile  string
	quiet    bool
	stats    bool
	root     string

	remote        string   // --remote-cache URL
	remoteHeaders []string // --remote-header Name=Value
	remoteTimeout time.Duration

	start time.Time
	mem   *memSampler // --stats only
	bar   *stageBar   // on a terminal only
}

func addBuildStepFlags(f *pflag.FlagSet, b *buildStepFlags) {
	f.StringVar(&b.cache, "cache", "", "incremental cache folder (default: "+cook.CacheDirName+" beside the output folder)")
	f.BoolVar(&b.noCache, "no-cache", false, "neither read nor write the incremental cache")
	f.StringVar(&b.cacheMax, "cache-max", formatSize(cook.DefaultCacheMax), "cap on the cache's bytes; the least recently used entries are evicted past it")
	f.BoolVar(&b.check, "check", false, "cook into memory and compare with the output folder; exit 1 listing missing, changed and stale files; writes nothing")
	f.BoolVar(&b.dryRun, "dry-run", false, "cook through the cache but write no output and no depfile; --json lists every output a cook would write")
	f.StringVar(&b.depfile, "depfile", "", "write a Makefile-syntax depfile: every output and each input file it read")
	f.BoolVarP(&b.quiet, "quiet", "q", false, "no progress bar and no per-asset log lines")
	f.BoolVar(&b.stats, "stats", false, "print a summary table: stage times, cache hits and misses, bytes written, peak memory")
	f.StringVar(&b.remote, "remote-cache", "", "shared cache under the local one, over Bazel's HTTP cache protocol (URL/ac/, URL/cas/); a failing server only costs time")
	f.StringArrayVar(&b.remoteHeaders, "remote-header", nil, "header sent to the remote cache, as Name=Value (repeatable; e.g. Authorization=Bearer ...)")
	f.DurationVar(&b.remoteTimeout, "remote-timeout", cook.DefaultRemoteTimeout, "bound on each remote cache request, body included")
	f.StringVar(&b.root, "root", "", "root folder for source files named directly: their output names come from their path below it (as when the folder is cooked)")
}

// plan turns the command line into jobs: with --root the files are rooted
// there (cook.PlanRooted), otherwise cook.Plan.
func (b *buildStepFlags) plan(args []string) ([]cook.Job, error) {
	if b.root != "" {
		return cook.PlanRooted(b.root, args)
	}
	return cook.Plan(args)
}

// setup opens the cache and installs the progress bar (stderr is a
// terminal) or the one-line-per-asset log (it is not), unless --quiet.
func (b *buildStepFlags) setup(opts *cook.Options, out string, jobs []cook.Job, progress bool, stderr io.Writer) error {
	b.start = time.Now()
	if b.stats {
		b.mem = startMemSampler()
	}
	opts.Check = b.check
	opts.DryRun = b.dryRun
	if b.check && b.dryRun {
		return usageError("cook: --check and --dry-run: pick one")
	}
	if b.remote != "" && b.noCache {
		return usageError("cook: --remote-cache works under the local cache: drop --no-cache")
	}
	if !b.noCache && !b.check {
		max, err := parseSize(b.cacheMax)
		if err != nil {
			return usageError("cook: --cache-max: %v", err)
		}
		dir := b.cache
		if dir == "" {
			dir = cook.DefaultCacheDir(out)
		}
		c, err := cook.OpenCache(dir, int64(min(max, 1<<62)), cook.Toolchain())
		if err != nil {
			return withCode(ExitOutput, err)
		}
		opts.Cache = c
		if b.remote != "" {
			r, err := b.openRemote()
			if err != nil {
				return err
			}
			c.UseRemote(r)
		}
	}
	if b.quiet {
		return nil
	}
	if progress && isTerminal(stderr) {
		bar := newStageBar(stderr, len(jobs))
		b.bar = bar
		opts.StageProgress = bar.Event
		opts.Progress = func(done, total int, job cook.Job) { bar.JobDone(done) }
		return nil
	}
	var mu sync.Mutex
	opts.StageProgress = logSlowStages(stderr, &mu)
	opts.JobDone = func(s cook.JobStatus) {
		if s.Err != nil {
			return // the error line names it
		}
		verb := "cooked"
		switch {
		case s.Remote:
			verb = "fetched"
		case s.Cached:
			verb = "cached"
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "%s %s (%s)\n", verb, safename.Text(s.Job.Name), formatMS(s.MS))
	}
	return nil
}

// openRemote checks --remote-header and opens the --remote-cache client.
func (b *buildStepFlags) openRemote() (*cook.Remote, error) {
	h := http.Header{}
	for _, kv := range b.remoteHeaders {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, usageError("cook: --remote-header %q: want Name=Value", kv)
		}
		h.Add(strings.TrimSpace(k), v)
	}
	r, err := cook.OpenRemote(cook.RemoteOptions{URL: b.remote, Header: h, Timeout: b.remoteTimeout})
	if err != nil {
		return nil, usageError("%v", err)
	}
	return r, nil
}

func formatMS(ms float64) string {
	if ms < 10 {
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// finish writes the depfile, the stats table and the check listing; the
// error it returns (check found differences, depfile not written) is the
// command's when the cook itself succeeded.
func (b *buildStepFlags) finish(rep *cook.Report, jobs []cook.Job, asJSON bool, stdout, stderr io.Writer) error {
	if b.bar != nil {
		b.bar.Stop()
	}
	var err error
	if b.depfile != "" && !b.check && !b.dryRun {
		if derr := cook.WriteDepfile(b.depfile, rep); derr != nil {
			err = withCode(ExitOutput, derr)
		}
	}
	if b.stats {
		w := stdout
		if asJSON {
			w = stderr
		}
		printStats(w, rep, len(jobs), time.Since(b.start))
		if b.mem != nil {
			b.mem.Stop(w)
		}
	}
	if b.check && len(rep.Check) > 0 {
		if !asJSON {
			for _, d := range rep.Check {
				fmt.Fprintf(stdout, "%s %s\n", d.Status, d.Name)
			}
		}
		return withCode(ExitFailure, fmt.Errorf("cook --check: %d files differ from a fresh cook", len(rep.Check)))
	}
	return err
}

// printStats prints the human summary of a cook.
func printStats(w io.Writer, rep *cook.Report, jobs int, wall time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	var total float64
	for _, s := range rep.Stages {
		total += s.MS
	}
	fmt.Fprintf(tw, "stage\tms\tshare\t\n")
	for _, s := range rep.Stages {
		share := 0.0
		if total > 0 {
			share = 100 * s.MS / total
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f%%\t\n", s.Name, s.MS, share)
	}
	fmt.Fprintf(tw, "total (summed over workers)\t%.1f\t\t\n", total)
	tw.Flush()
	written := 0
	for _, o := range rep.Outputs {
		if o.Changed {
			written++
		}
	}
	lines := []string{
		fmt.Sprintf("jobs:          %d (%d cache hits, %d misses, %d failed)", jobs, rep.CacheHits, rep.CacheMisses, len(rep.Errors)),
		fmt.Sprintf("outputs:       %d (%d written, %d unchanged)", len(rep.Outputs), written, len(rep.Outputs)-written),
		fmt.Sprintf("bytes written: %d", rep.BytesWritten),
		fmt.Sprintf("wall time:     %s", wall.Round(time.Millisecond)),
	}
	if r := rep.Remote; r != nil {
		lines = append(lines, fmt.Sprintf("remote cache:  %d jobs fetched, %d entries uploaded, %d ignored", r.Jobs, r.Uploaded, r.Ignored))
	}
	fmt.Fprintln(w, strings.Join(lines, "\n"))
}
