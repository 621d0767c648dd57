package fbx

// ASCII FBX reader. The grammar, as the FBX SDK writes it and as ufbx and
// Blender read it:
//
//	node    = name ':' [values] ['{' node* '}']
//	values  = [','] value (',' value)*     (a leading comma is tolerated)
//	value   = number | '"' chars '"' | bare word | '*' count '{' 'a:' values '}'
//
// ';' starts a comment that runs to the end of the line. A value list ends
// at the end of its line unless the next non-blank character is a comma
// (6.x writes long lists with the comma opening the continuation line).
// Strings have no escapes (the SDK writes &quot; for a quote).
//
// Number lists become array properties, as binary files store them: a
// '*N { a: … }' array, and any value list of two or more numbers and
// nothing else, becomes one 'l' property when every number is an integer,
// else one 'd' property. Lone numbers are 'L' or 'D' scalars; strings and
// bare words (6.x writes Shading: T) are 'S'.

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

type asciiReader struct {
	data   []byte
	pos    int
	line   int64
	opts   Options
	nodes  int
	arrays int64
}

func (r *asciiReader) fail(kind error, format string, args ...any) error {
	return &FormatError{Line: r.line, Msg: fmt.Sprintf(format, args...), Kind: kind}
}

func parseASCII(data []byte, opts Options) (*Document, error) {
	r := &asciiReader{data: data, line: 1, opts: opts}
	root := &Node{}
	kids, err := r.nodeList(1, false)
	if err != nil {
		return nil, err
	}
	root.Children = kids
	if root.Child("FBXHeaderExtension") == nil && root.Child("Objects") == nil {
		return nil, &FormatError{Line: 1, Msg: "no FBXHeaderExtension or Objects node: not an FBX file", Kind: ErrFormat}
	}
	doc := &Document{Root: root}
	switch v := root.Child("FBXHeaderExtension").childInt("FBXVersion", 0); {
	case v != 0:
		if v < minVersion || v > maxVersion {
			return nil, &FormatError{Line: root.Child("FBXHeaderExtension").Child("FBXVersion").Pos,
				Msg: fmt.Sprintf("version %d outside %d–%d", v, minVersion, maxVersion), Kind: ErrUnsupported}
		}
		doc.Version = uint32(v)
	default:
		doc.Version = guessASCIIVersion(data, root)
	}
	return doc, nil
}

// guessASCIIVersion reads "; FBX 7.5.0 project file" from the first line,
// else tells 7.x from 6.x by Properties70 under Objects.
func guessASCIIVersion(data []byte, root *Node) uint32 {
	if rest, ok := bytes.CutPrefix(data, []byte("; FBX ")); ok && len(rest) >= 5 &&
		rest[1] == '.' && rest[3] == '.' && rest[0] >= '6' && rest[0] <= '7' &&
		rest[2] >= '0' && rest[2] <= '9' && rest[4] >= '0' && rest[4] <= '9' {
		return uint32(rest[0]-'0')*1000 + uint32(rest[2]-'0')*100 + uint32(rest[4]-'0')*10
	}
	for _, o := range root.Child("Objects").kids() {
		if o.Child("Properties70") != nil {
			return 7400
		}
	}
	return 6100
}

// skip passes blanks and comments; newlines too when nl is set.
func (r *asciiReader) skip(nl bool) {
	for r.pos < len(r.data) {
		switch c := r.data[r.pos]; c {
		case ' ', '\t', '\r', '\v', '\f':
			r.pos++
		case '\n':
			if !nl {
				return
			}
			r.line++
			r.pos++
		case ';':
			for r.pos < len(r.data) && r.data[r.pos] != '\n' {
				r.pos++
			}
		default:
			return
		}
	}
}

func (r *asciiReader) peek() byte {
	if r.pos < len(r.data) {
		return r.data[r.pos]
	}
	return 0
}

// nodeList reads nodes until EOF (top level) or the closing '}'.
func (r *asciiReader) nodeList(depth int, closing bool) ([]*Node, error) {
	var out []*Node
	for {
		r.skip(true)
		if r.pos >= len(r.data) {
			if closing {
				return nil, r.fail(ErrFormat, "missing '}' before end of file")
			}
			return out, nil
		}
		if r.peek() == '}' {
			if !closing {
				return nil, r.fail(ErrFormat, "unexpected '}'")
			}
			r.pos++
			return out, nil
		}
		n, err := r.node(depth)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
}

func isDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '\v', '\f', ':', ',', '{', '}', '"', ';':
		return true
	}
	return false
}

