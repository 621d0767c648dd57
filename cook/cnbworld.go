package cook

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
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
	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/formats/payload"
)

// DefaultBlobCeiling is the default payload-section ceiling of one blob.
const DefaultBlobCeiling = 1 << 30

// World file names under the output folder.
const (
	// WorldDataDir holds the blobs: data/0, data/1, …
	WorldDataDir = "data"
	// WorldLockName is the lock file beside data/.
	WorldLockName = "world-lock.json"
	// WorldLockFormat is the lock file's "format" value.
	WorldLockFormat = "meshcook-world-lock"
)

// WorldLock is world-lock.json: every blob with its SHA-256 and
// payload-section length, and every resource by stable name, sorted by
// name then kind (the world's name → (kind, handle) index; a name is
// unique within its kind).
type WorldLock struct {
	Format    string         `json:"format"`  // WorldLockFormat
	Version   int            `json:"version"` // 1
	Blobs     []LockBlob     `json:"blobs"`
	Resources []LockResource `json:"resources"`
}

// LockBlob is one blob file.
type LockBlob struct {
	Path         string `json:"path"` // "data/<i>", relative to the lock's folder
	SHA256       string `json:"sha256"`
	PayloadBytes uint64 `json:"payload_bytes"`
}

// LockResource is one resource. Blob is the blob holding its payload; a
// data resource (Material), whose bytes ride in blob 0's metadata, says 0.
type LockResource struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"` // cnb.ResourceKind's name: "Mesh", "Material", …
	Handle uint32 `json:"handle"`
	Blob   uint32 `json:"blob"`
	Scene  string `json:"scene,omitempty"` // the scene group holding it, if any
}

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
	files = append(files, outputFile{name: WorldLockName, kind: "lock", data: lockBytes, validate: func() error {
		_, err := ParseWorldLock(lockBytes)
		return err
	}})
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
	slices.SortFunc(w.lock.Resources, compareLock)
	return w, nil
}

func sceneIndices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// compareLock orders lock resources by name, then kind name: a name is
// unique within its kind (a material and its texture may share one).
func compareLock(a, b LockResource) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Kind, b.Kind))
}

// CheckWorldImages parses every blob of a world (images[i] is blob i) and
// checks it whole: blob 0 carries the metadata and the others are overflow
// blobs with empty metadata; every locator lies inside its blob; every
// Mesh payload parses strictly (payload.Parse) and matches its
// MeshBoundsRecord; every SkinnedMesh payload and Texture (KTX2) parses
// and validates. It returns blob 0's
// metadata.
func CheckWorldImages(images [][]byte) (*cnb.BlobMeta, error) {
	if len(images) == 0 {
		return nil, errors.New("cnb: no blob 0")
	}
	sections := make([][]byte, len(images))
	var meta *cnb.BlobMeta
	for i, img := range images {
		m, sec, err := cnb.ParseBlob(img)
		if err != nil {
			return nil, fmt.Errorf("blob %d: %w", i, err)
		}
		if i == 0 {
			meta = m
		} else if !m.IsEmpty() {
			return nil, fmt.Errorf("blob %d: overflow blob carries metadata", i)
		}
		sections[i] = sec
	}
	if int(meta.Manifest.MaxBlobIndex) != len(images)-1 {
		// Pack never plans a blob that holds no payload, so the last blob
		// is the highest one a locator names.
		return nil, fmt.Errorf("cnb: %d blobs but max_blob_index %d", len(images), meta.Manifest.MaxBlobIndex)
	}
	sizes := make([]uint64, len(sections))
	for i, s := range sections {
		sizes[i] = uint64(len(s))
	}
	if err := cnb.ValidateLocators(meta, sizes); err != nil {
		return nil, err
	}
	// Payloads are contiguous (cnb.Pack): a payload section longer than
	// the end of its last payload carries bytes no one reads.
	ends := make([]uint64, len(sections))
	for _, r := range meta.Resources {
		if l := r.Payload; l != nil {
			ends[l.BlobIndex] = max(ends[l.BlobIndex], l.Offset+l.Len)
		}
	}
	for _, d := range meta.Defs {
		if l := d.Payload; l != nil {
			ends[l.BlobIndex] = max(ends[l.BlobIndex], l.Offset+l.Len)
		}
	}
	for i := range sections {
		if sizes[i] != ends[i] {
			return nil, fmt.Errorf("cnb: blob %d: %d bytes after the last payload (payload section of %d bytes, payloads end at %d)", i, sizes[i]-ends[i], sizes[i], ends[i])
		}
	}
	bounds := map[uint32]cnb.MeshBoundsRecord{}
	for _, b := range meta.MeshBounds {
		bounds[b.Handle] = b
	}
	for i, r := range meta.Resources {
		if r.Kind == cnb.Material {
			if err := checkMaterialRow(r.Data); err != nil {
				return nil, fmt.Errorf("resources[%d] (Material %d) data: %w", i, r.Handle, err)
			}
		}
		if r.Payload == nil {
			continue
		}
		loc := r.Payload
		body := sections[loc.BlobIndex][loc.Offset : loc.Offset+loc.Len]
		switch r.Kind {
		case cnb.Mesh:
			m, err := payload.Parse(body)
			if err != nil {
				return nil, fmt.Errorf("resources[%d] (Mesh %d, blob %d offset %d): %w", i, r.Handle, loc.BlobIndex, loc.Offset, err)
			}
			b, ok := bounds[r.Handle]
			if !ok {
				return nil, fmt.Errorf("resources[%d] (Mesh %d): no MeshBoundsRecord", i, r.Handle)
			}
			lo, hi := payload.Bounds(m.Vertices)
			if b.Min != lo || b.Max != hi || b.VertexCount != uint32(len(m.Vertices)) || b.IndexCount != uint32(len(m.Indices)) {
				return nil, fmt.Errorf("resources[%d] (Mesh %d): MeshBoundsRecord %+v does not match the payload (min %v max %v, %d vertices, %d indices)",
					i, r.Handle, b, lo, hi, len(m.Vertices), len(m.Indices))
			}
		case cnb.Texture:
			if _, err := ktx2.Decode(body); err != nil { // Decode validates
				return nil, fmt.Errorf("resources[%d] (Texture %d, blob %d offset %d): %w", i, r.Handle, loc.BlobIndex, loc.Offset, err)
			}
		case cnb.SkinnedMesh:
			if _, err := payload.DecodeSkinnedWithLODs(body); err != nil {
				return nil, fmt.Errorf("resources[%d] (SkinnedMesh %d, blob %d offset %d): %w", i, r.Handle, loc.BlobIndex, loc.Offset, err)
			}
		}
	}
	return meta, nil
}

