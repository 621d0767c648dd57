package nwb

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
)

// crlf is the writer's line ending; the engine's writer always uses CRLF.
const crlf = "\r\n"

// Marshal returns doc in the engine's writer layout (nwb.md §1 "Writer
// layout"): CRLF line endings, declarations first, then each asset's
// fields, every list one element per line indented four spaces with a
// trailing comma, a blank line between lists. It fails only on a value the
// language cannot represent (a string with a newline or an unbalanced
// quote or backslash).
func Marshal(doc *Document) ([]byte, error) {
	w := &writer{}
	w.document(doc)
	if w.err != nil {
		return nil, w.err
	}
	return w.buf.Bytes(), nil
}

// Write writes Marshal(doc) to out.
func Write(out io.Writer, doc *Document) error {
	b, err := Marshal(doc)
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// writer accumulates output with a sticky error.
type writer struct {
	buf bytes.Buffer
	err error
	// blank is set when the next block must be preceded by a blank line.
	blank bool
}

func (w *writer) line(s string) {
	w.buf.WriteString(s)
	w.buf.WriteString(crlf)
}

// block starts a new group of statements, separated from the previous
// group by one blank line.
func (w *writer) block() {
	if w.blank {
		w.buf.WriteString(crlf)
	}
	w.blank = true
}

func (w *writer) document(doc *Document) {
	for _, a := range doc.Assets {
		w.line(string(a.Kind) + " " + a.Name + ";")
	}
	if doc.Bunch != "" {
		items := doc.BunchItems
		if items == nil {
			for _, a := range doc.Assets {
				items = append(items, a.Name)
			}
		}
		s := "asset_bunch " + doc.Bunch + " = [ "
		for _, it := range items {
			s += it + ", "
		}
		w.line(s + "];")
	}
	w.blank = true
	for _, a := range doc.Assets {
		switch {
		case a.Mesh != nil:
			w.mesh(a.Name, a.Mesh)
		case a.Skeleton != nil:
			w.skeleton(a.Name, a.Skeleton)
		case a.Skin != nil:
			w.skin(a.Name, a.Skin)
		case a.Model != nil:
			w.model(a.Name, a.Model)
		default:
			w.fail(fmt.Errorf("nwb: asset '%s' of kind '%s' has no content", a.Name, a.Kind))
		}
	}
}

func (w *writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// list writes `name = [` + one line per element + `];` as its own block.
func (w *writer) list(name string, n int, elem func(b []byte, i int) []byte) {
	w.block()
	w.line(name + " = [")
	var b []byte
	for i := 0; i < n; i++ {
		b = append(b[:0], "    "...)
		b = elem(b, i)
		b = append(b, ',')
		w.buf.Write(b)
		w.buf.WriteString(crlf)
	}
	w.line("];")
}

func (w *writer) mesh(v string, m *Mesh) {
	w.list(v+".positions", len(m.Positions), func(b []byte, i int) []byte { return appendFloats(b, m.Positions[i][:]) })
	w.list(v+".normals", len(m.Normals), func(b []byte, i int) []byte { return appendFloats(b, m.Normals[i][:]) })
	w.list(v+".tangents", len(m.Tangents), func(b []byte, i int) []byte { return appendFloats(b, m.Tangents[i][:]) })
	w.list(v+".uv0", len(m.UV0), func(b []byte, i int) []byte { return appendFloats(b, m.UV0[i][:]) })
	w.list(v+".colors", len(m.Colors), func(b []byte, i int) []byte { return appendFloats(b, m.Colors[i][:]) })
	w.list(v+".vertex_refs", len(m.VertexRefs), func(b []byte, i int) []byte { return appendVertexRef(b, m.VertexRefs[i]) })
	w.list(v+".indices", len(m.Indices)/3, func(b []byte, i int) []byte { return appendUints(b, m.Indices[3*i:3*i+3]) })
	if len(m.Indices)%3 != 0 {
		w.fail(fmt.Errorf("nwb: mesh '%s': %d indices is not a multiple of 3", v, len(m.Indices)))
	}
}

func (w *writer) skeleton(v string, s *Skeleton) {
	w.list(v+".joints", len(s.Joints), func(b []byte, i int) []byte {
		j := s.Joints[i]
		b = append(b, `{ "name": `...)
		b = w.appendString(b, j.Name)
		if j.Parent != "" {
			b = append(b, `, "parent": `...)
			b = w.appendString(b, j.Parent)
		}
		b = append(b, `, "local_bind_pose": `...)
		b = appendAffine(b, j.LocalBindPose)
		return append(b, ", }"...)
	})
}

func (w *writer) skin(v string, s *Skin) {
	w.block()
	w.line(v + ".mesh = " + string(w.appendRef(nil, s.Mesh)) + ";")
	w.line(v + ".skeleton = " + string(w.appendRef(nil, s.Skeleton)) + ";")
	w.list(v+".influences", len(s.Influences), func(b []byte, i int) []byte {
		in := s.Influences[i]
		b = append(b, `{ "joints": [`...)
		for c, j := range in.Joints {
			if c > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendUint(b, uint64(j), 10)
		}
		b = append(b, `], "weights": `...)
		b = appendFloats(b, in.Weights[:])
		return append(b, ", }"...)
	})
	w.list(v+".inverse_bind_matrices", len(s.InverseBindMatrices), func(b []byte, i int) []byte {
		return appendAffine(b, s.InverseBindMatrices[i])
	})
}

func (w *writer) model(v string, m *Model) {
	w.block()
	objects := func(field string, n int, obj func(b []byte, i int) []byte) {
		if n == 0 {
			return
		}
		b := []byte(v + "." + field + " = { ")
		for i := 0; i < n; i++ {
			b = obj(b, i)
			b = append(b, " }, "...)
		}
		w.line(string(b) + "};")
	}
	transform := func(b []byte, t Affine) []byte {
		if t == IdentityAffine() {
			return b
		}
		b = append(b, ` "transform": `...)
		return append(appendAffine(b, t), ',')
	}
	objects("skeletons", len(m.Skeletons), func(b []byte, i int) []byte {
		o := m.Skeletons[i]
		b = append(w.appendString(b, o.Name), `: { "skeleton": `...)
		b = append(w.appendRef(b, o.Skeleton), ',')
		return transform(b, o.Transform)
	})
	objects("static_meshes", len(m.StaticMeshes), func(b []byte, i int) []byte {
		o := m.StaticMeshes[i]
		b = append(w.appendString(b, o.Name), `: { "mesh": `...)
		b = append(w.appendRef(b, o.Mesh), ',')
		if o.Material != nil {
			b = append(b, ` "material": `...)
			b = append(w.appendRef(b, *o.Material), ',')
		}
		if o.ParentObject != "" {
			b = append(b, ` "parent_object": `...)
			b = append(w.appendString(b, o.ParentObject), ',')
		}
		if o.ParentJoint != "" {
			b = append(b, ` "parent_joint": `...)
			b = append(w.appendString(b, o.ParentJoint), ',')
		}
		return transform(b, o.Transform)
	})
	objects("skinned_meshes", len(m.SkinnedMeshes), func(b []byte, i int) []byte {
		o := m.SkinnedMeshes[i]
		b = append(w.appendString(b, o.Name), `: {`...)
		if o.Mesh != nil {
			b = append(b, ` "mesh": `...)
			b = append(w.appendRef(b, *o.Mesh), ',')
		}
		b = append(b, ` "skin": `...)
		b = append(w.appendRef(b, o.Skin), ',')
		if o.Material != nil {
			b = append(b, ` "material": `...)
			b = append(w.appendRef(b, *o.Material), ',')
		}
		b = append(b, ` "skeleton": `...)
		b = append(w.appendString(b, o.Skeleton), ',')
		return transform(b, o.Transform)
	})
}

// appendRef writes a bunch-local reference bare and any other as a string.
func (w *writer) appendRef(b []byte, r Ref) []byte {
	if r.Var != "" {
		return append(b, r.Var...)
	}
	return w.appendString(b, r.Path)
}

// appendString writes s in quotes. Strings are raw (escapes are kept as
// written), so s must read back as itself: one line, and every quote
// preceded by a backslash that is not itself escaped.
func (w *writer) appendString(b []byte, s string) []byte {
	if !Representable(s) {
		w.fail(fmt.Errorf("nwb: string %q cannot be written (newline, bare quote or trailing backslash)", s))
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// Representable reports whether s can be written as a .nwb string that
// reads back as s.
func Representable(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n', '\r', '"':
			return false
		case '\\':
			i++
			if i >= len(s) || s[i] == '\n' || s[i] == '\r' {
				return false
			}
		}
	}
	return true
}

// FormatFloat formats f as the engine's writer does: %.9g, and values with
// |f| < 1e-8 as "0" (which also removes -0).
func FormatFloat(f float32) string { return string(appendFloat(nil, f)) }

func appendFloat(b []byte, f float32) []byte {
	if math.Abs(float64(f)) < 1e-8 {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, float64(f), 'g', 9, 64)
}

// quantize returns the value f reads back as after the writer formats it.
func quantize(f float32) float32 {
	if math.Abs(float64(f)) < 1e-8 {
		return 0
	}
	return f
}

func appendFloats(b []byte, v []float32) []byte {
	b = append(b, '[')
	for i, f := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendFloat(b, f)
	}
	return append(b, ']')
}

func appendUints(b []byte, v []uint32) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(b, uint64(x), 10)
	}
	return append(b, ']')
}

func appendVertexRef(b []byte, r VertexRef) []byte {
	return appendUints(b, []uint32{r.Position, r.Normal, r.Tangent, r.UV0, r.Color})
}

func appendAffine(b []byte, a Affine) []byte {
	b = append(b, '[')
	for r := range a {
		if r > 0 {
			b = append(b, ", "...)
		}
		b = appendFloats(b, a[r][:])
	}
	return append(b, ']')
}