func (r *asciiReader) word() string {
	start := r.pos
	for r.pos < len(r.data) && !isDelim(r.data[r.pos]) {
		r.pos++
	}
	return string(r.data[start:r.pos])
}

func (r *asciiReader) node(depth int) (*Node, error) {
	if depth > r.opts.MaxDepth {
		return nil, r.fail(ErrLimit, "node nesting deeper than %d", r.opts.MaxDepth)
	}
	r.nodes++
	if r.nodes > r.opts.MaxNodes {
		return nil, r.fail(ErrLimit, "more than %d nodes", r.opts.MaxNodes)
	}
	n := &Node{Pos: r.line}
	n.Name = r.word()
	if n.Name == "" {
		return nil, r.fail(ErrFormat, "expected a node name, found %q", r.peek())
	}
	if r.peek() != ':' {
		return nil, r.fail(ErrFormat, "expected ':' after node name %q", clip(n.Name))
	}
	r.pos++
	r.skip(false)
	if r.peek() == '\n' {
		// 6.x may start a value list on the next line ("Key: \n 1,2,L");
		// a node name never starts like a value.
		save, saveLine := r.pos, r.line
		r.skip(true)
		if c := r.peek(); !startsValue(c) {
			r.pos, r.line = save, saveLine
		}
	}
	if c := r.peek(); c != '{' && c != '\n' && c != '}' && c != 0 {
		props, err := r.values(false)
		if err != nil {
			return nil, err
		}
		n.Props = props
		r.skip(false)
	}
	if r.peek() == '{' {
		r.pos++
		kids, err := r.nodeList(depth+1, true)
		if err != nil {
			return nil, err
		}
		n.Children = kids
	}
	return n, nil
}

