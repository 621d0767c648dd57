package formaterr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestMessage(t *testing.T) {
	cause := errors.New("unexpected EOF")
	for _, c := range []struct {
		prefix string
		offset int64
		msg    string
		cause  error
		want   string
	}{
		{"hmat: ", 0x1a0, "row 3: bad flags", nil, "hmat: offset 0x1a0: row 3: bad flags"},
		{"ktx2: ", 0, "short header", cause, "ktx2: offset 0x0: short header: unexpected EOF"},
		{"msh7: ", -1, "no meshlets", nil, "msh7: no meshlets"},
		{"hmesh: chunk MLET: ", 64, "count", cause, "hmesh: chunk MLET: offset 0x40: count: unexpected EOF"},
	} {
		if got := Message(c.prefix, c.offset, c.msg, c.cause); got != c.want {
			t.Errorf("Message(%q, %d, %q, %v) = %q, want %q", c.prefix, c.offset, c.msg, c.cause, got, c.want)
		}
		// The offset reads as fmt's %#x did in each package before.
		if c.offset >= 0 {
			if want := fmt.Sprintf("offset %#x: ", c.offset); !strings.Contains(Message("", c.offset, "", nil), want) {
				t.Errorf("offset %d: %q lacks %q", c.offset, Message("", c.offset, "", nil), want)
			}
		}
	}
}
