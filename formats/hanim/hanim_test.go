package hanim

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/internal/testkit"
	"github.com/meshcook/meshcook/mesh"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// sample is two clips covering every path and both interpolations, an empty
// clip name and a channel without keys.
func sample() []Clip {
	return []Clip{
		{Name: "walk", Duration: 1, Channels: []Channel{
			{Joint: 0, Path: mesh.PathTranslation, Interp: InterpLinear,
				Times: []float32{0, 1}, Values: []float32{0, 0, 0, 1, 2, 3}},
			{Joint: 2, Path: mesh.PathRotation, Interp: InterpStep,
				Times: []float32{0.5}, Values: []float32{0, 0, 0.70710677, 0.70710677}},
			{Joint: 1, Path: mesh.PathScale, Interp: InterpLinear},
		}},
		{Name: "", Duration: 0.25, Channels: []Channel{
			{Joint: 7, Path: mesh.PathScale, Interp: InterpStep,
				Times: []float32{0, 0.25}, Values: []float32{1, 1, 1, 2, 2, 2}},
		}},
	}
}

// Why: the writer's bytes are the format; a layout change must be deliberate.
func TestFixtureBytes(t *testing.T) {
	b, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	var lines strings.Builder
	for i := 0; i < len(b); i += 16 {
		lines.WriteString(hex.EncodeToString(b[i:min(i+16, len(b))]) + "\n")
	}
	golden(t, "sample.hanim.hex", []byte(lines.String()))

	// offsets checked by hand against formats.md
	le := binary.LittleEndian
	f := func(at int) float32 { return math.Float32frombits(le.Uint32(b[at:])) }
	if string(b[:4]) != "HANM" || le.Uint32(b[4:]) != 1 || le.Uint32(b[8:]) != 2 || le.Uint32(b[12:]) != 0 {
		t.Fatalf("header % x", b[:16])
	}
	if le.Uint16(b[16:]) != 4 || string(b[18:22]) != "walk" || f(22) != 1 || le.Uint32(b[26:]) != 3 {
		t.Fatalf("clip 0 header % x", b[16:30])
	}
	// channel 0 at 30: joint 0, path 0, linear, 3 comps, pad, 2 keys
	if le.Uint32(b[30:]) != 0 || !bytes.Equal(b[34:38], []byte{0, 1, 3, 0}) || le.Uint32(b[38:]) != 2 {
		t.Fatalf("channel 0 header % x", b[30:42])
	}
	if f(42) != 0 || f(58) != 1 || f(62) != 1 || f(66) != 2 || f(70) != 3 {
		t.Fatalf("channel 0 keys % x", b[42:74])
	}
	// channel 1 at 74: joint 2, rotation, step, 4 comps, 1 key of 20 bytes
	if le.Uint32(b[74:]) != 2 || !bytes.Equal(b[78:82], []byte{1, 0, 4, 0}) || le.Uint32(b[82:]) != 1 || f(86) != 0.5 || f(102) != 0.70710677 {
		t.Fatalf("channel 1 % x", b[74:106])
	}
	// channel 2 at 106: scale, no keys; clip 1 at 118
	if !bytes.Equal(b[110:114], []byte{2, 1, 3, 0}) || le.Uint32(b[114:]) != 0 || le.Uint16(b[118:]) != 0 || f(120) != 0.25 {
		t.Fatalf("channel 2 / clip 1 % x", b[106:128])
	}
	if want := 118 + 10 + 12 + 2*16; len(b) != want {
		t.Fatalf("file is %d bytes, want %d", len(b), want)
	}
	empty, err := Encode(nil)
	if err != nil || len(empty) != HeaderSize {
		t.Fatalf("empty file: %v, % x", err, empty)
	}
	meshcheck(t, map[string][]byte{"sample.hanim": b, "empty.hanim": empty})
}

