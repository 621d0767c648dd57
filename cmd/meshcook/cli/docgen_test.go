package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md from the command tree")

// docs/cli.md is generated from the command tree and must stay current.
func TestCLIDocs(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(testkit.RepoRoot(t), "docs", "cli.md")
	if *updateDocs {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("docs/cli.md is stale (run go test ./cmd/meshcook/cli -run TestCLIDocs -update): %v", err)
	}
}
