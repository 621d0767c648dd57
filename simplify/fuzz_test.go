package simplify

import (
	"runtime"
	"slices"
	"testing"
)

// fuzzMesh decodes a small mesh on a coarse lattice (so that positions
// coincide often, giving seams, pinches and duplicate triangles) and options.
func fuzzMesh(data []byte) (testMesh, Options, bool) {
	if len(data) < 4 {
		return testMesh{}, Options{}, false
	}
	n := 3 + int(data[0])%40
	flags, frac, errb := data[1], data[2], data[3]
	data = data[4:]
	var m testMesh
	for i := range n {
		var p [3]float32
		for j := range 3 {
			if k := i*3 + j; k < len(data) {
				p[j] = float32(data[k] % 6)
			}
		}
		m.pos = append(m.pos, p)
		m.attrs.UV0 = append(m.attrs.UV0, [2]float32{float32(i%5) / 4, float32(i%3) / 2})
		m.attrs.Normals = append(m.attrs.Normals, [3]float32{0, 0, float32(i%2*2 - 1)})
	}
	if 3*n < len(data) {
		data = data[3*n:]
	} else {
		data = nil
	}
	for _, b := range data[:len(data)/3*3] {
		m.idx = append(m.idx, uint32(int(b)%n))
	}
	opts := Options{
		TargetIndexCount: len(m.idx) * int(frac) / 255 / 3 * 3,
		TargetError:      float32(errb)/64 + 1.0/64,
		LockBorder:       flags&1 != 0,
		Sloppy:           flags&2 != 0,
		Absolute:         flags&8 != 0,
	}
	if flags&4 != 0 {
		opts.AttributeWeights = Weights{Normal: 0.5, UV: 1}
	}
	if flags&16 != 0 {
		opts.Locked = make([]bool, n)
		for i := range n {
			opts.Locked[i] = i%4 == 1
		}
	}
	return m, opts, true
}

// FuzzSimplify: valid input never errors or panics; the output is a valid
// triangle list over input vertices, within the error limit, deterministic,
// also when the collapse passes walk regions in parallel.
func FuzzSimplify(f *testing.F) {
	f.Add([]byte{4, 0, 0, 255, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3})
	f.Add([]byte{8, 6, 64, 20, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0, 0, 2, 0, 1, 2, 0, 2, 2, 0,
		0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4, 3, 4, 7, 3, 7, 6, 4, 5, 8, 4, 8, 7})
	f.Add([]byte{20, 255, 0, 100, 5, 3, 1, 2, 2, 2, 4, 1, 0, 3, 3, 3, 1, 1, 1, 0, 5, 2, 2, 0, 4, 4, 1, 3, 2, 0,
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11})
	f.Add([]byte{30, 17, 128, 3, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 5, 5, 5, 1, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, opts, ok := fuzzMesh(data)
		if !ok {
			return
		}
		a, err := Simplify(m.idx, m.pos, m.attrs, opts)
		if err != nil {
			t.Fatalf("valid input refused: %v", err)
		}
		requireValid(t, m.idx, a.Indices, len(m.pos))
		limit := opts.TargetError
		if a.Error > limit*(1+1e-5) {
			t.Fatalf("error %g over limit %g", a.Error, limit)
		}
		if !a.Stalled && len(a.Indices) > opts.TargetIndexCount {
			t.Fatalf("not stalled but %d > target %d", len(a.Indices), opts.TargetIndexCount)
		}
		b, _ := Simplify(m.idx, m.pos, m.attrs, opts)
		if !slices.Equal(a.Indices, b.Indices) || a.Error != b.Error || a.Stalled != b.Stalled {
			t.Fatal("nondeterministic result")
		}
		// Regions on a mesh this small (one per triangle): the same
		// contracts, and the same result for every GOMAXPROCS.
		ropts := opts
		ropts.regionTris = 1
		var rs [2]Result
		for i, procs := range []int{1, 3} {
			prev := runtime.GOMAXPROCS(procs)
			rs[i], err = Simplify(m.idx, m.pos, m.attrs, ropts)
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatalf("valid input refused with regions: %v", err)
			}
		}
		r := rs[0]
		requireValid(t, m.idx, r.Indices, len(m.pos))
		if r.Error > limit*(1+1e-5) {
			t.Fatalf("regions: error %g over limit %g", r.Error, limit)
		}
		if !r.Stalled && len(r.Indices) > opts.TargetIndexCount {
			t.Fatalf("regions: not stalled but %d > target %d", len(r.Indices), opts.TargetIndexCount)
		}
		if !slices.Equal(r.Indices, rs[1].Indices) || r.Error != rs[1].Error || r.Stalled != rs[1].Stalled {
			t.Fatal("regions: GOMAXPROCS 3 differs from GOMAXPROCS 1")
		}
		levels, err := Chain(m.idx, m.pos, m.attrs, nil, opts)
		if err != nil {
			t.Fatalf("chain refused valid input: %v", err)
		}
		for _, l := range levels {
			requireValid(t, m.idx, l.Indices, len(m.pos))
			if l.Error > limit*(1+1e-5) {
				t.Fatalf("level error %g over limit %g", l.Error, limit)
			}
		}
	})
}
