package gltf

import (
	"encoding/json"
	"fmt"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/importer/gltf/meshopt"
)

// The meshopt compression extensions: KHR_meshopt_compression is the
// ratified form of EXT_meshopt_compression (same JSON, plus the vertex
// codec's version 1 and the COLOR filter).
const (
	extMeshoptEXT = "EXT_meshopt_compression"
	extMeshoptKHR = "KHR_meshopt_compression"
)

// DefaultMaxDecodedBytes bounds the bytes decompressed from meshopt
// buffer views, summed over the file (each view is also bounded by what its
// compressed bytes can expand to, meshopt.MaxOutput).
const DefaultMaxDecodedBytes = 1 << 32

// meshoptView is a buffer view's meshopt extension object.
type meshoptView struct {
	Buffer     int    `json:"buffer"`
	ByteOffset int    `json:"byteOffset"`
	ByteLength int    `json:"byteLength"`
	ByteStride int    `json:"byteStride"`
	Count      int    `json:"count"`
	Mode       string `json:"mode"`
	Filter     string `json:"filter"`
}

// extension decodes the JSON object of extension name from exts into v;
// ok is false when exts has no such extension. qmuntal/gltf keeps the
// extensions it does not know as raw JSON; a registered one is encoded
// back first.
func extension(exts qgltf.Extensions, name string, v any) (ok bool, err error) {
	raw, found := exts[name]
	if !found {
		return false, nil
	}
	b, isRaw := raw.(json.RawMessage)
	if !isRaw {
		if b, err = json.Marshal(raw); err != nil {
			return true, err
		}
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("%s: %w", name, libError{err})
	}
	return true, nil
}

// meshoptOf returns buffer view v's meshopt extension, or nil.
func (im *importer) meshoptOf(bv *qgltf.BufferView) (*meshoptView, string, error) {
	for _, name := range []string{extMeshoptKHR, extMeshoptEXT} {
		var m meshoptView
		ok, err := extension(bv.Extensions, name, &m)
		if err != nil {
			return nil, name, err
		}
		if ok {
			return &m, name, nil
		}
	}
	return nil, "", nil
}

// isFallback reports whether buffer b is marked as a meshopt fallback
// (its bytes are never needed by a decoder that has the extension).
func isFallback(b *qgltf.Buffer) bool {
	for _, name := range []string{extMeshoptKHR, extMeshoptEXT} {
		var f struct {
			Fallback bool `json:"fallback"`
		}
		if ok, err := extension(b.Extensions, name, &f); ok && err == nil && f.Fallback {
			return true
		}
	}
	return false
}

// decompressed returns buffer view v's bytes decoded from its meshopt
// extension (cached per view), after checking the extension object
// against the view: byteLength = byteStride × count, a matching
// byteStride, the compressed range inside its buffer, and the decoded size
// within the file's budget.
func (im *importer) decompressed(v int, bv *qgltf.BufferView, m *meshoptView, name string) ([]byte, error) {
	if b, ok := im.decoded[v]; ok {
		return b, nil
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("buffer view %d: %s: %s", v, name, fmt.Sprintf(format, args...))
	}
	switch {
	case m.Buffer < 0 || m.Buffer >= len(im.bufs):
		return nil, bad("buffer %d does not exist", m.Buffer)
	case im.bufs[m.Buffer] == nil:
		return nil, bad("buffer %d has no data", m.Buffer)
	case m.ByteOffset < 0 || m.ByteLength < 1 || m.ByteOffset > len(im.bufs[m.Buffer]) || m.ByteLength > len(im.bufs[m.Buffer])-m.ByteOffset:
		return nil, bad("bytes %d+%d outside buffer %d (%d bytes)", m.ByteOffset, m.ByteLength, m.Buffer, len(im.bufs[m.Buffer]))
	case m.Count < 0 || m.ByteStride < 1 || uint64(m.Count)*uint64(m.ByteStride) != uint64(bv.ByteLength):
		return nil, bad("count %d × byteStride %d is not the view's byteLength %d", m.Count, m.ByteStride, bv.ByteLength)
	case bv.ByteStride != 0 && bv.ByteStride != m.ByteStride:
		return nil, bad("byteStride %d differs from the view's %d", m.ByteStride, bv.ByteStride)
	}
	src := im.bufs[m.Buffer][m.ByteOffset : m.ByteOffset+m.ByteLength]
	out, err := meshopt.Decode(m.Mode, m.Filter, m.Count, m.ByteStride, src, im.decodedLeft)
	if err != nil {
		return nil, fmt.Errorf("buffer view %d: %s: %w", v, name, err)
	}
	im.decodedLeft -= len(out)
	if im.decoded == nil {
		im.decoded = map[int][]byte{}
	}
	im.decoded[v] = out
	return out, nil
}
