package mesh

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"
)

// Fuzz input layout (all optional, missing bytes read as 0):
//
//	byte 0: flags: 1 UV0, 2 normals, 4 tangents, 8 colors,
//	        16 raw float32 positions (else small grid values, so
//	        duplicates and degenerate triangles are common),
//	        32 KeepDegenerate, 64 NoNormals, 128 NoTangents
//	byte 1: bits 0-4: vertex count - 1 (mod 24); bit 5 skin joints and
//	        weights, bit 6 one morph target (positions), bit 7 a second
//	        morph target (positions and normals)
//	then per vertex: position, then the present streams
//	then the rest: indices, each byte modulo the vertex count.
const (
	fuzzMaxVertices = 24
	fuzzMaxIndices  = 3 * 48
)

type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) raw() float32 {
	var v [4]byte
	for i := range v {
		v[i] = r.byte()
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(v[:]))
}

// small gives one of 9 values in [-1, 1] so positions repeat often.
func (r *fuzzReader) small() float32 { return float32(int(r.byte()%9)-4) / 4 }

func decodeFuzzMesh(data []byte) (*Submesh, CanonicalOptions) {
	r := &fuzzReader{data}
	flags := r.byte()
	b1 := r.byte()
	nv := int(b1&31)%fuzzMaxVertices + 1
	s := &Submesh{Name: "fuzz"}
	if b1&64 != 0 {
		s.Morphs = append(s.Morphs, MorphTarget{Name: "a", Positions: []Vec3{}})
	}
	if b1&128 != 0 {
		s.Morphs = append(s.Morphs, MorphTarget{Name: "b", Positions: []Vec3{}, Normals: []Vec3{}})
	}
	for v := 0; v < nv; v++ {
		var p Vec3
		for k := range p {
			if flags&16 != 0 {
				p[k] = r.raw()
			} else {
				p[k] = r.small()
			}
		}
		s.Positions = append(s.Positions, p)
		if flags&1 != 0 {
			s.UV0 = append(s.UV0, Vec2{r.small(), r.small()})
		}
		if flags&2 != 0 {
			s.Normals = append(s.Normals, Vec3{r.small(), r.small(), r.small()})
		}
		if flags&4 != 0 {
			s.Tangents = append(s.Tangents, Vec4{r.small(), r.small(), r.small(), r.small()})
		}
		if flags&8 != 0 {
			s.Colors = append(s.Colors, Vec4{r.small(), r.small(), r.small(), 1})
		}
		if b1&32 != 0 {
			// few distinct values, so that vertices differing only here occur
			s.Joints = append(s.Joints, [4]uint16{uint16(r.byte() % 3), 0, 0, 0})
			s.Weights = append(s.Weights, Vec4{1, 0, 0, 0})
		}
		for i := range s.Morphs {
			m := &s.Morphs[i]
			m.Positions = append(m.Positions, Vec3{r.small(), 0, 0})
			if m.Normals != nil {
				m.Normals = append(m.Normals, Vec3{0, r.small(), 0})
			}
		}
	}
	for len(r.b) > 0 && len(s.Indices) < fuzzMaxIndices {
		s.Indices = append(s.Indices, uint32(r.byte())%uint32(nv))
	}
	s.Indices = s.Indices[:len(s.Indices)/3*3]
	opts := CanonicalOptions{KeepDegenerate: flags&32 != 0, NoNormals: flags&64 != 0, NoTangents: flags&128 != 0}
	return s, opts
}

