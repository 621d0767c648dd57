package cnb

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// DeriveManifest computes the WorldManifest the record streams imply:
// component_counts counts defs per discriminant (ascending tag, non-zero
// only) and max_blob_index is the highest blob index any def or resource
// locator names (0 when none does).
func DeriveManifest(m *BlobMeta) WorldManifest {
	var counts [256]uint32
	var w WorldManifest
	for i := range m.Defs {
		counts[m.Defs[i].Discriminant]++
		if p := m.Defs[i].Payload; p != nil {
			w.MaxBlobIndex = max(w.MaxBlobIndex, p.BlobIndex)
		}
	}
	for i := range m.Resources {
		if p := m.Resources[i].Payload; p != nil {
			w.MaxBlobIndex = max(w.MaxBlobIndex, p.BlobIndex)
		}
	}
	for tag, n := range counts {
		if n > 0 {
			w.ComponentCounts = append(w.ComponentCounts, ComponentCount{Tag: uint8(tag), Count: n})
		}
	}
	return w
}

// KindCounts returns how many resources of each kind m holds, indexed by
// ResourceKind: the handle space of each kind is [0, count).
func KindCounts(m *BlobMeta) [256]uint32 {
	var n [256]uint32
	for i := range m.Resources {
		n[m.Resources[i].Kind]++
	}
	return n
}

// recordOffsets holds where each decoded record started, so that ParseBlob's
// validation errors can name a byte offset. Nil when validating memory.
type recordOffsets struct {
	defs, resources, groups, bounds []int64
	manifest                        int64
}

func (o *recordOffsets) at(list func(*recordOffsets) []int64, i int) int64 {
	if o == nil {
		return -1
	}
	if l := list(o); i < len(l) {
		return l[i]
	}
	return -1
}

func defsAt(o *recordOffsets) []int64      { return o.defs }
func resourcesAt(o *recordOffsets) []int64 { return o.resources }
func groupsAt(o *recordOffsets) []int64    { return o.groups }
func boundsAt(o *recordOffsets) []int64    { return o.bounds }

func bad(off int64, field, format string, args ...any) *FormatError {
	e := invalid(field, format, args...)
	e.Offset = off
	return e
}

func idx(name string, i int) string { return name + "[" + strconv.Itoa(i) + "]" }

// Validate checks what the metadata alone determines (the engine's
// invariants and meshcheck's):
//   - every def's kind is Component;
//   - resource kinds are known and handles dense per kind, in record order
//     (the n-th record of a kind has handle n);
//   - the manifest equals DeriveManifest (component_counts ascending and
//     non-zero, max_blob_index the highest referenced blob);
//   - scene groups: distinct scenes, each resource ref naming an existing
//     resource and each def id a named def, none in two groups;
//   - mesh_bounds: handles strictly ascending, each naming a Mesh
//     resource, finite, min ≤ max per axis.
//
// Locators against blob sizes are ValidateLocators' job. The zero BlobMeta
// (an overflow blob's) is valid.
func (m *BlobMeta) Validate() error { return m.validate(nil) }

