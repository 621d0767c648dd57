package cook

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/internal/atomicfile"
)

// copySamples copies testdata/samples into a fresh folder.
func copySamples(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "src")
	err := filepath.WalkDir(samplesDir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(samplesDir(), p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// treeState maps each file under dir to its bytes and mtime.
type fileState struct {
	data  []byte
	mtime time.Time
}

func treeState(t testing.TB, dir string) map[string]fileState {
	t.Helper()
	m := map[string]fileState{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = fileState{b, info.ModTime()}
		return nil
	})
	return m
}

// cookWith plans src and runs one cook into out with the cache at cacheDir
// ("" for none).
func cookWith(t testing.TB, src, out, cacheDir string, edit func(*Options)) *Report {
	t.Helper()
	jobs, err := Plan([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.OutDir = out
	if cacheDir != "" {
		c, err := OpenCache(cacheDir, 0, "test-toolchain")
		if err != nil {
			t.Fatal(err)
		}
		opts.Cache = c
	}
	if edit != nil {
		edit(&opts)
	}
	rep, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) > 0 {
		t.Fatalf("cook errors: %v", rep.Errors)
	}
	return rep
}

func changedNames(rep *Report) []string {
	var out []string
	for _, o := range rep.Outputs {
		if o.Changed {
			out = append(out, o.Name)
		}
	}
	sort.Strings(out)
	return out
}

// A warm cook of an unchanged tree is all hits and writes nothing: no
// output and no cache file changes bytes or mtime, and no file appears.
func TestCacheWarmCookWritesNothing(t *testing.T) {
	src := copySamples(t)
	out := filepath.Join(t.TempDir(), "out")
	cacheDir := DefaultCacheDir(out)
	cold := cookWith(t, src, out, cacheDir, nil)
	if cold.CacheMisses != 4 || cold.CacheHits != 0 || cold.BytesWritten == 0 {
		t.Fatalf("cold cook: %d hits, %d misses, %d bytes written", cold.CacheHits, cold.CacheMisses, cold.BytesWritten)
	}
	outBefore, cacheBefore := treeState(t, out), treeState(t, cacheDir)
	if len(cacheBefore) != 1 {
		t.Fatalf("cache after one cook holds %d files, want one segment", len(cacheBefore))
	}
	time.Sleep(10 * time.Millisecond) // so a rewrite would show in mtimes
	warm := cookWith(t, src, out, cacheDir, nil)
	if warm.CacheHits != 4 || warm.CacheMisses != 0 || warm.BytesWritten != 0 || len(changedNames(warm)) != 0 {
		t.Fatalf("warm cook: %d hits, %d misses, %d bytes written, changed %v", warm.CacheHits, warm.CacheMisses, warm.BytesWritten, changedNames(warm))
	}
	if !reflect.DeepEqual(outBefore, treeState(t, out)) {
		t.Error("warm cook changed the output folder")
	}
	if !reflect.DeepEqual(cacheBefore, treeState(t, cacheDir)) {
		t.Error("warm cook changed the cache folder")
	}
	// The report of a hit equals the report of the cook.
	if !reflect.DeepEqual(cold.Meshes, warm.Meshes) || !reflect.DeepEqual(cold.Warnings, warm.Warnings) {
		t.Errorf("warm report differs:\n%+v\n%+v\nwarnings %q vs %q", cold.Meshes, warm.Meshes, cold.Warnings, warm.Warnings)
	}
	// Deleted outputs come back from the cache, byte for byte.
	os.RemoveAll(out)
	again := cookWith(t, src, out, cacheDir, nil)
	if again.CacheHits != 4 {
		t.Errorf("cook after deleting outputs: %d hits", again.CacheHits)
	}
	for name, st := range outBefore {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.Equal(b, st.data) {
			t.Errorf("%s: not restored from the cache (%v)", name, err)
		}
	}
}

// Changing one byte of a referenced external buffer, or one pixel of a
// referenced texture, re-cooks exactly the job that reads it.
func TestCacheRecooksExactlyDependents(t *testing.T) {
	src := copySamples(t)
	out := filepath.Join(t.TempDir(), "out")
	cacheDir := filepath.Join(t.TempDir(), "cache")
	cookWith(t, src, out, cacheDir, nil)

	// box.bin: the lowest byte of the first position's x.
	bin := filepath.Join(src, "box.bin")
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 1
	writeFile(t, bin, b)
	rep := cookWith(t, src, out, cacheDir, nil)
	if rep.CacheMisses != 1 || rep.CacheHits != 3 {
		t.Errorf("after editing box.bin: %d hits, %d misses; want 3, 1", rep.CacheHits, rep.CacheMisses)
	}
	if got := changedNames(rep); !reflect.DeepEqual(got, []string{"box.hmesh"}) {
		t.Errorf("after editing box.bin the changed outputs are %v, want [box.hmesh]", got)
	}

	// checker.png: one pixel, re-encoded as a valid PNG.
	pngPath := filepath.Join(src, "checker.png")
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	rgba := image.NewNRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			rgba.Set(x, y, img.At(x, y))
		}
	}
	rgba.Pix[0] ^= 0x10
	writePNG(t, pngPath, rgba)
	rep = cookWith(t, src, out, cacheDir, nil)
	if rep.CacheMisses != 1 || rep.CacheHits != 3 {
		t.Errorf("after editing checker.png: %d hits, %d misses; want 3, 1", rep.CacheHits, rep.CacheMisses)
	}
	if got := changedNames(rep); !reflect.DeepEqual(got, []string{"box/checker.ktx2"}) {
		t.Errorf("after editing checker.png the changed outputs are %v, want [box/checker.ktx2]", got)
	}
	// The depfile inputs of box's outputs name both files.
	for _, o := range rep.Outputs {
		if strings.HasPrefix(o.Name, "box") {
			want := []string{filepath.Join(src, "box.gltf"), filepath.Join(src, "box.bin"), filepath.Join(src, "checker.png")}
			if !reflect.DeepEqual(o.Inputs, want) {
				t.Errorf("%s inputs %q, want %q", o.Name, o.Inputs, want)
			}
		}
	}
	// Options are part of the key: another meshlet size misses everywhere.
	rep = cookWith(t, src, out, cacheDir, func(o *Options) { o.Meshlet.MaxTriangles = 64 })
	if rep.CacheHits != 0 || rep.CacheMisses != 4 {
		t.Errorf("new options: %d hits, %d misses", rep.CacheHits, rep.CacheMisses)
	}
}

