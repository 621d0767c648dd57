package gltf

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/internal/srcpath"
	"github.com/meshcook/meshcook/mesh"
)

// Default limits applied when the matching Options field is zero.
const (
	// DefaultMaxVertices bounds the Scene's total vertex count (about 3 GiB
	// of streams at the widest vertex), so that a small document cannot make
	// the importer allocate without bound (an accessor with no buffer view,
	// or one big mesh instanced by thousands of nodes).
	DefaultMaxVertices = 1 << 26
	// DefaultMaxIndices bounds the Scene's total triangle-list index count.
	DefaultMaxIndices = 1 << 28
	// DefaultMaxSubmeshes bounds the Scene's submesh count: far above any
	// real asset, far below what node × primitive instancing can reach.
	DefaultMaxSubmeshes = 1 << 20
	// DefaultMaxAnimationKeys bounds the keys summed over every animation
	// channel (a long motion-capture clip at 120 Hz for 100 joints and
	// three paths is about 4·10⁶ keys an hour).
	DefaultMaxAnimationKeys = 1 << 26
	// DefaultMaxImageBytes bounds one image's encoded size.
	DefaultMaxImageBytes = 1 << 28
)

// ErrUnsupportedExtension is wrapped by the error returned for a document
// whose extensionsRequired names an extension this importer cannot honour
// (KHR_draco_mesh_compression, or any unknown one).
var ErrUnsupportedExtension = errors.New("unsupported required extension")

// ErrOutsideFolder is wrapped by the error returned for an external buffer
// or image URI that is not a relative path inside the source's folder
// (absolute paths, "..", URI schemes other than data:).
var ErrOutsideFolder = errors.New("uri leaves the source folder")

// Options for Load and Decode. Zero value = defaults.
type Options struct {
	// MaxVertices caps the total vertex count of the imported Scene, summed
	// over every submesh (a mesh instanced by N nodes counts N times), and
	// separately the morph-target deltas (one per vertex per target
	// position or normal stream, counted the same way).
	// Zero or negative means DefaultMaxVertices.
	MaxVertices int
	// MaxIndices caps the total triangle-list index count of the Scene,
	// counted the same way. Zero or negative means DefaultMaxIndices.
	MaxIndices int
	// MaxSubmeshes caps the number of submeshes. Zero or negative means
	// DefaultMaxSubmeshes.
	MaxSubmeshes int
	// MaxAnimationKeys caps the keys of all animation channels together.
	// Zero or negative means DefaultMaxAnimationKeys.
	MaxAnimationKeys int
	// MaxImageBytes caps the encoded size of each image loaded into
	// Image.Data. Zero or negative means DefaultMaxImageBytes.
	MaxImageBytes int
	// MaxDecodedBytes caps the bytes meshopt-compressed buffer views
	// decompress to, summed over the file. Zero or negative means
	// DefaultMaxDecodedBytes.
	MaxDecodedBytes int
	// StrictPaths refuses external files whose real path leaves the source
	// folder through a symbolic link (Load only; internal/srcpath).
	StrictPaths bool
}

// orDefault returns v, or def when v is not positive.
func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// Load reads a .gltf or .glb file from disk. External buffers/images resolve relative to the file's folder;
// URIs that leave that folder (absolute, "..", etc.) are refused with an error.
//
// The file itself is read as given; external references follow the one
// policy of internal/srcpath: symbolic links are followed (a Bazel execroot
// is made of them) unless Options.StrictPaths, which refuses a file whose
// real path leaves the folder. Every error starts with "gltf: <path>: ".
func Load(path string, opts Options) (*mesh.Scene, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gltf: %s: %w", path, err)
	}
	folder, err := srcpath.Open(filepath.Dir(path), opts.StrictPaths)
	if err != nil {
		return nil, fmt.Errorf("gltf: %s: %w", path, err)
	}
	defer folder.Close()
	return decode(data, folder.FS(), ".", path, opts)
}

// Decode reads the named .gltf/.glb from fsys (tests use fstest.MapFS); external URIs resolve inside fsys relative to name's dir.
//
// The format is detected from the content (GLB magic or JSON), not the
// name. Every error starts with "gltf: <name>: ", is one line, and wraps the
// underlying cause; Decode never panics on any input.
func Decode(fsys fs.FS, name string, opts Options) (*mesh.Scene, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("gltf: %s: %w", name, err)
	}
	return decode(data, fsys, path.Dir(name), name, opts)
}

// decode is Load and Decode: data is the file's bytes, dir its folder inside
// fsys, display the path that errors show.
func decode(data []byte, fsys fs.FS, dir, display string, opts Options) (scene *mesh.Scene, err error) {
	// The importer bounds everything it reads; this guard only turns a bug
	// (ours or the library's) into an error instead of a crash of the cook.
	defer func() {
		if r := recover(); r != nil {
			scene, err = nil, fmt.Errorf("gltf: %s: internal error: %v", display, oneLine(fmt.Sprint(r)))
		}
	}()
	maxVerts := orDefault(opts.MaxVertices, DefaultMaxVertices)
	maxIndices := orDefault(opts.MaxIndices, DefaultMaxIndices)
	im := &importer{
		glbName:      strings.EqualFold(path.Ext(display), ".glb"),
		maxSubmeshes: orDefault(opts.MaxSubmeshes, DefaultMaxSubmeshes),
		fsys:         fsys,
		dir:          dir,
		vertsLeft:    maxVerts,
		indicesLeft:  maxIndices,
		maxVerts:     maxVerts,
		maxIndices:   maxIndices,
		morphLeft:    maxVerts,
		keysLeft:     orDefault(opts.MaxAnimationKeys, DefaultMaxAnimationKeys),
		maxKeys:      orDefault(opts.MaxAnimationKeys, DefaultMaxAnimationKeys),
		maxImage:     orDefault(opts.MaxImageBytes, DefaultMaxImageBytes),
		decodedLeft:  orDefault(opts.MaxDecodedBytes, DefaultMaxDecodedBytes),
	}
	scene, err = im.run(data)
	if err != nil {
		return nil, fmt.Errorf("gltf: %s: %w", display, err)
	}
	return scene, nil
}

