package hmesh

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// entryAt returns the table offset of chunk id in b.
func entryAt(t testing.TB, b []byte, id string) int {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(b[8:]))
	for i := range n {
		if string(b[32+24*i:32+24*i+4]) == id {
			return 32 + 24*i
		}
	}
	t.Fatalf("no chunk %s", id)
	return 0
}

// payloadAt returns the payload offset of chunk id in b.
func payloadAt(t testing.TB, b []byte, id string) int {
	return int(binary.LittleEndian.Uint64(b[entryAt(t, b, id)+8:]))
}

func put32(b []byte, at int, v uint32) { binary.LittleEndian.PutUint32(b[at:], v) }
func put64(b []byte, at int, v uint64) { binary.LittleEndian.PutUint64(b[at:], v) }

// Why: every malformed file must be refused with a precise, typed error and
// without panicking or allocating from an unchecked count.
func TestDecodeInvalid(t *testing.T) {
	base := mustEncode(t, triFile())
	twoSubs := mustEncode(t, build(t, sphereMesh(6, 10, 1, 16, 8)))
	cases := []struct {
		name  string
		src   []byte
		edit  func(t testing.TB, b []byte) []byte
		want  string
		trunc bool // wraps io.ErrUnexpectedEOF
	}{
		{"empty", base, func(t testing.TB, b []byte) []byte { return nil }, "truncated file header", true},
		{"bad magic", base, func(t testing.TB, b []byte) []byte { b[0] = 'X'; return b }, "bad magic", false},
		{"version 1", base, func(t testing.TB, b []byte) []byte { put32(b, 4, 1); return b }, "unsupported version 1", false},
		{"truncated header", base, func(t testing.TB, b []byte) []byte { return b[:20] }, "truncated file header", true},
		{"truncated table", base, func(t testing.TB, b []byte) []byte { return b[:100] }, "truncated chunk table", true},
		{"huge chunk count", base, func(t testing.TB, b []byte) []byte { put32(b, 8, 0xFFFFFFFF); return b }, "truncated chunk table", true},
		{"chunk past EOF", base, func(t testing.TB, b []byte) []byte { return b[:len(b)-1] }, "chunk SUBM: offset 0xf8: payload [0x230, +64) past end of file", true},
		{"chunk size overflow", base, func(t testing.TB, b []byte) []byte {
			put64(b, entryAt(t, b, "VTXS")+16, 0xFFFFFFFFFFFFFFF0)
			return b
		}, "chunk VTXS", true},
		{"misaligned", base, func(t testing.TB, b []byte) []byte { put64(b, entryAt(t, b, "MTRL")+8, 548); return b }, "not 16-byte aligned", false},
		{"payload in table", base, func(t testing.TB, b []byte) []byte { put64(b, entryAt(t, b, "DESC")+8, 256); return b }, "overlaps the header or chunk table", false},
		{"overlapping chunks", base, func(t testing.TB, b []byte) []byte {
			put64(b, entryAt(t, b, "BNDS")+8, uint64(payloadAt(t, b, "DESC")+16))
			return b
		}, "overlaps chunk DESC", false},
		{"duplicate chunk", base, func(t testing.TB, b []byte) []byte { copy(b[entryAt(t, b, "BNDS"):], "DESC"); return b }, "chunk DESC: offset 0x38: duplicate chunk", false},
		{"missing chunk", base, func(t testing.TB, b []byte) []byte { copy(b[entryAt(t, b, "MTRL"):], "XTRL"); return b }, "chunk MTRL: missing required chunk", false},
		{"chunk flags", base, func(t testing.TB, b []byte) []byte { put32(b, entryAt(t, b, "VTXS")+4, 1); return b }, "unsupported chunk flags 0x1", false},
		{"DESC wrong size", base, func(t testing.TB, b []byte) []byte { put64(b, entryAt(t, b, "DESC")+16, 31); return b }, "chunk DESC: offset 0x30: payload is 31 bytes, want 32", false},
		{"stride", base, func(t testing.TB, b []byte) []byte {
			binary.LittleEndian.PutUint16(b[payloadAt(t, b, "DESC")+20:], 32)
			return b
		}, "vertexStride 32, want 28", false},
		{"index width", base, func(t testing.TB, b []byte) []byte { b[payloadAt(t, b, "DESC")+22] = 4; return b }, "indexWidth 4 for 3 vertices, want 2", false},
		{"VTXS size mismatch", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "DESC"), 4); return b }, "chunk VTXS: offset 0x60: payload is 84 bytes, want 112", false},
		{"meshlet limits", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "DESC")+28, 513); return b }, "meshletMaxTris 513", false},
		{"index >= vertexCount", base, func(t testing.TB, b []byte) []byte {
			binary.LittleEndian.PutUint16(b[payloadAt(t, b, "IDXS")+2:], 3)
			return b
		}, "chunk IDXS: offset 0x1c2: index 1 is 3, not < vertexCount 3", false},
		{"MLVR entry", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "MLVR")+8, 9); return b }, "chunk MLVR: offset 0x1e8: entry 2 is 9", false},
		{"meshlet range past MLVR", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "MLET"), 1); return b }, "chunk MLET: offset 0x1d0: meshlet 0: vertex range [1, +3) past MLVR", false},
		{"meshlet range past MLTR", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "MLET")+8, 1); return b }, "past MLTR", false},
		{"empty meshlet", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "MLET")+12, 0); return b }, "0 triangles", false},
		{"local index >= meshlet vertexCount", base, func(t testing.TB, b []byte) []byte { b[payloadAt(t, b, "MLTR")+2] = 3; return b }, "chunk MLTR: offset 0x1f2: meshlet 0: local index 3 not < its vertexCount 3", false},
		{"MLTR not whole triangles", base, func(t testing.TB, b []byte) []byte { put64(b, entryAt(t, b, "MLTR")+16, 2); return b }, "not a multiple of 3", false},
		{"submesh gap", twoSubs, func(t testing.TB, b []byte) []byte {
			at := payloadAt(t, b, "SUBM") + 64
			put32(b, at, binary.LittleEndian.Uint32(b[at:])+3)
			return b
		}, "submesh 1: firstIndex", false},
		{"submesh meshlet overlap", twoSubs, func(t testing.TB, b []byte) []byte {
			at := payloadAt(t, b, "SUBM") + 64 + 8
			put32(b, at, binary.LittleEndian.Uint32(b[at:])-1)
			return b
		}, "submesh 1: firstMeshlet", false},
		{"submesh not covering", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "SUBM")+4, 0); return b }, "submeshes cover 0 of 3 indices", false},
		{"materialSlot out of range", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "SUBM")+16, 1); return b }, "chunk SUBM: offset 0x240: submesh 0: materialSlot 1 not < materialCount 1", false},
		{"non-finite bounds", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "BNDS"), 0x7fc00000); return b }, "chunk BNDS: offset 0x130: bounds not finite", false},
		{"huge vertex count", base, func(t testing.TB, b []byte) []byte {
			d := payloadAt(t, b, "DESC")
			put32(b, d, 0xFFFFFFF0)
			b[d+22] = 4
			return b
		}, "want 120259083840", false},
		{"huge meshlet count", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "DESC")+8, 0xFFFFFFFF); return b }, "chunk MLET", false},
		{"huge material count", base, func(t testing.TB, b []byte) []byte { put32(b, payloadAt(t, b, "DESC")+16, 0xFFFFFFFF); return b }, "chunk MTRL", false},
		{"LODI without LODT", base, func(t testing.TB, b []byte) []byte { copy(b[entryAt(t, b, "MTRL"):], "LODI"); return b }, "missing required chunk", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := c.edit(t, slices.Clone(c.src))
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			f, err := Decode(b)
			runtime.ReadMemStats(&ms)
			if f != nil || err == nil {
				t.Fatalf("Decode accepted it")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "hmesh: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error does not match ErrFormat")
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset < -1 {
				t.Errorf("not a *FormatError with an offset: %#v", err)
			}
			if got := errors.Is(err, io.ErrUnexpectedEOF); got != c.trunc {
				t.Errorf("errors.Is(err, io.ErrUnexpectedEOF) = %v, want %v", got, c.trunc)
			}
			if alloc := ms.TotalAlloc - before; alloc > 1<<20 {
				t.Errorf("Decode allocated %d bytes on a %d-byte input", alloc, len(b))
			}
		})
	}
}

