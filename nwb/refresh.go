package nwb

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// RefreshOptions tune Refresh.
type RefreshOptions struct {
	// Output is the path the report names as written ("" means the input).
	Output string
	// KeepPositions treats every mesh as skinned: positions are never
	// deduplicated. Use it when a skin in another file (separate assets)
	// indexes this file's positions, which refresh cannot see.
	KeepPositions bool
}

// Counts are the element counts refresh reports, summed over meshes.
type Counts struct {
	Positions, Normals, Tangents, UV0, Colors int
	Skin                                      int // influences of skins paired with a mesh
	VertexRefs                                int
	Indices                                   int // scalars, not triangles
}

// Report is what one refresh did.
type Report struct {
	Input, Output string
	Before, After Counts
	// Rewritten lists the fields whose lists were rewritten, as
	// "<var>.<field>".
	Rewritten []string
	// BOMRemoved and LineEndingsFixed say the output differs from the input
	// outside the rewritten lists: a UTF-8 BOM was stripped, or bare LFs in
	// a file that also has CRLFs became CRLF.
	BOMRemoved, LineEndingsFixed bool
}

// String is the engine's report: "Refreshed <out>", "  input: <in>", then
// "  <name>: <before> -> <after>" per count.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Refreshed %s\n  input: %s\n", r.Output, r.Input)
	for _, c := range r.rows() {
		fmt.Fprintf(&b, "  %s: %d -> %d\n", c.name, c.before, c.after)
	}
	return b.String()
}

type countRow struct {
	name          string
	before, after int
}

func (r Report) rows() []countRow {
	b, a := r.Before, r.After
	return []countRow{
		{"positions", b.Positions, a.Positions},
		{"normals", b.Normals, a.Normals},
		{"tangents", b.Tangents, a.Tangents},
		{"uv0", b.UV0, a.UV0},
		{"colors", b.Colors, a.Colors},
		{"skin", b.Skin, a.Skin},
		{"vertex_refs", b.VertexRefs, a.VertexRefs},
		{"indices", b.Indices, a.Indices},
	}
}