func startsValue(c byte) bool {
	return c == '"' || c == ',' || c == '*' || c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// numList gathers numbers as integers until the first non-integer.
type numList struct {
	ints    []int64
	floats  []float64
	isFloat bool
}

func (l *numList) len() int {
	if l.isFloat {
		return len(l.floats)
	}
	return len(l.ints)
}

func (l *numList) add(p Property) {
	if p.Type == TypeFloat64 && !l.isFloat {
		l.isFloat = true
		l.floats = make([]float64, len(l.ints), max(cap(l.ints), 1))
		for i, v := range l.ints {
			l.floats[i] = float64(v)
		}
		l.ints = nil
	}
	switch {
	case l.isFloat:
		l.floats = append(l.floats, p.AsFloat())
	default:
		l.ints = append(l.ints, p.Int)
	}
}

func (l *numList) property() Property {
	if l.isFloat {
		return Property{Type: TypeFloat64Array, Float64s: l.floats}
	}
	return Property{Type: TypeInt64Array, Int64s: l.ints}
}

func (l *numList) scalars() []Property {
	out := make([]Property, 0, l.len())
	for i := 0; i < l.len(); i++ {
		if l.isFloat {
			out = append(out, Property{Type: TypeFloat64, Float: l.floats[i]})
		} else {
			out = append(out, Property{Type: TypeInt64, Int: l.ints[i]})
		}
	}
	return out
}

// values reads a comma-separated value list. inArray is set inside
// '*N { a: … }', where only numbers are allowed.
func (r *asciiReader) values(inArray bool) ([]Property, error) {
	var nums numList
	var props []Property
	mixed := false
	if r.peek() == ',' { // tolerated leading comma
		r.pos++
		r.skip(true)
	}
	for {
		var v Property
		switch c := r.peek(); {
		case c == '"':
			s, err := r.quoted()
			if err != nil {
				return nil, err
			}
			v = Property{Type: TypeString, Str: s}
		case c == '*' && !inArray:
			arr, err := r.array()
			if err != nil {
				return nil, err
			}
			v = arr
		case c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9'):
			w := r.word()
			p, ok := parseNumber(w)
			if !ok {
				return nil, r.fail(ErrFormat, "bad number %q", clip(w))
			}
			v = p
		case c == 0 || isDelim(c):
			return nil, r.fail(ErrFormat, "expected a value, found %q", c)
		default:
			v = Property{Type: TypeString, Str: r.word()}
		}
		if inArray && !v.IsNumber() {
			return nil, r.fail(ErrFormat, "non-numeric value in an array")
		}
		if v.IsNumber() && !mixed {
			if err := r.budget(1); err != nil {
				return nil, err
			}
			nums.add(v)
		} else {
			if err := r.budget(propertySize / 8); err != nil {
				return nil, err
			}
			if !mixed {
				mixed = true
				props = nums.scalars()
			}
			props = append(props, v)
		}
		// A list continues past line ends only through a comma.
		save, saveLine := r.pos, r.line
		r.skip(true)
		if r.peek() != ',' {
			r.pos, r.line = save, saveLine
			break
		}
		r.pos++
		r.skip(true)
		if c := r.peek(); c == '{' || c == '}' || c == 0 {
			break // trailing comma
		}
	}
	switch {
	case mixed:
		return props, nil
	case inArray || nums.len() >= 2:
		return []Property{nums.property()}, nil
	}
	return nums.scalars(), nil
}

// budget charges n numbers (8 bytes each) against the array limits.
func (r *asciiReader) budget(n int64) error {
	r.arrays += 8 * n
	if r.arrays > r.opts.MaxTotalArrayBytes {
		return r.fail(ErrLimit, "decoded data exceeds the total limit of %d bytes", r.opts.MaxTotalArrayBytes)
	}
	return nil
}

func (r *asciiReader) quoted() (string, error) {
	start := r.pos + 1
	end := bytes.IndexByte(r.data[start:], '"')
	if end < 0 {
		return "", r.fail(ErrFormat, "unterminated string")
	}
	s := r.data[start : start+end]
	r.line += int64(bytes.Count(s, []byte{'\n'}))
	r.pos = start + end + 1
	return string(s), nil
}

// array reads '*N { a: values }'.
func (r *asciiReader) array() (Property, error) {
	r.pos++ // '*'
	w := r.word()
	n, err := strconv.ParseInt(w, 10, 64)
	if err != nil || n < 0 {
		return Property{}, r.fail(ErrFormat, "bad array count %q", clip(w))
	}
	// Every value takes at least one byte, so a count beyond the bytes
	// left is a lie; check before anything is sized from it.
	if n > int64(len(r.data)-r.pos) {
		return Property{}, r.fail(ErrFormat, "array count %d exceeds the %d bytes left", n, len(r.data)-r.pos)
	}
	if 8*n > r.opts.MaxArrayBytes {
		return Property{}, r.fail(ErrLimit, "array of %d values exceeds the limit of %d bytes", n, r.opts.MaxArrayBytes)
	}
	r.skip(true)
	if r.peek() != '{' {
		return Property{}, r.fail(ErrFormat, "expected '{' after array count")
	}
	r.pos++
	r.skip(true)
	p := Property{Type: TypeInt64Array, Int64s: []int64{}}
	if r.peek() != '}' {
		if name := r.word(); name != "a" || r.peek() != ':' {
			return Property{}, r.fail(ErrFormat, "expected 'a:' in array, found %q", clip(name))
		}
		r.pos++
		r.skip(true)
		if r.peek() != '}' {
			props, err := r.values(true)
			if err != nil {
				return Property{}, err
			}
			p = props[0]
		}
		r.skip(true)
	}
	if r.peek() != '}' {
		return Property{}, r.fail(ErrFormat, "expected '}' closing the array")
	}
	r.pos++
	if got := p.Len(); int64(got) != n {
		return Property{}, r.fail(ErrFormat, "array declares %d values but holds %d", n, got)
	}
	return p, nil
}

// parseNumber reads an integer ('L') or a float ('D'). Out-of-range floats
// become ±Inf (the scene rejects non-finite vertex data later); MSVC's
// "1.#INF" and "-1.#IND" spellings are understood.
func parseNumber(w string) (Property, bool) {
	if i, err := strconv.ParseInt(w, 10, 64); err == nil {
		return Property{Type: TypeInt64, Int: i}, true
	}
	f, err := strconv.ParseFloat(w, 64)
	if err == nil || (err.(*strconv.NumError).Err == strconv.ErrRange) {
		return Property{Type: TypeFloat64, Float: f}, true
	}
	if i := bytes.IndexByte([]byte(w), '#'); i > 0 {
		neg := w[0] == '-'
		switch {
		case len(w) > i+3 && w[i+1:i+4] == "INF":
			if neg {
				return Property{Type: TypeFloat64, Float: math.Inf(-1)}, true
			}
			return Property{Type: TypeFloat64, Float: math.Inf(1)}, true
		case len(w) > i+3 && (w[i+1:i+4] == "IND" || w[i+1:i+4] == "NAN" || w[i+1:i+4] == "QNA"):
			return Property{Type: TypeFloat64, Float: math.NaN()}, true
		}
	}
	return Property{}, false
}
