package ktx2

import (
	"encoding/binary"
	"fmt"
)

// The Data Format Descriptor is the one the Khronos Data Format
// Specification 1.3 defines for R8G8B8A8 (a single Basic Descriptor Block):
// RGBSDA color model, BT.709 primaries, sRGB or linear transfer, straight
// alpha, 1×1×1×1 texel block of 4 bytes, four 8-bit samples at bit offsets
// 0, 8, 16, 24 for R, G, B, A with range 0..255. The KTX 2.0 spec requires
// the LINEAR qualifier on the alpha sample when the transfer function is
// sRGB, because alpha is never sRGB-encoded.

// Basic Descriptor Block constants (Khronos Data Format Specification).
const (
	dfdVersion      = 2  // KHR_DF_VERSIONNUMBER_1_3
	dfdBlockSize    = 88 // 24 B header + 4 samples × 16 B
	dfdModelRGBSDA  = 1  // KHR_DF_MODEL_RGBSDA
	dfdPrimaryBT709 = 1  // KHR_DF_PRIMARIES_BT709 (= SRGB)
	dfdTransferLin  = 1  // KHR_DF_TRANSFER_LINEAR
	dfdTransferSRGB = 2  // KHR_DF_TRANSFER_SRGB
	dfdQualLinear   = 0x10
	dfdChannelAlpha = 15 // KHR_DF_CHANNEL_RGBSDA_ALPHA; R, G, B are 0, 1, 2
)

// dfdFor returns the 92-byte descriptor for vkFormat 37 or 43.
func dfdFor(vkFormat uint32) []byte {
	le := binary.LittleEndian
	d := make([]byte, DFDSize)
	le.PutUint32(d[0:], DFDSize)
	// @4: vendorId 0 (Khronos, 17 bits) and descriptorType 0 (basic, 15 bits).
	le.PutUint16(d[8:], dfdVersion)
	le.PutUint16(d[10:], dfdBlockSize)
	d[12] = dfdModelRGBSDA
	d[13] = dfdPrimaryBT709
	d[14] = dfdTransferLin
	if vkFormat == VkFormatR8G8B8A8SRGB {
		d[14] = dfdTransferSRGB
	}
	// @15 flags 0 (straight alpha); @16 texelBlockDimension0..3 0 (= 1).
	d[20] = bytesPerPixel // bytesPlane0; planes 1..7 are 0
	for i, ch := range [4]byte{0, 1, 2, dfdChannelAlpha} {
		s := d[28+16*i:]
		le.PutUint16(s[0:], uint16(8*i)) // bitOffset
		s[2] = 7                         // bitLength − 1
		s[3] = ch
		if ch == dfdChannelAlpha && d[14] == dfdTransferSRGB {
			s[3] |= dfdQualLinear
		}
		// @4 samplePosition0..3 0; @8 sampleLower 0.
		le.PutUint32(s[12:], 255) // sampleUpper
	}
	return d
}

// dfdField names the descriptor field holding byte rel of the DFD.
func dfdField(rel int) string {
	switch {
	case rel < 4:
		return "dfdTotalSize"
	case rel < 8:
		return "vendorId/descriptorType"
	case rel < 10:
		return "versionNumber"
	case rel < 12:
		return "descriptorBlockSize"
	case rel == 12:
		return "colorModel"
	case rel == 13:
		return "colorPrimaries"
	case rel == 14:
		return "transferFunction"
	case rel == 15:
		return "flags"
	case rel < 20:
		return fmt.Sprintf("texelBlockDimension%d", rel-16)
	case rel < 28:
		return fmt.Sprintf("bytesPlane%d", rel-20)
	}
	i, at := (rel-28)/16, (rel-28)%16
	name := [4]string{"R", "G", "B", "A"}[min(i, 3)]
	switch {
	case at < 2:
		return "sample " + name + " bitOffset"
	case at == 2:
		return "sample " + name + " bitLength"
	case at == 3:
		return "sample " + name + " channelType/qualifiers"
	case at < 8:
		return "sample " + name + " samplePosition"
	case at < 12:
		return "sample " + name + " sampleLower"
	}
	return "sample " + name + " sampleUpper"
}
