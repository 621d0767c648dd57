package payload

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func staticSeeds(f *testing.F) {
	q := quad()
	f.Add(mustEncode(f, q))
	q.LODs = quadLODs()
	f.Add(mustEncode(f, q))
	q.Heightfield = &Heightfield{Rows: 1, Cols: 3, Heights: []float32{1, 2, 3}}
	f.Add(mustEncode(f, q))
	f.Add(mustEncode(f, &Static{}))
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
			if err != nil || !bytes.HasPrefix(b, out) {
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
	f.Add(mustEncodeSkinned(f, &Skinned{}))
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
		if err != nil {
			t.Fatalf("EncodeSkinned rejects a decoded payload: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatal("DecodeSkinnedWithLODs → EncodeSkinned is not the identity")
		}
	})
}
