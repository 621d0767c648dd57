// Command e2e times `meshcook cook` and gltfpack (the npm package's WASM
// build under node, pinned in package-lock.json) as whole processes on the
// same files, alternating, and prints median wall time, CPU time and peak
// RSS per tool with the ratios meshcook/gltfpack. `make bench-e2e` builds
// meshcook, installs gltfpack and runs it; see README.md.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
}

type config struct {
	corpus   string
	dir      string // this folder (node_modules/gltfpack)
	meshcook string
	baseline string // another meshcook binary timed beside it ("" for none)
	runs     int
	sub      int
	fanTris  int
	only     string
	stats    bool
	keep     string
	gen      bool // child mode: only write the inputs and counts.json
	timeout  time.Duration
}

// tool is one command line timed as a whole process; {in} and {out} are
// replaced by the input file and a fresh output path per run.
type tool struct {
	name string
	argv []string
}

// sample is one finished run of a tool.
type sample struct {
	wall, cpu time.Duration
	rssKiB    int64
	timedOut  bool // stopped after the -timeout
}

// bench is one input with the tools timed on it and the ratios printed.
type bench struct {
	name   string
	input  string
	tris   int
	tools  []tool
	ratios [][2]int // pairs of tool indices: tools[a] / tools[b]
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("e2e", flag.ContinueOnError)
	var cfg config
	fs.StringVar(&cfg.corpus, "corpus", "../shared/corpus", "shared corpus folder")
	fs.StringVar(&cfg.dir, "dir", "bench/e2e", "folder holding node_modules/gltfpack")
	fs.StringVar(&cfg.meshcook, "meshcook", "bin/meshcook", "meshcook binary to time")
	fs.StringVar(&cfg.baseline, "baseline", "", "another meshcook binary (say, main's) timed in the same rounds, as \"baseline\", on the big mesh, FlightHelmet and the bunny")
	fs.IntVar(&cfg.runs, "runs", 5, "timed runs per tool and input (median reported)")
	fs.IntVar(&cfg.sub, "sub", 18, "the big mesh splits each bunny triangle into sub×sub triangles (18: 1.19M)")
	fs.IntVar(&cfg.fanTris, "fan", 200000, "triangles of the fan (and about as many in the grid)")
	fs.StringVar(&cfg.only, "only", "", "comma-separated inputs to run: big, FlightHelmet, bunny, fan (all when empty)")
	fs.BoolVar(&cfg.stats, "stats", false, "after timing, run meshcook cook --stats once per input and print its table")
	fs.StringVar(&cfg.keep, "work", "", "work folder for generated inputs and outputs (default: a temporary folder, removed)")
	fs.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "longest run: a tool whose run takes longer is stopped, reported as timed out and not run again")
	fs.BoolVar(&cfg.gen, "gen", false, "internal: write the generated inputs into -work and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	work := cfg.keep
	if work == "" {
		d, err := os.MkdirTemp("", "meshcook-e2e-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		work = d
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	mc, err := filepath.Abs(cfg.meshcook)
	if err != nil {
		return err
	}
	if _, err := os.Stat(mc); err != nil {
		return fmt.Errorf("meshcook binary: %w (make build)", err)
	}
	gp, err := filepath.Abs(filepath.Join(cfg.dir, "node_modules", "gltfpack", "cli.js"))
	if err != nil {
		return err
	}
	if _, err := os.Stat(gp); err != nil {
		return fmt.Errorf("gltfpack: %w (npm ci --prefix %s)", err, cfg.dir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return err
	}
	cook := func(bin, name string, extra ...string) tool {
		if len(extra) > 0 {
			name += " " + strings.Join(extra, " ")
		}
		return tool{name, append([]string{bin, "cook", "{in}", "-o", "{out}", "--no-cache", "-q"}, extra...)}
	}
	meshcook := func(extra ...string) tool { return cook(mc, "meshcook", extra...) }
	var base string
	if cfg.baseline != "" {
		if base, err = filepath.Abs(cfg.baseline); err != nil {
			return err
		}
		if _, err := os.Stat(base); err != nil {
			return fmt.Errorf("baseline binary: %w", err)
		}
	}
	// withBaseline adds the baseline's runs of b's first n tools (meshcook
	// commands) and their ratios to tool ref.
	withBaseline := func(b bench, n, ref int) bench {
		if base == "" {
			return b
		}
		for i := range n {
			t := b.tools[i]
			t.name = "baseline" + strings.TrimPrefix(t.name, "meshcook")
			t.argv = append([]string{base}, t.argv[1:]...)
			b.tools = append(b.tools, t)
			b.ratios = append(b.ratios, [2]int{len(b.tools) - 1, ref})
		}
		return b
	}
	gltfpack := tool{"gltfpack -si 0.25", []string{node, gp, "-i", "{in}", "-o", "{out}.glb", "-si", "0.25"}}

	want := func(name string) bool {
		return cfg.only == "" || slices.Contains(strings.Split(cfg.only, ","), name)
	}
	if cfg.gen {
		return generate(cfg, work, want, stdout)
	}
	// The inputs are generated by a child process: Linux carries a
	// process's peak RSS over into the children it starts (exec keeps the
	// high-water mark of the mm it replaces), so a parent that once held
	// the big mesh would show up in every tool's peak RSS.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	gen := exec.Command(self, append(slices.Clone(args), "-gen", "-work", work)...)
	gen.Stdout, gen.Stderr = stdout, os.Stderr
	if err := gen.Run(); err != nil {
		return fmt.Errorf("generating inputs: %w", err)
	}
	tris, err := readCounts(work)
	if err != nil {
		return err
	}
	var benches []bench
	if want("big") {
		name := fmt.Sprintf("bunny-sub%d", cfg.sub)
		benches = append(benches, withBaseline(bench{name: name, input: filepath.Join(work, name+".glb"), tris: tris[name],
			tools: []tool{meshcook(), meshcook("--lods", "none"), gltfpack}, ratios: [][2]int{{0, 2}, {1, 2}}}, 2, 2))
	}
	if want("FlightHelmet") {
		p := filepath.Join(cfg.corpus, "gltf", "FlightHelmet", "FlightHelmet.gltf")
		// --textures rgba8 leaves the Basis Universal encode out (gltfpack
		// only copies the images): the mesh work compared alike.
		benches = append(benches, withBaseline(bench{name: "FlightHelmet", input: p, tris: tris["FlightHelmet"],
			tools: []tool{meshcook(), meshcook("--textures", "rgba8"), gltfpack}, ratios: [][2]int{{0, 2}, {1, 2}}}, 2, 2))
	}
	if want("bunny") {
		benches = append(benches, withBaseline(bench{name: "bunny", input: filepath.Join(work, "bunny.glb"), tris: tris["bunny"],
			tools: []tool{meshcook(), gltfpack}, ratios: [][2]int{{0, 1}}}, 1, 1))
	}
	if want("fan") {
		// One bench with two inputs: the fan and grid tools carry their
		// inputs in argv instead of {in}.
		var tools []tool
		for _, extra := range [][]string{nil, {"--lods", "none"}} {
			for _, in := range []string{"fan", "grid"} {
				t := meshcook(extra...)
				t.name = fmt.Sprintf("%s %s (%d tris)", t.name, in, tris[in])
				t.argv = replaceArg(t.argv, "{in}", filepath.Join(work, in+".glb"))
				tools = append(tools, t)
			}
		}
		benches = append(benches, bench{name: "fan vs grid", tools: tools, ratios: [][2]int{{0, 1}, {2, 3}}})
	}

	fmt.Fprintf(stdout, "%d runs per tool, alternating (the first tool of each round rotates); wall and CPU medians, peak RSS median (getrusage of the child)\n", cfg.runs)
	for _, b := range benches {
		samples, err := measure(b, cfg.runs, work, cfg.timeout)
		if err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		report(stdout, b, samples)
		if cfg.stats {
			if err := printStats(stdout, b, mc, work, cfg.timeout); err != nil {
				return err
			}
		}
	}
	return nil
}

// measure runs every tool of b runs times, rotating which goes first in
// each round, so slow phases of a shared machine hit all tools alike.
func measure(b bench, runs int, work string, timeout time.Duration) ([][]sample, error) {
	out := make([][]sample, len(b.tools))
	for r := range runs {
		for k := range b.tools {
			t := (r + k) % len(b.tools)
			if n := len(out[t]); n > 0 && out[t][n-1].timedOut {
				continue
			}
			s, err := runOnce(b.tools[t], b.input, filepath.Join(work, "out"), timeout)
			if err != nil {
				return nil, err
			}
			out[t] = append(out[t], s)
		}
	}
	return out, nil
}

// runOnce runs one tool into a fresh output folder and returns its wall
// time and the child's own resource usage (wait4).
func runOnce(t tool, input, outDir string, timeout time.Duration) (sample, error) {
	if err := os.RemoveAll(outDir); err != nil {
		return sample{}, err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return sample{}, err
	}
	argv := replaceArg(replaceArg(t.argv, "{in}", input), "{out}", filepath.Join(outDir, "o"))
	for i, a := range argv {
		if strings.HasPrefix(a, "{out}") {
			argv[i] = filepath.Join(outDir, "o") + strings.TrimPrefix(a, "{out}")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...) // SIGKILL at the timeout
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ctx.Err() != nil {
		return sample{wall: wall, timedOut: true}, nil
	}
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return sample{}, fmt.Errorf("no rusage for %s", t.name)
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall, cpu: cpu, rssKiB: ru.Maxrss}, nil
}

func replaceArg(argv []string, from, to string) []string {
	out := slices.Clone(argv)
	for i, a := range out {
		if a == from {
			out[i] = to
		}
	}
	return out
}

func median[T int64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

type summary struct {
	wall, cpu time.Duration
	rssKiB    int64
	timedOut  bool
}

func summarize(s []sample) summary {
	var wall, cpu []time.Duration
	var rss []int64
	for _, x := range s {
		wall, cpu, rss = append(wall, x.wall), append(cpu, x.cpu), append(rss, x.rssKiB)
	}
	return summary{wall: median(wall), cpu: median(cpu), rssKiB: median(rss)}
}

func report(w io.Writer, b bench, samples [][]sample) {
	title := b.name
	if b.tris > 0 {
		title = fmt.Sprintf("%s (%d triangles)", b.name, b.tris)
	}
	fmt.Fprintf(w, "\n== %s\n", title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "tool\twall ms\tcpu ms\tpeak RSS MiB\twall runs ms\t\n")
	sum := make([]summary, len(b.tools))
	for i, t := range b.tools {
		sum[i] = summarize(samples[i])
		var runs []string
		timedOut := false
		for _, s := range samples[i] {
			runs = append(runs, fmt.Sprintf("%.0f", ms(s.wall)))
			timedOut = timedOut || s.timedOut
		}
		if timedOut {
			fmt.Fprintf(tw, "%s\t> %.0f\ttimed out\t\t%s\t\n", t.name, ms(samples[i][len(samples[i])-1].wall), strings.Join(runs, " "))
			sum[i].timedOut = true
			continue
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.0f\t%.1f\t%s\t\n", t.name, ms(sum[i].wall), ms(sum[i].cpu), float64(sum[i].rssKiB)/1024, strings.Join(runs, " "))
	}
	tw.Flush()
	for _, r := range b.ratios {
		a, c := sum[r[0]], sum[r[1]]
		if a.timedOut || c.timedOut {
			fmt.Fprintf(w, "ratio %s / %s: a run timed out (wall > %.0f ms)\n", b.tools[r[0]].name, b.tools[r[1]].name, ms(max(a.wall, c.wall)))
			continue
		}
		fmt.Fprintf(w, "ratio %s / %s: wall %.2f  cpu %.2f  peak RSS %.2f\n", b.tools[r[0]].name, b.tools[r[1]].name,
			ms(a.wall)/ms(c.wall), ms(a.cpu)/ms(c.cpu), float64(a.rssKiB)/float64(c.rssKiB))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// printStats runs meshcook's default cook once more with --stats.
func printStats(w io.Writer, b bench, mc, work string, timeout time.Duration) error {
	for _, t := range b.tools {
		if !strings.HasPrefix(t.name, "meshcook") {
			continue
		}
		outDir := filepath.Join(work, "out")
		if err := os.RemoveAll(outDir); err != nil {
			return err
		}
		argv := replaceArg(replaceArg(t.argv, "{in}", b.input), "{out}", outDir)
		argv = append(argv, "--stats")
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded) // before cancel sets Canceled
		cancel()
		if timedOut {
			fmt.Fprintf(w, "-- %s --stats: timed out\n", t.name)
			continue
		}
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", t.name, err, out.String())
		}
		fmt.Fprintf(w, "-- %s --stats:\n%s", t.name, out.String())
	}
	return nil
}