// Why: decode must give back exactly what was encoded, and re-encode to the
// same bytes.
func TestRoundTrip(t *testing.T) {
	for _, clips := range [][]Clip{nil, sample()} {
		b, err := Encode(clips)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		norm := func(cs []Clip) []Clip {
			out := append([]Clip{}, cs...)
			for i := range out {
				out[i].Channels = append([]Channel{}, out[i].Channels...)
				for j := range out[i].Channels {
					h := &out[i].Channels[j]
					if len(h.Times) == 0 {
						h.Times, h.Values = nil, nil
					}
				}
			}
			if len(out) == 0 {
				return nil
			}
			return out
		}
		if !reflect.DeepEqual(norm(got), norm(clips)) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, clips)
		}
		b2, _ := Encode(got)
		if !bytes.Equal(b, b2) {
			t.Fatal("re-encoding differs")
		}
		var w bytes.Buffer
		if err := Write(&w, clips); err != nil || !bytes.Equal(w.Bytes(), b) {
			t.Fatalf("Write: %v", err)
		}
		if rc, err := Read(bytes.NewReader(b)); err != nil || len(rc) != len(clips) {
			t.Fatalf("Read: %v", err)
		}
	}
}

// Why: every malformed file is refused with the offset of the bad field.
func TestDecodeInvalid(t *testing.T) {
	good, err := Encode(sample())
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte{}, good...)) }
	put32 := func(at int, v uint32) []byte {
		return edit(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[at:], v); return b })
	}
	putF := func(at int, v float32) []byte { return put32(at, math.Float32bits(v)) }
	putB := func(at int, v byte) []byte { return edit(func(b []byte) []byte { b[at] = v; return b }) }
	tests := []struct {
		name   string
		b      []byte
		offset int64
		msg    string
		eof    bool
	}{
		{"empty", nil, 0, "truncated header", true},
		{"bad magic", []byte("HMSH\x01\x00\x00\x00"), 0, "bad magic", false},
		{"short header", good[:10], 10, "truncated header", true},
		{"version 2", put32(4, 2), 4, "unsupported version 2", false},
		{"reserved", put32(12, 1), 12, "reserved word", false},
		{"huge clip count", put32(8, 1<<30), 8, "clips cannot fit", true},
		{"name past end", edit(func(b []byte) []byte { binary.LittleEndian.PutUint16(b[16:], 1000); return b }), int64(len(good)), "truncated clip 0 (1000-byte name", true},
		{"huge channel count", put32(26, 1<<30), 26, "channels cannot fit", true},
		{"path 4", putB(34, 4), 34, "path 4", false},
		{"weights of 0 targets", edit(func(b []byte) []byte { b[34], b[36] = 3, 0; return b }), 36, "0 targets", false},
		{"interp cubic", putB(35, 2), 35, "interpolation 2", false},
		{"components", putB(36, 4), 36, "4 components for path 0", false},
		{"pad", putB(37, 1), 37, "pad byte", false},
		{"huge key count", put32(38, 1<<30), 38, "keys of 16 bytes cannot fit", true},
		{"truncated channels", good[:60], 26, "3 channels cannot fit in the 30 bytes left", true},
		{"trailing", append(append([]byte{}, good...), 0), int64(len(good)), "1 trailing bytes", false},
		{"negative duration", putF(22, -1), 22, "duration -1", false},
		{"nan duration", putF(22, float32(math.NaN())), 22, "duration NaN", false},
		{"key past duration", putF(58, 2), 58, "past the duration", false},
		{"keys out of order", edit(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[42:], math.Float32bits(0.75))
			binary.LittleEndian.PutUint32(b[58:], math.Float32bits(0.5))
			return b
		}), 58, "before the previous key", false},
		{"negative time", putF(42, -0.5), 42, "time -0.5", false},
		{"nan value", putF(66, float32(math.Inf(1))), 66, "value 1 is not finite", false},
		{"bad utf8 name", putB(18, 0xFF), 18, "not valid UTF-8", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.b)
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a FormatError", err)
			}
			if fe.Offset != tc.offset || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %q (offset 0x%x), want offset 0x%x and %q", err, fe.Offset, tc.offset, tc.msg)
			}
			if !errors.Is(err, ErrFormat) || errors.Is(err, io.ErrUnexpectedEOF) != tc.eof {
				t.Fatalf("%v: errors.Is ErrFormat / ErrUnexpectedEOF (want %v) wrong", err, tc.eof)
			}
			if !strings.HasPrefix(err.Error(), "hanim: offset 0x") {
				t.Fatalf("message %q lacks the prefix", err)
			}
		})
	}
}

