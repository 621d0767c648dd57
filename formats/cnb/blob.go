package cnb

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Header is the fixed 16-byte blob header.
type Header struct {
	Magic   [4]byte
	Token   uint32
	MetaLen uint64
}

// PayloadSectionStart returns HeaderSize + MetaLen: the absolute offset of
// the payload section, which a PayloadLocator offset is relative to.
func (h Header) PayloadSectionStart() uint64 { return HeaderSize + h.MetaLen }

// ParseHeader reads and checks the header of a blob of kind k: the magic,
// then the validity token. It needs only the first HeaderSize bytes.
func ParseHeader(b []byte, k Kind) (Header, error) {
	var h Header
	if len(b) < 4 {
		return h, &FormatError{Offset: int64(len(b)), Msg: fmt.Sprintf("truncated header: %d bytes, need %d", len(b), HeaderSize), Err: io.ErrUnexpectedEOF}
	}
	copy(h.Magic[:], b)
	if string(h.Magic[:]) != k.Magic() {
		return h, &FormatError{Offset: 0, Msg: fmt.Sprintf("bad magic %q, want %q", h.Magic[:], k.Magic())}
	}
	if len(b) < HeaderSize {
		return h, &FormatError{Offset: int64(len(b)), Msg: fmt.Sprintf("truncated header: %d bytes, need %d", len(b), HeaderSize), Err: io.ErrUnexpectedEOF}
	}
	h.Token = binary.LittleEndian.Uint32(b[4:])
	if h.Token != k.Token() {
		return h, &FormatError{Offset: 4, Msg: fmt.Sprintf("validity token %d, want %s %d: recook", h.Token, k.tokenName(), k.Token())}
	}
	h.MetaLen = binary.LittleEndian.Uint64(b[8:])
	if h.MetaLen > math.MaxUint64-HeaderSize {
		return h, &FormatError{Offset: 8, Msg: fmt.Sprintf("meta_len %d overflows", h.MetaLen)}
	}
	return h, nil
}

// PayloadSectionStart reads the payload-section offset (16 + meta_len) from
// the header alone, so a caller holding only the first HeaderSize bytes can
// turn a locator into an absolute file offset without loading the image.
// The magic and validity token of kind k are checked.
func PayloadSectionStart(header []byte, k Kind) (uint64, error) {
	h, err := ParseHeader(header, k)
	if err != nil {
		return 0, err
	}
	return h.PayloadSectionStart(), nil
}

// split checks the header and that meta_len fits the image, and returns the
// metadata block and the payload section.
func split(b []byte, k Kind) (meta, payload []byte, err error) {
	h, err := ParseHeader(b, k)
	if err != nil {
		return nil, nil, err
	}
	if h.MetaLen > uint64(len(b)-HeaderSize) {
		return nil, nil, &FormatError{Offset: 8, Msg: fmt.Sprintf("meta_len %d past end of file (%d bytes after the header)", h.MetaLen, len(b)-HeaderSize), Err: io.ErrUnexpectedEOF}
	}
	end := HeaderSize + int(h.MetaLen)
	return b[HeaderSize:end], b[end:], nil
}

func appendHeader(dst []byte, k Kind, metaLen int) []byte {
	dst = append(dst, k.Magic()...)
	dst = binary.LittleEndian.AppendUint32(dst, k.Token())
	return binary.LittleEndian.AppendUint64(dst, uint64(metaLen))
}

// EncodeBlobPrefix returns everything a world blob carries before its
// payload section: the header and the metadata block. A writer streams the
// payload section after it. meta must pass Validate.
func EncodeBlobPrefix(meta *BlobMeta) ([]byte, error) {
	if err := meta.Validate(); err != nil {
		return nil, err
	}
	body := appendBlobMeta(make([]byte, HeaderSize, HeaderSize+64), meta)
	appendHeader(body[:0], KindBlob, len(body)-HeaderSize)
	return body, nil
}

// EncodeBlob returns a whole world blob image: header, metadata, then
// payload (the payload section, copied). meta must pass Validate; pass
// &BlobMeta{} for an overflow blob.
func EncodeBlob(meta *BlobMeta, payload []byte) ([]byte, error) {
	b, err := EncodeBlobPrefix(meta)
	if err != nil {
		return nil, err
	}
	return append(b, payload...), nil
}

// ParseBlob parses a world blob image: header (magic "CNB\0", token
// SchemaVersion), then exactly meta_len bytes of metadata, decoded exactly
// (leftover metadata bytes are an error) and validated (Validate). It
// returns the metadata and the payload section (aliasing b). Errors carry
// absolute byte offsets.
func ParseBlob(b []byte) (*BlobMeta, []byte, error) {
	metaBytes, payload, err := split(b, KindBlob)
	if err != nil {
		return nil, nil, err
	}
	meta, offs, err := decodeBlobMeta(metaBytes, HeaderSize)
	if err != nil {
		return nil, nil, err
	}
	if err := meta.validate(offs); err != nil {
		return nil, nil, err
	}
	return meta, payload, nil
}

// EncodeCachePrefix returns everything a cache segment carries before its
// payload section of payloadLen bytes: the header and the metadata block.
// A writer streams the payload section after it. Every entry must lie
// within the payload section (ValidateCache).
func EncodeCachePrefix(meta *CacheMeta, payloadLen uint64) ([]byte, error) {
	if err := ValidateCache(meta, payloadLen); err != nil {
		return nil, err
	}
	body := appendCacheMeta(make([]byte, HeaderSize, HeaderSize+64), meta)
	appendHeader(body[:0], KindCache, len(body)-HeaderSize)
	return body, nil
}

// EncodeCache returns a cache segment image. Every entry must lie within
// payload (ValidateCache).
func EncodeCache(meta *CacheMeta, payload []byte) ([]byte, error) {
	b, err := EncodeCachePrefix(meta, uint64(len(payload)))
	if err != nil {
		return nil, err
	}
	return append(b, payload...), nil
}

// ParseCache parses a cache segment image (magic "CNC\0", token
// CacheSegmentVersion): exact metadata decode, then every entry checked to
// lie within the payload section, which is returned (aliasing b).
func ParseCache(b []byte) (*CacheMeta, []byte, error) {
	metaBytes, payload, err := split(b, KindCache)
	if err != nil {
		return nil, nil, err
	}
	meta, offs, err := decodeCacheMeta(metaBytes, HeaderSize)
	if err != nil {
		return nil, nil, err
	}
	if err := validateCache(meta, uint64(len(payload)), offs); err != nil {
		return nil, nil, err
	}
	return meta, payload, nil
}
