package payload

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("dump differs from %s:\n%s", path, got)
	}
}

// The dumps of the quad fixtures (decoded from their bytes) are pinned.
func TestDumpGolden(t *testing.T) {
	q := quad()
	q.LODs = quadLODs()
	q.Heightfield = &Heightfield{Rows: 2, Cols: 2, Heights: []float32{0, 0.5, 1, 1.5}}
	m, err := Parse(mustEncode(t, q))
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := Dump(&sb, m); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "quad.golden.txt", sb.String())

	s := skinned()
	s.Morphs, _ = SparsifyMorphs([]string{"smile"}, [][]MorphDelta{{{}, {Position: [3]float32{0, 0.25, 0}}, {}, {}}}, 4)
	s.LODs = quadLODs()[:1]
	sm, err := DecodeSkinnedWithLODs(mustEncodeSkinned(t, s))
	if err != nil {
		t.Fatal(err)
	}
	sb.Reset()
	if err := DumpSkinned(&sb, sm); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "skinned_quad.golden.txt", sb.String())
}