// Why: LODs are optional and paired; a lone LODT or a mis-sized one must be
// refused.
func TestDecodeInvalidLods(t *testing.T) {
	b := mustEncode(t, richFile(t))
	cases := []struct {
		name string
		edit func(b []byte) []byte
		want string
	}{
		{"LODT without LODI", func(b []byte) []byte { copy(b[entryAt(t, b, "LODI"):], "XODI"); return b }, "LODI and LODT must come together"},
		{"LODT submesh count", func(b []byte) []byte { put32(b, payloadAt(t, b, "LODT")+4, 9); return b }, "submeshCount 9, DESC says 3"},
		{"LODT huge lod count", func(b []byte) []byte { put32(b, payloadAt(t, b, "LODT"), 0xFFFFFFFF); return b }, "want 103079215088"},
		{"LODT short", func(b []byte) []byte { put64(b, entryAt(t, b, "LODT")+16, 4); return b }, "too short"},
		{"SKEL size", func(b []byte) []byte { put64(b, entryAt(t, b, "SKEL")+16, 111); return b }, "not a multiple of 112"},
		{"SKIN size", func(b []byte) []byte { put64(b, entryAt(t, b, "SKIN")+16, 24); return b }, "chunk SKIN"},
		{"joint parent", func(b []byte) []byte { put32(b, payloadAt(t, b, "SKEL")+104, 0); return b }, "joint 0: parent 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode(c.edit(slices.Clone(b)))
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrFormat) {
				t.Fatalf("Decode = %v, want error containing %q", err, c.want)
			}
		})
	}
}

