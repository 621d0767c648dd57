package fbx

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzOptions keep hostile inputs small: a fuzzer's file can claim big
// arrays and deep trees, and these limits bound what it can make us do.
var fuzzOptions = Options{MaxDepth: 32, MaxNodes: 1 << 14, MaxArrayBytes: 1 << 20, MaxTotalArrayBytes: 4 << 20, MaxCorners: 1 << 16}

// addCorpusSeeds adds the small corpus files of one kind.
func addCorpusSeeds(f *testing.F, binary bool) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	for _, sub := range []string{"fbx/ufbx_maya_cube", "edge/fbx_broken"} {
		files, _ := filepath.Glob(filepath.Join(dir, sub, "*.fbx"))
		for _, p := range files {
			data, err := os.ReadFile(p)
			if err != nil || len(data) > 64<<10 || IsBinary(data) != binary {
				continue
			}
			f.Add(data)
		}
	}
}

// checkScene runs the whole import and checks the output contracts.
func checkScene(t *testing.T, data []byte) {
	sc, err := Decode(data, "fuzz.fbx", fuzzOptions)
	if err != nil {
		return
	}
	for i := range sc.Submeshes {
		if err := sc.Submeshes[i].Validate(); err != nil {
			t.Fatalf("accepted an invalid submesh: %v", err)
		}
	}
}

func FuzzParseBinary(f *testing.F) {
	f.Add(writeBinary(7400, quadScene(7400, nil), false))
	f.Add(writeBinary(7500, quadScene(7500, nil), true))
	f.Add(writeBinary(7500, skinScene(7500), true))
	f.Add(writeBinary(6100, sample(), false))
	addCorpusSeeds(f, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScene(t, data)
	})
}

func FuzzParseASCII(f *testing.F) {
	f.Add(writeASCII(7500, quadScene(7500, nil)))
	f.Add(writeASCII(7500, skinScene(7500)))
	f.Add([]byte("A: *2 { a: 1,2 }\nB: 1,\n 2\nC: , \"x\" {\n}\n"))
	addCorpusSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkScene(t, data)
	})
}
