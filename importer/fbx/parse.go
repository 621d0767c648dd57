package fbx

import "bytes"

// Versions this package reads.
const (
	minVersion = 6100
	maxVersion = 7700
)

// Parse reads the node tree of a binary or ASCII FBX file (sniffed from the
// content). Errors are *FormatError values wrapping ErrFormat,
// ErrUnsupported or ErrLimit; no input makes Parse panic, and its
// allocations are bounded by the input size and Options' limits.
func Parse(data []byte, opts Options) (*Document, error) {
	opts = opts.withDefaults()
	if IsBinary(data) {
		return parseBinary(data, opts)
	}
	if looksBinary(data) {
		return nil, &FormatError{Binary: true, Msg: `bad magic: not "Kaydara FBX Binary" and not ASCII FBX`, Kind: ErrFormat}
	}
	return parseASCII(data, opts)
}

// looksBinary catches damaged binary headers: a NUL byte in the first 64
// bytes, or "FBX Binary" near the start, is never ASCII FBX.
func looksBinary(data []byte) bool {
	head := data[:min(len(data), 64)]
	return bytes.IndexByte(head, 0) >= 0 || bytes.Contains(head, []byte("FBX Binary"))
}
