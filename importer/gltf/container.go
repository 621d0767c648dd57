package gltf

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/internal/srcpath"
)

// GLB container constants (glTF 2.0 §4.4).
const (
	glbMagic       = 0x46546C67 // "glTF"
	glbHeaderSize  = 12
	glbChunkHeader = 8
	glbChunkJSON   = 0x4E4F534A // "JSON"
	glbChunkBIN    = 0x004E4942 // "BIN\0"
)

// splitContainer returns the JSON text of a .gltf, or the JSON chunk and
// the first BIN chunk (nil when none) of a .glb. Every chunk is bounded by
// the container's declared length, which is bounded by the bytes present.
// A file named .glb (glbName) must be a GLB container: JSON text under
// that name is refused by its magic, not handed to the JSON parser.
func splitContainer(data []byte, glbName bool) (jsonBytes, bin []byte, err error) {
	if len(data) < 4 || binary.LittleEndian.Uint32(data) != glbMagic {
		if glbName {
			return nil, nil, fmt.Errorf("not a GLB (bad magic %q, want \"glTF\")", data[:min(4, len(data))])
		}
		return data, nil, nil
	}
	if len(data) < glbHeaderSize {
		return nil, nil, fmt.Errorf("glb: header is %d bytes, want %d", len(data), glbHeaderSize)
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 2 {
		return nil, nil, fmt.Errorf("glb: unsupported container version %d", v)
	}
	total := binary.LittleEndian.Uint32(data[8:])
	if uint64(total) != uint64(len(data)) {
		// glTF 2.0 §4.4.2: length is the total length of the file; bytes
		// past it (or a file cut short) mean the file is not what it says.
		return nil, nil, fmt.Errorf("glb: header says %d bytes, file has %d", total, len(data))
	}
	off := glbHeaderSize
	for chunk := 0; off < len(data); chunk++ {
		if len(data)-off < glbChunkHeader {
			return nil, nil, fmt.Errorf("glb: chunk %d header at offset 0x%x is truncated", chunk, off)
		}
		n := binary.LittleEndian.Uint32(data[off:])
		typ := binary.LittleEndian.Uint32(data[off+4:])
		body := off + glbChunkHeader
		if uint64(n) > uint64(len(data)-body) {
			return nil, nil, fmt.Errorf("glb: chunk %d at offset 0x%x: length %d past end of file", chunk, off, n)
		}
		payload := data[body : body+int(n)]
		switch {
		case chunk == 0 && typ != glbChunkJSON:
			return nil, nil, fmt.Errorf("glb: first chunk at offset 0x%x is not JSON", off)
		case chunk == 0:
			jsonBytes = payload
		case typ == glbChunkBIN && bin == nil:
			bin = payload
		}
		// chunks other than the first JSON and the first BIN are ignored, as the spec asks
		off = body + int(n)
	}
	if jsonBytes == nil {
		return nil, nil, errors.New("glb: no JSON chunk")
	}
	return jsonBytes, bin, nil
}

// parseDocument decodes the JSON text into qmuntal/gltf's document model,
// which applies glTF's defaults (node TRS, material factors, primitive mode)
// and checks enums and required properties.
func parseDocument(text []byte) (doc *qgltf.Document, err error) {
	// Tolerate what some exporters emit around the JSON: a UTF-8 byte order
	// mark, and NUL padding of the GLB JSON chunk instead of spaces.
	text = bytes.TrimPrefix(text, []byte("\xEF\xBB\xBF"))
	text = bytes.TrimRight(text, "\x00 \t\r\n")
	if len(text) == 0 {
		return nil, errors.New("empty json document")
	}
	// qmuntal/gltf is not ours: a panic in its decoding is reported, not raised.
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("json: decoder panic: %s", oneLine(fmt.Sprint(r)))
		}
	}()
	doc = new(qgltf.Document)
	if err := json.Unmarshal(text, doc); err != nil {
		return nil, fmt.Errorf("json: %w", libError{err})
	}
	return doc, nil
}

// checkRequired refuses documents that need an extension we do not
// implement. Quantized attributes are decoded; material extensions and
// KHR_texture_transform only refine how a renderer shades, so accepting them
// (and ignoring what we do not carry) keeps the geometry correct.
func checkRequired(doc *qgltf.Document) error {
	for _, name := range doc.ExtensionsRequired {
		switch {
		case name == "KHR_mesh_quantization",
			name == extMeshoptEXT, name == extMeshoptKHR,
			name == "KHR_texture_transform",
			strings.HasPrefix(name, "KHR_materials_"):
		default:
			return fmt.Errorf("%w %q", ErrUnsupportedExtension, name)
		}
	}
	return nil
}

