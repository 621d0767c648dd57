package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profileFlags are the root's --cpuprofile and --memprofile: pprof files
// of one whole command, for finding where a long cook spends its time and
// memory (go tool pprof meshcook FILE).
type profileFlags struct {
	cpu string
	mem string
	f   *os.File // the open CPU profile while the command runs
}

func addProfileFlags(root *cobra.Command, p *profileFlags) {
	f := root.PersistentFlags()
	f.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the whole command to this file (go tool pprof)")
	f.StringVar(&p.mem, "memprofile", "", "write a heap profile (allocations since start, and what is live at the end) to this file")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return p.start() }
}

// start begins the CPU profile, if asked for.
func (p *profileFlags) start() error {
	if p.cpu == "" {
		return nil
	}
	f, err := os.Create(p.cpu)
	if err != nil {
		return withCode(ExitOutput, fmt.Errorf("--cpuprofile: %w", err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return withCode(ExitOutput, fmt.Errorf("--cpuprofile %s: %w", p.cpu, err))
	}
	p.f = f
	return nil
}

// stop ends the CPU profile and writes the heap profile; Run calls it
// after every command, failed ones included, so a failing cook's profile
// is kept too.
func (p *profileFlags) stop() error {
	var errs []error
	if p.f != nil {
		pprof.StopCPUProfile()
		if err := p.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("--cpuprofile %s: %w", p.cpu, err))
		}
		p.f = nil
	}
	if p.mem != "" {
		if err := writeHeapProfile(p.mem); err != nil {
			errs = append(errs, withCode(ExitOutput, fmt.Errorf("--memprofile: %w", err)))
		}
	}
	return errors.Join(errs...)
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // the live figures as of the end of the command
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
