// Package samplegen writes the small glTF/GLB sample sources in
// testdata/samples. Everything is generated from code, so the samples carry
// no third-party licence and the bytes are reproducible (a test regenerates
// them and compares).
package samplegen

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
)

// A minimal glTF 2.0 document model: just the fields the samples use, in a
// fixed order so encoding/json output is deterministic.
type doc struct {
	Asset       asset        `json:"asset"`
	Scene       *int         `json:"scene,omitempty"`
	Scenes      []scene      `json:"scenes,omitempty"`
	Nodes       []node       `json:"nodes,omitempty"`
	Meshes      []meshJSON   `json:"meshes,omitempty"`
	Materials   []material   `json:"materials,omitempty"`
	Textures    []texture    `json:"textures,omitempty"`
	Images      []imageJSON  `json:"images,omitempty"`
	Accessors   []accessor   `json:"accessors,omitempty"`
	BufferViews []bufferView `json:"bufferViews,omitempty"`
	Buffers     []buffer     `json:"buffers,omitempty"`

	bin []byte // the one buffer's bytes while building
}

type asset struct {
	Version   string `json:"version"`
	Generator string `json:"generator"`
}
type scene struct {
	Nodes []int `json:"nodes"`
}
type node struct {
	Name        string    `json:"name,omitempty"`
	Mesh        *int      `json:"mesh,omitempty"`
	Children    []int     `json:"children,omitempty"`
	Translation []float64 `json:"translation,omitempty"`
	Rotation    []float64 `json:"rotation,omitempty"`
	Scale       []float64 `json:"scale,omitempty"`
	Matrix      []float64 `json:"matrix,omitempty"`
}
type meshJSON struct {
	Name       string      `json:"name,omitempty"`
	Primitives []primitive `json:"primitives"`
}
type primitive struct {
	Attributes map[string]int `json:"attributes"` // encoding/json sorts map keys
	Indices    *int           `json:"indices,omitempty"`
	Material   *int           `json:"material,omitempty"`
	Mode       *int           `json:"mode,omitempty"`
}
type material struct {
	Name                 string `json:"name,omitempty"`
	PBRMetallicRoughness *pbr   `json:"pbrMetallicRoughness,omitempty"`
	DoubleSided          bool   `json:"doubleSided,omitempty"`
}
type pbr struct {
	BaseColorFactor  []float64   `json:"baseColorFactor,omitempty"`
	BaseColorTexture *textureRef `json:"baseColorTexture,omitempty"`
	MetallicFactor   *float64    `json:"metallicFactor,omitempty"`
	RoughnessFactor  *float64    `json:"roughnessFactor,omitempty"`
}
type textureRef struct {
	Index int `json:"index"`
}
type texture struct {
	Source int `json:"source"`
}
type imageJSON struct {
	Name string `json:"name,omitempty"`
	URI  string `json:"uri"`
}
type accessor struct {
	BufferView    int       `json:"bufferView"`
	ComponentType int       `json:"componentType"`
	Normalized    bool      `json:"normalized,omitempty"`
	Count         int       `json:"count"`
	Type          string    `json:"type"`
	Min           []float64 `json:"min,omitempty"`
	Max           []float64 `json:"max,omitempty"`
}
type bufferView struct {
	Buffer     int  `json:"buffer"`
	ByteOffset int  `json:"byteOffset"`
	ByteLength int  `json:"byteLength"`
	ByteStride *int `json:"byteStride,omitempty"`
	Target     int  `json:"target,omitempty"`
}
type buffer struct {
	ByteLength int    `json:"byteLength"`
	URI        string `json:"uri,omitempty"`
}

const (
	compUByte  = 5121
	compUShort = 5123
	compUInt   = 5125
	compFloat  = 5126

	targetArray   = 34962
	targetElement = 34963
)

func ptr[T any](v T) *T { return &v }

func newDoc() *doc { return &doc{Asset: asset{Version: "2.0", Generator: "meshcook samplegen"}} }

