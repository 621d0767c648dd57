package cook

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zeebo/xxh3"
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

// writeAtomic writes data to path through a temp file in the same folder,
// so a killed cook leaves either the old file or the new one, never a mix.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	// Read back what reached the file before it replaces the old output.
	back := make([]byte, len(data)+1)
	n, rerr := tmp.ReadAt(back, 0)
	if n != len(data) || !bytes.Equal(back[:n], data) {
		err = fmt.Errorf("read-back of temp file differs from what was written (%d of %d bytes): %v", n, len(data), rerr)
		return err
	}
	if err = tmp.Chmod(0o644); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: make the rename durable
		d.Close()
	}
	return nil
}