// Outputs are byte-identical for every worker count, with every target.
func TestDeterministicAcrossJobs(t *testing.T) {
	src := copySamples(t)
	var first map[string]fileState
	for _, j := range []int{1, 2, 8} {
		out := filepath.Join(t.TempDir(), "out")
		cookWith(t, src, out, "", func(o *Options) {
			o.Jobs = j
			o.Targets = KnownTargets()
		})
		st := treeState(t, out)
		for k, v := range st {
			st[k] = fileState{data: v.data}
		}
		if first == nil {
			first = st
			continue
		}
		if !reflect.DeepEqual(first, st) {
			t.Errorf("-j %d: outputs differ from -j 1", j)
		}
	}
	if len(first) < 10 {
		t.Errorf("only %d outputs", len(first))
	}
}

// A corrupt segment is ignored with a warning; the cook still succeeds and
// the next flush replaces it.
func TestCacheCorruptSegmentIgnored(t *testing.T) {
	src := copySamples(t)
	out := filepath.Join(t.TempDir(), "out")
	cacheDir := filepath.Join(t.TempDir(), "cache")
	cookWith(t, src, out, cacheDir, nil)
	segs, _ := filepath.Glob(filepath.Join(cacheDir, "*.cnc"))
	if len(segs) != 1 {
		t.Fatalf("segments %v", segs)
	}
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { return b[:len(b)/2] },                   // truncated
		func(b []byte) []byte { b[0] = 'X'; return b },                  // bad magic
		func(b []byte) []byte { b[len(b)-1] ^= 0xff; return b },         // payload byte: entry checksum
		func(b []byte) []byte { return append(b, 1, 2, 3) },             // trailing bytes inside the payload
		func(b []byte) []byte { b[cnb.HeaderSize+2] ^= 0x55; return b }, // metadata
	} {
		orig, err := os.ReadFile(segs[0])
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, segs[0], damage(slices.Clone(orig)))
		os.RemoveAll(out)
		rep := cookWith(t, src, out, cacheDir, func(o *Options) { o.Check = false })
		if len(rep.Outputs) < 8 {
			t.Errorf("cook with a damaged segment wrote %d outputs", len(rep.Outputs))
		}
		// restore for the next case (the cook may have compacted it away)
		for _, s := range mustGlob(t, filepath.Join(cacheDir, "*.cnc")) {
			os.Remove(s)
		}
		writeFile(t, segs[0], orig)
	}
}

