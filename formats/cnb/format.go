// Package cnb reads and writes the .cnb blob container (seed 004): a
// 16-byte header, a postcard-encoded metadata block, then a raw payload
// section to the end of the file.
//
//	magic [4]u8 @0 | validity token u32 @4 | meta_len u64 @8 | meta | payload section
//
// Two kinds share the header: a cooked world (BlobMeta, magic "CNB\0",
// token SchemaVersion) and a cache segment (CacheMeta, magic "CNC\0",
// token CacheSegmentVersion). The magic belongs to the kind, so a file is
// never read as a kind it was not written for.
//
// Like the engine's own module, this package performs no I/O: it turns
// metadata and payload bytes into blob images and back, validates the
// metadata, and plans how payloads spread over blob files (Pack). Where the
// files live is the caller's business. Metadata is decoded exactly
// (formats/postcard, strict): trailing metadata bytes, overlong varints and
// unknown enum variants are errors, so ParseBlob → EncodeBlob gives back the
// input bytes. docs/formats/cnb.md has every field and meshcook's decisions.
package cnb

import (
	"errors"
	"fmt"
	"strings"
)

// HeaderSize is the fixed header: magic (4) + validity token (4) +
// meta_len (8).
const HeaderSize = 16

// Validity tokens: a file stamped with another value is refused (recook or
// regenerate), since postcard cannot tell a layout change from valid bytes.
const (
	SchemaVersion       = 1 // BlobMeta (cooked world)
	CacheSegmentVersion = 2 // CacheMeta (cache segment)
)

// Magics.
const (
	BlobMagic  = "CNB\x00"
	CacheMagic = "CNC\x00"
)

// Kind selects a container kind: its magic and validity token.
type Kind uint8

const (
	KindBlob  Kind = iota // cooked world: BlobMeta
	KindCache             // cache segment: CacheMeta
)

// Magic returns the kind's four magic bytes.
func (k Kind) Magic() string {
	if k == KindCache {
		return CacheMagic
	}
	return BlobMagic
}

// Token returns the validity token the kind's header carries.
func (k Kind) Token() uint32 {
	if k == KindCache {
		return CacheSegmentVersion
	}
	return SchemaVersion
}

func (k Kind) tokenName() string {
	if k == KindCache {
		return "CACHE_SEGMENT_VERSION"
	}
	return "SCHEMA_VERSION"
}

// AssetID names an asset (a component def, a scene).
type AssetID uint32

// AssetKind is the per-def discriminator; the blob carries only
// components, so Component (0) is its single variant.
type AssetKind uint32

// AssetComponent is AssetKind's only variant.
const AssetComponent AssetKind = 0

// ResourceKind selects a per-kind resource table (the record's u8 tag).
type ResourceKind uint8

// Resource kinds, in the engine's assignment order.
const (
	Mesh ResourceKind = iota
	Texture
	Material
	Font
	AudioClip
	CubemapTexture
	EnvironmentMap
	ColorLut
	SkinnedMesh
	numResourceKinds
)

// String returns the kind's name, or "ResourceKind(n)" for an unknown tag.
func (k ResourceKind) String() string {
	switch k {
	case Mesh:
		return "Mesh"
	case Texture:
		return "Texture"
	case Material:
		return "Material"
	case Font:
		return "Font"
	case AudioClip:
		return "AudioClip"
	case CubemapTexture:
		return "CubemapTexture"
	case EnvironmentMap:
		return "EnvironmentMap"
	case ColorLut:
		return "ColorLut"
	case SkinnedMesh:
		return "SkinnedMesh"
	}
	return fmt.Sprintf("ResourceKind(%d)", uint8(k))
}

// Known reports whether k is one of the nine kinds.
func (k ResourceKind) Known() bool { return k < numResourceKinds }

// ParseResourceKind returns the kind with the given name (as String writes
// it), for lock files and CLI flags.
func ParseResourceKind(name string) (ResourceKind, bool) {
	for k := range numResourceKinds {
		if strings.EqualFold(k.String(), name) {
			return k, true
		}
	}
	return 0, false
}

// PayloadLocator addresses bytes in a blob's payload section: Offset is
// from the start of the payload section of blob BlobIndex.
type PayloadLocator struct {
	BlobIndex uint32
	Offset    uint64
	Len       uint64
}

// BlobAssetDef is one component record. Name and Payload are Options (nil
// = None).
type BlobAssetDef struct {
	Name         *AssetID
	Kind         AssetKind
	Discriminant uint8 // the component tag counted by WorldManifest
	Args         []byte
	Payload      *PayloadLocator
}

