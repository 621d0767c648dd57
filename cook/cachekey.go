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
	"slices"
	"strings"
	"sync"

	"github.com/zeebo/xxh3"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/hmesh"
)

// This file names cache entries exactly (DESIGN.md "Exact cache keys") and
// encodes a job's result as one entry.

// formatVersions lists the versions of every format cook writes; they are
// part of the toolchain string and so of every key.
func formatVersions() string {
	return fmt.Sprintf("cook/%d hmesh/%d hmat/%d hanim/%d cnb/%d cnc/%d", CookVersion, hmesh.Version, hmat.Version, hanim.Version, cnb.SchemaVersion, cnb.CacheSegmentVersion)
}

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

// optionsKey encodes every Options field that can change a job's result,
// floats by their bits. OutDir, Jobs, the callbacks, Cache and Check change
// where and how results go, never their bytes. TestOptionsKeyCoversFields
// pins the field list so a new option cannot be forgotten here.
func optionsKey(w *keyWriter, o Options) {
	w.str("meshlet")
	w.i(o.Meshlet.MaxVertices)
	w.i(o.Meshlet.MaxTriangles)
	w.f32(o.Meshlet.ConeWeight)
	w.str("lod")
	w.f32s(o.LOD.Ratios)
	w.f32(o.LOD.Error)
	w.f32(o.LOD.NormalWeight)
	w.f32(o.LOD.UVWeight)
	w.f32s(o.LOD.Distances)
	w.str("targets")
	w.strs(o.targets())
	w.str("world")
	w.u64(o.BlobCeiling)
	w.i(len(o.Scenes))
	for _, s := range o.Scenes {
		w.str(s.Name)
		w.strs(s.Sources)
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
	rec := record{Mesh: r.mesh, Warnings: r.warnings}
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
// the bytes that remain. The byte strings are copied out of b.
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
		out := append(make([]byte, 0, l), rest[:l]...)
		rest = rest[l:]
		return out, nil
	}
	res := &jobResult{mesh: rec.Mesh, warnings: rec.Warnings}
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
