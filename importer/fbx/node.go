package fbx

import (
	"errors"
	"fmt"
	"math"
)

// Document is a parsed FBX file: the node tree, before any scene meaning is
// given to it. Root is a synthetic node (empty name, no properties) whose
// children are the file's top-level nodes.
type Document struct {
	Version uint32 // 6100 … 7700 (the header's version, or FBXVersion for ASCII)
	Binary  bool
	Root    *Node
}

// Node is one FBX node record: a name, a list of typed properties and
// nested nodes. Pos is where the node starts: the byte offset of its record
// in a binary file, the 1-based line of its name in an ASCII file; errors
// about a node quote it.
type Node struct {
	Name     string
	Props    []Property
	Children []*Node
	Pos      int64
}

// Property type codes, as binary FBX spells them. ASCII values map onto the
// same codes: integers 'L', other numbers 'D', quoted strings and bare words
// 'S', and numeric lists 'l' or 'd' (see the package doc).
const (
	TypeBool    = 'C'
	TypeInt16   = 'Y'
	TypeInt32   = 'I'
	TypeInt64   = 'L'
	TypeFloat32 = 'F'
	TypeFloat64 = 'D'
	TypeString  = 'S'
	TypeRaw     = 'R'

	TypeBoolArray    = 'b'
	TypeByteArray    = 'c' // bytes (assimp's test files; rare)
	TypeInt32Array   = 'i'
	TypeInt64Array   = 'l'
	TypeFloat32Array = 'f'
	TypeFloat64Array = 'd'
)

// Property is one typed value of a node. Type says which field holds it:
// Int for 'C' (0 or 1), 'Y', 'I' and 'L'; Float for 'F' and 'D'; Str for
// 'S' (binary object names "Name\x00\x01Class" are rewritten to ASCII's
// "Class::Name"); Bytes for 'R' and 'c'; the matching slice for array types ('b'
// uses Bools, 'i' Int32s, 'l' Int64s, 'f' Float32s, 'd' Float64s).
type Property struct {
	Type     byte
	Int      int64
	Float    float64
	Str      string
	Bytes    []byte
	Bools    []bool
	Int32s   []int32
	Int64s   []int64
	Float32s []float32
	Float64s []float64
}

// IsArray reports whether p is one of the array types.
func (p *Property) IsArray() bool {
	switch p.Type {
	case TypeBoolArray, TypeByteArray, TypeInt32Array, TypeInt64Array, TypeFloat32Array, TypeFloat64Array:
		return true
	}
	return false
}

// IsNumber reports whether p is a scalar number (bool included).
func (p *Property) IsNumber() bool {
	switch p.Type {
	case TypeBool, TypeInt16, TypeInt32, TypeInt64, TypeFloat32, TypeFloat64:
		return true
	}
	return false
}

// Len is the element count of an array property, 1 for a scalar.
func (p *Property) Len() int {
	switch p.Type {
	case TypeBoolArray:
		return len(p.Bools)
	case TypeByteArray:
		return len(p.Bytes)
	case TypeInt32Array:
		return len(p.Int32s)
	case TypeInt64Array:
		return len(p.Int64s)
	case TypeFloat32Array:
		return len(p.Float32s)
	case TypeFloat64Array:
		return len(p.Float64s)
	}
	return 1
}

// AsFloat returns a scalar number as float64 (0 for other types).
func (p *Property) AsFloat() float64 {
	switch p.Type {
	case TypeFloat32, TypeFloat64:
		return p.Float
	case TypeBool, TypeInt16, TypeInt32, TypeInt64:
		return float64(p.Int)
	}
	return 0
}

// AsInt returns a scalar number as int64 (floats truncated toward zero,
// saturating; 0 for other types).
func (p *Property) AsInt() int64 {
	switch p.Type {
	case TypeFloat32, TypeFloat64:
		return f64ToInt(p.Float)
	case TypeBool, TypeInt16, TypeInt32, TypeInt64:
		return p.Int
	}
	return 0
}

func f64ToInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// floatAt and intAt read element i of an array property (the caller
// checked i < Len).
func (p *Property) floatAt(i int) float64 {
	switch p.Type {
	case TypeBoolArray:
		if p.Bools[i] {
			return 1
		}
		return 0
	case TypeByteArray:
		return float64(p.Bytes[i])
	case TypeInt32Array:
		return float64(p.Int32s[i])
	case TypeInt64Array:
		return float64(p.Int64s[i])
	case TypeFloat32Array:
		return float64(p.Float32s[i])
	case TypeFloat64Array:
		return p.Float64s[i]
	}
	return p.AsFloat()
}