// Refresh canonicalizes the mesh streams of one .nwb source (nwb.md §2)
// and returns the new file bytes. name is used in messages and the report.
//
//   - Only mesh declarations are processed (none is an error); every mesh
//     must be valid, and a field outside the seven is refused, never
//     dropped.
//   - Each stream is deduplicated by exact bit equality (-0 equals +0): a
//     stream without duplicates keeps its order, otherwise it becomes the
//     sorted (by component bit patterns, ties by source index) compacted
//     list. Positions of a mesh that a skin in the same file references are
//     kept (influences are one per position); more than one skin per mesh
//     is an error. vertex_refs are remapped, never deduplicated; indices
//     never change.
//   - Only lists whose element count changed are rewritten (vertex_refs
//     when any stream changed), as "[", one "    elem," line per element,
//     "]"; every other byte stays. A list that is not one literal (built
//     with += or an expression) cannot be rewritten and is an error.
//   - A UTF-8 BOM is dropped. Output line endings are CRLF if the input has
//     any CRLF, else LF.
func Refresh(src []byte, name string, opts RefreshOptions) ([]byte, Report, error) {
	rep := Report{Input: name, Output: opts.Output}
	if rep.Output == "" {
		rep.Output = name
	}
	body := src
	if hasBOM(body) {
		body = body[len(bom):]
		rep.BOMRemoved = true
	}
	f, err := Parse(body, name)
	if err != nil {
		return nil, rep, err
	}
	nl := "\n"
	crlfMode := bytes.Contains(body, []byte("\r\n"))
	if crlfMode {
		nl = "\r\n"
	}

	// Skins pair with meshes of this file through bare references.
	skinOf := map[string]*Decl{}
	for _, d := range f.Decls {
		if Kind(d.Type) != KindSkin || d.Value.Kind != MapValue {
			continue
		}
		e := d.Value.Map().Get("mesh")
		if e == nil || e.Val.Kind != RefValue {
			continue
		}
		if prev := skinOf[e.Val.Str()]; prev != nil {
			return nil, rep, f.errorf(d.Off, "mesh '%s' has more than one skin ('%s' and '%s')", e.Val.Str(), prev.Name, d.Name)
		}
		skinOf[e.Val.Str()] = d
	}

	dc := &decoder{f: f, doc: &Document{Path: VirtualPath("project", filepath.Base(name))}, kinds: map[string]Kind{}}
	type edit struct {
		start, end int
		text       []byte
	}
	var edits []edit
	meshes := 0
	for _, d := range f.Decls {
		if Kind(d.Type) != KindMesh {
			continue
		}
		meshes++
		if d.Value.Kind == MapValue {
			for _, e := range d.Value.Map().Entries {
				if !slices.Contains(meshFields[:], e.Key) {
					return nil, rep, f.errorf(e.Off, "unsupported field '%s.%s' would be dropped by refresh", d.Name, e.Key)
				}
			}
		}
		vpath := dc.doc.Path
		if len(f.Decls) > 1 {
			vpath += "/" + d.Name
		}
		m, err := dc.mesh(d, vpath)
		if err != nil {
			return nil, rep, err
		}
		skin := skinOf[d.Name]
		if skin != nil {
			if e := skin.Value.Map().Get("influences"); e != nil && e.Val.Kind == ListValue {
				rep.Before.Skin += len(e.Val.List())
				rep.After.Skin += len(e.Val.List())
			}
		}
		keepPositions := skin != nil || opts.KeepPositions

		// Deduplicate the five streams.
		var remaps [5][]uint32
		var texts [5][]byte
		streams := [5]struct {
			flat []float32
			k    int
		}{
			{flatten(m.Positions), 3}, {flatten(m.Normals), 3}, {flatten(m.Tangents), 4},
			{flatten(m.UV0), 2}, {flatten(m.Colors), 4},
		}
		before := [5]*int{&rep.Before.Positions, &rep.Before.Normals, &rep.Before.Tangents, &rep.Before.UV0, &rep.Before.Colors}
		after := [5]*int{&rep.After.Positions, &rep.After.Normals, &rep.After.Tangents, &rep.After.UV0, &rep.After.Colors}
		changed := false
		for i, s := range streams {
			n := len(s.flat) / s.k
			*before[i] += n
			if i == 0 && keepPositions {
				*after[i] += n
				continue
			}
			out, remap := dedupStream(s.flat, s.k)
			*after[i] += len(out) / s.k
			if remap == nil {
				continue
			}
			changed = true
			remaps[i] = remap
			texts[i] = listText(len(out)/s.k, nl, func(b []byte, e int) []byte { return appendFloats(b, out[e*s.k:(e+1)*s.k]) })
		}
		rep.Before.VertexRefs += len(m.VertexRefs)
		rep.After.VertexRefs += len(m.VertexRefs)
		rep.Before.Indices += len(m.Indices)
		rep.After.Indices += len(m.Indices)
		if !changed {
			continue
		}
		refs := make([]VertexRef, len(m.VertexRefs))
		for i, r := range m.VertexRefs {
			c := [5]uint32{r.Position, r.Normal, r.Tangent, r.UV0, r.Color}
			for s := range c {
				if remaps[s] != nil {
					c[s] = remaps[s][c[s]]
				}
			}
			refs[i] = VertexRef{c[0], c[1], c[2], c[3], c[4]}
		}
		for i := 0; i < 6; i++ {
			var text []byte
			if i == 5 {
				text = listText(len(refs), nl, func(b []byte, e int) []byte { return appendVertexRef(b, refs[e]) })
			} else if texts[i] != nil {
				text = texts[i]
			} else {
				continue
			}
			field := meshFields[i]
			v := d.Value.Map().Get(field).Val
			if !v.Lit || v.Kind != ListValue {
				return nil, rep, f.errorf(v.Off, "'%s.%s' is not a single list literal (built with += or an expression), so refresh cannot rewrite it", d.Name, field)
			}
			if n, at := commentsIn(body[v.Off:v.End]); n > 0 {
				// Nothing lost: a rewritten list would drop them.
				return nil, rep, f.errorf(v.Off+int32(at), "refresh would drop %d comment(s) inside '%s.%s', the list it rewrites; move them out of the list", n, d.Name, field)
			}
			edits = append(edits, edit{int(v.Off), int(v.End), text})
			rep.Rewritten = append(rep.Rewritten, d.Name+"."+field)
		}
	}
	if meshes == 0 {
		return nil, rep, fmt.Errorf("nwb: %s: no mesh declaration to refresh", name)
	}

	// Splice the rewritten lists into the untouched text.
	slices.SortFunc(edits, func(a, b edit) int { return cmp.Compare(a.start, b.start) })
	out := make([]byte, 0, len(body))
	at := 0
	for _, e := range edits {
		if e.start < at {
			return nil, rep, fmt.Errorf("nwb: %s: rewritten lists overlap", name)
		}
		out = append(out, body[at:e.start]...)
		out = append(out, e.text...)
		at = e.end
	}
	out = append(out, body[at:]...)
	if crlfMode {
		rep.LineEndingsFixed = bytes.Count(body, []byte("\n")) != bytes.Count(body, []byte("\r\n"))
		out = toCRLF(out)
	}
	return out, rep, nil
}

