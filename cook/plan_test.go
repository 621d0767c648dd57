package cook

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func touch(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Stable names come from the path under the input root: a leading assets/
// and the extension are dropped, case is kept for the file name and
// lowered for the material source ref; jobs are sorted by name.
func TestPlanStableNames(t *testing.T) {
	root := t.TempDir()
	touch(t, filepath.Join(root, "assets", "models", "Chair.glb"))
	touch(t, filepath.Join(root, "props", "crate.gltf"))
	touch(t, filepath.Join(root, "props", "crate.bin"))
	touch(t, filepath.Join(root, "readme.txt"))
	single := filepath.Join(t.TempDir(), "solo.GLB")
	touch(t, single)

	jobs, err := Plan([]string{root, single})
	if err != nil {
		t.Fatal(err)
	}
	var got [][3]string
	for _, j := range jobs {
		got = append(got, [3]string{j.Rel, j.Name, j.SourceRef})
	}
	want := [][3]string{
		{"assets/models/Chair.glb", "models/Chair", "models/chair"},
		{"props/crate.gltf", "props/crate", "props/crate"},
		{"solo.GLB", "solo", "solo"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("jobs %v\nwant %v", got, want)
	}
}

// Two sources that would write the same output are refused, naming both.
func TestPlanRefusesCollidingOutputs(t *testing.T) {
	root := t.TempDir()
	touch(t, filepath.Join(root, "box.gltf"))
	touch(t, filepath.Join(root, "box.glb"))
	_, err := Plan([]string{root})
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("want an InputError, got %v", err)
	}
}

// A missing input or an unsupported file kind is bad input naming the path.
func TestPlanBadInputs(t *testing.T) {
	dir := t.TempDir()
	txt := filepath.Join(dir, "notes.txt")
	touch(t, txt)
	for _, in := range []string{filepath.Join(dir, "missing.glb"), txt} {
		_, err := Plan([]string{in})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Path != in {
			t.Errorf("%s: want InputError naming it, got %v", in, err)
		}
	}
}
