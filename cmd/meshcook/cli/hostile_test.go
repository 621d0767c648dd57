//go:build linux

package cli

// Crafted hostile inputs (issue #19's recipes), generated here rather than
// committed: each must be refused cleanly (exit 3 naming the file and the
// limit) by a real meshcook process whose peak resident memory, measured
// like /usr/bin/time -v (getrusage of the child), stays within 2 GiB.

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"

	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxRSS is the targets' ceiling for any crafted input with default budgets.
const maxRSS = 2 << 30

// runChild runs the built meshcook and returns its exit code, stderr and
// peak resident set size in bytes.
func runChild(t *testing.T, args ...string) (code int, stderr string, rss int64) {
	t.Helper()
	cmd := exec.Command(meshcookBinary(t), args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("run meshcook: %v", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return cmd.ProcessState.ExitCode(), errb.String(), ru.Maxrss * 1024
}

// zeroPNG is a w×h RGBA8 PNG of zeros: a few hundred bytes per megapixel
// on disk, w·h·4 bytes once decoded.
func zeroPNG(w, h int) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		io.WriteString(crc, typ)
		crc.Write(data)
		out.WriteString(typ)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	chunk("IHDR", append(ihdr, 8, 6, 0, 0, 0)) // 8-bit RGBA
	chunk("IDAT", zlibZeros(h*(1+4*w)))        // each row: filter 0, then zeros
	chunk("IEND", nil)
	return out.Bytes()
}

// zlibZeros is a zlib stream of n zero bytes, built in milliseconds: one
// sync-flushed deflate segment of 4 MiB of zeros (which refers to nothing
// before it) repeated, a segment for the rest, an empty final block, and
// the Adler-32 of zeros (a stays 1, b is n mod 65521).
func zlibZeros(n int) []byte {
	seg := func(size int) []byte {
		var b bytes.Buffer
		fw, _ := flate.NewWriter(&b, flate.BestCompression)
		fw.Write(make([]byte, size))
		fw.Flush()
		return b.Bytes()
	}
	const c = 4 << 20
	out := []byte{0x78, 0x01}
	if n >= c {
		s := seg(c)
		for range n / c {
			out = append(out, s...)
		}
	}
	if r := n % c; r > 0 {
		out = append(out, seg(r)...)
	}
	out = append(out, 0x03, 0x00) // final fixed-Huffman block: end of block only
	return binary.BigEndian.AppendUint32(out, uint32(n%65521)<<16|1)
}

// fbxNode is a node of a crafted binary FBX (7400).
type fbxNode struct {
	name  string
	props []any // int32, int64, float64, string, []float64, fbxArray
	kids  []*fbxNode
}

// fbxArray is an int32 ('i') or float64 ('d') array property given as
// its element count and already-compressed zlib bytes.
type fbxArray struct {
	typ   byte
	count uint32
	zlib  []byte
}

func writeFBX(nodes []*fbxNode) []byte {
	var b bytes.Buffer
	b.WriteString("Kaydara FBX Binary  \x00\x1a\x00")
	binary.Write(&b, binary.LittleEndian, uint32(7400))
	le := binary.LittleEndian
	var node func(n *fbxNode)
	node = func(n *fbxNode) {
		start := b.Len()
		b.Write(make([]byte, 12))
		b.WriteByte(byte(len(n.name)))
		b.WriteString(n.name)
		propStart := b.Len()
		for _, p := range n.props {
			switch v := p.(type) {
			case int32:
				b.WriteByte('I')
				binary.Write(&b, le, v)
			case int64:
				b.WriteByte('L')
				binary.Write(&b, le, v)
			case float64:
				b.WriteByte('D')
				binary.Write(&b, le, v)
			case string:
				b.WriteByte('S')
				binary.Write(&b, le, uint32(len(v)))
				b.WriteString(v)
			case []float64:
				b.WriteByte('d')
				binary.Write(&b, le, [3]uint32{uint32(len(v)), 0, uint32(8 * len(v))})
				binary.Write(&b, le, v)
			case fbxArray:
				b.WriteByte(v.typ)
				binary.Write(&b, le, [3]uint32{v.count, 1, uint32(len(v.zlib))})
				b.Write(v.zlib)
			}
		}
		propLen := b.Len() - propStart
		for _, k := range n.kids {
			node(k)
		}
		if len(n.kids) > 0 {
			b.Write(make([]byte, 13))
		}
		bs := b.Bytes()
		le.PutUint32(bs[start:], uint32(b.Len()))
		le.PutUint32(bs[start+4:], uint32(len(n.props)))
		le.PutUint32(bs[start+8:], uint32(propLen))
	}
	for _, n := range nodes {
		node(n)
	}
	b.Write(make([]byte, 13))
	return b.Bytes()
}

// zlibRepeat compresses count int32 elements repeating pattern.
func zlibRepeat(t *testing.T, pattern []int32, count int) []byte {
	var out bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&out, zlib.BestCompression)
	const block = 1 << 16
	buf := make([]byte, 0, 4*block)
	for i := 0; i < count; i++ {
		buf = le32(buf, pattern[i%len(pattern)])
		if len(buf) == cap(buf) || i == count-1 {
			zw.Write(buf)
			buf = buf[:0]
		}
	}
	require.NoError(t, zw.Close())
	return out.Bytes()
}

