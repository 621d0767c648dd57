package payload

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

func staticSeeds(f *testing.F) {
	q := quad()
	f.Add(mustEncode(f, q))
	q.LODs = quadLODs()
	f.Add(mustEncode(f, q))
	q.Heightfield = &Heightfield{Rows: 1, Cols: 3, Heights: []float32{1, 2, 3}}
	f.Add(mustEncode(f, q))
	f.Add(make([]byte, 8)) // no vertices, no indices: read, never written
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x00LODS\x01\x00\x00\x00"))
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	var fe *FormatError
	if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) || fe.Offset < 0 {
		t.Fatalf("error is not a FormatError with a byte offset: %v", err)
	}
}

// FuzzParse: the strict reader never panics, fails only with an offset, and
// whatever it accepts re-encodes to exactly the input.
func FuzzParse(f *testing.F) {
	staticSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b)
		if err != nil {
			checkErr(t, err)
			return
		}
		out, err := Encode(m)
		if len(m.Indices) == 0 {
			require.ErrorContains(t, err, "no triangles", "an empty payload is read, never written")
			return
		}
		if err != nil {
			t.Fatalf("Encode rejects what Parse accepted: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatal("Parse → Encode is not the identity")
		}
	})
}

// FuzzDecode covers the lenient readers: Decode's result re-encodes to a
// prefix of the input, DecodeWithLODs agrees with it on LOD0, and
// DecodeHeightfield agrees with Parse whenever Parse accepts.
func FuzzDecode(f *testing.F) {
	staticSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Decode(b)
		if err != nil {
			checkErr(t, err)
		} else {
			out, err := Encode(m)
			if len(m.Indices) == 0 {
				require.ErrorContains(t, err, "no triangles", "an empty payload is read, never written")
			} else if err != nil || !bytes.HasPrefix(b, out) {
				t.Fatalf("Decode result does not re-encode to a prefix: %v", err)
			}
		}
		ml, errL := DecodeWithLODs(b)
		if errL != nil {
			checkErr(t, errL)
		} else if err != nil || !reflect.DeepEqual(ml.Vertices, m.Vertices) || !reflect.DeepEqual(ml.Indices, m.Indices) {
			t.Fatal("DecodeWithLODs and Decode disagree on LOD0")
		}
		h, errH := DecodeHeightfield(b)
		if errH != nil {
			checkErr(t, errH)
		}
		if p, err := Parse(b); err == nil && (errH != nil || !reflect.DeepEqual(h, p.Heightfield)) {
			t.Fatalf("DecodeHeightfield disagrees with Parse: %v", errH)
		}
	})
}

// FuzzDecodeSkinned: no panics, offsets on every error, and exact
// round trips.
func FuzzDecodeSkinned(f *testing.F) {
	m := skinned()
	f.Add(mustEncodeSkinned(f, m))
	m.Morphs, _ = SparsifyMorphs([]string{"a", "b"}, [][]MorphDelta{
		{{}, {Position: [3]float32{1, 0, 0}}, {}, {}},
		{{Normal: [3]float32{0, 1, 0}}, {Position: [3]float32{0, 1, 0}}, {}, {}},
	}, 4)
	m.LODs = quadLODs()
	f.Add(mustEncodeSkinned(f, m))
	f.Add(append([]byte(MagicSkinned), make([]byte, 12)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeSkinnedWithLODs(b)
		if err != nil {
			checkErr(t, err)
			if _, err2 := DecodeSkinned(b); err2 == nil {
				t.Fatal("DecodeSkinned accepts what DecodeSkinnedWithLODs refuses")
			}
			return
		}
		out, err := EncodeSkinned(m)
		if len(m.Indices) == 0 {
			require.ErrorContains(t, err, "no triangles", "an empty payload is read, never written")
			return
		}
		if err != nil {
			t.Fatalf("EncodeSkinned rejects a decoded payload: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatal("DecodeSkinnedWithLODs → EncodeSkinned is not the identity")
		}
	})
}

// The writers refuse a payload with no triangles (vertices or not): an
// empty mesh is never written, while the readers still accept one.
func TestEncodeRefusesEmpty(t *testing.T) {
	q := quad()
	q.Indices = nil
	_, err := Encode(q)
	require.ErrorContains(t, err, "payload: no triangles: an empty mesh is not written")
	_, err = Encode(&Static{})
	require.ErrorContains(t, err, "no triangles")
	sk := skinned()
	sk.Indices = nil
	_, err = EncodeSkinned(sk)
	require.ErrorContains(t, err, "payload: no triangles: an empty mesh is not written")
	m, err := Parse(make([]byte, 8))
	require.NoError(t, err, "an empty payload older cooks wrote is still read")
	require.Empty(t, m.Indices)
}
