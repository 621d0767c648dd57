package cli

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
)

// inspectMode is what `inspect` prints.
type inspectMode int

const (
	inspectSummary inspectMode = iota // human summary
	inspectJSON                       // the summary as one JSON object
	inspectDump                       // every field as stable text
)

// fileKind is one cooked (or source) file format that validate and
// inspect understand. Each format lives in its own kind_<name>.go file and
// is listed once in fileKinds.
type fileKind struct {
	name string
	// magic, when set, recognises the file by its first bytes; otherwise
	// exts (lowercase, with the dot) recognise it by extension.
	magic []byte
	exts  []string
	// validate decodes the bytes with the format's reader and checks them.
	validate func(path string, b []byte) error
	// inspect prints the file in the given mode.
	inspect func(w io.Writer, path string, b []byte, mode inspectMode) error
}

// fileKinds lists every kind, magic-recognised kinds first.
func fileKinds() []fileKind {
	return []fileKind{hmeshKind(), hmatKind(), msh7Kind(), nwbKind(), hanimKind(), ktx2Kind(), meshpackKind(), cnbKind(), cnbCacheKind(), skinnedPayloadKind(), lockKind(),
		sourceKind("gltf", []byte("glTF"), ".gltf", ".glb"), sourceKind("fbx", []byte("Kaydara FBX Binary"), ".fbx"), payloadKind()}
}

// detectKind finds the kind of a file by magic, then by extension.
func detectKind(path string, b []byte) *fileKind {
	kinds := fileKinds()
	for i := range kinds {
		if kinds[i].magic != nil && bytes.HasPrefix(b, kinds[i].magic) {
			return &kinds[i]
		}
	}
	ext := strings.ToLower(filepath.Ext(path))
	for i := range kinds {
		for _, e := range kinds[i].exts {
			if e == ext {
				return &kinds[i]
			}
		}
	}
	return nil
}
