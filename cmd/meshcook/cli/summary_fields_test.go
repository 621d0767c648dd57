package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/kinds"
	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
)

// camelCase is every JSON field name inspect prints.
var camelCase = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

// TestInspectSummaryFields is the one table over every kind formats/kinds
// lists: `inspect --json` of a file of that kind prints an object whose
// top-level fields are exactly these ("file" and "kind" among them, kind
// naming the kind), and every field name at every depth is camelCase.
func TestInspectSummaryFields(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "cook", samplesDir(t), "-o", out, "--textures", "rgba8", "--no-cache"); code != ExitOK {
		t.Fatalf("cook exit %d: %s", code, stderr)
	}
	msh7Out := filepath.Join(dir, "msh7")
	if code, _, stderr := run(t, "cook", filepath.Join(samplesDir(t), "box.gltf"), "-o", msh7Out, "--target", "msh7", "--no-cache"); code != ExitOK {
		t.Fatalf("cook msh7 exit %d: %s", code, stderr)
	}
	pack := filepath.Join(dir, "buildings.smpk")
	if code, _, stderr := run(t, "bake", filepath.Join(testkit.RepoRoot(t), "testdata", "catalog", "buildings.json"), "-o", pack); code != ExitOK {
		t.Fatalf("bake exit %d: %s", code, stderr)
	}
	world := cookWorld(t)

	write := func(name string) func([]byte, error) string {
		return func(b []byte, err error) string {
			require.NoError(t, err)
			p := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(p, b, 0o644))
			return p
		}
	}
	clip := write("nod.hanim")(hanim.Encode([]hanim.Clip{{Name: "nod", Duration: 1, Channels: []hanim.Channel{
		{Joint: 0, Path: mesh.PathRotation, Interp: hanim.InterpLinear, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 0, 0.5, 0, 0.8660254}},
	}}}))
	seg := write("segment.cnc")(cnb.EncodeCache(&cnb.CacheMeta{Toolchain: "test", Entries: []cnb.CacheEntry{{Kind: cnb.CachePayload, Key: "k", Offset: 0, Len: 3}}}, []byte("abc")))
	tri := []payload.Vertex{{Normal: [3]float32{0, 0, 1}, Tangent: [3]float32{1, 0, 0}}, {Position: [3]float32{1, 0, 0}, Normal: [3]float32{0, 0, 1}, Tangent: [3]float32{1, 0, 0}}, {Position: [3]float32{0, 1, 0}, Normal: [3]float32{0, 0, 1}, Tangent: [3]float32{1, 0, 0}}}
	static := write("tri.payload")(payload.Encode(&payload.Static{Vertices: tri, Indices: []uint16{0, 1, 2}}))
	skinned := write("rig.skmv")(payload.EncodeSkinned(&payload.Skinned{
		Vertices: []payload.SkinnedVertex{{Weights: [4]float32{1}}, {Weights: [4]float32{1}}, {Weights: [4]float32{1}}},
		Indices:  []uint16{0, 1, 2},
		Joints:   []payload.Joint{{Name: "root", Parent: -1, Scale: [3]float32{1, 1, 1}}},
	}))
	repo := testkit.RepoRoot(t)

	for _, tc := range []struct {
		kind, file string
		fields     []string
	}{
		{"hmesh", filepath.Join(out, "box.hmesh"), []string{"activeCones", "avgMeshletTris", "avgMeshletVerts", "bounds", "file", "hasTangents", "indexWidth", "joints", "kind", "lods", "materials", "meshletLimits", "meshlets", "morphEntries", "morphTargets", "roots", "skinned", "submeshes", "triangles", "vertices"}},
		{"hmat", filepath.Join(out, "box.hmat"), []string{"file", "kind", "materials"}},
		{"msh7", filepath.Join(msh7Out, "box.0.msh7"), []string{"cones", "file", "kind", "localVertices", "meshlets", "positions", "refBytes", "skinned", "triangles"}},
		{"nwb", filepath.Join(repo, "nwb", "testdata", "refresh", "skinned_dups.nwb"), []string{"assets", "bunch", "file", "kind"}},
		{"hanim", clip, []string{"clips", "file", "kind"}},
		{"ktx2", filepath.Join(out, "box", "checker.ktx2"), []string{"colorSpace", "file", "format", "fullChain", "height", "kind", "levels", "orientation", "pixelBytes", "vkFormat", "width", "writer"}},
		{"meshpack", pack, []string{"entries", "family", "file", "kind"}},
		{"cnb", filepath.Join(world, "data", "0"), []string{"file", "kind", "kinds", "maxBlobIndex", "payloadBytes", "physicsBudget", "resources", "sceneGroups"}},
		{"cnb_cache", seg, []string{"entries", "file", "kind", "payloadBytes", "toolchain"}},
		{"skmv", skinned, []string{"file", "joints", "kind", "lods", "morphTargets", "triangles", "vertices"}},
		{"lock", filepath.Join(world, "world-lock.json"), []string{"blobs", "file", "kind", "resources"}},
		{"gltf", filepath.Join(samplesDir(t), "box.gltf"), []string{"channels", "clips", "draws", "drawsBefore", "dropped", "emptyClips", "file", "images", "joints", "kind", "materials", "morphTargets", "skinned", "triangles", "vertices", "warnings"}},
		{"fbx", filepath.Join(repo, "importer", "fbx", "testdata", "skin_child_first.fbx"), []string{"channels", "clips", "draws", "drawsBefore", "dropped", "emptyClips", "file", "images", "joints", "kind", "materials", "morphTargets", "skinned", "triangles", "vertices", "warnings"}},
		{"payload", static, []string{"file", "kind", "lods", "triangles", "vertices"}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			code, stdout, stderr := run(t, "inspect", "--json", tc.file)
			require.Equal(t, ExitOK, code, stderr)
			var top map[string]any
			require.NoError(t, json.Unmarshal([]byte(stdout), &top), stdout)
			assert.Equal(t, tc.kind, top["kind"])
			assert.Equal(t, tc.file, top["file"])
			keys := make([]string, 0, len(top))
			for k := range top {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			assert.Equal(t, tc.fields, keys)
			// A world's "kinds" is a map by resource kind name (data,
			// not field names: "Mesh", "Texture").
			delete(top, "kinds")
			walkKeys(top, func(k string) { assert.Regexp(t, camelCase, k, "field of %s", tc.kind) })
		})
	}

	// The table names every kind the list has, once.
	var named []string
	for _, k := range kinds.All(nil) {
		named = append(named, k.Name)
	}
	assert.Len(t, named, 14)
	assert.False(t, slices.Contains(named, ""))
}

// walkKeys calls f with every object key in v, at every depth.
func walkKeys(v any, f func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			f(k)
			walkKeys(e, f)
		}
	case []any:
		for _, e := range x {
			walkKeys(e, f)
		}
	}
}
