// Package atomicfile replaces files so that a process killed at any moment
// (or a machine that loses power) leaves either the old file or the new
// one, never a mix: write a temp file in the same folder, make it durable,
// rename it over the old name, make the rename durable. Every command that
// writes outputs (cook, bake, refresh, import, plan) goes through it.
//
// Writes go through an os.Root on the output folder, so they never follow
// a symbolic link out of it. A Batch prepares several files and renames
// them only once all are written and durable, so a failure leaves none of
// them replaced; CommitAll commits several batches at once.
//
// Durability costs two filesystem syncs per commit, however many files
// and batches it holds (docs/build-integration.md "Atomic outputs"): on
// Linux one syncfs(2) per filesystem before the renames (every temp's
// bytes and inode reach the disk) and one after them (the folders'
// entries); elsewhere an fsync of every temp and of every folder. An
// fsync per file cost about 1 s of a second machine's 1.2 s for the 232
// outputs (146 MB) of the corpus. Nothing is read back: a write that
// returned every byte into a temp file only this process opened (O_EXCL)
// is in the page cache, and reading the page cache back proves nothing
// about the disk; what is written was validated before (a cook validates
// every encoded output with its format's reader, a cache entry was
// validated when it was stored and its digest is checked when it is read).
//
// Temp files are named ".<name>.tmp-<host>-<pid>-<random>": two processes
// writing the same output at once never share or remove each other's temp
// file, and RemoveStale removes only the temps of writers that are gone
// (a process of this host that no longer runs, or the legacy
// ".<name>.tmp-<digits>" form no current writer uses).
package atomicfile

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const tempInfix = ".tmp-"

// hostTag names this machine in temp names (8 hex digits of its name's
// CRC-32), so that another host's live pid is never mistaken for ours.
func hostTag() string {
	h, _ := os.Hostname()
	return fmt.Sprintf("%08x", crc32.ChecksumIEEE([]byte(h)))
}

// tempName is a fresh temp file name for the output base name base; host
// is hostTag().
func tempName(host, base string) string {
	return "." + base + tempInfix + host + "-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(rand.Uint64()%1e10, 10)
}

// Target returns the output base name a temp file entry (a base name)
// stands for, or "" when entry is not a temp file name.
func Target(entry string) string {
	t, _ := parse(entry, hostTag())
	return t
}

// parse splits a temp name into its target and whether its writer is
// gone (stale); host is hostTag().
func parse(entry, host string) (target string, stale bool) {
	i := strings.LastIndex(entry, tempInfix)
	if !strings.HasPrefix(entry, ".") || i < 2 {
		return "", false
	}
	target, rest := entry[1:i], entry[i+len(tempInfix):]
	if rest != "" && strings.Trim(rest, "0123456789") == "" {
		return target, true // legacy os.CreateTemp digits: no live writer uses them
	}
	parts := strings.Split(rest, "-")
	if len(parts) != 3 || len(parts[0]) != 8 || parts[2] == "" || strings.Trim(parts[2], "0123456789") != "" {
		return "", false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return "", false
	}
	if parts[0] != host || pid == os.Getpid() {
		return target, false
	}
	return target, !processAlive(pid)
}

// RemoveStale removes, in dir, the temp files of the targets (output base
// names) for which want reports true, when their writer is gone. It
// returns how many it removed; a folder it cannot read is skipped.
func RemoveStale(dir string, want func(target string) bool) int {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	host := hostTag()
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if t, stale := parse(e.Name(), host); t != "" && stale && want(t) {
			if os.Remove(filepath.Join(dir, e.Name())) == nil {
				n++
			}
		}
	}
	return n
}

// Batch writes several files under one root all or nothing: Add writes
// each beside its final name, Commit (or CommitAll) makes them durable and
// renames them all. A Batch is used by one goroutine at a time.
type Batch struct {
	root    *os.Root
	host    string // hostTag(), for temp names
	pending []pending
}

type pending struct {
	tmp, dst string
	dev      uint64 // the temp's filesystem (fileDev), for syncfs
}

// NewBatch starts a batch of writes below root.
func NewBatch(root *os.Root) *Batch { return &Batch{root: root, host: hostTag()} }