// Why: the writer refuses what it could not encode faithfully.
func TestEncodeInvalid(t *testing.T) {
	tests := []struct {
		name string
		mod  func(c []Clip)
		msg  string
	}{
		{"values mismatch", func(c []Clip) { c[0].Channels[0].Values = c[0].Channels[0].Values[:5] }, "5 values for 2 keys"},
		{"long name", func(c []Clip) { c[0].Name = strings.Repeat("x", MaxNameLen+1) }, "name is 65536 bytes"},
		{"cubic", func(c []Clip) { c[0].Channels[0].Interp = 2 }, "interpolation 2"},
		{"path", func(c []Clip) { c[1].Channels[0].Path = 9 }, "path 9"},
		{"time past duration", func(c []Clip) { c[1].Duration = 0.125 }, "past the duration"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := sample()
			tc.mod(c)
			if _, err := Encode(c); err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("got %v, want %q", err, tc.msg)
			}
		})
	}
	if err := CheckJoints(sample(), 7); err == nil || !strings.Contains(err.Error(), "joint 7, skeleton has 7") {
		t.Fatalf("CheckJoints: %v", err)
	}
	if err := CheckJoints(sample(), 8); err != nil {
		t.Fatal(err)
	}
}

// hermite is glTF's cubic spline between keys k and k+1 (Appendix C),
// written independently of the resampler.
func hermite(ch mesh.Channel, t float64) []float64 {
	c := ch.Path.Components()
	k := 0
	for k+2 < len(ch.Times) && float64(ch.Times[k+1]) <= t {
		k++
	}
	t0, t1 := float64(ch.Times[k]), float64(ch.Times[k+1])
	td := t1 - t0
	s := (t - t0) / td
	out := make([]float64, c)
	for j := 0; j < c; j++ {
		v0 := float64(ch.Values[(3*k+1)*c+j])
		b0 := float64(ch.Values[(3*k+2)*c+j])
		a1 := float64(ch.Values[(3*k+3)*c+j])
		v1 := float64(ch.Values[(3*k+4)*c+j])
		out[j] = (2*s*s*s-3*s*s+1)*v0 + td*(s*s*s-2*s*s+s)*b0 + (-2*s*s*s+3*s*s)*v1 + td*(s*s*s-s*s)*a1
	}
	if ch.Path == mesh.PathRotation {
		normalize(out)
	}
	return out
}

func normalize(v []float64) {
	var l float64
	for _, x := range v {
		l += x * x
	}
	l = math.Sqrt(l)
	for i := range v {
		v[i] /= l
	}
}

// linear samples a linear channel at t, nlerp for rotations.
func linear(h Channel, t float64) []float64 {
	c := h.Components()
	k := 0
	for k+2 < len(h.Times) && float64(h.Times[k+1]) <= t {
		k++
	}
	t0, t1 := float64(h.Times[k]), float64(h.Times[k+1])
	u := 0.0
	if t1 > t0 {
		u = (t - t0) / (t1 - t0)
	}
	out := make([]float64, c)
	for j := range out {
		a, b := float64(h.Values[k*c+j]), float64(h.Values[(k+1)*c+j])
		out[j] = a + u*(b-a)
	}
	if h.Path == mesh.PathRotation {
		normalize(out)
	}
	return out
}

