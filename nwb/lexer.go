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
	text  string // identifier, number text, punctuation, or string content (raw, without quotes)
	start int    // byte offset of the first byte
	end   int    // byte offset after the last byte
}

// describe names a token the way error messages quote it.
func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokIdent:
		return fmt.Sprintf("identifier '%s'", t.text)
	case tokInt, tokFloat:
		return fmt.Sprintf("number '%s'", t.text)
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
		return token{kind: tokPunct, text: string(c), start: start, end: start + 1}, nil
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
	return token{kind: kind, text: string(src[start:i]), start: start, end: i}, nil
}

// parseNumber converts a number token's text to float64. The lexer only
// produces well-formed decimal text, so only range errors remain (values
// past float64 become ±Inf and are rejected where finiteness matters).
func parseNumber(text string) float64 {
	v, _ := strconv.ParseFloat(text, 64)
	return v
}
