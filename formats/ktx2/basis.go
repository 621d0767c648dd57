package ktx2

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/meshcook/meshcook/internal/par"
)

// Basis Universal textures (docs/formats/ktx2.md "Basis Universal").
//
// Both codecs store vkFormat 0 (VK_FORMAT_UNDEFINED), 4×4 blocks and a DFD
// whose color model names the codec:
//
//	UASTC  colorModel 166, bytesPlane0 16, one 128-bit sample RGB (0) or
//	       RGBA (3); each level is its blocks in raster order, Zstandard
//	       compressed (supercompressionScheme 2), uncompressedByteLength =
//	       blocks × 16
//	ETC1S  colorModel 163, bytesPlane0 8 (and bytesPlane1 8 with alpha),
//	       samples RGB (0) at bit 0 and, with alpha, AAA (15) at bit 64;
//	       BasisLZ (scheme 1): codebooks and Huffman tables in the
//	       supercompression global data, each level one RGB slice (then one
//	       alpha slice), uncompressedByteLength 0
//
// Levels are stored smallest first with no padding (the KTX 2.0 alignment
// of supercompressed levels is 1), the global data on an 8-byte boundary
// after the key/value data. Blocks past the right or bottom edge of a level
// hold copies of its last column or row.

// Codec is how a texture's pixels are stored.
type Codec int

const (
	CodecRGBA8 Codec = iota // uncompressed R8G8B8A8 (vkFormat 37/43)
	CodecUASTC              // Basis Universal UASTC LDR 4×4 + Zstandard
	CodecETC1S              // Basis Universal ETC1S + BasisLZ
)

func (c Codec) String() string {
	switch c {
	case CodecRGBA8:
		return "rgba8"
	case CodecUASTC:
		return "uastc"
	case CodecETC1S:
		return "etc1s"
	}
	return fmt.Sprintf("Codec(%d)", int(c))
}

// ParseCodec reads a codec name as String writes it.
func ParseCodec(s string) (Codec, error) {
	for _, c := range []Codec{CodecRGBA8, CodecUASTC, CodecETC1S} {
		if c.String() == s {
			return c, nil
		}
	}
	return 0, fmt.Errorf("ktx2: unknown codec %q (want rgba8, uastc or etc1s)", s)
}

// Supercompression schemes and DFD color models of the Basis codecs.
const (
	schemeNone    = 0
	schemeBasisLZ = 1
	schemeZstd    = 2

	dfdModelETC1S = 163 // KHR_DF_MODEL_ETC1S
	dfdModelUASTC = 166 // KHR_DF_MODEL_UASTC

	chanRGB   = 0  // KHR_DF_CHANNEL_UASTC_RGB, KHR_DF_CHANNEL_ETC1S_RGB
	chanRGBA  = 3  // KHR_DF_CHANNEL_UASTC_RGBA
	chanAAA   = 15 // KHR_DF_CHANNEL_ETC1S_AAA
	zstdLevel = zstd.SpeedBestCompression
)

// Quality bounds for Options.Quality.
const (
	MinQuality     = 1
	MaxQuality     = 100
	DefaultQuality = 80
)

// Options say how FromImageOptions stores a texture.
type Options struct {
	Codec Codec
	// Quality is 1..100 (0 means DefaultQuality). UASTC: below 100 the
	// block search tries fewer modes (>= 90 all of them, >= 50 the 5-bit
	// and dual-plane modes too); ETC1S: the codebook sizes grow with it,
	// and the refinement passes (>= 50) and fit search (>= 90) step up.
	Quality int
	// MaxSize, when > 0, shrinks a base image whose larger side exceeds
	// it (area average, linear light for color) so that side is MaxSize,
	// keeping the aspect ratio (the other side rounded, at least 1).
	MaxSize int
}

func (o Options) quality() int {
	if o.Quality == 0 {
		return DefaultQuality
	}
	return o.Quality
}

func (o Options) check() error {
	if o.Codec < CodecRGBA8 || o.Codec > CodecETC1S {
		return errAt(-1, "unknown codec %d", int(o.Codec))
	}
	if q := o.quality(); q < MinQuality || q > MaxQuality {
		return errAt(-1, "quality %d outside %d..%d", o.Quality, MinQuality, MaxQuality)
	}
	if o.MaxSize < 0 {
		return errAt(-1, "max size %d is negative", o.MaxSize)
	}
	return nil
}

// blockGrid returns the 4×4 block counts of a w×h level.
func blockGrid(w, h int) (int, int) { return (w + 3) / 4, (h + 3) / 4 }

// blockPixels copies block (bx, by) of lv, clamping to the last row and
// column past the edges.
func blockPixels(lv *Level, bx, by int, out *[16][4]uint8) {
	for y := range 4 {
		sy := min(by*4+y, lv.Height-1)
		for x := range 4 {
			sx := min(bx*4+x, lv.Width-1)
			i := (sy*lv.Width + sx) * 4
			copy(out[y*4+x][:], lv.Pixels[i:i+4])
		}
	}
}