// Why: resampled cubic channels stay within the tolerance of the spline
// everywhere (checked densely, not only where the resampler looked), keep
// every source key, and cost no extra keys where the spline is straight.
func TestResampleCubic(t *testing.T) {
	bounce := mesh.Channel{Joint: 3, Path: mesh.PathTranslation, Interp: mesh.InterpCubic,
		Times: []float32{0, 0.5, 2},
		Values: []float32{
			0, 0, 0 /**/, 0, 0, 0 /**/, 4, 0, -1,
			-3, 1, 0 /**/, 1, 2, 0 /**/, 2, -5, 0,
			0, 0, 0 /**/, 0, 0, 1 /**/, 0, 0, 0,
		}}
	// a quarter turn about Z with tangents that bend it
	s := float32(math.Sqrt(0.5))
	turn := mesh.Channel{Joint: 0, Path: mesh.PathRotation, Interp: mesh.InterpCubic,
		Times: []float32{0, 1},
		Values: []float32{
			0, 0, 0, 0 /**/, 0, 0, 0, 1 /**/, 0, 0, 1.5, 0,
			0, 0, 1.5, 0 /**/, 0, 0, s, s /**/, 0, 0, 0, 0,
		}}
	for _, tol := range []float32{1e-2, DefaultTolerance, 1e-6} {
		for _, ch := range []mesh.Channel{bounce, turn} {
			h, err := Resample(ch, tol)
			if err != nil {
				t.Fatal(err)
			}
			if h.Interp != InterpLinear || h.Joint != uint32(ch.Joint) || h.Path != ch.Path || len(h.Values) != len(h.Times)*h.Components() {
				t.Fatalf("bad channel %+v", h)
			}
			// source keys kept with their values
			for k, tk := range ch.Times {
				found := false
				for i, ti := range h.Times {
					if ti == tk {
						found = true
						want := hermite(ch, float64(tk))
						if k == len(ch.Times)-1 {
							want = want[:0]
						}
						for j, w := range want {
							if math.Abs(float64(h.Values[i*h.Components()+j])-w) > 1e-6 {
								t.Fatalf("key %d value differs", k)
							}
						}
					}
				}
				if !found {
					t.Fatalf("tol %g: source key time %v missing", tol, tk)
				}
			}
			// dense check of the error; the bisection looks at quarter
			// points only, so allow a small factor over the tolerance
			worst := 0.0
			end := float64(ch.Times[len(ch.Times)-1])
			for i := 0; i <= 4000; i++ {
				tt := end * float64(i) / 4000
				a, b := hermite(ch, tt), linear(h, tt)
				for j := range a {
					worst = max(worst, math.Abs(a[j]-b[j]))
				}
			}
			if worst > 1.5*float64(tol)+1e-6 {
				t.Errorf("path %d tol %g: worst error %g over %d keys", ch.Path, tol, worst, len(h.Times))
			}
			if tol == DefaultTolerance {
				t.Logf("path %d: %d cubic keys → %d linear keys, worst error %.3g", ch.Path, len(ch.Times), len(h.Times), worst)
			}
			if ch.Path == mesh.PathRotation {
				for k := range h.Times {
					q := h.Values[4*k : 4*k+4]
					if l := q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3]; math.Abs(float64(l)-1) > 1e-5 {
						t.Fatalf("key %d: |q|² = %v", k, l)
					}
				}
			}
		}
	}
	// a straight spline (tangents equal to the chord) needs no extra keys
	line := mesh.Channel{Path: mesh.PathScale, Interp: mesh.InterpCubic, Times: []float32{0, 2},
		Values: []float32{1, 1, 1, 1, 1, 1, 1, 1, 1 /**/, 1, 1, 1, 3, 3, 3, 1, 1, 1}}
	if h, err := Resample(line, DefaultTolerance); err != nil || len(h.Times) != 2 {
		t.Fatalf("straight spline: %v, %d keys", err, len(h.Times))
	}
}

// Why: step and linear channels pass through untouched, broken ones are
// refused.
func TestResampleCopiesAndRefuses(t *testing.T) {
	ch := mesh.Channel{Joint: 1, Path: mesh.PathRotation, Interp: mesh.InterpStep, Times: []float32{0, 1}, Values: []float32{0, 0, 0, 2, 0, 0, 0, 1}}
	h, err := Resample(ch, 0)
	if err != nil || h.Interp != InterpStep || !reflect.DeepEqual(h.Values, ch.Values) || !reflect.DeepEqual(h.Times, ch.Times) {
		t.Fatalf("%v %+v", err, h)
	}
	h.Values[3] = 5
	if ch.Values[3] != 2 {
		t.Fatal("Resample aliases the source values")
	}
	bad := []mesh.Channel{
		{Joint: -1, Path: mesh.PathScale},
		{Path: 7},
		{Path: mesh.PathScale, Interp: 3},
		{Path: mesh.PathScale, Interp: mesh.InterpCubic, Times: []float32{0}, Values: []float32{1, 1, 1}},
		{Path: mesh.PathScale, Times: []float32{1, 0}, Values: make([]float32, 6)},
		{Path: mesh.PathScale, Times: []float32{float32(math.NaN())}, Values: make([]float32, 3)},
		{Path: mesh.PathScale, Times: []float32{0}, Values: []float32{0, float32(math.Inf(-1)), 0}},
	}
	for i, b := range bad {
		if _, err := Resample(b, 0); err == nil || !strings.HasPrefix(err.Error(), "hanim: ") {
			t.Errorf("case %d: %v", i, err)
		}
	}
}

