package cook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/internal/davtest"
)

// machine is one build machine of a farm: its own output folder and local
// cache.
type machine struct{ out, cache string }

func newMachine(t *testing.T) machine {
	d := t.TempDir()
	return machine{filepath.Join(d, "out"), filepath.Join(d, "cache")}
}

// cookOn cooks jobs on m with the remote at url (the default timeout, a
// short backoff); edit, when set, changes the options (JobDone hooks).
func cookOn(t *testing.T, m machine, url string, jobs []Job, edit func(*Options)) *Report {
	t.Helper()
	c, err := OpenCache(m.cache, 0, Toolchain())
	require.NoError(t, err)
	r, err := OpenRemote(RemoteOptions{URL: url, Backoff: 10 * time.Millisecond})
	require.NoError(t, err)
	c.UseRemote(r)
	opts := DefaultOptions()
	opts.OutDir, opts.Cache, opts.Jobs = m.out, c, 2
	if edit != nil {
		edit(&opts)
	}
	rep, err := Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	require.Empty(t, rep.Errors)
	require.NotNil(t, rep.Remote)
	return rep
}

// readTree maps every file under dir to its bytes.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = string(b)
		return err
	}))
	return m
}

// remoteWarnings returns the warnings about the remote cache.
func remoteWarnings(rep *Report) []string {
	var out []string
	for _, w := range rep.Warnings {
		if strings.HasPrefix(w, "remote cache ") {
			out = append(out, w)
		}
	}
	return out
}

// cookedWithoutCache is what a plain cook of jobs writes: the bytes every
// cook through a remote must write.
func cookedWithoutCache(t *testing.T, jobs []Job) map[string]string {
	t.Helper()
	opts := DefaultOptions()
	opts.OutDir = filepath.Join(t.TempDir(), "out")
	_, err := Run(context.Background(), jobs, opts)
	require.NoError(t, err)
	return readTree(t, opts.OutDir)
}

func sampleJobs(t *testing.T) []Job {
	jobs, err := Plan([]string{samplesDir()})
	require.NoError(t, err)
	require.NotEmpty(t, jobs)
	return jobs
}

// Two machines with separate local caches and output folders share nginx
// WebDAV: the first cooks and uploads, the second is all remote hits and
// writes the same bytes, and its next cook is all local hits without a
// single request.
func TestRemoteTwoMachinesNginx(t *testing.T) {
	srv := davtest.Start(t)
	jobs := sampleJobs(t)
	a, b := newMachine(t), newMachine(t)

	ra := cookOn(t, a, srv.URL, jobs, nil)
	assert.Equal(t, len(jobs), ra.CacheMisses)
	assert.Equal(t, 0, ra.Remote.Jobs)
	assert.Equal(t, 2*len(jobs), ra.Remote.Uploaded, "a pipeline and a payload entry per job")
	assert.Empty(t, remoteWarnings(ra))

	rb := cookOn(t, b, srv.URL, jobs, nil)
	assert.Equal(t, len(jobs), rb.CacheHits)
	assert.Equal(t, len(jobs), rb.Remote.Jobs, "every job from the remote")
	assert.Equal(t, 0, rb.Remote.Uploaded, "nothing cooked, nothing uploaded")
	assert.Empty(t, remoteWarnings(rb))
	assert.Equal(t, readTree(t, a.out), readTree(t, b.out))
	assert.Equal(t, ra.Warnings, rb.Warnings, "the cached warnings come along")

	before := srv.Log()
	rb2 := cookOn(t, b, srv.URL, jobs, nil)
	assert.Equal(t, len(jobs), rb2.CacheHits)
	assert.Equal(t, 0, rb2.Remote.Jobs, "the remote hits went into the local cache")
	assert.Equal(t, before, srv.Log(), "no request for local hits")

	// Every entry is where Bazel's protocol puts it: ac/ and cas/ with
	// sha256 names, and every blob's name is its sha256.
	blobs, err := os.ReadDir(filepath.Join(srv.Root, "cas"))
	require.NoError(t, err)
	require.NotEmpty(t, blobs)
	for _, e := range blobs {
		data, err := os.ReadFile(filepath.Join(srv.Root, "cas", e.Name()))
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		assert.Equal(t, hex.EncodeToString(sum[:]), e.Name())
	}
	acs, err := os.ReadDir(filepath.Join(srv.Root, "ac"))
	require.NoError(t, err)
	assert.Len(t, acs, 2*len(jobs))
}

