package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/payload"
)

// This file holds the world kinds: .cnb world blobs and cache segments,
// standalone mesh payloads (.payload, .skmv) and world-lock.json.

// cnbSummary is `inspect --json` for a world blob.
type cnbSummary struct {
	File         string                   `json:"file"`
	Kind         string                   `json:"kind"` // "cnb" or "cnb_overflow"
	PayloadBytes int                      `json:"payloadBytes"`
	MaxBlobIndex uint32                   `json:"maxBlobIndex"`
	Kinds        map[string]int           `json:"kinds"`
	SceneGroups  []sceneGroupSummary      `json:"sceneGroups"`
	Physics      *cnb.PhysicsBudgetRecord `json:"physicsBudget"`
	Resources    []resourceSummary        `json:"resources"`
}

type sceneGroupSummary struct {
	Scene     uint32 `json:"scene"`
	Resources int    `json:"resources"`
}

type resourceSummary struct {
	Name   string `json:"name,omitempty"` // from world-lock.json, when found
	Kind   string `json:"kind"`
	Handle uint32 `json:"handle"`
	Blob   uint32 `json:"blob"`
	Offset uint64 `json:"offset"`
	Bytes  uint64 `json:"bytes"` // payload length, or data_bytes length
}

func cnbKind() fileKind {
	return fileKind{
		name:     "cnb",
		magic:    []byte(cnb.BlobMagic),
		validate: func(p string, b []byte) error { _, err := checkWorldBlob(p, b); return err },
		inspect:  inspectCNB,
	}
}

func cnbCacheKind() fileKind {
	return fileKind{
		name:  "cnb_cache",
		magic: []byte(cnb.CacheMagic),
		validate: func(_ string, b []byte) error {
			_, _, err := cnb.ParseCache(b)
			return err
		},
		inspect: func(w io.Writer, p string, b []byte, mode inspectMode) error {
			m, sec, err := cnb.ParseCache(b)
			if err != nil {
				return err
			}
			switch mode {
			case inspectDump:
				return cnb.DumpCache(w, m, len(sec))
			case inspectJSON:
				return writeJSON(w, map[string]any{"file": p, "kind": "cnb_cache", "toolchain": m.Toolchain, "entries": len(m.Entries), "payloadBytes": len(sec)})
			}
			fmt.Fprintf(w, "%s: cnb cache segment, toolchain %q, %d entries, %d payload bytes\n", p, m.Toolchain, len(m.Entries), len(sec))
			for _, e := range m.Entries {
				fmt.Fprintf(w, "  %-10s %s @%d +%d\n", e.Kind, e.Key, e.Offset, e.Len)
			}
			return nil
		},
	}
}

// checkWorldBlob validates one blob. Blob 0 (the one with metadata) is
// checked with its overflow blobs, read from the same folder (<dir>/1, …),
// so every locator and payload is checked; an overflow blob is checked
// on its own.
func checkWorldBlob(p string, b []byte) (*cnb.BlobMeta, error) {
	meta, _, err := cnb.ParseBlob(b)
	if err != nil {
		return nil, err
	}
	if meta.IsEmpty() && filepath.Base(p) != "0" {
		return meta, nil
	}
	images := [][]byte{b}
	dir := filepath.Dir(p)
	for i := 1; i <= int(meta.Manifest.MaxBlobIndex); i++ {
		ob, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil {
			return nil, fmt.Errorf("overflow blob %d: %w", i, unwrapPath(err))
		}
		images = append(images, ob)
	}
	return cook.CheckWorldImages(images)
}

// lockBeside reads the world-lock.json of a blob at <out>/data/<i>, or
// returns nil when there is none (or it does not parse).
func lockBeside(blobPath string) *cook.WorldLock {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Dir(blobPath)), cook.WorldLockName))
	if err != nil {
		return nil
	}
	l, err := cook.ParseWorldLock(b)
	if err != nil {
		return nil
	}
	return l
}

func inspectCNB(w io.Writer, p string, b []byte, mode inspectMode) error {
	meta, sec, err := cnb.ParseBlob(b)
	if err != nil {
		return err
	}
	if mode == inspectDump {
		return cnb.Dump(w, meta, len(sec))
	}
	s := cnbSummary{File: p, Kind: "cnb", PayloadBytes: len(sec), MaxBlobIndex: meta.Manifest.MaxBlobIndex,
		Kinds: map[string]int{}, SceneGroups: []sceneGroupSummary{}, Physics: meta.PhysicsBudget, Resources: []resourceSummary{}}
	if meta.IsEmpty() && filepath.Base(p) != "0" {
		s.Kind = "cnb_overflow"
	}
	names := map[[2]uint32]string{}
	if l := lockBeside(p); l != nil {
		for _, r := range l.Resources {
			k, _ := cnb.ParseResourceKind(r.Kind)
			names[[2]uint32{uint32(k), r.Handle}] = r.Name
		}
	}
	for _, r := range meta.Resources {
		s.Kinds[r.Kind.String()]++
		rs := resourceSummary{Name: names[[2]uint32{uint32(r.Kind), r.Handle}], Kind: r.Kind.String(), Handle: r.Handle, Bytes: uint64(len(r.Data))}
		if r.Payload != nil {
			rs.Blob, rs.Offset, rs.Bytes = r.Payload.BlobIndex, r.Payload.Offset, r.Payload.Len
		}
		s.Resources = append(s.Resources, rs)
	}
	// By stable name when the lock names them, else by kind and handle.
	sort.SliceStable(s.Resources, func(i, j int) bool { return s.Resources[i].Name < s.Resources[j].Name })
	for _, g := range meta.SceneGroups {
		s.SceneGroups = append(s.SceneGroups, sceneGroupSummary{Scene: uint32(g.Scene), Resources: len(g.Resources)})
	}
	if mode == inspectJSON {
		return writeJSON(w, s)
	}
	if s.Kind == "cnb_overflow" {
		fmt.Fprintf(w, "%s: cnb overflow blob, %d payload bytes\n", p, s.PayloadBytes)
		return nil
	}
	fmt.Fprintf(w, "%s: cnb world, %d resources, %d payload bytes in this blob, blobs 0..%d\n", p, len(s.Resources), s.PayloadBytes, s.MaxBlobIndex)
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
		fmt.Fprintf(w, "  %-40s %-11s %4d  blob %d @%d +%d\n", name, r.Kind, r.Handle, r.Blob, r.Offset, r.Bytes)
	}
	return nil
}

