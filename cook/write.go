package cook

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/meshcook/meshcook/internal/atomicfile"
	"github.com/meshcook/meshcook/internal/safename"
)

// outputFile is one encoded output waiting to be committed to disk.
type outputFile struct {
	name     string // stable name relative to the output folder, '/'-separated
	kind     string
	data     []byte
	validate func() error // decodes data with the format's own reader and validates it
}

// commitOutputs writes one job's (or the world's) files under OutDir all
// or nothing (internal/atomicfile.Batch): every name is checked
// (internal/safename), every changed file is written beside its name,
// fsynced and read back, and only then are they all renamed into place.
// Writes go through an os.Root on OutDir, so they never follow a link out
// of it. A file whose bytes did not change is left untouched (no write, no
// new mtime), so build systems see nothing changed. With Check nothing is
// written: a file missing or different on disk is reported Changed.
func (o Options) commitOutputs(files []outputFile) ([]OutputReport, error) {
	reps := make([]OutputReport, len(files))
	for i, f := range files {
		dst := filepath.Join(o.OutDir, filepath.FromSlash(f.name))
		reps[i] = OutputReport{Name: f.name, Path: dst, Kind: f.kind, Bytes: len(f.data), XXH3: xxh3Hex(f.data)}
		if err := safename.Check(f.name); err != nil {
			return nil, &OutputError{Path: safename.Text(dst), Err: err}
		}
	}
	if o.Check || o.DryRun {
		for i, f := range files {
			old, err := os.ReadFile(reps[i].Path)
			reps[i].Changed = err != nil || !bytes.Equal(old, f.data)
		}
		return reps, nil
	}
	if len(files) == 0 {
		return reps, nil
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, &OutputError{Path: o.OutDir, Err: unwrapPathError(err)}
	}
	root, err := os.OpenRoot(o.OutDir)
	if err != nil {
		return nil, &OutputError{Path: o.OutDir, Err: unwrapPathError(err)}
	}
	defer root.Close()
	b := atomicfile.NewBatch(root)
	for i, f := range files {
		if old, err := root.ReadFile(f.name); err == nil && bytes.Equal(old, f.data) {
			continue
		}
		reps[i].Changed = true
		if err := b.Add(f.name, f.data); err != nil {
			b.Abort()
			return nil, &OutputError{Path: reps[i].Path, Err: unwrapPathError(err)}
		}
	}
	if err := b.Commit(); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, &OutputError{Path: filepath.Join(o.OutDir, filepath.FromSlash(pe.Path)), Err: pe.Err}
		}
		return nil, &OutputError{Path: o.OutDir, Err: err}
	}
	return reps, nil
}

// writeAtomic is atomicfile.Write: temp file in the same folder, fsync,
// read back and compare, rename.
func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }
