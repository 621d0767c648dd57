package kinds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The list is fixed: every kind once, in the order detection tries them,
// each with what validate and inspect call.
func TestList(t *testing.T) {
	want := []string{"hmesh", "hmat", "msh7", "nwb", "hanim", "ktx2", "meshpack", "cnb", "cnb_cache", "skmv", "lock", "gltf", "fbx", "payload"}
	assert.Equal(t, want, Names())
	for _, k := range All(nil) {
		assert.NotNil(t, k.Decode, k.Name)
		assert.NotNil(t, k.Validate, k.Name)
		assert.NotNil(t, k.Summarize, k.Name)
		assert.NotNil(t, k.Dump, k.Name)
		assert.True(t, k.Magic != nil || k.Sniff != nil || len(k.Exts) > 0, "%s is recognised somehow", k.Name)
	}
	_, err := Lookup("obj")
	assert.ErrorContains(t, err, `kinds: no kind "obj"`)
	_, err = All(nil)[len(want)-3].Summarize("x.gltf", nil) // a source without an importer
	assert.ErrorIs(t, err, errNoImporter)
}

// Detection: magic first, then (for JSON) parsing, then extension; the
// lock file is recognised however it is laid out.
func TestDetect(t *testing.T) {
	all := All(nil)
	for _, tc := range []struct {
		path string
		b    string
		want string
	}{
		{"a.bin", "HMSH\x02\x00\x00\x00", "hmesh"},
		{"a.hmesh", "HMAT", "hmat"}, // magic wins over the extension
		{"world-lock.json", "{\n  \"format\": \"meshcook-world-lock\",\n  \"version\": 1\n}\n", "lock"},
		{"renamed.json", `{"version":1,"format":"meshcook-world-lock"}`, "lock"},
		{"a.glb", "glTF\x02\x00\x00\x00", "gltf"},
		{"a.gltf", `{"asset":{"version":"2.0"}}`, "gltf"},
		{"a.fbx", "; FBX 7.4.0 project file", "fbx"}, // ASCII FBX: by extension
		{"a.nwb", "mesh x {}", "nwb"},
		{"a.RMPK", "", "meshpack"},
		{"a.payload", "", "payload"},
	} {
		k, ok := Detect(all, tc.path, []byte(tc.b))
		require.True(t, ok, tc.path)
		assert.Equal(t, tc.want, k.Name, tc.path)
	}
	for _, tc := range []struct{ path, b string }{
		{"notes.txt", "hello"},
		{"other.json", `{"format":"something else"}`},
		{"broken.json", `{"format":"meshcook-world-lock"`},
	} {
		_, ok := Detect(all, tc.path, []byte(tc.b))
		assert.False(t, ok, tc.path)
	}
}
