//go:build !unix

package cook

import "os"

// mapFile reads a cache segment whole where memory mapping is not used.
func mapFile(path string) ([]byte, func(), error) {
	b, err := os.ReadFile(path)
	return b, func() {}, err
}
