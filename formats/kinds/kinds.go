// Package kinds lists every file kind meshcook reads, in the order files
// are recognised: one explicit slice, built on each call (no registration,
// no package state). The cook validates what it wrote through it;
// `meshcook validate`, `inspect` and `version` iterate it. Adding a format
// is its package (with a Format() description) plus one line here.
package kinds

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/format"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/formats/msh7"
	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/nwb"
)

// Description is one kind (format.Description), named here so that users
// of the list need no other package.
type Description = format.Description

// Importer imports the source at path the way a cook would and summarizes
// it (cook.SourceImporter); its error is the one the cook would report.
// glTF and FBX sources validate and inspect through it.
type Importer func(path string) (format.Summary, error)

// All lists every kind: files are recognised by the first kind whose magic
// (or sniff) matches, then by the first whose extension does. imp imports
// sources; nil when only cooked kinds are asked for (the cook's own
// read-back), and then a source does not validate.
func All(imp Importer) []format.Description {
	return []format.Description{
		hmesh.Format(),
		hmat.Format(),
		msh7.Format(),
		nwb.Format(),
		hanim.Format(),
		ktx2.Format(),
		meshpack.Format(),
		cnb.Format(),
		cnb.CacheFormat(),
		payload.SkinnedFormat(),
		cnb.LockDescription(),
		source("gltf", []byte("glTF"), imp, ".gltf", ".glb"),
		source("fbx", []byte("Kaydara FBX Binary"), imp, ".fbx"),
		payload.Format(),
	}
}

// Detect finds the kind of the file named path with bytes b: by magic or
// sniff first, then by extension. ok is false when no kind matches.
func Detect(kinds []format.Description, path string, b []byte) (format.Description, bool) {
	for _, k := range kinds {
		if k.Recognise(b) {
			return k, true
		}
	}
	ext := strings.ToLower(filepath.Ext(path))
	for _, k := range kinds {
		if k.HasExt(ext) {
			return k, true
		}
	}
	return format.Description{}, false
}

// Lookup returns the kind named name.
func Lookup(name string) (format.Description, error) {
	for _, k := range All(nil) {
		if k.Name == name {
			return k, nil
		}
	}
	return format.Description{}, fmt.Errorf("kinds: no kind %q", name)
}

// Decode decodes and validates b as the kind named name: the cook's
// read-back of every output before it is written.
func Decode(name string, b []byte) (any, error) {
	k, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return k.Decode(b)
}

// Names lists every kind's name in order.
func Names() []string {
	var out []string
	for _, k := range All(nil) {
		out = append(out, k.Name)
	}
	return out
}

// errNoImporter is a source's error when All was given no Importer.
var errNoImporter = errors.New("kinds: sources are read by the cook's importer, and none was given")

// source describes a glTF or FBX source: validate imports it with the
// cook's importer (an import error is a failure, exactly where the cook
// would refuse the source); inspect reports what the cook would see
// (draws before and after merging, triangles, materials, skin, morph
// targets, clips and what would be dropped); its dump is that summary as
// JSON. Authored .nwb sources have their own kind.
func source(name string, magic []byte, imp Importer, exts ...string) format.Description {
	summarize := func(path string, _ []byte) (format.Summary, error) {
		if imp == nil {
			return nil, errNoImporter
		}
		return imp(path)
	}
	return format.Description{
		Name:  name,
		Magic: magic,
		Exts:  exts,
		Decode: func([]byte) (any, error) {
			return nil, fmt.Errorf("kinds: %s sources are read from their file (they refer to others beside it)", name)
		},
		Validate: func(path string, b []byte) error {
			_, err := summarize(path, b)
			return err
		},
		Summarize: summarize,
		Dump:      format.DumpJSON(summarize),
	}
}

// SummarizeCuts is inspect --error: the .hmesh summary of b with its
// cluster hierarchy cut at errs (hmesh.SummarizeCuts).
func SummarizeCuts(path string, b []byte, errs []float64) (format.Summary, error) {
	s, err := hmesh.SummarizeCuts(path, b, errs)
	if err != nil {
		return nil, err
	}
	return s, nil
}
