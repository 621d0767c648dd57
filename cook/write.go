package cook

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zeebo/xxh3"

	"github.com/meshcook/meshcook/internal/atomicfile"
)

// outputFile is one encoded output waiting to be committed to disk.
type outputFile struct {
	name     string // stable name relative to the output folder, '/'-separated
	kind     string
	data     []byte
	validate func() error // decodes data with the format's own reader and validates it
}

// writeOutput commits f under outDir atomically: temp file in the same
// folder, fsync, read back and compare, rename. An existing file with the
// same bytes is left untouched (no write, no new mtime), so build systems
// see nothing changed.
func writeOutput(outDir string, f outputFile) (OutputReport, error) {
	dst := filepath.Join(outDir, filepath.FromSlash(f.name))
	rep := OutputReport{
		Name:  f.name,
		Path:  dst,
		Kind:  f.kind,
		Bytes: len(f.data),
		XXH3:  fmt.Sprintf("%016x", xxh3.Hash(f.data)),
	}
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, f.data) {
		return rep, nil
	}
	rep.Changed = true
	if err := writeAtomic(dst, f.data); err != nil {
		return rep, &OutputError{Path: dst, Err: err}
	}
	return rep, nil
}

// writeAtomic is atomicfile.Write: temp file in the same folder, fsync,
// read back and compare, rename.
func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }
