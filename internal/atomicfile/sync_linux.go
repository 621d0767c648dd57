//go:build linux

package atomicfile

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// noDev marks a temp that Add fsynced itself (its filesystem is unknown).
const noDev = ^uint64(0)

// fileDev is the device of the filesystem holding f, so CommitAll can
// syncfs each filesystem once.
func fileDev(f *os.File) (uint64, bool) {
	info, err := f.Stat()
	if err != nil {
		return noDev, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || uint64(st.Dev) == noDev {
		return noDev, false
	}
	return uint64(st.Dev), true
}

// syncFS writes back every dirty page and inode of the filesystem holding
// f and waits for it (syncfs(2); since Linux 5.8 it also reports write-back
// errors of that filesystem).
func syncFS(f *os.File) error { return unix.Syncfs(int(f.Fd())) }
