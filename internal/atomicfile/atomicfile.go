// Package atomicfile replaces files so that a process killed at any moment
// leaves either the old file or the new one, never a mix: write a temp file
// in the same folder, fsync, read it back and compare, rename, sync the
// folder. Every command that writes outputs (cook, bake, refresh, import,
// plan) goes through it.
package atomicfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// TempPattern is the os.CreateTemp pattern of the temp file for name: a
// hidden sibling, so a cook can recognise (and clean up) what a killed cook
// left behind.
func TempPattern(name string) string { return "." + name + ".tmp-*" }

// Write replaces path with data (creating its folder), mode 0644.
func Write(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, TempPattern(filepath.Base(path)))
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
	// Read back what reached the file before it replaces the old one.
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
		d.Sync() // best effort: make the rename durable; not every filesystem supports it
		d.Close()
	}
	return nil
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
