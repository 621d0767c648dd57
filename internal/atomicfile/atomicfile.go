// Package atomicfile replaces files so that a process killed at any moment
// leaves either the old file or the new one, never a mix: write a temp file
// in the same folder, fsync, read it back and compare, rename, sync the
// folder. Every command that writes outputs (cook, bake, refresh, import,
// plan) goes through it.
//
// Writes go through an os.Root on the output folder, so they never follow
// a symbolic link out of it. A Batch prepares several files and renames
// them only once all are written and read back, so a failure leaves none
// of them replaced.
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

// tempName is a fresh temp file name for the output base name base.
func tempName(base string) string {
	return "." + base + tempInfix + hostTag() + "-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(rand.Uint64()%1e10, 10)
}

// Target returns the output base name a temp file entry (a base name)
// stands for, or "" when entry is not a temp file name.
func Target(entry string) string {
	t, _ := parse(entry)
	return t
}

// parse splits a temp name into its target and whether its writer is
// gone (stale).
func parse(entry string) (target string, stale bool) {
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
	if parts[0] != hostTag() || pid == os.Getpid() {
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
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		if t, stale := parse(e.Name()); t != "" && stale && want(t) {
			if os.Remove(filepath.Join(dir, e.Name())) == nil {
				n++
			}
		}
	}
	return n
}

// Batch writes several files under one root all or nothing: Add writes
// and checks each beside its final name, Commit renames them all. A Batch
// is used by one goroutine.
type Batch struct {
	root    *os.Root
	pending []pending
}

type pending struct{ tmp, dst string }

// NewBatch starts a batch of writes below root.
func NewBatch(root *os.Root) *Batch { return &Batch{root: root} }

// Add writes data to a temp file beside name ('/'-separated, relative to
// the root; its folder is created), fsyncs it and reads it back. name is
// not replaced until Commit.
func (b *Batch) Add(name string, data []byte) (err error) {
	name = filepath.ToSlash(name)
	dir := path.Dir(name)
	if dir != "." {
		if err := b.root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	tmp := path.Join(dir, tempName(path.Base(name)))
	f, err := b.root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
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
	if err = f.Sync(); err != nil {
		return err
	}
	// Read back what reached the file before it replaces the old one.
	back := make([]byte, len(data)+1)
	n, rerr := f.ReadAt(back, 0)
	if n != len(data) || !bytes.Equal(back[:n], data) {
		return fmt.Errorf("read-back of temp file differs from what was written (%d of %d bytes): %v", n, len(data), rerr)
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	b.pending = append(b.pending, pending{tmp: tmp, dst: name})
	return nil
}

// Commit renames every added file into place, in the order added, and
// syncs their folders. If a rename fails, the temps not yet renamed are
// removed and the error is an *fs.PathError naming the file (its name
// relative to the root), never the temp.
func (b *Batch) Commit() error {
	var dirs []string
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
		if d := path.Dir(p.dst); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	b.pending = nil
	for _, d := range dirs {
		if f, err := b.root.Open(d); err == nil {
			f.Sync() // best effort: make the renames durable; not every filesystem supports it
			f.Close()
		}
	}
	return nil
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