// nginx killed in the middle of a cook (after the first job): the cook
// finishes locally with the same bytes and one warning, both when reading
// (a warm remote) and when it would upload (a cold one).
func TestRemoteServerKilledMidCookNginx(t *testing.T) {
	jobs := sampleJobs(t)
	want := cookedWithoutCache(t, jobs)

	killAfterFirst := func(srv *davtest.Server) func(*Options) {
		return func(o *Options) {
			o.Jobs = 1
			o.JobDone = func(s JobStatus) {
				if s.Job == jobs[0] {
					srv.Kill()
				}
			}
		}
	}

	// killAt puts a proxy in front of nginx that kills it when the n-th
	// request arrives (the proxy then answers 502). Jobs are looked up in
	// parallel, so which jobs were served by then varies: every job is
	// served or cooked, never failed or wrong.
	killAt := func(t *testing.T, n int64) {
		srv := davtest.Start(t)
		cookOn(t, newMachine(t), srv.URL, jobs, nil)
		var seen atomic.Int64
		target, err := url.Parse(srv.URL)
		require.NoError(t, err)
		proxy := httputil.NewSingleHostReverseProxy(target)
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if seen.Add(1) == n {
				srv.Kill()
			}
			proxy.ServeHTTP(w, r)
		}))
		defer front.Close()
		m := newMachine(t)
		rep := cookOn(t, m, front.URL, jobs, nil)
		assert.Less(t, rep.Remote.Jobs, len(jobs))
		assert.Equal(t, len(jobs), rep.Remote.Jobs+rep.CacheMisses, "every job served or cooked")
		assert.NotEmpty(t, rep.Remote.Down)
		assert.Len(t, remoteWarnings(rep), 1)
		assert.Equal(t, want, readTree(t, m.out))
	}
	t.Run("warm, killed at the first request", func(t *testing.T) { killAt(t, 1) })
	t.Run("warm, killed in the middle of the lookups", func(t *testing.T) { killAt(t, 4) })
	t.Run("cold", func(t *testing.T) {
		srv := davtest.Start(t)
		m := newMachine(t)
		rep := cookOn(t, m, srv.URL, jobs, killAfterFirst(srv))
		assert.Equal(t, len(jobs), rep.CacheMisses)
		assert.Equal(t, 0, rep.Remote.Uploaded)
		assert.NotEmpty(t, rep.Remote.Down)
		assert.Len(t, remoteWarnings(rep), 1)
		assert.Equal(t, want, readTree(t, m.out))
		// The local cache was still written: the next cook is all hits.
		rep = cookOn(t, m, srv.URL, jobs, nil)
		assert.Equal(t, len(jobs), rep.CacheHits)
	})
}

// Entries corrupted on the server (blobs with a flipped byte, an action
// result replaced by garbage, one truncated, the others with their last
// byte flipped) are never used: the second
// machine cooks those jobs, writes the right bytes, warns once, and
// uploads its results over the bad entries, so a third machine is all
// remote hits again.
func TestRemoteCorruptEntriesNginx(t *testing.T) {
	srv := davtest.Start(t)
	jobs := sampleJobs(t)
	a := newMachine(t)
	cookOn(t, a, srv.URL, jobs, nil)
	want := readTree(t, a.out)

	blobs, err := os.ReadDir(filepath.Join(srv.Root, "cas"))
	require.NoError(t, err)
	for _, e := range blobs {
		p := filepath.Join(srv.Root, "cas", e.Name())
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		if len(b) > 0 {
			b[len(b)/2] ^= 0x40
		}
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	acs, err := os.ReadDir(filepath.Join(srv.Root, "ac"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(srv.Root, "ac", acs[0].Name()), []byte("not a protobuf \xff\xff\xff"), 0o644))
	b1, err := os.ReadFile(filepath.Join(srv.Root, "ac", acs[1].Name()))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(srv.Root, "ac", acs[1].Name()), b1[:len(b1)/2], 0o644))
	// The last byte of an action result is in its inlined contents or its
	// digest's size: either way the entry no longer verifies.
	for _, e := range acs[2:] {
		p := filepath.Join(srv.Root, "ac", e.Name())
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		b[len(b)-1] ^= 0x01
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}

	b := newMachine(t)
	rb := cookOn(t, b, srv.URL, jobs, nil)
	assert.Equal(t, want, readTree(t, b.out))
	assert.Greater(t, rb.Remote.Ignored, 0)
	assert.Zero(t, rb.Remote.Jobs, "no corrupt entry is a hit")
	assert.Empty(t, rb.Remote.Down, "corruption is not an outage")
	require.Len(t, remoteWarnings(rb), 1)
	assert.Contains(t, remoteWarnings(rb)[0], "failed verification")

	c := newMachine(t)
	rc := cookOn(t, c, srv.URL, jobs, nil)
	assert.Equal(t, len(jobs), rc.Remote.Jobs, "the re-uploads healed the server")
	assert.Zero(t, rc.Remote.Ignored)
	assert.Equal(t, want, readTree(t, c.out))
}