// storeBlock writes decoded block pixels into lv, dropping those past the
// edges.
func storeBlock(lv *Level, bx, by int, px *[16][4]uint8) {
	for y := range 4 {
		sy := by*4 + y
		if sy >= lv.Height {
			break
		}
		for x := range 4 {
			sx := bx*4 + x
			if sx >= lv.Width {
				break
			}
			copy(lv.Pixels[(sy*lv.Width+sx)*4:], px[y*4+x][:])
		}
	}
}

// hasAlpha reports whether any pixel of the base level is not opaque.
func hasAlpha(lv *Level) bool {
	for i := 3; i < len(lv.Pixels); i += 4 {
		if lv.Pixels[i] != 255 {
			return true
		}
	}
	return false
}

// rowsPerPiece is how many block rows one parallel piece encodes.
const rowsPerPiece = 8

// encodeUASTCLevel encodes a level's blocks in raster order on up to
// GOMAXPROCS goroutines; each piece writes only its own rows.
func encodeUASTCLevel(lv *Level, effort uastcEffort) []byte {
	bw, bh := blockGrid(lv.Width, lv.Height)
	out := make([]byte, bw*bh*16)
	par.Ranges(bh, rowsPerPiece, func(_, lo, hi int) {
		var px [16][4]uint8
		for by := lo; by < hi; by++ {
			for bx := range bw {
				blockPixels(lv, bx, by, &px)
				blk, _ := encodeUASTC(&px, effort)
				copy(out[(by*bw+bx)*16:], blk[:])
			}
		}
	})
	return out
}

// Encoder writes textures. It owns what Basis encoding reuses between
// textures: the Zstandard encoder of UASTC levels (its match tables are
// about 50 MB, made on the first UASTC texture), so a caller encoding many
// textures makes one Encoder and Closes it when done. Its methods may run
// on several goroutines at once (their Zstandard steps take turns); the
// bytes they return depend only on their arguments, never on what the
// Encoder encoded before. The zero value is ready to use.
type Encoder struct {
	mu   sync.Mutex
	zstd *zstd.Encoder
}

// zstdEncoder returns the Encoder's Zstandard encoder, made on first use.
func (e *Encoder) zstdEncoder() (*zstd.Encoder, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.zstd == nil {
		z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstdLevel), zstd.WithEncoderConcurrency(1),
			zstd.WithZeroFrames(true), zstd.WithEncoderCRC(false))
		if err != nil {
			return nil, fmt.Errorf("ktx2: zstd encoder: %w", err)
		}
		e.zstd = z
	}
	return e.zstd, nil
}

// Close releases the Encoder's buffers; it may be used again afterwards
// (they are made anew). The Zstandard encoder is only used through
// EncodeAll, which leaves no stream to flush, so closing it cannot fail.
func (e *Encoder) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.zstd != nil {
		_ = e.zstd.Close() // nothing to flush; see above
		e.zstd = nil
	}
}

// basisFile is what the Basis writer lays out: per level the stored bytes
// and the uncompressed length, plus the DFD and global data.
type basisFile struct {
	width, height int
	scheme        uint32
	dfd           []byte
	sgd           []byte
	levels        [][]byte
	uncompressed  []uint64
	kv            map[string][]byte
}

// dfdBasis returns the DFD of a Basis codec: model 166 or 163, transfer
// sRGB for color, 4×4 blocks, and the samples listed in the package doc.
func dfdBasis(c Codec, kind Kind, alpha bool) []byte {
	le := binary.LittleEndian
	nSamples := 1
	if c == CodecETC1S && alpha {
		nSamples = 2
	}
	size := 4 + 24 + 16*nSamples
	d := make([]byte, size)
	le.PutUint32(d[0:], uint32(size))
	le.PutUint16(d[8:], dfdVersion)
	le.PutUint16(d[10:], uint16(24+16*nSamples))
	d[13] = dfdPrimaryBT709
	d[14] = dfdTransferLin
	if kind == KindColor {
		d[14] = dfdTransferSRGB
	}
	d[16], d[17] = 3, 3 // texelBlockDimension0/1: 4×4
	switch c {
	case CodecUASTC:
		d[12] = dfdModelUASTC
		d[20] = 16
		s := d[28:]
		s[2] = 127
		s[3] = chanRGB
		if alpha {
			s[3] = chanRGBA
		}
		le.PutUint32(s[12:], 0xFFFFFFFF)
	case CodecETC1S:
		d[12] = dfdModelETC1S
		d[20] = 8
		for i := range nSamples {
			s := d[28+16*i:]
			le.PutUint16(s[0:], uint16(64*i))
			s[2] = 63
			s[3] = chanRGB
			if i == 1 {
				s[3] = chanAAA
				d[21] = 8
			}
			le.PutUint32(s[12:], 0xFFFFFFFF)
		}
	}
	return d
}

