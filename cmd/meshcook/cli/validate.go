package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// fileCheck is one file's validation result (`validate --json` prints one
// object per file in an array).
type fileCheck struct {
	File  string `json:"file"`
	Kind  string `json:"kind"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

func newValidateCmd(stdout io.Writer) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check cooked files structurally and semantically",
		Long: `Validate reads each file with its format's reader (recognised by magic or
extension; see docs/formats/) and checks every range, index and count.
Sources (.gltf, .glb, .fbx, .nwb) are imported as a cook would import
them, so a source fails exactly where a cook would refuse it (what a cook
would drop is listed by inspect). It prints one line per file and exits 3
when any file fails.`,
		Example: `  meshcook validate out/models/chair.hmesh out/models/chair.hmat
  meshcook validate assets/models/*.glb assets/characters/hero.fbx
  meshcook validate --json out/*.hmesh`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("validate: name at least one file")
			}
			return nil
		},
		RunE: func(_ *cobra.Command, args []string) error {
			checks := make([]fileCheck, 0, len(args))
			failed := 0
			for _, p := range args {
				c := validateFile(p)
				if !c.OK {
					failed++
				}
				checks = append(checks, c)
			}
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(checks); err != nil {
					return withCode(ExitOutput, err)
				}
			} else {
				for _, c := range checks {
					if c.OK {
						fmt.Fprintf(stdout, "ok   %s (%s)\n", c.File, c.Kind)
					} else {
						fmt.Fprintf(stdout, "FAIL %s: %s\n", c.File, c.Error)
					}
				}
			}
			if failed > 0 {
				return withCode(ExitBadInput, fmt.Errorf("validate: %d of %d files failed", failed, len(args)))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array with one result per file")
	return cmd
}

func validateFile(path string) fileCheck {
	c := fileCheck{File: path, Kind: "unknown"}
	b, k, err := readKind(path)
	if err == nil {
		c.Kind = k.Name
		err = k.Validate(path, b)
	}
	if err != nil {
		c.Error = err.Error()
		return c
	}
	c.OK = true
	return c
}
