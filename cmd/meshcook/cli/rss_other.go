//go:build !linux

package cli

// peakRSS is not reported outside Linux (ru_maxrss units differ).
func peakRSS() (uint64, bool) { return 0, false }