// ResourceRecord is one resource: Handle is its dense index within Kind.
// A payload resource (mesh, texture, audio clip) sets Payload; a data
// resource (material) carries Data. Both are encoded either way.
type ResourceRecord struct {
	Kind    ResourceKind
	Handle  uint32
	Payload *PayloadLocator
	Data    []byte
}

// ComponentCount is one (tag, count) pair of WorldManifest.
type ComponentCount struct {
	Tag   uint8
	Count uint32
}

// WorldManifest summarises the record streams: per-tag def counts
// (ascending tag, non-zero only) and the highest blob index any locator
// names. DeriveManifest computes it.
type WorldManifest struct {
	ComponentCounts []ComponentCount
	MaxBlobIndex    uint32
}

// ResourceRef is a (kind, handle) pair naming a resource.
type ResourceRef struct {
	Kind   ResourceKind
	Handle uint32
}

// SceneGroup is one scene's exclusively owned content: resources and
// payload-carrying defs reachable only from it. Groups are listed in scene
// declaration order; their payloads pack into blobs after the global set.
type SceneGroup struct {
	Scene     AssetID
	Resources []ResourceRef
	Defs      []AssetID
}

// MeshBoundsRecord summarises one static mesh payload: positions' AABB and
// the vertex and LOD0 index counts. Records are sorted by handle.
type MeshBoundsRecord struct {
	Handle      uint32
	Min, Max    [3]float32
	VertexCount uint32
	IndexCount  uint32
}

// PhysicsBudgetRecord is the bodies a world's physics reserves, by kind.
type PhysicsBudgetRecord struct {
	Fixed, Dynamic, Kinematic, Sensors, Joints, Anchors, SpawnHeadroom uint32
}

// BlobMeta is a cooked world's metadata block. Blob 0 carries the full
// metadata; overflow blobs carry the zero BlobMeta (all vectors empty,
// manifest {[], 0}, no physics budget).
type BlobMeta struct {
	Defs          []BlobAssetDef
	Resources     []ResourceRecord
	Manifest      WorldManifest
	SceneGroups   []SceneGroup
	MeshBounds    []MeshBoundsRecord
	PhysicsBudget *PhysicsBudgetRecord
}

// IsEmpty reports whether m is the empty metadata of an overflow blob.
func (m *BlobMeta) IsEmpty() bool {
	return len(m.Defs) == 0 && len(m.Resources) == 0 && len(m.Manifest.ComponentCounts) == 0 &&
		m.Manifest.MaxBlobIndex == 0 && len(m.SceneGroups) == 0 && len(m.MeshBounds) == 0 && m.PhysicsBudget == nil
}

// CacheEntryKind says which producer owns a cache entry.
type CacheEntryKind uint32

// Cache entry kinds (enum variants).
const (
	CachePipeline CacheEntryKind = iota
	CacheShader
	CachePayload
	CacheExpansion
	CacheThumbnail
	numCacheEntryKinds
)

// CacheEntry is one cached artifact at [Offset, Offset+Len) of the
// segment's payload section.
type CacheEntry struct {
	Kind   CacheEntryKind
	Key    string
	Offset uint64
	Len    uint64
}

// CacheMeta is a cache segment's metadata: the toolchain it is valid for
// and the index of its payload section.
type CacheMeta struct {
	Toolchain string
	Entries   []CacheEntry
}

// ErrFormat is matched by errors.Is for every *FormatError.
var ErrFormat = errors.New("cnb: malformed data")

// FormatError reports a malformed or invalid blob. Offset is the absolute
// byte offset in the blob image, or -1 for a problem found in memory (by
// Validate on metadata that was not decoded). Field names the metadata
// field involved, e.g. "resources[3].payload.offset". Err is an underlying
// cause (a *postcard.FormatError, io.ErrUnexpectedEOF).
type FormatError struct {
	Offset int64
	Field  string
	Msg    string
	Err    error
}

func (e *FormatError) Error() string {
	s := "cnb: "
	if e.Offset >= 0 {
		s += fmt.Sprintf("offset %#x: ", e.Offset)
	}
	if e.Field != "" {
		s += e.Field + ": "
	}
	s += e.Msg
	return s
}

// Unwrap returns the underlying cause, if any.
func (e *FormatError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrFormat) true for every FormatError.
func (e *FormatError) Is(target error) bool { return target == ErrFormat }

func invalid(field, format string, args ...any) *FormatError {
	return &FormatError{Offset: -1, Field: field, Msg: fmt.Sprintf(format, args...)}
}
