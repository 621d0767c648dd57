package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/davtest"
)

// Two machines (separate output folders and caches) through nginx WebDAV
// with `cook --remote-cache`: the second logs every asset as fetched and
// writes the first's bytes; --stats counts it.
func TestCookRemoteCacheTwoMachines(t *testing.T) {
	srv := davtest.Start(t)
	a, b := t.TempDir(), t.TempDir()
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", filepath.Join(a, "out"), "--remote-cache", srv.URL)
	require.Equal(t, ExitOK, code, stderr)
	assert.NotContains(t, stderr, "remote cache")

	code, stdout, stderr := run(t, "cook", samplesDir(t), "-o", filepath.Join(b, "out"), "--remote-cache", srv.URL+"/", "--stats")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, "fetched box (")
	assert.NotContains(t, stderr, "cooked ")
	assert.Contains(t, stdout, "remote cache:  4 jobs fetched, 0 entries uploaded, 0 ignored")
	assert.Equal(t, readTree(t, filepath.Join(a, "out")), readTree(t, filepath.Join(b, "out")))
}

// The remote cache from meshcook.json, with --remote-header: the server
// sees the header on every request; a flag overrides the project's URL.
func TestCookRemoteCacheFromProjectWithHeader(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	store := map[string][]byte{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		auth = append(auth, r.Header.Get("Authorization"))
		switch r.Method {
		case http.MethodPut:
			b := make([]byte, r.ContentLength)
			_, err := io.ReadFull(r.Body, b)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			store[r.URL.Path] = b
			w.WriteHeader(http.StatusCreated)
		default:
			b, ok := store[r.URL.Path]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Write(b)
		}
	}))
	defer srv.Close()

	src := copyTree(t, samplesDir(t))
	require.NoError(t, os.WriteFile(filepath.Join(src, "meshcook.json"),
		[]byte(`{"sources": ["**/*.gltf"], "remoteCache": "`+srv.URL+`"}`), 0o644))
	code, _, stderr := run(t, "cook", filepath.Join(src, "meshcook.json"), "-o", filepath.Join(t.TempDir(), "out"),
		"--remote-header", "Authorization=Bearer tok=en")
	require.Equal(t, ExitOK, code, stderr)
	mu.Lock()
	require.NotEmpty(t, auth)
	for _, a := range auth {
		assert.Equal(t, "Bearer tok=en", a)
	}
	n := len(auth)
	mu.Unlock()

	// --remote-cache on the command line wins over the project's.
	code, _, stderr = run(t, "cook", filepath.Join(src, "meshcook.json"), "-o", filepath.Join(t.TempDir(), "out"),
		"--remote-cache", "http://127.0.0.1:1", "--remote-timeout", "200ms")
	require.Equal(t, ExitOK, code, stderr)
	assert.Contains(t, stderr, "warning: remote cache http://127.0.0.1:1: not used after")
	assert.Equal(t, 1, strings.Count(stderr, "remote cache"), "one warning")
	mu.Lock()
	assert.Equal(t, n, len(auth), "the project's server was not asked")
	mu.Unlock()
}

// --check never talks to the remote; bad flag combinations are usage
// errors.
func TestCookRemoteCacheFlags(t *testing.T) {
	var requests int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := run(t, "cook", samplesDir(t), "-o", out, "-q", "--no-cache")
	require.Equal(t, ExitOK, code, stderr)
	code, _, stderr = run(t, "cook", samplesDir(t), "-o", out, "--check", "--remote-cache", srv.URL)
	require.Equal(t, ExitOK, code, stderr)
	mu.Lock()
	assert.Zero(t, requests, "a check neither reads nor uploads")
	mu.Unlock()

	for _, args := range [][]string{
		{"--remote-cache", srv.URL, "--no-cache"},
		{"--remote-cache", "ftp://x"},
		{"--remote-cache", srv.URL, "--remote-header", "no equals sign"},
	} {
		code, _, stderr := run(t, append([]string{"cook", samplesDir(t), "-o", out}, args...)...)
		assert.Equal(t, ExitUsage, code, "%v: %s", args, stderr)
	}
}
