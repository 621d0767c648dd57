package nwb

import (
	"fmt"
	"math"
	"strings"
)

// maxDepth bounds expression nesting so hostile input cannot exhaust the
// stack; real sources nest four or five levels.
const maxDepth = 256

// Parse lexes, parses and evaluates one .nwb source. name is used in error
// messages only. A UTF-8 byte-order mark is skipped. Parse checks the
// language rules (syntax, declarations before use, operand types); the
// asset rules are checked by (*File).Document.
func Parse(src []byte, name string) (*File, error) {
	if len(src) > math.MaxInt32 {
		return nil, fmt.Errorf("nwb: %s: file of %d bytes is too large", name, len(src))
	}
	f := &File{Name: name, src: src}
	p := &parser{f: f, lx: lexer{src: src, name: name}, decls: map[string]*Decl{}}
	if hasBOM(src) {
		p.lx.pos = len(bom)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	for p.tok.kind != tokEOF {
		if err := p.statement(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

var bom = []byte{0xEF, 0xBB, 0xBF}

func hasBOM(b []byte) bool { return len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF }

type parser struct {
	f     *File
	lx    lexer
	tok   token // current (lookahead) token
	decls map[string]*Decl
	depth int
	// scratch is a stack of list elements being parsed; nested lists
	// push above their parent's and pop back to it.
	scratch []Value
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) errorf(off int, format string, args ...any) error {
	return p.f.errorf(int32(off), format, args...)
}

func (p *parser) is(punct string) bool { return p.tok.kind == tokPunct && p.tok.text == punct }

// expect consumes punctuation punct or fails with "expected 'punct' <context>, found ...".
func (p *parser) expect(punct, context string) error {
	if !p.is(punct) {
		return p.errorf(p.tok.start, "expected '%s' %s, found %s", punct, context, p.tok.describe())
	}
	return p.advance()
}

// statement parses a declaration or a field assignment.
func (p *parser) statement() error {
	first := p.tok
	if first.kind != tokIdent {
		return p.errorf(first.start, "expected statement, found %s", first.describe())
	}
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind == tokIdent {
		return p.declaration(first)
	}
	return p.assignment(first)
}

// declaration parses `type name;` or `type name = expr;`.
func (p *parser) declaration(typ token) error {
	name := p.tok
	if prev, ok := p.decls[name.text]; ok {
		line, col := p.f.Pos(prev.Off)
		return p.errorf(name.start, "'%s' is already declared at %d:%d", name.text, line, col)
	}
	if err := p.advance(); err != nil {
		return err
	}
	d := &Decl{Type: typ.text, Name: name.text, Off: int32(typ.start)}
	switch {
	case p.is(";"):
		d.Value = mapValue()
		d.Value.Off = int32(name.start)
	case p.is("="):
		if err := p.advance(); err != nil {
			return err
		}
		v, err := p.expr()
		if err != nil {
			return err
		}
		d.Value = v
		if !p.is(";") {
			return p.errorf(p.tok.start, "expected ';' after expression, found %s", p.tok.describe())
		}
	default:
		return p.errorf(p.tok.start, "expected '=' or ';' after declaration of '%s', found %s", name.text, p.tok.describe())
	}
	p.decls[d.Name] = d
	p.f.Decls = append(p.f.Decls, d)
	return p.advance()
}

// assignment parses `root.a.b op expr;` with op one of = += -= *= /=.
func (p *parser) assignment(root token) error {
	d, ok := p.decls[root.text]
	if !ok {
		return p.errorf(root.start, "undeclared variable '%s'", root.text)
	}
	path := []string{root.text}
	fieldOff := []int32{int32(root.start)}
	for p.is(".") {
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tokIdent {
			return p.errorf(p.tok.start, "expected field name after '.', found %s", p.tok.describe())
		}
		path = append(path, p.tok.text)
		fieldOff = append(fieldOff, int32(p.tok.start))
		if err := p.advance(); err != nil {
			return err
		}
	}
	op := p.tok
	switch {
	case p.is("="), p.is("+="), p.is("-="), p.is("*="), p.is("/="):
	default:
		return p.errorf(op.start, "expected assignment operator after '%s', found %s", strings.Join(path, "."), op.describe())
	}
	if err := p.advance(); err != nil {
		return err
	}
	rhs, err := p.expr()
	if err != nil {
		return err
	}
	if !p.is(";") {
		return p.errorf(p.tok.start, "expected ';' after expression, found %s", p.tok.describe())
	}

	// Find the slot: the declaration's value or a field inside it;
	// intermediate fields become maps.
	slot := &d.Value
	last := len(path) - 1
	for i := 1; i <= last; i++ {
		if slot.Kind != MapValue {
			return p.errorf(int(fieldOff[i]), "cannot set field '%s' of '%s': it is a %s, not a map", path[i], strings.Join(path[:i], "."), slot.Kind)
		}
		e := slot.Map().Get(path[i])
		switch {
		case e != nil:
		case i < last:
			m := mapValue()
			m.Off = fieldOff[i]
			e = slot.Map().Set(path[i], fieldOff[i], m)
		case op.text != "=":
			return p.errorf(int(fieldOff[i]), "'%s' is not set", strings.Join(path, "."))
		default:
			e = slot.Map().Set(path[i], fieldOff[i], Value{})
		}
		if i == last {
			e.Off = fieldOff[i] // errors about the field point at its latest assignment
		}
		slot = &e.Val
	}
	if op.text == "=" {
		*slot = rhs
		return p.advance()
	}
	bop := op.text[:1]
	if bop == "+" && slot.Kind == ListValue {
		// += on a list appends in place: a list operand is joined, any
		// other value becomes one new element.
		if rhs.Kind == ListValue {
			slot.x = &valueExt{list: append(slot.List(), rhs.List()...)}
		} else {
			slot.x = &valueExt{list: append(slot.List(), rhs)}
		}
		slot.Lit = false
		return p.advance()
	}
	v, msg := binary(bop, *slot, rhs)
	if msg != "" {
		return p.errorf(op.start, "%s", msg)
	}
	*slot = v
	return p.advance()
}

// expr parses `term (('+'|'-') term)*`.
func (p *parser) expr() (Value, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return Value{}, p.errorf(p.tok.start, "expression nested deeper than %d levels", maxDepth)
	}
	return p.leftAssoc("+", "-", p.term)
}

// term parses `unary (('*'|'/') unary)*`.
func (p *parser) term() (Value, error) { return p.leftAssoc("*", "/", p.unary) }

// leftAssoc parses `operand ((op1|op2) operand)*`, folding left to right.
func (p *parser) leftAssoc(op1, op2 string, operand func() (Value, error)) (Value, error) {
	left, err := operand()
	if err != nil {
		return Value{}, err
	}
	for p.is(op1) || p.is(op2) {
		op := p.tok
		if err := p.advance(); err != nil {
			return Value{}, err
		}
		right, err := operand()
		if err != nil {
			return Value{}, err
		}
		v, msg := binary(op.text, left, right)
		if msg != "" {
			return Value{}, p.errorf(op.start, "%s", msg)
		}
		left = v
	}
	return left, nil
}

// unary parses `'-' unary | primary`.
func (p *parser) unary() (Value, error) {
	if !p.is("-") {
		return p.primary()
	}
	op := p.tok
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return Value{}, p.errorf(op.start, "expression nested deeper than %d levels", maxDepth)
	}
	if err := p.advance(); err != nil {
		return Value{}, err
	}
	v, err := p.unary()
	if err != nil {
		return Value{}, err
	}
	if v.Kind != NumberValue {
		return Value{}, p.errorf(op.start, "cannot apply unary '-' to %s", v.Kind)
	}
	return Value{Kind: NumberValue, Int: v.Int, Num: -v.Num, Off: int32(op.start)}, nil
}

// primary parses a literal, a parenthesised expression or a reference.
func (p *parser) primary() (Value, error) {
	t := p.tok
	switch {
	case t.kind == tokInt || t.kind == tokFloat:
		v := Value{Kind: NumberValue, Int: t.kind == tokInt, Num: t.num, Lit: true, Off: int32(t.start), End: int32(t.end)}
		return v, p.advance()
	case t.kind == tokString:
		v := stringValue(StringValue, t.text)
		v.Lit, v.Off, v.End = true, int32(t.start), int32(t.end)
		return v, p.advance()
	case t.kind == tokIdent:
		return p.reference()
	case p.is("("):
		if err := p.advance(); err != nil {
			return Value{}, err
		}
		v, err := p.expr()
		if err != nil {
			return Value{}, err
		}
		if !p.is(")") {
			return Value{}, p.errorf(p.tok.start, "expected ')' after expression, found %s", p.tok.describe())
		}
		return v, p.advance()
	case p.is("["):
		return p.list()
	case p.is("{"):
		return p.brace()
	}
	return Value{}, p.errorf(t.start, "expected expression, found %s", t.describe())
}

// reference parses `ident ('.' ident)*`; its root must be declared.
func (p *parser) reference() (Value, error) {
	root := p.tok
	if _, ok := p.decls[root.text]; !ok {
		return Value{}, p.errorf(root.start, "undeclared variable '%s'", root.text)
	}
	path := root.text
	end := root.end
	if err := p.advance(); err != nil {
		return Value{}, err
	}
	for p.is(".") {
		if err := p.advance(); err != nil {
			return Value{}, err
		}
		if p.tok.kind != tokIdent {
			return Value{}, p.errorf(p.tok.start, "expected field name after '.', found %s", p.tok.describe())
		}
		path += "." + p.tok.text
		end = p.tok.end
		if err := p.advance(); err != nil {
			return Value{}, err
		}
	}
	v := stringValue(RefValue, path)
	v.Lit, v.Off, v.End = true, int32(root.start), int32(end)
	return v, nil
}

// list parses `[a, b, ]` (trailing comma allowed); the opening bracket is
// the current token.
func (p *parser) list() (Value, error) {
	start := p.tok.start
	if err := p.advance(); err != nil {
		return Value{}, err
	}
	base := len(p.scratch)
	for !p.is("]") {
		e, err := p.expr()
		if err != nil {
			return Value{}, err
		}
		p.scratch = append(p.scratch, e)
		if p.is(",") {
			if err := p.advance(); err != nil {
				return Value{}, err
			}
			continue
		}
		if !p.is("]") {
			return Value{}, p.errorf(p.tok.start, "expected ',' or ']' in list, found %s", p.tok.describe())
		}
	}
	v := p.popList(base)
	v.Lit, v.Off, v.End = true, int32(start), int32(p.tok.end)
	return v, p.advance()
}

// popList makes a list of the elements pushed on the scratch stack since
// base, in one exactly sized allocation, and pops them.
func (p *parser) popList(base int) Value {
	elems := make([]Value, len(p.scratch)-base)
	copy(elems, p.scratch[base:])
	clear(p.scratch[base:])
	p.scratch = p.scratch[:base]
	return listValue(elems)
}

// brace parses `{ "k": v, ... }` as a map, and `{}` or `{a, b}` as a list.
func (p *parser) brace() (Value, error) {
	start := p.tok.start
	if err := p.advance(); err != nil {
		return Value{}, err
	}
	if p.is("}") {
		v := listValue(nil)
		v.Lit, v.Off, v.End = true, int32(start), int32(p.tok.end)
		return v, p.advance()
	}
	first, err := p.expr()
	if err != nil {
		return Value{}, err
	}
	if !p.is(":") {
		// A list in braces: continue after the first element.
		base := len(p.scratch)
		p.scratch = append(p.scratch, first)
		for !p.is("}") {
			if !p.is(",") {
				return Value{}, p.errorf(p.tok.start, "expected ',' or '}' in list, found %s", p.tok.describe())
			}
			if err := p.advance(); err != nil {
				return Value{}, err
			}
			if p.is("}") {
				break
			}
			e, err := p.expr()
			if err != nil {
				return Value{}, err
			}
			p.scratch = append(p.scratch, e)
		}
		v := p.popList(base)
		v.Lit, v.Off, v.End = true, int32(start), int32(p.tok.end)
		return v, p.advance()
	}
	m := mapValue()
	m.Lit, m.Off = true, int32(start)
	key := first
	for {
		if key.Kind != StringValue {
			return Value{}, p.errorf(int(key.Off), "map key must be a string, found %s", key.Kind)
		}
		if err := p.expect(":", "after map key"); err != nil {
			return Value{}, err
		}
		val, err := p.expr()
		if err != nil {
			return Value{}, err
		}
		m.Map().Set(key.Str(), key.Off, val)
		if p.is(",") {
			if err := p.advance(); err != nil {
				return Value{}, err
			}
		} else if !p.is("}") {
			return Value{}, p.errorf(p.tok.start, "expected ',' or '}' in map, found %s", p.tok.describe())
		}
		if p.is("}") {
			break
		}
		if key, err = p.expr(); err != nil {
			return Value{}, err
		}
	}
	m.End = int32(p.tok.end)
	return m, p.advance()
}
