package cnb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/meshcook/meshcook/formats/format"
)

// This file describes the world kinds for formats/kinds: .cnb world
// blobs, cache segments and world-lock.json.

// Format describes a world blob (data/<i>). Blob 0 (the one with
// metadata) is validated with its overflow blobs, read from the same
// folder (<dir>/1, …), so every locator and payload is checked; an
// overflow blob is checked on its own. Its summary names resources as the
// world-lock.json beside data/ does, when there is one.
func Format() format.Description {
	return format.Description{
		Name:  "cnb",
		Magic: []byte(BlobMagic),
		Decode: func(b []byte) (any, error) {
			m, _, err := ParseBlob(b)
			return m, err
		},
		Validate: func(path string, b []byte) error {
			_, err := CheckBlobFile(path, b)
			return err
		},
		Summarize: func(path string, b []byte) (format.Summary, error) { return summarizeBlob(path, b) },
		Dump: func(w io.Writer, _ string, b []byte) error {
			meta, sec, err := ParseBlob(b)
			if err != nil {
				return err
			}
			return Dump(w, meta, len(sec))
		},
	}
}

// CacheFormat describes a cache segment.
func CacheFormat() format.Description {
	return format.Description{
		Name:  "cnb_cache",
		Magic: []byte(CacheMagic),
		Decode: func(b []byte) (any, error) {
			m, _, err := ParseCache(b)
			return m, err
		},
		Validate: func(_ string, b []byte) error {
			_, _, err := ParseCache(b)
			return err
		},
		Summarize: func(path string, b []byte) (format.Summary, error) {
			m, sec, err := ParseCache(b)
			if err != nil {
				return nil, err
			}
			s := &CacheSummary{File: path, Kind: "cnb_cache", Toolchain: m.Toolchain, Entries: len(m.Entries), PayloadBytes: len(sec), entries: m.Entries}
			return s, nil
		},
		Dump: func(w io.Writer, _ string, b []byte) error {
			m, sec, err := ParseCache(b)
			if err != nil {
				return err
			}
			return DumpCache(w, m, len(sec))
		},
	}
}

// LockDescription describes world-lock.json, recognised by parsing: a JSON
// object whose "format" is LockFormat, however it is laid out. Validate
// checks the world beside it (CheckWorld); its dump is the file itself.
func LockDescription() format.Description {
	return format.Description{
		Name:   "lock",
		Sniff:  isLock,
		Decode: func(b []byte) (any, error) { return ParseLock(b) },
		Validate: func(path string, b []byte) error {
			l, err := ParseLock(b)
			if err != nil {
				return err
			}
			_, err = CheckWorld(filepath.Dir(path), l)
			return err
		},
		Summarize: func(path string, b []byte) (format.Summary, error) {
			l, err := ParseLock(b)
			if err != nil {
				return nil, err
			}
			s := &LockSummary{File: path, Kind: "lock", Blobs: []LockBlobSummary{}, Resources: l.Resources}
			for _, bl := range l.Blobs {
				s.Blobs = append(s.Blobs, LockBlobSummary(bl))
			}
			return s, nil
		},
		Dump: func(w io.Writer, _ string, b []byte) error {
			if _, err := ParseLock(b); err != nil {
				return err
			}
			_, err := w.Write(b)
			return err
		},
	}
}

// isLock reports whether b is a JSON object naming LockFormat as its
// "format". The quick test keeps other JSON (a .gltf) from being parsed
// twice.
func isLock(b []byte) bool {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 || t[0] != '{' || !bytes.Contains(b, []byte(strconv.Quote(LockFormat))) {
		return false
	}
	var h struct {
		Format string `json:"format"`
	}
	return json.Unmarshal(b, &h) == nil && h.Format == LockFormat
}

