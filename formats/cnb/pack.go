package cnb

import (
	"fmt"
	"math"
	"slices"
)

// Global is PackItem.Group for content shared by the whole world (not owned
// by one scene): it packs first, from blob 0.
const Global = -1

// PackItem is one payload to place: its length and the scene group that
// owns it (an index into BlobMeta.SceneGroups), or Global.
type PackItem struct {
	Group int
	Len   uint64
}

// Blob is one planned blob file: blob i is written as <out>/data/<i>.
// Items lists the indices of the PackItems it holds, in payload order;
// Size is its payload-section length. Group is Global for blob 0 and the
// global overflow blobs, else the scene group whose payloads it holds.
type Blob struct {
	Group int
	Items []int
	Size  uint64
}

// Pack places payloads into blobs the way the engine's cook does, and
// returns the blobs and each item's locator (locs[i] for items[i]):
//   - blob 0 always exists, even when nothing has a payload; global items
//     pack first, from blob 0, in input order;
//   - then each scene group in ascending group index, items in input order,
//     starting a fresh blob (never sharing one with global content or
//     another group, so a scene's blobs load and unload with it); a group
//     with no items gets no blob;
//   - a new blob starts when the current one is non-empty (Size > 0) and
//     the next payload would take it past ceiling; a payload larger than
//     the ceiling therefore sits alone;
//   - payloads are contiguous: no padding between them.
//
// The caller orders items deterministically (meshcook: by resource kind,
// then handle, then defs in record order) so the same inputs give the same
// blobs. A negative group other than Global is an error.
func Pack(items []PackItem, ceiling uint64) ([]Blob, []PayloadLocator, error) {
	locs := make([]PayloadLocator, len(items))
	blobs := []Blob{{Group: Global}}
	place := func(i int) error {
		cur := &blobs[len(blobs)-1]
		n := items[i].Len
		if cur.Size > 0 && (cur.Size > ceiling || n > ceiling-cur.Size) {
			blobs = append(blobs, Blob{Group: cur.Group})
			cur = &blobs[len(blobs)-1]
		}
		if n > math.MaxUint64-cur.Size {
			return fmt.Errorf("cnb: pack: blob %d payload section overflows u64", len(blobs)-1)
		}
		if len(blobs)-1 > math.MaxUint32 {
			return fmt.Errorf("cnb: pack: more than 2^32 blobs")
		}
		locs[i] = PayloadLocator{BlobIndex: uint32(len(blobs) - 1), Offset: cur.Size, Len: n}
		cur.Items = append(cur.Items, i)
		cur.Size += n
		return nil
	}

	// Global content, then groups in ascending order.
	groups := map[int][]int{}
	var order []int
	for i, it := range items {
		switch {
		case it.Group == Global:
			if err := place(i); err != nil {
				return nil, nil, err
			}
		case it.Group < 0:
			return nil, nil, fmt.Errorf("cnb: pack: item %d: group %d (want Global or a scene group index)", i, it.Group)
		default:
			if _, seen := groups[it.Group]; !seen {
				order = append(order, it.Group)
			}
			groups[it.Group] = append(groups[it.Group], i)
		}
	}
	slices.Sort(order)
	for _, g := range order {
		blobs = append(blobs, Blob{Group: g})
		for _, i := range groups[g] {
			if err := place(i); err != nil {
				return nil, nil, err
			}
		}
	}
	return blobs, locs, nil
}

// PayloadSizes returns each blob's payload-section length, the input of
// ValidateLocators and the lock file's payload_bytes.
func PayloadSizes(blobs []Blob) []uint64 {
	s := make([]uint64, len(blobs))
	for i, b := range blobs {
		s[i] = b.Size
	}
	return s
}

// EncodeBlobs builds every blob image of a packed world: blob 0 carries
// meta, overflow blobs the empty BlobMeta; each payload section is the
// concatenation of its items' payloads (payloads[i] for item i) in the
// order Pack chose. meta's locators must be the ones Pack returned (or
// agree with them): ValidateLocators runs against the blob sizes. For
// worlds too large to hold in memory, write EncodeBlobPrefix and then
// stream the payloads instead.
func EncodeBlobs(meta *BlobMeta, blobs []Blob, payloads [][]byte) ([][]byte, error) {
	if len(blobs) == 0 {
		return nil, fmt.Errorf("cnb: no blobs: blob 0 always exists")
	}
	if err := ValidateLocators(meta, PayloadSizes(blobs)); err != nil {
		return nil, err
	}
	out := make([][]byte, len(blobs))
	for bi, b := range blobs {
		section := make([]byte, 0, b.Size)
		for _, i := range b.Items {
			if i < 0 || i >= len(payloads) {
				return nil, fmt.Errorf("cnb: blob %d: item %d has no payload (%d given)", bi, i, len(payloads))
			}
			section = append(section, payloads[i]...)
		}
		if uint64(len(section)) != b.Size {
			return nil, fmt.Errorf("cnb: blob %d: payloads total %d bytes, planned %d", bi, len(section), b.Size)
		}
		m := &BlobMeta{}
		if bi == 0 {
			m = meta
		}
		img, err := EncodeBlob(m, section)
		if err != nil {
			return nil, err
		}
		out[bi] = img
	}
	return out, nil
}
