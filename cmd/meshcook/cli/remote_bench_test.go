package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/meshcook/meshcook/internal/davtest"
	"github.com/meshcook/meshcook/internal/testkit"
)

// BenchmarkFarmCorpus measures the remote cache's target as whole
// processes (make bench-farm): a cold cook of the corpus glTF and FBX
// folders on machine A, uploading to nginx WebDAV, against the same cook
// on machine B (its own output folder and local cache) served by the
// remote; plus a cold cook without any cache for reference. Each
// iteration alternates the runs, so load from other work hits both. The
// outputs of B must be byte-identical to A's.
func BenchmarkFarmCorpus(b *testing.B) {
	corpus := testkit.Shared(b, "corpus")
	srv := davtest.Start(b)
	bin := meshcookBinaryB(b)
	srcs := []string{filepath.Join(corpus, "gltf"), filepath.Join(corpus, "fbx")}
	cook := func(out string, extra ...string) time.Duration {
		args := append(append([]string{"cook"}, srcs...), "-o", out, "-q", "-j", "2")
		cmd := exec.Command(bin, append(args, extra...)...)
		start := time.Now()
		outb, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); err != nil && code != ExitBadInput {
			b.Fatalf("cook: %v\n%s", err, outb)
		}
		return time.Since(start)
	}
	var cold, coldUpload, remote time.Duration
	for i := 0; i < b.N; i++ {
		tmp := b.TempDir()
		os.RemoveAll(filepath.Join(srv.Root, "ac"))
		os.RemoveAll(filepath.Join(srv.Root, "cas"))
		cold += cook(filepath.Join(tmp, "plain", "out"), "--no-cache")
		coldUpload += cook(filepath.Join(tmp, "a", "out"), "--remote-cache", srv.URL)
		remote += cook(filepath.Join(tmp, "b", "out"), "--remote-cache", srv.URL)
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
	b.ReportMetric(100*remote.Seconds()/coldUpload.Seconds(), "%remote/cold")
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