func mustGlob(t *testing.T, pat string) []string {
	t.Helper()
	m, err := filepath.Glob(pat)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The damaged cases above, checked for what the cache itself says.
func TestCacheCorruptSegmentWarns(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "000000000001.cnc"), []byte("CNC\x00 not a segment"))
	c, err := OpenCache(dir, 0, "x")
	if err != nil {
		t.Fatal(err)
	}
	w := c.takeWarnings()
	if len(w) != 1 || !strings.Contains(w[0], "000000000001.cnc: ignored") {
		t.Errorf("warnings %q", w)
	}
	// A segment from another toolchain is ignored silently.
	c.put(cnb.CachePayload, "k", []byte("v"), 0)
	if w := c.Flush(); len(w) != 0 {
		t.Fatalf("flush: %q", w)
	}
	c2, err := OpenCache(dir, 0, "y")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c2.get(cnb.CachePayload, "k", 0); ok || len(c2.takeWarnings()) != 0 {
		t.Error("another toolchain's segment was used or warned about")
	}
	c3, _ := OpenCache(dir, 0, "x")
	if b, ok := c3.get(cnb.CachePayload, "k", 0); !ok || string(b) != "v" {
		t.Errorf("entry k = %q, %v", b, ok)
	}
	// The flush compacted the bad segment away.
	if segs := mustGlob(t, filepath.Join(dir, "*.cnc")); len(segs) != 1 {
		t.Errorf("segments after compaction: %v", segs)
	}
}

// The cap evicts the least recently used entries first, down to 3/4 of the
// cap, deterministically: the same sequence of cooks leaves byte-identical
// cache folders.
func TestCacheCapEvictsLRU(t *testing.T) {
	run := func(dir string) map[string]fileState {
		for round := 0; round < 3; round++ {
			c, err := OpenCache(dir, 400, "x")
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 4; i++ {
				key := string(rune('a'+round)) + string(rune('0'+i))
				c.put(cnb.CachePayload, key, bytes.Repeat([]byte{byte(i)}, 50), i)
			}
			if round == 2 {
				c.get(cnb.CachePayload, "a0", 9) // used again: survives
			}
			if w := c.Flush(); len(w) != 0 {
				t.Fatal(w)
			}
		}
		st := treeState(t, dir)
		for k, v := range st {
			st[k] = fileState{data: v.data}
		}
		return st
	}
	d1, d2 := t.TempDir(), t.TempDir()
	s1 := run(d1)
	if !reflect.DeepEqual(s1, run(d2)) {
		t.Error("two identical cook sequences left different caches")
	}
	c, _ := OpenCache(d1, 400, "x")
	n, size := c.stats()
	if size != 300 || n != 6 {
		t.Errorf("%d entries of %d bytes, want 6 in 300 bytes (3/4 of the cap)", n, size)
	}
	for _, k := range []string{"c0", "c1", "c2", "c3", "a0", "b0"} {
		if _, ok := c.get(cnb.CachePayload, k, 0); !ok {
			t.Errorf("%s evicted; the newest and the reused entries must stay", k)
		}
	}
	for _, k := range []string{"a1", "a2", "a3", "b1", "b2", "b3"} {
		if _, ok := c.get(cnb.CachePayload, k, 0); ok {
			t.Errorf("%s kept; the oldest unused entries go first", k)
		}
	}
}

