package meshpack

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// boundsSlack is the relative and absolute slack a bounding sphere gets
// when checking that it holds every vertex (the same as tools/meshcheck.py).
const (
	boundsRelSlack = 1e-4
	boundsAbsSlack = 1e-5
)

// Validate checks what a reader relies on: a known family whose vertex
// slices match it; non-empty, UTF-8, NUL-free, unique names; counts that fit
// u32; whole triangles; indices below the vertex count; ranges inside the
// indices; finite numbers; and a bounding sphere that
// holds every vertex.
func Validate(p *Pack) error {
	if p == nil {
		return fmt.Errorf("meshpack: nil pack")
	}
	if p.Family != Static && p.Family != Rigged {
		return fmt.Errorf("meshpack: unknown family %d", p.Family)
	}
	if uint64(len(p.Entries)) > math.MaxUint32 {
		return fmt.Errorf("meshpack: %d entries do not fit u32", len(p.Entries))
	}
	seen := make(map[string]int, len(p.Entries))
	for i := range p.Entries {
		e := &p.Entries[i]
		if err := validateEntry(p.Family, e); err != nil {
			return fmt.Errorf("meshpack: entry %d %q: %w", i, e.Name, err)
		}
		if j, dup := seen[e.Name]; dup {
			return fmt.Errorf("meshpack: entry %d %q: duplicate of entry %d", i, e.Name, j)
		}
		seen[e.Name] = i
	}
	return nil
}

func validateEntry(f Family, e *Entry) error {
	switch {
	case e.Name == "":
		return fmt.Errorf("empty name")
	case !utf8.ValidString(e.Name) || strings.ContainsRune(e.Name, 0):
		return fmt.Errorf("name is not NUL-free UTF-8")
	case f == Static && len(e.Rigged) > 0, f == Rigged && len(e.Static) > 0:
		return fmt.Errorf("vertices of the other family in a %s pack", f)
	}
	vc := e.VertexCount()
	for _, n := range []int{len(e.Name), vc, len(e.Indices), len(e.Ranges)} {
		if uint64(n) > math.MaxUint32 {
			return fmt.Errorf("count %d does not fit u32", n)
		}
	}
	if len(e.Indices)%3 != 0 {
		return fmt.Errorf("%d indices are not whole triangles", len(e.Indices))
	}
	for k, x := range e.Indices {
		if int64(x) >= int64(vc) {
			return fmt.Errorf("index %d is %d, vertex_count is %d", k, x, vc)
		}
	}
	for k, r := range e.Ranges {
		if uint64(r.FirstIndex)+uint64(r.IndexCount) > uint64(len(e.Indices)) {
			return fmt.Errorf("range %d [%d, +%d) runs past index_count %d", k, r.FirstIndex, r.IndexCount, len(e.Indices))
		}
	}
	if !finite(e.Bounds.Center[:]...) || !finite(e.Bounds.Radius) || e.Bounds.Radius < 0 {
		return fmt.Errorf("bounds %v are not a finite sphere", e.Bounds)
	}
	for k := 0; k < vc; k++ {
		var pos [3]float32
		var ok bool
		if f == Static {
			v := &e.Static[k]
			pos = v.Position
			ok = finite(v.Position[:]...) && finite(v.Normal[:]...) && finite(v.TexCoord[:]...) && finite(v.Color[:]...) && finite(v.Material[:]...)
		} else {
			v := &e.Rigged[k]
			pos = v.Position
			ok = finite(v.Position[:]...) && finite(v.Normal[:]...) && finite(v.TexCoord[:]...) && finite(v.BoneWeights[:]...)
		}
		if !ok {
			return fmt.Errorf("vertex %d has a non-finite value", k)
		}
		if err := checkVertexRanges(f, e, k); err != nil {
			return err
		}
		var d2 float64
		for j := 0; j < 3; j++ {
			x := float64(pos[j]) - float64(e.Bounds.Center[j])
			d2 += x * x
		}
		if r := float64(e.Bounds.Radius); math.Sqrt(d2) > r*(1+boundsRelSlack)+boundsAbsSlack {
			return fmt.Errorf("vertex %d lies outside the bounding sphere", k)
		}
	}
	return nil
}

// Normals are unit vectors and colours lie in [0, 1]; these bounds are
// meshcook's (docs/formats/meshpack.md): a writer that normalizes in
// float32 stays within normalSlack of unit length.
const normalSlack = 1e-3

func checkVertexRanges(f Family, e *Entry, k int) error {
	var n [3]float32
	if f == Static {
		n = e.Static[k].Normal
		for _, c := range e.Static[k].Color {
			if !(c >= 0 && c <= 1) {
				return fmt.Errorf("vertex %d: colour %v outside [0, 1]", k, e.Static[k].Color)
			}
		}
	} else {
		n = e.Rigged[k].Normal
	}
	l := math.Sqrt(float64(n[0])*float64(n[0]) + float64(n[1])*float64(n[1]) + float64(n[2])*float64(n[2]))
	if math.Abs(l-1) > normalSlack {
		return fmt.Errorf("vertex %d: normal %v of length %g, want a unit vector", k, n, l)
	}
	return nil
}

func finite(xs ...float32) bool {
	for _, x := range xs {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}
