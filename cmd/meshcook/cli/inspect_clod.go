package cli

import (
	"fmt"
	"io"
	"math"

	"github.com/meshcook/meshcook/formats/kinds"
)

// runInspectCuts is inspect --error: the .hmesh summary with its
// hierarchy cut at errs.
func runInspectCuts(stdout io.Writer, path string, errs []float64, asJSON, dump bool) error {
	if dump {
		return usageError("inspect: --error cuts a hierarchy; drop --dump")
	}
	for _, e := range errs {
		if !(e > 0) || math.IsInf(e, 0) {
			return usageError("inspect: --error %v: want a finite error > 0", e)
		}
	}
	b, k, err := readKind(path)
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("inspect: %s: %w", path, err))
	}
	if k.Name != "hmesh" {
		return usageError("inspect: --error needs a .hmesh, not %s", k.Name)
	}
	s, err := kinds.SummarizeCuts(path, b, errs)
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("inspect: %w", err))
	}
	if asJSON {
		return writeJSON(stdout, s)
	}
	return s.WriteText(stdout)
}