// faultServer is an in-memory Bazel HTTP cache whose answers a test can
// spoil: mode picks the fault for every request from then on.
type faultServer struct {
	*httptest.Server
	mu       sync.Mutex
	store    map[string][]byte
	mode     atomic.Value // string
	requests atomic.Int64
	header   string // required Authorization value, "" for none
}

func newFaultServer(t *testing.T) *faultServer {
	f := &faultServer{store: map[string][]byte{}}
	f.mode.Store("ok")
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *faultServer) serve(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if f.header != "" && r.Header.Get("Authorization") != f.header {
		http.Error(w, "no", http.StatusUnauthorized)
		return
	}
	switch f.mode.Load().(string) {
	case "slow":
		time.Sleep(300 * time.Millisecond)
	case "500":
		http.Error(w, "boom", http.StatusInternalServerError)
		return
	case "garbage":
		if r.Method == http.MethodGet {
			w.Write(bytes.Repeat([]byte{0x12, 0x7f}, 300))
			return
		}
	case "cut":
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Length", "100000")
			w.WriteHeader(http.StatusOK)
			w.Write([]byte{0x12, 0x05})
			hj, _ := w.(http.Hijacker)
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
			}
			return
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method {
	case http.MethodPut:
		b, _ := io.ReadAll(r.Body)
		f.store[r.URL.Path] = b
		w.WriteHeader(http.StatusCreated)
	case http.MethodGet, http.MethodHead:
		b, ok := f.store[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	default:
		http.Error(w, "method", http.StatusMethodNotAllowed)
	}
}

// Every fault a server can have costs a warning, never a failed job or a
// wrong byte, and a server that went down gets no further requests than
// the tries of the request that found it down.
func TestRemoteFaults(t *testing.T) {
	jobs := sampleJobs(t)
	want := cookedWithoutCache(t, jobs)

	for _, tc := range []struct {
		mode string
		down bool // the remote is given up (else entries are ignored)
	}{
		{"slow", true},
		{"500", true},
		{"garbage", false},
		{"cut", true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			f := newFaultServer(t)
			cookOn(t, newMachine(t), f.URL, jobs, nil) // fill it
			f.mode.Store(tc.mode)
			f.requests.Store(0)
			m := newMachine(t)
			c, err := OpenCache(m.cache, 0, Toolchain())
			require.NoError(t, err)
			r, err := OpenRemote(RemoteOptions{URL: f.URL, Timeout: 100 * time.Millisecond, Tries: 2, Backoff: time.Millisecond})
			require.NoError(t, err)
			c.UseRemote(r)
			o := DefaultOptions()
			o.OutDir, o.Cache, o.Jobs = m.out, c, 1
			rep, err := Run(context.Background(), jobs, o)
			require.NoError(t, err)
			assert.Empty(t, rep.Errors)
			assert.Equal(t, want, readTree(t, m.out))
			assert.Len(t, remoteWarnings(rep), 1)
			assert.Zero(t, rep.Remote.Jobs)
			if tc.down {
				assert.NotEmpty(t, rep.Remote.Down)
				// Jobs are looked up lookupWorkers at a time: each lookup in
				// flight may try its request twice before it sees the remote down.
				assert.LessOrEqual(t, f.requests.Load(), int64(2*min(lookupWorkers, len(jobs))), "no request after the remote went down (lookups in flight, two tries)")
			} else {
				assert.Empty(t, rep.Remote.Down)
				assert.Equal(t, len(jobs), rep.Remote.Ignored, "one bad pipeline entry per job")
			}
		})
	}
}