func FuzzCanonicalize(f *testing.F) {
	// Seeds: a quad with UVs; a double-sided quad with normals and
	// colours; a fan with degenerate and repeated triangles; raw floats
	// with a NaN; a mirrored-UV strip; the same strip with every option on.
	f.Add([]byte{1, 3, 4, 4, 4, 4, 8, 8, 4, 4, 8, 8, 8, 8, 4, 8, 8, 8, 4, 4, 4, 4, 0, 1, 2, 0, 2, 3})
	f.Add([]byte{2 | 8, 3, 0, 0, 4, 4, 4, 8, 1, 2, 3, 8, 0, 4, 4, 4, 8, 5, 6, 7, 8, 8, 4, 4, 4, 8, 1, 1, 1, 0, 8, 4, 4, 4, 8, 2, 2, 2, 0, 1, 2, 0, 2, 3, 0, 2, 1, 0, 3, 2})
	f.Add([]byte{0, 5, 4, 4, 4, 8, 4, 4, 8, 8, 4, 4, 8, 4, 0, 4, 4, 4, 4, 8, 4, 0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 0, 1, 1, 5, 1})
	f.Add([]byte{16 | 1, 2, 0, 0, 0xc0, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 3, 4, 0, 1, 2})
	strip := []byte{1, 5,
		0, 0, 4, 4, 8, 1, 0, 4, 8, 8, 2, 0, 4, 4, 8,
		0, 1, 4, 4, 4, 1, 1, 4, 8, 4, 2, 1, 4, 4, 4,
		0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4}
	f.Add(strip)
	f.Add(append([]byte{1 | 2 | 4 | 32}, strip[1:]...))
	// a skinned, morphing quad whose duplicates differ in joints or deltas
	f.Add([]byte{2, 5 | 32 | 64 | 128,
		0, 0, 4, 4, 4, 8, 0, 4, 4,
		8, 0, 4, 4, 4, 8, 1, 4, 4,
		8, 8, 4, 4, 4, 8, 0, 4, 4,
		0, 0, 4, 4, 4, 8, 1, 4, 4,
		8, 8, 4, 4, 4, 8, 0, 5, 4,
		0, 8, 4, 4, 4, 8, 0, 4, 4,
		0, 1, 2, 3, 4, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		in, opts := decodeFuzzMesh(data)
		s := clone(in)
		before := encode(s)
		r, err := Canonicalize(s, opts)
		if verr := in.Validate(); (err != nil) != (verr != nil) {
			t.Fatalf("Canonicalize err %v, Validate err %v", err, verr)
		}
		if err != nil {
			if !bytes.Equal(before, encode(s)) {
				t.Fatal("submesh changed on error")
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("output invalid: %v", err)
		}
		checkCanonical(t, in, s, opts, r)

		// Deterministic, and a fixed point.
		s2 := clone(in)
		if _, err := Canonicalize(s2, opts); err != nil || !bytes.Equal(encode(s), encode(s2)) {
			t.Fatalf("second run differs (err %v)", err)
		}
		if _, err := Canonicalize(s2, opts); err != nil || !bytes.Equal(encode(s), encode(s2)) {
			t.Fatalf("canonicalizing the output changed it (err %v)", err)
		}
	})
}

// checkCanonical asserts the invariants of a Canonicalize result out made
// from in.
func checkCanonical(t *testing.T, in, out *Submesh, opts CanonicalOptions, r CanonicalReport) {
	t.Helper()
	// Triangles: the input's non-degenerate ones, in order, with the same
	// corner positions, UVs and colours bit for bit.
	c := 0
	for tri := 0; tri < in.TriangleCount(); tri++ {
		a, b, d := in.Positions[in.Indices[3*tri]], in.Positions[in.Indices[3*tri+1]], in.Positions[in.Indices[3*tri+2]]
		if !opts.KeepDegenerate && (a == b || a == d || b == d) {
			continue
		}
		if c+3 > len(out.Indices) {
			t.Fatalf("output lost triangle %d", tri)
		}
		for k := 0; k < 3; k++ {
			iv, ov := in.Indices[3*tri+k], out.Indices[c+k]
			if posKeyExact(in.Positions[iv]) != posKeyExact(out.Positions[ov]) {
				t.Fatalf("triangle %d corner %d: position %v became %v", tri, k, in.Positions[iv], out.Positions[ov])
			}
			if in.UV0 != nil && in.UV0[iv] != out.UV0[ov] {
				t.Fatalf("triangle %d corner %d: uv changed", tri, k)
			}
			if in.Colors != nil && in.Colors[iv] != out.Colors[ov] {
				t.Fatalf("triangle %d corner %d: colour changed", tri, k)
			}
			if in.Joints != nil && (in.Joints[iv] != out.Joints[ov] || in.Weights[iv] != out.Weights[ov]) {
				t.Fatalf("triangle %d corner %d: skin influence changed", tri, k)
			}
			for m := range in.Morphs {
				im, om := in.Morphs[m], out.Morphs[m]
				if posKeyExact(im.Positions[iv]) != posKeyExact(om.Positions[ov]) ||
					(im.Normals != nil && posKeyExact(im.Normals[iv]) != posKeyExact(om.Normals[ov])) {
					t.Fatalf("triangle %d corner %d: morph target %d delta changed", tri, k, m)
				}
			}
			if in.Normals != nil {
				if want, ok := unitVec3(in.Normals[iv]); ok && want != out.Normals[ov] {
					t.Fatalf("triangle %d corner %d: stored normal %v became %v", tri, k, in.Normals[iv], out.Normals[ov])
				}
			}
		}
		c += 3
	}
	if !opts.KeepDegenerate {
		for i := 0; i+2 < len(out.Indices); i += 3 {
			a, b, d := out.Positions[out.Indices[i]], out.Positions[out.Indices[i+1]], out.Positions[out.Indices[i+2]]
			if a == b || a == d || b == d {
				t.Fatalf("degenerate triangle %d remains", i/3)
			}
		}
	}
	if c != len(out.Indices) {
		t.Fatalf("output has %d indices, want %d", len(out.Indices), c)
	}
	if r.TrianglesAfter != out.TriangleCount() || r.VerticesAfter != len(out.Positions) ||
		r.TrianglesBefore-r.DegenerateDropped != r.TrianglesAfter {
		t.Fatalf("report %+v disagrees with output", r)
	}

	// Vertices: first-reference order, none unreferenced, no duplicates.
	next := uint32(0)
	for _, v := range out.Indices {
		if v > next {
			t.Fatalf("index %d before %d was referenced", v, next)
		}
		if v == next {
			next++
		}
	}
	if int(next) != len(out.Positions) {
		t.Fatalf("%d vertices, %d referenced", len(out.Positions), next)
	}
	seen := make(map[weldKey]bool)
	for v := range out.Positions {
		k := out.weldKey(uint32(v))
		if seen[k] {
			t.Fatalf("duplicate vertex %d", v)
		}
		seen[k] = true
	}

	// Streams: skin and morph streams kept, parallel to positions.
	if (out.Joints == nil) != (in.Joints == nil) || (out.Weights == nil) != (in.Weights == nil) || len(out.Morphs) != len(in.Morphs) {
		t.Fatalf("skin/morph streams present: joints %v weights %v morphs %d", out.Joints != nil, out.Weights != nil, len(out.Morphs))
	}
	for m, om := range out.Morphs {
		if om.Name != in.Morphs[m].Name || len(om.Positions) != len(out.Positions) || (om.Normals != nil) != (in.Morphs[m].Normals != nil) {
			t.Fatalf("morph target %d: %q with %d deltas", m, om.Name, len(om.Positions))
		}
	}

	// Streams: present as asked, unit, finite.
	if (out.Normals == nil) != (in.Normals == nil && opts.NoNormals) {
		t.Fatalf("normals present = %v", out.Normals != nil)
	}
	wantTangents := in.Tangents != nil || (!opts.NoTangents && in.UV0 != nil && out.Normals != nil)
	if (out.Tangents != nil) != wantTangents {
		t.Fatalf("tangents present = %v, want %v", out.Tangents != nil, wantTangents)
	}
	checkUnitStreams(t, out, r.GeneratedTangents)
}

// posKeyExact is a position's raw bits.
func posKeyExact(p Vec3) [3]uint32 {
	return [3]uint32{math.Float32bits(p[0]), math.Float32bits(p[1]), math.Float32bits(p[2])}
}
