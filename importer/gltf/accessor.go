package gltf

import (
	"encoding/binary"
	"fmt"
	"math"

	qgltf "github.com/qmuntal/gltf"

	"github.com/meshcook/meshcook/internal/par"
)

// layout is where an accessor's elements lie, after every bound is checked:
// element i starts at data[i*stride] and holds comps components of size
// bytes each. data is nil for an accessor with no buffer view (all zeros).
type layout struct {
	index  int
	acc    *qgltf.Accessor
	comps  int
	size   int
	data   []byte
	stride int
}

// componentSize is the byte size of one component; 0 for an unknown type.
func componentSize(ct qgltf.ComponentType) int {
	switch ct {
	case qgltf.ComponentByte, qgltf.ComponentUbyte:
		return 1
	case qgltf.ComponentShort, qgltf.ComponentUshort:
		return 2
	case qgltf.ComponentUint, qgltf.ComponentFloat:
		return 4
	}
	return 0
}

// componentCount is the component count of the accessor types we read
// (SCALAR, VECn, and MAT4 for inverse bind matrices, whose float columns
// need no padding); 0 for the other matrices, which we never read.
func componentCount(t qgltf.AccessorType) int {
	switch t {
	case qgltf.AccessorScalar:
		return 1
	case qgltf.AccessorVec2:
		return 2
	case qgltf.AccessorVec3:
		return 3
	case qgltf.AccessorVec4:
		return 4
	case qgltf.AccessorMat4:
		return 16
	}
	return 0
}

// view returns buffer view v's bytes and its byteStride (0 when unset).
func (im *importer) view(v int) ([]byte, int, error) {
	if v < 0 || v >= len(im.doc.BufferViews) {
		return nil, 0, fmt.Errorf("buffer view %d does not exist", v)
	}
	bv := im.doc.BufferViews[v]
	if bv.ByteOffset < 0 || bv.ByteLength < 1 || bv.ByteStride < 0 {
		return nil, 0, fmt.Errorf("buffer view %d: byteOffset %d, byteLength %d, byteStride %d out of range", v, bv.ByteOffset, bv.ByteLength, bv.ByteStride)
	}
	m, name, err := im.meshoptOf(bv)
	if err != nil {
		return nil, 0, fmt.Errorf("buffer view %d: %w", v, err)
	}
	if m != nil {
		data, err := im.decompressed(v, bv, m, name)
		return data, bv.ByteStride, err
	}
	if bv.Buffer < 0 || bv.Buffer >= len(im.bufs) {
		return nil, 0, fmt.Errorf("buffer view %d: buffer %d does not exist", v, bv.Buffer)
	}
	buf := im.bufs[bv.Buffer]
	if buf == nil {
		return nil, 0, fmt.Errorf("buffer view %d: buffer %d has no data", v, bv.Buffer)
	}
	if bv.ByteOffset > len(buf) || bv.ByteLength > len(buf)-bv.ByteOffset {
		return nil, 0, fmt.Errorf("buffer view %d: bytes %d+%d overrun buffer %d (%d bytes)", v, bv.ByteOffset, bv.ByteLength, bv.Buffer, len(buf))
	}
	return buf[bv.ByteOffset : bv.ByteOffset+bv.ByteLength], bv.ByteStride, nil
}

// layoutOf checks accessor ai's type against the allowed ones and bounds
// all of its elements inside its buffer view. maxCount caps the element
// count (the caller's remaining budget) so that a view-less or sparse
// accessor, which no byte count bounds, cannot force a huge allocation.
func (im *importer) layoutOf(ai int, types []qgltf.AccessorType, cts []qgltf.ComponentType, maxCount int) (layout, error) {
	if ai < 0 || ai >= len(im.doc.Accessors) {
		return layout{}, fmt.Errorf("accessor %d does not exist", ai)
	}
	a := im.doc.Accessors[ai]
	l := layout{index: ai, acc: a, comps: componentCount(a.Type), size: componentSize(a.ComponentType)}
	if !containsType(types, a.Type) || !containsComponent(cts, a.ComponentType) || l.comps == 0 || l.size == 0 {
		return layout{}, fmt.Errorf("accessor %d: type %s of %s is not allowed here", ai, a.Type, a.ComponentType)
	}
	if a.Count < 1 {
		return layout{}, fmt.Errorf("accessor %d: count %d", ai, a.Count)
	}
	if a.Count > maxCount {
		return layout{}, fmt.Errorf("accessor %d: count %d exceeds the remaining limit of %d", ai, a.Count, maxCount)
	}
	if a.BufferView == nil {
		return l, nil
	}
	data, stride, err := im.view(*a.BufferView)
	if err != nil {
		return layout{}, fmt.Errorf("accessor %d: %w", ai, err)
	}
	elem := l.comps * l.size
	if stride == 0 {
		stride = elem
	}
	if stride < elem {
		return layout{}, fmt.Errorf("accessor %d: byteStride %d is smaller than its %d-byte element", ai, stride, elem)
	}
	if a.ByteOffset < 0 || a.ByteOffset > len(data)-elem {
		return layout{}, fmt.Errorf("accessor %d: byteOffset %d leaves no room for an element in buffer view %d (%d bytes)", ai, a.ByteOffset, *a.BufferView, len(data))
	}
	if room := (len(data)-a.ByteOffset-elem)/stride + 1; a.Count > room {
		return layout{}, fmt.Errorf("accessor %d: %d elements of %d bytes (stride %d) at offset %d overrun buffer view %d (%d bytes)", ai, a.Count, elem, stride, a.ByteOffset, *a.BufferView, len(data))
	}
	l.data, l.stride = data[a.ByteOffset:], stride
	return l, nil
}

