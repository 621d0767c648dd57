package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

// validate and inspect read baked packs (zstd frames, found by extension).
func TestValidateInspectMeshPack(t *testing.T) {
	out := filepath.Join(t.TempDir(), "buildings.smpk")
	if code, _, stderr := run(t, "bake", filepath.Join(testkit.RepoRoot(t), "testdata", "catalog", "buildings.json"), "-o", out); code != ExitOK {
		t.Fatalf("bake: exit %d: %s", code, stderr)
	}
	if code, stdout, _ := run(t, "validate", out); code != ExitOK || !strings.Contains(stdout, "meshpack") {
		t.Fatalf("validate: exit %d: %s", code, stdout)
	}
	code, stdout, _ := run(t, "inspect", out, "--json")
	var s struct {
		Family  string
		Entries []struct {
			Name      string
			Triangles int
		}
	}
	if code != ExitOK || json.Unmarshal([]byte(stdout), &s) != nil || s.Family != "static" || len(s.Entries) == 0 {
		t.Fatalf("inspect --json: exit %d: %s", code, stdout)
	}
	for _, e := range s.Entries {
		if !strings.Contains(e.Name, "/") || e.Triangles == 0 {
			t.Errorf("entry %+v: want <name>/<state> with triangles", e)
		}
	}
	// A truncated pack is bad input.
	trunc := writeFile(t, t.TempDir(), "bad.smpk", "SMPK\x01\x00\x00\x00")
	if code, _, _ := run(t, "validate", trunc); code != ExitBadInput {
		t.Errorf("truncated pack: exit %d, want %d", code, ExitBadInput)
	}
}