// checkNoNulls refuses null entries in the arrays the importer walks, so
// that no later step dereferences a nil pointer.
func checkNoNulls(doc *qgltf.Document) error {
	check := func(name string, n int, isNil func(int) bool) error {
		for i := 0; i < n; i++ {
			if isNil(i) {
				return fmt.Errorf("%s[%d] is null", name, i)
			}
		}
		return nil
	}
	errs := []error{
		check("accessors", len(doc.Accessors), func(i int) bool { return doc.Accessors[i] == nil }),
		check("buffers", len(doc.Buffers), func(i int) bool { return doc.Buffers[i] == nil }),
		check("bufferViews", len(doc.BufferViews), func(i int) bool { return doc.BufferViews[i] == nil }),
		check("images", len(doc.Images), func(i int) bool { return doc.Images[i] == nil }),
		check("materials", len(doc.Materials), func(i int) bool { return doc.Materials[i] == nil }),
		check("meshes", len(doc.Meshes), func(i int) bool { return doc.Meshes[i] == nil }),
		check("nodes", len(doc.Nodes), func(i int) bool { return doc.Nodes[i] == nil }),
		check("scenes", len(doc.Scenes), func(i int) bool { return doc.Scenes[i] == nil }),
		check("textures", len(doc.Textures), func(i int) bool { return doc.Textures[i] == nil }),
	}
	for i, m := range doc.Meshes {
		errs = append(errs, check(fmt.Sprintf("meshes[%d].primitives", i), len(m.Primitives),
			func(j int) bool { return m.Primitives[j] == nil }))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// loadBuffers resolves every buffer's bytes: the GLB BIN chunk for a .glb's
// first URI-less buffer, base64 data URIs, and files inside the source's
// folder. Each buffer must hold at least byteLength bytes and is cut to it,
// so later bounds checks need only len(). A buffer with no URI outside that
// case (an EXT_meshopt_compression fallback, say) stays empty and is an
// error only if a buffer view reads it.
func (im *importer) loadBuffers(bin []byte) error {
	im.bufs = make([][]byte, len(im.doc.Buffers))
	for i, b := range im.doc.Buffers {
		if b.ByteLength < 1 {
			return fmt.Errorf("buffer %d: byteLength %d, must be at least 1", i, b.ByteLength)
		}
		var (
			data []byte
			err  error
			from string
		)
		switch {
		case b.URI == "" && i == 0 && bin != nil:
			data, from = bin, "glb bin chunk"
		case b.URI == "" || isFallback(b):
			continue // a meshopt placeholder or fallback: only views that decompress read it
		case isDataURI(b.URI):
			data, _, err = decodeDataURI(b.URI)
			from = "data uri"
		default:
			var p string
			if p, err = im.localPath(b.URI); err == nil {
				data, err = im.readFile(p)
			}
			from = fmt.Sprintf("%q", b.URI)
		}
		if err != nil {
			return fmt.Errorf("buffer %d: %w", i, err)
		}
		if len(data) < b.ByteLength {
			return fmt.Errorf("buffer %d: %s holds %d bytes, byteLength is %d", i, from, len(data), b.ByteLength)
		}
		im.bufs[i] = data[:b.ByteLength:b.ByteLength]
	}
	return nil
}

func isDataURI(uri string) bool {
	return len(uri) >= 5 && strings.EqualFold(uri[:5], "data:")
}

// decodeDataURI decodes a base64 data URI and returns its bytes and media
// type. The decoded size is bounded by the URI's length.
func decodeDataURI(uri string) ([]byte, string, error) {
	header, payload, ok := strings.Cut(uri[5:], ",")
	if !ok {
		return nil, "", errors.New("data uri has no comma")
	}
	media, isBase64 := strings.CutSuffix(header, ";base64")
	if !isBase64 {
		return nil, "", errors.New("data uri is not base64")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		// some writers drop the padding
		if data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "=")); err != nil {
			return nil, "", fmt.Errorf("data uri: %w", err)
		}
	}
	return data, media, nil
}

// localPath turns a relative URI reference into a path inside fsys, under
// the source's folder. Anything that could leave that folder is refused:
// a scheme, an absolute path, a ".." that climbs out, a Windows drive or
// UNC prefix. Percent-escapes are decoded first (glTF URIs are RFC 3986).
func (im *importer) localPath(uri string) (string, error) {
	if u, err := url.Parse(uri); err == nil && u.Scheme != "" {
		return "", fmt.Errorf("%w: %q has a scheme", ErrOutsideFolder, uri)
	}
	p, err := url.PathUnescape(uri)
	if err != nil {
		return "", fmt.Errorf("uri %q: %w", uri, err)
	}
	// One policy for every reference (internal/srcpath): backslashes are
	// separators, no absolute, drive, UNC or ".." way out.
	p, err = srcpath.Local(p)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrOutsideFolder, err)
	}
	full := path.Join(im.dir, p)
	if !fs.ValidPath(full) {
		return "", fmt.Errorf("%w: %q", ErrOutsideFolder, uri)
	}
	return full, nil
}

// readFile reads a file inside fsys and records it in im.files, relative to
// the source's folder (mesh.Scene.Files).
func (im *importer) readFile(p string) ([]byte, error) {
	data, err := fs.ReadFile(im.fsys, p)
	if err != nil {
		return nil, err
	}
	rel := p
	if im.dir != "." {
		rel = strings.TrimPrefix(p, im.dir+"/")
	}
	if !slices.Contains(im.files, rel) {
		im.files = append(im.files, rel)
	}
	return data, nil
}
