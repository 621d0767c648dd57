package gltf

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/fstest"
)

// fuzzMaxInput caps fuzz inputs; larger ones say nothing new.
const fuzzMaxInput = 1 << 16

// FuzzDecode feeds arbitrary bytes to Decode as a .glb and as a .gltf: it
// must never panic, and whatever it accepts must satisfy mesh's contracts
// and decode the same way twice.
func FuzzDecode(f *testing.F) {
	for _, b := range fuzzSeeds(f) {
		f.Add(b.glb(f))
		f.Add(b.dataURI(f))
	}
	f.Add([]byte(`{"asset":{"version":"2.0"},"nodes":[{"children":[0]}],"scenes":[{"nodes":[0]}]}`))
	// a meshopt-compressed file (gltfpack's output in the corpus), and
	// the node-animated scene (rigid skin)
	if b, err := os.ReadFile(filepath.Join(corpusDir, "gltf", "quantization_misc", "BoxMeshopt.glb")); err == nil {
		f.Add(b)
	}
	na := newBuilder()
	nodeAnimScene(na)
	f.Add(na.glb(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		// small limits keep view-less accessors from allocating much
		opts := Options{MaxVertices: 1 << 14, MaxIndices: 1 << 16, MaxSubmeshes: 1 << 10, MaxAnimationKeys: 1 << 14}
		for _, name := range []string{"x.glb", "x.gltf"} {
			fsys := fstest.MapFS{name: {Data: data}}
			s, err := Decode(fsys, name, opts)
			if err != nil {
				continue
			}
			checkScene(t, name, s)
			checkDeform(t, s)
			if again, _ := Decode(fsys, name, opts); !reflect.DeepEqual(s, again) {
				t.Errorf("%s: two decodes differ", name)
			}
		}
	})
}

// fuzzSeeds are small documents touching each feature.
func fuzzSeeds(tb testing.TB) []*builder {
	var out []*builder
	b := newBuilder()
	p := quad(b)
	p["material"] = 0
	b.extra["materials"] = []obj{{"pbrMetallicRoughness": obj{"baseColorTexture": obj{"index": 0}}}}
	b.extra["textures"] = []obj{{"source": 0}}
	b.extra["images"] = []obj{{"uri": "data:image/png;base64,AAEC"}}
	c := b.node(obj{"mesh": b.mesh("Q", p), "scale": []float64{-1, 1, 1}})
	b.node(obj{"children": []int{c}, "translation": []float64{1, 2, 3}})
	out = append(out, b)

	b = newBuilder()
	pos := b.floats("VEC3", 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0)
	idx := b.acc(b.view([]byte{0, 1, 2, 3}, 0), 0, cUbyte, "SCALAR", 4, false)
	sp := b.acc(-1, 0, cFloat, "VEC2", 4, false)
	b.accs[sp]["sparse"] = obj{"count": 1,
		"indices": obj{"bufferView": b.view([]byte{2}, 0), "componentType": cUbyte},
		"values":  obj{"bufferView": b.view(f32bytes(1, 1), 0)}}
	b.node(obj{"mesh": b.mesh("", obj{"attributes": obj{"POSITION": pos, "TEXCOORD_0": sp}, "indices": idx, "mode": 5},
		obj{"attributes": obj{"POSITION": pos}, "mode": 6}, obj{"attributes": obj{"POSITION": pos}, "mode": 0})})
	out = append(out, b)

	b = newBuilder()
	v := b.view([]byte{0, 0, 0, 0, 127, 0, 0, 0, 0, 127, 0, 0}, 4)
	q := b.acc(v, 0, cByte, "VEC3", 3, true)
	b.node(obj{"mesh": b.mesh("", obj{"attributes": obj{"POSITION": q, "NORMAL": q, "COLOR_0": b.acc(v, 0, cUbyte, "VEC4", 3, true)}})})
	out = append(out, b)

	// skin listed children first, two influence sets, cubic and step clips
	b = newBuilder()
	p = skinnedScene(b)
	p["targets"] = []obj{{"POSITION": b.floats("VEC3", make([]float32, 12)...)}}
	times := b.floats("SCALAR", 0, 1)
	b.extra["animations"] = []obj{{"samplers": []obj{
		{"input": times, "output": b.floats("VEC4", make([]float32, 24)...), "interpolation": "CUBICSPLINE"},
		{"input": times, "output": b.floats("VEC3", 1, 1, 1, 2, 2, 2), "interpolation": "STEP"},
	}, "channels": []obj{
		{"sampler": 0, "target": obj{"node": 2, "path": "rotation"}},
		{"sampler": 1, "target": obj{"node": 3, "path": "scale"}},
	}}}
	out = append(out, b)
	return out
}
