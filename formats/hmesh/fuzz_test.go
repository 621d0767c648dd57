package hmesh

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// FuzzDecode: Decode never panics, fails only with ErrFormat, and whatever it
// accepts re-encodes to a file that decodes to the same File (unknown chunks
// aside, which Encode does not write) and re-encodes byte-identically.
func FuzzDecode(f *testing.F) {
	f.Add(mustEncode(f, triFile()))
	f.Add(mustEncode(f, richFile(f)))
	f.Add(mustEncode(f, morphTri(f)))
	f.Add(mustEncode(f, build(f, sphereMesh(4, 6, 1, 8, 6))))
	f.Add(mustEncode(f, clodFile(f)))
	f.Add([]byte("HMSH\x02\x00\x00\x00"))
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
		g2, err := Decode(b2)
		if err != nil {
			t.Fatalf("re-encoded file does not decode: %v", err)
		}
		g.Unknown = nil
		if !reflect.DeepEqual(g, g2) {
			t.Fatal("round trip changed the file")
		}
		if b3 := mustEncode(t, g2); !bytes.Equal(b2, b3) {
			t.Fatal("encoding is not deterministic")
		}
	})
}
