package cook

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/zeebo/xxh3"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/meshpack"
)

// This file names cache entries exactly (DESIGN.md "Exact cache keys") and
// encodes a job's result as one entry.

// formatVersions lists the versions of every format cook writes; they are
// part of the toolchain string and so of every key.
func formatVersions() string {
	return fmt.Sprintf("cook/%d hmesh/%d hmat/%d hanim/%d cnb/%d cnc/%d", CookVersion, hmesh.Version, hmat.Version, hanim.Version, cnb.SchemaVersion, cnb.CacheSegmentVersion)
}

// FormatVersion is one file format meshcook writes and the version it
// writes (`meshcook version`).
type FormatVersion struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Note    string `json:"note,omitempty"`
}

// WrittenFormats lists every format a meshcook cook, bake or cache writes,
// with its version.
func WrittenFormats() []FormatVersion {
	return []FormatVersion{
		{"hmesh", hmesh.Version, ""},
		{"hmat", hmat.Version, ""},
		{"hanim", hanim.Version, ""},
		{"msh7", 7, "payload magic MSH7"},
		{"ktx2", 2, "KTX 2.0, KTXwriter " + KTXWriter},
		{"cnb", cnb.SchemaVersion, "BlobMeta schema"},
		{WorldLockFormat, 1, ""},
		{"meshpack", meshpack.Version, ""},
		{"cnc", cnb.CacheSegmentVersion, "cache segment"},
		{"remote-cache", 1, "Bazel HTTP cache protocol; entry layout " + remoteKeyDomain},
	}
}

// ExeHash is the hex xxh3-128 of the running executable, the part of
// Toolchain that differs between two meshcook builds ("unknown" when the
// executable cannot be read).
func ExeHash() string { return exeHash() }

var exeHash = sync.OnceValue(func() string {
	p, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	f, err := os.Open(p)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := xxh3.New128()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	b := h.Sum128().Bytes()
	return hex.EncodeToString(b[:])
})

// Toolchain identifies the cooker for cache keys: CookVersion, the format
// versions, and the xxh3-128 of the running executable, so a rebuilt
// meshcook with different code never reuses another build's results.
func Toolchain() string { return "meshcook " + formatVersions() + " exe/" + exeHash() }

// keyWriter appends fields in a canonical, length-prefixed form.
type keyWriter struct{ b []byte }

func (w *keyWriter) u64(v uint64) { w.b = binary.LittleEndian.AppendUint64(w.b, v) }
func (w *keyWriter) i(v int)      { w.u64(uint64(int64(v))) }
func (w *keyWriter) f32(v float32) {
	w.b = binary.LittleEndian.AppendUint32(w.b, math.Float32bits(v))
}
func (w *keyWriter) str(s string) { w.i(len(s)); w.b = append(w.b, s...) }
func (w *keyWriter) f32s(v []float32) {
	w.i(len(v))
	for _, f := range v {
		w.f32(f)
	}
}
func (w *keyWriter) strs(v []string) {
	w.i(len(v))
	for _, s := range v {
		w.str(s)
	}
}
func (w *keyWriter) digest(b []byte) {
	w.i(len(b))
	d := xxh3.Hash128(b).Bytes()
	w.b = append(w.b, d[:]...)
}

// optionsKey encodes every Options field that can change a job's result:
// all of them, walked by reflection (field names, ints, floats by their
// bits, strings, slices with their lengths), except those in unkeyed, which
// change where and how results go, never their bytes. A field added to
// Options (or to a struct inside it) is in the key without anyone having to
// remember this function. Targets are keyed in their normalized order.
func optionsKey(w *keyWriter, o Options) {
	o.Targets = o.targets()
	v := reflect.ValueOf(o)
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		if slices.Contains(unkeyed, name) {
			continue
		}
		w.str(name)
		keyValue(w, v.Field(i))
	}
}

// unkeyed lists the Options fields that never change a job's bytes.
var unkeyed = []string{"OutDir", "Jobs", "Progress", "Cache", "Check", "DryRun", "JobDone", "Strict", "importer"}

