package cook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/meshcook/meshcook/formats/cnb"
)

// This file is the remote cache: a second level under the local cache
// (cache.go) that every machine of a build farm shares, spoken over Bazel's
// HTTP cache protocol (docs/build-integration.md "Remote cache"), so any
// server Bazel can use (nginx WebDAV, bazel-remote, ...) serves meshcook
// too.
//
// Entries: each local cache entry (kind, key) is one action-cache entry
// URL/ac/<A> holding a Bazel ActionResult (remote_execution.proto, proto3
// wire format) with exactly one output file, path "meshcook/<kind>/<key>",
// whose digest names a content-addressed blob URL/cas/<sha256> holding the
// entry's bytes. A = hex sha256 of "meshcook remote cache v1", kind and
// key, NUL-separated; the key itself already holds the toolchain. Entries
// of at most remoteInlineMax bytes (every dependency list, most job
// records) are also inlined in the ActionResult's OutputFile.contents,
// which saves a request; the blob is uploaded all the same, as Bazel
// servers that check action results expect their blobs to exist.
//
// Trust: nothing from the server is used before it is verified. The
// ActionResult must parse, name the expected path and a well-formed digest
// no larger than the cache cap; the blob (or inlined contents) must have
// exactly that size and sha256; a payload must decode as a job record
// (whose own xxh3 checksum covers it) naming only local output paths.
// Anything else is a miss: the job cooks locally and its result is
// uploaded again, over the bad entry.
//
// Failures never fail a cook: a request that fails in transport or with a
// 5xx is tried again (tries, with a short backoff); when it still fails, or
// the server refuses us (another 4xx than 404), the remote is "down" for
// the rest of the cook: no more requests, no uploads. Every problem is
// summed up in one warning at the end of the cook.
//
// Uploads happen when the cache flushes (after every job is done), blob
// first, then the ActionResult that names it, so a reader never sees an
// entry whose blob is not there yet. Blobs are always sent, even when the
// server has one of that name (a HEAD cannot tell an intact blob from a
// corrupt one, and a sent blob replaces a corrupt one). Results that came
// from the remote are not uploaded back.

// DefaultRemoteTimeout bounds one remote request, body included.
const DefaultRemoteTimeout = 10 * time.Second

// DefaultRemoteTries is how many times one remote request is tried.
const DefaultRemoteTries = 3

// maxActionResult bounds an action-cache entry read from the server.
const maxActionResult = 1 << 20

// remoteInlineMax is the largest entry also inlined in its ActionResult
// (OutputFile.contents), which saves a reader the blob request; most job
// records are a few KiB. Dependency lists are always inlined.
const remoteInlineMax = 256 << 10

// remoteUploaders is how many uploads run at once when the cache flushes.
const remoteUploaders = 4

// remoteKeyDomain prefixes every action-cache key meshcook computes.
const remoteKeyDomain = "meshcook remote cache v1"

// RemoteOptions configure a remote cache (OpenRemote).
type RemoteOptions struct {
	// URL is the server's base: entries live under URL/ac/ and URL/cas/.
	URL string
	// Header is sent with every request (e.g. Authorization).
	Header http.Header
	// Timeout bounds each request, its body included; <= 0 means
	// DefaultRemoteTimeout.
	Timeout time.Duration
	// Tries is how many times a request failing in transport or with a 5xx
	// is tried before the remote counts as down; <= 0 means
	// DefaultRemoteTries.
	Tries int
	// Backoff is the wait before the second try, doubled for each later
	// one; <= 0 means 100 ms.
	Backoff time.Duration
}

// Remote is a remote cache client. Attach it to a local cache with
// Cache.UseRemote; it is safe for concurrent use by Run's workers.
type Remote struct {
	base    string // URL without a trailing '/'
	header  http.Header
	client  *http.Client
	tries   int
	backoff time.Duration

	mu       sync.Mutex
	down     error  // first unrecoverable failure: no more requests
	ignored  int    // entries that failed verification
	firstBad string // the first of them, for the warning
	hits     int    // entries served
	uploaded int    // entries uploaded (ActionResults written)
	warned   bool
}

