package cli

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/msh7"
	"github.com/meshcook/meshcook/internal/testkit"
)

// Every corpus mesh (glTF and FBX) that cooks to .hmesh also cooks to one
// .msh7 per submesh with triangles, and every .msh7 passes validate and the
// independent reader.
func TestCookCorpusMSH7(t *testing.T) {
	var files []string
	for _, sub := range []string{"corpus/gltf", "corpus/fbx"} {
		dir := testkit.Shared(t, sub)
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				switch strings.ToLower(filepath.Ext(p)) {
				case ".gltf", ".glb", ".fbx":
					files = append(files, p)
				}
			}
			return nil
		})
	}
	base := t.TempDir()
	var outputs []string
	meshlets, payloads := 0, 0
	for i, f := range files {
		out := filepath.Join(base, strconv.Itoa(i))
		code, _, stderr := run(t, "cook", f, "-o", out, "--target", "hmesh,msh7", "--lods", "")
		if code != ExitOK {
			if !strings.Contains(stderr, unsupportedReason) {
				t.Errorf("%s: exit %d: %s", f, code, stderr)
			}
			continue
		}
		stem := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		b, err := os.ReadFile(filepath.Join(out, stem+".hmesh"))
		if errors.Is(err, fs.ErrNotExist) && strings.Contains(stderr, cook.EmptyDrop) {
			continue // no triangles: no mesh outputs, the drop says so
		}
		if err != nil {
			t.Fatal(err)
		}
		hm, err := hmesh.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		for s, sm := range hm.Submeshes {
			p := filepath.Join(out, stem+"."+strconv.Itoa(s)+".msh7")
			_, statErr := os.Stat(p)
			if sm.IndexCount > 0 && statErr != nil {
				t.Errorf("%s: submesh %d has triangles but no %s", f, s, filepath.Base(p))
				continue
			}
			if statErr == nil {
				outputs = append(outputs, p)
				mb, _ := os.ReadFile(p)
				m, err := msh7.Decode(mb)
				if err != nil {
					t.Errorf("%s: %v", p, err)
					continue
				}
				if got := len(m.Primitives) / 3; got != int(sm.IndexCount/3) {
					t.Errorf("%s: %d triangles, submesh has %d", p, got, sm.IndexCount/3)
				}
				meshlets += len(m.Meshlets)
				payloads++
			}
		}
	}
	if payloads == 0 {
		t.Fatal("no .msh7 written")
	}
	code, stdout, _ := run(t, append([]string{"validate"}, outputs...)...)
	if code != ExitOK {
		t.Errorf("validate:\n%s", stdout)
	}
	meshcheck(t, outputs)
	t.Logf("%d .msh7 payloads, %d meshlets at 96/126", payloads, meshlets)
}