// keyValue appends one value canonically.
func keyValue(w *keyWriter, v reflect.Value) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			w.u64(1)
		} else {
			w.u64(0)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		w.u64(uint64(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.u64(v.Uint())
	case reflect.Float32:
		w.f32(float32(v.Float()))
	case reflect.Float64:
		w.u64(math.Float64bits(v.Float()))
	case reflect.String:
		w.str(v.String())
	case reflect.Slice, reflect.Array:
		w.i(v.Len())
		for i := 0; i < v.Len(); i++ {
			keyValue(w, v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			w.str(v.Type().Field(i).Name)
			keyValue(w, v.Field(i))
		}
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			w.u64(0)
			return
		}
		w.u64(1)
		keyValue(w, v.Elem())
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int {
			return strings.Compare(fmt.Sprint(a.Interface()), fmt.Sprint(b.Interface()))
		})
		w.i(len(keys))
		for _, k := range keys {
			keyValue(w, k)
			keyValue(w, v.MapIndex(k))
		}
	default:
		// funcs and channels carry no data a result could depend on
		w.str(v.Type().String())
	}
}

// baseKey is the hex xxh3-128 of everything a job's result depends on
// except the files its source references: toolchain, options, the job's
// paths and names, and the source bytes.
func baseKey(toolchain string, o Options, job Job, src []byte) string {
	w := &keyWriter{}
	w.str("meshcook cache base")
	w.str(toolchain)
	optionsKey(w, o)
	w.str("job")
	w.str(job.Source)
	w.str(job.Rel)
	w.str(job.Name)
	w.str(job.SourceRef)
	w.str(job.Root)
	w.str("source")
	w.digest(src)
	return keyHex(w.b)
}

// fullKey extends base with every dependency's path and bytes, in order.
func fullKey(base string, deps []string, contents [][]byte) string {
	w := &keyWriter{}
	w.str("meshcook cache full")
	w.str(base)
	w.i(len(deps))
	for i, d := range deps {
		w.str(d)
		w.digest(contents[i])
	}
	return keyHex(w.b)
}

func keyHex(b []byte) string {
	d := xxh3.Hash128(b).Bytes()
	return hex.EncodeToString(d[:])
}

// jobDeps lists the files a job read besides its source, as paths joined
// to the source's folder: the importer's Scene.Files, and a heightfield
// source's image.
func jobDeps(job Job, files []string) []string {
	dir := filepath.Dir(job.Source)
	var out []string
	add := func(rel string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, f := range files {
		add(f)
	}
	if IsHeightfieldSource(job.Source) {
		if b, err := os.ReadFile(job.Source); err == nil {
			var hs HeightfieldSource
			if json.Unmarshal(b, &hs) == nil && hs.Image != "" {
				add(hs.Image)
			}
		}
	}
	return out
}

// readDeps reads every dependency; ok is false when one cannot be read
// (then the job cooks, and reports the problem itself).
func readDeps(deps []string) ([][]byte, bool) {
	out := make([][]byte, len(deps))
	for i, d := range deps {
		b, err := os.ReadFile(d)
		if err != nil {
			return nil, false
		}
		out[i] = b
	}
	return out, true
}

// encodeDeps / decodeDeps store a job's dependency list (paths relative to
// the source's folder, '/'-separated) as one Pipeline entry.
func encodeDeps(job Job, deps []string) []byte {
	dir := filepath.Dir(job.Source)
	var b strings.Builder
	for _, d := range deps {
		rel, err := filepath.Rel(dir, d)
		if err != nil {
			rel = d
		}
		b.WriteString(filepath.ToSlash(rel))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func decodeDeps(job Job, b []byte) []string {
	dir := filepath.Dir(job.Source)
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if line != "" {
			out = append(out, filepath.Join(dir, filepath.FromSlash(line)))
		}
	}
	return out
}

// record is the JSON header of a cached job result; the byte strings it
// counts follow it in order (files, then per world resource its payload
// and data).
type record struct {
	Files    []recordFile `json:"files"`
	Mesh     *MeshReport  `json:"mesh"`
	Warnings []string     `json:"warnings"`
	Drops    []DropReport `json:"drops"`
	CNB      []recordCNB  `json:"cnb"`
}

type recordFile struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Len  int    `json:"len"`
}

// recordCNB is a cnbResource; lengths are -1 for nil byte strings.
// TestRecordCoversCNBResource pins cnbResource's field list.
type recordCNB struct {
	Name        string                `json:"name"`
	Kind        cnb.ResourceKind      `json:"kind"`
	PayloadLen  int                   `json:"payloadLen"`
	DataLen     int                   `json:"dataLen"`
	Bounds      *cnb.MeshBoundsRecord `json:"bounds"`
	Source      string                `json:"source"`
	FixedBodies uint32                `json:"fixedBodies"`
}

// encodeRecord encodes a successful job result:
// xxh3-64 of the rest (8 bytes LE) | header length (u32 LE) | header JSON |
// byte strings. It fails only when the report holds a value JSON cannot
// carry (a NaN), and then the job is simply not cached.
func encodeRecord(r *jobResult) ([]byte, error) {
	rec := record{Mesh: r.mesh, Warnings: r.warnings, Drops: r.drops}
	var blobs [][]byte
	for _, f := range r.files {
		rec.Files = append(rec.Files, recordFile{Name: f.name, Kind: f.kind, Len: len(f.data)})
		blobs = append(blobs, f.data)
	}
	blen := func(b []byte) int {
		if b == nil {
			return -1
		}
		return len(b)
	}
	for _, c := range r.cnb {
		rec.CNB = append(rec.CNB, recordCNB{Name: c.name, Kind: c.kind, PayloadLen: blen(c.payload), DataLen: blen(c.data),
			Bounds: c.bounds, Source: c.source, FixedBodies: c.fixedBodies})
		blobs = append(blobs, c.payload, c.data)
	}
	hdr, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 12, 12+len(hdr))
	binary.LittleEndian.PutUint32(out[8:], uint32(len(hdr)))
	out = append(out, hdr...)
	for _, b := range blobs {
		out = append(out, b...)
	}
	binary.LittleEndian.PutUint64(out, xxh3.Hash(out[8:]))
	return out, nil
}

