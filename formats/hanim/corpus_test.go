package hanim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
)

// corpusDir is ../shared/corpus relative to the repository root.
const corpusDir = "../../../shared/corpus"

// The corpus's animated skins become clips that encode, decode back to the
// same clips, index existing joints and pass meshcheck.
func TestCorpusClips(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		testkit.Missing(t, "corpus not present at %s (%v); it is read in place, never copied", corpusDir, err)
	}
	files := map[string][]byte{}
	for _, file := range []string{"CesiumMan/glTF-Binary/CesiumMan.glb", "Fox/glTF-Binary/Fox.glb", "SimpleSkin/simple_skin.gltf", "AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"} {
		s, err := gltf.Load(filepath.Join(corpusDir, "gltf", file), gltf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		clips, warnings := FromScene(s.Animations, DefaultTolerance)
		if len(clips) != len(s.Animations) {
			t.Fatalf("%s: %d clips for %d animations", file, len(clips), len(s.Animations))
		}
		keys := 0
		for i, c := range clips {
			if len(c.Channels) != len(s.Animations[i].Channels) {
				t.Errorf("%s clip %d: %d channels, animation has %d", file, i, len(c.Channels), len(s.Animations[i].Channels))
			}
			for _, h := range c.Channels {
				keys += len(h.Times)
			}
		}
		joints := 0
		if s.Skeleton != nil {
			joints = len(s.Skeleton.Joints)
		}
		if err := CheckJoints(clips, joints); err != nil {
			t.Error(err)
		}
		targets := make([]int, len(s.Submeshes))
		for i := range s.Submeshes {
			targets[i] = len(s.Submeshes[i].Morphs)
		}
		if err := CheckTargets(clips, targets); err != nil {
			t.Error(err)
		}
		b, err := Encode(clips)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		back, err := Decode(b)
		if err != nil || len(back) != len(clips) {
			t.Fatalf("%s: decode: %v", file, err)
		}
		t.Logf("%s: %d clips, %d keys, %d bytes, warnings %q", file, len(clips), keys, len(b), warnings)
		if strings.Contains(file, "MorphCube") {
			// the weights channel is kept as path 3 of submesh 0, 2 targets
			if len(warnings) != 0 || len(clips[0].Channels) != 1 || clips[0].Channels[0].Path != mesh.PathWeights || clips[0].Channels[0].Targets != 2 {
				t.Errorf("%s: warnings %q, channels %+v", file, warnings, clips[0].Channels)
			}
		}
		files[strings.ReplaceAll(filepath.Base(file), ".", "_")+".hanim"] = b
	}
	meshcheck(t, files)
}
