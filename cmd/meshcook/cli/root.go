package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/internal/budget"
	"github.com/meshcook/meshcook/internal/safename"
)

// Version is meshcook's version, printed by `meshcook version`.
const Version = "0.1.0"

// Main runs the CLI on the process's arguments and standard streams.
func Main() int {
	setMemoryLimit(budget.DefaultMemory)
	setGCPercent(gcPercent)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
}

// Run executes one command line and returns its exit code. Data goes to
// stdout; progress, warnings and errors go to stderr. Errors are printed
// once, here, as "meshcook: <message>".
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var prof profileFlags
	root := newRootCmd(stdout, stderr, &prof)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if perr := prof.stop(); err == nil {
		err = perr
	}
	if err == nil {
		return ExitOK
	}
	code := codeOf(err)
	if code == ExitFailure && isCobraUsageError(err) {
		code = ExitUsage
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "meshcook: %s\n", safename.Text(msg))
	}
	if code == ExitUsage {
		fmt.Fprintln(stderr, "run 'meshcook help' for usage")
	}
	return code
}

// isCobraUsageError recognises cobra's own argument and flag errors, which
// it returns as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "accepts ", "requires at least", "requires at most", "bad flag syntax"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// newRootCmd builds the command tree; prof holds its profiling flags.
func newRootCmd(stdout, stderr io.Writer, prof *profileFlags) *cobra.Command {
	root := &cobra.Command{
		Use:   "meshcook",
		Short: "Offline mesh asset cooker: glTF, FBX and .nwb → engine-ready meshes",
		Long: `meshcook cooks authored mesh sources (glTF 2.0, FBX, .nwb, primitive-part
catalogs) into engine-ready outputs under stable names, deterministic to the
byte: .hmesh v2 meshes with meshlets, bounds and LODs (with .hmat materials,
.hanim clips and .ktx2 textures), MSH7 meshlet payloads, .cnb worlds and
baked mesh packs. It imports and refreshes authored .nwb sources and
validates and inspects every output kind for CI.

Exit codes: 0 ok, 1 failure, 2 usage error, 3 bad input, 4 output error.`,
		Example: `  meshcook cook testdata/samples -o out
  meshcook validate out/box.hmesh out/box.hmat
  meshcook inspect out/box.hmesh --json
  meshcook import hero.fbx -o assets/hero.nwb
  meshcook bake testdata/catalog/buildings.json -o out/buildings.smpk`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.AddCommand(newCookCmd(stdout, stderr), newValidateCmd(stdout), newInspectCmd(stdout), newVersionCmd(stdout), newRefreshCmd(stdout, stderr), newBakeCmd(stdout, stderr), newImportCmd(stdout, stderr), newPlanCmd(stdout, stderr))
	root.Version = Version // --version prints what `version` prints first
	root.SetVersionTemplate("meshcook {{.Version}} (" + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + ")\n")
	addProfileFlags(root, prof)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError("%v", err) })
	return root
}