func TestFormatErrorString(t *testing.T) {
	e := &FormatError{Offset: 0x1a0, Chunk: "MLET", Msg: "past end of file", Err: io.ErrUnexpectedEOF}
	if got, want := e.Error(), "hmesh: chunk MLET: offset 0x1a0: past end of file: unexpected EOF"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &FormatError{Offset: -1, Msg: "nil file"}
	if got := e.Error(); got != "hmesh: nil file" {
		t.Errorf("got %q", got)
	}
}

func TestReadPropagatesReaderError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Read(io.MultiReader(bytes.NewReader([]byte("HMSH")), errReader{boom}), 0)
	if !errors.Is(err, boom) {
		t.Fatalf("Read = %v", err)
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// Why (issue #19): bytes appended after the last chunk's payload were
// accepted. Only its zero padding to the next 16-byte boundary may follow.
func TestDecodeRejectsTrailingBytes(t *testing.T) {
	b := mustEncode(t, richFile(t))
	_, err := Decode(b)
	require.NoError(t, err)
	pad := int(alignUp(uint64(len(b)))) - len(b)
	if pad > 0 {
		_, err = Decode(append(slices.Clone(b), make([]byte, pad)...))
		require.NoError(t, err, "zero padding to the boundary")
	}
	for _, tail := range [][]byte{make([]byte, pad+1), make([]byte, 16+pad), {1}, []byte("appended")} {
		_, err := Decode(append(slices.Clone(b), tail...))
		require.ErrorIs(t, err, ErrFormat, "%d bytes appended", len(tail))
		assert.Contains(t, err.Error(), "after the last chunk's payload")
	}
}
