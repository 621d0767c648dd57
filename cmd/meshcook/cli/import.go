package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/importer/convert"
	"github.com/meshcook/meshcook/nwb"
)

type importOptions struct {
	budget        budgetFlags
	out           string
	assetType     string
	virtualRoot   string
	mesh          string
	normalMode    string
	scale         float64
	areaEps       float64
	defaultColor  string
	preserveSpace bool
	local         bool
	ignoreColors  bool
	flipWinding   bool
	separate      bool
	listMeshes    bool
	includeHidden bool
	force         bool
	yes           bool
}

func newImportCmd(stdout, stderr io.Writer) *cobra.Command {
	def := convert.DefaultOptions()
	o := importOptions{assetType: string(nwb.AssetBunch), virtualRoot: "project", mesh: def.Mesh,
		normalMode: string(def.NormalMode), scale: 1, areaEps: def.AreaEpsilon, defaultColor: "1,1,1,1"}
	cmd := &cobra.Command{
		Use:   "import SRC.(fbx|glb|gltf) [-o X.nwb]",
		Short: "Import an FBX or glTF source into an authored .nwb source",
		Long: `Import converts an FBX (binary or ASCII) or glTF/GLB file into an authored
.nwb text source (docs/import.md): by default one asset bunch holding the
mesh (and, for a skinned mesh, its skeleton and skin) and a model. The
output is already canonical ('meshcook refresh --check' passes on it).

The output defaults to SRC with the extension .nwb; an existing output is
never replaced without --force. The selected meshes (-m) are merged into
one mesh; static and skinned meshes cannot be mixed except with
--asset-type mesh. FBX scenes are converted to +X right, +Y up, +Z forward
in metres unless --preserve-space, with node transforms baked unless
--local. The report names the tangent path used: imported, generated_uv
or generated_fallback. --list-meshes prints the selectable meshes and
writes nothing. A source that does not parse, or whose selection cannot be
written, exits 3 naming the file.`,
		Example: `  # hero.fbx → hero.nwb (asset bunch)
  meshcook import hero.fbx

  # what can be selected?
  meshcook import level.fbx --list-meshes

  # one mesh by name, regenerated normals, as a lone mesh asset
  meshcook import level.fbx -m crate --normal-mode regenerate --asset-type mesh -o crate.nwb

  # model plus assets/characters/hero/{mesh,skeleton,skin}.nwb
  meshcook import hero.fbx -o assets/characters/hero.nwb --separate-assets --force`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("import: name exactly one source (.fbx, .gltf or .glb), got %d", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd, args[0], o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.out, "output", "o", "", "output .nwb path (default: SRC with .nwb)")
	f.StringVar(&o.assetType, "asset-type", o.assetType, "what to write: bunch, mesh, model, skeleton or skin")
	f.StringVar(&o.virtualRoot, "virtual-root", o.virtualRoot, "root of the virtual paths references use")
	f.StringVarP(&o.mesh, "mesh", "m", o.mesh, "meshes to import: all, first, INDEX or NAME (see --list-meshes)")
	f.StringVar(&o.normalMode, "normal-mode", o.normalMode, "normals: imported, smooth or regenerate")
	f.Float64Var(&o.scale, "scale", o.scale, "multiply positions after the space conversion")
	f.Float64Var(&o.areaEps, "triangle-area-length-squared-epsilon", o.areaEps, "drop triangles with |(b-a)×(c-a)|² at or below this")
	f.StringVar(&o.defaultColor, "default-color", o.defaultColor, "vertex colour R,G,B,A where the source has none")
	f.BoolVar(&o.preserveSpace, "preserve-space", false, "keep the FBX file's axes and units")
	f.BoolVar(&o.local, "local", false, "do not bake FBX node transforms")
	f.BoolVar(&o.ignoreColors, "ignore-colors", false, "ignore the source's vertex colours (use --default-color)")
	f.BoolVar(&o.flipWinding, "flip-winding", false, "swap corners 1 and 2 of every triangle")
	f.BoolVar(&o.separate, "separate-assets", false, "write <dir>/<stem>/{mesh,skeleton,skin}.nwb and the model to the output")
	f.BoolVar(&o.listMeshes, "list-meshes", false, "print the selectable meshes and write nothing")
	f.BoolVar(&o.includeHidden, "include-hidden", false, "let hidden FBX nodes be selected")
	f.BoolVar(&o.force, "force", false, "replace existing output files")
	f.BoolVarP(&o.yes, "yes", "y", false, "accepted for compatibility (meshcook never prompts)")
	addBudgetFlags(f, &o.budget)
	return cmd
}

func runImport(cmd *cobra.Command, src string, o importOptions, stdout, stderr io.Writer) error {
	ext := strings.ToLower(filepath.Ext(src))
	switch ext {
	case ".fbx", ".gltf", ".glb":
	case ".nwb":
		return usageError("import: %s is already a .nwb source (use 'meshcook refresh')", src)
	default:
		return usageError("import: %s: unsupported source kind (want .fbx, .gltf or .glb)", src)
	}
	at, err := nwb.ParseAssetType(o.assetType)
	if err != nil {
		return usageError("import: %v", err)
	}
	mode, err := convert.ParseNormalMode(o.normalMode)
	if err != nil {
		return usageError("import: %v", err)
	}
	color, err := convert.ParseColor(o.defaultColor)
	if err != nil {
		return usageError("import: %v", err)
	}
	if !(o.scale > 0) || o.scale > 1e30 {
		return usageError("import: --scale %g: want a finite number > 0", o.scale)
	}
	if o.areaEps != o.areaEps {
		return usageError("import: --triangle-area-length-squared-epsilon is NaN")
	}
	if o.separate && at != nwb.AssetBunch && at != nwb.AssetModel {
		return usageError("import: --separate-assets writes a model and its assets; it does not combine with --asset-type %s", at)
	}
	if o.listMeshes && cmd.Flags().Changed("output") {
		return usageError("import: --list-meshes writes nothing; drop -o")
	}

	out := o.out
	if out == "" {
		out = strings.TrimSuffix(src, filepath.Ext(src)) + ".nwb"
	}
	if !strings.EqualFold(filepath.Ext(out), ".nwb") {
		return usageError("import: output %s must end in .nwb", out)
	}
	if _, err := os.Stat(out); err == nil && !o.force && !o.listMeshes {
		// Checked again below for every file the import writes.
		return usageError("import: %s exists; pass --force to overwrite it", out)
	}

	opts := convert.Options{
		Mesh: o.mesh, IncludeHidden: o.includeHidden, NormalMode: mode, AreaEpsilon: o.areaEps,
		DefaultColor: color, IgnoreColors: o.ignoreColors, FlipWinding: o.flipWinding,
		Static: at == nwb.AssetMesh, Scale: o.scale, PreserveSpace: o.preserveSpace, Local: o.local,
	}
	if err := o.budget.apply(cmd.Flags(), &opts.Budget); err != nil {
		return usageError("import: %v", err)
	}
	source, err := convert.Load(src, opts)
	if err != nil {
		return withCode(ExitBadInput, err)
	}
	if o.listMeshes {
		return listMeshes(stdout, source)
	}
	if source.Format == "gltf" && (o.preserveSpace || o.local) {
		fmt.Fprintf(stderr, "meshcook: warning: %s: --preserve-space and --local apply to FBX only (glTF is +Y up in metres, node transforms baked)\n", src)
	}

	sc, rep, err := convert.Prepare(source, opts)
	if errors.Is(err, convert.ErrSelection) {
		return usageError("import: %v", err)
	} else if err != nil {
		return withCode(ExitBadInput, err)
	}
	files, err := nwb.FromScene(sc, nwb.ExportOptions{
		AssetType: at, VirtualRoot: o.virtualRoot, Output: out, SeparateAssets: o.separate, DefaultColor: &color,
	})
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("import: %s: %w", src, err))
	}

	// Render everything, then check every destination, then write.
	type rendered struct {
		path string
		data []byte
	}
	var outs []rendered
	for _, f := range files {
		data, err := nwb.Marshal(f.Doc)
		if err != nil {
			return withCode(ExitBadInput, fmt.Errorf("import: %s: %w", src, err))
		}
		outs = append(outs, rendered{f.Path, data})
	}
	if !o.force {
		for _, r := range outs {
			if _, err := os.Stat(r.path); err == nil {
				return usageError("import: %s exists; pass --force to overwrite it", r.path)
			}
		}
	}
	for _, r := range outs {
		if err := writeIfChanged(r.path, r.data); err != nil {
			return withCode(ExitOutput, fmt.Errorf("import: %w", err))
		}
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(stderr, "meshcook: warning: %s: %s\n", src, w)
	}
	printImportReport(stdout, src, rep, files, outs[len(outs)-1].path)
	for _, r := range outs {
		fmt.Fprintf(stdout, "  wrote %s\n", r.path)
	}
	return nil
}

