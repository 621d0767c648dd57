// Package srcpath is meshcook's one policy for the files a source refers to:
// glTF buffer and image URIs, FBX texture file names, heightfield images,
// catalog parts, project globs and the files a folder walk finds.
//
// Two checks, always in this order:
//
//   - Lexical (every mode): a reference is a relative path that stays inside
//     its source folder once cleaned: not empty, no NUL, no leading '/' (so no
//     UNC "//host" either), no drive letter or URI scheme (a ':' in the first
//     element), no ".." that climbs past the folder. Backslashes count as
//     separators, since Windows exporters write them. See Local.
//   - Real path (strict mode only): the file, with every symbolic link on
//     its way resolved, must still be inside the source folder. Without strict
//     mode symbolic links are followed wherever they go, because build systems
//     present inputs that way (a Bazel execroot or sandbox is a forest of links
//     into the source tree). Strict mode is for cooks of untrusted uploads
//     (meshcook cook --strict-paths, or "strictPaths" in meshcook.json).
//
// A Folder applies both to the files it opens; strict folders open through
// an os.Root, so a link swapped in between a check and the open cannot lead
// outside either.
package srcpath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ErrOutside is wrapped by the error for a reference that leaves its source
// folder lexically (absolute, drive, UNC, scheme, "..").
var ErrOutside = errors.New("srcpath: reference leaves the source folder")

// ErrLinkOutside is wrapped by the error for a file whose real path leaves
// its source folder through a symbolic link, in strict mode.
var ErrLinkOutside = errors.New("srcpath: a symbolic link leads outside the source folder (strict paths)")

// ErrTooLarge is wrapped by Folder.ReadFile's error for a file past its limit.
var ErrTooLarge = errors.New("srcpath: file is larger than the limit")

// Local checks ref lexically and returns it cleaned and '/'-separated,
// relative to the source folder. The error wraps ErrOutside and quotes ref.
// Local never touches the disk.
func Local(ref string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %q %s", ErrOutside, ref, why)
	}
	if ref == "" {
		return bad("is empty")
	}
	if strings.ContainsRune(ref, 0) {
		return bad("contains a NUL byte")
	}
	p := strings.ReplaceAll(ref, `\`, "/")
	if strings.HasPrefix(p, "/") {
		return bad("is absolute")
	}
	if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ":") {
		return bad("has a drive or scheme")
	}
	p = path.Clean(p)
	switch {
	case p == ".":
		return bad("names the folder itself")
	case p == "..", strings.HasPrefix(p, "../"):
		return bad("climbs out with ..")
	}
	return p, nil
}

// Folder is a source folder under one policy. The zero value is not
// useful; use Open.
type Folder struct {
	dir    string
	strict bool
	root   *os.Root // strict only
	fsys   fs.FS
}

// Open opens dir as a source folder; strict refuses files whose real path
// leaves it. Close it when done.
func Open(dir string, strict bool) (*Folder, error) {
	f := &Folder{dir: dir, strict: strict}
	if !strict {
		st, err := os.Stat(dir)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("srcpath: %s: not a folder", dir)
		}
		f.fsys = os.DirFS(dir)
		return f, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	f.root, f.fsys = root, root.FS()
	return f, nil
}

// Close releases the folder.
func (f *Folder) Close() error {
	if f.root != nil {
		return f.root.Close()
	}
	return nil
}

// Strict reports whether the folder refuses links that lead out of it.
func (f *Folder) Strict() bool { return f.strict }

// Dir is the folder as given to Open.
func (f *Folder) Dir() string { return f.dir }

// FS is the folder as an fs.FS. Names must already be Local (fs.ValidPath
// refuses the rest); in strict mode a name whose real path leaves the folder
// fails to open.
func (f *Folder) FS() fs.FS { return folderFS{f} }

// folderFS is a Folder as an fs.FS whose errors say when a link led out.
type folderFS struct{ f *Folder }

func (x folderFS) Open(name string) (fs.File, error) {
	file, err := x.f.fsys.Open(name)
	return file, x.f.explain(name, err)
}

// Stat checks ref (Local, then in strict mode its real path) and returns
// the file's information, following links.
func (f *Folder) Stat(ref string) (fs.FileInfo, error) {
	rel, err := Local(ref)
	if err != nil {
		return nil, err
	}
	fi, err := fs.Stat(f.fsys, rel)
	return fi, f.explain(rel, err)
}

// Open checks ref and opens the file for reading.
func (f *Folder) Open(ref string) (fs.File, error) {
	rel, err := Local(ref)
	if err != nil {
		return nil, err
	}
	file, err := f.fsys.Open(rel)
	return file, f.explain(rel, err)
}

// ReadFile checks ref and reads the file, refusing one of more than max
// bytes (checked on the open file before reading, and again while reading,
// so a file that grows cannot get past it) with an error wrapping
// ErrTooLarge. max <= 0 means no limit.
func (f *Folder) ReadFile(ref string, max int64) ([]byte, error) {
	file, err := f.Open(ref)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	st, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("srcpath: %q is a folder", ref)
	}
	if max > 0 && st.Size() > max {
		return nil, fmt.Errorf("%w: %q is %d bytes, the limit is %d", ErrTooLarge, ref, st.Size(), max)
	}
	limit := max
	if limit <= 0 {
		limit = 1<<63 - 2
	}
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w: %q grew past the limit of %d bytes", ErrTooLarge, ref, max)
	}
	return data, nil
}

// Path is ref joined to the folder, in the OS's form, after the checks of
// Stat. Use it to name the file in messages or to hand it to code that
// opens paths; prefer Open and ReadFile in strict mode (no window between
// check and open).
func (f *Folder) Path(ref string) (string, error) {
	rel, err := Local(ref)
	if err != nil {
		return "", err
	}
	if _, err := fs.Stat(f.fsys, rel); err != nil {
		return "", f.explain(rel, err)
	}
	return filepath.Join(f.dir, filepath.FromSlash(rel)), nil
}

// explain turns an os.Root refusal of a link that leaves the folder into an
// error wrapping ErrLinkOutside; other errors pass through.
func (f *Folder) explain(rel string, err error) error {
	if err == nil || !f.strict || errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if Escapes(f.dir, rel) {
		return fmt.Errorf("%w: %q", ErrLinkOutside, rel)
	}
	return err
}

// Escapes reports whether dir/rel, with its links resolved, lies outside
// dir's real path. A path that cannot be resolved does not escape (opening
// it fails on its own).
func Escapes(dir, rel string) bool {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	realFile, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	r, err := filepath.Rel(realDir, realFile)
	return err != nil || !filepath.IsLocal(r)
}

// CheckInside checks a file a walk or glob found under root (rel is its
// path below root, in either separator): lexically always, and in strict
// mode that its real path stays under root's. The error names rel.
func CheckInside(root, rel string, strict bool) error {
	clean, err := Local(filepath.ToSlash(rel))
	if err != nil {
		return err
	}
	if strict && Escapes(root, clean) {
		return fmt.Errorf("%w: %q", ErrLinkOutside, clean)
	}
	return nil
}
