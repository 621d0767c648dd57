package cook

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/kinds"
)

// DefaultBlobCeiling is the default payload-section ceiling of one blob.
const DefaultBlobCeiling = 1 << 30

// World file names under the output folder, and the lock file: the
// world's semantics live in formats/cnb; these names are the cook's API.
const (
	WorldDataDir    = cnb.DataDir
	WorldLockName   = cnb.LockName
	WorldLockFormat = cnb.LockFormat
)

type (
	WorldLock    = cnb.Lock
	LockBlob     = cnb.LockBlob
	LockResource = cnb.LockResource
)

// ParseWorldLock is cnb.ParseLock.
func ParseWorldLock(b []byte) (*WorldLock, error) { return cnb.ParseLock(b) }

// CheckWorld is cnb.CheckWorld: a written world in dir against its lock.
func CheckWorld(dir string, l *WorldLock) (*cnb.BlobMeta, error) { return cnb.CheckWorld(dir, l) }

// encodeLock is cnb.EncodeLock.
func encodeLock(l *WorldLock) ([]byte, error) { return cnb.EncodeLock(l) }

// CheckWorldImages is cnb.CheckImages.
func CheckWorldImages(images [][]byte) (*cnb.BlobMeta, error) { return cnb.CheckImages(images) }

// SceneSpec is one project scene: the sources (globs over job Rel paths,
// docs/project.md) whose exclusive resources form its SceneGroup.
type SceneSpec struct {
	Name    string   `json:"name"`
	Sources []string `json:"sources"`
}

func (o Options) validateWorld() error {
	seen := map[string]bool{}
	for i, sc := range o.Scenes {
		if sc.Name == "" {
			return fmt.Errorf("scenes[%d]: empty name", i)
		}
		if seen[sc.Name] {
			return fmt.Errorf("scenes[%d]: scene %q declared twice", i, sc.Name)
		}
		seen[sc.Name] = true
		if len(sc.Sources) == 0 {
			return fmt.Errorf("scenes[%d] (%s): no sources", i, sc.Name)
		}
		for _, g := range sc.Sources {
			if err := checkGlob(g); err != nil {
				return fmt.Errorf("scenes[%d] (%s): %w", i, sc.Name, err)
			}
		}
	}
	if len(o.LOD.Distances) > 0 {
		if len(o.LOD.Distances) != len(o.LOD.Ratios) {
			return fmt.Errorf("lod distances %v: want one per lod ratio (%d)", o.LOD.Distances, len(o.LOD.Ratios))
		}
		prev := float32(0)
		for _, d := range o.LOD.Distances {
			if !(d >= prev) || math.IsInf(float64(d), 0) {
				return fmt.Errorf("lod distances %v: each must be finite, >= 0 and >= the one before", o.LOD.Distances)
			}
			prev = d
		}
	}
	return nil
}

// world is the assembled world: metadata, blob images and the lock.
type world struct {
	meta   *cnb.BlobMeta
	images [][]byte
	lock   WorldLock
}