// A record survives encode/decode; damage is an error, never a panic.
func TestRecordRoundTrip(t *testing.T) {
	res := &jobResult{
		files:    []outputFile{{name: "a.hmesh", kind: "hmesh", data: []byte{1, 2, 3}}, {name: "a.hmat", kind: "hmat", data: []byte{}}},
		mesh:     &MeshReport{Name: "a", Vertices: 3, Lods: []LodReport{{Ratio: 0.5, Error: 0.25}}},
		warnings: []string{"w"},
		cnb: []cnbResource{{name: "a/0", kind: cnb.Mesh, payload: []byte{9}, bounds: &cnb.MeshBoundsRecord{Min: [3]float32{-1, 0, 0.1}}, source: "a.gltf", fixedBodies: 1},
			{name: "m", kind: cnb.Material, data: []byte{7, 7}}},
	}
	b, err := encodeRecord(res)
	if err != nil {
		t.Fatal(err)
	}
	back, err := decodeRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.files {
		if back.files[i].name != res.files[i].name || !bytes.Equal(back.files[i].data, res.files[i].data) || back.files[i].kind != res.files[i].kind {
			t.Errorf("file %d: %+v", i, back.files[i])
		}
	}
	if !reflect.DeepEqual(back.mesh, res.mesh) || !reflect.DeepEqual(back.warnings, res.warnings) || !reflect.DeepEqual(back.cnb, res.cnb) {
		t.Errorf("round trip:\n%+v\n%+v", back, res)
	}
	for i := 0; i < len(b); i++ {
		if _, err := decodeRecord(b[:i]); err == nil {
			t.Fatalf("truncated to %d bytes: no error", i)
		}
		c := slices.Clone(b)
		c[i] ^= 0x40
		if _, err := decodeRecord(c); err == nil {
			t.Fatalf("byte %d flipped: no error", i)
		}
	}
}

func FuzzDecodeRecord(f *testing.F) {
	b, _ := encodeRecord(&jobResult{files: []outputFile{{name: "x", kind: "hmesh", data: []byte{1}}}, cnb: []cnbResource{{name: "m", payload: []byte{2}}}})
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRecord(b)
		if err == nil && r == nil {
			t.Fatal("nil result without error")
		}
	})
}

// Every Options field is in the cache key (walked by reflection) except
// the listed ones, which never change a job's bytes; cnbResource must be
// carried whole by a record.
func TestOptionsKeyCoversFields(t *testing.T) {
	fields := func(v any) []string {
		var out []string
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			out = append(out, rt.Field(i).Name)
		}
		return out
	}
	for _, name := range unkeyed {
		if !slices.Contains(fields(Options{}), name) {
			t.Errorf("unkeyed names %q, not an Options field", name)
		}
	}
	if got, want := fields(cnbResource{}), []string{"name", "kind", "payload", "data", "bounds", "source", "fixedBodies"}; !reflect.DeepEqual(got, want) {
		t.Errorf("cnbResource fields %v; encodeRecord carries %v", got, want)
	}
	if got, want := fields(Job{}), []string{"Source", "Rel", "Name", "SourceRef", "Root"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Job fields %v; baseKey covers %v", got, want)
	}
	// Each keyed option changes the key; the others do not.
	job := Job{Source: "a.gltf", Rel: "a.gltf", Name: "a", SourceRef: "a"}
	base := DefaultOptions()
	k0 := baseKey("t", base, job, []byte("src"))
	for name, edit := range map[string]func(*Options){
		"cone":     func(o *Options) { o.Meshlet.ConeWeight = 0.2500001 },
		"ratios":   func(o *Options) { o.LOD.Ratios = []float32{0.5} },
		"distance": func(o *Options) { o.LOD.Distances = []float32{10, 20} },
		"targets":  func(o *Options) { o.Targets = []string{TargetMSH7} },
		"ceiling":  func(o *Options) { o.BlobCeiling = 1 },
		"clod":     func(o *Options) { o.ClusterLOD = true },
		"scenes":   func(o *Options) { o.Scenes = []SceneSpec{{Name: "s"}} },
	} {
		o := DefaultOptions()
		edit(&o)
		if baseKey("t", o, job, []byte("src")) == k0 {
			t.Errorf("%s: key unchanged", name)
		}
	}
	o := DefaultOptions()
	o.OutDir, o.Jobs, o.Check = "elsewhere", 7, true
	if baseKey("t", o, job, []byte("src")) != k0 {
		t.Error("OutDir/Jobs/Check changed the key")
	}
	if baseKey("t2", base, job, []byte("src")) == k0 || baseKey("t", base, job, []byte("src2")) == k0 {
		t.Error("toolchain or source bytes did not change the key")
	}
	// hmesh and the default target are the same target list.
	o = DefaultOptions()
	o.Targets = []string{TargetHMesh}
	if baseKey("t", o, job, []byte("src")) != k0 {
		t.Error("explicit default target changed the key")
	}
}

