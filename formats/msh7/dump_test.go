package msh7

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The quads' text dumps match their golden files (refresh with -update).
func TestDumpGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		in   Input
	}{
		{"quad.golden.txt", staticQuad()},
		{"skinned_quad.golden.txt", skinnedQuad()},
	} {
		var got bytes.Buffer
		if err := Dump(&got, mustBuild(t, tc.in)); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tc.file)
		if *update {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s differs (run go test -update if intended):\n%s", tc.file, got.String())
		}
	}
}

// Dump shows what the skin must keep: -0 and joint 65535.
func TestDumpShowsSkinBits(t *testing.T) {
	var b bytes.Buffer
	if err := Dump(&b, mustBuild(t, skinnedQuad())); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"weights=[1 -0 0 0]", "joints=[1 65535 0 0]", "skin base=0 width=1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("dump lacks %q", want)
		}
	}
}

func TestStats(t *testing.T) {
	f := mustBuild(t, stripInput(300))
	s := f.Stats()
	if s.Meshlets != len(f.Meshlets) || s.Widths[ChanPosition][WidthU16] != 1 || s.Widths[ChanSkin] != [3]int{} {
		t.Fatalf("stats %+v", s)
	}
	if s.Widths[ChanNormal][WidthU8] != s.Meshlets {
		t.Fatalf("normal widths %v for %d meshlets", s.Widths[ChanNormal], s.Meshlets)
	}
}
