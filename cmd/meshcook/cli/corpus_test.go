package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/internal/testkit"
)

// gltfFiles lists every .gltf/.glb below dir, sorted.
func gltfFiles(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if ext := strings.ToLower(filepath.Ext(p)); ext == ".gltf" || ext == ".glb" {
				files = append(files, p)
			}
		}
		return nil
	})
	return files
}

// unsupportedReason is the documented reason a valid corpus file may be
// refused: compression extensions meshcook does not decode yet.
const unsupportedReason = "unsupported required extension"

// Every valid corpus glTF cooks (or is refused for a documented reason),
// and every output passes `meshcook validate` and the independent reader.
// Textures are cooked as RGBA8 here, the format meshcheck.py reads; the
// default Basis Universal textures of the same images are cross-checked by
// TestCookSkinsClipsTextures (ktx-parse) and formats/ktx2 (three's Basis
// transcoder), and encoding them for every corpus file again would
// dominate this test's time.
func TestCookCorpus(t *testing.T) {
	dir := testkit.Shared(t, "corpus/gltf")
	files := gltfFiles(t, dir)
	if len(files) == 0 {
		t.Fatalf("no glTF files under %s", dir)
	}
	out := t.TempDir()
	cooked := 0
	for _, f := range files {
		rel, _ := filepath.Rel(dir, f)
		o := filepath.Join(out, filepath.Dir(rel))
		code, _, stderr := run(t, "cook", f, "-o", o, "--textures", "rgba8")
		switch {
		case code == ExitOK:
			cooked++
		case code == ExitBadInput && strings.Contains(stderr, unsupportedReason):
			t.Logf("refused as documented: %s", strings.TrimSpace(stderr))
		default:
			t.Errorf("%s: exit %d: %s", rel, code, stderr)
		}
	}
	outputs := outputsUnder(t, out)
	code, stdout, _ := run(t, append([]string{"validate"}, outputs...)...)
	if code != ExitOK {
		t.Errorf("validate failed:\n%s", stdout)
	}
	meshcheck(t, outputs)
	t.Logf("cooked %d of %d corpus files into %d outputs", cooked, len(files), len(outputs))
	if cooked == 0 {
		t.Errorf("no corpus file cooked")
	}
}

// Every glTF under corpus/edge is cooked or rejected with exit 3 and one
// line naming the file; never a panic, never a partial output.
func TestCookEdgeCorpus(t *testing.T) {
	dir := testkit.Shared(t, "corpus/edge")
	files := gltfFiles(t, dir)
	if len(files) == 0 {
		t.Fatalf("no glTF files under %s", dir)
	}
	rejected := 0
	base := t.TempDir()
	var cooked []string
	for i, f := range files {
		rel, _ := filepath.Rel(dir, f)
		out := filepath.Join(base, fmt.Sprint(i))
		code, _, stderr := run(t, "cook", f, "-o", out)
		switch code {
		case ExitOK:
			cooked = append(cooked, outputsUnder(t, out)...)
		case ExitBadInput:
			rejected++
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			var errLines []string
			for _, l := range lines {
				if !strings.HasPrefix(l, "warning: ") {
					errLines = append(errLines, l)
				}
			}
			if len(errLines) != 1 || !strings.Contains(errLines[0], filepath.Base(f)) {
				t.Errorf("%s: want one error line naming the file, got %q", rel, errLines)
			}
			if strings.Contains(stderr, "internal error") {
				t.Errorf("%s: a panic was caught: %s", rel, stderr)
			}
			if n := len(outputsUnder(t, out)); n != 0 {
				t.Errorf("%s: rejected but left %d outputs", rel, n)
			}
		default:
			t.Errorf("%s: exit %d: %s", rel, code, stderr)
		}
	}
	meshcheck(t, cooked)
	t.Logf("%d edge files: %d rejected with exit 3, %d cooked", len(files), rejected, len(files)-rejected)
}
