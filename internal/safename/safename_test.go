package safename

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"chair":           "chair",
		"..":              "%2E%2E",
		".":               "%2E",
		"...":             "%2E%2E%2E",
		"..a":             "..a",
		"a\u202eb":        "a%E2%80%AEb",
		"line\nbreak":     "line%0Abreak",
		"tab\tdel\x7f":    "tab%09del%7F",
		"c1\u0085":        "c1%C2%85",
		"bad\xffutf8":     "bad%FFutf8",
		"émoji 🪑":         "émoji 🪑",
		"\u2066iso\u2069": "%E2%81%A6iso%E2%81%A9",
		"lrm\u200e\u061c": "lrm%E2%80%8E%D8%9C",
	} {
		assert.Equal(t, want, Escape(in, ""), "%q", in)
		require.NoError(t, Check(Escape(in, "")), "%q", in)
	}
	assert.Equal(t, "a%2Fb%25", Escape("a/b%", "/%"))
	assert.Equal(t, "%2E%2E/x/a%0A", EscapePath("../x/a\n"))
}

func TestCheck(t *testing.T) {
	require.NoError(t, Check("models/chair.hmesh"))
	require.NoError(t, Check("box/"+strings.Repeat("a", MaxComponent)))
	for _, bad := range []string{
		"", "/abs", "a//b", "a/./b", "../x", "x/..", "a\\b", "a\nb", "a\u202eb.hmesh", "bad\xff",
		"box/" + strings.Repeat("a", MaxComponent+1),
	} {
		assert.ErrorIs(t, Check(bad), ErrUnsafe, "%q", bad)
	}
}

func TestText(t *testing.T) {
	assert.Equal(t, "plain ✓ \\ text", Text("plain ✓ \\ text"))
	assert.Equal(t, `a\nb\u202ec\x1b\xff`, Text("a\nb\u202ec\x1b\xff"))
	assert.NotContains(t, Text("x\r\ny"), "\n")
}
