package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/internal/atomicfile"
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

// plannedJob is one asset: its job, the root it is named from, and what
// its cook reads and writes.
type plannedJob struct {
	job     cook.Job
	root    string
	outputs []string // output paths (under --cook-out), declared by the edge
	inputs  []string // files the cook read besides the source
	failed  string   // why the planning cook failed ("" when it cooked)
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
			all = append(all, plannedJob{job: j, root: root})
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
	switch {
	case o.bazel:
		text, err = bazelFile(all, o)
	default:
		if err = planOutputs(ctx, all, o, stderr); err == nil {
			if o.ninja {
				text = ninjaFile(all, o, bin, args)
			} else {
				text = makeFile(all, o, bin)
			}
		}
	}
	if err != nil {
		return err
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
	flags, err := splitShellWords(o.cookFlags)
	if err != nil {
		return usageError("plan: --cook-flags: %v", err)
	}
	var roots []string
	for _, pj := range all {
		if !slices.Contains(roots, pj.root) {
			roots = append(roots, pj.root)
		}
	}
	for _, root := range roots {
		var idx []int
		cmdline := []string{"cook", "--root", root}
		for i, pj := range all {
			if pj.root == root {
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
			all[i].outputs = append(all[i].outputs, out.Path)
			for _, in := range out.Inputs[1:] {
				if !slices.Contains(all[i].inputs, in) {
					all[i].inputs = append(all[i].inputs, in)
				}
			}
		}
		for _, i := range idx {
			if len(all[i].outputs) > 0 {
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
				pj.outputs = append(pj.outputs, filepath.Join(o.cookOut, filepath.FromSlash(pj.job.Name)+ext))
			}
			fmt.Fprintf(stderr, "warning: plan: %s: %s (its edge declares .hmesh and .hmat only; plan again once it cooks)\n", pj.job.Source, pj.failed)
		}
	}
	return nil
}

func (pj plannedJob) depfile(o planOptions) string {
	return filepath.Join(filepath.Dir(o.out), ".meshcook-deps", filepath.FromSlash(pj.job.Name)+".d")
}

// ninjaFile renders the build file. Paths in build lines are
// Ninja-escaped; paths in commands are also shell-quoted.
func ninjaFile(jobs []plannedJob, o planOptions, bin string, args []string) string {
	var b strings.Builder
	b.WriteString("# Generated by `meshcook plan --ninja`: one cook edge per asset. Do not edit.\n")
	b.WriteString("ninja_required_version = 1.10\n\n")
	fmt.Fprintf(&b, "meshcook = %s\n", ninjaValue(shellQuote(bin)))
	fmt.Fprintf(&b, "cook_flags = %s\n\n", ninjaValue(o.cookFlags))
	b.WriteString("rule cook\n")
	b.WriteString("  command = $meshcook cook --root $qroot $qsrc -o $qoutdir --depfile $qdep -j 1 --quiet $cook_flags\n")
	b.WriteString("  description = cook $name\n")
	b.WriteString("  depfile = $dep\n")
	b.WriteString("  deps = gcc\n")
	b.WriteString("  restat = 1\n\n")
	// The build file plans itself again when a source or a file one
	// references changes: the outputs may have changed with them.
	replan := []string{"$meshcook", "plan", "--ninja"}
	for _, a := range args {
		replan = append(replan, ninjaValue(shellQuote(a)))
	}
	replan = append(replan, "-o", ninjaValue(shellQuote(o.out)), "--cook-out", ninjaValue(shellQuote(o.cookOut)),
		"--meshcook", "$meshcook", "--cook-flags", ninjaValue(shellQuote(o.cookFlags)))
	b.WriteString("rule plan\n")
	fmt.Fprintf(&b, "  command = %s\n", strings.Join(replan, " "))
	b.WriteString("  description = plan $out\n")
	b.WriteString("  generator = 1\n")
	b.WriteString("  restat = 1\n")
	var planIn []string
	for _, pj := range jobs {
		for _, in := range append([]string{pj.job.Source}, pj.inputs...) {
			if !slices.Contains(planIn, in) {
				planIn = append(planIn, in)
			}
		}
	}
	fmt.Fprintf(&b, "\nbuild %s: plan | %s\n", ninjaPath(o.out), ninjaPaths(planIn))
	for _, pj := range jobs {
		if len(pj.outputs) == 0 {
			continue // a source that writes nothing
		}
		j := pj.job
		dep := pj.depfile(o)
		fmt.Fprintf(&b, "\nbuild %s: cook %s\n", ninjaPaths(pj.outputs), ninjaPath(j.Source))
		fmt.Fprintf(&b, "  name = %s\n", ninjaValue(j.Name))
		fmt.Fprintf(&b, "  qroot = %s\n", ninjaValue(shellQuote(pj.root)))
		fmt.Fprintf(&b, "  qsrc = %s\n", ninjaValue(shellQuote(j.Source)))
		fmt.Fprintf(&b, "  qoutdir = %s\n", ninjaValue(shellQuote(o.cookOut)))
		fmt.Fprintf(&b, "  dep = %s\n", ninjaValue(dep))
		fmt.Fprintf(&b, "  qdep = %s\n", ninjaValue(shellQuote(dep)))
	}
	return b.String()
}

func ninjaPaths(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = ninjaPath(p)
	}
	return strings.Join(q, " ")
}

// makeFile renders a GNU Makefile: one grouped-target rule per asset
// (all its outputs from one cook), its depfile included for the files the
// source references, and `all` over every output.
func makeFile(jobs []plannedJob, o planOptions, bin string) string {
	var b strings.Builder
	b.WriteString("# Generated by `meshcook plan --make`: one cook rule per asset. Do not edit.\n")
	b.WriteString("# Grouped targets (&:) need GNU make 4.3 or later.\n\n")
	fmt.Fprintf(&b, "MESHCOOK := %s\n", makeValue(shellQuote(bin)))
	fmt.Fprintf(&b, "COOK_FLAGS := %s\n\n", makeValue(o.cookFlags))
	var outs []string
	for _, pj := range jobs {
		outs = append(outs, pj.outputs...)
	}
	b.WriteString(".PHONY: all\n")
	fmt.Fprintf(&b, "all: %s\n", makePaths(outs))
	for _, pj := range jobs {
		if len(pj.outputs) == 0 {
			continue // a source that writes nothing
		}
		j := pj.job
		dep := pj.depfile(o)
		quoted := make([]string, len(pj.outputs))
		for i, p := range pj.outputs {
			quoted[i] = makeValue(shellQuote(p))
		}
		fmt.Fprintf(&b, "\n%s &: %s\n", makePaths(pj.outputs), depEscapeMake(j.Source))
		fmt.Fprintf(&b, "\t@echo cook %s\n", makeValue(shellQuote(j.Name)))
		fmt.Fprintf(&b, "\t@mkdir -p %s\n", makeValue(shellQuote(filepath.Dir(dep))))
		fmt.Fprintf(&b, "\t@$(MESHCOOK) cook --root %s %s -o %s --depfile %s -j 1 --quiet $(COOK_FLAGS)\n",
			makeValue(shellQuote(pj.root)), makeValue(shellQuote(j.Source)), makeValue(shellQuote(o.cookOut)), makeValue(shellQuote(dep)))
		// Make has no restat: newer outputs tell it the cook ran.
		fmt.Fprintf(&b, "\t@touch %s\n", strings.Join(quoted, " "))
		fmt.Fprintf(&b, "-include %s\n", depEscapeMake(dep))
	}
	return b.String()
}

func makePaths(ps []string) string {
	q := make([]string, len(ps))
	for i, p := range ps {
		q[i] = depEscapeMake(p)
	}
	return strings.Join(q, " ")
}

// depEscapeMake escapes a path in a make rule the way depfiles do
// (cook.WriteDepfile): '$' as "$$", '#' as "\#", spaces as "\ ".
func depEscapeMake(p string) string {
	r := strings.NewReplacer("$", "$$", "#", `\#`, " ", `\ `, "\t", "\\\t")
	return r.Replace(filepath.ToSlash(p))
}

// makeValue escapes a value in a make variable or recipe: '$' as "$$".
func makeValue(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// bazelFile renders a BUILD file: one meshcook_asset per source with its
// references as data, paths relative to the BUILD file's folder.
func bazelFile(jobs []plannedJob, o planOptions) (string, error) {
	pkgDir := o.pkg
	if pkgDir == "" {
		pkgDir = filepath.Dir(o.out)
	}
	pkg, err := filepath.Abs(pkgDir)
	if err != nil {
		return "", err
	}
	rel := func(p string) (string, error) {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		r, err := filepath.Rel(pkg, abs)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return "", withCode(ExitBadInput, fmt.Errorf("plan: %s is not inside the BUILD file's package folder %s", p, pkgDir))
		}
		return filepath.ToSlash(r), nil
	}
	var b strings.Builder
	b.WriteString("# Generated by `meshcook plan --bazel`: one meshcook_asset per source, with\n")
	b.WriteString("# the files it references as data. Do not edit; plan again when sources change.\n")
	load := `"meshcook_asset"`
	if o.world != "" {
		load += `, "meshcook_world"`
	}
	fmt.Fprintf(&b, "load(\"@meshcook_rules//:defs.bzl\", %s)\n\n", load)
	b.WriteString("package(default_visibility = [\"//visibility:public\"])\n")
	var exported, srcs, data []string
	var body strings.Builder
	for _, pj := range jobs {
		src, err := rel(pj.job.Source)
		if err != nil {
			return "", err
		}
		root, err := rel(pj.root)
		if err != nil {
			return "", err
		}
		refs, err := cook.References(pj.job, cook.DefaultOptions())
		if err != nil {
			return "", withCode(ExitBadInput, fmt.Errorf("plan: %w", err))
		}
		var deps []string
		for _, r := range refs {
			d, err := rel(r)
			if err != nil {
				return "", err
			}
			deps = append(deps, d)
		}
		fmt.Fprintf(&body, "\nmeshcook_asset(\n    name = %s,\n    src = %s,\n", starlarkString(pj.job.Name), starlarkString(src))
		if len(deps) > 0 {
			fmt.Fprintf(&body, "    data = %s,\n", starlarkList(deps, 2))
		}
		if root != "." {
			fmt.Fprintf(&body, "    root = %s,\n", starlarkString(root))
		}
		body.WriteString(")\n")
		srcs = append(srcs, src)
		for _, d := range append([]string{src}, deps...) {
			if !slices.Contains(exported, d) {
				exported = append(exported, d)
			}
		}
		for _, d := range deps {
			if !slices.Contains(data, d) {
				data = append(data, d)
			}
		}
		if o.world != "" && pj.root != jobs[0].root {
			return "", usageError("plan: --world needs every source under one root (%s and %s)", jobs[0].root, pj.root)
		}
	}
	slices.Sort(exported)
	fmt.Fprintf(&b, "\nexports_files(%s)\n", starlarkList(exported, 1))
	b.WriteString(body.String())
	if o.world != "" {
		root, _ := rel(jobs[0].root)
		fmt.Fprintf(&b, "\nmeshcook_world(\n    name = %s,\n    srcs = %s,\n", starlarkString(o.world), starlarkList(srcs, 2))
		if len(data) > 0 {
			fmt.Fprintf(&b, "    data = %s,\n", starlarkList(data, 2))
		}
		if root != "." {
			fmt.Fprintf(&b, "    root = %s,\n", starlarkString(root))
		}
		b.WriteString(")\n")
	}
	return b.String(), nil
}

// starlarkString quotes s as a Starlark string literal.
func starlarkString(s string) string {
	b, _ := json.Marshal(s) // JSON's escapes are valid Starlark
	return string(b)
}

// starlarkList writes a list literal: one item inline, more one per line
// at depth 1 (an argument of a top-level call) or 2 (a rule attribute).
func starlarkList(items []string, depth int) string {
	if len(items) == 1 {
		return "[" + starlarkString(items[0]) + "]"
	}
	in := strings.Repeat("    ", depth)
	var b strings.Builder
	b.WriteString("[\n")
	for _, it := range items {
		fmt.Fprintf(&b, "%s%s,\n", in, starlarkString(it))
	}
	b.WriteString(in[4:] + "]")
	return b.String()
}

// ninjaPath escapes a path in a build line: '$', ' ' and ':' take a '$'.
func ninjaPath(p string) string {
	r := strings.NewReplacer("$", "$$", " ", "$ ", ":", "$:")
	return r.Replace(p)
}

// ninjaValue escapes a variable's value: only '$' is special.
func ninjaValue(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// shellQuote quotes s as one POSIX shell word.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=+,@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// splitShellWords splits s into words as a POSIX shell would, without
// expansions: blanks separate words, single quotes keep everything,
// double quotes keep all but \" and \\, a backslash outside quotes keeps
// the next byte.
func splitShellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
