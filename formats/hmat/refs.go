package hmat

import (
	"hash/fnv"
	"path"
	"strconv"
	"strings"
)

// Leaf prefixes for sources' unnamed or ambiguous materials and images.
const (
	MaterialPrefix = "material"
	ImagePrefix    = "image"
)

// Hash returns the FNV-1a 64 of a canonical runtime ref: the value stored
// in .hmesh MTRL and in .hmat texture slots.
func Hash(ref string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(ref))
	return h.Sum64()
}

// Ref joins a source ref and a leaf: "<sourceRef>/<leaf>".
func Ref(sourceRef, leaf string) string { return sourceRef + "/" + leaf }

// SourceRef returns the canonical ref of a source asset from its path
// relative to the asset root: '\' becomes '/', the path is cleaned and
// lowercased, a leading "assets/" is stripped and the extension of the last
// element dropped ("assets/models/chair.glb" → "models/chair",
// `Assets\Props\Lamp.GLTF` → "props/lamp").
func SourceRef(relPath string) string {
	s := strings.ReplaceAll(relPath, `\`, "/")
	s = strings.ToLower(path.Clean(s))
	s = strings.TrimLeft(s, "/")
	s = strings.TrimPrefix(s, "./")
	s = strings.TrimPrefix(s, "assets/")
	return strings.TrimSuffix(s, path.Ext(s))
}

// Leaf returns Leaves(names, prefix)[i]: the leaf of the i-th entry of a
// source's material (prefix "material") or image (prefix "image") array.
func Leaf(names []string, i int, prefix string) string {
	return Leaves(names, prefix)[i]
}

// Leaves returns the ref leaf of every entry of a source's material or image
// array: the lowercased name when it is non-empty and unique within the
// array (compared lowercased, so "Wood" and "wood" are not unique), else
// prefix + "_" + index. A name that equals another entry's fallback (a name
// "material_1" when entry 1 is unnamed) also falls back, repeatedly until no
// two leaves are equal, so distinct entries never share a ref.
func Leaves(names []string, prefix string) []string {
	lower := make([]string, len(names))
	count := make(map[string]int, len(names))
	for i, n := range names {
		lower[i] = strings.ToLower(n)
		count[lower[i]]++
	}
	fallback := make([]bool, len(names))
	taken := map[string]bool{} // leaves used by fallbacks
	for i, l := range lower {
		if l == "" || count[l] > 1 {
			fallback[i] = true
			taken[prefix+"_"+strconv.Itoa(i)] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for i, l := range lower {
			if !fallback[i] && taken[l] {
				fallback[i] = true
				taken[prefix+"_"+strconv.Itoa(i)] = true
				changed = true
			}
		}
	}
	out := make([]string, len(names))
	for i, l := range lower {
		if fallback[i] {
			out[i] = prefix + "_" + strconv.Itoa(i)
		} else {
			out[i] = l
		}
	}
	return out
}

// Slots assigns dense material slots in first-use order. used[k] is the
// source material index the k-th submesh uses, or -1 for none. It returns
// each submesh's slot (NoMaterial for -1) and order, the source material
// index of each slot: MTRL[s] and .hmat row s describe source material
// order[s].
func Slots(used []int) (slots []uint32, order []int) {
	slots = make([]uint32, len(used))
	slotOf := map[int]uint32{}
	for k, m := range used {
		if m < 0 {
			slots[k] = NoMaterial
			continue
		}
		s, ok := slotOf[m]
		if !ok {
			s = uint32(len(order))
			slotOf[m] = s
			order = append(order, m)
		}
		slots[k] = s
	}
	return slots, order
}
