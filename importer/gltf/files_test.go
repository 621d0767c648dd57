package gltf

import (
	"reflect"
	"testing"
	"testing/fstest"
)

// Scene.Files lists every external file the importer read — buffers and
// images, relative to the source's folder, once each — and nothing that
// came from the source itself (data URIs, the GLB BIN chunk).
func TestSceneFilesListsExternalReads(t *testing.T) {
	b := newBuilder()
	b.node(obj{"mesh": b.mesh("Q", quad(b))})
	b.extra["images"] = []obj{{"uri": "tex/a%20b.png"}, {"uri": "tex/a%20b.png"}}
	b.extra["textures"] = []obj{{"source": 0}, {"source": 1}}
	b.extra["materials"] = []obj{{"pbrMetallicRoughness": obj{"baseColorTexture": obj{"index": 0}}, "emissiveTexture": obj{"index": 1}}}
	fsys := fstest.MapFS{
		"m/x.gltf":          {Data: b.json(t, "bin/my%20data.bin")},
		"m/bin/my data.bin": {Data: b.bin},
		"m/tex/a b.png":     {Data: []byte("png bytes")},
		"m/inline.gltf":     {Data: newBuilderWithQuad().dataURI(t)},
	}
	s, err := Decode(fsys, "m/x.gltf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"bin/my data.bin", "tex/a b.png"}; !reflect.DeepEqual(s.Files, want) {
		t.Errorf("Files = %q, want %q", s.Files, want)
	}
	s, err = Decode(fsys, "m/inline.gltf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Files) != 0 {
		t.Errorf("a source with only data URIs read %q", s.Files)
	}
}

func newBuilderWithQuad() *builder {
	b := newBuilder()
	b.node(obj{"mesh": b.mesh("Q", quad(b))})
	return b
}