func (m *BlobMeta) validate(o *recordOffsets) error {
	for i := range m.Defs {
		if k := m.Defs[i].Kind; k != AssetComponent {
			return bad(o.at(defsAt, i), idx("defs", i)+".kind", "AssetKind %d (only Component = 0 exists)", k)
		}
	}
	var next [256]uint32
	for i := range m.Resources {
		r := &m.Resources[i]
		if !r.Kind.Known() {
			return bad(o.at(resourcesAt, i), idx("resources", i)+".resource_kind", "unknown resource kind %d", r.Kind)
		}
		if r.Handle != next[r.Kind] {
			return bad(o.at(resourcesAt, i), idx("resources", i)+".handle", "%v handle %d, want %d: handles are dense per kind in record order", r.Kind, r.Handle, next[r.Kind])
		}
		next[r.Kind]++
	}
	manifestAt := int64(-1)
	if o != nil {
		manifestAt = o.manifest
	}
	want := DeriveManifest(m)
	got := m.Manifest
	if len(got.ComponentCounts) != len(want.ComponentCounts) {
		return bad(manifestAt, "manifest.component_counts", "%d entries, the defs give %d (ascending tags, non-zero counts)", len(got.ComponentCounts), len(want.ComponentCounts))
	}
	for i, c := range got.ComponentCounts {
		if c != want.ComponentCounts[i] {
			return bad(manifestAt, idx("manifest.component_counts", i), "(%d, %d), the defs give (%d, %d)", c.Tag, c.Count, want.ComponentCounts[i].Tag, want.ComponentCounts[i].Count)
		}
	}
	if got.MaxBlobIndex != want.MaxBlobIndex {
		return bad(manifestAt, "manifest.max_blob_index", "%d, but the streams reference blob %d at most", got.MaxBlobIndex, want.MaxBlobIndex)
	}

	named := map[AssetID]bool{}
	for i := range m.Defs {
		if n := m.Defs[i].Name; n != nil {
			named[*n] = true
		}
	}
	scenes := map[AssetID]bool{}
	groupOfRes := map[ResourceRef]int{}
	groupOfDef := map[AssetID]int{}
	for gi := range m.SceneGroups {
		g := &m.SceneGroups[gi]
		at := o.at(groupsAt, gi)
		f := idx("scene_groups", gi)
		if scenes[g.Scene] {
			return bad(at, f+".scene", "scene %d has two groups", g.Scene)
		}
		scenes[g.Scene] = true
		for j, r := range g.Resources {
			if !r.Kind.Known() || r.Handle >= next[r.Kind] {
				return bad(at, idx(f+".resources", j), "(%v, %d) names no resource", r.Kind, r.Handle)
			}
			if prev, dup := groupOfRes[r]; dup {
				return bad(at, idx(f+".resources", j), "(%v, %d) already belongs to scene group %d", r.Kind, r.Handle, prev)
			}
			groupOfRes[r] = gi
		}
		for j, d := range g.Defs {
			if !named[d] {
				return bad(at, idx(f+".defs", j), "asset %d names no def", d)
			}
			if prev, dup := groupOfDef[d]; dup {
				return bad(at, idx(f+".defs", j), "asset %d already belongs to scene group %d", d, prev)
			}
			groupOfDef[d] = gi
		}
	}

	for i := range m.MeshBounds {
		b := &m.MeshBounds[i]
		at := o.at(boundsAt, i)
		f := idx("mesh_bounds", i)
		if i > 0 && b.Handle <= m.MeshBounds[i-1].Handle {
			return bad(at, f+".handle", "handle %d after %d: records are sorted by handle, one per mesh", b.Handle, m.MeshBounds[i-1].Handle)
		}
		if b.Handle >= next[Mesh] {
			return bad(at, f+".handle", "handle %d names no Mesh resource (%d meshes)", b.Handle, next[Mesh])
		}
		for k := range 3 {
			lo, hi := float64(b.Min[k]), float64(b.Max[k])
			if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(hi) || math.IsInf(hi, 0) {
				return bad(at, f, "bounds not finite")
			}
			if lo > hi {
				return bad(at, f, "min %v > max %v", b.Min, b.Max)
			}
		}
	}
	return nil
}

// ValidateLocators checks every def and resource locator against the
// payload-section sizes of the world's blobs (payloadSizes[i] is blob i's
// payload-section length): the blob exists and [offset, offset+len) lies
// inside its payload section.
func ValidateLocators(m *BlobMeta, payloadSizes []uint64) error {
	check := func(p *PayloadLocator, field string) error {
		if p == nil {
			return nil
		}
		if uint64(p.BlobIndex) >= uint64(len(payloadSizes)) {
			return invalid(field, "blob %d does not exist (%d blobs)", p.BlobIndex, len(payloadSizes))
		}
		size := payloadSizes[p.BlobIndex]
		if p.Offset > size || p.Len > size-p.Offset {
			return invalid(field, "[%d, +%d) past the %d-byte payload section of blob %d", p.Offset, p.Len, size, p.BlobIndex)
		}
		return nil
	}
	for i := range m.Defs {
		if err := check(m.Defs[i].Payload, idx("defs", i)+".payload"); err != nil {
			return err
		}
	}
	for i := range m.Resources {
		if err := check(m.Resources[i].Payload, idx("resources", i)+".payload"); err != nil {
			return err
		}
	}
	return nil
}

// ValidateCache checks a cache segment's metadata against its payload
// section length: valid UTF-8 strings, known entry kinds, (kind, key)
// unique, every entry inside the payload section.
func ValidateCache(m *CacheMeta, payloadLen uint64) error { return validateCache(m, payloadLen, nil) }

// validateCache is ValidateCache; offs, when set, holds each entry's byte
// offset for the errors.
func validateCache(m *CacheMeta, payloadLen uint64, offs []int64) error {
	at := func(i int) int64 {
		if i < len(offs) {
			return offs[i]
		}
		return -1
	}
	if !utf8.ValidString(m.Toolchain) {
		return invalid("toolchain", "not valid UTF-8")
	}
	type key struct {
		k CacheEntryKind
		s string
	}
	seen := map[key]bool{}
	for i, c := range m.Entries {
		f := idx("entries", i)
		if c.Kind >= numCacheEntryKinds {
			return bad(at(i), f+".kind", "unknown cache entry kind %d", c.Kind)
		}
		if !utf8.ValidString(c.Key) {
			return bad(at(i), f+".key", "not valid UTF-8")
		}
		if seen[key{c.Kind, c.Key}] {
			return bad(at(i), f+".key", "duplicate key %q", c.Key)
		}
		seen[key{c.Kind, c.Key}] = true
		if c.Offset > payloadLen || c.Len > payloadLen-c.Offset {
			return bad(at(i), f, "[%d, +%d) past the %d-byte payload section", c.Offset, c.Len, payloadLen)
		}
	}
	return nil
}