// commentsIn counts the comments (// to the end of the line, /* */) in a
// list literal's text, strings skipped, and returns the offset of the
// first.
func commentsIn(b []byte) (n, first int) {
	first = -1
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && (b[i+1] == '/' || b[i+1] == '*'):
			if first < 0 {
				first = i
			}
			n++
			if b[i+1] == '/' {
				for i < len(b) && b[i] != '\n' {
					i++
				}
			} else if end := bytes.Index(b[i+2:], []byte("*/")); end >= 0 {
				i += 2 + end + 1
			} else {
				i = len(b)
			}
		}
	}
	return n, first
}

// toCRLF turns every bare LF into CRLF.
func toCRLF(b []byte) []byte {
	n := bytes.Count(b, []byte("\n")) - bytes.Count(b, []byte("\r\n"))
	if n == 0 {
		return b
	}
	out := make([]byte, 0, len(b)+n)
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}

// listText is a rewritten list: "[", one "    elem," line each, "]".
func listText(n int, nl string, elem func(b []byte, i int) []byte) []byte {
	b := append([]byte("["), nl...)
	for i := 0; i < n; i++ {
		b = append(b, "    "...)
		b = elem(b, i)
		b = append(b, ',')
		b = append(b, nl...)
	}
	return append(b, ']')
}

func flatten[T ~[2]float32 | ~[3]float32 | ~[4]float32](v []T) []float32 {
	if len(v) == 0 {
		return nil
	}
	k := len(v[0])
	out := make([]float32, 0, len(v)*k)
	for _, e := range v {
		for i := 0; i < k; i++ {
			out = append(out, e[i])
		}
	}
	return out
}

// dedupKey is a component's bit pattern with -0 mapped to +0.
func dedupKey(f float32) uint32 {
	b := math.Float32bits(f)
	if b == 0x80000000 {
		return 0
	}
	return b
}

// dedupStream deduplicates a stream of k-component entries by exact bit
// equality (-0 = +0). It returns nil remap when there are no duplicates
// (the stream keeps its order); otherwise the compacted stream in sorted
// order (component keys as u32, ties by source index) and old → new.
func dedupStream(flat []float32, k int) ([]float32, []uint32) {
	n := len(flat) / k
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	compare := func(a, b int32) int {
		for c := 0; c < k; c++ {
			if r := cmp.Compare(dedupKey(flat[int(a)*k+c]), dedupKey(flat[int(b)*k+c])); r != 0 {
				return r
			}
		}
		return 0
	}
	slices.SortStableFunc(order, compare)
	dups := 0
	for i := 1; i < n; i++ {
		if compare(order[i-1], order[i]) == 0 {
			dups++
		}
	}
	if dups == 0 {
		return flat, nil
	}
	out := make([]float32, 0, (n-dups)*k)
	remap := make([]uint32, n)
	next := -1
	for i, src := range order {
		if i == 0 || compare(order[i-1], src) != 0 {
			next++
			out = append(out, flat[int(src)*k:int(src+1)*k]...)
		}
		remap[src] = uint32(next)
	}
	return out, remap
}

// Check reports whether src is already canonical (Refresh would return it
// unchanged) and, when it is not, a short summary of what refresh would
// change: one line per count that changes, rewritten lists, a removed
// BOM, fixed line endings, and the first line that differs.
func Check(src []byte, name string, opts RefreshOptions) (bool, string, error) {
	out, rep, err := Refresh(src, name, opts)
	if err != nil {
		return false, "", err
	}
	if bytes.Equal(out, src) {
		return true, "", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: not canonical\n", name)
	for _, r := range rep.rows() {
		if r.before != r.after {
			fmt.Fprintf(&b, "  %s: %d -> %d\n", r.name, r.before, r.after)
		}
	}
	if len(rep.Rewritten) > 0 {
		fmt.Fprintf(&b, "  rewritten: %s\n", strings.Join(rep.Rewritten, ", "))
	}
	if rep.BOMRemoved {
		b.WriteString("  UTF-8 BOM would be removed\n")
	}
	if rep.LineEndingsFixed {
		b.WriteString("  bare LF line endings would become CRLF\n")
	}
	if line := firstDiffLine(src, out); line > 0 {
		fmt.Fprintf(&b, "  first difference at line %d\n", line)
	}
	return false, b.String(), nil
}

// firstDiffLine is the 1-based line of the first differing byte, 0 if
// equal.
func firstDiffLine(a, b []byte) int {
	if hasBOM(a) && !hasBOM(b) {
		return 1
	}
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return 0
	}
	return bytes.Count(a[:i], []byte("\n")) + 1
}