// Add writes data to a temp file beside name ('/'-separated, relative to
// the root; its folder is created). name is not replaced until Commit.
func (b *Batch) Add(name string, data []byte) (err error) {
	name = filepath.ToSlash(name)
	dir := path.Dir(name)
	if dir != "." {
		if err := b.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path.Join(dir, tempName(b.host, path.Base(name)))
	f, err := b.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			b.root.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil { // whatever the umask
		return err
	}
	dev, ok := fileDev(f)
	if !ok {
		// No syncfs here: this temp is made durable on its own.
		if err = f.Sync(); err != nil {
			return err
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	b.pending = append(b.pending, pending{tmp: tmp, dst: name, dev: dev})
	return nil
}

// Commit makes every added file durable and renames it into place
// (CommitAll of this batch alone).
func (b *Batch) Commit() error { return CommitAll([]*Batch{b})[0] }

// CommitAll commits several batches with two syncs of each filesystem they
// write to in all, instead of an fsync per file and folder:
//  1. every batch's temps are made durable (one syncfs per filesystem; a
//     failing syncfs falls back to an fsync of each temp, so a failure is
//     charged to its own batch);
//  2. each batch's temps are renamed into place, batch after batch, in
//     the order added;
//  3. the renames are made durable (syncfs again, or an fsync of each
//     folder; best effort: not every filesystem can sync a folder).
//
// errs[i] is batches[i]'s error: a batch whose temps could not be made
// durable replaces nothing and leaves no temp; a failed rename names the
// file, and the batch's temps not yet renamed are removed. Batches do not
// wait for each other's failures.
func CommitAll(batches []*Batch) []error {
	errs := make([]error, len(batches))
	devs := map[uint64]syncTarget{}
	for _, b := range batches {
		for _, p := range b.pending {
			if _, ok := devs[p.dev]; !ok && p.dev != noDev {
				devs[p.dev] = syncTarget{b.root, path.Dir(p.tmp)}
			}
		}
	}
	failed := false
	for _, d := range sortedDevs(devs) {
		if devs[d].sync() != nil {
			failed = true
		}
	}
	if failed {
		for i, b := range batches {
			errs[i] = b.syncEach()
		}
	}
	for i, b := range batches {
		if errs[i] != nil {
			b.Abort()
			continue
		}
		errs[i] = b.rename()
	}
	for _, d := range sortedDevs(devs) {
		devs[d].sync() // best effort, as a folder fsync is
	}
	if len(devs) == 0 {
		for _, b := range batches {
			b.syncDirs()
		}
	}
	for _, b := range batches {
		b.pending = nil
	}
	return errs
}

// syncTarget is a folder on one filesystem, opened to syncfs it.
type syncTarget struct {
	root *os.Root
	dir  string
}

func (t syncTarget) sync() error {
	f, err := t.root.Open(t.dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return syncFS(f)
}

func sortedDevs(devs map[uint64]syncTarget) []uint64 {
	out := make([]uint64, 0, len(devs))
	for d := range devs {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// syncEach fsyncs every temp of a batch whose filesystem sync failed.
func (b *Batch) syncEach() error {
	for _, p := range b.pending {
		if p.dev == noDev {
			continue // synced by Add
		}
		f, err := b.root.OpenFile(p.tmp, os.O_WRONLY, 0)
		if err == nil {
			err = f.Sync()
			f.Close()
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return &fs.PathError{Op: "sync", Path: p.dst, Err: err}
		}
	}
	return nil
}

// rename moves the temps into place in the order added. A folder at one
// of the names fails the batch before anything is renamed (a rename can
// still fail later for other reasons, leaving the earlier files
// replaced). A failure is an *fs.PathError naming the file (relative to
// the root), never its temp.
func (b *Batch) rename() error {
	for _, p := range b.pending {
		if info, err := b.root.Lstat(p.dst); err == nil && info.IsDir() {
			b.Abort()
			return &fs.PathError{Op: "rename", Path: p.dst, Err: errors.New("a folder has this name")}
		}
	}
	for i, p := range b.pending {
		if err := b.root.Rename(p.tmp, p.dst); err != nil {
			b.pending = b.pending[i:]
			b.Abort()
			var le *os.LinkError
			if errors.As(err, &le) {
				err = le.Err
			}
			return &fs.PathError{Op: "rename", Path: p.dst, Err: err}
		}
	}
	return nil
}

// syncDirs fsyncs the folders of a batch's renamed files, best effort
// (where there is no syncfs).
func (b *Batch) syncDirs() {
	var dirs []string
	for _, p := range b.pending {
		if d := path.Dir(p.dst); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if f, err := b.root.Open(d); err == nil {
			f.Sync()
			f.Close()
		}
	}
}

// Abort removes the temps of files added but not committed.
func (b *Batch) Abort() {
	for _, p := range b.pending {
		b.root.Remove(p.tmp)
	}
	b.pending = nil
}

// Write replaces path with data (creating its folder), mode 0644. The
// write goes through an os.Root on path's folder.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	b := NewBatch(root)
	if err := b.Add(filepath.Base(path), data); err != nil {
		return err
	}
	return b.Commit()
}

// WriteIfChanged is Write unless path already holds exactly data, in which
// case nothing is touched (no new mtime, so build systems see no change).
// changed reports whether it wrote.
func WriteIfChanged(path string, data []byte) (changed bool, err error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	return true, Write(path, data)
}
