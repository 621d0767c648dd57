package hmesh

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// morphTri is triFile with two targets on its one submesh: "up" moves
// vertex 2 (position and normal), "wide" moves vertex 1 with rest weight
// 0.5; vertex 0 has no delta above the epsilon.
func morphTri(t testing.TB) *File {
	f := triFile()
	m, err := BuildMorphs(
		[][]string{{"up", "wide"}},
		[][]float32{{0, 0.5}},
		[][][]SparseDelta{{
			{{}, {}, {Position: [3]float32{0, 0, 1}, Normal: [3]float32{0, 0.5, 0}}},
			{{Position: [3]float32{1e-7, 0, 0}}, {Position: [3]float32{2, 0, 0}}, {}},
		}},
		[]uint32{0}, 3)
	require.NoError(t, err)
	f.Morphs = m
	return f
}

// Why: MRPH is meshcook's addition; every byte is pinned by hand against
// docs/formats/hmesh.md "Morph targets".
func TestMorphChunkBytes(t *testing.T) {
	b := mustEncode(t, morphTri(t))
	at := payloadAt(t, b, "MRPH")
	le := binary.LittleEndian
	size := int(le.Uint64(b[entryAt(t, b, "MRPH")+16:]))
	want := "02000000" + "02000000" + "06000000" + "00000000" + // 2 targets, 2 entries, 6 name bytes, reserved
		"00000000" + "02000000" + // submesh 0: targets 0+2
		"00000000" + "02000000" + "00000000" + // "up" at 0, 2 bytes, weight 0
		"02000000" + "04000000" + "0000003f" + // "wide" at 2, 4 bytes, weight 0.5
		hex.EncodeToString([]byte("upwide")) + "0000" + // names padded to 8
		"00000000" + "00000000" + "01000000" + "02000000" + // offsets: v0 none, v1 one, v2 one
		"01000000" + "00000040" + "00000000" + "00000000" + "00000000" + "00000000" + "00000000" + // v1: target 1, +2 x
		"00000000" + "00000000" + "00000000" + "0000803f" + "00000000" + "0000003f" + "00000000" // v2: target 0, +1 z, normal +0.5 y
	assert.Equal(t, want, hex.EncodeToString(b[at:at+size]))
	// MRPH is the last chunk, after the ones the spec lists
	assert.Equal(t, "MRPH", string(b[HeaderSize+ChunkEntrySize*10:HeaderSize+ChunkEntrySize*10+4]))
	meshcheck(t, "morph.hmesh", b)
}

func TestMorphChunkRoundTrip(t *testing.T) {
	f := morphTri(t)
	b := mustEncode(t, f)
	g, err := Decode(b)
	require.NoError(t, err)
	require.NotNil(t, g.Morphs)
	assert.Equal(t, f.Morphs, g.Morphs)
	assert.Equal(t, b, mustEncode(t, g))
	// a file without targets has no chunk
	none, err := BuildMorphs([][]string{{}}, [][]float32{{}}, [][][]SparseDelta{{}}, []uint32{0}, 3)
	require.NoError(t, err)
	assert.Nil(t, none)
	var sb stringsBuilder
	require.NoError(t, Dump(&sb, g))
	assert.Contains(t, sb.String(), "morphs targets=2 entries=2\n  s0 targets=0+2\n  target0 \"up\" weight=0\n  target1 \"wide\" weight=0.5\n  v1 target1 pos=[2 0 0] normal=[0 0 0]\n")
}

type stringsBuilder struct{ b []byte }

func (s *stringsBuilder) Write(p []byte) (int, error) { s.b = append(s.b, p...); return len(p), nil }
func (s *stringsBuilder) String() string              { return string(s.b) }

// Why: every malformed MRPH payload is refused with its offset, before
// anything is allocated from its counts.
func TestDecodeInvalidMorphs(t *testing.T) {
	b := mustEncode(t, morphTri(t))
	at := payloadAt(t, b, "MRPH")
	entries := at + 16 + 8 + 24 + 8 + 16
	cases := []struct {
		name string
		edit func(b []byte)
		want string
	}{
		{"huge target count", func(b []byte) { put32(b, at, 0xFFFFFFFF) }, "payload is 128 bytes, want"},
		{"huge entry count", func(b []byte) { put32(b, at+4, 0xFFFFFFFF) }, "payload is 128 bytes, want"},
		{"reserved", func(b []byte) { put32(b, at+12, 1) }, "reserved word"},
		{"range start", func(b []byte) { put32(b, at+16, 1) }, "first target 1, want 0"},
		{"range count", func(b []byte) { put32(b, at+20, 1) }, "cover 1 targets, the chunk has 2"},
		{"name past names", func(b []byte) { put32(b, at+24, 5) }, "name [5, +2) past the 6 name bytes"},
		{"bad utf8", func(b []byte) { b[at+48] = 0xFF }, "not valid UTF-8"},
		{"nan weight", func(b []byte) { put32(b, at+32, math.Float32bits(float32(math.NaN()))) }, "rest weight NaN"},
		{"name padding", func(b []byte) { b[at+54] = 1 }, "padding byte"},
		{"first offset", func(b []byte) { put32(b, at+56, 1) }, "offsets run 1..2"},
		{"offsets decrease", func(b []byte) { put32(b, at+60, 1); put32(b, at+64, 0) }, "must not decrease"},
		{"offset past entries", func(b []byte) { put32(b, at+60, 3) }, "must not decrease or pass entryCount 2"},
		{"target range", func(b []byte) { put32(b, entries, 2) }, "target 2, the chunk has 2"},
		{"epsilon", func(b []byte) { put32(b, entries+4, math.Float32bits(1e-7)) }, "at or below MorphDeltaEpsilon"},
		{"inf delta", func(b []byte) { put32(b, entries+4, math.Float32bits(float32(math.Inf(1)))) }, "not finite"},
		{"size", func(b []byte) { put64(b, entryAt(t, b, "MRPH")+16, 15) }, "truncated MorphHeader"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := slices.Clone(b)
			c.edit(e)
			_, err := Decode(e)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, errors.Is(err, ErrFormat))
			assert.Contains(t, err.Error(), "chunk MRPH")
		})
	}
	// two targets at one vertex must ascend
	f := morphTri(t)
	f.Morphs.Offsets = []uint32{0, 0, 0, 2}
	_, err := Encode(f)
	assert.ErrorContains(t, err, "targets ascend")
}