func containsType(s []qgltf.AccessorType, t qgltf.AccessorType) bool {
	for _, v := range s {
		if v == t {
			return true
		}
	}
	return false
}

func containsComponent(s []qgltf.ComponentType, c qgltf.ComponentType) bool {
	for _, v := range s {
		if v == c {
			return true
		}
	}
	return false
}

// sparse returns accessor l's sparse substitution: the element indices, and
// the tightly packed replacement elements (same layout as the accessor with
// stride = element size). Both are bounded in their buffer views.
func (im *importer) sparse(l layout) ([]uint32, layout, error) {
	s := l.acc.Sparse
	if s.Count < 1 || s.Count > l.acc.Count {
		return nil, layout{}, fmt.Errorf("accessor %d: sparse count %d out of range 1..%d", l.index, s.Count, l.acc.Count)
	}
	// indices
	isz := 0
	switch s.Indices.ComponentType {
	case qgltf.ComponentUbyte, qgltf.ComponentUshort, qgltf.ComponentUint:
		isz = componentSize(s.Indices.ComponentType)
	default:
		return nil, layout{}, fmt.Errorf("accessor %d: sparse indices of %s", l.index, s.Indices.ComponentType)
	}
	idata, _, err := im.view(s.Indices.BufferView)
	if err != nil {
		return nil, layout{}, fmt.Errorf("accessor %d: sparse indices: %w", l.index, err)
	}
	if s.Indices.ByteOffset < 0 || s.Indices.ByteOffset > len(idata) || s.Count > (len(idata)-s.Indices.ByteOffset)/isz {
		return nil, layout{}, fmt.Errorf("accessor %d: %d sparse indices at offset %d overrun buffer view %d (%d bytes)", l.index, s.Count, s.Indices.ByteOffset, s.Indices.BufferView, len(idata))
	}
	idata = idata[s.Indices.ByteOffset:]
	idx := make([]uint32, s.Count)
	for i := range idx {
		v := readUint(idata[i*isz:], s.Indices.ComponentType)
		if uint64(v) >= uint64(l.acc.Count) {
			return nil, layout{}, fmt.Errorf("accessor %d: sparse index %d is %d, count is %d", l.index, i, v, l.acc.Count)
		}
		idx[i] = v
	}
	// values
	elem := l.comps * l.size
	vdata, _, err := im.view(s.Values.BufferView)
	if err != nil {
		return nil, layout{}, fmt.Errorf("accessor %d: sparse values: %w", l.index, err)
	}
	if s.Values.ByteOffset < 0 || s.Values.ByteOffset > len(vdata) || s.Count > (len(vdata)-s.Values.ByteOffset)/elem {
		return nil, layout{}, fmt.Errorf("accessor %d: %d sparse values at offset %d overrun buffer view %d (%d bytes)", l.index, s.Count, s.Values.ByteOffset, s.Values.BufferView, len(vdata))
	}
	vals := layout{index: l.index, acc: l.acc, comps: l.comps, size: l.size, data: vdata[s.Values.ByteOffset:], stride: elem}
	return idx, vals, nil
}

// readUint reads one unsigned little-endian component.
func readUint(b []byte, ct qgltf.ComponentType) uint32 {
	switch ct {
	case qgltf.ComponentUbyte:
		return uint32(b[0])
	case qgltf.ComponentUshort:
		return uint32(binary.LittleEndian.Uint16(b))
	default:
		return binary.LittleEndian.Uint32(b)
	}
}