// CheckBlobFile validates the blob at path with bytes b: blob 0 with the
// overflow blobs beside it (CheckImages), an overflow blob on its own.
func CheckBlobFile(path string, b []byte) (*BlobMeta, error) {
	meta, _, err := ParseBlob(b)
	if err != nil {
		return nil, err
	}
	if meta.IsEmpty() && filepath.Base(path) != "0" {
		return meta, nil
	}
	images := [][]byte{b}
	dir := filepath.Dir(path)
	for i := 1; i <= int(meta.Manifest.MaxBlobIndex); i++ {
		ob, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			return nil, fmt.Errorf("overflow blob %d: %w", i, unwrapPath(err))
		}
		images = append(images, ob)
	}
	return CheckImages(images)
}

// LockBeside reads the world-lock.json of a blob at <out>/data/<i>, or
// returns nil when there is none (or it does not parse).
func LockBeside(blobPath string) *Lock {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(blobPath)), LockName))
	if err != nil {
		return nil
	}
	l, err := ParseLock(b)
	if err != nil {
		return nil
	}
	return l
}

// unwrapPath drops the *fs.PathError around err: the message names the
// blob by number instead.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// BlobSummary is `inspect` of a world blob.
type BlobSummary struct {
	File         string                `json:"file"`
	Kind         string                `json:"kind"` // "cnb" or "cnb_overflow"
	PayloadBytes int                   `json:"payloadBytes"`
	MaxBlobIndex uint32                `json:"maxBlobIndex"`
	Kinds        map[string]int        `json:"kinds"`
	SceneGroups  []SceneGroupSummary   `json:"sceneGroups"`
	Physics      *PhysicsBudgetSummary `json:"physicsBudget"`
	Resources    []ResourceSummary     `json:"resources"`
}

// SceneGroupSummary is one scene group.
type SceneGroupSummary struct {
	Scene     uint32 `json:"scene"`
	Resources int    `json:"resources"`
}

// PhysicsBudgetSummary is the PhysicsBudgetRecord with camelCase names.
type PhysicsBudgetSummary struct {
	Fixed         uint32 `json:"fixed"`
	Dynamic       uint32 `json:"dynamic"`
	Kinematic     uint32 `json:"kinematic"`
	Sensors       uint32 `json:"sensors"`
	Joints        uint32 `json:"joints"`
	Anchors       uint32 `json:"anchors"`
	SpawnHeadroom uint32 `json:"spawnHeadroom"`
}

// ResourceSummary is one resource.
type ResourceSummary struct {
	Name   string `json:"name,omitempty"` // from world-lock.json, when found
	Kind   string `json:"kind"`
	Handle uint32 `json:"handle"`
	Blob   uint32 `json:"blob"`
	Offset uint64 `json:"offset"`
	Bytes  uint64 `json:"bytes"` // payload length, or data_bytes length
}

func summarizeBlob(p string, b []byte) (*BlobSummary, error) {
	meta, sec, err := ParseBlob(b)
	if err != nil {
		return nil, err
	}
	s := &BlobSummary{File: p, Kind: "cnb", PayloadBytes: len(sec), MaxBlobIndex: meta.Manifest.MaxBlobIndex,
		Kinds: map[string]int{}, SceneGroups: []SceneGroupSummary{}, Resources: []ResourceSummary{}}
	if pb := meta.PhysicsBudget; pb != nil {
		s.Physics = (*PhysicsBudgetSummary)(pb)
	}
	if meta.IsEmpty() && filepath.Base(p) != "0" {
		s.Kind = "cnb_overflow"
	}
	names := map[[2]uint32]string{}
	if l := LockBeside(p); l != nil {
		for _, r := range l.Resources {
			k, _ := ParseResourceKind(r.Kind)
			names[[2]uint32{uint32(k), r.Handle}] = r.Name
		}
	}
	for _, r := range meta.Resources {
		s.Kinds[r.Kind.String()]++
		rs := ResourceSummary{Name: names[[2]uint32{uint32(r.Kind), r.Handle}], Kind: r.Kind.String(), Handle: r.Handle, Bytes: uint64(len(r.Data))}
		if r.Payload != nil {
			rs.Blob, rs.Offset, rs.Bytes = r.Payload.BlobIndex, r.Payload.Offset, r.Payload.Len
		}
		s.Resources = append(s.Resources, rs)
	}
	// By stable name when the lock names them, else by kind and handle.
	sort.SliceStable(s.Resources, func(i, j int) bool { return s.Resources[i].Name < s.Resources[j].Name })
	for _, g := range meta.SceneGroups {
		s.SceneGroups = append(s.SceneGroups, SceneGroupSummary{Scene: uint32(g.Scene), Resources: len(g.Resources)})
	}
	return s, nil
}

