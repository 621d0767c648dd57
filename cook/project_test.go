package cook

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		glob, name string
		want       bool
	}{
		{"*.glb", "a.glb", true},
		{"*.glb", "x/a.glb", false},
		{"**/*.glb", "a.glb", true},
		{"**/*.glb", "x/y/a.glb", true},
		{"assets/**", "assets/a/b.gltf", true},
		{"assets/**", "assets", true},
		{"assets/**", "other/a.glb", false},
		{"a/**/b/*.gltf", "a/b/c.gltf", true},
		{"a/**/b/*.gltf", "a/x/y/b/c.gltf", true},
		{"a/**/b/*.gltf", "a/x/y/c.gltf", false},
		{"terrain/?.heightfield.json", "terrain/a.heightfield.json", true},
		{"Models/*.glb", "models/a.glb", false},
		{"[ab].glb", "b.glb", true},
	}
	for _, c := range cases {
		if got := matchGlob(c.glob, c.name); got != c.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", c.glob, c.name, got, c.want)
		}
	}
}

// Bad project files are refused with what is wrong; LoadProject names the
// file (an InputError, exit 3 in the CLI).
func TestParseProjectErrors(t *testing.T) {
	cases := []struct{ json, want string }{
		{`{"sources": ["*.glb"`, "unexpected EOF"},
		{`{"sources": ["*.glb"],}`, "byte 23"},
		{`{"sources": ["*.glb"], "target": ["cnb"]}`, `unknown field "target"`},
		{`{"sources": ["*.glb"], "options": {"lodRatio": [0.5]}}`, `unknown field "lodRatio"`},
		{`{"sources": []}`, "sources: name at least one glob"},
		{`{"sources": ["[a.glb"]}`, "syntax error in pattern"},
		{`{"sources": ["../other/*.glb"]}`, `".."`},
		{`{"sources": ["/abs/*.glb"]}`, "relative to the project folder"},
		{`{"sources": ["*.glb"], "targets": ["obj"]}`, `unknown target "obj"`},
		{`{"sources": ["*.glb"], "options": {"meshletMaxVertices": 1}}`, "MaxVertices 1"},
		{`{"sources": ["*.glb"], "options": {"lodRatios": [0.5], "lodDistances": [1, 2]}}`, "lod distances"},
		{`{"sources": ["*.glb"], "scenes": [{"name": "a", "sources": ["x/*"]}, {"name": "a", "sources": ["y/*"]}]}`, "declared twice"},
		{`{"sources": ["*.glb"], "scenes": [{"name": "a", "sources": ["x/[*"]}]}`, "syntax error in pattern"},
		{`{"sources": ["*.glb"]} {}`, "data after"},
	}
	for _, c := range cases {
		_, err := ParseProject([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.json, err, c.want)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, ProjectFileName)
	writeFile(t, p, []byte(`{"sources": [`))
	_, err := LoadProject(p)
	var ie *InputError
	if !errors.As(err, &ie) || ie.Path != p {
		t.Errorf("LoadProject: %v, want an InputError naming %s", err, p)
	}
}

// testdata/world plans to its four sources with names relative to the
// project folder, and its options and scenes reach Options.
func TestProjectPlanWorld(t *testing.T) {
	pr, err := LoadProject(filepath.Join("..", "testdata", "world", ProjectFileName))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := pr.Plan()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, j := range jobs {
		names = append(names, j.Name)
	}
	want := []string{"levels/one/chair", "props/box", "terrain/hills.heightfield", "terrain/pad.heightfield"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("jobs %v, want %v", names, want)
	}
	opts := DefaultOptions()
	if err := pr.Apply(&opts); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(opts.Targets, []string{TargetCNB}) || len(opts.Scenes) != 2 || opts.Scenes[1].Name != "pad" || opts.BlobCeiling != 1<<30 {
		t.Errorf("options %+v", opts)
	}
}

// A source glob that matches nothing, or a scene glob that matches none of
// the planned sources, is an error naming the project file.
func TestProjectPlanUnmatchedGlobs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.glb"), []byte("{}"))
	for _, c := range []struct{ json, want string }{
		{`{"sources": ["*.glb", "models/*.gltf"]}`, `sources[1] "models/*.gltf" matches no source`},
		{`{"sources": ["*.glb"], "scenes": [{"name": "s", "sources": ["b.glb"]}]}`, `scenes[0] (s): "b.glb" matches none`},
	} {
		p := filepath.Join(dir, ProjectFileName)
		writeFile(t, p, []byte(c.json))
		pr, err := LoadProject(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = pr.Plan()
		var ie *InputError
		if !errors.As(err, &ie) || ie.Path != p || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an InputError naming %s with %q", c.json, err, p, c.want)
		}
	}
}

// Folders whose name starts with a dot are not searched.
func TestProjectPlanSkipsDotFolders(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.glb"), []byte("{}"))
	writeFile(t, filepath.Join(dir, ".cache", "b.glb"), []byte("{}"))
	p := filepath.Join(dir, ProjectFileName)
	writeFile(t, p, []byte(`{"sources": ["**/*.glb"]}`))
	pr, err := LoadProject(p)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := pr.Plan()
	if err != nil || len(jobs) != 1 || jobs[0].Name != "a" {
		t.Errorf("jobs %+v, err %v; want only a", jobs, err)
	}
}
