// Command compare runs meshcook's algorithms and meshoptimizer's (the npm
// package's WASM build, through node) on the same meshes and prints a
// side-by-side table. `make bench-compare` installs the pinned npm package
// and runs it; it needs ../shared/corpus for the real meshes.
//
// Every number for both tools is computed by the same Go code from each
// tool's own output (meshlets, bounds, index buffers); times are medians of
// several runs after the same number of warm-up runs for both tools, with
// each tool's garbage collector settled before every timed run, meshcook's
// on one core (GOMAXPROCS=1) unless the column says -j 2. Meshlet times
// alternate the two tools over several rounds (see README.md).
package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/meshcook/meshcook/internal/geomerr"
	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

type config struct {
	corpus string
	dir    string // this folder (for meshopt.mjs and node_modules)
	runs   int
	warmup int // untimed runs before the timed ones, for both tools
	rounds int // meshlets: alternating rounds of both tools' measurements
	quick  bool
	only   string
	mesh   string // run only the mesh of this name
	attrs  string // simplify rows: "no", "normals" or both when empty
	// refCache, when set, keeps meshoptimizer's simplify results in this
	// JSON file between runs (they are deterministic), so iterating on
	// meshcook's side skips rerunning and re-measuring them.
	refCache string
	// lodError is the error limit both tools get in the cook-path rows;
	// cookFlags are extra `meshcook cook` flags for them.
	lodError  string
	cookFlags []string
	cookExe   string
	// clodAnchor is the native meshoptimizer clusterlod driver
	// (clodanchor/) the clusterlod section compares with.
	clodAnchor string
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	var cfg config
	fs.StringVar(&cfg.corpus, "corpus", "../shared/corpus", "shared corpus folder")
	fs.StringVar(&cfg.dir, "dir", "bench/compare", "folder holding meshopt.mjs and its node_modules")
	fs.IntVar(&cfg.runs, "runs", 5, "timed runs per measurement (median reported)")
	fs.IntVar(&cfg.warmup, "warmup", 2, "untimed warm-up runs before the timed ones (both tools)")
	fs.IntVar(&cfg.rounds, "rounds", 3, "meshlets: rounds alternating meshcook's and meshoptimizer's measurements (median round reported)")
	fs.BoolVar(&cfg.quick, "quick", false, "skip the generated ~1M-triangle mesh")
	fs.StringVar(&cfg.only, "only", "", "run one section: meshlets, vcache, simplify, cook or clusterlod")
	fs.StringVar(&cfg.mesh, "mesh", "", "run one mesh: bunny, FlightHelmet, bunny-sub2, bunny-sub4 or (-only clusterlod) bunny-sub18")
	fs.StringVar(&cfg.attrs, "attrs", "", "simplify rows to run: no or normals; cook rows: none, normals or normals+uv (all when empty)")
	fs.StringVar(&cfg.refCache, "refcache", "", "simplify: reuse meshoptimizer's rows from this JSON `file` (written on first use)")
	fs.StringVar(&cfg.lodError, "lod-error", "1", "cook rows: the error limit both tools get (--lod-error / -se; 1 = unconstrained, so both reach the target)")
	cookFlags := fs.String("cook-flags", "", "cook rows: extra space-separated `flags` for meshcook cook")
	keep := fs.Bool("keep", false, "keep the temporary folder (cook rows: the written sources and both tools' outputs)")
	fs.StringVar(&cfg.cookExe, "cook-exe", "", "cook rows: run this meshcook binary instead of building ./cmd/meshcook")
	fs.StringVar(&cfg.clodAnchor, "clod-anchor", "", "clusterlod rows: the clodanchor `binary` (meshoptimizer's demo/clusterlod.h built natively; make bench-clod); the section is skipped without it")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of this process (meshcook's side and the metrics) to `file`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.cookFlags = strings.Fields(*cookFlags)
	if cfg.runs < 1 || cfg.warmup < 0 || cfg.rounds < 1 {
		return fmt.Errorf("-runs %d, -warmup %d, -rounds %d: need runs >= 1, warmup >= 0, rounds >= 1", cfg.runs, cfg.warmup, cfg.rounds)
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if _, err := os.Stat(filepath.Join(cfg.dir, "node_modules", "meshoptimizer")); err != nil {
		return fmt.Errorf("meshoptimizer npm package not installed in %s (run `make bench-compare`): %w", cfg.dir, err)
	}
	meshes, err := loadMeshes(cfg)
	if err != nil {
		return err
	}
	// Loading leaves ~100 MB of garbage (the subdivision's edge map): free
	// it and hand it back to the OS now, so the runtime's background
	// scavenger does not compete with the timed runs on their one core
	// (measured: the bunny's meshlets took 1.7 ms in a full run against
	// 1.1 ms with -mesh bunny).
	debug.FreeOSMemory()
	tmp, err := os.MkdirTemp("", "meshcook-compare-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintf(os.Stderr, "compare: keeping %s\n", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}

	fmt.Fprintf(stdout, "meshcook vs meshoptimizer 1.3.0 (WASM, node %s, %s); %s, %d CPUs; median of %d runs after %d warm-up runs\n\n",
		nodeVersion(), strings.Join(nodeFlags, " "), runtime.Version(), runtime.NumCPU(), cfg.runs, cfg.warmup)
	sections := []struct {
		name string
		fn   func(config, []*benchMesh, string, io.Writer) error
	}{{"meshlets", compareMeshlets}, {"vcache", compareVcache}, {"simplify", compareSimplify}, {"cook", compareCook}, {"clusterlod", compareClusterLOD}}
	for _, sec := range sections {
		if cfg.only != "" && cfg.only != sec.name {
			continue
		}
		if err := sec.fn(cfg, meshes, tmp, stdout); err != nil {
			return fmt.Errorf("%s: %w", sec.name, err)
		}
	}
	return nil
}

// simplifyWeight is the normal weight both simplifiers get in the
// with-attributes rows.
const simplifyWeight = 0.5

// hausdorffSamples is how many area-weighted points per surface the error
// metric adds to the vertices.
const hausdorffSamples = 20000

func compareSimplify(cfg config, meshes []*benchMesh, tmp string, w io.Writer) error {
	fmt.Fprintf(w, "\n## Simplification (error limit 1 = unconstrained, so both reach the target; error = sampled symmetric Hausdorff distance to LOD0 / bbox diagonal)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mesh\tattrs\tratio\ttool\ttris\terror\tms\tcpu ms\tms -j 2\t")
	refs := map[string]refRow{}
	if cfg.refCache != "" {
		if b, err := os.ReadFile(cfg.refCache); err == nil {
			if err := json.Unmarshal(b, &refs); err != nil {
				return fmt.Errorf("%s: %w", cfg.refCache, err)
			}
		}
	}
	for _, m := range meshes {
		meshPath := filepath.Join(tmp, m.name+".bin")
		if err := writeMeshBin(meshPath, m); err != nil {
			return err
		}
		diag := geomerr.Extent(m.positions, m.indices)
		for _, withAttrs := range []bool{false, true} {
			if (cfg.attrs == "no" || cfg.attrs == "normals") && (cfg.attrs == "normals") != withAttrs {
				continue
			}
			for _, frac := range []float64{0.5, 0.25, 0.1} {
				target := int(float64(len(m.indices)/3)*frac) * 3
				var attrs simplify.Attributes
				op := []string{"simplify", fmt.Sprint(target), "1"}
				opts := simplify.Options{TargetIndexCount: target, TargetError: 1}
				if withAttrs {
					attrs.Normals = m.normals()
					opts.AttributeWeights = simplify.Weights{Normal: simplifyWeight}
					op = []string{"simplify-attr", fmt.Sprint(target), "1", fmt.Sprint(simplifyWeight)}
				}
				var simpErr error
				simp := func() simplify.Result {
					r, err := simplify.Simplify(m.indices, m.positions, attrs, opts)
					simpErr = err
					return r
				}
				prev := runtime.GOMAXPROCS(1)
				res, ms, cpuMS := median(cfg, simp)
				// Listing, ranking and compacting run on up to GOMAXPROCS
				// goroutines (same output): the -j 2 column.
				var ms2 float64
				if simpErr == nil {
					runtime.GOMAXPROCS(2)
					_, ms2, _ = median(cfg, simp)
				}
				runtime.GOMAXPROCS(prev)
				if simpErr != nil {
					return fmt.Errorf("%s: meshcook simplify: %w", m.name, simpErr)
				}
				key := fmt.Sprintf("%s/%v/%v", m.name, withAttrs, frac)
				ref, ok := refs[key]
				if !ok {
					info, b, err := meshopt(cfg, meshPath, filepath.Join(tmp, m.name+".simp"), op...)
					if err != nil {
						return err
					}
					theirs, err := readIndices(b)
					if err != nil {
						return err
					}
					ref = refRow{Tris: len(theirs) / 3, MS: info["ms"],
						Error: geomerr.Hausdorff(m.positions, m.indices, m.positions, theirs, hausdorffSamples) / diag}
					refs[key] = ref
				}
				eo := geomerr.Hausdorff(m.positions, m.indices, m.positions, res.Indices, hausdorffSamples) / diag
				attr := "no"
				if withAttrs {
					attr = "normals"
				}
				fmt.Fprintf(tw, "%s\t%s\t%.2f\tmeshcook\t%d\t%.5f\t%.1f\t%.1f\t%.1f\t\n", m.name, attr, frac, len(res.Indices)/3, eo, ms, cpuMS, ms2)
				fmt.Fprintf(tw, "%s\t%s\t%.2f\tmeshopt\t%d\t%.5f\t%.1f\t-\t-\t\n", m.name, attr, frac, ref.Tris, ref.Error, ref.MS)
				fmt.Fprintf(tw, "%s\t%s\t%.2f\tratio\t%s\t%s\t%s\t\t%s\t\n", m.name, attr, frac,
					ratio(float64(len(res.Indices)/3), float64(ref.Tris)), ratio(eo, ref.Error), ratio(ms, ref.MS), ratio(ms2, ref.MS))
			}
		}
	}
	if cfg.refCache != "" {
		b, err := json.Marshal(refs)
		if err != nil {
			return err
		}
		if err := os.WriteFile(cfg.refCache, b, 0o644); err != nil {
			return err
		}
	}
	return tw.Flush()
}

// cpuTime is the user+system CPU time this process has used so far: under
// load from other processes it tracks meshcook's own work better than wall
// time (the cpu ms column: the mean over the timed runs).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// refRow is one meshoptimizer simplify result as -refcache keeps it.
type refRow struct {
	Tris  int
	Error float64
	MS    float64
}

func nodeVersion() string {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func loadMeshes(cfg config) ([]*benchMesh, error) {
	bunny, err := loadOBJ(filepath.Join(cfg.corpus, "large", "bunny_npm", "bunny.obj"))
	if err != nil {
		return nil, err
	}
	helmet, err := loadGLTF(filepath.Join(cfg.corpus, "gltf", "FlightHelmet", "FlightHelmet.gltf"))
	if err != nil {
		return nil, err
	}
	meshes := []*benchMesh{bunny, helmet, subdivideDisplaced(bunny, 2)}
	if !cfg.quick && (cfg.mesh == "" || cfg.mesh == "bunny-sub4") {
		meshes = append(meshes, subdivideDisplaced(bunny, 4))
	}
	if cfg.only == "clusterlod" && !cfg.quick && (cfg.mesh == "" || cfg.mesh == clodBigName) {
		meshes = append(meshes, clodBigMesh(bunny)) // the issue's >= 1M-triangle row
	}
	if cfg.mesh != "" {
		meshes = slices.DeleteFunc(meshes, func(m *benchMesh) bool { return m.name != cfg.mesh })
		if len(meshes) == 0 {
			return nil, fmt.Errorf("-mesh %q: no such benchmark mesh (bunny, FlightHelmet, bunny-sub2, bunny-sub4; -only clusterlod: %s)", cfg.mesh, clodBigName)
		}
	}
	return meshes, nil
}

// median runs fn cfg.warmup times untimed, then cfg.runs times, each
// after a forced garbage collection (outside the timing, so that no run
// pays for an earlier run's garbage; meshopt.mjs does the same with
// node's gc()), and returns the last result, the median wall time in ms
// and the mean CPU time of the timed runs in ms.
func median[T any](cfg config, fn func() T) (T, float64, float64) {
	// The collector runs only when forced: a forced collection shrinks
	// the heap goal to the live meshes, and with pacing on the runtime
	// then returned each run's memory to the OS in the background, so
	// every run page-faulted its buffers in again (FlightHelmet's
	// meshlets: 26-38 ms from one invocation to the next). Off, the
	// runs reuse their memory, as node's WASM linear memory does.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var res T
	for range cfg.warmup {
		runtime.GC()
		res = fn()
	}
	ms := make([]float64, cfg.runs)
	var cpu time.Duration
	for i := range ms {
		runtime.GC()
		c0 := cpuTime()
		t0 := time.Now()
		res = fn()
		ms[i] = float64(time.Since(t0).Microseconds()) / 1000
		cpu += cpuTime() - c0
	}
	sort.Float64s(ms)
	return res, ms[len(ms)/2], float64(cpu.Microseconds()) / 1000 / float64(cfg.runs)
}

// nodeFlags are node's flags for meshopt.mjs: gc() for settling the
// collector before each timed run, and the optimising compiler for every
// WASM function from the start instead of baseline code that tiers up
// while the runs are timed (measured on FlightHelmet: the run after one
// warm-up took 71-82 ms against 63 ms later without the flag).
var nodeFlags = []string{"--expose-gc", "--no-liftoff"}

// meshopt runs one meshopt.mjs operation and returns its JSON line and the
// bytes it wrote.
func meshopt(cfg config, meshPath, outPath string, op ...string) (map[string]float64, []byte, error) {
	args := append(append(slices.Clone(nodeFlags), filepath.Join(cfg.dir, "meshopt.mjs"), meshPath, outPath), op...)
	cmd := exec.Command("node", args...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("BENCH_RUNS=%d", cfg.runs), fmt.Sprintf("BENCH_WARMUP=%d", cfg.warmup))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, nil, fmt.Errorf("node meshopt.mjs %v: %w", op, err)
	}
	var info map[string]float64
	if err := json.Unmarshal(out, &info); err != nil {
		return nil, nil, fmt.Errorf("node meshopt.mjs %v: %w: %s", op, err, out)
	}
	b, err := os.ReadFile(outPath)
	return info, b, err
}

// meshletSet is one tool's meshlets in a tool-neutral form.
type meshletSet struct {
	count      int
	tris       []int
	verts      []int
	radius     []float64
	coneAxis   [][3]float64
	coneCutoff []float64
	triangles  [][3]uint32 // global vertex indices, for the coverage check
}

func fromMeshcook(r meshlet.Result, b []meshlet.Bounds) meshletSet {
	s := meshletSet{count: len(r.Meshlets)}
	for i, m := range r.Meshlets {
		s.tris = append(s.tris, int(m.TriangleCount))
		s.verts = append(s.verts, int(m.VertexCount))
		s.radius = append(s.radius, float64(b[i].Radius))
		s.coneAxis = append(s.coneAxis, [3]float64{float64(b[i].ConeAxis[0]), float64(b[i].ConeAxis[1]), float64(b[i].ConeAxis[2])})
		s.coneCutoff = append(s.coneCutoff, float64(b[i].ConeCutoff))
		for t := uint32(0); t < m.TriangleCount; t++ {
			o := 3 * (m.TriangleOffset + t)
			s.triangles = append(s.triangles, [3]uint32{
				r.Vertices[m.VertexOffset+uint32(r.Triangles[o])],
				r.Vertices[m.VertexOffset+uint32(r.Triangles[o+1])],
				r.Vertices[m.VertexOffset+uint32(r.Triangles[o+2])]})
		}
	}
	return s
}

// fromMeshopt parses meshopt.mjs's meshlets output.
func fromMeshopt(b []byte) (meshletSet, error) {
	rd := &reader{b: b}
	n := int(rd.u32())
	ml := make([][4]uint32, n)
	for i := range ml {
		for k := 0; k < 4; k++ {
			ml[i][k] = rd.u32()
		}
	}
	verts := make([]uint32, rd.u32())
	for i := range verts {
		verts[i] = rd.u32()
	}
	tris := rd.bytes(int(rd.u32()))
	s := meshletSet{count: n}
	for i := 0; i < n && rd.err == nil; i++ {
		vo, to, vn, tn := ml[i][0], ml[i][1], ml[i][2], ml[i][3]
		var f [8]float64
		for k := range f {
			f[k] = float64(math.Float32frombits(rd.u32()))
		}
		s.tris = append(s.tris, int(tn))
		s.verts = append(s.verts, int(vn))
		s.radius = append(s.radius, f[3])
		s.coneAxis = append(s.coneAxis, [3]float64{f[4], f[5], f[6]})
		s.coneCutoff = append(s.coneCutoff, f[7])
		for t := uint32(0); t < tn; t++ {
			o := to + 3*t
			if int(o+2) >= len(tris) || int(vo+vn) > len(verts) {
				return s, errors.New("meshopt output out of range")
			}
			s.triangles = append(s.triangles, [3]uint32{verts[vo+uint32(tris[o])], verts[vo+uint32(tris[o+1])], verts[vo+uint32(tris[o+2])]})
		}
	}
	return s, rd.err
}

type reader struct {
	b   []byte
	o   int
	err error
}

func (r *reader) u32() uint32 {
	if r.err != nil || r.o+4 > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	v := binary.LittleEndian.Uint32(r.b[r.o:])
	r.o += 4
	return v
}

// readIndices reads meshopt.mjs's index output: u32 count, count × u32.
func readIndices(b []byte) ([]uint32, error) {
	rd := &reader{b: b}
	out := make([]uint32, rd.u32())
	for i := range out {
		out[i] = rd.u32()
	}
	return out, rd.err
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil || r.o+n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		return nil
	}
	v := r.b[r.o : r.o+n]
	r.o += n
	return v
}

// coversExactly reports whether the meshlets hold each input triangle once
// (as a rotation of its corners, so winding is kept).
func coversExactly(s meshletSet, indices []uint32) bool {
	canon := func(t [3]uint32) [3]uint32 {
		for t[0] > t[1] || t[0] > t[2] {
			t = [3]uint32{t[1], t[2], t[0]}
		}
		return t
	}
	count := map[[3]uint32]int{}
	for i := 0; i+2 < len(indices); i += 3 {
		count[canon([3]uint32{indices[i], indices[i+1], indices[i+2]})]++
	}
	for _, t := range s.triangles {
		count[canon(t)]--
	}
	for _, c := range count {
		if c != 0 {
			return false
		}
	}
	return len(s.triangles) == len(indices)/3
}

// viewDirections are 64 fixed pseudo-random unit vectors (seeded).
func viewDirections() [][3]float64 {
	r := rand.New(rand.NewSource(64))
	var out [][3]float64
	for len(out) < 64 {
		v := [3]float64{r.Float64()*2 - 1, r.Float64()*2 - 1, r.Float64()*2 - 1}
		l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		if l > 0.1 && l <= 1 {
			out = append(out, [3]float64{v[0] / l, v[1] / l, v[2] / l})
		}
	}
	return out
}

// culledFraction is the fraction of meshlets the cone test rejects for a
// distant camera looking along d (the apex-free test's limit:
// dot(d, axis) >= cutoff), averaged over the fixed directions.
func culledFraction(s meshletSet) float64 {
	if s.count == 0 {
		return 0
	}
	dirs := viewDirections()
	culled := 0
	for _, d := range dirs {
		for i := 0; i < s.count; i++ {
			a := s.coneAxis[i]
			if s.coneCutoff[i] < 1 && d[0]*a[0]+d[1]*a[1]+d[2]*a[2] >= s.coneCutoff[i] {
				culled++
			}
		}
	}
	return float64(culled) / float64(len(dirs)*s.count)
}

func mean(xs []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

func meanF(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", a/b)
}

// minMeasureMS is the least time one meshlet measurement (the timed runs
// of one tool in one round) should span: the bunny takes ~1.5 ms, so its
// median of 5 runs moved with single scheduler hiccups.
const minMeasureMS = 100

// meshletRuns returns cfg with runs raised, when m builds quickly, to
// about minMeasureMS worth of meshcook runs (at most 50 times -runs). Both
// tools then time that many runs.
func meshletRuns(cfg config, m *benchMesh, opts meshlet.Options) config {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	meshlet.Build(m.indices, m.positions, opts) // warm-up
	runtime.GC()
	t0 := time.Now()
	if _, err := meshlet.Build(m.indices, m.positions, opts); err != nil {
		return cfg
	}
	ms := float64(time.Since(t0).Microseconds())/1000 + 0.001
	cfg.runs = min(max(cfg.runs, int(math.Ceil(minMeasureMS/ms))), 50*cfg.runs)
	return cfg
}

// middle is the median of xs (the upper one of an even count).
func middle(xs []float64) float64 {
	xs = slices.Clone(xs)
	sort.Float64s(xs)
	return xs[len(xs)/2]
}

func compareMeshlets(cfg config, meshes []*benchMesh, tmp string, w io.Writer) error {
	opts := meshlet.DefaultOptions() // 64 / 124, cone weight 0.25
	fmt.Fprintf(w, "## Meshlets (%d/%d, cone weight %g)\n\n", opts.MaxVertices, opts.MaxTriangles, opts.ConeWeight)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mesh\ttris\ttool\tmeshlets\tavg tris\tavg verts\tmean radius\tcone-culled\tms\tms -j 2\truns\tvalid\t")
	for _, m := range meshes {
		meshPath := filepath.Join(tmp, m.name+".bin")
		if err := writeMeshBin(meshPath, m); err != nil {
			return err
		}
		cfg := meshletRuns(cfg, m, opts)
		// Rounds alternate the two tools so that both see the same load
		// from other processes; the ratio is the median of the rounds'
		// ratios (times: the median round of each tool).
		var res meshlet.Result
		var ms1s, ms2s, theirMS, r1, r2 []float64
		var b []byte
		for round := range cfg.rounds {
			var ms1, ms2, theirs float64
			ourSide := func() error {
				prev := runtime.GOMAXPROCS(1)
				defer runtime.GOMAXPROCS(prev)
				var buildErr error
				res, ms1, _ = median(cfg, func() meshlet.Result {
					r, err := meshlet.Build(m.indices, m.positions, opts)
					buildErr = err
					return r
				})
				if buildErr != nil {
					return fmt.Errorf("%s: meshcook build: %w", m.name, buildErr)
				}
				runtime.GOMAXPROCS(2)
				_, ms2, _ = median(cfg, func() meshlet.Result { r, _ := meshlet.Build(m.indices, m.positions, opts); return r })
				return nil
			}
			theirSide := func() error {
				info, out, err := meshopt(cfg, meshPath, filepath.Join(tmp, m.name+".meshlets"), "meshlets",
					fmt.Sprint(opts.MaxVertices), fmt.Sprint(opts.MaxTriangles), fmt.Sprint(opts.ConeWeight))
				b, theirs = out, info["ms"]
				return err
			}
			// Each tool goes first in every other round.
			first, second := ourSide, theirSide
			if round%2 == 1 {
				first, second = theirSide, ourSide
			}
			if err := first(); err != nil {
				return err
			}
			if err := second(); err != nil {
				return err
			}
			ms1s, ms2s, theirMS = append(ms1s, ms1), append(ms2s, ms2), append(theirMS, theirs)
			r1, r2 = append(r1, ms1/theirs), append(r2, ms2/theirs)
		}
		ours := fromMeshcook(res, meshlet.ComputeAllBounds(res, m.positions))
		theirs, err := fromMeshopt(b)
		if err != nil {
			return err
		}
		row := func(tool string, s meshletSet, ms float64, ms2 string) {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%.2f\t%.2f\t%.5g\t%.4f\t%.2f\t%s\t%d×%d\t%v\t\n", m.name, len(m.indices)/3, tool,
				s.count, mean(s.tris), mean(s.verts), meanF(s.radius), culledFraction(s), ms, ms2, cfg.rounds, cfg.runs, coversExactly(s, m.indices))
		}
		row("meshcook", ours, middle(ms1s), fmt.Sprintf("%.2f", middle(ms2s)))
		row("meshopt", theirs, middle(theirMS), "-")
		fmt.Fprintf(tw, "%s\t\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\t\t\n", m.name, "ratio",
			ratio(float64(ours.count), float64(theirs.count)), ratio(mean(ours.tris), mean(theirs.tris)),
			ratio(mean(ours.verts), mean(theirs.verts)), ratio(meanF(ours.radius), meanF(theirs.radius)),
			ratio(culledFraction(ours), culledFraction(theirs)), fmt.Sprintf("%.3f", middle(r1)), fmt.Sprintf("%.3f", middle(r2)))
	}
	return tw.Flush()
}

func compareVcache(cfg config, meshes []*benchMesh, tmp string, w io.Writer) error {
	fmt.Fprintf(w, "\n## Vertex cache (ACMR/ATVR at a 16-entry FIFO; input triangles shuffled first)\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mesh\ttool\tACMR\tATVR\tms\t")
	for _, m := range meshes {
		// Shuffle triangles so neither tool benefits from the source order.
		shuffled := &benchMesh{name: m.name + "-shuffled", positions: m.positions, indices: append([]uint32(nil), m.indices...)}
		r := rand.New(rand.NewSource(7))
		n := len(shuffled.indices) / 3
		r.Shuffle(n, func(i, j int) {
			for k := 0; k < 3; k++ {
				shuffled.indices[3*i+k], shuffled.indices[3*j+k] = shuffled.indices[3*j+k], shuffled.indices[3*i+k]
			}
		})
		meshPath := filepath.Join(tmp, shuffled.name+".bin")
		if err := writeMeshBin(meshPath, shuffled); err != nil {
			return err
		}
		vc := len(m.positions)
		prev := runtime.GOMAXPROCS(1)
		ours, ms, _ := median(cfg, func() []uint32 { return meshlet.OptimizeVertexCache(shuffled.indices, vc) })
		runtime.GOMAXPROCS(prev)
		info, b, err := meshopt(cfg, meshPath, filepath.Join(tmp, m.name+".vcache"), "vcache")
		if err != nil {
			return err
		}
		theirs, err := readIndices(b)
		if err != nil {
			return err
		}
		theirVC := 0
		for _, v := range theirs {
			theirVC = max(theirVC, int(v)+1)
		}
		a := meshlet.AnalyzeVertexCache(ours, vc, 16)
		bst := meshlet.AnalyzeVertexCache(theirs, theirVC, 16)
		fmt.Fprintf(tw, "%s\tmeshcook\t%.4f\t%.4f\t%.1f\t\n", m.name, a.ACMR, a.ATVR, ms)
		fmt.Fprintf(tw, "%s\tmeshopt\t%.4f\t%.4f\t%.1f\t\n", m.name, bst.ACMR, bst.ATVR, info["ms"])
		fmt.Fprintf(tw, "%s\tratio\t%s\t%s\t%s\t\n", m.name, ratio(a.ACMR, bst.ACMR), ratio(a.ATVR, bst.ATVR), ratio(ms, info["ms"]))
	}
	return tw.Flush()
}
