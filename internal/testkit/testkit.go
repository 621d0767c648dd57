// Package testkit finds what the tests of every package share: the module
// root and ../shared beside it (the corpus and tools/meshcheck.py). Each
// lookup skips the calling test with a clear message when the resource is
// absent, as on a user's machine. Only tests import it.
package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RepoRoot returns the module root: the nearest directory at or above the
// working directory (a test runs in its package's directory) that holds
// go.mod. It skips the test when there is none.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Skipf("no working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("repository root (go.mod) not found")
		}
		dir = parent
	}
}

// Shared returns ../shared/sub beside the repository root, skipping the
// test when it is absent (the shared corpus and tools exist only on project
// machines).
func Shared(t testing.TB, sub string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "..", "shared", sub)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not present (shared corpus/tools are only on project machines): %v", p, err)
	}
	return p
}

// Meshcheck returns the path of ../shared/tools/meshcheck.py, the
// independent reader of every output format, skipping the test when it or
// python3 is missing.
func Meshcheck(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found: skipping the independent meshcheck.py check")
	}
	return Shared(t, filepath.Join("tools", "meshcheck.py"))
}
