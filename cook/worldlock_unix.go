//go:build unix

package cook

import (
	"os"
	"syscall"
)

// lockWorld takes an exclusive lock on the world's data folder (creating
// it), held until unlock: concurrent cooks into one output folder commit
// their worlds one at a time. The lock is the folder's own flock, so no
// lock file appears among the outputs, and the kernel drops it when a
// holder dies.
func lockWorld(dataDir string) (unlock func(), err error) {
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Open(dataDir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