// writeWorld assembles every job's resources into one world, validates it,
// writes OUT/data/<i> and world-lock.json and removes stale higher blobs.
// A world is written only when every job cooked: a missing source would
// shift handles.
func writeWorld(ctx context.Context, jobs []Job, results []jobResult, opts Options, rep *Report) {
	failed := 0
	var all []cnbResource
	for _, r := range results {
		if r.err != nil {
			failed++
			continue
		}
		all = append(all, r.cnb...)
	}
	if failed > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("cnb: world not written: %d of %d sources failed", failed, len(jobs)))
		return
	}
	if ctx.Err() != nil {
		return
	}
	w, err := buildWorld(all, opts)
	blob0 := path.Join(opts.OutDir, WorldDataDir, "0")
	var ie *InputError
	if errors.As(err, &ie) {
		rep.Errors = append(rep.Errors, err.Error())
		rep.InputErrors++
		return
	}
	if err != nil {
		rep.Errors = append(rep.Errors, (&OutputError{Path: blob0, Err: err}).Error())
		rep.OutputErrors++
		return
	}
	if _, err := CheckWorldImages(w.images); err != nil {
		rep.Errors = append(rep.Errors, (&OutputError{Path: blob0, Err: fmt.Errorf("cnb: read-back: %w", err)}).Error())
		rep.OutputErrors++
		return
	}
	var files []outputFile
	for i, img := range w.images {
		files = append(files, outputFile{name: path.Join(WorldDataDir, strconv.Itoa(i)), kind: "cnb", data: img, validate: validateBlobImage(img, i)})
	}
	lockBytes, err := encodeLock(&w.lock)
	if err != nil {
		rep.Errors = append(rep.Errors, (&OutputError{Path: path.Join(opts.OutDir, WorldLockName), Err: err}).Error())
		rep.OutputErrors++
		return
	}
	files = append(files, outputFile{name: WorldLockName, kind: "lock", data: lockBytes, validate: readBack("lock", lockBytes)})
	for _, f := range files {
		if err := f.validate(); err != nil {
			rep.Errors = append(rep.Errors, (&OutputError{Path: path.Join(opts.OutDir, f.name), Err: err}).Error())
			rep.OutputErrors++
			return
		}
	}
	// Blobs first, then the lock that describes them, then the stale blobs
	// the new lock no longer names: all under a lock on the data folder, so
	// two cooks into one output folder commit whole worlds one after the
	// other (the last one wins whole).
	if !opts.Check && !opts.DryRun {
		unlock, err := lockWorld(filepath.Join(opts.OutDir, WorldDataDir))
		if err != nil {
			rep.Errors = append(rep.Errors, (&OutputError{Path: filepath.Join(opts.OutDir, WorldDataDir), Err: err}).Error())
			rep.OutputErrors++
			return
		}
		defer unlock()
	}
	outs, err := opts.commitOutputs(files)
	if err != nil {
		rep.Errors = append(rep.Errors, err.Error())
		rep.OutputErrors++
		return
	}
	rep.Outputs = append(rep.Outputs, outs...)
	if opts.Check || opts.DryRun {
		return // checkDiffs lists stale blobs; a dry run writes nothing
	}
	if err := removeStaleBlobs(filepath.Join(opts.OutDir, WorldDataDir), len(w.images)); err != nil {
		rep.Errors = append(rep.Errors, err.Error())
		rep.OutputErrors++
	}
}

