package cook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshcook/meshcook/importer/fbx"
	gltfimport "github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/nwb"
)

// sourceImporter returns the importer of a lowercased extension, or nil
// for a kind cook does not read. Every importer names the file in its
// errors, bounds what it allocates and never panics.
func sourceImporter(ext string) func(path string, opts Options) (*mesh.Scene, error) {
	switch ext {
	case ".gltf", ".glb":
		return loadGLTF
	case ".fbx":
		return func(p string, o Options) (*mesh.Scene, error) {
			return fbx.Load(p, fbxOptions(o.Budget, o.StrictPaths))
		}
	case ".nwb":
		return loadNWB
	}
	return nil
}

// IsSource reports whether path names a file kind cook understands.
func IsSource(p string) bool {
	if IsHeightfieldSource(p) {
		return true
	}
	return sourceImporter(strings.ToLower(filepath.Ext(p))) != nil
}

// SourceKindList names every source kind cook accepts, for messages.
const SourceKindList = ".gltf, .glb, .fbx, .nwb or .heightfield.json"

// importSource checks the job's source against the path policy and imports
// it with its kind's importer.
func importSource(job Job, opts Options) (*mesh.Scene, error) {
	path := job.Source
	if err := job.checkRoot(opts.StrictPaths); err != nil {
		return nil, err
	}
	if IsHeightfieldSource(path) {
		return loadHeightfield(path, opts.StrictPaths, opts.Budget)
	}
	load := sourceImporter(strings.ToLower(filepath.Ext(path)))
	if load == nil {
		return nil, fmt.Errorf("%s: unsupported source kind (want %s)", path, SourceKindList)
	}
	if opts.importer != nil {
		load = opts.importer
	}
	sc, err := load(path, opts)
	return sc, budgetHint(err)
}

func loadGLTF(p string, opts Options) (*mesh.Scene, error) {
	return gltfimport.Load(p, gltfOptions(opts.Budget, opts.StrictPaths))
}

// loadNWB reads an authored text source; its size counts against the
// decoded-bytes budget (parsing costs a few times the text).
func loadNWB(p string, opts Options) (*mesh.Scene, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("nwb: %s: %w", p, unwrapPathError(err))
	}
	if err := opts.Budget.CheckDecoded("", st.Size()); err != nil {
		return nil, &InputError{Path: p, Err: err}
	}
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("nwb: %s: %w", p, unwrapPathError(err))
	}
	return nwb.LoadScene(src, p, "")
}
