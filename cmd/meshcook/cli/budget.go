package cli

import (
	"fmt"
	"os"
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/meshcook/meshcook/internal/budget"
)

// budgetFlags are the resource budget's flags (internal/budget).
type budgetFlags struct {
	triangles int64
	pixels    int64
	decoded   string
	memory    string
}

func addBudgetFlags(f *pflag.FlagSet, b *budgetFlags) {
	d := budget.Default()
	*b = budgetFlags{triangles: d.Triangles, pixels: d.ImagePixels, decoded: formatSize(uint64(d.DecodedBytes)), memory: formatSize(uint64(d.Memory))}
	f.Int64Var(&b.triangles, budget.FlagTriangles[2:], b.triangles, "budget: most triangles one source may have (exit 3 past it)")
	f.Int64Var(&b.pixels, budget.FlagImagePixels[2:], b.pixels, "budget: most pixels (width × height) one image may decode to")
	f.StringVar(&b.decoded, budget.FlagDecodedBytes[2:], b.decoded, "budget: most decoded binary data (FBX arrays, text) one source may hold (bytes, or with KiB/MiB/GiB)")
	f.StringVar(&b.memory, budget.FlagMemory[2:], b.memory, "budget: memory the sources cooking at once share, also the Go runtime's soft limit unless GOMEMLIMIT is set")
}

// apply sets out from the flags; a --memory-budget given on the command
// line also becomes the process's soft memory limit.
func (b budgetFlags) apply(f *pflag.FlagSet, out *budget.Budget) error {
	if b.triangles <= 0 || b.pixels <= 0 {
		return fmt.Errorf("%s and %s must be positive", budget.FlagTriangles, budget.FlagImagePixels)
	}
	decoded, err := parseSize(b.decoded)
	if err != nil || decoded == 0 || decoded > 1<<62 {
		return fmt.Errorf("%s %q: want a positive size", budget.FlagDecodedBytes, b.decoded)
	}
	memory, err := parseSize(b.memory)
	if err != nil || memory == 0 || memory > 1<<62 {
		return fmt.Errorf("%s %q: want a positive size", budget.FlagMemory, b.memory)
	}
	*out = budget.Budget{Triangles: b.triangles, ImagePixels: b.pixels, DecodedBytes: int64(decoded), Memory: int64(memory)}
	if f.Changed(budget.FlagMemory[2:]) {
		setMemoryLimit(int64(memory))
	}
	return nil
}

// setMemoryLimit makes limit the Go runtime's soft memory limit, unless
// the environment's GOMEMLIMIT chose one: the collector then works harder
// near the budget instead of letting the heap double past it.
func setMemoryLimit(limit int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}

// gcPercent is meshcook's GOGC. Go's default of 100 lets the heap grow to
// twice the live data before the next collection, and a big cook's
// garbage comes in large steps (a finished LOD level's simplifier state,
// the packed file after validation), so at 100 the peak memory was twice
// the live peak: 1275 MiB of Go heap for 634 MiB live on the 1.19M-triangle
// bench mesh. The large data are pointer-free slices (vertex streams,
// index buffers, quadrics), which the collector marks without reading, so
// collecting at 20% growth cost about 3% more CPU there (docs/budget.md
// has the numbers) and the peak is about 1.2 times the live data.
const gcPercent = 20

// setGCPercent makes percent the collector's GOGC, unless the
// environment's GOGC chose one.
func setGCPercent(percent int) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}