// importer holds one Decode call's state; nothing outlives the call.
type importer struct {
	fsys    fs.FS
	dir     string   // folder of the source inside fsys
	glbName bool     // the file is named .glb: it must be a GLB container
	files   []string // files read from fsys, relative to dir (Scene.Files)
	doc     *qgltf.Document
	bufs    [][]byte // resolved bytes per buffer, nil when it has none

	maxVerts, maxIndices   int
	maxSubmeshes           int
	vertsLeft, indicesLeft int
	morphLeft              int            // morph deltas (vertices × targets) still allowed
	keysLeft, maxKeys      int            // animation keys
	maxImage               int            // bytes per image
	decodedLeft            int            // bytes meshopt views may still decompress to
	decoded                map[int][]byte // decompressed meshopt buffer views
	uvs                    []materialUV   // per material: KHR_texture_transform to bake

	skin *skinInfo // exported skin (skin 0), nil when none

	prims        map[primKey]*localPrim // decoded primitives awaiting instancing
	usesLeft     []int                  // per mesh: node instances still to emit
	skippedLines int                    // POINTS/LINES/LINE_LOOP/LINE_STRIP primitives skipped
	truncated    int                    // primitives whose index count was not a multiple of 3
	otherSkins   int                    // mesh nodes bound to a skin other than 0, imported as static
	unskinned    int                    // skinned primitives without JOINTS_0, bound to joint 0

	reached        []bool        // per node: reached from the imported roots
	subNode        []int         // per submesh: the node it was instanced by
	subSkinned     []bool        // per submesh: bound to skin 0
	nodeChannels   []nodeChannel // transform channels on non-joint nodes (no skin in the file)
	weightChannels []nodeChannel // morph-weight channels
}

// run imports the file bytes into a Scene.
func (im *importer) run(data []byte) (*mesh.Scene, error) {
	// container and document
	jsonBytes, bin, err := splitContainer(data, im.glbName)
	if err != nil {
		return nil, err
	}
	doc, err := parseDocument(jsonBytes)
	if err != nil {
		return nil, err
	}
	im.doc = doc
	if err := checkRequired(doc); err != nil {
		return nil, err
	}
	if err := checkNoNulls(doc); err != nil {
		return nil, err
	}
	// buffers, images and materials
	if err := im.loadBuffers(bin); err != nil {
		return nil, err
	}
	scene := &mesh.Scene{}
	if scene.Images, err = im.images(); err != nil {
		return nil, err
	}
	if scene.Materials, err = im.materials(); err != nil {
		return nil, err
	}
	if err := im.imageData(scene.Images, scene.Materials); err != nil {
		return nil, err
	}
	if im.uvs, err = im.materialUVs(); err != nil {
		return nil, err
	}
	// skeleton, nodes → submeshes, animations
	parent, err := im.parents()
	if err != nil {
		return nil, err
	}
	if im.skin, err = im.skeleton(parent); err != nil {
		return nil, err
	}
	if im.skin != nil {
		scene.Skeleton = im.skin.skel
	}
	insts, err := im.instances(parent)
	if err != nil {
		return nil, err
	}
	if scene.Submeshes, err = im.submeshes(insts); err != nil {
		return nil, err
	}
	im.dropExtensions(scene)
	im.dropUVs(scene)
	scene.Drop(im.skippedLines, "points/lines primitives")
	scene.Drop(im.truncated, "trailing indices of primitives whose index count is not a multiple of 3 (primitives)")
	if n := len(im.doc.Skins); n > 1 {
		scene.Drop(n-1, fmt.Sprintf("skins other than skin 0 (%d mesh nodes bound to them imported as static meshes)", im.otherSkins))
	}
	if im.unskinned > 0 {
		scene.Warnings = append(scene.Warnings, fmt.Sprintf("bound %d skinned primitives without JOINTS_0 rigidly to joint 0", im.unskinned))
	}
	if scene.Animations, err = im.animations(scene); err != nil {
		return nil, err
	}
	if err := im.rigNodes(scene, parent); err != nil {
		return nil, err
	}
	im.placeWeights(scene)
	scene.Files = im.files
	return scene, nil
}

// libError is an error from qmuntal/gltf or encoding/json, shown without the
// library's own "gltf: " or "json: " prefix (ours already names the package,
// the file and the stage).
type libError struct{ err error }

func (e libError) Error() string {
	s := e.err.Error()
	s = strings.TrimPrefix(s, "gltf: ")
	s = strings.TrimPrefix(s, "json: ")
	return oneLine(s)
}
func (e libError) Unwrap() error { return e.err }

// oneLine keeps an error message on one line whatever text it quotes.
func oneLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}
