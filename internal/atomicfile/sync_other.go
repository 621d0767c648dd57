//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// noDev marks a temp that Add fsynced itself: without syncfs, every temp.
const noDev = ^uint64(0)

// fileDev reports no filesystem: Add fsyncs each temp.
func fileDev(*os.File) (uint64, bool) { return noDev, false }

// syncFS is never called here (no temp has a device).
func syncFS(*os.File) error { return errors.New("atomicfile: no syncfs on this platform") }