// readFloat reads one component as a float, normalizing integers when asked
// with glTF 2.0's rules (§3.11): signed values map to max(c/MAX, -1),
// unsigned ones to c/MAX.
func readFloat(b []byte, ct qgltf.ComponentType, normalized bool) float32 {
	switch ct {
	case qgltf.ComponentFloat:
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	case qgltf.ComponentByte:
		v := float32(int8(b[0]))
		if normalized {
			v = max(v/127, -1)
		}
		return v
	case qgltf.ComponentUbyte:
		v := float32(b[0])
		if normalized {
			v /= 255
		}
		return v
	case qgltf.ComponentShort:
		v := float32(int16(binary.LittleEndian.Uint16(b)))
		if normalized {
			v = max(v/32767, -1)
		}
		return v
	case qgltf.ComponentUshort:
		v := float32(binary.LittleEndian.Uint16(b))
		if normalized {
			v /= 65535
		}
		return v
	default: // unsigned int: never normalized for the attributes we read
		return float32(binary.LittleEndian.Uint32(b))
	}
}

// decodeChunk is the element count of one parallel chunk of accessor
// decoding and of the per-element loops that follow it: elements are
// independent, so each chunk writes its own and the result is the same
// for every GOMAXPROCS.
const decodeChunk = 1 << 15

// floats decodes accessor ai into count*comps floats, base values (or zeros)
// first, then its sparse substitution. Non-finite results are refused: no
// stage downstream can do anything sensible with them.
func (im *importer) floats(ai int, types []qgltf.AccessorType, cts []qgltf.ComponentType, maxCount int) ([]float32, int, error) {
	l, err := im.layoutOf(ai, types, cts, maxCount)
	if err != nil {
		return nil, 0, err
	}
	a := l.acc
	out := make([]float32, a.Count*l.comps)
	fill := func(dst []float32, src layout, row int) {
		e := src.data[row*src.stride:]
		for c := range dst {
			dst[c] = readFloat(e[c*src.size:], a.ComponentType, a.Normalized)
		}
	}
	if l.data != nil {
		par.Ranges(a.Count, decodeChunk, func(_, lo, hi int) {
			if a.ComponentType == qgltf.ComponentFloat {
				// the common case, without readFloat's switch per component
				for i := lo; i < hi; i++ {
					e, dst := l.data[i*l.stride:], out[i*l.comps:(i+1)*l.comps]
					for c := range dst {
						dst[c] = math.Float32frombits(binary.LittleEndian.Uint32(e[4*c:]))
					}
				}
				return
			}
			for i := lo; i < hi; i++ {
				fill(out[i*l.comps:(i+1)*l.comps], l, i)
			}
		})
	}
	if a.Sparse != nil {
		idx, vals, err := im.sparse(l)
		if err != nil {
			return nil, 0, err
		}
		for k, i := range idx {
			fill(out[int(i)*l.comps:(int(i)+1)*l.comps], vals, k)
		}
	}
	bad := par.First(len(out), decodeChunk*l.comps, func(lo, hi int) int {
		for i, v := range out[lo:hi] {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return lo + i
			}
		}
		return -1
	})
	if bad >= 0 {
		return nil, 0, fmt.Errorf("accessor %d: element %d is not finite", ai, bad/l.comps)
	}
	return out, l.comps, nil
}

// indexComponents are the component types glTF allows for indices.
var indexComponents = []qgltf.ComponentType{qgltf.ComponentUbyte, qgltf.ComponentUshort, qgltf.ComponentUint}

// uints decodes a SCALAR unsigned accessor (indices), with sparse
// substitution. Values are not range-checked here.
func (im *importer) uints(ai int, maxCount int) ([]uint32, error) {
	l, err := im.layoutOf(ai, []qgltf.AccessorType{qgltf.AccessorScalar}, indexComponents, maxCount)
	if err != nil {
		return nil, err
	}
	a := l.acc
	if a.Normalized {
		return nil, fmt.Errorf("accessor %d: indices must not be normalized", ai)
	}
	out := make([]uint32, a.Count)
	if l.data != nil {
		par.Ranges(len(out), decodeChunk, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				out[i] = readUint(l.data[i*l.stride:], a.ComponentType)
			}
		})
	}
	if a.Sparse != nil {
		idx, vals, err := im.sparse(l)
		if err != nil {
			return nil, err
		}
		for k, i := range idx {
			out[i] = readUint(vals.data[k*vals.stride:], a.ComponentType)
		}
	}
	return out, nil
}
