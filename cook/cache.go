package cook

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/meshcook/meshcook/formats/cnb"
)

// This file is the incremental cache's store (docs/build-integration.md
// "Cache"): job results kept in .cnb cache segments (formats.md §3, magic
// "CNC\0") under one folder.
//
// Layout: DIR/<seq>.cnc, seq a zero-padded decimal that grows by one per
// segment written. Each cook that cooked something (a miss) writes one new
// segment holding what it cooked; a cook with only hits writes nothing.
// Two entry kinds are used:
//   - cnb.CachePipeline, key = hex xxh3-128 of the job's "base" (source
//     bytes, job names, options, toolchain): the list of the other files the
//     job read (mesh.Scene.Files), so a later cook knows which files to hash
//     before it can name the full key;
//   - cnb.CachePayload, key = hex xxh3-128 of the base and every listed
//     file's path and bytes: the job's encoded result (outputs, report,
//     warnings, world resources), see encodeRecord.
//
// Recency, eviction and compaction (deterministic): an entry's recency is
// its segment's seq, and inside a segment its position (earlier = more
// recent). A cook whose segments would pass the cap's bytes merges every
// live entry into one new segment: first the entries this cook used (hit
// or added), in job order, then the rest by recency; it keeps that order
// and drops the tail once the running payload size passes 3/4 of the cap
// (the least recently used go first). A cook that would leave more than
// maxSegments segments merges only those smaller than an eighth of the
// cache (with what it added), in the same order, so a cold build that adds
// a segment per asset does not rewrite the whole cache again and again.
// Segments that failed to parse or were written by another toolchain are
// removed by the next cook that writes.
//
// Concurrency: several cooks may share a folder (Ninja runs one per asset).
// A segment is written to a temp file and hard-linked to its final name,
// which fails when another cook took that seq (the next seq is tried), so
// segments are never overwritten; readers treat a segment that vanished
// (another cook compacted it away) as absent.

// CookVersion is part of every cache key: bump it when a change to cook or
// an algorithm package changes output bytes without changing a format
// version. (The executable's own hash is in the key too, see Toolchain.)
const CookVersion = 1

// DefaultCacheMax is the default cap on a cache folder's segment bytes.
const DefaultCacheMax = 2 << 30

// CacheDirName is the default cache folder's name, made beside the output
// folder: OUT/../.meshcook-cache.
const CacheDirName = ".meshcook-cache"

// maxSegments is how many segments a cook leaves before it compacts.
const maxSegments = 16

// segmentExt is the cache segment file extension.
const segmentExt = ".cnc"

// staleTempAge is how old a cache temp file must be before a cook removes
// it: younger ones may belong to a cook still running.
const staleTempAge = time.Hour

// DefaultCacheDir is the cache folder used for outputs under outDir.
func DefaultCacheDir(outDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(outDir)), CacheDirName)
}

// Cache is an open cache folder. It is safe for concurrent use by Run's
// workers; open one per cook with OpenCache.
type Cache struct {
	dir       string
	max       int64
	toolchain string

	mu       sync.Mutex
	segs     []*segment
	index    map[entryID]entryLoc
	used     map[entryID]int // entries hit or added by this cook → order of use
	added    map[entryID][]byte
	warnings []string
	flushed  bool

	remote     *Remote          // second level (remote.go), nil without one
	fromRemote map[entryID]bool // added entries the remote served: not uploaded back
}

type entryID struct {
	kind cnb.CacheEntryKind
	key  string
}

type entryLoc struct {
	seg int // index into segs
	ent int // index into segs[seg].meta.Entries
}

type segment struct {
	seq     uint64
	path    string
	payload []byte
	meta    *cnb.CacheMeta
	bad     bool   // did not parse, or another toolchain: removed at compaction
	release func() // unmaps the segment (mapFile)
}

