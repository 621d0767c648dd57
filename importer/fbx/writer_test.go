package fbx

// A minimal FBX writer for tests: binary (7400 and below with 32-bit record
// headers, 7500 and above with 64-bit ones; arrays raw or zlib) and ASCII
// (7.x style, '*N { a: … }' arrays). Object names written as "Class::Name"
// become binary's "Name\x00\x01Class".

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// n builds a node; values are converted by prop.
func n(name string, values ...any) *Node {
	nd := &Node{Name: name}
	for _, v := range values {
		switch v := v.(type) {
		case *Node:
			nd.Children = append(nd.Children, v)
		case []*Node:
			nd.Children = append(nd.Children, v...)
		default:
			nd.Props = append(nd.Props, prop(v))
		}
	}
	return nd
}

func prop(v any) Property {
	switch v := v.(type) {
	case bool:
		p := Property{Type: TypeBool}
		if v {
			p.Int = 1
		}
		return p
	case int16:
		return Property{Type: TypeInt16, Int: int64(v)}
	case int32:
		return Property{Type: TypeInt32, Int: int64(v)}
	case int:
		return Property{Type: TypeInt64, Int: int64(v)}
	case int64:
		return Property{Type: TypeInt64, Int: v}
	case float32:
		return Property{Type: TypeFloat32, Float: float64(v)}
	case float64:
		return Property{Type: TypeFloat64, Float: v}
	case string:
		return Property{Type: TypeString, Str: v}
	case []byte:
		return Property{Type: TypeRaw, Bytes: v}
	case []bool:
		return Property{Type: TypeBoolArray, Bools: v}
	case []int32:
		return Property{Type: TypeInt32Array, Int32s: v}
	case []int64:
		return Property{Type: TypeInt64Array, Int64s: v}
	case []float32:
		return Property{Type: TypeFloat32Array, Float32s: v}
	case []float64:
		return Property{Type: TypeFloat64Array, Float64s: v}
	case Property:
		return v
	}
	panic(fmt.Sprintf("prop: unsupported %T", v))
}

type binWriter struct {
	buf      bytes.Buffer
	wide     bool
	compress bool
}

// writeBinary serialises top-level nodes as a binary FBX file.
func writeBinary(version uint32, nodes []*Node, compress bool) []byte {
	w := &binWriter{wide: version >= 7500, compress: compress}
	w.buf.WriteString(binaryMagic)
	w.buf.Write([]byte{0x1a, 0})
	binary.Write(&w.buf, binary.LittleEndian, version)
	for _, nd := range nodes {
		w.node(nd)
	}
	w.null()
	w.buf.Write(make([]byte, 16)) // footer stand-in
	return w.buf.Bytes()
}

func (w *binWriter) word(v uint64) {
	if w.wide {
		binary.Write(&w.buf, binary.LittleEndian, v)
	} else {
		binary.Write(&w.buf, binary.LittleEndian, uint32(v))
	}
}

func (w *binWriter) null() {
	if w.wide {
		w.buf.Write(make([]byte, 25))
	} else {
		w.buf.Write(make([]byte, 13))
	}
}

func (w *binWriter) node(nd *Node) {
	start := w.buf.Len()
	w.word(0) // end offset, patched below
	w.word(uint64(len(nd.Props)))
	w.word(0) // property list length, patched below
	w.buf.WriteByte(byte(len(nd.Name)))
	w.buf.WriteString(nd.Name)
	propStart := w.buf.Len()
	for _, p := range nd.Props {
		w.prop(p)
	}
	propLen := w.buf.Len() - propStart
	for _, c := range nd.Children {
		w.node(c)
	}
	if len(nd.Children) > 0 {
		w.null()
	}
	b := w.buf.Bytes()
	if w.wide {
		binary.LittleEndian.PutUint64(b[start:], uint64(w.buf.Len()))
		binary.LittleEndian.PutUint64(b[start+16:], uint64(propLen))
	} else {
		binary.LittleEndian.PutUint32(b[start:], uint32(w.buf.Len()))
		binary.LittleEndian.PutUint32(b[start+8:], uint32(propLen))
	}
}

