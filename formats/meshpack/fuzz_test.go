package meshpack

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode: any bytes either fail with an error or decode to a pack that
// encodes back to the same raw bytes (and decodes again to the same pack).
func FuzzDecode(f *testing.F) {
	raw, _ := Encode(samplePack())
	file, _ := Marshal(samplePack())
	rig, _ := Encode(&Pack{Family: Rigged, Entries: []Entry{rigTri("a")}})
	empty, _ := Encode(&Pack{Family: Static})
	for _, s := range [][]byte{raw, file, rig, empty, raw[:40], {}} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		p, err := DecodeLimit(b, 1<<22)
		if err != nil {
			return
		}
		enc, err := Encode(p)
		if slices.ContainsFunc(p.Entries, func(e Entry) bool { return len(e.Indices) == 0 }) {
			require.ErrorContains(t, err, "no triangles", "an empty entry is read, never written")
			return
		}
		if err != nil {
			t.Fatalf("decoded pack does not encode: %v", err)
		}
		src, err := Decompress(b, 1<<22)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(enc, src) {
			t.Fatal("decode → encode changed the bytes")
		}
	})
}

// Encode refuses an entry with no triangles (an empty mesh is never
// written); Decode still reads the bytes older bakes wrote for one.
func TestEncodeRefusesEmptyEntry(t *testing.T) {
	p := samplePack()
	old, err := Encode(p)
	require.NoError(t, err)
	p.Entries[0].Indices, p.Entries[0].Ranges = nil, nil
	_, err = Encode(p)
	require.ErrorContains(t, err, "meshpack: entry 0 "+`"`+p.Entries[0].Name+`"`+": no triangles: an empty mesh is not written")
	// The same pack with the first entry's counts zeroed by hand reads back.
	n := binary.LittleEndian.Uint32(old[HeaderSize:])
	vc := binary.LittleEndian.Uint32(old[HeaderSize+4:])
	ic := binary.LittleEndian.Uint32(old[HeaderSize+8:])
	rc := binary.LittleEndian.Uint32(old[HeaderSize+12:])
	vs := int(p.Family.VertexSize())
	head := HeaderSize + EntryHeaderSize + int(n) + int(vc)*vs
	var b []byte
	b = append(b, old[:HeaderSize+8]...)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, old[HeaderSize+16:head]...)
	b = append(b, old[head+4*int(ic)+RangeSize*int(rc):]...)
	got, err := DecodeLimit(b, 1<<22)
	require.NoError(t, err)
	require.Empty(t, got.Entries[0].Indices)
}
