package ktx2

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The node scripts print every file's line even to a reader slowed down
// by load. The flaky "ktx-parse printed nothing" of TestBasisTranscoder
// was theirs: once the stdout pipe was full, node queued the rest and
// process.exit() dropped it. Here the reader sleeps while the script runs
// and reads only then, so a script that exits without draining its output
// loses lines; one that waits for the pipe to drain prints them all.
func TestNodeScriptsFlushStdout(t *testing.T) {
	dir := t.TempDir()
	lv, err := MipChain(ramp(8, 8), KindColor)
	require.NoError(t, err)
	b, err := EncodeBasis(lv, KindColor, testWriter, Options{Codec: CodecUASTC})
	require.NoError(t, err)
	p := filepath.Join(dir, "ramp.ktx2")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	files := make([]string, 400) // about 400 KB of check.mjs output, far past a 64 KiB pipe
	for i := range files {
		files[i] = p
	}
	outDir := t.TempDir()
	for _, c := range []struct {
		script, module string
		args           []string
	}{
		{"check.mjs", "ktx-parse", files},
		{"transcode.mjs", "three", append([]string{outDir}, files[:200]...)},
	} {
		node, nodeDir := nodeTool(t, c.module)
		r, w, err := os.Pipe()
		require.NoError(t, err)
		cmd := exec.Command(node, append([]string{c.script}, c.args...)...)
		cmd.Dir = nodeDir
		cmd.Stdout = w // the pipe itself: nothing reads it until the sleep is over
		require.NoError(t, cmd.Start())
		w.Close()
		time.Sleep(2 * time.Second)
		lines := 0
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var res struct {
				File  string `json:"file"`
				Error string `json:"error"`
			}
			require.NoError(t, json.Unmarshal(sc.Bytes(), &res), "%s: %q", c.script, sc.Text())
			assert.Empty(t, res.Error, c.script)
			lines++
		}
		require.NoError(t, sc.Err())
		r.Close()
		require.NoError(t, cmd.Wait(), c.script)
		assert.Equal(t, countFiles(c.args, p), lines, "%s: one line per file", c.script)
	}
}

// countFiles counts the arguments that name file p.
func countFiles(args []string, p string) int {
	n := 0
	for _, a := range args {
		if a == p {
			n++
		}
	}
	return n
}