// WriteText prints the human summary.
func (s *BlobSummary) WriteText(w io.Writer) error {
	if s.Kind == "cnb_overflow" {
		_, err := fmt.Fprintf(w, "%s: cnb overflow blob, %d payload bytes\n", s.File, s.PayloadBytes)
		return err
	}
	fmt.Fprintf(w, "%s: cnb world, %d resources, %d payload bytes in this blob, blobs 0..%d\n", s.File, len(s.Resources), s.PayloadBytes, s.MaxBlobIndex)
	kinds := make([]string, 0, len(s.Kinds))
	for k := range s.Kinds {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "  %s: %d\n", k, s.Kinds[k])
	}
	for _, g := range s.SceneGroups {
		fmt.Fprintf(w, "  scene %d: %d resources\n", g.Scene, g.Resources)
	}
	if s.Physics != nil {
		fmt.Fprintf(w, "  physics budget: %d fixed, %d dynamic, %d kinematic\n", s.Physics.Fixed, s.Physics.Dynamic, s.Physics.Kinematic)
	}
	for _, r := range s.Resources {
		name := r.Name
		if name == "" {
			name = "(no lock)"
		}
		if _, err := fmt.Fprintf(w, "  %-40s %-11s %4d  blob %d @%d +%d\n", name, r.Kind, r.Handle, r.Blob, r.Offset, r.Bytes); err != nil {
			return err
		}
	}
	return nil
}

// CacheSummary is `inspect` of a cache segment.
type CacheSummary struct {
	File         string `json:"file"`
	Kind         string `json:"kind"`
	Toolchain    string `json:"toolchain"`
	Entries      int    `json:"entries"`
	PayloadBytes int    `json:"payloadBytes"`

	entries []CacheEntry
}

// WriteText prints the human summary.
func (s *CacheSummary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: cnb cache segment, toolchain %q, %d entries, %d payload bytes\n", s.File, s.Toolchain, s.Entries, s.PayloadBytes)
	for _, e := range s.entries {
		if _, err := fmt.Fprintf(w, "  %-10s %s @%d +%d\n", e.Kind, e.Key, e.Offset, e.Len); err != nil {
			return err
		}
	}
	return nil
}

// LockSummary is `inspect` of world-lock.json: the lock with camelCase
// names (the file itself keeps its own, payload_bytes).
type LockSummary struct {
	File      string            `json:"file"`
	Kind      string            `json:"kind"`
	Blobs     []LockBlobSummary `json:"blobs"`
	Resources []LockResource    `json:"resources"`
}

// LockBlobSummary is one blob of the lock.
type LockBlobSummary struct {
	Path         string `json:"path"`
	SHA256       string `json:"sha256"`
	PayloadBytes uint64 `json:"payloadBytes"`
}

// WriteText prints the human summary.
func (s *LockSummary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: world lock, %d blobs, %d resources\n", s.File, len(s.Blobs), len(s.Resources))
	for _, bl := range s.Blobs {
		fmt.Fprintf(w, "  %-8s %s %d payload bytes\n", bl.Path, bl.SHA256, bl.PayloadBytes)
	}
	for _, r := range s.Resources {
		scene := ""
		if r.Scene != "" {
			scene = " scene " + r.Scene
		}
		if _, err := fmt.Fprintf(w, "  %-40s %-11s %4d  blob %d%s\n", r.Name, r.Kind, r.Handle, r.Blob, scene); err != nil {
			return err
		}
	}
	return nil
}
