package meshpack

import (
	"bytes"
	"testing"
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