func le32(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }

// fbxMesh is a one-model binary FBX whose Geometry has the given
// children (Vertices, PolygonVertexIndex, layers).
func fbxMesh(geometry ...*fbxNode) []byte {
	return writeFBX([]*fbxNode{
		{name: "FBXHeaderExtension", kids: []*fbxNode{{name: "FBXVersion", props: []any{int32(7400)}}}},
		{name: "Objects", kids: []*fbxNode{
			{name: "Geometry", props: []any{int64(100), "G\x00\x01Geometry", "Mesh"}, kids: geometry},
			{name: "Model", props: []any{int64(200), "M\x00\x01Model", "Mesh"}, kids: []*fbxNode{{name: "Version", props: []any{int32(232)}}}},
		}},
		{name: "Connections", kids: []*fbxNode{
			{name: "C", props: []any{"OO", int64(200), int64(0)}},
			{name: "C", props: []any{"OO", int64(100), int64(200)}},
		}},
	})
}

// A crafted file must be refused with exit 3, naming the file and the
// flag that raises the limit, writing nothing, within maxRSS.
func expectRefused(t *testing.T, src, flag string, extra ...string) {
	t.Helper()
	out := t.TempDir()
	code, stderr, rss := runChild(t, append([]string{"cook", src, "-o", out, "--no-cache", "-q"}, extra...)...)
	t.Logf("%s: exit %d, peak RSS %.0f MiB: %s", filepath.Base(src), code, float64(rss)/(1<<20), stderr)
	assert.Equal(t, ExitBadInput, code, stderr)
	assert.Contains(t, stderr, src)
	assert.Contains(t, stderr, flag)
	assert.NotContains(t, stderr, "fatal error")
	assert.NotContains(t, stderr, "panic")
	assert.LessOrEqual(t, rss, int64(maxRSS))
	assert.Empty(t, outputsUnder(t, out), "a refused source writes nothing")
}

// The generators make what they claim: zlibZeros inflates to exactly n
// zeros (checksum included), zeroPNG decodes, and a crafted FBX imports.
func TestCraftedGenerators(t *testing.T) {
	for _, n := range []int{0, 1, 4 << 20, 9<<20 + 123} {
		zr, err := zlib.NewReader(bytes.NewReader(zlibZeros(n)))
		require.NoError(t, err)
		b, err := io.ReadAll(zr)
		require.NoError(t, err, n)
		require.Len(t, b, n)
		assert.Equal(t, -1, bytes.IndexFunc(b, func(r rune) bool { return r != 0 }))
	}
	img, err := png.Decode(bytes.NewReader(zeroPNG(300, 7)))
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, 300, 7), img.Bounds())

	dir := t.TempDir()
	src := filepath.Join(dir, "tri.fbx")
	pvi := zlibRepeat(t, []int32{0, 1, -3}, 3)
	require.NoError(t, os.WriteFile(src, fbxMesh(
		&fbxNode{name: "Vertices", props: []any{[]float64{0, 0, 0, 1, 0, 0, 0, 1, 0}}},
		&fbxNode{name: "PolygonVertexIndex", props: []any{fbxArray{'i', 3, pvi}}},
	), 0o644))
	code, _, stderr := run(t, "cook", src, "-o", t.TempDir(), "--no-cache")
	require.Equal(t, ExitOK, code, stderr)
}