// OpenRemote checks the options and returns a client; it makes no request.
func OpenRemote(o RemoteOptions) (*Remote, error) {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("cook: remote cache %q: want an http:// or https:// URL", o.URL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("cook: remote cache %q: a query or fragment is not allowed", o.URL)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultRemoteTimeout
	}
	if o.Tries <= 0 {
		o.Tries = DefaultRemoteTries
	}
	if o.Backoff <= 0 {
		o.Backoff = 100 * time.Millisecond
	}
	// Keep a connection per concurrent lookup (serveHits) and uploader, so
	// parallel requests reuse them instead of dialling anew (the default
	// keeps 2 idle per host).
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConnsPerHost = max(lookupWorkers, remoteUploaders)
	return &Remote{
		base:    strings.TrimRight(o.URL, "/"),
		header:  o.Header.Clone(),
		client:  &http.Client{Timeout: o.Timeout, Transport: transport},
		tries:   o.Tries,
		backoff: o.Backoff,
	}, nil
}

// RemoteReport is what the remote cache did in one cook (Report.Remote).
type RemoteReport struct {
	URL string `json:"url"`
	// Jobs counts jobs whose result the server served.
	Jobs int `json:"jobs"`
	// Hits counts entries served by the server (a job served from the
	// remote uses two: its dependency list and its result).
	Hits int `json:"hits"`
	// Uploaded counts entries this cook wrote to the server.
	Uploaded int `json:"uploaded"`
	// Ignored counts entries that failed verification (the jobs cooked).
	Ignored int `json:"ignored"`
	// Down is the failure that stopped the remote for the rest of the
	// cook, "" when it never went down.
	Down string `json:"down,omitempty"`
}

func (r *Remote) report() *RemoteReport {
	r.mu.Lock()
	defer r.mu.Unlock()
	rep := &RemoteReport{URL: r.base, Hits: r.hits, Uploaded: r.uploaded, Ignored: r.ignored}
	if r.down != nil {
		rep.Down = r.down.Error()
	}
	return rep
}

// warning returns the one warning a cook prints about its remote ("" when
// nothing went wrong); it is returned once.
func (r *Remote) warning() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.warned || (r.down == nil && r.ignored == 0) {
		return ""
	}
	r.warned = true
	var parts []string
	if r.down != nil {
		parts = append(parts, fmt.Sprintf("not used after: %v (jobs cooked locally, nothing more uploaded)", r.down))
	}
	if r.ignored > 0 {
		parts = append(parts, fmt.Sprintf("%d entries failed verification and were cooked locally (one of them: %s)", r.ignored, r.firstBad))
	}
	return fmt.Sprintf("remote cache %s: %s", r.base, strings.Join(parts, "; "))
}

func (r *Remote) isDown() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.down != nil
}

func (r *Remote) setDown(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down == nil {
		r.down = err
	}
}

// reject counts an entry that failed verification; the warning names the
// least of them (jobs are looked up in parallel, so "the first" would
// depend on timing).
func (r *Remote) reject(what string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if msg := fmt.Sprintf("%s: %v", what, err); r.ignored == 0 || msg < r.firstBad {
		r.firstBad = msg
	}
	r.ignored++
}

// remoteACKey is the action-cache key of a local cache entry.
func remoteACKey(kind cnb.CacheEntryKind, key string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", remoteKeyDomain, kind, key)))
	return hex.EncodeToString(h[:])
}

// remotePath is the output file path an entry's ActionResult names.
func remotePath(kind cnb.CacheEntryKind, key string) string {
	name := "payload"
	if kind == cnb.CachePipeline {
		name = "pipeline"
	}
	return "meshcook/" + name + "/" + key
}

// errRemoteMiss is a clean miss (404).
var errRemoteMiss = errors.New("not found")

