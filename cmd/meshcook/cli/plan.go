package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/internal/atomicfile"
	"github.com/meshcook/meshcook/internal/buildfile"
)

type planOptions struct {
	ninja     bool
	make      bool
	bazel     bool
	out       string
	cookOut   string
	meshcook  string
	cookFlags string
	world     string
	pkg       string
}

func newPlanCmd(stdout, stderr io.Writer) *cobra.Command {
	var o planOptions
	cmd := &cobra.Command{
		Use:   "plan (--ninja | --make | --bazel) PATH... -o FILE [--cook-out DIR]",
		Short: "Write a build.ninja, a Makefile or a Bazel BUILD file with one cook per asset",
		Long: `Plan the sources under each PATH (folders are walked; a file is rooted at its
own folder) and write a build file with one cook per asset.

--ninja and --make write one edge (rule) per asset: each runs 'meshcook cook
--root ROOT SOURCE -o DIR' with a depfile, so the build tool re-cooks an
asset exactly when its source or a file it references changed, and runs the
cooks in parallel. Every output of an asset is declared (.hmesh, .hmat, and
its .hanim, .ktx2 and .msh7 files): plan cooks every asset once into memory
through the cache (the same cache the edges use, so they then start warm)
and declares what the cook reports, so deleting any output re-cooks its
asset. Outputs are byte-identical to cooking the folders at once (hmesh
target). Ninja edges restat their outputs, so a cook that writes identical
bytes keeps the old mtimes; build.ninja re-plans itself when a source or a
file one references changes (an asset that gains a texture gains an
output). Make rules use grouped targets (GNU make 4.3) and touch their
outputs. A source that does not cook gets an edge declaring .hmesh and .hmat
(the build then fails on it) and a warning; one that writes nothing (no
triangles and no clips) gets no edge and a warning.

--bazel writes a BUILD file with one meshcook_asset per source (bazel/defs.bzl)
listing the files it references as data (found by importing each source),
named relative to the BUILD file's folder or --package (which must hold
every source, with no BUILD files below it); --world NAME adds a
meshcook_world over all of them.

Depfiles go to .meshcook-deps/ beside the build file (Ninja reads them into
.ninja_deps and deletes them). See docs/build-integration.md.`,
		Example: `  meshcook plan --ninja assets -o build/build.ninja --cook-out build/cooked
  ninja -f build/build.ninja

  meshcook plan --make assets -o build/cook.mk --cook-out build/cooked
  make -f build/cook.mk -j

  meshcook plan --bazel assets -o assets/BUILD.bazel --world world`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("plan: name at least one source folder or file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			n := 0
			for _, b := range []bool{o.ninja, o.make, o.bazel} {
				if b {
					n++
				}
			}
			if n != 1 {
				return usageError("plan: name one output format: --ninja, --make or --bazel")
			}
			if o.out == "" || (o.cookOut == "" && !o.bazel) {
				return usageError("plan: -o FILE and (for --ninja and --make) --cook-out DIR are required")
			}
			if (o.world != "" || o.pkg != "") && !o.bazel {
				return usageError("plan: --world and --package are for --bazel")
			}
			return runPlan(cmd.Context(), args, o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.ninja, "ninja", false, "write a Ninja build file")
	f.BoolVar(&o.make, "make", false, "write a Makefile (GNU make 4.3 or later)")
	f.BoolVar(&o.bazel, "bazel", false, "write a Bazel BUILD file (rules in bazel/defs.bzl)")
	f.StringVarP(&o.out, "out", "o", "", "build file to write")
	f.StringVar(&o.cookOut, "cook-out", "", "folder the cooks write their outputs under (--ninja, --make)")
	f.StringVar(&o.meshcook, "meshcook", "", "meshcook binary the edges run (default: this executable)")
	f.StringVar(&o.cookFlags, "cook-flags", "", "more cook flags for every edge, as shell words (e.g. \"--lods 0.5\")")
	f.StringVar(&o.pkg, "package", "", "--bazel: the folder the BUILD file describes, that labels are relative to (default: the -o file's folder)")
	f.StringVar(&o.world, "world", "", "--bazel: also a meshcook_world target of this name over every source")
	return cmd
}

// plannedJob is one asset: its job, and its edge (the root it is named
// from, what its cook reads and writes).
type plannedJob struct {
	job cook.Job
	buildfile.Asset
	failed string // why the planning cook failed ("" when it cooked)
}

func (o planOptions) file() buildfile.Options {
	return buildfile.Options{Out: o.out, CookOut: o.cookOut, CookFlags: o.cookFlags, Package: o.pkg, World: o.world}
}

func runPlan(ctx context.Context, args []string, o planOptions, stdout, stderr io.Writer) error {
	var all []plannedJob
	var jobsAll []cook.Job
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return withCode(ExitBadInput, fmt.Errorf("plan: %s: %w", a, err))
		}
		root := a
		if !st.IsDir() {
			root = filepath.Dir(a)
		}
		jobs, err := cook.Plan([]string{a})
		if err != nil {
			return withCode(ExitBadInput, err)
		}
		for _, j := range jobs {
			all = append(all, plannedJob{job: j, Asset: buildfile.Asset{Name: j.Name, Source: j.Source, Root: root}})
		}
		jobsAll = append(jobsAll, jobs...)
	}
	if _, err := cook.SortJobs(jobsAll); err != nil { // outputs of two PATHs may collide
		return withCode(ExitBadInput, fmt.Errorf("plan: %w", err))
	}
	if len(all) == 0 {
		return withCode(ExitBadInput, fmt.Errorf("plan: no sources under %s (cook reads %s files)", strings.Join(args, ", "), cook.SourceKindList))
	}
	bin := o.meshcook
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("plan: cannot find this executable (use --meshcook): %w", err)
		}
		bin = exe
	}
	var text string
	var err error
	assets := func() []buildfile.Asset {
		out := make([]buildfile.Asset, len(all))
		for i, pj := range all {
			out[i] = pj.Asset
		}
		return out
	}
	switch {
	case o.bazel:
		for i := range all {
			if all[i].Refs, err = cook.References(all[i].job, cook.DefaultOptions()); err != nil {
				return withCode(ExitBadInput, fmt.Errorf("plan: %w", err))
			}
		}
		var ue *buildfile.UsageError
		if text, err = buildfile.Bazel(assets(), o.file()); errors.As(err, &ue) {
			return usageError("plan: %v", err)
		} else if err != nil {
			return withCode(ExitBadInput, fmt.Errorf("plan: %w", err))
		}
	default:
		if err := planOutputs(ctx, all, o, stderr); err != nil {
			return err
		}
		if o.ninja {
			text = buildfile.Ninja(assets(), o.file(), bin, args)
		} else {
			text = buildfile.Make(assets(), o.file(), bin)
		}
	}
	if err := os.MkdirAll(filepath.Dir(o.out), 0o755); err != nil {
		return withCode(ExitOutput, err)
	}
	if old, err := os.ReadFile(o.out); err == nil && string(old) == text {
		fmt.Fprintf(stdout, "%s is up to date (%d assets)\n", o.out, len(all))
		return nil
	}
	if err := atomicfile.Write(o.out, []byte(text)); err != nil {
		return withCode(ExitOutput, err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d assets\n", o.out, len(all))
	return nil
}

// planOutputs finds every asset's outputs and inputs by cooking it: one
// in-process `cook --dry-run --json` per root, with the edges' flags, so
// the outputs are exactly what the edge's cook writes (a cook knows its
// outputs only once it has imported the source: textures and clips).
func planOutputs(ctx context.Context, all []plannedJob, o planOptions, stderr io.Writer) error {
	flags, err := buildfile.SplitShellWords(o.cookFlags)
	if err != nil {
		return usageError("plan: --cook-flags: %v", err)
	}
	var roots []string
	for _, pj := range all {
		if !slices.Contains(roots, pj.Root) {
			roots = append(roots, pj.Root)
		}
	}
	for _, root := range roots {
		var idx []int
		cmdline := []string{"cook", "--root", root}
		for i, pj := range all {
			if pj.Root == root {
				idx = append(idx, i)
				cmdline = append(cmdline, pj.job.Source)
			}
		}
		cmdline = append(cmdline, "-o", o.cookOut, "--dry-run", "--json", "--quiet")
		cmdline = append(cmdline, flags...)
		var out, errb bytes.Buffer
		code := Run(ctx, cmdline, &out, &errb)
		var rep cook.Report
		if (code != ExitOK && code != ExitBadInput) || json.Unmarshal(out.Bytes(), &rep) != nil {
			return withCode(max(code, ExitFailure), fmt.Errorf("plan: the planning cook of %s failed (exit %d): %s", root, code, strings.TrimSpace(errb.String())))
		}
		bySource := map[string]int{}
		for _, i := range idx {
			bySource[all[i].job.Source] = i
		}
		for _, out := range rep.Outputs {
			if out.Kind == "cnb" || out.Kind == "world-lock" || len(out.Inputs) == 0 {
				return usageError("plan: %s is a world output (--target cnb): cook a world with one command over the project", out.Name)
			}
			i, ok := bySource[out.Inputs[0]]
			if !ok {
				return fmt.Errorf("plan: output %s names no planned source (%s)", out.Name, out.Inputs[0])
			}
			all[i].Outputs = append(all[i].Outputs, out.Path)
			for _, in := range out.Inputs[1:] {
				if !slices.Contains(all[i].Inputs, in) {
					all[i].Inputs = append(all[i].Inputs, in)
				}
			}
		}
		for _, i := range idx {
			if len(all[i].Outputs) > 0 {
				continue
			}
			// A source that does not cook: its edge declares what every
			// cook writes, and fails when it runs. One that cooks to
			// nothing (no triangles, no clips) gets no edge.
			pj := &all[i]
			for _, e := range rep.Errors {
				if strings.Contains(e, pj.job.Source) {
					pj.failed = e
					break
				}
			}
			if pj.failed == "" && slices.ContainsFunc(rep.Dropped, func(d cook.DropReport) bool {
				return d.What == cook.EmptyDrop && d.Source == pj.job.Rel
			}) {
				fmt.Fprintf(stderr, "warning: plan: %s: %s (no edge)\n", pj.job.Source, cook.EmptyDrop)
				continue
			}
			if pj.failed == "" {
				pj.failed = "does not cook"
			}
			for _, ext := range []string{".hmesh", ".hmat"} {
				pj.Outputs = append(pj.Outputs, filepath.Join(o.cookOut, filepath.FromSlash(pj.job.Name)+ext))
			}
			fmt.Fprintf(stderr, "warning: plan: %s: %s (its edge declares .hmesh and .hmat only; plan again once it cooks)\n", pj.job.Source, pj.failed)
		}
	}
	return nil
}
