//go:build unix

package cli

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeGridGLTF writes an n×n vertex displaced grid as a .gltf with its
// buffer in a data URI: a source big enough that a cook of it takes a
// while, so kills land in every stage.
func writeGridGLTF(t *testing.T, path string, n int) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for r := 0; r < n; r++ {
		for c := 0; c < n; c++ {
			x, z := float32(c)/float32(n-1), float32(r)/float32(n-1)
			y := float32(0.05 * math.Sin(float64(x*17)) * math.Cos(float64(z*13)))
			for _, v := range []float32{x, y, z} {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			}
		}
	}
	posLen := len(buf)
	for r := 0; r+1 < n; r++ {
		for c := 0; c+1 < n; c++ {
			v := uint32(r*n + c)
			for _, i := range []uint32{v, v + uint32(n), v + 1, v + 1, v + uint32(n), v + uint32(n) + 1} {
				buf = binary.LittleEndian.AppendUint32(buf, i)
			}
		}
	}
	nIdx := 6 * (n - 1) * (n - 1)
	doc := map[string]any{
		"asset":  map[string]any{"version": "2.0"},
		"scene":  0,
		"scenes": []any{map[string]any{"nodes": []int{0}}},
		"nodes":  []any{map[string]any{"mesh": 0}},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{"attributes": map[string]int{"POSITION": 0}, "indices": 1}}}},
		"buffers": []any{map[string]any{"byteLength": len(buf),
			"uri": "data:application/octet-stream;base64," + base64.StdEncoding.EncodeToString(buf)}},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": posLen},
			map[string]any{"buffer": 0, "byteOffset": posLen, "byteLength": len(buf) - posLen},
		},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": n * n, "type": "VEC3",
				"min": []float32{0, -0.05, 0}, "max": []float32{1, 0.05, 1}},
			map[string]any{"bufferView": 1, "componentType": 5125, "count": nIdx, "type": "SCALAR"},
		},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Killing a cook (SIGKILL, no chance to clean up) at random moments never
// leaves a truncated or partial output: every file under the output folder
// is the previous cook's or the new one's and validates. The next complete
// cook finishes the job, removes the killed cooks' temp files and writes
// exactly what a fresh cook writes; the cache survives the kills.
func TestCookSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and cooks repeatedly")
	}
	bin := meshcookBinary(t)
	src := copyTree(t, samplesDir(t))
	writeGridGLTF(t, filepath.Join(src, "big", "grid.gltf"), 150)
	work := t.TempDir()
	out := filepath.Join(work, "out")
	cacheDir := filepath.Join(work, "cache")

	cookArgs := func(lods string) []string {
		return []string{"cook", src, "-o", out, "--cache", cacheDir, "--lods", lods, "-q"}
	}
	// Time one full cook to spread the kills over it.
	start := time.Now()
	if b, err := exec.Command(bin, cookArgs("0.5")...).CombinedOutput(); err != nil {
		t.Fatalf("cook: %v\n%s", err, b)
	}
	full := time.Since(start)
	t.Logf("one cold cook of the samples + a %d-triangle grid: %v", 2*149*149, full)

	rng := rand.New(rand.NewPCG(1, 2))
	ratios := []string{"0.6", "0.4,0.2", "0.3", "0.7,0.5", "0.45", "0.55,0.1"}
	killed := 0
	for i, lods := range ratios {
		cmd := exec.Command(bin, cookArgs(lods)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(rng.Int64N(int64(full)))
		time.Sleep(delay)
		if err := cmd.Process.Signal(syscall.SIGKILL); err == nil {
			killed++
		}
		cmd.Wait()
		temps := 0
		for _, p := range outputsUnder(t, out) {
			if strings.Contains(filepath.Base(p), ".tmp-") {
				temps++
			}
		}
		t.Logf("kill %d at %v: %d temp files left", i, delay.Round(time.Millisecond), temps)
		checkOutputsValid(t, out, fmt.Sprintf("after kill %d at %v", i, delay))
	}
	if killed == 0 {
		t.Fatal("no cook was killed")
	}
	// The next cook completes, leaves no temp files, and matches a fresh one.
	if b, err := exec.Command(bin, cookArgs("0.5")...).CombinedOutput(); err != nil {
		t.Fatalf("cook after kills: %v\n%s", err, b)
	}
	for _, p := range outputsUnder(t, out) {
		if strings.Contains(filepath.Base(p), ".tmp-") {
			t.Errorf("temp file left after a complete cook: %s", p)
		}
	}
	checkOutputsValid(t, out, "after the final cook")
	fresh := filepath.Join(t.TempDir(), "fresh")
	if b, err := exec.Command(bin, "cook", src, "-o", fresh, "--lods", "0.5", "--no-cache", "-q").CombinedOutput(); err != nil {
		t.Fatalf("fresh cook: %v\n%s", err, b)
	}
	got, want := readTree(t, out), readTree(t, fresh)
	if len(got) != len(want) {
		t.Errorf("after kills %d files, fresh cook %d", len(got), len(want))
	}
	for name, b := range want {
		if string(got[name]) != string(b) {
			t.Errorf("%s differs from a fresh cook", name)
		}
	}
}

// checkOutputsValid validates every output under dir (temp files of a
// killed cook aside: they are not outputs and the next cook removes them).
func checkOutputsValid(t *testing.T, dir, when string) {
	t.Helper()
	var files []string
	for _, p := range outputsUnder(t, dir) {
		if !strings.Contains(filepath.Base(p), ".tmp-") {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		return
	}
	if code, stdout, stderr := run(t, append([]string{"validate"}, files...)...); code != ExitOK {
		t.Fatalf("%s: validate exit %d\n%s%s", when, code, stdout, stderr)
	}
}
