//go:build unix

package cook

import (
	"os"
	"syscall"
)

// mapFile maps a cache segment read-only, so opening a cache reads only
// the pages of the metadata and of the entries a cook uses. Segments are
// never modified in place (written to a temp file, then linked), so a
// mapping cannot see a truncation. release unmaps it.
func mapFile(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size == 0 || size != int64(int(size)) {
		b, err := os.ReadFile(path)
		return b, func() {}, err
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		b, err := os.ReadFile(path)
		return b, func() {}, err
	}
	return b, func() { syscall.Munmap(b) }, nil
}
