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

// sourceKinds maps a lowercased extension to its importer. Every importer
// names the file in its errors, bounds what it allocates and never panics.
var sourceKinds = map[string]func(path string, opts Options) (*mesh.Scene, error){
	".gltf": loadGLTF,
	".glb":  loadGLTF,
	".fbx": func(p string, o Options) (*mesh.Scene, error) {
		return fbx.Load(p, fbx.Options{StrictPaths: o.StrictPaths})
	},
	".nwb": loadNWB,
}

// IsSource reports whether path names a file kind cook understands.
func IsSource(p string) bool {
	if IsHeightfieldSource(p) {
		return true
	}
	_, ok := sourceKinds[strings.ToLower(filepath.Ext(p))]
	return ok
}

// sourceKindList is the extensions cook accepts, for messages.
const sourceKindList = ".gltf, .glb, .fbx, .nwb or .heightfield.json"

// importSource checks the job's source against the path policy and imports
// it with its kind's importer.
func importSource(job Job, opts Options) (*mesh.Scene, error) {
	path := job.Source
	if err := job.checkRoot(opts.StrictPaths); err != nil {
		return nil, err
	}
	if IsHeightfieldSource(path) {
		return loadHeightfield(path, opts.StrictPaths)
	}
	load, ok := sourceKinds[strings.ToLower(filepath.Ext(path))]
	if !ok {
		return nil, fmt.Errorf("%s: unsupported source kind (want %s)", path, sourceKindList)
	}
	return load(path, opts)
}

func loadGLTF(p string, opts Options) (*mesh.Scene, error) {
	return gltfimport.Load(p, gltfimport.Options{StrictPaths: opts.StrictPaths})
}

// maxNWBBytes bounds an authored text source read into memory.
const maxNWBBytes = 1 << 30

func loadNWB(p string, _ Options) (*mesh.Scene, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("nwb: %s: %w", p, unwrapPathError(err))
	}
	if st.Size() > maxNWBBytes {
		return nil, fmt.Errorf("nwb: %s: %d bytes is larger than the %d-byte limit for text sources", p, st.Size(), maxNWBBytes)
	}
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("nwb: %s: %w", p, unwrapPathError(err))
	}
	return nwb.LoadScene(src, p, "")
}
