package hmat

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Dump writes a stable, exact text dump of ms (floats in strconv's shortest
// float32 'g' form), one material per line.
func Dump(w io.Writer, ms []Material) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "hmat v%d\nmaterials %d\n", Version, len(ms))
	for i, m := range ms {
		fmt.Fprintf(bw, "  m%d baseColor=%s emissive=%s metallic=%s roughness=%s normalScale=%s occlusion=%s alphaCutoff=%s flags=%#x alpha=%s doubleSided=%t",
			i, fv(m.BaseColorFactor[:]...), fv(m.EmissiveFactor[:]...), fv(m.Metallic), fv(m.Roughness), fv(m.NormalScale),
			fv(m.OcclusionStrength), fv(m.AlphaCutoff), m.Flags, alphaName(m.AlphaMode()), m.DoubleSided())
		fmt.Fprintf(bw, " baseColorTex=%#016x metallicRoughnessTex=%#016x normalTex=%#016x occlusionTex=%#016x emissiveTex=%#016x\n",
			m.BaseColorTex, m.MetallicRoughnessTex, m.NormalTex, m.OcclusionTex, m.EmissiveTex)
	}
	return bw.Flush()
}

func alphaName(m uint8) string {
	switch m {
	case AlphaOpaque:
		return "opaque"
	case AlphaMask:
		return "mask"
	case AlphaBlend:
		return "blend"
	}
	return "invalid"
}

func fv(xs ...float32) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(float64(x), 'g', -1, 32)
	}
	if len(xs) == 1 {
		return parts[0]
	}
	return "[" + strings.Join(parts, " ") + "]"
}
