package nwb

import (
	"fmt"
	"math"
	"sort"
)

// ValueKind is the type of an evaluated expression.
type ValueKind uint8

const (
	NumberValue ValueKind = iota + 1
	StringValue
	ListValue
	MapValue
	RefValue
)

func (k ValueKind) String() string {
	switch k {
	case NumberValue:
		return "number"
	case StringValue:
		return "string"
	case ListValue:
		return "list"
	case MapValue:
		return "map"
	case RefValue:
		return "reference"
	}
	return "nothing"
}

// Value is an evaluated expression. Expressions are evaluated as the
// parser reads them; references stay symbolic (Str holds the dotted path).
// A Value is 32 bytes: numbers, by far the most common, carry no pointer;
// strings, lists and maps keep their payload behind one.
type Value struct {
	Num float64
	// Off is the byte offset where the expression starts; End is where a
	// literal ends.
	Off, End int32
	Kind     ValueKind
	// Int is true for a number written (or computed) as an integer.
	Int bool
	// Lit is true when the value is exactly the literal text
	// src[Off:End], so refresh can splice a replacement there.
	Lit bool
	x   *valueExt
}

type valueExt struct {
	str  string
	list []Value
	m    *Map
}

// Str is a string's content (escapes kept raw) or a reference's dotted path.
func (v Value) Str() string {
	if v.x == nil {
		return ""
	}
	return v.x.str
}

// List is a list's elements.
func (v Value) List() []Value {
	if v.x == nil {
		return nil
	}
	return v.x.list
}

// Map is a map's entries (nil for other kinds).
func (v Value) Map() *Map {
	if v.x == nil {
		return nil
	}
	return v.x.m
}

func stringValue(kind ValueKind, s string) Value { return Value{Kind: kind, x: &valueExt{str: s}} }
func listValue(elems []Value) Value              { return Value{Kind: ListValue, x: &valueExt{list: elems}} }
func mapValue() Value                            { return Value{Kind: MapValue, x: &valueExt{m: NewMap()}} }

// Map is an ordered string-keyed map; a repeated key overwrites in place.
type Map struct {
	Entries []MapEntry
	index   map[string]int
}

// MapEntry is one key and its value; Off is where the key (or the field
// assignment that set it) starts.
type MapEntry struct {
	Key string
	Off int32
	Val Value
}

// NewMap returns an empty map.
func NewMap() *Map { return &Map{index: map[string]int{}} }

// Get returns the entry for key, or nil.
func (m *Map) Get(key string) *MapEntry {
	if m == nil {
		return nil
	}
	if i, ok := m.index[key]; ok {
		return &m.Entries[i]
	}
	return nil
}

// Set stores v under key, overwriting an existing key in place.
func (m *Map) Set(key string, off int32, v Value) *MapEntry {
	if i, ok := m.index[key]; ok {
		m.Entries[i].Val = v
		m.Entries[i].Off = off
		return &m.Entries[i]
	}
	m.index[key] = len(m.Entries)
	m.Entries = append(m.Entries, MapEntry{Key: key, Off: off, Val: v})
	return &m.Entries[len(m.Entries)-1]
}

// Decl is one declaration `type name [= expr];` with the value its field
// assignments built. A declaration without an initializer starts as an
// empty map.
type Decl struct {
	Type, Name string
	Off        int32 // where the type identifier starts
	Value      Value
}

// File is a parsed .nwb source: its declarations in source order.
type File struct {
	Name  string
	Decls []*Decl
	src   []byte
	lines []int // byte offset of each line start, built lazily
}

// Decl returns the declaration named name, or nil.
func (f *File) Decl(name string) *Decl {
	for _, d := range f.Decls {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// Pos converts a byte offset into a 1-based line and byte column.
func (f *File) Pos(off int32) (line, col int) {
	if f.lines == nil {
		f.lines = []int{0}
		for i, c := range f.src {
			if c == '\n' {
				f.lines = append(f.lines, i+1)
			}
		}
	}
	o := int(off)
	i := sort.Search(len(f.lines), func(i int) bool { return f.lines[i] > o }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, o - f.lines[i] + 1
}

// errorf builds a positioned error at byte offset off.
func (f *File) errorf(off int32, format string, args ...any) error {
	line, col := f.Pos(off)
	return &SyntaxError{File: f.Name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// binary applies a binary operator to two evaluated operands.
func binary(op string, a, b Value) (Value, string) {
	out := Value{Off: a.Off}
	switch {
	case a.Kind == NumberValue && b.Kind == NumberValue:
		out.Kind = NumberValue
		out.Int = a.Int && b.Int
		switch op {
		case "+":
			out.Num = a.Num + b.Num
		case "-":
			out.Num = a.Num - b.Num
		case "*":
			out.Num = a.Num * b.Num
		case "/":
			if b.Num == 0 {
				return Value{}, "division by zero"
			}
			out.Num = a.Num / b.Num
			// Integer division stays an integer only when exact.
			out.Int = out.Int && out.Num == math.Trunc(out.Num)
		}
		return out, ""
	case op == "+" && a.Kind == StringValue && b.Kind == StringValue:
		out.Kind, out.x = StringValue, &valueExt{str: a.Str() + b.Str()}
		return out, ""
	case op == "+" && a.Kind == ListValue && b.Kind == ListValue:
		list := make([]Value, 0, len(a.List())+len(b.List()))
		list = append(append(list, a.List()...), b.List()...)
		out.Kind, out.x = ListValue, &valueExt{list: list}
		return out, ""
	}
	return Value{}, fmt.Sprintf("cannot apply '%s' to %s and %s", op, a.Kind, b.Kind)
}