// OpenCache reads every segment under dir (a missing folder is an empty
// cache). A segment that does not parse or validate is ignored with a
// warning (reported by Run) and removed at the next compaction; one written
// by another toolchain is ignored silently. maxBytes <= 0 means
// DefaultCacheMax. toolchain identifies the cooker (Toolchain()); it goes
// into every key and every segment's CacheMeta.
func OpenCache(dir string, maxBytes int64, toolchain string) (*Cache, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheMax
	}
	c := &Cache{dir: dir, max: maxBytes, toolchain: toolchain, index: map[entryID]entryLoc{},
		used: map[entryID]int{}, added: map[entryID][]byte{}}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache: %s: %w", dir, unwrapPathError(err))
	}
	for _, e := range ents {
		seq, ok := segmentSeq(e.Name())
		if !ok || e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		s := &segment{seq: seq, path: p, release: func() {}}
		b, release, err := mapFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // compacted away by another cook
		}
		if err == nil {
			s.release = release
		}
		if err == nil {
			s.meta, s.payload, err = cnb.ParseCache(b)
		}
		switch {
		case err != nil:
			s.bad = true
			c.warnings = append(c.warnings, fmt.Sprintf("cache: %s: ignored: %v", p, err))
		case s.meta.Toolchain != toolchain:
			s.bad = true
		}
		c.segs = append(c.segs, s)
	}
	// Newest first, so the first segment holding a key wins.
	slices.SortFunc(c.segs, func(a, b *segment) int { return cmp.Compare(b.seq, a.seq) })
	for si, s := range c.segs {
		if s.bad {
			continue
		}
		for ei, e := range s.meta.Entries {
			id := entryID{e.Kind, e.Key}
			if _, ok := c.index[id]; !ok {
				c.index[id] = entryLoc{si, ei}
			}
		}
	}
	return c, nil
}

// segmentSeq parses "<digits>.cnc".
func segmentSeq(name string) (uint64, bool) {
	digits, ok := strings.CutSuffix(name, segmentExt)
	if !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, false
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	return v, err == nil
}

// Dir is the cache folder.
func (c *Cache) Dir() string { return c.dir }

// UseRemote makes r the cache's second level: a local miss asks r, what r
// serves is kept locally too, and Flush uploads what this cook cooked.
func (c *Cache) UseRemote(r *Remote) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remote = r
	c.fromRemote = map[entryID]bool{}
}

// get returns an entry's bytes (aliasing the segment) and marks it used.
func (c *Cache) get(kind cnb.CacheEntryKind, key string, order int) ([]byte, bool) {
	b, ok, _ := c.getFrom(kind, key, order, nil)
	return b, ok
}

// getFrom is get; remote reports that the remote cache served the entry
// (which is then staged for the local cache as if it had been cooked).
// check, when set, must accept what the remote serves (Remote.fetch).
func (c *Cache) getFrom(kind cnb.CacheEntryKind, key string, order int, check func([]byte) error) (b []byte, ok, remote bool) {
	c.mu.Lock()
	id := entryID{kind, key}
	b, ok = c.lookupLocked(id)
	if _, staged := c.added[id]; ok && !staged {
		if _, seen := c.used[id]; !seen {
			c.used[id] = order
		}
	}
	r := c.remote
	c.mu.Unlock()
	if ok || r == nil {
		return b, ok, false
	}
	b, ok = r.fetch(kind, key, c.max, check)
	if !ok {
		return nil, false, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.added[id] = b
	c.fromRemote[id] = true
	c.used[id] = order
	return b, true, true
}

// put stages an entry for the segment Flush writes (and the remote).
func (c *Cache) put(kind cnb.CacheEntryKind, key string, b []byte, order int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	id := entryID{kind, key}
	c.added[id] = b
	c.used[id] = order
	delete(c.fromRemote, id)
}

// warn records a warning Run reports.
func (c *Cache) warn(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

// release unmaps every segment; the cache must not be used afterwards.
// Entries handed out by get (and records decoded from them) must not be
// used either.
func (c *Cache) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.segs {
		s.release()
		s.release = func() {}
		s.payload, s.meta, s.bad = nil, nil, true
	}
	c.index = map[entryID]entryLoc{}
}

// takeWarnings returns and clears the warnings gathered so far, sorted:
// jobs are looked up in parallel (serveHits), so the order they were
// gathered in is not deterministic.
func (c *Cache) takeWarnings() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := c.warnings
	c.warnings = nil
	slices.Sort(w)
	return w
}