// fetch returns an entry's verified bytes, or false for a miss of any
// kind (absent, corrupt, server down). check, when set, must accept the
// bytes too (for a payload: checkRemoteRecord, whose decoded record the
// caller keeps, so a remote entry is decoded once).
func (r *Remote) fetch(kind cnb.CacheEntryKind, key string, maxBlob int64, check func([]byte) error) ([]byte, bool) {
	if r.isDown() {
		return nil, false
	}
	ac := remoteACKey(kind, key)
	arb, err := r.get("ac/"+ac, maxActionResult)
	if err != nil {
		return nil, false
	}
	f, err := decodeActionResult(arb)
	if err == nil {
		err = f.check(remotePath(kind, key), maxBlob)
	}
	if err != nil {
		r.reject("ac/"+ac, err)
		return nil, false
	}
	data := f.contents
	if !f.inline {
		data, err = r.get("cas/"+f.hash, f.size)
		if errors.Is(err, errRemoteMiss) {
			r.reject("cas/"+f.hash, errors.New("blob missing"))
			return nil, false
		}
		if err != nil {
			return nil, false
		}
	}
	if err := f.verify(data); err != nil {
		r.reject("cas/"+f.hash, err)
		return nil, false
	}
	if check != nil {
		if err := check(data); err != nil {
			r.reject("cas/"+f.hash, err)
			return nil, false
		}
	}
	r.mu.Lock()
	r.hits++
	r.mu.Unlock()
	return data, true
}

