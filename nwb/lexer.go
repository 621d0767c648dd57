package nwb

import (
	"fmt"
	"strconv"
)

// tokKind classifies a token.
type tokKind uint8

const (
	tokEOF tokKind = iota
	tokIdent
	tokInt
	tokFloat
	tokString
	tokPunct
)

// token is one lexeme with its byte range in the source.
type token struct {
	kind  tokKind
	text  string // identifier, punctuation, or string content (raw, without quotes)
	raw   []byte // a number's text (a slice of the source, not copied)
	num   float64
	start int // byte offset of the first byte
	end   int // byte offset after the last byte
}

// describe names a token the way error messages quote it.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokIdent:
		return fmt.Sprintf("identifier '%s'", t.text)
	case tokInt, tokFloat:
		return fmt.Sprintf("number '%s'", t.raw)
	case tokString:
		return fmt.Sprintf("string \"%s\"", t.text)
	}
	return fmt.Sprintf("'%s'", t.text)
}

// lexer splits .nwb source into tokens (nwb.md §1 "Lexical").
type lexer struct {
	src  []byte
	pos  int
	name string
}

// Error builds a positioned error at byte offset off.
func (lx *lexer) errorAt(off int, format string, args ...any) error {
	line, col := lineCol(lx.src, off)
	return &SyntaxError{File: lx.name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// lineCol converts a byte offset into a 1-based line and byte column.
func lineCol(src []byte, off int) (line, col int) {
	line, lineStart := 1, 0
	for i := 0; i < off && i < len(src); i++ {
		if src[i] == '\n' {
			line++
			lineStart = i + 1
		}
	}
	return line, off - lineStart + 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

// next returns the next token, skipping whitespace and comments.
func (lx *lexer) next() (token, error) {
	if err := lx.skipSpace(); err != nil {
		return token{}, err
	}
	src, start := lx.src, lx.pos
	if start >= len(src) {
		return token{kind: tokEOF, start: start, end: start}, nil
	}
	c := src[start]
	switch {
	case isIdentStart(c):
		i := start + 1
		for i < len(src) && isIdentPart(src[i]) {
			i++
		}
		lx.pos = i
		return token{kind: tokIdent, text: string(src[start:i]), start: start, end: i}, nil
	case isDigit(c):
		return lx.number()
	case c == '"':
		i := start + 1
		for {
			if i >= len(src) || src[i] == '\n' || src[i] == '\r' {
				return token{}, lx.errorAt(start, "unterminated string")
			}
			if src[i] == '"' {
				break
			}
			if src[i] == '\\' {
				// A backslash skips the next character; the escape stays raw.
				i++
				if i >= len(src) || src[i] == '\n' || src[i] == '\r' {
					return token{}, lx.errorAt(start, "unterminated string")
				}
			}
			i++
		}
		lx.pos = i + 1
		return token{kind: tokString, text: string(src[start+1 : i]), start: start, end: i + 1}, nil
	}
	// Punctuation: two-byte compound assignments first.
	if start+1 < len(src) && src[start+1] == '=' && (c == '+' || c == '-' || c == '*' || c == '/') {
		lx.pos = start + 2
		return token{kind: tokPunct, text: string(src[start : start+2]), start: start, end: start + 2}, nil
	}
	switch c {
	case '=', '+', '-', '*', '/', ';', '.', ',', ':', '[', ']', '{', '}', '(', ')':
		lx.pos = start + 1
		return token{kind: tokPunct, text: string(src[start : start+1]), start: start, end: start + 1}, nil
	}
	if c >= 0x20 && c < 0x7f {
		return token{}, lx.errorAt(start, "unexpected character '%c'", c)
	}
	return token{}, lx.errorAt(start, "unexpected byte 0x%02x", c)
}

// skipSpace skips whitespace and comments; an unterminated block comment is
// an error at its opening.
func (lx *lexer) skipSpace() error {
	src := lx.src
	for lx.pos < len(src) {
		switch c := src[lx.pos]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			lx.pos++
		case c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '/':
			for lx.pos < len(src) && src[lx.pos] != '\n' {
				lx.pos++
			}
		case c == '/' && lx.pos+1 < len(src) && src[lx.pos+1] == '*':
			open := lx.pos
			lx.pos += 2
			for {
				if lx.pos+1 >= len(src) {
					lx.pos = len(src)
					return lx.errorAt(open, "unterminated block comment")
				}
				if src[lx.pos] == '*' && src[lx.pos+1] == '/' {
					lx.pos += 2
					break
				}
				lx.pos++
			}
		default:
			return nil
		}
	}
	return nil
}

// number scans digits, an optional fraction and an optional exponent. A
// fraction or exponent makes it a float.
func (lx *lexer) number() (token, error) {
	src, start := lx.src, lx.pos
	i := start
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	kind := tokInt
	if i+1 < len(src) && src[i] == '.' && isDigit(src[i+1]) {
		kind = tokFloat
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		j := i + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j >= len(src) || !isDigit(src[j]) {
			return token{}, lx.errorAt(start, "malformed number '%s': exponent needs digits", src[start:j])
		}
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		kind, i = tokFloat, j
	}
	lx.pos = i
	return token{kind: kind, raw: src[start:i], num: parseNumber(src[start:i]), start: start, end: i}, nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseNumber converts well-formed number text (as the lexer scans it) to
// the nearest float64; values past float64 become ±Inf and are rejected
// where finiteness matters. Short numbers take the exact fast path (a
// mantissa below 2^53 scaled by an exactly representable power of ten is
// correctly rounded by one multiplication or division); the rest go
// through strconv.
func parseNumber(b []byte) float64 {
	var mant uint64
	digits, exp, i := 0, 0, 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		if mant == 0 && b[i] == '0' {
			continue // leading zeros do not count as digits
		}
		mant = mant*10 + uint64(b[i]-'0')
		digits++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && isDigit(b[i]); i++ {
			if mant == 0 && b[i] == '0' {
				exp--
				continue
			}
			mant = mant*10 + uint64(b[i]-'0')
			digits++
			exp--
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		neg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			neg = b[i] == '-'
			i++
		}
		e := 0
		for ; i < len(b) && isDigit(b[i]); i++ {
			if e < 10000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if neg {
			e = -e
		}
		exp += e
	}
	if digits <= 15 && mant < 1<<53 {
		switch {
		case mant == 0:
			return 0
		case exp >= 0 && exp < len(pow10):
			return float64(mant) * pow10[exp]
		case exp < 0 && -exp < len(pow10):
			return float64(mant) / pow10[-exp]
		}
	}
	v, _ := strconv.ParseFloat(string(b), 64)
	return v
}