// checkMaterialRow validates a Material resource's data, one .hmat
// GpuMaterial row, with the .hmat reader's own checks (finite factors in
// range, known flags, …), so a NaN is refused here as in a .hmat.
func checkMaterialRow(row []byte) error {
	if len(row) != hmat.MaterialSize {
		return fmt.Errorf("%d bytes, a GpuMaterial row is %d", len(row), hmat.MaterialSize)
	}
	file := make([]byte, hmat.HeaderSize, hmat.HeaderSize+hmat.MaterialSize)
	binary.LittleEndian.PutUint32(file[0:], hmat.Magic)
	binary.LittleEndian.PutUint32(file[4:], hmat.Version)
	binary.LittleEndian.PutUint32(file[8:], 1)
	_, err := hmat.Decode(append(file, row...))
	return err
}

// validateBlobImage is one blob's own read-back check (the whole world was
// checked by CheckWorldImages before any file is written).
func validateBlobImage(img []byte, i int) func() error {
	return func() error {
		m, _, err := cnb.ParseBlob(img)
		if err != nil {
			return err
		}
		if i > 0 && !m.IsEmpty() {
			return fmt.Errorf("cnb: overflow blob %d carries metadata", i)
		}
		return nil
	}
}

// encodeLock writes the lock with stable formatting: two-space indent,
// fields in declaration order, a final newline.
func encodeLock(l *WorldLock) ([]byte, error) {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseWorldLock reads world-lock.json strictly (unknown fields are errors)
// and checks it on its own: format and version, blob paths data/0, data/1,
// … with 64-digit SHA-256s, resources sorted by unique name with known kinds,
// handles dense per kind and blobs that exist.
func ParseWorldLock(b []byte) (*WorldLock, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l WorldLock
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if dec.More() {
		return nil, errors.New("lock: data after the JSON object")
	}
	if l.Format != WorldLockFormat || l.Version != 1 {
		return nil, fmt.Errorf("lock: format %q version %d, want %q version 1", l.Format, l.Version, WorldLockFormat)
	}
	if len(l.Blobs) == 0 {
		return nil, errors.New("lock: no blobs (blob 0 is always written)")
	}
	for i, bl := range l.Blobs {
		if want := path.Join(WorldDataDir, strconv.Itoa(i)); bl.Path != want {
			return nil, fmt.Errorf("lock: blobs[%d]: path %q, want %q", i, bl.Path, want)
		}
		if d, err := hex.DecodeString(bl.SHA256); err != nil || len(d) != sha256.Size || strings.ToLower(bl.SHA256) != bl.SHA256 {
			return nil, fmt.Errorf("lock: blobs[%d]: sha256 %q is not 64 lowercase hex digits", i, bl.SHA256)
		}
	}
	var next [256]uint32
	seen := map[[2]uint32]bool{}
	for i, r := range l.Resources {
		if i > 0 && compareLock(l.Resources[i-1], r) >= 0 {
			return nil, fmt.Errorf("lock: resources[%d]: %s %q after %s %q: want sorted by name then kind, each pair once",
				i, r.Kind, r.Name, l.Resources[i-1].Kind, l.Resources[i-1].Name)
		}
		k, ok := cnb.ParseResourceKind(r.Kind)
		if !ok {
			return nil, fmt.Errorf("lock: resources[%d] (%s): unknown kind %q", i, r.Name, r.Kind)
		}
		key := [2]uint32{uint32(k), r.Handle}
		if seen[key] {
			return nil, fmt.Errorf("lock: resources[%d] (%s): %s handle %d listed twice", i, r.Name, r.Kind, r.Handle)
		}
		seen[key] = true
		next[k]++
		if int(r.Blob) >= len(l.Blobs) {
			return nil, fmt.Errorf("lock: resources[%d] (%s): blob %d, but the lock lists %d blobs", i, r.Name, r.Blob, len(l.Blobs))
		}
	}
	for key := range seen {
		if key[1] >= next[key[0]] {
			return nil, fmt.Errorf("lock: %s handles are not dense from 0 (handle %d of %d)", cnb.ResourceKind(key[0]), key[1], next[key[0]])
		}
	}
	return &l, nil
}

// CheckWorld checks a written world against its lock: dir holds
// world-lock.json and data/. Every blob the lock lists must exist with its
// SHA-256 and payload_bytes, no higher-numbered blob may be left beside
// them, the blobs must pass CheckWorldImages, and the lock's resources must
// be exactly blob 0's, each in the blob its locator names.
func CheckWorld(dir string, l *WorldLock) (*cnb.BlobMeta, error) {
	images := make([][]byte, len(l.Blobs))
	for i, bl := range l.Blobs {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(bl.Path)))
		if err != nil {
			return nil, fmt.Errorf("lock: blobs[%d]: %w", i, err)
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != bl.SHA256 {
			return nil, fmt.Errorf("lock: %s: sha256 %x, the lock says %s", bl.Path, sum, bl.SHA256)
		}
		images[i] = b
	}
	stale, err := staleBlobs(filepath.Join(dir, WorldDataDir), len(l.Blobs))
	if err != nil {
		return nil, err
	}
	if len(stale) > 0 {
		return nil, fmt.Errorf("lock: stale blob %s/%s beside the %d the lock lists", WorldDataDir, stale[0], len(l.Blobs))
	}
	meta, err := CheckWorldImages(images)
	if err != nil {
		return nil, err
	}
	for i, img := range images {
		h, _ := cnb.ParseHeader(img, cnb.KindBlob)
		if got := uint64(len(img)) - h.PayloadSectionStart(); got != l.Blobs[i].PayloadBytes {
			return nil, fmt.Errorf("lock: %s: payload_bytes %d, the blob has %d", l.Blobs[i].Path, l.Blobs[i].PayloadBytes, got)
		}
	}
	if len(meta.Resources) != len(l.Resources) {
		return nil, fmt.Errorf("lock: %d resources, blob 0 has %d", len(l.Resources), len(meta.Resources))
	}
	idx := map[[2]uint32]int{}
	for i, r := range meta.Resources {
		idx[[2]uint32{uint32(r.Kind), r.Handle}] = i
	}
	for _, lr := range l.Resources {
		k, _ := cnb.ParseResourceKind(lr.Kind)
		i, ok := idx[[2]uint32{uint32(k), lr.Handle}]
		if !ok {
			return nil, fmt.Errorf("lock: %s: %s %d is not in blob 0", lr.Name, lr.Kind, lr.Handle)
		}
		want := uint32(0)
		if p := meta.Resources[i].Payload; p != nil {
			want = p.BlobIndex
		}
		if lr.Blob != want {
			return nil, fmt.Errorf("lock: %s: blob %d, its locator names blob %d", lr.Name, lr.Blob, want)
		}
	}
	return meta, nil
}

// staleBlobs lists the blob files numbered n and above (decimal names
// without leading zeros, as the cook writes them) in dataDir, ascending.
func staleBlobs(dataDir string, n int) ([]string, error) {
	ents, err := os.ReadDir(dataDir)
	if err != nil {
		return nil, &OutputError{Path: dataDir, Err: unwrapPathError(err)}
	}
	var out []int
	for _, e := range ents {
		i, err := strconv.Atoi(e.Name())
		if err != nil || strconv.Itoa(i) != e.Name() || i < n || e.IsDir() {
			continue
		}
		out = append(out, i)
	}
	slices.Sort(out)
	names := make([]string, len(out))
	for k, i := range out {
		names[k] = strconv.Itoa(i)
	}
	return names, nil
}

// removeStaleBlobs deletes the blobs numbered n and above left by an
// earlier, larger cook; other files in dataDir are left alone.
func removeStaleBlobs(dataDir string, n int) error {
	stale, err := staleBlobs(dataDir, n)
	if err != nil {
		return err
	}
	for _, name := range stale {
		p := filepath.Join(dataDir, name)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &OutputError{Path: p, Err: fmt.Errorf("removing a stale blob: %w", unwrapPathError(err))}
		}
	}
	return nil
}
