package cli

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pprofStrings reads a pprof file (gzipped protobuf) and returns its
// decompressed bytes, whose string table names the sample types.
func pprofStrings(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err, "%s is not a gzipped pprof profile", path)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.NotEmpty(t, b)
	return b
}

func TestProfileFlagsWriteProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", filepath.Join(dir, "out"), "--no-cache", "-q", "--cpuprofile", cpu, "--memprofile", mem)
	require.Equal(t, ExitOK, code, stderr)
	c := pprofStrings(t, cpu)
	assert.True(t, bytes.Contains(c, []byte("samples")) && bytes.Contains(c, []byte("nanoseconds")), "CPU profile names its sample types")
	m := pprofStrings(t, mem)
	for _, s := range []string{"alloc_space", "inuse_space"} {
		assert.True(t, bytes.Contains(m, []byte(s)), "heap profile has %s", s)
	}
}

func TestProfileFlagsKeepProfileOfFailedCommand(t *testing.T) {
	dir := t.TempDir()
	cpu := filepath.Join(dir, "cpu.pprof")
	code, _, _ := run(t, "cook", filepath.Join(dir, "missing.gltf"), "-o", filepath.Join(dir, "out"), "--no-cache", "-q", "--cpuprofile", cpu)
	require.NotEqual(t, ExitOK, code)
	pprofStrings(t, cpu) // written and complete although the cook failed
}

func TestProfileFlagsUnwritablePath(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "no-such-folder", "cpu.pprof")
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", filepath.Join(dir, "out"), "--no-cache", "-q", "--cpuprofile", bad)
	assert.Equal(t, ExitOutput, code)
	assert.Contains(t, stderr, "--cpuprofile")
	assert.Contains(t, stderr, "no-such-folder")
	assert.NoDirExists(t, filepath.Join(dir, "out"), "no cook runs when the profile cannot be opened")
}
