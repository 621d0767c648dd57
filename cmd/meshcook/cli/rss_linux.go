package cli

import "syscall"

// peakRSS is this process's peak resident set size in bytes (Linux
// reports ru_maxrss in KiB).
func peakRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return uint64(ru.Maxrss) * 1024, true
}
