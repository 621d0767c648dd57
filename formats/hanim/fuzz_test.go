package hanim

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode: no input panics or allocates past its size; whatever decodes
// re-encodes to the same bytes (the format has one encoding per content).
func FuzzDecode(f *testing.F) {
	if text, err := os.ReadFile(filepath.Join("testdata", "sample.hanim.hex")); err == nil {
		if b, err := hex.DecodeString(strings.ReplaceAll(string(text), "\n", "")); err == nil {
			f.Add(b)
			f.Add(b[:len(b)/2])
		}
	}
	if b, err := Encode(nil); err == nil {
		f.Add(b)
	}
	f.Add([]byte("HANM\x01\x00\x00\x00\xff\xff\xff\xff\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		clips, err := Decode(b)
		if err != nil {
			return
		}
		again, err := Encode(clips)
		if err != nil {
			t.Fatalf("decoded clips do not encode: %v", err)
		}
		if !bytes.Equal(again, b) {
			t.Fatal("re-encoding differs from the input")
		}
	})
}
