package cnb

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/meshcook/meshcook/formats/hmat"
	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/formats/payload"
)

// This file holds the world's semantics above one blob: world-lock.json
// (the world's name index and blob checksums) and the checks of a whole
// world, every blob together. The cook builds and writes worlds; validate
// and inspect read them through these.

// World file names under the output folder.
const (
	// DataDir holds the blobs: data/0, data/1, …
	DataDir = "data"
	// LockName is the lock file beside data/.
	LockName = "world-lock.json"
	// LockFormat is the lock file's "format" value.
	LockFormat = "meshcook-world-lock"
)

// Lock is world-lock.json: every blob with its SHA-256 and
// payload-section length, and every resource by stable name, sorted by
// name then kind (the world's name → (kind, handle) index; a name is
// unique within its kind).
type Lock struct {
	Format    string         `json:"format"`  // LockFormat
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
	Kind   string `json:"kind"` // ResourceKind's name: "Mesh", "Material", …
	Handle uint32 `json:"handle"`
	Blob   uint32 `json:"blob"`
	Scene  string `json:"scene,omitempty"` // the scene group holding it, if any
}

// CompareLock orders lock resources by name, then kind name: a name is
// unique within its kind (a material and its texture may share one).
func CompareLock(a, b LockResource) int {
	return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Kind, b.Kind))
}

// CheckImages parses every blob of a world (images[i] is blob i) and
// checks it whole: blob 0 carries the metadata and the others are overflow
// blobs with empty metadata; every locator lies inside its blob; every
// Mesh payload parses strictly (payload.Parse) and matches its
// MeshBoundsRecord; every SkinnedMesh payload and Texture (KTX2) parses
// and validates. It returns blob 0's
// metadata.
func CheckImages(images [][]byte) (*BlobMeta, error) {
	if len(images) == 0 {
		return nil, errors.New("cnb: no blob 0")
	}
	sections := make([][]byte, len(images))
	var meta *BlobMeta
	for i, img := range images {
		m, sec, err := ParseBlob(img)
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
	if err := ValidateLocators(meta, sizes); err != nil {
		return nil, err
	}
	// Payloads are contiguous (Pack): a payload section longer than
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
	bounds := map[uint32]MeshBoundsRecord{}
	for _, b := range meta.MeshBounds {
		bounds[b.Handle] = b
	}
	for i, r := range meta.Resources {
		if r.Kind == Material {
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
		case Mesh:
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
		case Texture:
			if _, err := ktx2.Decode(body); err != nil { // Decode validates
				return nil, fmt.Errorf("resources[%d] (Texture %d, blob %d offset %d): %w", i, r.Handle, loc.BlobIndex, loc.Offset, err)
			}
		case SkinnedMesh:
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

// EncodeLock writes the lock with stable formatting: two-space indent,
// fields in declaration order, a final newline.
func EncodeLock(l *Lock) ([]byte, error) {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ParseLock reads world-lock.json strictly (unknown fields are errors)
// and checks it on its own: format and version, blob paths data/0, data/1,
// … with 64-digit SHA-256s, resources sorted by unique name with known kinds,
// handles dense per kind and blobs that exist.
func ParseLock(b []byte) (*Lock, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var l Lock
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if dec.More() {
		return nil, errors.New("lock: data after the JSON object")
	}
	if l.Format != LockFormat || l.Version != 1 {
		return nil, fmt.Errorf("lock: format %q version %d, want %q version 1", l.Format, l.Version, LockFormat)
	}
	if len(l.Blobs) == 0 {
		return nil, errors.New("lock: no blobs (blob 0 is always written)")
	}
	for i, bl := range l.Blobs {
		if want := path.Join(DataDir, strconv.Itoa(i)); bl.Path != want {
			return nil, fmt.Errorf("lock: blobs[%d]: path %q, want %q", i, bl.Path, want)
		}
		if d, err := hex.DecodeString(bl.SHA256); err != nil || len(d) != sha256.Size || strings.ToLower(bl.SHA256) != bl.SHA256 {
			return nil, fmt.Errorf("lock: blobs[%d]: sha256 %q is not 64 lowercase hex digits", i, bl.SHA256)
		}
	}
	var next [256]uint32
	seen := map[[2]uint32]bool{}
	for i, r := range l.Resources {
		if i > 0 && CompareLock(l.Resources[i-1], r) >= 0 {
			return nil, fmt.Errorf("lock: resources[%d]: %s %q after %s %q: want sorted by name then kind, each pair once",
				i, r.Kind, r.Name, l.Resources[i-1].Kind, l.Resources[i-1].Name)
		}
		k, ok := ParseResourceKind(r.Kind)
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
			return nil, fmt.Errorf("lock: %s handles are not dense from 0 (handle %d of %d)", ResourceKind(key[0]), key[1], next[key[0]])
		}
	}
	return &l, nil
}

// CheckWorld checks a written world against its lock: dir holds
// world-lock.json and data/. Every blob the lock lists must exist with its
// SHA-256 and payload_bytes, no higher-numbered blob may be left beside
// them, the blobs must pass CheckImages, and the lock's resources must
// be exactly blob 0's, each in the blob its locator names.
func CheckWorld(dir string, l *Lock) (*BlobMeta, error) {
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
	stale, err := StaleBlobs(filepath.Join(dir, DataDir), len(l.Blobs))
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if len(stale) > 0 {
		return nil, fmt.Errorf("lock: stale blob %s/%s beside the %d the lock lists", DataDir, stale[0], len(l.Blobs))
	}
	meta, err := CheckImages(images)
	if err != nil {
		return nil, err
	}
	for i, img := range images {
		h, _ := ParseHeader(img, KindBlob)
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
		k, _ := ParseResourceKind(lr.Kind)
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

// StaleBlobs lists the blob files numbered n and above (decimal names
// without leading zeros, as the cook writes them) in dataDir, ascending.
// The error is the *fs.PathError of reading dataDir.
func StaleBlobs(dataDir string, n int) ([]string, error) {
	ents, err := os.ReadDir(dataDir)
	if err != nil {
		return nil, err
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