var errRecord = errors.New("cache: corrupt entry")

// decodeRecord is encodeRecord's inverse; every length is checked against
// the bytes that remain. The byte strings alias b (a mapped cache segment,
// valid until Run releases the cache after the world and the report are
// done); nothing writes to them.
func decodeRecord(b []byte) (*jobResult, error) {
	if len(b) < 12 || binary.LittleEndian.Uint64(b) != xxh3.Hash(b[8:]) {
		return nil, fmt.Errorf("%w: checksum", errRecord)
	}
	n := uint64(binary.LittleEndian.Uint32(b[8:]))
	rest := b[12:]
	if n > uint64(len(rest)) {
		return nil, fmt.Errorf("%w: header length %d past the end", errRecord, n)
	}
	var rec record
	if err := json.Unmarshal(rest[:n], &rec); err != nil {
		return nil, fmt.Errorf("%w: %v", errRecord, err)
	}
	rest = rest[n:]
	take := func(l int) ([]byte, error) {
		if l == -1 {
			return nil, nil
		}
		if l < 0 || l > len(rest) {
			return nil, fmt.Errorf("%w: %d bytes wanted, %d left", errRecord, l, len(rest))
		}
		out := rest[:l:l]
		rest = rest[l:]
		return out, nil
	}
	res := &jobResult{mesh: rec.Mesh, warnings: rec.Warnings, drops: rec.Drops}
	for _, f := range rec.Files {
		data, err := take(f.Len)
		if err != nil || data == nil {
			return nil, fmt.Errorf("%w: file %q", errRecord, f.Name)
		}
		res.files = append(res.files, outputFile{name: f.Name, kind: f.Kind, data: data})
	}
	for _, c := range rec.CNB {
		p, err := take(c.PayloadLen)
		if err != nil {
			return nil, err
		}
		d, err := take(c.DataLen)
		if err != nil {
			return nil, err
		}
		res.cnb = append(res.cnb, cnbResource{name: c.Name, kind: c.Kind, payload: p, data: d, bounds: c.Bounds, source: c.Source, fixedBodies: c.FixedBodies})
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", errRecord, len(rest))
	}
	return res, nil
}
