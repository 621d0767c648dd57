package testkit

import (
	"os"
	"path/filepath"
	"runtime"
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

// An absent resource skips the test instead of failing it, except under
// CI, where it fails: CI must never silently lose an independent check.
func TestSharedSkipsWhenAbsent(t *testing.T) {
	for _, ci := range []string{"", "1"} {
		t.Setenv("CI", ci)
		r := &recorder{}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Shared(r, "no-such-folder-in-shared")
			r.returned = true
		}()
		<-done
		switch {
		case r.returned:
			t.Errorf("CI=%q: Shared returned for an absent folder", ci)
		case ci == "" && !(r.skipped && !r.failed):
			t.Errorf("CI unset: skipped %v failed %v, want a skip", r.skipped, r.failed)
		case ci != "" && !(r.failed && !r.skipped):
			t.Errorf("CI=%q: skipped %v failed %v, want a failure", ci, r.skipped, r.failed)
		}
	}
}

// recorder is a testing.TB that records Fatalf and Skipf and stops its
// goroutine, as the real ones do.
type recorder struct {
	testing.TB
	failed, skipped, returned bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }
func (r *recorder) Skipf(string, ...any)  { r.skipped = true; runtime.Goexit() }
func (r *recorder) Skip(...any)           { r.skipped = true; runtime.Goexit() }

func mustGetwd(t *testing.T) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
