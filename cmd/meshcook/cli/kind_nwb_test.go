package cli

import (
	"strings"
	"testing"
)

// validate checks authored .nwb sources against the language's asset rules;
// inspect lists their assets.
func TestValidateInspectNWB(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "tri.nwb", "mesh asset;\r\nasset.positions = [[0, 0, 0], [1, 0, 0], [0, 1, 0]];\r\n"+
		"asset.normals = [[0, 0, 1]];\r\nasset.tangents = [[1, 0, 0, 1]];\r\nasset.uv0 = [[0, 0]];\r\n"+
		"asset.colors = [[1, 1, 1, 1]];\r\nasset.vertex_refs = [[0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [2, 0, 0, 0, 0]];\r\n"+
		"asset.indices = [[0, 1, 2]];\r\n")
	if code, stdout, _ := run(t, "validate", good); code != ExitOK || !strings.Contains(stdout, "nwb") {
		t.Fatalf("validate good: exit %d: %s", code, stdout)
	}
	if code, stdout, _ := run(t, "inspect", good); code != ExitOK || !strings.Contains(stdout, "mesh asset") {
		t.Errorf("inspect: exit %d: %s", code, stdout)
	}
	bad := writeFile(t, dir, "bad.nwb", "mesh asset;\nasset.positions = [[0, 0, 0]];\nasset.wobble = 3;\n")
	code, stdout, _ := run(t, "validate", bad)
	if code != ExitBadInput || !strings.Contains(stdout, "bad.nwb") {
		t.Errorf("validate bad: exit %d: %s", code, stdout)
	}
}