// checkRemoteRecord decodes a job record from the server and checks that
// every output it names stays inside the output folder (a local path:
// the server is shared, so its records are not trusted to name files).
func checkRemoteRecord(data []byte) (*jobResult, error) {
	rec, err := decodeRecord(data)
	if err != nil {
		return nil, err
	}
	for _, f := range rec.files {
		if f.name == "" || strings.Contains(f.name, `\`) || !filepath.IsLocal(filepath.FromSlash(f.name)) {
			return nil, fmt.Errorf("record names the output %q, which is not a local path", f.name)
		}
	}
	return rec, nil
}

// get reads URL/path; a body longer than limit is an error. A 404 is
// errRemoteMiss; transport errors and 5xx are retried; anything else that
// is not a 200, or a failure after every try, takes the remote down.
func (r *Remote) get(path string, limit int64) ([]byte, error) {
	var body []byte
	err := r.do(http.MethodGet, path, nil, func(resp *http.Response) error {
		// One allocation of the announced size when it is in bounds (a
		// blob's size is known from its digest), growing only past it.
		b := make([]byte, 0, 512)
		if n := resp.ContentLength; n >= 0 && n <= limit {
			b = make([]byte, 0, n+1)
		}
		for {
			if len(b) == cap(b) {
				b = append(b, 0)[:len(b)]
			}
			m, err := resp.Body.Read(b[len(b):min(cap(b), int(limit)+1)])
			b = b[:len(b)+m]
			if int64(len(b)) > limit {
				return &badEntryError{fmt.Errorf("more than %d bytes", limit)}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
		}
		body = b
		return nil
	})
	var be *badEntryError
	if errors.As(err, &be) {
		r.reject(path, be.err)
	}
	return body, err
}

// badEntryError is a response that arrived but cannot be the entry.
type badEntryError struct{ err error }

func (e *badEntryError) Error() string { return e.err.Error() }

// do runs one request with retries. read consumes a 200's body (nil for
// PUT). Retryable: transport errors (including timeouts and
// bodies cut short) and 5xx. A 404 returns errRemoteMiss without retrying.
func (r *Remote) do(method, path string, payload []byte, read func(*http.Response) error) error {
	var last error
	for try := 0; try < r.tries; try++ {
		if r.isDown() {
			return errors.New("remote cache down")
		}
		if try > 0 {
			time.Sleep(r.backoff << (try - 1))
		}
		retry, err := r.once(method, path, payload, read)
		if err == nil || errors.Is(err, errRemoteMiss) {
			return err
		}
		var be *badEntryError
		if errors.As(err, &be) {
			return err
		}
		last = err
		if !retry {
			break
		}
	}
	if r.tries > 1 {
		last = fmt.Errorf("%w (%d tries)", last, r.tries)
	}
	r.setDown(last)
	return last
}

func (r *Remote) once(method, path string, payload []byte, read func(*http.Response) error) (retry bool, err error) {
	ctx := context.Background()
	var body io.Reader
	switch {
	case payload == nil:
	case len(payload) == 0:
		body = http.NoBody
	default:
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+"/"+path, body)
	if err != nil {
		return false, err
	}
	for k, v := range r.header {
		req.Header[k] = slices.Clone(v)
	}
	if payload != nil {
		req.ContentLength = int64(len(payload))
		req.Header.Set("Content-Type", "application/octet-stream")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return true, fmt.Errorf("%s %s: %w", method, path, unwrapURLError(err))
	}
	defer func() {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // let the connection be reused
		resp.Body.Close()
	}()
	switch {
	case resp.StatusCode == http.StatusNotFound && method != http.MethodPut:
		return false, errRemoteMiss
	case resp.StatusCode >= 500:
		return true, fmt.Errorf("%s %s: %s", method, path, resp.Status)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return false, fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if read != nil && method == http.MethodGet {
		if err := read(resp); err != nil {
			var be *badEntryError
			if errors.As(err, &be) {
				return false, err
			}
			return true, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return false, nil
}

// unwrapURLError drops *url.Error's repetition of method and URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// remoteUpload is one entry to write.
type remoteUpload struct {
	kind cnb.CacheEntryKind
	key  string
	data []byte
}

// upload writes entries (blob, then ActionResult), remoteUploaders at a
// time; it stops early when the remote goes down.
func (r *Remote) upload(ups []remoteUpload) {
	next := make(chan remoteUpload)
	var wg sync.WaitGroup
	for range min(remoteUploaders, len(ups)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				if r.isDown() {
					continue
				}
				r.uploadOne(u)
			}
		}()
	}
	for _, u := range ups {
		next <- u
	}
	close(next)
	wg.Wait()
}

func (r *Remote) uploadOne(u remoteUpload) {
	sum := sha256.Sum256(u.data)
	f := remoteFile{path: remotePath(u.kind, u.key), hash: hex.EncodeToString(sum[:]), size: int64(len(u.data))}
	if u.kind == cnb.CachePipeline || len(u.data) <= remoteInlineMax {
		f.contents, f.inline = u.data, true
	}
	if err := r.do(http.MethodPut, "cas/"+f.hash, u.data, nil); err != nil {
		return
	}
	if err := r.do(http.MethodPut, "ac/"+remoteACKey(u.kind, u.key), encodeActionResult(f), nil); err != nil {
		return
	}
	r.mu.Lock()
	r.uploaded++
	r.mu.Unlock()
}

// remoteFile is the one OutputFile of a meshcook ActionResult.
type remoteFile struct {
	path     string
	hash     string // lowercase hex sha256
	size     int64
	contents []byte
	inline   bool // contents were present
}

// check validates the ActionResult's claims before anything is fetched.
func (f *remoteFile) check(wantPath string, maxBlob int64) error {
	if f.path != wantPath {
		return fmt.Errorf("output path %q, want %q", f.path, wantPath)
	}
	if len(f.hash) != 2*sha256.Size || strings.Trim(f.hash, "0123456789abcdef") != "" {
		return fmt.Errorf("digest %q is not a lowercase hex sha256", f.hash)
	}
	if f.size < 0 || f.size > maxBlob {
		return fmt.Errorf("digest size %d out of range [0, %d]", f.size, maxBlob)
	}
	return nil
}

// verify checks data against the digest.
func (f *remoteFile) verify(data []byte) error {
	if int64(len(data)) != f.size {
		return fmt.Errorf("%d bytes, digest says %d", len(data), f.size)
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != f.hash {
		return errors.New("sha256 does not match the digest")
	}
	return nil
}

// ActionResult, OutputFile and Digest field numbers
// (build.bazel.remote.execution.v2, remote_execution.proto).
const (
	arOutputFiles     = 2
	arOutputDirs      = 3
	arExitCode        = 4
	arOutputFileLinks = 10
	arOutputDirLinks  = 11
	arOutputSymlinks  = 12
	ofPath            = 1
	ofDigest          = 2
	ofContents        = 5
	digestHash        = 1
	digestSize        = 2
)

// encodeActionResult writes an ActionResult with f as its only output
// file and exit code 0 (the proto3 default, so not written).
func encodeActionResult(f remoteFile) []byte {
	var d []byte
	d = protowire.AppendTag(d, digestHash, protowire.BytesType)
	d = protowire.AppendString(d, f.hash)
	d = protowire.AppendTag(d, digestSize, protowire.VarintType)
	d = protowire.AppendVarint(d, uint64(f.size))
	var of []byte
	of = protowire.AppendTag(of, ofPath, protowire.BytesType)
	of = protowire.AppendString(of, f.path)
	of = protowire.AppendTag(of, ofDigest, protowire.BytesType)
	of = protowire.AppendBytes(of, d)
	if f.inline {
		of = protowire.AppendTag(of, ofContents, protowire.BytesType)
		of = protowire.AppendBytes(of, f.contents)
	}
	var ar []byte
	ar = protowire.AppendTag(ar, arOutputFiles, protowire.BytesType)
	ar = protowire.AppendBytes(ar, of)
	return ar
}

// decodeActionResult reads an ActionResult that must hold exactly one
// output file, no directories or symlinks, and exit code 0. Fields
// meshcook does not use (stdout, execution metadata) are skipped.
func decodeActionResult(b []byte) (remoteFile, error) {
	var f remoteFile
	files := 0
	err := protoFields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch num {
		case arOutputFiles:
			if typ != protowire.BytesType {
				return fmt.Errorf("output_files: wire type %d", typ)
			}
			files++
			var err error
			f, err = decodeOutputFile(v)
			return err
		case arExitCode:
			if typ != protowire.VarintType || x != 0 {
				return fmt.Errorf("exit code %d", int32(x))
			}
		case arOutputDirs, arOutputFileLinks, arOutputDirLinks, arOutputSymlinks:
			return fmt.Errorf("field %d: directories and symlinks are not meshcook's", num)
		}
		return nil
	})
	if err != nil {
		return f, fmt.Errorf("action result: %w", err)
	}
	if files != 1 {
		return f, fmt.Errorf("action result: %d output files, want 1", files)
	}
	return f, nil
}

func decodeOutputFile(b []byte) (remoteFile, error) {
	var f remoteFile
	err := protoFields(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		switch num {
		case ofPath:
			if typ != protowire.BytesType {
				return fmt.Errorf("output file path: wire type %d", typ)
			}
			f.path = string(v)
		case ofContents:
			if typ != protowire.BytesType {
				return fmt.Errorf("output file contents: wire type %d", typ)
			}
			f.contents, f.inline = v, true
		case ofDigest:
			if typ != protowire.BytesType {
				return fmt.Errorf("output file digest: wire type %d", typ)
			}
			return protoFields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
				switch {
				case num == digestHash && typ == protowire.BytesType:
					f.hash = string(v)
				case num == digestSize && typ == protowire.VarintType:
					f.size = int64(x)
				case num == digestHash || num == digestSize:
					return fmt.Errorf("digest field %d: wire type %d", num, typ)
				}
				return nil
			})
		}
		return nil
	})
	return f, err
}

// protoFields walks a message's fields: v is a length-delimited field's
// bytes, x a varint's value; other wire types are skipped.
func protoFields(b []byte, field func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("byte %d: %w", off, protowire.ParseError(n))
		}
		start := off + n
		m := protowire.ConsumeFieldValue(num, typ, b[start:])
		if m < 0 {
			return fmt.Errorf("byte %d: field %d: %w", start, num, protowire.ParseError(m))
		}
		var v []byte
		var x uint64
		switch typ {
		case protowire.BytesType:
			v, _ = protowire.ConsumeBytes(b[start:])
		case protowire.VarintType:
			x, _ = protowire.ConsumeVarint(b[start:])
		}
		if err := field(num, typ, v, x); err != nil {
			return err
		}
		off = start + m
	}
	return nil
}
