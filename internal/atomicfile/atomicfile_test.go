package atomicfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Write creates folders, replaces the old bytes and leaves no temp file.
func TestWriteReplacesAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "out.bin")
	for _, data := range []string{"first", "second, longer"} {
		if err := Write(p, []byte(data)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != data {
			t.Fatalf("read %q, %v; want %q", got, err, data)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("folder holds %d entries, want only out.bin", len(entries))
	}
}

// An unchanged file is not rewritten: its mtime stays.
func TestWriteIfChangedKeepsMtime(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	if changed, err := WriteIfChanged(p, []byte("same")); err != nil || !changed {
		t.Fatalf("first write: changed %v, %v", changed, err)
	}
	old := time.Unix(1_000_000_000, 0)
	os.Chtimes(p, old, old)
	if changed, err := WriteIfChanged(p, []byte("same")); err != nil || changed {
		t.Fatalf("second write: changed %v, %v", changed, err)
	}
	if st, _ := os.Stat(p); !st.ModTime().Equal(old) {
		t.Errorf("mtime moved to %v", st.ModTime())
	}
	if changed, _ := WriteIfChanged(p, []byte("different")); !changed {
		t.Error("a different payload was not written")
	}
}

// A path under a regular file fails with an error, not a panic.
func TestWriteUnderFileFails(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, []byte("x"), 0o644)
	if err := Write(filepath.Join(f, "out"), []byte("y")); err == nil {
		t.Error("writing below a regular file succeeded")
	}
}

// A batch replaces nothing until Commit, and Abort leaves the old files
// and no temp behind.
func TestBatchAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.bin"), []byte("old a"), 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	b := NewBatch(root)
	require.NoError(t, b.Add("a.bin", []byte("new a")))
	require.NoError(t, b.Add("sub/b.bin", []byte("new b")))
	got, _ := os.ReadFile(filepath.Join(dir, "a.bin"))
	assert.Equal(t, "old a", string(got), "nothing replaced before Commit")
	// A name that cannot be written fails Add; Abort drops the rest.
	require.Error(t, b.Add("a.bin/under-a-file", []byte("x")))
	b.Abort()
	got, _ = os.ReadFile(filepath.Join(dir, "a.bin"))
	assert.Equal(t, "old a", string(got))
	assert.Equal(t, []string{"a.bin", "sub"}, names(t, dir))
	assert.Empty(t, names(t, filepath.Join(dir, "sub")))

	b = NewBatch(root)
	require.NoError(t, b.Add("a.bin", []byte("new a")))
	require.NoError(t, b.Add("sub/b.bin", []byte("new b")))
	require.NoError(t, b.Commit())
	got, _ = os.ReadFile(filepath.Join(dir, "a.bin"))
	assert.Equal(t, "new a", string(got))
	got, _ = os.ReadFile(filepath.Join(dir, "sub", "b.bin"))
	assert.Equal(t, "new b", string(got))
	assert.Equal(t, []string{"a.bin", "sub"}, names(t, dir))
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// E4: writes never follow a link out of the output folder, neither a
// folder link on the way nor a file link at the name (which is replaced,
// not written through).
func TestBatchRefusesLinksOut(t *testing.T) {
	top := t.TempDir()
	out, outside := filepath.Join(top, "out"), filepath.Join(top, "outside")
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "victim.bin"), []byte("keep"), 0o644))
	if err := os.Symlink(outside, filepath.Join(out, "linkdir")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	require.NoError(t, os.Symlink(filepath.Join(outside, "victim.bin"), filepath.Join(out, "file.bin")))
	root, err := os.OpenRoot(out)
	require.NoError(t, err)
	defer root.Close()
	b := NewBatch(root)
	assert.Error(t, b.Add("linkdir/victim.bin", []byte("evil")))
	assert.Error(t, b.Add("linkdir/new/x.bin", []byte("evil")))
	require.NoError(t, b.Add("file.bin", []byte("mine")))
	require.NoError(t, b.Commit())
	got, _ := os.ReadFile(filepath.Join(outside, "victim.bin"))
	assert.Equal(t, "keep", string(got))
	assert.Equal(t, []string{"victim.bin"}, names(t, outside))
	st, err := os.Lstat(filepath.Join(out, "file.bin"))
	require.NoError(t, err)
	assert.True(t, st.Mode().IsRegular(), "the link was replaced by the file")
}

