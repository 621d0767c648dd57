package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/cook"
)

// versionInfo is `meshcook version --json`.
type versionInfo struct {
	Version   string               `json:"version"`
	Go        string               `json:"go"`
	Platform  string               `json:"platform"`
	Exe       string               `json:"exe"`       // xxh3-128 of the executable
	Toolchain string               `json:"toolchain"` // in every cache key
	Formats   []cook.FormatVersion `json:"formats"`
}

func newVersionCmd(stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print meshcook's version, its cache toolchain and the format versions it writes",
		Long: `Print meshcook's version, the Go toolchain it was built with, the cache
toolchain (the string every cache key holds: the cook and format versions
and the xxh3-128 of this executable) and every file format it writes with
its version. Two machines share local or remote cache entries exactly when
their toolchains are equal (docs/build-integration.md "Identical
binaries").`,
		Example: "  meshcook version\n  meshcook version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := versionInfo{Version: Version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
				Exe: cook.ExeHash(), Toolchain: cook.Toolchain(), Formats: cook.WrittenFormats()}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			fmt.Fprintf(stdout, "meshcook %s (%s %s)\n", v.Version, v.Go, v.Platform)
			fmt.Fprintf(stdout, "cache toolchain: %s\n", v.Toolchain)
			fmt.Fprintf(stdout, "executable xxh3-128: %s\n", v.Exe)
			fmt.Fprintln(stdout, "writes:")
			for _, f := range v.Formats {
				note := ""
				if f.Note != "" {
					note = " (" + f.Note + ")"
				}
				fmt.Fprintf(stdout, "  %s v%d%s\n", f.Name, f.Version, note)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the same as one JSON object")
	return cmd
}