// listMeshes prints the selectable meshes as a table.
func listMeshes(w io.Writer, s *convert.Source) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "INDEX\tNAME\tMESH\tTRIANGLES\tSKINNED\tHIDDEN")
	yn := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	name := func(s string) string {
		if s == "" {
			return "(unnamed)"
		}
		return strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, s)
	}
	for _, m := range s.Meshes {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\n", m.Index, name(m.Name), name(m.MeshName), m.Triangles, yn(m.Skinned), yn(m.Hidden))
	}
	return tw.Flush()
}

// printImportReport prints what the import did: the selection, triangle
// counts, normal mode, tangent path and the written stream sizes.
func printImportReport(w io.Writer, src string, rep *convert.Report, files []nwb.OutputFile, out string) {
	fmt.Fprintf(w, "Imported %s -> %s\n", src, out)
	names := make([]string, len(rep.Selected))
	for i, m := range rep.Selected {
		names[i] = "'" + m.Name + "'"
	}
	fmt.Fprintf(w, "  meshes: %d (%s)", len(rep.Selected), strings.Join(names, ", "))
	if rep.HiddenSkipped > 0 {
		fmt.Fprintf(w, "; %d hidden left out (--include-hidden)", rep.HiddenSkipped)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  triangles: %d", rep.Triangles)
	if rep.Dropped > 0 {
		fmt.Fprintf(w, " (%d below the area epsilon dropped)", rep.Dropped)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  normals: %s", rep.Normals)
	if rep.SmoothFallback > 0 {
		fmt.Fprintf(w, " (smooth for %d submeshes without normals)", rep.SmoothFallback)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  tangents: %s", rep.Tangents)
	if rep.FallbackFrames > 0 && rep.Tangents == convert.TangentsGeneratedUV {
		fmt.Fprintf(w, " (%d vertex refs used the fallback frame)", rep.FallbackFrames)
	}
	fmt.Fprintln(w)
	if rep.Skinned {
		fmt.Fprintf(w, "  joints: %d\n", rep.Joints)
	}
	for _, f := range files {
		for _, a := range f.Doc.Assets {
			if m := a.Mesh; m != nil {
				fmt.Fprintf(w, "  positions: %d, normals: %d, tangents: %d, uv0: %d, colors: %d, vertex_refs: %d, indices: %d\n",
					len(m.Positions), len(m.Normals), len(m.Tangents), len(m.UV0), len(m.Colors), len(m.VertexRefs), len(m.Indices))
			}
		}
	}
}
