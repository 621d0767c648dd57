// Package safename keeps names that come from sources (file stems, image
// and mesh names) from doing harm where they end up: output file names
// never climb out of the output folder or carry characters that hide what
// a name is, and log lines never split or reorder.
//
// "Unsafe" characters are C0 and C1 controls, DEL, the Unicode bidi
// controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) and bytes
// that are not UTF-8.
package safename

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxComponent is the longest output name element accepted, in bytes:
// file systems stop at 255, and the temp file beside an output
// (internal/atomicfile) adds up to 35.
const MaxComponent = 220

// ErrUnsafe is wrapped by Check's errors.
var ErrUnsafe = errors.New("safename: unsafe output name")

// unsafeRune reports whether r must not appear in a name as is.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return r == utf8.RuneError
}

// Escape percent-escapes (%XX per byte, uppercase hex) every unsafe
// character of s and every byte in also, and writes an element made only
// of dots ("." or "..") as %2E per dot, so the result is one safe name
// element. Nothing else changes.
func Escape(s, also string) string {
	if s != "" && strings.Trim(s, ".") == "" {
		return strings.Repeat("%2E", len(s))
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r) || (n == 1 && strings.IndexByte(also, s[i]) >= 0) {
			for k := i; k < i+n; k++ {
				fmt.Fprintf(&b, "%%%02X", s[k])
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// EscapePath applies Escape (nothing extra) to each '/'-separated
// element of p.
func EscapePath(p string) string {
	parts := strings.Split(p, "/")
	for i, e := range parts {
		parts[i] = Escape(e, "")
	}
	return strings.Join(parts, "/")
}

// Check accepts a '/'-separated output name relative to an output folder:
// elements neither empty, "." nor "..", at most MaxComponent bytes, no
// backslash, no unsafe character.
func Check(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty", ErrUnsafe)
	}
	for _, e := range strings.Split(name, "/") {
		switch {
		case e == "", e == ".", e == "..":
			return fmt.Errorf("%w: %s: element %s", ErrUnsafe, Text(name), strconv.Quote(e))
		case len(e) > MaxComponent:
			return fmt.Errorf("%w: %s: an element of %d bytes (at most %d)", ErrUnsafe, Text(name), len(e), MaxComponent)
		case strings.ContainsRune(e, '\\'):
			return fmt.Errorf("%w: %s: a backslash", ErrUnsafe, Text(name))
		}
		for _, r := range e {
			if unsafeRune(r) {
				return fmt.Errorf("%w: %s: control, bidi or non-UTF-8 character", ErrUnsafe, Text(name))
			}
		}
	}
	return nil
}

// Text makes s safe to print on one log line: unsafe characters are
// written as Go escapes (\n, \x1b, \u202e, \xff), everything else, and
// backslashes, as is.
func Text(s string) string {
	clean := true
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
