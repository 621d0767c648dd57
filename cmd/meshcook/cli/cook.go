package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/internal/safename"
)

type cookOptions struct {
	out      string
	json     bool
	jobs     int
	maxVerts int
	maxTris  int
	cone     float32
	lods     string
	lodError float32
	lod      lodFlags
	targets  []string
	progress bool
	ceiling  string
	strict   bool
	pngDir   string
	keep     bool // --keep-nodes
	clod     bool // --cluster-lod
	noDrops  bool // --strict
	prune    bool
	budget   budgetFlags
	textures textureFlags
	bs       buildStepFlags // cache, check, depfile, logs, stats
}

func newCookCmd(stdout, stderr io.Writer) *cobra.Command {
	def := cook.DefaultOptions()
	o := cookOptions{maxVerts: def.Meshlet.MaxVertices, maxTris: def.Meshlet.MaxTriangles, cone: def.Meshlet.ConeWeight,
		lods: formatRatios(def.LOD.Ratios), lodError: def.LOD.Error, ceiling: formatSize(def.BlobCeiling)}
	cmd := &cobra.Command{
		Use:   "cook PATH... -o DIR",
		Short: "Cook glTF, FBX and .nwb sources into .hmesh/.hmat (and .msh7, .cnb) outputs",
		Long: `Cook every source named on the command line (.gltf, .glb, .fbx, .nwb,
.heightfield.json; folders are walked recursively) into outputs under DIR
with stable names: a source at <folder>/models/chair.glb becomes
DIR/models/chair.hmesh and DIR/models/chair.hmat, plus
DIR/models/chair.hanim when it has clips and DIR/models/chair/<image>.ktx2
per texture (a leading "assets/" is dropped). A file named directly is
rooted at its own folder. --target msh7 adds one MSH7 meshlet payload per
submesh (DIR/models/chair.<i>.msh7).

Every output is decoded and validated by its format's reader before it
atomically replaces the old file; an output whose bytes did not change is
not rewritten. A source that fails writes nothing and is reported; the other
sources still cook. Exit 3 when any source was bad, 4 when an output could
not be written, 1 on an internal error (an output that fails its own
validator: "internal error, please report", naming the source).

Submeshes that draw alike (same material, same vertex streams, same
skinning, no morph targets) are merged into one draw after node transforms
are baked, in first-use order (--keep-nodes keeps one per primitive; .cnb
worlds always keep one mesh per primitive); the report gives the draws
before and after. Whatever a source has that the outputs do not carry is a
warning and an entry of the JSON report's "dropped" list ({source, what,
count}); --strict refuses such sources (exit 3).

--target cnb cooks every source into one world: DIR/data/0, 1, … (.cnb
blobs of at most --blob-ceiling payload bytes each, unless one payload is
larger) and DIR/world-lock.json. A PATH named meshcook.json is a project
file (docs/project.md): its sources globs, targets, options and scenes
apply, and flags given on the command line override its options.
.heightfield.json sources become grid meshes with a collider trailer.

A build step (docs/build-integration.md): jobs whose source, referenced
files and options are unchanged come from an incremental cache (--cache,
default .meshcook-cache beside DIR; --no-cache), so a warm cook writes
nothing. --depfile writes every input each output read; --check cooks into
memory and exits 1 listing outputs that are missing, changed or stale;
--root names files as if their root folder were cooked. One log line per
asset goes to stderr when it is not a terminal (--quiet silences it).`,
		Example: `  # cook the bundled samples
  meshcook cook testdata/samples -o out

  # a machine-readable report, two workers, smaller meshlets
  meshcook cook assets -o build/meshes --json -j 2 --meshlet-verts 32 --meshlet-tris 64

  # three LOD levels with at most 2% error; or none at all
  meshcook cook assets -o build --lods 0.5,0.25,0.1 --lod-error 0.02
  meshcook cook assets -o build --lods ""

  # terrain tiles: keep open borders so neighbouring tiles still meet;
  # scans: ignore UVs, let collapses cross UV seams, and fall back to
  # vertex clustering (its error reported in --json) where collapse stalls
  meshcook cook tiles -o build --lod-lock-border
  meshcook cook scans -o build --lod-weights normal=1,uv=0 --lod-permissive --lod-sloppy --lod-error 0.05

  # a world from a project file, in 256 MiB blobs
  meshcook cook game/meshcook.json -o build/world --blob-ceiling 256MiB

  # a picture of every cooked mesh for CI artifacts (docs/preview.md)
  meshcook cook assets -o build --png-dir build/previews`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("cook: name at least one source file or folder")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.out == "" {
				return usageError("cook: -o DIR is required")
			}
			if o.pngDir != "" && o.bs.check {
				return usageError("cook: --png-dir draws written outputs; --check writes none")
			}
			return runCook(cmd, args, o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "", "output folder (created when missing)")
	f.BoolVar(&o.json, "json", false, "print the cook report as one JSON object on stdout")
	f.IntVarP(&o.jobs, "jobs", "j", 0, "sources cooked in parallel (0 = one per CPU); output bytes never depend on it")
	f.IntVar(&o.maxVerts, "meshlet-verts", o.maxVerts, "max vertices per meshlet (3..256)")
	f.IntVar(&o.maxTris, "meshlet-tris", o.maxTris, "max triangles per meshlet (1..512)")
	f.Float32Var(&o.cone, "cone-weight", o.cone, "meshlet cone weight (0 = ignore normals)")
	f.StringVar(&o.lods, "lods", o.lods, "LOD levels as comma-separated fractions of LOD0's triangles, decreasing (\"\" or none = no LODs)")
	f.Float32Var(&o.lodError, "lod-error", o.lodError, "largest LOD simplification error, relative to each submesh's extent")
	o.lod.add(f, def.LOD)
	f.StringSliceVar(&o.targets, "target", []string{cook.TargetHMesh}, "output formats, comma-separated: "+strings.Join(cook.KnownTargets(), ", "))
	f.BoolVar(&o.progress, "progress", true, "show a progress bar when stderr is a terminal")
	f.StringVar(&o.ceiling, "blob-ceiling", o.ceiling, "cnb: largest payload section per blob before a new blob starts (bytes, or with KiB/MiB/GiB)")
	f.BoolVar(&o.strict, "strict-paths", false, "refuse a source, or a file it refers to, that a symbolic link leads out of its folder (for untrusted uploads; links are followed by default)")
	f.StringVar(&o.pngDir, "png-dir", "", "also draw each cooked .hmesh/.msh7 into DIR/<name>.png (inspect --png's default picture)")
	f.BoolVar(&o.clod, "cluster-lod", false, "also write a cluster hierarchy per submesh (.hmesh CLHD..CLND: a Nanite-style DAG over the meshlets for per-view continuous LOD; docs/formats/hmesh.md)")
	f.BoolVar(&o.keep, "keep-nodes", false, "keep one submesh (draw) per source primitive instead of merging submeshes with the same material and vertex streams")
	f.BoolVar(&o.noDrops, "strict", false, "refuse (exit 3, nothing written) a source with data the outputs would not carry (the report's \"dropped\" list)")
	f.BoolVar(&o.prune, "prune", false, "remove the outputs an earlier --prune cook recorded in DIR that no source given produces now (deleted or renamed sources); never a file meshcook did not write (the record is in the cache folder), and not when a source fails")
	addBudgetFlags(f, &o.budget)
	addTextureFlags(f, &o.textures)
	addBuildStepFlags(f, &o.bs)
	return cmd
}

func runCook(cmd *cobra.Command, args []string, o cookOptions, stdout, stderr io.Writer) error {
	opts := cook.DefaultOptions()
	opts.OutDir = o.out
	if o.jobs < 0 {
		return usageError("cook: -j %d: want 0 (one job per CPU) or more", o.jobs)
	}
	opts.Jobs = o.jobs
	var project *cook.Project
	for _, a := range args {
		if cook.IsProjectFile(a) && len(args) > 1 {
			return usageError("cook: a project file (%s) must be the only PATH", a)
		}
	}
	if len(args) == 1 && cook.IsProjectFile(args[0]) {
		pr, err := cook.LoadProject(args[0])
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		if err := pr.Apply(&opts); err != nil {
			return withCode(ExitBadInput, err)
		}
		project = pr
	}
	// Without a project every flag applies; with one, only those given.
	set := func(name string) bool { return project == nil || cmd.Flags().Changed(name) }
	if set("meshlet-verts") {
		opts.Meshlet.MaxVertices = o.maxVerts
	}
	if set("meshlet-tris") {
		opts.Meshlet.MaxTriangles = o.maxTris
	}
	if set("cone-weight") {
		opts.Meshlet.ConeWeight = o.cone
	}
	if set("lods") {
		ratios, err := parseRatios(o.lods)
		if err != nil {
			return usageError("cook: --lods: %v", err)
		}
		opts.LOD.Ratios = ratios
		if project != nil && len(opts.LOD.Distances) != len(ratios) {
			opts.LOD.Distances = nil // the project's distances were for its own ratios
		}
	}
	if set("lod-error") {
		opts.LOD.Error = o.lodError
		for i := range opts.LOD.BySource {
			opts.LOD.BySource[i].Error = nil
		}
	}
	if err := o.lod.apply(&opts.LOD, set); err != nil {
		return usageError("cook: %v", err)
	}
	if set("target") {
		opts.Targets = o.targets
	}
	o.textures.apply(&opts.Textures, set)
	if set("blob-ceiling") {
		c, err := parseSize(o.ceiling)
		if err != nil {
			return usageError("cook: --blob-ceiling: %v", err)
		}
		opts.BlobCeiling = c
	}
	if set("strict-paths") {
		opts.StrictPaths = o.strict
	}
	if set("cluster-lod") {
		opts.ClusterLOD = o.clod
	}
	opts.KeepNodes = o.keep
	opts.Strict = o.noDrops
	opts.Prune = o.prune
	if o.prune && (o.bs.noCache || o.bs.check || o.bs.dryRun) {
		return usageError("cook: --prune reads what earlier cooks wrote from the cache and removes files: not with --no-cache, --check or --dry-run")
	}
	if err := o.budget.apply(cmd.Flags(), &opts.Budget); err != nil {
		return usageError("cook: %v", err)
	}
	if err := opts.Validate(); err != nil {
		return usageError("cook: %v", err)
	}

	if project != nil && !cmd.Flags().Changed("remote-cache") {
		o.bs.remote = project.RemoteCache
	}
	var jobs []cook.Job
	var err error
	if project != nil {
		jobs, err = project.Plan()
	} else {
		jobs, err = o.bs.plan(args)
	}
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if len(jobs) == 0 {
		return withCode(ExitBadInput, fmt.Errorf("cook: no sources under %s (cook reads %s files)", strings.Join(args, ", "), cook.SourceKindList))
	}
	if err := o.bs.setup(&opts, o.out, jobs, o.progress, stderr); err != nil {
		return err
	}

	rep, err := cook.Run(cmd.Context(), jobs, opts)
	var outErr *cook.OutputError
	if errors.As(err, &outErr) {
		return withCode(ExitOutput, fmt.Errorf("cook: %w", err))
	}
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", safename.Text(w)) // names from sources: one line, no bidi tricks
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(stderr, "meshcook: %s\n", safename.Text(e))
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return withCode(ExitOutput, err)
		}
	} else {
		changed := 0
		for _, out := range rep.Outputs {
			if out.Changed {
				changed++
			}
		}
		before, after := 0, 0
		for _, m := range rep.Meshes {
			before, after = before+m.DrawsBefore, after+m.Draws
		}
		fmt.Fprintf(stdout, "cooked %d of %d sources: %d outputs (%d changed) in %s; %d draws (%d before merging)\n",
			len(rep.Meshes), len(jobs), len(rep.Outputs), changed, o.out, after, before)
		if len(rep.Pruned) > 0 {
			fmt.Fprintf(stdout, "pruned %d outputs no source produces: %s\n", len(rep.Pruned), strings.Join(rep.Pruned, ", "))
		}
	}
	if o.pngDir != "" {
		if err := writePreviews(cmd.Context(), rep, o.pngDir, stderr); err != nil {
			return err
		}
	}
	bsErr := o.bs.finish(rep, jobs, o.json, stdout, stderr)
	// Each failure was printed above on one line; a summary only adds
	// something when there were several.
	summary := errors.New("")
	if n := len(rep.Errors); n > 1 {
		summary = fmt.Errorf("cook: %d of %d sources failed", n, len(jobs))
	}
	switch {
	case rep.InternalErrors > 0:
		return withCode(ExitFailure, summary)
	case rep.OutputErrors > 0:
		return withCode(ExitOutput, summary)
	case rep.InputErrors > 0:
		return withCode(ExitBadInput, summary)
	}
	return bsErr
}

// isTerminal reports whether w is a terminal (progress bars only go there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// parseRatios reads "0.5,0.25"; "" and "none" mean no LODs.
func parseRatios(s string) ([]float32, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "none" {
		return nil, nil
	}
	var out []float32
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", f)
		}
		out = append(out, float32(v))
	}
	return out, nil
}

// parseSize reads a byte count: digits, optionally followed by KiB, MiB or
// GiB (powers of 1024).
func parseSize(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > (1<<64-1)/mult {
		return 0, fmt.Errorf("%q is not a byte count (digits, optionally followed by KiB, MiB or GiB)", s)
	}
	return v * mult, nil
}

// formatSize writes a byte count the way parseSize reads it, in the
// largest unit that divides it exactly.
func formatSize(v uint64) string {
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if v >= u.mult && v%u.mult == 0 {
			return strconv.FormatUint(v/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatUint(v, 10)
}

func formatRatios(r []float32) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = strconv.FormatFloat(float64(v), 'g', -1, 32)
	}
	return strings.Join(parts, ",")
}