func (p *Property) intAt(i int) int64 {
	switch p.Type {
	case TypeBoolArray:
		if p.Bools[i] {
			return 1
		}
		return 0
	case TypeByteArray:
		return int64(p.Bytes[i])
	case TypeInt32Array:
		return int64(p.Int32s[i])
	case TypeInt64Array:
		return p.Int64s[i]
	case TypeFloat32Array:
		return f64ToInt(float64(p.Float32s[i]))
	case TypeFloat64Array:
		return f64ToInt(p.Float64s[i])
	}
	return p.AsInt()
}

// Child returns the first child named name, or nil.
func (n *Node) Child(name string) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// kids returns n's children (nil for a nil node).
func (n *Node) kids() []*Node {
	if n == nil {
		return nil
	}
	return n.Children
}

// prop returns property i or nil.
func (n *Node) prop(i int) *Property {
	if n == nil || i < 0 || i >= len(n.Props) {
		return nil
	}
	return &n.Props[i]
}

// str returns property i as a string ("" when absent or not a string).
func (n *Node) str(i int) string {
	if p := n.prop(i); p != nil && p.Type == TypeString {
		return p.Str
	}
	return ""
}

// childStr returns the first string property of the child named name.
func (n *Node) childStr(name string) string { return n.Child(name).str(0) }

// childInt returns the first numeric property of the child named name.
func (n *Node) childInt(name string, def int64) int64 {
	if p := n.Child(name).prop(0); p != nil && p.IsNumber() {
		return p.AsInt()
	}
	return def
}

// Floats returns the node's numbers as float64s: the elements of its first
// array property when it has one, else all its scalar number properties
// (ASCII 6.x writes short lists that way). At most limit values are
// returned; ok is false when there are more.
func (n *Node) Floats(limit int) (v []float64, ok bool) {
	return numbers(n, limit, (*Property).floatAt, (*Property).AsFloat)
}

// Ints is Floats for integer data.
func (n *Node) Ints(limit int) (v []int64, ok bool) {
	return numbers(n, limit, (*Property).intAt, (*Property).AsInt)
}

// numbers is Floats and Ints: elem reads array element i, scalar a number
// property.
func numbers[T any](n *Node, limit int, elem func(*Property, int) T, scalar func(*Property) T) (v []T, ok bool) {
	if n == nil {
		return nil, true
	}
	if len(n.Props) > 0 && n.Props[0].IsArray() {
		p := &n.Props[0]
		if p.Len() > limit {
			return nil, false
		}
		v = make([]T, p.Len())
		for i := range v {
			v[i] = elem(p, i)
		}
		return v, true
	}
	for i := range n.Props {
		if p := &n.Props[i]; p.IsNumber() {
			if len(v) == limit {
				return nil, false
			}
			v = append(v, scalar(p))
		}
	}
	return v, true
}

// Errors. Every error Parse, Decode and Load return wraps one of these, so
// callers can tell a damaged file from one we choose not to read.
var (
	// ErrFormat: the bytes are not a well-formed FBX file.
	ErrFormat = errors.New("fbx: malformed file")
	// ErrUnsupported: well-formed, but outside what this importer reads
	// (a version outside 6100–7700, an array encoding other than 0 or 1).
	ErrUnsupported = errors.New("fbx: unsupported")
	// ErrLimit: the file exceeds one of Options' limits.
	ErrLimit = errors.New("fbx: limit exceeded")
	// ErrScene: the node tree is well-formed but its scene is inconsistent
	// (an index out of range, non-finite vertex data).
	ErrScene = errors.New("fbx: invalid scene")
)

// FormatError locates a problem in the file. Binary files are located by
// byte offset, ASCII files by line.
type FormatError struct {
	Path   string // file name as given to Load or Decode ("" from Parse)
	Binary bool
	Offset int64 // binary: byte offset
	Line   int64 // ASCII: 1-based line
	Msg    string
	Kind   error // ErrFormat, ErrUnsupported, ErrLimit or ErrScene
}

func (e *FormatError) Error() string {
	prefix := "fbx: "
	if e.Path != "" {
		prefix += e.Path
		if !e.Binary && e.Line > 0 {
			return fmt.Sprintf("%s:%d: %s", prefix, e.Line, e.Msg)
		}
		prefix += ": "
	} else if !e.Binary && e.Line > 0 {
		return fmt.Sprintf("%sline %d: %s", prefix, e.Line, e.Msg)
	}
	if e.Binary {
		return fmt.Sprintf("%soffset 0x%x: %s", prefix, e.Offset, e.Msg)
	}
	return prefix + e.Msg
}

// Unwrap returns the error kind.
func (e *FormatError) Unwrap() error { return e.Kind }