// C1: box.gltf whose checker.png is a 16384² RGBA PNG of zeros (1 MB)
// used to die with "fatal error: out of memory" at 5.7 GB in the KTX2
// encoder. The pixel budget refuses it from the PNG header.
func TestHostileHugeTexture(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meshcook and crafts large inputs")
	}
	src := t.TempDir()
	copyFile(t, filepath.Join(samplesDir(t), "box.gltf"), filepath.Join(src, "box.gltf"))
	copyFile(t, filepath.Join(samplesDir(t), "box.bin"), filepath.Join(src, "box.bin"))
	require.NoError(t, os.WriteFile(filepath.Join(src, "checker.png"), zeroPNG(16384, 16384), 0o644))
	expectRefused(t, filepath.Join(src, "box.gltf"), "--max-image-pixels")
}

// C2: a 164 KB binary FBX whose PolygonVertexIndex is a zlib array of
// 16,777,212 elements repeating 0,1,-3 (5.6M triangles on three
// vertices) used to reach 6.3 GB in the vertex-cache optimizer. The
// triangle budget refuses it before the meshes are built, and import is
// bounded the same way.
func TestHostileManyPolygonsFBX(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meshcook and crafts large inputs")
	}
	const n = 16_777_212
	src := filepath.Join(t.TempDir(), "many.fbx")
	require.NoError(t, os.WriteFile(src, fbxMesh(
		&fbxNode{name: "Vertices", props: []any{[]float64{0, 0, 0, 1, 0, 0, 0, 1, 0}}},
		&fbxNode{name: "PolygonVertexIndex", props: []any{fbxArray{'i', n, zlibRepeat(t, []int32{0, 1, -3}, n)}}},
	), 0o644))
	expectRefused(t, src, "--max-triangles")

	code, stderr, rss := runChild(t, "import", src, "-o", filepath.Join(t.TempDir(), "many.nwb"))
	t.Logf("import: exit %d, peak RSS %.0f MiB: %s", code, float64(rss)/(1<<20), stderr)
	assert.Equal(t, ExitBadInput, code, stderr)
	assert.LessOrEqual(t, rss, int64(maxRSS))
}

// Four 512 MiB zlib-of-zeros arrays used to reach 2.6 GB before the
// total limit stopped them: the decoded-bytes budget is checked before
// each array is inflated.
func TestHostileZeroArraysFBX(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meshcook and crafts large inputs")
	}
	const elems = 512 << 20 / 8
	z := zlibZeros(512 << 20)
	var kids []*fbxNode
	kids = append(kids, &fbxNode{name: "Vertices", props: []any{[]float64{0, 0, 0, 1, 0, 0, 0, 1, 0}}})
	for range 4 {
		kids = append(kids, &fbxNode{name: "Padding", props: []any{fbxArray{'d', elems, z}}})
	}
	kids = append(kids, &fbxNode{name: "PolygonVertexIndex", props: []any{fbxArray{'i', 3, zlibRepeat(t, []int32{0, 1, -3}, 3)}}})
	src := filepath.Join(t.TempDir(), "zeros.fbx")
	require.NoError(t, os.WriteFile(src, fbxMesh(kids...), 0o644))
	expectRefused(t, src, "--max-decoded-bytes")
}

// A heightfield of the largest grid (4097², 33.5M triangles) is refused
// by the triangle budget before its mesh is built.
func TestHostileHugeHeightfield(t *testing.T) {
	if testing.Short() {
		t.Skip("builds meshcook and crafts large inputs")
	}
	src := filepath.Join(t.TempDir(), "big.heightfield.json")
	require.NoError(t, os.WriteFile(src, []byte(`{"size": [100, 100], "elevation": [0, 1], "rows": 4097, "cols": 4097}`), 0o644))
	expectRefused(t, src, "--max-triangles")
}
