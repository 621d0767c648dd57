package cli

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cookpkg "github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/internal/davtest"
	"github.com/meshcook/meshcook/internal/testkit"
)

// BenchmarkFarmCorpus measures the remote cache's target as whole
// processes (make bench-farm): a cold cook of the corpus glTF and FBX
// folders on machine A, uploading to nginx WebDAV, against the same cook
// on machine B (its own output folder and an empty local cache) served by
// the remote; plus a cold cook without any cache (the reference the
// ratios use) and local cache hits into an empty folder. Each iteration
// runs the four side by side, so load from other work hits them all, and
// logs its own ratios. The outputs of B must be byte-identical to A's.
// Two texture settings: the default (Basis textures: a slow cold cook,
// 13 MB of outputs) and rgba8 (a fast cold cook, 146 MB of outputs: what
// the hit path's writing costs shows).
func BenchmarkFarmCorpus(b *testing.B) {
	corpus := testkit.Shared(b, "corpus")
	srv := davtest.Start(b)
	bin := meshcookBinaryB(b)
	// Every source under corpus/gltf and corpus/fbx, named below the
	// corpus (of x.fbx and x.glb side by side, the first is kept).
	var srcs []string
	seen := map[string]bool{}
	for _, dir := range []string{"gltf", "fbx"} {
		filepath.WalkDir(filepath.Join(corpus, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !cookpkg.IsSource(p) {
				return nil
			}
			stem := strings.ToLower(strings.TrimSuffix(p, filepath.Ext(p)))
			if !seen[stem] {
				seen[stem] = true
				srcs = append(srcs, p)
			}
			return nil
		})
	}
	b.Logf("%d sources", len(srcs))
	for _, textures := range []string{"default", "rgba8"} {
		b.Run("textures="+textures, func(b *testing.B) {
			var opts []string
			if textures != "default" {
				opts = []string{"--textures", textures}
			}
			cook := func(out string, extra ...string) time.Duration {
				args := append(append([]string{"cook", "--root", corpus}, srcs...), "-o", out, "-q", "-j", "2")
				cmd := exec.Command(bin, append(append(args, opts...), extra...)...)
				start := time.Now()
				outb, err := cmd.CombinedOutput()
				if code := cmd.ProcessState.ExitCode(); err != nil && code != ExitBadInput {
					b.Fatalf("cook: %v\n%s", err, outb)
				}
				return time.Since(start)
			}
			var cold, coldUpload, remote, local time.Duration
			for i := 0; i < b.N; i++ {
				tmp := b.TempDir()
				os.RemoveAll(filepath.Join(srv.Root, "ac"))
				os.RemoveAll(filepath.Join(srv.Root, "cas"))
				c := cook(filepath.Join(tmp, "plain", "out"), "--no-cache")
				coldUpload += cook(filepath.Join(tmp, "a", "out"), "--remote-cache", srv.URL)
				r := cook(filepath.Join(tmp, "b", "out"), "--remote-cache", srv.URL)
				// B's local cache (now holding every result) into an empty
				// folder: hashing the sources and writing the outputs.
				l := cook(filepath.Join(tmp, "c", "out"), "--cache", filepath.Join(tmp, "b", ".meshcook-cache"))
				cold, remote, local = cold+c, remote+r, local+l
				b.Logf("run %d: cold %.2f s, second machine %.3f s (%.1f%%), local hits %.3f s (%.1f%%)", i+1,
					c.Seconds(), r.Seconds(), 100*r.Seconds()/c.Seconds(), l.Seconds(), 100*l.Seconds()/c.Seconds())
				a, bt := readTree(b, filepath.Join(tmp, "a", "out")), readTree(b, filepath.Join(tmp, "b", "out"))
				if len(a) == 0 || len(a) != len(bt) {
					b.Fatalf("machine A wrote %d files, B %d", len(a), len(bt))
				}
				for name, data := range a {
					if string(bt[name]) != string(data) {
						b.Fatalf("%s differs between the machines", name)
					}
				}
			}
			n := float64(b.N)
			b.ReportMetric(cold.Seconds()/n, "s/cold")
			b.ReportMetric(coldUpload.Seconds()/n, "s/cold+upload")
			b.ReportMetric(remote.Seconds()/n, "s/remote")
			b.ReportMetric(local.Seconds()/n, "s/local-hits")
			b.ReportMetric(100*remote.Seconds()/cold.Seconds(), "%remote/cold")
			b.ReportMetric(100*local.Seconds()/cold.Seconds(), "%local-hits/cold")
		})
	}
}

// meshcookBinaryB builds the binary for a benchmark (meshcookBinary takes
// a *testing.T).
func meshcookBinaryB(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "meshcook")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", bin, "./cmd/meshcook")
	cmd.Dir = testkit.RepoRoot(b)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}