// buildWorld assigns handles (per kind, by sorted stable name), scene
// groups, blob placement and locators, and encodes every blob image. Two
// resources of one kind with one name are an *InputError naming the
// second source.
func buildWorld(all []cnbResource, opts Options) (*world, error) {
	slices.SortFunc(all, func(a, b cnbResource) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), strings.Compare(a.name, b.name))
	})
	for i := 1; i < len(all); i++ {
		if a, b := all[i-1], all[i]; a.kind == b.kind && a.name == b.name {
			return nil, &InputError{Path: b.source, Err: fmt.Errorf("cnb: %s name %q is also made by %s; rename a source, material or image",
				a.kind, a.name, a.source)}
		}
	}

	// Scene membership: a resource belongs to the one scene whose globs
	// match its source; matched by none or by several, it is global.
	group := make([]int, len(all))
	for i, r := range all {
		group[i] = cnb.Global
		for s, sc := range opts.Scenes {
			if matchAny(sc.Sources, r.source) {
				if group[i] != cnb.Global {
					group[i] = cnb.Global // shared: loads with the world
					break
				}
				group[i] = s
			}
		}
	}

	meta := &cnb.BlobMeta{Defs: []cnb.BlobAssetDef{}, Resources: make([]cnb.ResourceRecord, len(all))}
	handles := make([]uint32, len(all))
	var counts [256]uint32
	var phys cnb.PhysicsBudgetRecord
	hasPhys := false
	for i, r := range all {
		handles[i] = counts[r.kind]
		counts[r.kind]++
		meta.Resources[i] = cnb.ResourceRecord{Kind: r.kind, Handle: handles[i], Data: r.data}
		if meta.Resources[i].Data == nil {
			meta.Resources[i].Data = []byte{}
		}
		if r.bounds != nil {
			b := *r.bounds
			b.Handle = handles[i]
			meta.MeshBounds = append(meta.MeshBounds, b)
		}
		if r.fixedBodies > 0 {
			phys.Fixed += r.fixedBodies
			hasPhys = true
		}
	}
	if hasPhys {
		meta.PhysicsBudget = &phys
	}
	for s := range opts.Scenes {
		g := cnb.SceneGroup{Scene: cnb.AssetID(s), Resources: []cnb.ResourceRef{}, Defs: []cnb.AssetID{}}
		for i, r := range all {
			if group[i] == s {
				g.Resources = append(g.Resources, cnb.ResourceRef{Kind: r.kind, Handle: handles[i]})
			}
		}
		meta.SceneGroups = append(meta.SceneGroups, g)
	}

	// Pack order: global payloads by kind then handle, then each scene's.
	var items []cnb.PackItem
	var payloads [][]byte
	var owners []int // resource index of each item
	for _, g := range append([]int{cnb.Global}, sceneIndices(len(opts.Scenes))...) {
		for i, r := range all {
			if group[i] == g && r.payload != nil {
				items = append(items, cnb.PackItem{Group: g, Len: uint64(len(r.payload))})
				payloads = append(payloads, r.payload)
				owners = append(owners, i)
			}
		}
	}
	blobs, locs, err := cnb.Pack(items, opts.BlobCeiling)
	if err != nil {
		return nil, err
	}
	blobOf := make([]uint32, len(all))
	for it, i := range owners {
		loc := locs[it]
		meta.Resources[i].Payload = &loc
		blobOf[i] = loc.BlobIndex
	}
	meta.Manifest = cnb.DeriveManifest(meta)
	images, err := cnb.EncodeBlobs(meta, blobs, payloads)
	if err != nil {
		return nil, err
	}

	w := &world{meta: meta, images: images, lock: WorldLock{Format: WorldLockFormat, Version: 1, Blobs: []LockBlob{}, Resources: []LockResource{}}}
	for i, size := range cnb.PayloadSizes(blobs) {
		sum := sha256.Sum256(images[i])
		w.lock.Blobs = append(w.lock.Blobs, LockBlob{Path: path.Join(WorldDataDir, strconv.Itoa(i)), SHA256: hex.EncodeToString(sum[:]), PayloadBytes: size})
	}
	for i, r := range all {
		lr := LockResource{Name: r.name, Kind: r.kind.String(), Handle: handles[i], Blob: blobOf[i]}
		if group[i] != cnb.Global {
			lr.Scene = opts.Scenes[group[i]].Name
		}
		w.lock.Resources = append(w.lock.Resources, lr)
	}
	slices.SortFunc(w.lock.Resources, cnb.CompareLock)
	return w, nil
}

func sceneIndices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// validateBlobImage is one blob's own read-back check (the whole world was
// checked by CheckWorldImages before any file is written).
func validateBlobImage(img []byte, i int) func() error {
	return func() error {
		v, err := kinds.Decode("cnb", img)
		if err != nil {
			return err
		}
		if m := v.(*cnb.BlobMeta); i > 0 && !m.IsEmpty() {
			return fmt.Errorf("cnb: overflow blob %d carries metadata", i)
		}
		return nil
	}
}

// removeStaleBlobs deletes the blobs numbered n and above left by an
// earlier, larger cook; other files in dataDir are left alone.
func removeStaleBlobs(dataDir string, n int) error {
	stale, err := cnb.StaleBlobs(dataDir, n)
	if err != nil {
		return &OutputError{Path: dataDir, Err: unwrapPathError(err)}
	}
	for _, name := range stale {
		p := filepath.Join(dataDir, name)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &OutputError{Path: p, Err: fmt.Errorf("removing a stale blob: %w", unwrapPathError(err))}
		}
	}
	return nil
}
