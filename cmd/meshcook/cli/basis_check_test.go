package cli

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/internal/testkit"
)

// checkBasisInstead checks the Basis Universal textures meshcheck.py
// refused (it accepts only RGBA8 KTX2; docs/formats/ktx2.md) with the two
// independent readers that do read them: npm ktx-parse (ktxParse) and the
// Basis Universal transcoder in npm three, whose RGBA pixels must equal
// ktx2.Decode's for every level. files are the refused .ktx2 files and the
// Basis payloads of refused .cnb worlds, deduplicated.
func checkBasisInstead(t *testing.T, files [][]byte) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	dir := t.TempDir()
	var paths []string
	for i, b := range files {
		p := filepath.Join(dir, fmt.Sprintf("basis_%03d.ktx2", i))
		require.NoError(t, os.WriteFile(p, b, 0o644))
		paths = append(paths, p)
	}
	ktxParse(t, paths)
	transcodeBasis(t, paths)
	t.Logf("%d Basis textures meshcheck.py refused were read by ktx-parse and transcoded by three instead", len(paths))
}

// transcodeBasis decodes every level of each Basis file with three's
// transcoder (formats/ktx2/testdata/node/transcode.mjs) and requires its
// pixels to equal ktx2.Decode's. It skips only when node or three is
// missing and CI is unset.
func transcodeBasis(t *testing.T, files []string) {
	t.Helper()
	nodeDir := filepath.Join(testkit.RepoRoot(t), "formats", "ktx2", "testdata", "node")
	unavailable := func(why string) {
		t.Helper()
		if os.Getenv("CI") != "" {
			t.Fatalf("Basis transcoder cross-check cannot run in CI: %s (install with `npm ci --prefix formats/ktx2/testdata/node`)", why)
		}
		t.Skipf("Basis transcoder cross-check skipped: %s (install with `npm ci --prefix formats/ktx2/testdata/node`)", why)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		unavailable("node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(nodeDir, "node_modules", "three", "package.json")); err != nil {
		unavailable("node_modules/three is not installed")
	}
	out := t.TempDir()
	cmd := exec.Command(node, append([]string{"transcode.mjs", out}, files...)...)
	cmd.Dir = nodeDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Errorf("node transcode.mjs: %v\n%.2000s", err, stderr.String())
	}
	type result struct {
		File   string `json:"file"`
		Error  string `json:"error"`
		Levels []struct {
			Width  int `json:"width"`
			Height int `json:"height"`
		} `json:"levels"`
	}
	got := map[string]result{}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r result
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "transcode.mjs output %q", sc.Text())
		got[r.File] = r
	}
	require.NoError(t, sc.Err())
	for _, p := range files {
		r, ok := got[p]
		if !assert.True(t, ok, "%s: transcode.mjs printed nothing", p) || !assert.Empty(t, r.Error, p) {
			continue
		}
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		f, err := ktx2.Decode(b)
		require.NoError(t, err, p)
		require.Len(t, r.Levels, len(f.Levels), p)
		for i, lv := range f.Levels {
			assert.Equal(t, [2]int{lv.Width, lv.Height}, [2]int{r.Levels[i].Width, r.Levels[i].Height}, "%s level %d", p, i)
			px, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("%s.%d.rgba", filepath.Base(p), i)))
			require.NoError(t, err)
			assert.True(t, bytes.Equal(lv.Pixels, px), "%s level %d: three's transcoder and ktx2.Decode disagree", p, i)
		}
	}
}

// dedupe drops repeated byte strings, keeping first-seen order.
func dedupe(files [][]byte) [][]byte {
	seen := map[[32]byte]bool{}
	var out [][]byte
	for _, b := range files {
		k := sha256.Sum256(b)
		if !seen[k] {
			seen[k] = true
			out = append(out, b)
		}
	}
	return out
}