// liveEntry is one entry in eviction order.
type liveEntry struct {
	id   entryID
	data []byte
}

// Flush writes what this cook added as one new segment, then compacts when
// the folder holds more than maxSegments segments or more bytes than the
// cap. A cook with nothing added and nothing to compact writes nothing.
// Errors are returned as warnings: a cache that cannot be written costs
// time, never correctness.
func (c *Cache) Flush() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flushed {
		return nil
	}
	c.flushed = true
	c.removeStaleTemps()
	var total int64
	good := 0
	for _, s := range c.segs {
		if !s.bad {
			total += int64(len(s.payload))
			good++
		}
	}
	var added int64
	for _, b := range c.added {
		added += int64(len(b))
	}
	var bad []*segment
	for _, s := range c.segs {
		if s.bad {
			bad = append(bad, s)
		}
	}
	switch {
	case total+added > c.max:
		// Full compaction: evict down to 3/4 of the cap, so the next few
		// cooks do not each rewrite the whole cache.
		c.compact(c.segs, c.max/4*3)
	case len(c.segs)+min(len(c.added), 1) > maxSegments || (len(c.added) > 0 && len(bad) > 0):
		// Minor compaction: merge the segments smaller than an eighth of
		// the cache (and the bad ones) with what this cook added; big
		// segments stay, so merging costs about the size of what is new.
		var merge []*segment
		for _, s := range c.segs {
			if s.bad || int64(len(s.payload)) < total/8 {
				merge = append(merge, s)
			}
		}
		c.compact(merge, math.MaxInt64)
	case len(c.added) > 0:
		ids := make([]entryID, 0, len(c.added))
		for id := range c.added {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, compareID)
		ents := make([]liveEntry, len(ids))
		for i, id := range ids {
			ents[i] = liveEntry{id, c.added[id]}
		}
		if _, err := c.writeSegment(ents); err != nil {
			c.warnings = append(c.warnings, fmt.Sprintf("cache: %s: not written: %v", c.dir, err))
		}
	}
	c.uploadLocked()
	w := c.warnings
	c.warnings = nil
	return w
}

// uploadLocked sends what this cook cooked to the remote, in key order,
// and adds the remote's one warning (if it had problems).
func (c *Cache) uploadLocked() {
	if c.remote == nil {
		return
	}
	var ups []remoteUpload
	for id, b := range c.added {
		if !c.fromRemote[id] {
			ups = append(ups, remoteUpload{id.kind, id.key, b})
		}
	}
	slices.SortFunc(ups, func(a, b remoteUpload) int { return compareID(entryID{a.kind, a.key}, entryID{b.kind, b.key}) })
	c.remote.upload(ups)
	if w := c.remote.warning(); w != "" {
		c.warnings = append(c.warnings, w)
	}
}

// RemoteReport is what the remote did in this cook (nil without one).
func (c *Cache) RemoteReport() *RemoteReport {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.remote == nil {
		return nil
	}
	return c.remote.report()
}

func compareID(a, b entryID) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), strings.Compare(a.key, b.key))
}

