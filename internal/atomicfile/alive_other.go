//go:build !unix

package atomicfile

// processAlive cannot tell here, so temps of this host's other processes
// are never treated as stale.
func processAlive(int) bool { return true }
