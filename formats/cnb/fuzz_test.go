package cnb

import (
	"bytes"
	"errors"
	"testing"
)

func checkErr(t *testing.T, err error) {
	t.Helper()
	var fe *FormatError
	if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) || fe.Offset < 0 {
		t.Fatalf("error is not a FormatError with a byte offset: %v", err)
	}
}

// FuzzParseBlob: never panics, every error carries an offset, and what it
// accepts re-encodes to exactly the input (strict postcard makes decoding
// exact).
func FuzzParseBlob(f *testing.F) {
	for _, img := range buildWorld(f).images {
		f.Add(img)
	}
	f.Add([]byte("CNB\x00\x01\x00\x00\x00\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add([]byte("CNB\x00\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		m, payload, err := ParseBlob(b)
		if err != nil {
			checkErr(t, err)
			return
		}
		out, err := EncodeBlob(m, payload)
		if err != nil {
			t.Fatalf("EncodeBlob rejects parsed metadata: %v", err)
		}
		if !bytes.Equal(out, b) {
			t.Fatal("ParseBlob → EncodeBlob is not the identity")
		}
		if s, err := PayloadSectionStart(b, KindBlob); err != nil || s != uint64(len(b)-len(payload)) {
			t.Fatalf("PayloadSectionStart %d, %v", s, err)
		}
	})
}

func FuzzParseCache(f *testing.F) {
	seed, err := EncodeCache(&CacheMeta{Toolchain: "tc", Entries: []CacheEntry{{Kind: CacheShader, Key: "a", Offset: 1, Len: 2}, {Kind: CacheExpansion, Key: "b"}}}, []byte("xyz"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte("CNC\x00\x02\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		m, payload, err := ParseCache(b)
		if err != nil {
			checkErr(t, err)
			return
		}
		out, err := EncodeCache(m, payload)
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("ParseCache → EncodeCache is not the identity: %v", err)
		}
	})
}
