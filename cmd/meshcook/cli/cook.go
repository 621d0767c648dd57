package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/meshcook/meshcook/cook"
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
	targets  []string
	progress bool
}

func newCookCmd(stdout, stderr io.Writer) *cobra.Command {
	def := cook.DefaultOptions()
	o := cookOptions{maxVerts: def.Meshlet.MaxVertices, maxTris: def.Meshlet.MaxTriangles, cone: def.Meshlet.ConeWeight,
		lods: formatRatios(def.LOD.Ratios), lodError: def.LOD.Error}
	cmd := &cobra.Command{
		Use:   "cook PATH... -o DIR",
		Short: "Cook glTF/GLB sources into .hmesh and .hmat outputs",
		Long: `Cook every .gltf/.glb source named on the command line (folders are walked
recursively) into outputs under DIR with stable names: a source at
<folder>/models/chair.glb becomes DIR/models/chair.hmesh and
DIR/models/chair.hmat (a leading "assets/" is dropped). A file named directly
is rooted at its own folder.

Every output is decoded and validated by its format's reader before it
atomically replaces the old file; an output whose bytes did not change is
not rewritten. A source that fails writes nothing and is reported; the other
sources still cook. Exit 3 when any source was bad, 4 when an output could
not be written.`,
		Example: `  # cook the bundled samples
  meshcook cook testdata/samples -o out

  # a machine-readable report, two workers, smaller meshlets
  meshcook cook assets -o build/meshes --json -j 2 --meshlet-verts 32 --meshlet-tris 64

  # three LOD levels with at most 2% error; or none at all
  meshcook cook assets -o build --lods 0.5,0.25,0.1 --lod-error 0.02
  meshcook cook assets -o build --lods ""`,
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
	f.StringSliceVar(&o.targets, "target", []string{cook.TargetHMesh}, "output formats, comma-separated: "+strings.Join(cook.KnownTargets(), ", "))
	f.BoolVar(&o.progress, "progress", true, "show a progress bar when stderr is a terminal")
	return cmd
}

func runCook(cmd *cobra.Command, args []string, o cookOptions, stdout, stderr io.Writer) error {
	opts := cook.DefaultOptions()
	opts.OutDir = o.out
	opts.Jobs = o.jobs
	opts.Meshlet.MaxVertices = o.maxVerts
	opts.Meshlet.MaxTriangles = o.maxTris
	opts.Meshlet.ConeWeight = o.cone
	ratios, err := parseRatios(o.lods)
	if err != nil {
		return usageError("cook: --lods: %v", err)
	}
	opts.LOD.Ratios = ratios
	opts.LOD.Error = o.lodError
	opts.Targets = o.targets
	if err := opts.Validate(); err != nil {
		return usageError("cook: %v", err)
	}

	jobs, err := cook.Plan(args)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if len(jobs) == 0 {
		return withCode(ExitBadInput, fmt.Errorf("cook: no .gltf or .glb sources under %v", args))
	}
	if o.progress && isTerminal(stderr) {
		bar := progressbar.NewOptions(len(jobs),
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("cooking"),
			progressbar.OptionShowCount(),
			progressbar.OptionClearOnFinish())
		opts.Progress = func(done, total int, _ cook.Job) { _ = bar.Set(done) }
	}

	rep, err := cook.Run(cmd.Context(), jobs, opts)
	if err != nil {
		return err
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	for _, e := range rep.Errors {
		fmt.Fprintf(stderr, "meshcook: %s\n", e)
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
		fmt.Fprintf(stdout, "cooked %d of %d sources: %d outputs (%d changed) in %s\n",
			len(rep.Meshes), len(jobs), len(rep.Outputs), changed, o.out)
	}
	// Each failure was printed above on one line; a summary only adds
	// something when there were several.
	summary := errors.New("")
	if n := len(rep.Errors); n > 1 {
		summary = fmt.Errorf("cook: %d of %d sources failed", n, len(jobs))
	}
	switch {
	case rep.OutputErrors > 0:
		return withCode(ExitOutput, summary)
	case rep.InputErrors > 0:
		return withCode(ExitBadInput, summary)
	}
	return nil
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

func formatRatios(r []float32) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = strconv.FormatFloat(float64(v), 'g', -1, 32)
	}
	return strings.Join(parts, ",")
}
