package samplegen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/samples from the generator")

// The committed samples are exactly what the generator writes, so they can
// be regenerated and reviewed (go test ./internal/samplegen -update).
func TestSamplesMatchGenerator(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "samples")
	if *update {
		if err := Write(dir); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range Files() {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("%s: %v (run go test ./internal/samplegen -update)", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator (run go test ./internal/samplegen -update)", name)
		}
	}
}

// Generation is deterministic: two calls give the same bytes.
func TestFilesDeterministic(t *testing.T) {
	a, b := Files(), Files()
	for name := range a {
		if !bytes.Equal(a[name], b[name]) {
			t.Errorf("%s differs between two generations", name)
		}
	}
}
