package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/ktx2"
	"github.com/meshcook/meshcook/internal/testkit"
)

// run executes one meshcook command line in-process.
func run(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// meshcheck runs the independent reader over files and fails the test on
// any file it rejects, except for its known gaps: Basis Universal textures
// it refuses are logged and read by ktx-parse and transcoded by three's
// Basis transcoder instead (checkBasisInstead). Skips when python3 or the
// script is missing.
func meshcheck(t *testing.T, files []string) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	script := filepath.Join(testkit.Shared(t, "tools"), "meshcheck.py")
	py, err := exec.LookPath("python3")
	if err != nil {
		testkit.Missing(t, "python3 not found; the independent meshcheck cannot run")
	}
	const batch = 200
	var basis [][]byte // refused Basis textures, checked after the loop
	for len(files) > 0 {
		n := min(batch, len(files))
		cmd := exec.Command(py, append([]string{script, "--json"}, files[:n]...)...)
		out, err := cmd.Output()
		parsed := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			var r map[string]any
			if json.Unmarshal([]byte(line), &r) != nil {
				continue
			}
			parsed++
			if ok, _ := r["ok"].(bool); !ok {
				if file, _ := r["file"].(string); file != "" {
					if b := knownMeshcheckBasisGap(r["error"], file); b != nil {
						t.Logf("meshcheck predates Basis Universal textures (accepts only RGBA8); checked with ktx-parse and three's transcoder instead: %s", line)
						basis = append(basis, b...)
						continue
					}
				}
				t.Errorf("meshcheck rejects %v", line)
			}
		}
		// Exit status 1 just means some file failed, which is reported
		// above; anything else (a crash, missing output) fails here.
		if parsed != n {
			t.Errorf("meshcheck printed %d results for %d files (%v):\n%s", parsed, n, err, out)
		}
		files = files[n:]
	}
	checkBasisInstead(t, dedupe(basis))
}

// outputsUnder lists every file below dir.
func outputsUnder(t testing.TB, dir string) []string {
	t.Helper()
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// readTree maps each file's path relative to dir to its bytes.
func readTree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, p := range outputsUnder(t, dir) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = b
	}
	return m
}

// knownMeshcheckBasisGap recognises meshcheck.py refusing a Basis Universal
// texture: it was written when formats.md allowed only RGBA8 (vkFormat
// 37/43) and rejects vkFormat 0 (docs/formats/ktx2.md). Only a file our
// reader decodes as UASTC or ETC1S qualifies. It returns the Basis files
// the refusal covers (nil when it is not this gap): the file itself, or for
// a .cnb world the Basis KTX2 payloads of its blobs; meshcheck() checks
// them with ktx-parse and three's transcoder instead (checkBasisInstead).
func knownMeshcheckBasisGap(msg any, file string) [][]byte {
	m, _ := msg.(string)
	if !strings.HasPrefix(m, "vkFormat 0 typeSize 1: meshcook writes RGBA8") {
		return nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	if f, err := ktx2.Decode(b); err == nil {
		if f.Codec == ktx2.CodecRGBA8 {
			return nil
		}
		return [][]byte{b}
	}
	// A .cnb world: meshcheck reports on blob 0 what it found in any blob
	// of the world; every KTX2 payload in the blobs beside it must decode,
	// at least one as Basis.
	blobs, err := filepath.Glob(filepath.Join(filepath.Dir(file), "*"))
	if err != nil {
		return nil
	}
	var basis [][]byte
	id := []byte("\xABKTX 20\xBB\r\n\x1A\n")
	for _, blob := range blobs {
		b, err := os.ReadFile(blob)
		if err != nil {
			return nil
		}
		for at := bytes.Index(b, id); at >= 0; {
			n, ok := ktx2Extent(b[at:])
			if !ok {
				return nil
			}
			f, err := ktx2.Decode(b[at : at+n])
			if err != nil {
				return nil
			}
			if f.Codec != ktx2.CodecRGBA8 {
				basis = append(basis, b[at:at+n])
			}
			next := bytes.Index(b[at+n:], id)
			if next < 0 {
				break
			}
			at += n + next
		}
	}
	return basis
}

// ktx2Extent returns the byte size of the KTX2 file starting b (its last
// level's end: levels are stored smallest first, level 0 last).
func ktx2Extent(b []byte) (int, bool) {
	if len(b) < 80+24 {
		return 0, false
	}
	le := binary.LittleEndian
	end := uint64(le.Uint64(b[80:])) + le.Uint64(b[88:])
	if end > uint64(len(b)) {
		return 0, false
	}
	return int(end), true
}
