package cli

import (
	"io"

	"github.com/meshcook/meshcook/cook"
)

// sourceKind reads glTF (.gltf, .glb) and FBX sources the way a cook
// would: validate imports them with the cook's importer (an import error
// is a failure, exit 3, exactly where the cook would refuse the source);
// inspect reports what the cook would see (cook.SourceInfo: draws before
// and after merging, triangles, materials, skin, morph targets, clips and
// what would be dropped). Authored .nwb sources have their own kind.
func sourceKind(name string, magic []byte, exts ...string) fileKind {
	return fileKind{
		name:  name,
		magic: magic,
		exts:  exts,
		validate: func(path string, _ []byte) error {
			_, err := cook.InspectSource(path, cook.DefaultOptions())
			return err
		},
		inspect: func(w io.Writer, path string, _ []byte, mode inspectMode) error {
			info, err := cook.InspectSource(path, cook.DefaultOptions())
			if err != nil {
				return withCode(ExitBadInput, err)
			}
			if mode != inspectSummary {
				return writeJSON(w, info)
			}
			_, err = io.WriteString(w, info.String())
			return err
		},
	}
}