// compact merges the live entries of the merge segments and the entries
// this cook added into one new segment, in eviction order (see the file
// comment), keeps the longest prefix within limit bytes, and removes the
// merged segments. Entries in other segments stay where they are.
func (c *Cache) compact(merge []*segment, limit int64) {
	merging := map[*segment]bool{}
	for _, s := range merge {
		merging[s] = true
	}
	// where reports whether an entry's current copy is being merged.
	where := func(id entryID) ([]byte, bool) {
		if b, ok := c.added[id]; ok {
			return b, true
		}
		loc, ok := c.index[id]
		if !ok || !merging[c.segs[loc.seg]] {
			return nil, false
		}
		return c.lookupLocked(id)
	}
	var order []liveEntry
	seen := map[entryID]bool{}
	// 1. entries this cook used, in order of use (job order; ties by id)
	usedIDs := make([]entryID, 0, len(c.used))
	for id := range c.used {
		usedIDs = append(usedIDs, id)
	}
	slices.SortFunc(usedIDs, func(a, b entryID) int {
		return cmp.Or(cmp.Compare(c.used[a], c.used[b]), compareID(a, b))
	})
	for _, id := range usedIDs {
		if b, ok := where(id); ok {
			order = append(order, liveEntry{id, b})
			seen[id] = true
		}
	}
	// 2. the rest by recency: newest segment first, earlier entries first
	for _, s := range c.segs {
		if s.bad || !merging[s] {
			continue
		}
		for _, e := range s.meta.Entries {
			id := entryID{e.Kind, e.Key}
			if seen[id] {
				continue
			}
			seen[id] = true
			if loc := c.index[id]; c.segs[loc.seg] != s {
				continue // a newer copy lives in a segment that stays
			}
			order = append(order, liveEntry{id, s.payload[e.Offset : e.Offset+e.Len]})
		}
	}
	var size int64
	keep := 0
	for _, e := range order {
		if size+int64(len(e.data)) > limit {
			break
		}
		size += int64(len(e.data))
		keep++
	}
	if keep > 0 {
		if _, err := c.writeSegment(order[:keep]); err != nil {
			c.warnings = append(c.warnings, fmt.Sprintf("cache: %s: compaction not written: %v", c.dir, err))
			return
		}
	}
	for _, s := range merge {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			c.warnings = append(c.warnings, fmt.Sprintf("cache: %s: %v", s.path, unwrapPathError(err)))
		}
	}
}

func (c *Cache) lookupLocked(id entryID) ([]byte, bool) {
	if b, ok := c.added[id]; ok {
		return b, true
	}
	loc, ok := c.index[id]
	if !ok {
		return nil, false
	}
	s := c.segs[loc.seg]
	e := s.meta.Entries[loc.ent]
	return s.payload[e.Offset : e.Offset+e.Len], true
}

// writeSegment encodes ents as one segment and links it under the next
// free seq.
func (c *Cache) writeSegment(ents []liveEntry) (string, error) {
	meta := &cnb.CacheMeta{Toolchain: c.toolchain, Entries: make([]cnb.CacheEntry, 0, len(ents))}
	n := uint64(0)
	for _, e := range ents {
		meta.Entries = append(meta.Entries, cnb.CacheEntry{Kind: e.id.kind, Key: e.id.key, Offset: n, Len: uint64(len(e.data))})
		n += uint64(len(e.data))
	}
	prefix, err := cnb.EncodeCachePrefix(meta, n)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(c.dir, ".segment.tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	// The entries are written where they lie (no image is assembled in
	// memory), and not fsynced: a segment torn by a crash fails ParseCache
	// or its entries' checksums and is ignored with a warning, so
	// durability would only cost time on every cook that adds one.
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.Write(prefix)
	for _, e := range ents {
		w.Write(e.data)
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return "", err
	}
	seq := uint64(0)
	for _, s := range c.segs {
		seq = max(seq, s.seq)
	}
	if ents, err := os.ReadDir(c.dir); err == nil {
		for _, e := range ents {
			if v, ok := segmentSeq(e.Name()); ok {
				seq = max(seq, v)
			}
		}
	}
	for range 1000 {
		seq++
		final := filepath.Join(c.dir, fmt.Sprintf("%012d%s", seq, segmentExt))
		err := os.Link(tmp.Name(), final)
		if err == nil {
			return final, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", errors.New("no free segment name")
}

// removeStaleTemps removes segment temp files a killed cook left, once
// they are older than staleTempAge.
func (c *Cache) removeStaleTemps() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), ".segment.tmp-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > staleTempAge {
			os.Remove(filepath.Join(c.dir, e.Name()))
		}
	}
}

// stats returns the number of live entries and their bytes (for tests).
func (c *Cache) stats() (entries int, size int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, loc := range c.index {
		s := c.segs[loc.seg]
		entries++
		size += int64(s.meta.Entries[loc.ent].Len)
	}
	return entries, size
}
