//go:build unix

package preview

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used, so a
// benchmark can report it beside wall time on a busy machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
