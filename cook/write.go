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

// stagedOutputs is one job's (or the world's) outputs written to temp
// files beside their names, waiting for commitStaged.
type stagedOutputs struct {
	reps  []OutputReport
	root  *os.Root          // nil when nothing is to be renamed
	batch *atomicfile.Batch // the changed files' temps
}

// commitOutputs writes one job's (or the world's) files under OutDir all
// or nothing: stageOutputs, then commitStaged of that job alone. With Check
// (or DryRun) nothing is written: a file missing or different on disk is
// reported Changed.
func (o Options) commitOutputs(files []outputFile) ([]OutputReport, error) {
	st, err := o.stageOutputs(files)
	if err != nil {
		return nil, err
	}
	if err := commitStaged(o.OutDir, []*stagedOutputs{st})[0]; err != nil {
		return nil, err
	}
	return st.reps, nil
}

// stageOutputs checks every name (internal/safename) and writes each file
// whose bytes changed to a temp file beside its name
// (internal/atomicfile.Batch); nothing is replaced until commitStaged.
// Writes go through an os.Root on OutDir, so they never follow a link out
// of it. A file whose bytes did not change is left untouched (no write, no
// new mtime), so build systems see nothing changed. On an error no temp
// is left.
func (o Options) stageOutputs(files []outputFile) (*stagedOutputs, error) {
	st := &stagedOutputs{reps: make([]OutputReport, len(files))}
	for i, f := range files {
		dst := filepath.Join(o.OutDir, filepath.FromSlash(f.name))
		st.reps[i] = OutputReport{Name: f.name, Path: dst, Kind: f.kind, Bytes: len(f.data), XXH3: xxh3Hex(f.data)}
		if err := safename.Check(f.name); err != nil {
			return nil, &OutputError{Path: safename.Text(dst), Err: err}
		}
	}
	if o.Check || o.DryRun {
		for i, f := range files {
			st.reps[i].Changed = !sameFile(os.Stat, os.ReadFile, st.reps[i].Path, f.data)
		}
		return st, nil
	}
	if len(files) == 0 {
		return st, nil
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, &OutputError{Path: o.OutDir, Err: unwrapPathError(err)}
	}
	root, err := os.OpenRoot(o.OutDir)
	if err != nil {
		return nil, &OutputError{Path: o.OutDir, Err: unwrapPathError(err)}
	}
	b := atomicfile.NewBatch(root)
	for i, f := range files {
		if sameFile(root.Stat, root.ReadFile, f.name, f.data) {
			continue
		}
		st.reps[i].Changed = true
		if err := b.Add(f.name, f.data); err != nil {
			b.Abort()
			root.Close()
			return nil, &OutputError{Path: st.reps[i].Path, Err: unwrapPathError(err)}
		}
	}
	st.root, st.batch = root, b
	return st, nil
}

// abort removes the staged temps; nothing is replaced.
func (st *stagedOutputs) abort() {
	if st.root != nil {
		st.batch.Abort()
		st.root.Close()
		st.root, st.batch = nil, nil
	}
}

// sameFile reports whether name already holds exactly data; only a
// regular file of the same size is read.
func sameFile(stat func(string) (os.FileInfo, error), read func(string) ([]byte, error), name string, data []byte) bool {
	info, err := stat(name)
	if err != nil || !info.Mode().IsRegular() || info.Size() != int64(len(data)) {
		return false
	}
	old, err := read(name)
	return err == nil && bytes.Equal(old, data)
}

// commitStaged makes the staged jobs' temps durable and renames each
// job's into place (atomicfile.CommitAll: two filesystem syncs for them
// all, not an fsync per file). errs[i] is job i's error; a job that fails
// replaces nothing of its own and leaves no temp, and the others still
// land.
func commitStaged(outDir string, staged []*stagedOutputs) []error {
	errs := make([]error, len(staged))
	var batches []*atomicfile.Batch
	var idx []int
	for i, st := range staged {
		if st.batch != nil {
			batches = append(batches, st.batch)
			idx = append(idx, i)
		}
	}
	for k, err := range atomicfile.CommitAll(batches) {
		var pe *fs.PathError
		switch {
		case err == nil:
		case errors.As(err, &pe): // name the output, not its temp
			errs[idx[k]] = &OutputError{Path: filepath.Join(outDir, filepath.FromSlash(pe.Path)), Err: pe.Err}
		default:
			errs[idx[k]] = &OutputError{Path: outDir, Err: err}
		}
	}
	for _, st := range staged {
		if st.root != nil {
			st.root.Close()
			st.root, st.batch = nil, nil
		}
	}
	return errs
}

// writeAtomic is atomicfile.Write: temp file in the same folder, synced,
// renamed.
func writeAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }
