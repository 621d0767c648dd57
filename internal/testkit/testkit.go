// Package testkit finds what the tests of every package share: the module
// root and ../shared beside it (the corpus and tools/meshcheck.py). Each
// lookup skips the calling test with a clear message when the resource is
// absent, as on a user's machine, and fails it under CI (env CI set), so
// CI never silently loses its independent checks. Only tests import it.
package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Missing reports a resource a test needs and cannot find: the test fails
// when the CI environment variable is set, and is skipped otherwise.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("under CI: "+format, args...)
	}
	t.Skipf(format, args...)
}

// RepoRoot returns the module root: the nearest directory at or above the
// working directory (a test runs in its package's directory) that holds
// go.mod. It skips the test when there is none.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		Missing(t, "no working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			Missing(t, "repository root (go.mod) not found")
		}
		dir = parent
	}
}

// Shared returns ../shared/sub beside the repository root, skipping the
// test when it is absent (the shared corpus and tools exist only on project
// machines), failing it under CI.
func Shared(t testing.TB, sub string) string {
	t.Helper()
	p := filepath.Join(RepoRoot(t), "..", "shared", sub)
	if _, err := os.Stat(p); err != nil {
		Missing(t, "%s not present (shared corpus/tools are only on project machines): %v", p, err)
	}
	return p
}

// Meshcheck returns the path of ../shared/tools/meshcheck.py, the
// independent reader of every output format, skipping the test when it or
// python3 is missing (failing it under CI).
func Meshcheck(t testing.TB) string {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		Missing(t, "python3 not found: the independent meshcheck.py check cannot run")
	}
	return Shared(t, filepath.Join("tools", "meshcheck.py"))
}
