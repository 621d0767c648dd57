// Package cook is meshcook's pipeline: it plans inputs into jobs with stable
// output names, runs each job through the stages (import, canonicalize,
// reorder, lods, meshlets, bounds, textures, pack, validate, write) in
// parallel, and joins the results
// in a fixed order into a Report.
//
// A job's result depends only on its source bytes and the Options, so jobs
// can run in any order on any number of workers (and be cached later) without
// changing a byte of output.
package cook

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/meshcook/meshcook/internal/safename"
	"github.com/meshcook/meshcook/internal/srcpath"
)

// Job is one source file and the stable names derived from its path.
type Job struct {
	// Source is the file path as found on disk (joined from the input).
	Source string
	// Rel is the source's path relative to its input root, '/'-separated.
	Rel string
	// Name is the output stem, '/'-separated, relative to the output folder:
	// Rel with a leading "assets/" and the extension dropped
	// (assets/models/chair.glb → models/chair).
	Name string
	// SourceRef is the runtime ref used for material and texture hashes
	// (formats.md: Name lowercased).
	SourceRef string
	// Root is the input folder Rel is relative to: the folder walked, the
	// project's folder, or a file's own folder. Under Options.StrictPaths
	// the source's real path must stay inside it. Empty means Source's
	// folder.
	Root string
}

// Plan turns inputs (files and folders, walked recursively) into jobs sorted
// by output name. A file given directly is rooted at its own folder; a
// folder is the root for everything under it. Two sources that would write
// the same output are an error naming both.
func Plan(inputs []string) ([]Job, error) {
	var jobs []Job
	for _, in := range inputs {
		st, err := os.Stat(in)
		if err != nil {
			return nil, &InputError{Path: in, Err: fmt.Errorf("cannot read input: %w", unwrapPathError(err))}
		}
		if !st.IsDir() {
			if !IsSource(in) {
				return nil, &InputError{Path: in, Err: fmt.Errorf("unsupported source kind %q (want %s)", filepath.Ext(in), SourceKindList)}
			}
			jobs = append(jobs, newJob(filepath.Dir(in), in, filepath.Base(in)))
			continue
		}
		err = filepath.WalkDir(in, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return &InputError{Path: p, Err: unwrapPathError(err)}
			}
			if d.IsDir() || !IsSource(p) {
				return nil
			}
			rel, err := filepath.Rel(in, p)
			if err != nil {
				return &InputError{Path: p, Err: err}
			}
			jobs = append(jobs, newJob(in, p, rel))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return SortJobs(jobs)
}

func newJob(root, src, rel string) Job {
	rel = filepath.ToSlash(rel)
	name := strings.TrimPrefix(rel, "assets/")
	// Output names are safe whatever the source is called: an element of
	// only dots (the stem of "...gltf" is "..") and control or bidi
	// characters are percent-escaped (internal/safename).
	name = safename.EscapePath(strings.TrimSuffix(name, path.Ext(name)))
	return Job{Source: src, Rel: rel, Name: name, SourceRef: strings.ToLower(name), Root: root}
}

// escapes reports whether, under strict paths, the source or one of the
// files it read (paths joined to its folder) now leads outside through a
// link, so that a cached result is not served for it.
func (j Job) escapes(deps []string) bool {
	if j.checkRoot(true) != nil {
		return true
	}
	dir := filepath.Dir(j.Source)
	for _, d := range deps {
		rel, err := filepath.Rel(dir, d)
		if err != nil || srcpath.CheckInside(dir, rel, true) != nil {
			return true
		}
	}
	return false
}

// checkRoot applies the path policy (internal/srcpath) to the source file
// itself: its path below its root is local, and under strict paths its
// real path stays inside the root (a walk or glob may meet a link).
func (j Job) checkRoot(strict bool) error {
	root, rel := j.Root, j.Rel
	if root == "" {
		root, rel = filepath.Dir(j.Source), filepath.Base(j.Source)
	}
	if err := srcpath.CheckInside(root, rel, strict); err != nil {
		return &InputError{Path: j.Source, Err: err}
	}
	return nil
}

// unwrapPathError drops the *fs.PathError wrapper, whose path the caller
// already names, so messages say the path once.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
