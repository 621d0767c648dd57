package msh7

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// FuzzDecode: Decode never panics, fails only with ErrFormat, and whatever
// it accepts re-encodes to the same bytes and decodes to the same File.
func FuzzDecode(f *testing.F) {
	for _, in := range []Input{staticQuad(), skinnedQuad(), withMeshlets(sphereInput(4, 8, 1))} {
		f.Add(mustEncode(f, mustBuild(f, in)))
	}
	f.Add([]byte("7HSM"))
	f.Add(append([]byte("6HSM"), make([]byte, 116)...))
	f.Add(append([]byte("7HSM"), make([]byte, 116)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<20 {
			return
		}
		g, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not ErrFormat: %v", err)
			}
			return
		}
		b2, err := Encode(g)
		if err != nil {
			t.Fatalf("Encode rejected a decoded file: %v", err)
		}
		if !bytes.Equal(b, b2) {
			t.Fatal("re-encoding changed the bytes")
		}
		g2, err := Decode(b2)
		if err != nil || !reflect.DeepEqual(g, g2) {
			t.Fatalf("round trip changed the file: %v", err)
		}
		for m := range g.Meshlets {
			if _, err := g.DecodeRefs(m); err != nil {
				t.Fatalf("accepted file has undecodable meshlet %d: %v", m, err)
			}
		}
	})
}
