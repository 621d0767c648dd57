// Package formaterr writes the message of the formats packages'
// FormatError types, so that every binary format reports a problem the same
// way: "<prefix>offset 0x1a0: <msg>: <cause>".
package formaterr

import "strconv"

// Message returns prefix, then "offset 0x…: " when offset is not negative
// (a negative offset means the problem has no position, as in Validate on
// an in-memory value), then msg, then ": " and the cause's message when
// cause is not nil. prefix names the format and ends with ": " (for
// example "hmat: " or "hmesh: chunk MLET: ").
func Message(prefix string, offset int64, msg string, cause error) string {
	s := prefix
	if offset >= 0 {
		s += "offset 0x" + strconv.FormatInt(offset, 16) + ": "
	}
	s += msg
	if cause != nil {
		s += ": " + cause.Error()
	}
	return s
}
