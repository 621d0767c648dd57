package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
)

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print meshcook's version and the format versions it writes",
		Example: "  meshcook version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(stdout, "meshcook %s (%s)\nformats: hmesh v2, hmat v1\n", Version, runtime.Version())
			return nil
		},
	}
}