// addView appends raw bytes (4-byte aligned) as a buffer view.
func (d *doc) addView(data []byte, target int) int {
	for len(d.bin)%4 != 0 {
		d.bin = append(d.bin, 0)
	}
	d.BufferViews = append(d.BufferViews, bufferView{Buffer: 0, ByteOffset: len(d.bin), ByteLength: len(data), Target: target})
	d.bin = append(d.bin, data...)
	return len(d.BufferViews) - 1
}

// addVec3 stores float vec3s with min/max (required for POSITION).
func (d *doc) addVec3(v [][3]float32, withBounds bool) int {
	var b bytes.Buffer
	lo := []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range v {
		binary.Write(&b, binary.LittleEndian, p)
		for k := 0; k < 3; k++ {
			lo[k] = math.Min(lo[k], float64(p[k]))
			hi[k] = math.Max(hi[k], float64(p[k]))
		}
	}
	a := accessor{BufferView: d.addView(b.Bytes(), targetArray), ComponentType: compFloat, Count: len(v), Type: "VEC3"}
	if withBounds {
		a.Min, a.Max = lo, hi
	}
	d.Accessors = append(d.Accessors, a)
	return len(d.Accessors) - 1
}

func (d *doc) addVec2(v [][2]float32) int {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	d.Accessors = append(d.Accessors, accessor{BufferView: d.addView(b.Bytes(), targetArray), ComponentType: compFloat, Count: len(v), Type: "VEC2"})
	return len(d.Accessors) - 1
}

// addColorsU8 stores normalized unsigned-byte RGBA colours.
func (d *doc) addColorsU8(v [][4]uint8) int {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, v)
	d.Accessors = append(d.Accessors, accessor{BufferView: d.addView(b.Bytes(), targetArray), ComponentType: compUByte, Normalized: true, Count: len(v), Type: "VEC4"})
	return len(d.Accessors) - 1
}

// addIndices picks the smallest index type that fits.
func (d *doc) addIndices(idx []uint32) int {
	var b bytes.Buffer
	maxIdx := uint32(0)
	for _, i := range idx {
		maxIdx = max(maxIdx, i)
	}
	comp := compUInt
	switch {
	case maxIdx < 256:
		comp = compUByte
		for _, i := range idx {
			b.WriteByte(byte(i))
		}
	case maxIdx < 65536:
		comp = compUShort
		for _, i := range idx {
			binary.Write(&b, binary.LittleEndian, uint16(i))
		}
	default:
		binary.Write(&b, binary.LittleEndian, idx)
	}
	d.Accessors = append(d.Accessors, accessor{BufferView: d.addView(b.Bytes(), targetElement), ComponentType: comp, Count: len(idx), Type: "SCALAR"})
	return len(d.Accessors) - 1
}

func (d *doc) json() []byte {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		// The document is built from plain values; marshalling cannot fail.
		return nil
	}
	return append(b, '\n')
}

// gltfWithBin returns the .gltf JSON referencing binName, and the .bin.
func (d *doc) gltfWithBin(binName string) ([]byte, []byte) {
	d.Buffers = []buffer{{ByteLength: len(d.bin), URI: binName}}
	return d.json(), d.bin
}

// gltfEmbedded returns a .gltf whose buffer is a base64 data URI.
func (d *doc) gltfEmbedded() []byte {
	d.Buffers = []buffer{{ByteLength: len(d.bin), URI: "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(d.bin)}}
	return d.json()
}

// glb returns a binary glTF: 12-byte header, JSON chunk (space padded),
// BIN chunk (zero padded).
func (d *doc) glb() []byte {
	d.Buffers = []buffer{{ByteLength: len(d.bin)}}
	js := bytes.TrimRight(d.json(), "\n")
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	bin := append([]byte(nil), d.bin...)
	for len(bin)%4 != 0 {
		bin = append(bin, 0)
	}
	var out bytes.Buffer
	total := 12 + 8 + len(js) + 8 + len(bin)
	binary.Write(&out, binary.LittleEndian, []uint32{0x46546C67, 2, uint32(total)})
	binary.Write(&out, binary.LittleEndian, []uint32{uint32(len(js)), 0x4E4F534A})
	out.Write(js)
	binary.Write(&out, binary.LittleEndian, []uint32{uint32(len(bin)), 0x004E4942})
	out.Write(bin)
	return out.Bytes()
}
