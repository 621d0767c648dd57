package nwb

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: Parse never panics; when a file parses and validates, its
// written form parses back to a document that writes identically; and
// Refresh either fails cleanly or yields a file that parses and is
// canonical (refreshing it again changes nothing).
func FuzzParse(f *testing.F) {
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".nwb" {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	for _, s := range []string{
		"mesh a;\na.positions = [[0, 0, 0]];",
		"x a = { \"k\": [1, -2.5e3, (3)], };\na.k += 4;",
		"x a = \"unterminated",
		"/* open",
		"x a = [[[[[[1]]]]]];",
		"x a; a.b.c /= 0;",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 1<<16 {
			return
		}
		file, err := Parse(src, "fuzz.nwb")
		if err != nil {
			return
		}
		if doc, err := file.Document(""); err == nil {
			b, err := Marshal(doc)
			if err != nil {
				return // unrepresentable strings are refused, not written
			}
			doc2, err := ParseDocument(b, "fuzz.nwb", "")
			if err != nil {
				t.Fatalf("written document does not parse: %v\n%s", err, b)
			}
			b2, err := Marshal(doc2)
			if err != nil || !bytes.Equal(b, b2) {
				t.Fatalf("write→parse→write differs (%v):\n%s\n---\n%s", err, b, b2)
			}
		}
		out, _, err := Refresh(src, "fuzz.nwb", RefreshOptions{})
		if err != nil {
			return
		}
		if _, err := Parse(out, "fuzz.nwb"); err != nil {
			t.Fatalf("refresh output does not parse: %v\n%s", err, out)
		}
	})
}
