package nwb

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// dump renders a value compactly: numbers (ints marked with i), "strings",
// [lists], {maps} and &references.
func dump(v Value) string {
	switch v.Kind {
	case NumberValue:
		s := strconv.FormatFloat(v.Num, 'g', -1, 64)
		if v.Int {
			s += "i"
		}
		return s
	case StringValue:
		return `"` + v.Str() + `"`
	case RefValue:
		return "&" + v.Str()
	case ListValue:
		parts := make([]string, len(v.List()))
		for i, e := range v.List() {
			parts[i] = dump(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case MapValue:
		parts := make([]string, len(v.Map().Entries))
		for i, e := range v.Map().Entries {
			parts[i] = e.Key + ":" + dump(e.Val)
		}
		return "{" + strings.Join(parts, " ") + "}"
	}
	return "?"
}

// dumpFile renders every declaration as "type name = value" lines.
func dumpFile(f *File) string {
	var b strings.Builder
	for _, d := range f.Decls {
		b.WriteString(d.Type + " " + d.Name + " = " + dump(d.Value) + "\n")
	}
	return b.String()
}

func TestParseValues(t *testing.T) {
	cases := []struct{ why, src, want string }{
		{"declaration without initializer is an empty map", "mesh a;", "mesh a = {}\n"},
		{"integers and floats", "x a = [1, 1.5, 2e3, 2E-1, 007, 0.25e+1];", "x a = [1i 1.5 2000 0.2 7i 2.5]\n"},
		{"unary minus keeps integer-ness", "x a = [-1, --2, -1.5];", "x a = [-1i 2i -1.5]\n"},
		{"precedence and parentheses", "x a = [1 + 2 * 3, (1 + 2) * 3, 7 - 2 - 1, 8 / 2 / 2];", "x a = [7i 9i 4i 2i]\n"},
		{"inexact integer division is a float", "x a = 1 / 4;", "x a = 0.25\n"},
		{"string and list joins", `x a = ["ab" + "c", [1] + [2, 3]];`, `x a = ["abc" [1i 2i 3i]]` + "\n"},
		{"escapes stay raw", `x a = "q\"x\\";`, `x a = "q\"x\\"` + "\n"},
		{"trailing commas", "x a = [1, 2, ];", "x a = [1i 2i]\n"},
		{"map, repeated key overwrites in place", `x a = { "k": 1, "j": 2, "k": 3, };`, "x a = {k:3i j:2i}\n"},
		{"{} and {a, b} are lists", "x a = [{}, {1, 2}, {3,}];", "x a = [[] [1i 2i] [3i]]\n"},
		{"references to earlier declarations", "x a; x b = [a, a.f.g];", "x a = {}\nx b = [&a &a.f.g]\n"},
		{"field assignment makes intermediate maps", "x a; a.b.c = 1; a.b.d = \"s\";", "x a = {b:{c:1i d:\"s\"}}\n"},
		{"compound assignment on numbers", "x a; a.n = 10; a.n += 2; a.n -= 4; a.n *= 3; a.n /= 2;", "x a = {n:12i}\n"},
		{"+= on a list appends a list or one element", "x a; a.l = [1]; a.l += [2, 3]; a.l += 4; a.l += [[5]];", "x a = {l:[1i 2i 3i 4i [5i]]}\n"},
		{"+= on a string joins", `x a; a.s = "a"; a.s += "b";`, `x a = {s:"ab"}` + "\n"},
		{"assignment to the root replaces", "x a; a = [1];", "x a = [1i]\n"},
		{"comments and whitespace", "// c\nx /* b\n */ a\t=\r\n1; // end", "x a = 1i\n"},
		{"a BOM is skipped", "\xEF\xBB\xBFx a = 1;", "x a = 1i\n"},
		{"empty file", " // nothing\n", ""},
	}
	for _, c := range cases {
		f, err := Parse([]byte(c.src), "t.nwb")
		if err != nil {
			t.Errorf("%s: %v", c.why, err)
			continue
		}
		if got := dumpFile(f); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.why, got, c.want)
		}
	}
}

