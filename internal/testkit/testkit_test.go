package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoRootHoldsGoMod(t *testing.T) {
	root := RepoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot %s: %v", root, err)
	}
	if filepath.Base(filepath.Dir(mustGetwd(t))) != "internal" {
		t.Fatalf("test runs outside internal/testkit")
	}
}

// An absent resource skips the test instead of failing it.
func TestSharedSkipsWhenAbsent(t *testing.T) {
	var skipped bool
	t.Run("absent", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Shared(t, "no-such-folder-in-shared")
		t.Error("Shared returned for an absent folder")
	})
	if !skipped {
		t.Fatal("Shared did not skip for an absent folder")
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
