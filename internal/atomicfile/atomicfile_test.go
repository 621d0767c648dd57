package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Write creates folders, replaces the old bytes and leaves no temp file.
func TestWriteReplacesAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "out.bin")
	for _, data := range []string{"first", "second, longer"} {
		if err := Write(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only out.bin", len(entries))
	}
}

// An unchanged file is not rewritten: its mtime stays.
func TestWriteIfChangedKeepsMtime(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	if changed, err := WriteIfChanged(p, []byte("same")); err != nil || !changed {
		t.Fatalf("first write: changed %v, %v", changed, err)
	}
	old := time.Unix(1_000_000_000, 0)
	os.Chtimes(p, old, old)
	if changed, err := WriteIfChanged(p, []byte("same")); err != nil || changed {
		t.Fatalf("second write: changed %v, %v", changed, err)
	}
	if st, _ := os.Stat(p); !st.ModTime().Equal(old) {
		t.Errorf("mtime moved to %v", st.ModTime())
	}
	if changed, _ := WriteIfChanged(p, []byte("different")); !changed {
		t.Error("a different payload was not written")
	}
}

// A path under a regular file fails with an error, not a panic.
func TestWriteUnderFileFails(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	if err := Write(filepath.Join(f, "out"), []byte("y")); err == nil {
		t.Error("writing below a regular file succeeded")
	}
}
