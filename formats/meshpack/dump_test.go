package meshpack

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The text dump of a static and of a rigged pack, pinned line by line: it is
// what `meshcook inspect --dump` prints for a pack, and diffs of baked packs
// read it.
func TestDumpText(t *testing.T) {
	for _, tc := range []struct {
		p    *Pack
		want string
	}{
		{&Pack{Family: Static, Entries: []Entry{tri("a/b")}}, `meshpack v1 static entries 1
entry 0 "a/b" vertices 3 indices 3 ranges 1
  bounds center [1 2 -1] radius 2.5
  v 0 pos [0 0 -0] normal [0 0 1] uv [0 1] color [0.25 0.5 0.75 1] material [3 1 1 0]
  v 1 pos [1 2 -1] normal [0 0 1] uv [0.25 0.75] color [0.25 0.5 0.75 1] material [3 1 1 0]
  v 2 pos [2 4 -2] normal [0 0 1] uv [0.5 0.5] color [0.25 0.5 0.75 1] material [3 1 1 0]
  t 0 [0 1 2]
  range 0 first 0 count 3
`},
		{&Pack{Family: Rigged, Entries: []Entry{rigTri("h/0/3/x")}}, ""},
	} {
		raw, err := Encode(tc.p)
		require.NoError(t, err)
		d := Format()
		var b bytes.Buffer
		require.NoError(t, d.Dump(&b, "x.smpk", raw))
		if tc.want != "" {
			assert.Equal(t, tc.want, b.String())
			continue
		}
		// Rigged: every vertex's bones, weights and role are printed.
		assert.Contains(t, b.String(), "meshpack v1 rigged entries 1\n")
		assert.Contains(t, b.String(), "  v 1 pos [1 0 0] normal [0 1 0] uv [1 1] bones [1 7 0 0] weights [0.75 0.25 0 0] role ")
		assert.Contains(t, b.String(), "  t 0 [0 1 2]\n")
	}
	var b bytes.Buffer
	require.Error(t, Format().Dump(&b, "x.smpk", []byte("not a pack")))
}