// --remote-header reaches the server: without the right Authorization the
// server refuses (401), the remote is down after one request and the cook
// still succeeds; with it, entries go up and come back.
func TestRemoteHeaderAuth(t *testing.T) {
	jobs := sampleJobs(t)
	f := newFaultServer(t)
	f.header = "Bearer s3cret"

	rep := cookOn(t, newMachine(t), f.URL, jobs, func(o *Options) { o.Jobs = 1 })
	assert.Contains(t, rep.Remote.Down, "401")
	assert.LessOrEqual(t, f.requests.Load(), int64(min(lookupWorkers, len(jobs))), "a 401 is not retried, and ends the lookups (those in flight excepted)")
	assert.Len(t, remoteWarnings(rep), 1)

	withAuth := func(m machine) *Report {
		c, err := OpenCache(m.cache, 0, Toolchain())
		require.NoError(t, err)
		r, err := OpenRemote(RemoteOptions{URL: f.URL, Header: http.Header{"Authorization": {"Bearer s3cret"}}})
		require.NoError(t, err)
		c.UseRemote(r)
		o := DefaultOptions()
		o.OutDir, o.Cache = m.out, c
		rep, err := Run(context.Background(), jobs, o)
		require.NoError(t, err)
		return rep
	}
	assert.Equal(t, 2*len(jobs), withAuth(newMachine(t)).Remote.Uploaded)
	assert.Equal(t, len(jobs), withAuth(newMachine(t)).Remote.Jobs)
}

// The ActionResult meshcook writes, byte for byte (written out by hand
// from remote_execution.proto's field numbers), and read back.
func TestActionResultFrozenBytes(t *testing.T) {
	hash := strings.Repeat("ab", 32)
	f := remoteFile{path: "meshcook/pipeline/k", hash: hash, size: 3, contents: []byte("a\nb"), inline: true}
	got := encodeActionResult(f)
	digest := append(append([]byte{0x0a, 64}, hash...), 0x10, 3)
	of := append([]byte{0x0a, 19}, "meshcook/pipeline/k"...)
	of = append(of, 0x12, byte(len(digest)))
	of = append(of, digest...)
	of = append(of, 0x2a, 3, 'a', '\n', 'b')
	want := append([]byte{0x12, byte(len(of))}, of...)
	assert.Equal(t, want, got)

	back, err := decodeActionResult(got)
	require.NoError(t, err)
	assert.Equal(t, f, back)
	require.NoError(t, back.check("meshcook/pipeline/k", 10))
	assert.Error(t, back.verify([]byte("a\nb")), "the digest is not the contents' sha256")
}

// Invalid action results: each is refused with an error, none panics.
func TestActionResultInvalid(t *testing.T) {
	good := encodeActionResult(remoteFile{path: "meshcook/payload/k", hash: strings.Repeat("0", 64), size: 1})
	file := func(fields ...[]byte) []byte {
		return protowire.AppendBytes(protowire.AppendTag(nil, arOutputFiles, protowire.BytesType), bytes.Join(fields, nil))
	}
	for name, b := range map[string][]byte{
		"truncated":        good[:len(good)-1],
		"two files":        append(append([]byte{}, good...), good...),
		"no file":          {},
		"exit code 1":      append(append([]byte{}, good...), 0x20, 1),
		"output directory": append(append([]byte{}, good...), 0x1a, 0),
		"symlink":          append(append([]byte{}, good...), 0x62, 0),
		"path as varint":   file([]byte{0x08, 1}),
		"bad tag":          {0x00},
		"overlong length":  {0x12, 0xff, 0xff, 0xff, 0x0f},
	} {
		_, err := decodeActionResult(b)
		assert.Error(t, err, name)
	}
	f, err := decodeActionResult(good)
	require.NoError(t, err)
	assert.Error(t, f.check("meshcook/payload/other", 10), "another entry's result")
	assert.Error(t, f.check("meshcook/payload/k", 0), "larger than the cap")
	f.hash = strings.Repeat("G", 64)
	assert.Error(t, f.check("meshcook/payload/k", 10), "not hex")
}

