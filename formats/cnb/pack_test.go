package cnb

import (
	"reflect"
	"testing"
)

func TestPack(t *testing.T) {
	type want struct {
		group int
		items []int
		size  uint64
	}
	cases := []struct {
		name    string
		items   []PackItem
		ceiling uint64
		want    []want
	}{
		{"nothing: blob 0 still exists", nil, 100, []want{{Global, nil, 0}}},
		{"all fit", []PackItem{{Global, 40}, {Global, 60}}, 100, []want{{Global, []int{0, 1}, 100}}},
		{"exactly at the ceiling stays", []PackItem{{Global, 50}, {Global, 50}, {Global, 1}}, 100, []want{{Global, []int{0, 1}, 100}, {Global, []int{2}, 1}}},
		{"oversize sits alone", []PackItem{{Global, 10}, {Global, 500}, {Global, 10}}, 100, []want{{Global, []int{0}, 10}, {Global, []int{1}, 500}, {Global, []int{2}, 10}}},
		{"oversize first uses blob 0", []PackItem{{Global, 500}, {Global, 10}}, 100, []want{{Global, []int{0}, 500}, {Global, []int{1}, 10}}},
		{"scene groups start fresh blobs, ascending", []PackItem{{1, 5}, {Global, 10}, {0, 5}, {1, 5}, {0, 200}}, 100,
			[]want{{Global, []int{1}, 10}, {0, []int{2}, 5}, {0, []int{4}, 200}, {1, []int{0, 3}, 10}}},
		{"scene group never shares empty blob 0", []PackItem{{0, 5}}, 100, []want{{Global, nil, 0}, {0, []int{0}, 5}}},
		{"zero ceiling: one payload per blob", []PackItem{{Global, 1}, {Global, 1}}, 0, []want{{Global, []int{0}, 1}, {Global, []int{1}, 1}}},
		{"empty payloads never open a blob", []PackItem{{Global, 0}, {Global, 0}}, 0, []want{{Global, []int{0, 1}, 0}}},
	}
	for _, c := range cases {
		blobs, locs, err := Pack(c.items, c.ceiling)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []want
		for _, b := range blobs {
			got = append(got, want{b.Group, b.Items, b.Size})
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
			continue
		}
		// Locators tile each blob's payload section in placement order.
		for bi, b := range blobs {
			var off uint64
			for _, i := range b.Items {
				if locs[i] != (PayloadLocator{uint32(bi), off, c.items[i].Len}) {
					t.Errorf("%s: item %d locator %+v", c.name, i, locs[i])
				}
				off += c.items[i].Len
			}
		}
	}
	if _, _, err := Pack([]PackItem{{-2, 1}}, 10); err == nil {
		t.Fatal("group -2 accepted")
	}
}

func TestEncodeBlobsChecks(t *testing.T) {
	blobs, locs, _ := Pack([]PackItem{{Global, 3}}, 10)
	meta := &BlobMeta{Resources: []ResourceRecord{{Kind: Mesh, Payload: &locs[0]}}}
	if _, err := EncodeBlobs(meta, blobs, [][]byte{{1, 2}}); err == nil {
		t.Fatal("payload shorter than planned accepted")
	}
	if _, err := EncodeBlobs(meta, blobs, nil); err == nil {
		t.Fatal("missing payload accepted")
	}
	meta.Resources[0].Payload = &PayloadLocator{1, 0, 3}
	meta.Manifest = DeriveManifest(meta)
	if _, err := EncodeBlobs(meta, blobs, [][]byte{{1, 2, 3}}); err == nil {
		t.Fatal("locator into a missing blob accepted")
	}
	if _, err := EncodeBlobs(meta, nil, nil); err == nil {
		t.Fatal("no blobs accepted")
	}
}
