package cook

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusJobs plans every source under ../shared/corpus (skipping when it
// is absent); of sources that would write the same output (x.gltf and
// x.glb) the first in path order is kept.
func corpusJobs(b *testing.B) []Job {
	b.Helper()
	root := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(root); err != nil {
		b.Skipf("%s not present (the shared corpus is only on project machines): %v", root, err)
	}
	var jobs []Job
	seen := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !IsSource(p) {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		j := newJob(root, p, rel)
		if k := strings.ToLower(j.Name); !seen[k] {
			seen[k] = true
			jobs = append(jobs, j)
		}
		return nil
	})
	sort.Slice(jobs, func(i, k int) bool { return jobs[i].Name < jobs[k].Name })
	return jobs
}

func benchCook(b *testing.B, jobs []Job, out, cacheDir string, workers int) *Report {
	b.Helper()
	opts := DefaultOptions()
	opts.OutDir, opts.Jobs = out, workers
	c, err := OpenCache(cacheDir, 0, "bench")
	if err != nil {
		b.Fatal(err)
	}
	opts.Cache = c
	rep, err := Run(context.Background(), jobs, opts)
	if err != nil {
		b.Fatal(err)
	}
	return rep
}

// BenchmarkCorpus cooks the whole shared corpus cold (fresh outputs and
// cache each iteration) with 1 and 2 workers, and warm (unchanged tree,
// primed cache and outputs). Run it with
//
//	go test ./cook -run '^$' -bench Corpus -benchtime 1x
func BenchmarkCorpus(b *testing.B) {
	jobs := corpusJobs(b)
	for _, workers := range []int{1, 2} {
		b.Run("cold/j"+string(rune('0'+workers)), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				b.StartTimer()
				rep := benchCook(b, jobs, filepath.Join(dir, "out"), filepath.Join(dir, "cache"), workers)
				b.ReportMetric(float64(rep.CacheMisses), "misses")
			}
		})
	}
	b.Run("warm/j2", func(b *testing.B) {
		dir := b.TempDir()
		out, cache := filepath.Join(dir, "out"), filepath.Join(dir, "cache")
		benchCook(b, jobs, out, cache, 2)
		for b.Loop() {
			rep := benchCook(b, jobs, out, cache, 2)
			b.ReportMetric(float64(rep.CacheHits), "hits")
			b.ReportMetric(float64(rep.BytesWritten), "bytes-written")
		}
	})
}