// Why: FromScene keeps clip order, drops only broken channels, reports
// weight channels and resampling once per clip, and its output encodes and
// passes meshcheck.
func TestFromScene(t *testing.T) {
	anims := []mesh.Animation{
		{Name: "idle", Duration: 2, SkippedWeightChannels: 2, Channels: []mesh.Channel{
			{Joint: 0, Path: mesh.PathTranslation, Interp: mesh.InterpLinear, Times: []float32{0, 2}, Values: []float32{0, 0, 0, 1, 1, 1}},
			{Joint: 1, Path: mesh.PathScale, Interp: mesh.InterpCubic, Times: []float32{0, 1},
				Values: []float32{0, 0, 0, 1, 1, 1, 5, 0, 0 /**/, 0, 5, 0, 2, 2, 2, 0, 0, 0}},
			{Joint: 2, Path: mesh.PathScale, Interp: mesh.InterpLinear, Times: []float32{0}, Values: []float32{1}},
		}},
		{Name: "bad\xffname", Duration: 0},
	}
	clips, warnings := FromScene(anims, DefaultTolerance)
	if len(clips) != 2 || clips[0].Name != "idle" || len(clips[0].Channels) != 2 || clips[0].Duration != 2 {
		t.Fatalf("%+v", clips)
	}
	if clips[1].Name != "bad\uFFFDname" || len(clips[1].Channels) != 0 {
		t.Fatalf("%+v", clips[1])
	}
	joined := strings.Join(warnings, "\n")
	for _, want := range []string{"dropped 1 invalid channels", "skipped 2 morph-weight channels", "resampled 1 CUBICSPLINE channels to linear (2 keys → ", "invalid UTF-8"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
	b, err := Encode(clips)
	if err != nil {
		t.Fatal(err)
	}
	meshcheck(t, map[string][]byte{"scene.hanim": b})
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file\ngot:\n%s", name, got)
	}
}

// meshcheck runs ../shared/tools/meshcheck.py (beside the repository root)
// on the files, skipping when python3 or the script is missing.
func meshcheck(t *testing.T, files map[string][]byte) {
	t.Helper()
	script := testkit.Meshcheck(t)
	dir := t.TempDir()
	args := []string{script, "--json"}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	out, err := exec.Command("python3", args...).CombinedOutput()
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var res struct {
			OK    bool   `json:"ok"`
			Error string `json:"error"`
			File  string `json:"file"`
		}
		if json.Unmarshal([]byte(line), &res) != nil || !res.OK {
			t.Errorf("meshcheck: %s", line)
		}
	}
	if err != nil {
		t.Errorf("meshcheck: %v", err)
	}
}

// Why: path 3 (morph weights) is meshcook's addition; its bytes are pinned
// here by hand: the components byte is the target count and joint the
// submesh index.
func TestMorphWeightBytes(t *testing.T) {
	clips := []Clip{{Name: "m", Duration: 1, Channels: []Channel{
		{Joint: 5, Path: mesh.PathWeights, Interp: InterpLinear, Targets: 2,
			Times: []float32{0, 1}, Values: []float32{0, 1, 0.5, 0.25}},
	}}}
	b, err := Encode(clips)
	require.NoError(t, err)
	want := "48414e4d" + "01000000" + "01000000" + "00000000" + // header
		"0100" + "6d" + "0000803f" + "01000000" + // clip "m", 1 s, 1 channel
		"05000000" + "03" + "01" + "02" + "00" + "02000000" + // submesh 5, path 3, linear, 2 targets, 2 keys
		"00000000" + "00000000" + "0000803f" + // t 0: 0, 1
		"0000803f" + "0000003f" + "0000803e" // t 1: 0.5, 0.25
	assert.Equal(t, want, hex.EncodeToString(b))
	back, err := Decode(b)
	require.NoError(t, err)
	assert.Equal(t, clips, back)
	require.NoError(t, CheckTargets(back, []int{0, 0, 0, 0, 0, 2}))
	assert.ErrorContains(t, CheckTargets(back, []int{0, 2}), "submesh 5, mesh has 2")
	assert.ErrorContains(t, CheckTargets(back, []int{0, 0, 0, 0, 0, 3}), "2 weights, submesh 5 has 3")
	require.NoError(t, CheckJoints(back, 0), "weights channels index submeshes, not joints")
	_, err = Encode([]Clip{{Channels: []Channel{{Path: mesh.PathWeights, Targets: 256}}}})
	assert.ErrorContains(t, err, "256 targets")
	meshcheck(t, map[string][]byte{"weights.hanim": b})
}