// Every error kind, with its exact message and 1-based line:byte column.
func TestParseErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"mesh a;\n/* open", "2:1: unterminated block comment"},
		{"x a = \"abc\n\";", "1:7: unterminated string"},
		{"x a = \"abc\\", "1:7: unterminated string"},
		{"x a = 1;\n  @", "2:3: unexpected character '@'"},
		{"x a = \xc3\xa9;", "1:7: unexpected byte 0xc3"},
		{"x a = 1e;", "1:7: malformed number '1e': exponent needs digits"},
		{"x a = 2e+;", "1:7: malformed number '2e+': exponent needs digits"},
		{"x a = 1\nx", "2:1: expected ';' after expression, found identifier 'x'"},
		{"x a; a.b = 1 2;", "1:14: expected ';' after expression, found number '2'"},
		{"x a = ;", "1:7: expected expression, found ';'"},
		{"x a = .5;", "1:7: expected expression, found '.'"},
		{"x a = +1;", "1:7: expected expression, found '+'"},
		{"x a = [1, 2;", "1:12: expected ',' or ']' in list, found ';'"},
		{"x a = {1, 2;", "1:12: expected ',' or '}' in list, found ';'"},
		{"x a = {1: 2};", "1:8: map key must be a string, found number"},
		{`x a = {"k" 2};`, "1:12: expected ',' or '}' in list, found number '2'"},
		{`x a = {"k": 2; };`, "1:14: expected ',' or '}' in map, found ';'"},
		{`x a = {"k": 2, 3: 4};`, "1:16: map key must be a string, found number"},
		{"x a = (1;", "1:9: expected ')' after expression, found ';'"},
		{"1;", "1:1: expected statement, found number '1'"},
		{"x a b;", "1:5: expected '=' or ';' after declaration of 'a', found identifier 'b'"},
		{"x a;\ny a;", "2:3: 'a' is already declared at 1:1"},
		{"b.c = 1;", "1:1: undeclared variable 'b'"},
		{"x a = b;", "1:7: undeclared variable 'b'"},
		{"x a = a;", "1:7: undeclared variable 'a'"},
		{"x a; a. = 1;", "1:9: expected field name after '.', found '='"},
		{"x a; a.b == 1;", "1:11: expected expression, found '='"},
		{"x a; a.b : 1;", "1:10: expected assignment operator after 'a.b', found ':'"},
		{"x a; a.b += 1;", "1:8: 'a.b' is not set"},
		{"x a = 1; a.b = 1;", "1:12: cannot set field 'b' of 'a': it is a number, not a map"},
		{"x a = \"s\" - \"t\";", "1:11: cannot apply '-' to string and string"},
		{"x a = [1] + 1;", "1:11: cannot apply '+' to list and number"},
		{"x a = -\"s\";", "1:7: cannot apply unary '-' to string"},
		{"x a = 1 / 0;", "1:9: division by zero"},
		{"x a; a.s = \"s\"; a.s *= 2;", "1:21: cannot apply '*' to string and number"},
		{"x a = " + strings.Repeat("[", 300), "1:263: expression nested deeper than 256 levels"},
		{"x a = " + strings.Repeat("-", 300) + "1;", "1:262: expression nested deeper than 256 levels"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.src), "dir/t.nwb")
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: got %v, want a *SyntaxError", c.src, err)
			continue
		}
		if want := "nwb: dir/t.nwb:" + c.want; err.Error() != want {
			t.Errorf("%q:\n got %s\nwant %s", c.src, err, want)
		}
	}
}

// Positions count bytes, not runes, and lines from 1.
func TestPositionsAreByteColumns(t *testing.T) {
	_, err := Parse([]byte("x a = \"é\" x;"), "t.nwb")
	if err == nil || !strings.HasPrefix(err.Error(), "nwb: t.nwb:1:12: ") {
		t.Fatalf("got %v", err)
	}
}

// Literal spans cover exactly the list text, which refresh splices.
func TestLiteralSpans(t *testing.T) {
	src := "mesh a;\na.positions = [ [1,2,3] ,\n];\na.normals = [1] + [2];\n"
	f, err := Parse([]byte(src), "t.nwb")
	if err != nil {
		t.Fatal(err)
	}
	p := f.Decl("a").Value.Map().Get("positions").Val
	if !p.Lit || src[p.Off:p.End] != "[ [1,2,3] ,\n]" {
		t.Fatalf("positions span %d..%d lit=%v", p.Off, p.End, p.Lit)
	}
	if n := f.Decl("a").Value.Map().Get("normals").Val; n.Lit {
		t.Fatal("a computed list must not be marked literal")
	}
}