// Temp names are unique per process and write; RemoveStale removes the
// temps of gone writers and legacy ones, never a live writer's.
func TestTempNamesAndStale(t *testing.T) {
	a, b := tempName(hostTag(), "x.hmesh"), tempName(hostTag(), "x.hmesh")
	assert.NotEqual(t, a, b)
	assert.Equal(t, "x.hmesh", Target(a))
	assert.Equal(t, "", Target("x.hmesh"))
	assert.Equal(t, "", Target(".x.hmesh.tmp-zz"))

	dir := t.TempDir()
	host := hostTag()
	// a child that has exited: its pid is free (or reused: then its temp stays, which is safe)
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a child: %v", err)
	}
	dead := cmd.ProcessState.Pid()
	files := map[string]bool{ // name → removed
		".x.hmesh.tmp-123456":                                   true, // legacy
		fmt.Sprintf(".x.hmesh.tmp-%s-%d-1", host, dead):         !processAlive(dead),
		fmt.Sprintf(".x.hmesh.tmp-%s-%d-2", host, os.Getpid()):  false, // this process: in flight
		fmt.Sprintf(".x.hmesh.tmp-%s-%d-3", host, os.Getppid()): false, // alive
		fmt.Sprintf(".x.hmesh.tmp-%s-%d-4", "0badc0de", dead):   false, // another host's
		".y.hmesh.tmp-99": false, // not wanted
		"x.hmesh":         false,
	}
	for n := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
	}
	RemoveStale(dir, func(target string) bool { return target == "x.hmesh" })
	for n, removed := range files {
		_, err := os.Stat(filepath.Join(dir, n))
		assert.Equal(t, removed, err != nil, n)
	}
}

// CommitAll commits each batch on its own terms: a batch with a folder at
// one of its names replaces nothing, reports it and leaves no temp; the
// others land whole.
func TestCommitAllKeepsBatchesApart(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "taken", "x"), 0o755))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	ok1, bad, ok2 := NewBatch(root), NewBatch(root), NewBatch(root)
	require.NoError(t, ok1.Add("one/a.bin", []byte("a")))
	require.NoError(t, ok1.Add("one/b.bin", []byte("b")))
	require.NoError(t, bad.Add("bad/c.bin", []byte("c")))
	require.NoError(t, bad.Add("taken", []byte("not a folder")))
	require.NoError(t, ok2.Add("two/d.bin", []byte("d")))
	errs := CommitAll([]*Batch{ok1, bad, ok2})
	require.Len(t, errs, 3)
	assert.NoError(t, errs[0])
	assert.ErrorContains(t, errs[1], "taken")
	assert.NoError(t, errs[2])
	for name, want := range map[string]string{"one/a.bin": "a", "one/b.bin": "b", "two/d.bin": "d"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err, name)
		assert.Equal(t, want, string(got), name)
	}
	assert.Equal(t, []string{"a.bin", "b.bin"}, names(t, filepath.Join(dir, "one")))
	assert.Empty(t, names(t, filepath.Join(dir, "bad")), "nothing of the failed batch renamed; no temp left")
	assert.Equal(t, []string{"x"}, names(t, filepath.Join(dir, "taken")))
	assert.Equal(t, []string{"bad", "one", "taken", "two"}, names(t, dir))
	// A committed batch is empty: committing it again does nothing.
	assert.NoError(t, ok1.Commit())
}

// Add leaves the temp at mode 0644 whatever the umask, and Commit keeps it.
func TestBatchMode(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, Write(filepath.Join(dir, "m.bin"), []byte("x")))
	st, err := os.Stat(filepath.Join(dir, "m.bin"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}