// Check cooks into memory: nothing is written, and every difference is
// listed as missing, changed or stale.
func TestCheckListsDifferences(t *testing.T) {
	src := copySamples(t)
	out := filepath.Join(t.TempDir(), "out")
	cookWith(t, src, out, "", nil)
	rep := cookWith(t, src, out, "", func(o *Options) { o.Check = true })
	if len(rep.Check) != 0 {
		t.Fatalf("fresh outputs: check lists %v", rep.Check)
	}
	os.Remove(filepath.Join(out, "box.hmat"))
	b, _ := os.ReadFile(filepath.Join(out, "strips.hmesh"))
	b[len(b)-1] ^= 1
	writeFile(t, filepath.Join(out, "strips.hmesh"), b)
	writeFile(t, filepath.Join(out, "old", "gone.hmesh"), []byte("x"))
	writeFile(t, filepath.Join(out, ".terrain.hmesh.tmp-123"), []byte("x"))
	before := treeState(t, out)
	rep = cookWith(t, src, out, "", func(o *Options) { o.Check = true })
	want := []CheckDiff{{"box.hmat", CheckMissing}, {"old/gone.hmesh", CheckStale}, {"strips.hmesh", CheckChanged}}
	if !reflect.DeepEqual(rep.Check, want) {
		t.Errorf("check = %v, want %v", rep.Check, want)
	}
	if !reflect.DeepEqual(before, treeState(t, out)) || rep.BytesWritten != 0 {
		t.Error("check wrote to the output folder")
	}
	// A real cook repairs the outputs and removes the temp files a killed
	// cook left for outputs it produces, and only those.
	writeFile(t, filepath.Join(out, ".strips.hmesh.tmp-99"), []byte("x"))
	writeFile(t, filepath.Join(out, ".other.hmesh.tmp-98"), []byte("x"))
	cookWith(t, src, out, "", nil)
	for name, want := range map[string]bool{".strips.hmesh.tmp-99": false, ".terrain.hmesh.tmp-123": false, ".other.hmesh.tmp-98": true} {
		if _, err := os.Stat(filepath.Join(out, name)); (err == nil) != want {
			t.Errorf("%s: exists = %v after the cook, want %v", name, err == nil, want)
		}
	}
	os.Remove(filepath.Join(out, ".other.hmesh.tmp-98"))
	rep = cookWith(t, src, out, "", func(o *Options) { o.Check = true })
	if want := []CheckDiff{{"old/gone.hmesh", CheckStale}}; !reflect.DeepEqual(rep.Check, want) {
		t.Errorf("after the cook, check = %v, want %v", rep.Check, want)
	}
}