// writeBasis serializes a Basis file: header, level index, DFD, key/value
// data, global data on an 8-byte boundary, then the levels smallest first
// without padding.
func writeBasis(f *basisFile) []byte {
	le := binary.LittleEndian
	kvd := kvdBytes(f.kv)
	n := len(f.levels)
	dfdOff := HeaderSize + LevelEntrySize*n
	kvdOff := dfdOff + len(f.dfd)
	at := kvdOff + len(kvd)
	sgdOff := 0
	if len(f.sgd) > 0 {
		sgdOff = alignUp(at, 8)
		at = sgdOff + len(f.sgd)
	}
	offs := make([]int, n)
	for p := n - 1; p >= 0; p-- {
		offs[p] = at
		at += len(f.levels[p])
	}
	b := make([]byte, at)
	copy(b, identifier)
	for i, v := range [9]uint32{0, 1, uint32(f.width), uint32(f.height), 0, 0, 1, uint32(n), f.scheme} {
		le.PutUint32(b[12+4*i:], v)
	}
	le.PutUint32(b[48:], uint32(dfdOff))
	le.PutUint32(b[52:], uint32(len(f.dfd)))
	if len(kvd) > 0 {
		le.PutUint32(b[56:], uint32(kvdOff))
		le.PutUint32(b[60:], uint32(len(kvd)))
	}
	if len(f.sgd) > 0 {
		le.PutUint64(b[64:], uint64(sgdOff))
		le.PutUint64(b[72:], uint64(len(f.sgd)))
	}
	for p := range n {
		e := b[HeaderSize+LevelEntrySize*p:]
		le.PutUint64(e[0:], uint64(offs[p]))
		le.PutUint64(e[8:], uint64(len(f.levels[p])))
		le.PutUint64(e[16:], f.uncompressed[p])
	}
	copy(b[dfdOff:], f.dfd)
	copy(b[kvdOff:], kvd)
	copy(b[sgdOff:], f.sgd)
	for p := range n {
		copy(b[offs[p]:], f.levels[p])
	}
	return b
}

// uastcEffortFor maps a quality to the modes UASTC tries.
func uastcEffortFor(q int) uastcEffort {
	switch {
	case q >= 90:
		return uastcBest
	case q >= 50:
		return uastcGood
	}
	return uastcFast
}

// EncodeBasis is Encoder.EncodeBasis with an Encoder of its own.
func EncodeBasis(levels []Level, kind Kind, writer string, o Options) ([]byte, error) {
	var e Encoder
	defer e.Close()
	return e.EncodeBasis(levels, kind, writer, o)
}

// EncodeBasis returns the KTX2 bytes of a full mip chain (as Encode takes
// it) stored with a Basis Universal codec (o.Codec CodecUASTC or
// CodecETC1S; o.MaxSize is ignored here). Blocks (UASTC) and codebook
// passes (ETC1S) run on up to GOMAXPROCS goroutines and join in a fixed
// order, so the bytes depend only on the arguments.
func (e *Encoder) EncodeBasis(levels []Level, kind Kind, writer string, o Options) ([]byte, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if o.Codec != CodecUASTC && o.Codec != CodecETC1S {
		return nil, errAt(-1, "EncodeBasis: codec %v is not a Basis codec", o.Codec)
	}
	if err := checkWriter(writer); err != nil {
		return nil, err
	}
	if kind.VkFormat() == 0 {
		return nil, errAt(-1, "unknown kind %d", int(kind))
	}
	if len(levels) == 0 {
		return nil, errAt(-1, "no levels")
	}
	chk := &File{VkFormat: kind.VkFormat(), Width: levels[0].Width, Height: levels[0].Height, Levels: levels,
		KeyValues: map[string][]byte{KeyOrientation: []byte(Orientation + "\x00"), KeyWriter: []byte(writer + "\x00")}}
	if err := Validate(chk); err != nil {
		return nil, err
	}
	alpha := hasAlpha(&levels[0])
	f := &basisFile{
		width: levels[0].Width, height: levels[0].Height,
		dfd:          dfdBasis(o.Codec, kind, alpha),
		levels:       make([][]byte, len(levels)),
		uncompressed: make([]uint64, len(levels)),
		kv:           chk.KeyValues,
	}
	switch o.Codec {
	case CodecUASTC:
		f.scheme = schemeZstd
		effort := uastcEffortFor(o.quality())
		enc, err := e.zstdEncoder()
		if err != nil {
			return nil, err
		}
		// Levels one after another (each is parallel inside); the small
		// ones are cheap.
		for p := range levels {
			raw := encodeUASTCLevel(&levels[p], effort)
			f.uncompressed[p] = uint64(len(raw))
			f.levels[p] = enc.EncodeAll(raw, nil)
		}
	case CodecETC1S:
		f.scheme = schemeBasisLZ
		sgd, data, err := encodeETC1S(levels, alpha, o.quality())
		if err != nil {
			return nil, err
		}
		f.sgd = sgd
		f.levels = data
	}
	return writeBasis(f), nil
}