func (w *binWriter) prop(p Property) {
	le := binary.LittleEndian
	w.buf.WriteByte(p.Type)
	switch p.Type {
	case TypeBool:
		w.buf.WriteByte(byte(p.Int))
	case TypeInt16:
		binary.Write(&w.buf, le, int16(p.Int))
	case TypeInt32:
		binary.Write(&w.buf, le, int32(p.Int))
	case TypeInt64:
		binary.Write(&w.buf, le, p.Int)
	case TypeFloat32:
		binary.Write(&w.buf, le, float32(p.Float))
	case TypeFloat64:
		binary.Write(&w.buf, le, p.Float)
	case TypeString, TypeRaw:
		b := p.Bytes
		if p.Type == TypeString {
			s := p.Str
			if i := strings.Index(s, "::"); i >= 0 {
				s = s[i+2:] + "\x00\x01" + s[:i]
			}
			b = []byte(s)
		}
		binary.Write(&w.buf, le, uint32(len(b)))
		w.buf.Write(b)
	default:
		var raw bytes.Buffer
		switch p.Type {
		case TypeBoolArray:
			for _, v := range p.Bools {
				if v {
					raw.WriteByte(1)
				} else {
					raw.WriteByte(0)
				}
			}
		case TypeInt32Array:
			binary.Write(&raw, le, p.Int32s)
		case TypeInt64Array:
			binary.Write(&raw, le, p.Int64s)
		case TypeFloat32Array:
			binary.Write(&raw, le, p.Float32s)
		case TypeFloat64Array:
			binary.Write(&raw, le, p.Float64s)
		}
		data, enc := raw.Bytes(), uint32(0)
		if w.compress {
			data, enc = zlibBytes(data), 1
		}
		binary.Write(&w.buf, le, uint32(p.Len()))
		binary.Write(&w.buf, le, enc)
		binary.Write(&w.buf, le, uint32(len(data)))
		w.buf.Write(data)
	}
}

func zlibBytes(b []byte) []byte {
	var out bytes.Buffer
	zw := zlib.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

// writeASCII serialises top-level nodes as a 7.x-style ASCII FBX file.
func writeASCII(version uint32, nodes []*Node) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "; FBX %d.%d.%d project file\n; written by the fbx package tests\n\n", version/1000, version/100%10, version/10%10)
	for _, nd := range nodes {
		asciiNode(&b, nd, "")
	}
	return []byte(b.String())
}

func asciiNode(b *strings.Builder, nd *Node, indent string) {
	fmt.Fprintf(b, "%s%s: ", indent, nd.Name)
	for i, p := range nd.Props {
		if i > 0 {
			b.WriteString(", ")
		}
		switch {
		case p.IsArray():
			fmt.Fprintf(b, "*%d {\n%s\ta: ", p.Len(), indent)
			for k := 0; k < p.Len(); k++ {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(asciiNum(p.floatAt(k), p.Type == TypeFloat32Array || p.Type == TypeFloat64Array))
			}
			fmt.Fprintf(b, "\n%s}", indent)
		case p.Type == TypeString:
			fmt.Fprintf(b, "%q", p.Str)
		case p.Type == TypeRaw:
			fmt.Fprintf(b, "%q", string(p.Bytes))
		case p.Type == TypeFloat32 || p.Type == TypeFloat64:
			b.WriteString(asciiNum(p.Float, true))
		default:
			fmt.Fprintf(b, "%d", p.Int)
		}
	}
	if len(nd.Children) > 0 {
		b.WriteString(" {\n")
		for _, c := range nd.Children {
			asciiNode(b, c, indent+"\t")
		}
		fmt.Fprintf(b, "%s}", indent)
	}
	b.WriteString("\n")
}

func asciiNum(v float64, float bool) string {
	if !float && v == math.Trunc(v) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.17g", v)
}