func payloadKind() fileKind {
	return fileKind{
		name: "payload",
		exts: []string{".payload"},
		validate: func(_ string, b []byte) error {
			_, err := payload.Parse(b)
			return err
		},
		inspect: func(w io.Writer, p string, b []byte, mode inspectMode) error {
			m, err := payload.Parse(b)
			if err != nil {
				return err
			}
			switch mode {
			case inspectDump:
				return payload.Dump(w, m)
			case inspectJSON:
				s := map[string]any{"file": p, "kind": "payload", "vertices": len(m.Vertices), "triangles": len(m.Indices) / 3, "lods": len(m.LODs)}
				if m.Heightfield != nil {
					s["heightfield"] = [2]uint32{m.Heightfield.Rows, m.Heightfield.Cols}
				}
				return writeJSON(w, s)
			}
			fmt.Fprintf(w, "%s: static mesh payload, %d vertices, %d triangles\n", p, len(m.Vertices), len(m.Indices)/3)
			for i, l := range m.LODs {
				fmt.Fprintf(w, "  LOD%d: %d triangles from %g m\n", i+1, len(l.Indices)/3, l.SwitchDistance)
			}
			if h := m.Heightfield; h != nil {
				fmt.Fprintf(w, "  heightfield %d × %d\n", h.Rows, h.Cols)
			}
			return nil
		},
	}
}

func skinnedPayloadKind() fileKind {
	return fileKind{
		name:  "skmv",
		magic: []byte(payload.MagicSkinned),
		exts:  []string{".skmv"},
		validate: func(_ string, b []byte) error {
			_, err := payload.DecodeSkinnedWithLODs(b)
			return err
		},
		inspect: func(w io.Writer, p string, b []byte, mode inspectMode) error {
			m, err := payload.DecodeSkinnedWithLODs(b)
			if err != nil {
				return err
			}
			targets := 0
			if m.Morphs != nil {
				targets = len(m.Morphs.Targets)
			}
			switch mode {
			case inspectDump:
				return payload.DumpSkinned(w, m)
			case inspectJSON:
				return writeJSON(w, map[string]any{"file": p, "kind": "skmv", "vertices": len(m.Vertices), "triangles": len(m.Indices) / 3,
					"joints": len(m.Joints), "morphTargets": targets, "lods": len(m.LODs)})
			}
			fmt.Fprintf(w, "%s: skinned mesh payload, %d vertices, %d triangles, %d joints, %d morph targets, %d LODs\n",
				p, len(m.Vertices), len(m.Indices)/3, len(m.Joints), targets, len(m.LODs))
			return nil
		},
	}
}

// lockMagic is how the cook formats the start of every world-lock.json.
var lockMagic = []byte("{\n  \"format\": \"" + cook.WorldLockFormat + "\"")

func lockKind() fileKind {
	return fileKind{
		name:  "lock",
		magic: lockMagic,
		validate: func(p string, b []byte) error {
			l, err := cook.ParseWorldLock(b)
			if err != nil {
				return err
			}
			_, err = cook.CheckWorld(filepath.Dir(p), l)
			return err
		},
		inspect: func(w io.Writer, p string, b []byte, mode inspectMode) error {
			l, err := cook.ParseWorldLock(b)
			if err != nil {
				return err
			}
			switch mode {
			case inspectJSON:
				return writeJSON(w, l)
			case inspectDump:
				_, err := io.Copy(w, bytes.NewReader(b))
				return err
			}
			fmt.Fprintf(w, "%s: world lock, %d blobs, %d resources\n", p, len(l.Blobs), len(l.Resources))
			for _, bl := range l.Blobs {
				fmt.Fprintf(w, "  %-8s %s %d payload bytes\n", bl.Path, bl.SHA256, bl.PayloadBytes)
			}
			for _, r := range l.Resources {
				scene := ""
				if r.Scene != "" {
					scene = " scene " + r.Scene
				}
				fmt.Fprintf(w, "  %-40s %-11s %4d  blob %d%s\n", r.Name, r.Kind, r.Handle, r.Blob, scene)
			}
			return nil
		},
	}
}
