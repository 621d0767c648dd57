package meshpack

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata fixtures from the encoder")

// hexLines writes b as lowercase hex, 16 bytes per line.
func hexLines(b []byte) []byte {
	var s strings.Builder
	for i := 0; i < len(b); i += 16 {
		s.WriteString(hex.EncodeToString(b[i:min(i+16, len(b))]))
		s.WriteByte('\n')
	}
	return []byte(s.String())
}

// The raw bytes of samplePack and of a rigged pack are frozen: a change to
// the layout shows up here first.
func TestFrozenFixtures(t *testing.T) {
	rig, _ := Encode(&Pack{Family: Rigged, Entries: []Entry{rigTri("humanoid/0/3/troops/roman/swordsman")}})
	static, _ := Encode(samplePack())
	for name, b := range map[string][]byte{"two_tris.smpk.hex": static, "tri.rmpk.hex": rig} {
		p := filepath.Join("testdata", name)
		if *update {
			if err := os.WriteFile(p, hexLines(b), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(hexLines(b), want) {
			t.Errorf("%s: encoder output changed (go test ./formats/meshpack -update if intended)", name)
		}
		raw, _ := hex.DecodeString(strings.ReplaceAll(string(want), "\n", ""))
		if _, err := Decode(raw); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