func TestDepEscape(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.gltf":       "a/b.gltf",
		"my dir/x.gltf":  `my\ dir/x.gltf`,
		"cost$/x#1.bin":  `cost$$/x\#1.bin`,
		`odd\ name.png`:  `odd\\\ name.png`,
		"tab\there.gltf": "tab\\\there.gltf",
	} {
		if got := depEscape(in); got != want {
			t.Errorf("depEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

// Many small cooks (Ninja runs one per asset) keep the segment count
// bounded by merging only the small segments: a big segment is never
// rewritten, and nothing under the cap is lost.
func TestCacheMinorCompactionKeepsBigSegments(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 40; i++ {
		c, err := OpenCache(dir, 1<<20, "x")
		if err != nil {
			t.Fatal(err)
		}
		size := 10
		if i == 0 {
			size = 1000
		}
		c.put(cnb.CachePayload, fmt.Sprintf("k%02d", i), bytes.Repeat([]byte{byte(i)}, size), 0)
		if w := c.Flush(); len(w) != 0 {
			t.Fatal(w)
		}
		if segs := mustGlob(t, filepath.Join(dir, "*.cnc")); len(segs) > maxSegments {
			t.Fatalf("after cook %d: %d segments", i, len(segs))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "000000000001.cnc")); err != nil {
		t.Errorf("the big first segment was rewritten: %v", err)
	}
	c, _ := OpenCache(dir, 1<<20, "x")
	for i := 0; i < 40; i++ {
		if _, ok := c.get(cnb.CachePayload, fmt.Sprintf("k%02d", i), 0); !ok {
			t.Errorf("k%02d lost", i)
		}
	}
}

// World resources come back from the cache: a warm world cook is all hits,
// writes nothing and leaves the same blobs and lock.
func TestCacheWorldWarm(t *testing.T) {
	src := copySamples(t)
	out := filepath.Join(t.TempDir(), "out")
	cacheDir := filepath.Join(t.TempDir(), "cache")
	all := func(o *Options) { o.Targets = KnownTargets() }
	cookWith(t, src, out, cacheDir, all)
	before := treeState(t, out)
	warm := cookWith(t, src, out, cacheDir, all)
	if warm.CacheHits != 4 || warm.BytesWritten != 0 {
		t.Errorf("warm world cook: %d hits, %d bytes written", warm.CacheHits, warm.BytesWritten)
	}
	if !reflect.DeepEqual(before, treeState(t, out)) {
		t.Error("warm world cook changed the outputs")
	}
	if _, ok := before["world-lock.json"]; !ok {
		t.Errorf("no world written: %v", slices.Sorted(maps.Keys(before)))
	}
}

// Cache hits are committed together (serveHits), but each source still
// lands all or nothing on its own: a hit whose output cannot be renamed
// (a folder holds its name) fails alone, writes none of its other
// outputs and leaves no temp, and every other hit lands byte for byte.
// Progress hears of every job once.
func TestCacheHitsCommitApart(t *testing.T) {
	jobs := sampleJobs(t)
	require.GreaterOrEqual(t, len(jobs), 2)
	want := cookedWithoutCache(t, jobs)
	cacheDir := filepath.Join(t.TempDir(), "cache")
	cook := func(out string) *Report {
		c, err := OpenCache(cacheDir, 0, Toolchain())
		require.NoError(t, err)
		o := DefaultOptions()
		o.OutDir, o.Cache, o.Jobs = out, c, 2
		seen := map[string]int{}
		o.Progress = func(done, total int, j Job) { seen[j.Source]++ }
		rep, err := Run(context.Background(), jobs, o)
		require.NoError(t, err)
		for _, j := range jobs {
			assert.Equal(t, 1, seen[j.Source], j.Source)
		}
		return rep
	}
	cook(filepath.Join(t.TempDir(), "out")) // fill the cache

	out := filepath.Join(t.TempDir(), "out")
	first := func(name string) bool { // an output of jobs[0]: NAME.ext or NAME/...
		return strings.HasPrefix(name, jobs[0].Name+".") || strings.HasPrefix(name, jobs[0].Name+"/")
	}
	var blocked string // the last of the first job's outputs
	for name := range want {
		if first(name) && name > blocked {
			blocked = name
		}
	}
	require.NotEmpty(t, blocked)
	require.NoError(t, os.MkdirAll(filepath.Join(out, filepath.FromSlash(blocked), "x"), 0o755))
	rep := cook(out)
	assert.Equal(t, len(jobs), rep.CacheHits+rep.CacheMisses)
	require.Len(t, rep.Errors, 1)
	assert.Contains(t, rep.Errors[0], blocked)
	got := readTree(t, out)
	for name, data := range want {
		if first(name) {
			_, ok := got[name]
			assert.False(t, ok, "%s of the failed source was written", name)
			continue
		}
		assert.Equal(t, data, got[name], name)
	}
	for name := range got {
		assert.Empty(t, atomicfile.Target(filepath.Base(name)), "temp left: %s", name)
	}
}
