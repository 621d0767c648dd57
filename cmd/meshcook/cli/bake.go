package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/bake"
	"github.com/meshcook/meshcook/internal/atomicfile"
)

type bakeOptions struct {
	out       string
	tolerance float64
	check     bool
	json      bool
	strict    bool
}

// bakeJSON is `bake --json`'s object (field names pinned by a test).
type bakeJSON struct {
	Output  string      `json:"output"`
	Changed bool        `json:"changed"`
	Report  bake.Report `json:"report"`
}

// bakeCheckJSON is `bake --check --json`'s object.
type bakeCheckJSON struct {
	Output string      `json:"output"`
	OK     bool        `json:"ok"`
	Diffs  []bake.Diff `json:"diffs"`
	Report bake.Report `json:"report"`
}

func newBakeCmd(stdout, stderr io.Writer) *cobra.Command {
	o := bakeOptions{tolerance: bake.DefaultOptions().Tolerance}
	cmd := &cobra.Command{
		Use:   "bake CATALOG -o OUT.smpk",
		Short: "Bake a primitive-part catalog into a mesh pack (.smpk, or .rmpk for rigged catalogs)",
		Long: `Bake tessellates every part of every entry and state in CATALOG (JSON,
docs/catalog.md) at one chord tolerance: each round part gets the fewest
segments (a multiple of 4, never more than its author asked for) that keep
it within the tolerance of its true surface at its world size. Each
entry/state is merged into one mesh named "<entry>/<state>" with index
ranges per material and a bounding sphere, and the meshes are written as a
zstd-framed static mesh pack (docs/formats/meshpack.md). A catalog with
"family": "rigged" bakes equipment whose parts ride on bones into a rigged
pack (.rmpk) instead.

The pack is decoded back and validated before it atomically replaces OUT;
an unchanged pack is not rewritten. The report gives triangles before (at
the authors' segment counts) and after, per entry and in total.

--check bakes without writing and compares with the existing OUT entry by
entry: exit 1, naming the differing entries, when OUT is not what a fresh
bake gives. Exit 3 for a bad catalog or unreadable pack, 4 when OUT cannot
be written.`,
		Example: `  meshcook bake testdata/catalog/buildings.json -o out/buildings.smpk
  meshcook bake testdata/catalog/equipment.json -o out/equipment.rmpk
  meshcook bake buildings.json -o buildings.smpk --tolerance 0.001 --json
  meshcook bake buildings.json -o buildings.smpk --check   # CI: pack equals a fresh bake`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("bake: name exactly one catalog (got %d arguments)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.out == "" {
				return usageError("bake: -o OUT.smpk is required")
			}
			opts := bake.Options{Tolerance: o.tolerance, StrictPaths: o.strict}
			if err := opts.Validate(); err != nil {
				return usageError("%v", err)
			}
			if o.check {
				return runBakeCheck(cmd.Context(), args[0], o, opts, stdout)
			}
			return runBake(cmd.Context(), args[0], o, opts, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "out", "o", "", "output pack (.smpk); its folder is created when missing")
	f.Float64Var(&o.tolerance, "tolerance", o.tolerance, "chord tolerance in metres: the largest distance from a part's true surface")
	f.BoolVar(&o.check, "check", false, "write nothing; exit 1 naming the entries where OUT differs from a fresh bake")
	f.BoolVar(&o.json, "json", false, "print the report as one JSON object on stdout")
	f.BoolVar(&o.strict, "strict-paths", false, "refuse a source part that a symbolic link leads out of the catalog's folder (links are followed by default)")
	return cmd
}

func runBake(ctx context.Context, catalog string, o bakeOptions, opts bake.Options, stdout, stderr io.Writer) error {
	b, rep, err := bake.Bake(ctx, catalog, opts)
	if err != nil {
		return bakeError(err)
	}
	if want := rep.PackExt(); filepath.Ext(o.out) != want {
		fmt.Fprintf(stderr, "warning: %s: a %s pack is usually named *%s\n", o.out, rep.Family, want)
	}
	changed, err := atomicfile.WriteIfChanged(o.out, b)
	if err != nil {
		return withCode(ExitOutput, fmt.Errorf("bake: %w", err))
	}
	if rep.LimitedParts > 0 {
		fmt.Fprintf(stderr, "warning: %d parts ask for fewer segments than the %.4g m tolerance needs; they keep their request (worst %.4g m)\n",
			rep.LimitedParts, rep.Tolerance, rep.MaxBound)
	}
	if o.json {
		return printBakeJSON(stdout, bakeJSON{Output: o.out, Changed: changed, Report: rep})
	}
	w := 0
	for _, e := range rep.Entries {
		w = max(w, len(e.Name))
	}
	for _, e := range rep.Entries {
		fmt.Fprintf(stdout, "%-*s  %8d → %8d triangles  %s\n", w, e.Name, e.TrianglesBefore, e.TrianglesAfter, bakeDelta(e.TrianglesBefore, e.TrianglesAfter))
	}
	state := "unchanged"
	if changed {
		state = "written"
	}
	fmt.Fprintf(stdout, "baked %d meshes at %.4g m: %d → %d triangles %s, %.2f× fewer; %s %s\n",
		len(rep.Entries), rep.Tolerance, rep.TrianglesBefore, rep.TrianglesAfter,
		bakeDelta(rep.TrianglesBefore, rep.TrianglesAfter), rep.Reduction, o.out, state)
	return nil
}

func runBakeCheck(ctx context.Context, catalog string, o bakeOptions, opts bake.Options, stdout io.Writer) error {
	res, err := bake.Check(ctx, catalog, o.out, opts)
	if err != nil {
		return bakeError(err)
	}
	if o.json {
		if err := printBakeJSON(stdout, bakeCheckJSON{Output: o.out, OK: res.OK(), Diffs: res.Diffs, Report: res.Report}); err != nil {
			return err
		}
	} else {
		for _, d := range res.Diffs {
			name := d.Name
			if name == "" {
				name = "(pack)"
			}
			fmt.Fprintf(stdout, "%s: %s\n", name, d.Reason)
		}
		if res.OK() {
			fmt.Fprintf(stdout, "%s equals a fresh bake of %s (%d meshes)\n", o.out, catalog, len(res.Report.Entries))
		}
	}
	if res.OK() {
		return nil
	}
	names := make([]string, 0, len(res.Diffs))
	for _, d := range res.Diffs {
		if d.Name != "" {
			names = append(names, d.Name)
		}
	}
	msg := fmt.Sprintf("bake --check: %s differs from a fresh bake of %s", o.out, catalog)
	if len(names) > 0 {
		msg += fmt.Sprintf(" in %d entries: %s", len(names), strings.Join(names, ", "))
	}
	return withCode(ExitFailure, errors.New(msg+" (run 'meshcook bake' to refresh it)"))
}

// bakeError maps a library error to its exit code: a bad catalog or an
// unreadable pack is bad input; a cancelled bake is a plain failure.
func bakeError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return withCode(ExitFailure, err)
	}
	return withCode(ExitBadInput, err)
}

func printBakeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return withCode(ExitOutput, err)
	}
	return nil
}

// bakeDelta formats after−before as a signed percentage of before.
func bakeDelta(before, after int) string {
	if before == 0 {
		return "(±0%)"
	}
	return fmt.Sprintf("(%+.1f%%)", 100*float64(after-before)/float64(before))
}
