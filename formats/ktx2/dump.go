package ktx2

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
)

// Dump writes a stable text summary of f for inspect and golden tests: the
// format and size, every key with its raw value quoted, and per level its
// size, byte count, mean R, G, B, A (rounded) and the FNV-1a 64 of its
// pixels (for Basis codecs, the decoded pixels).
func Dump(w io.Writer, f *File) error {
	bw := bufio.NewWriter(w)
	name := "R8G8B8A8_UNORM"
	switch {
	case f.Codec != CodecRGBA8:
		name = "linear"
		if f.SRGB() {
			name = "sRGB"
		}
		name = fmt.Sprintf("%v %s", f.Codec, name)
	case f.VkFormat == VkFormatR8G8B8A8SRGB:
		name = "R8G8B8A8_SRGB"
	}
	fmt.Fprintf(bw, "ktx2 vkFormat %d (%s) %d×%d levels %d\n", f.VkFormat, name, f.Width, f.Height, len(f.Levels))
	keys := make([]string, 0, len(f.KeyValues))
	for k := range f.KeyValues {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(bw, "  key %s %q\n", k, f.KeyValues[k])
	}
	for p, lv := range f.Levels {
		var sum [4]uint64
		for i, v := range lv.Pixels {
			sum[i&3] += uint64(v)
		}
		n := max(1, uint64(len(lv.Pixels)/4))
		h := fnv.New64a()
		h.Write(lv.Pixels)
		fmt.Fprintf(bw, "  level %d %d×%d %d B mean %d,%d,%d,%d fnv1a %#016x\n", p, lv.Width, lv.Height, len(lv.Pixels),
			(sum[0]+n/2)/n, (sum[1]+n/2)/n, (sum[2]+n/2)/n, (sum[3]+n/2)/n, h.Sum64())
	}
	return bw.Flush()
}