func FuzzDecodeActionResult(f *testing.F) {
	f.Add(encodeActionResult(remoteFile{path: "meshcook/payload/k", hash: strings.Repeat("0", 64), size: 1}))
	f.Add(encodeActionResult(remoteFile{path: "p", hash: "h", size: 5, contents: []byte("hello"), inline: true}))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeActionResult(b)
		if err != nil {
			return
		}
		// What decodes re-encodes to something that decodes the same.
		again, err := decodeActionResult(encodeActionResult(r))
		if err != nil || again.path != r.path || again.hash != r.hash || again.size != r.size || !bytes.Equal(again.contents, r.contents) {
			t.Fatalf("re-encoding changed %+v into %+v (%v)", r, again, err)
		}
	})
}

// A check cook never reads or writes the remote.
func TestRemoteNotUsedByCheck(t *testing.T) {
	jobs := sampleJobs(t)
	f := newFaultServer(t)
	m := newMachine(t)
	c, err := OpenCache(m.cache, 0, Toolchain())
	require.NoError(t, err)
	r, err := OpenRemote(RemoteOptions{URL: f.URL})
	require.NoError(t, err)
	c.UseRemote(r)
	o := DefaultOptions()
	o.OutDir, o.Cache, o.Check = m.out, c, true
	_, err = Run(context.Background(), jobs, o)
	require.NoError(t, err)
	assert.Zero(t, f.requests.Load())
}

func TestOpenRemoteRefusesBadURLs(t *testing.T) {
	for _, u := range []string{"", "ftp://x/", "127.0.0.1:9", "http://", "http://h/?q=1"} {
		_, err := OpenRemote(RemoteOptions{URL: u})
		assert.Error(t, err, u)
	}
	r, err := OpenRemote(RemoteOptions{URL: "http://127.0.0.1:9/prefix/"})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9/prefix", r.base)
}

// remoteACKey depends on the entry kind and key only, and is a sha256.
func TestRemoteACKey(t *testing.T) {
	a := remoteACKey(cnb.CachePayload, "k")
	assert.Len(t, a, 64)
	assert.NotEqual(t, a, remoteACKey(cnb.CachePipeline, "k"))
	assert.NotEqual(t, a, remoteACKey(cnb.CachePayload, "k2"))
	assert.Equal(t, a, remoteACKey(cnb.CachePayload, "k"))
}

// A dry run reports every output without writing one, and fills the
// cache, so the real cook after it is all hits.
func TestDryRunWritesOnlyTheCache(t *testing.T) {
	jobs := sampleJobs(t)
	m := newMachine(t)
	c, err := OpenCache(m.cache, 0, Toolchain())
	require.NoError(t, err)
	o := DefaultOptions()
	o.OutDir, o.Cache, o.DryRun = m.out, c, true
	rep, err := Run(context.Background(), jobs, o)
	require.NoError(t, err)
	assert.NotEmpty(t, rep.Outputs)
	assert.Zero(t, rep.BytesWritten)
	assert.NoDirExists(t, m.out)

	c, err = OpenCache(m.cache, 0, Toolchain())
	require.NoError(t, err)
	o.Cache, o.DryRun = c, false
	rep2, err := Run(context.Background(), jobs, o)
	require.NoError(t, err)
	assert.Equal(t, len(jobs), rep2.CacheHits)
	var names []string
	for _, out := range rep.Outputs {
		names = append(names, out.Name)
	}
	var written []string
	for name := range readTree(t, m.out) {
		written = append(written, name)
	}
	assert.ElementsMatch(t, written, names)
}

// A record from the server may only name outputs inside the output
// folder: one naming ../x or an absolute path is refused.
func TestRemoteRecordNamesStayLocal(t *testing.T) {
	for name, ok := range map[string]bool{"box.hmesh": true, "models/chair/wood.ktx2": true,
		"../evil.hmesh": false, "/etc/x": false, "a/../../b": false, `a\..\b`: false, "": false} {
		b, err := encodeRecord(&jobResult{files: []outputFile{{name: name, kind: "hmesh", data: []byte("x")}}})
		require.NoError(t, err)
		_, err = checkRemoteRecord(b)
		if ok {
			assert.NoError(t, err, name)
		} else {
			assert.Error(t, err, name)
		}
	}
}
