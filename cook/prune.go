package cook

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/meshcook/meshcook/internal/atomicfile"
	"github.com/meshcook/meshcook/internal/safename"
)

// A cook with Options.Prune records in the cache folder every output it
// produced in OutDir, with its xxh3-64: the "written" ledger of that
// folder. The next pruning cook removes the outputs the ledger lists that
// it does not produce, as ninja's `-t cleandead` does with .ninja_log, and
// nothing else: a file meshcook never recorded, or one changed since it
// wrote it, is left alone (the latter with a warning). Cooks without Prune
// neither read nor write the ledger.

// ledgerHeader starts a ledger file; the output folder follows it.
const ledgerHeader = "meshcook written v1 "

// ledgerPath is the ledger of outDir in the cache folder cacheDir.
func ledgerPath(cacheDir, outDir string) (string, error) {
	abs, err := filepath.Abs(outDir)
	if err != nil {
		return "", err
	}
	return filepath.Join(cacheDir, fmt.Sprintf("written-%016x.txt", xxh3.HashString(abs))), nil
}

// readLedger returns the outputs the ledger lists (name → xxh3). A
// missing ledger, one of another folder (a hash collision) or a malformed
// one lists nothing: nothing is pruned on its account.
func readLedger(p, outDir string) map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile(p)
	if err != nil {
		return out
	}
	abs, _ := filepath.Abs(outDir)
	sc := bufio.NewScanner(bytes.NewReader(b))
	if !sc.Scan() || sc.Text() != ledgerHeader+abs {
		return out
	}
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), " ")
		if !ok || len(sum) != 16 || safename.Check(name) != nil {
			return map[string]string{}
		}
		out[name] = sum
	}
	return out
}

// writeLedger replaces the ledger with outputs, sorted by name.
func writeLedger(p, outDir string, outputs map[string]string) error {
	abs, err := filepath.Abs(outDir)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(ledgerHeader + abs + "\n")
	names := make([]string, 0, len(outputs))
	for n := range outputs {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", outputs[n], n)
	}
	_, err = atomicfile.WriteIfChanged(p, []byte(b.String())) // an unchanged ledger is not touched
	return err
}

// recordOutputs, with Prune, removes what OutDir's ledger lists that
// this cook did not produce and records what it did. Pruning is skipped
// (with a warning) when any source failed: its outputs are not in the
// report, but its source is still there; the ledger then keeps them.
func recordOutputs(opts Options, rep *Report) {
	if !opts.Prune || opts.Cache == nil || opts.Check || opts.DryRun {
		return
	}
	p, err := ledgerPath(opts.Cache.Dir(), opts.OutDir)
	if err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("cook: ledger of written outputs: %v", err))
		return
	}
	old := readLedger(p, opts.OutDir)
	cur := make(map[string]string, len(rep.Outputs))
	for _, o := range rep.Outputs {
		cur[o.Name] = o.XXH3
	}
	next := cur
	if len(rep.Errors) > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("cook: --prune skipped: %d sources failed, and their outputs stay until they cook", len(rep.Errors)))
		next = old
		for n, h := range cur {
			next[n] = h
		}
	} else {
		rep.Pruned = pruneOutputs(opts.OutDir, old, cur, rep)
	}
	if err := writeLedger(p, opts.OutDir, next); err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("cook: ledger of written outputs: %v", err))
	}
}

// pruneOutputs removes, under outDir, every output old lists that cur
// does not and whose bytes are still those meshcook wrote, then the
// folders that leaves empty. It returns the names removed, sorted.
func pruneOutputs(outDir string, old, cur map[string]string, rep *Report) []string {
	root, err := os.OpenRoot(outDir)
	if err != nil {
		return nil
	}
	defer root.Close()
	var names []string
	for n := range old {
		if _, ok := cur[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	removed := []string{}
	dirs := map[string]bool{}
	for _, n := range names {
		b, err := root.ReadFile(n)
		if err != nil {
			continue // already gone
		}
		if fmt.Sprintf("%016x", xxh3.Hash(b)) != old[n] {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("cook: --prune: %s changed since meshcook wrote it; left in place", filepath.Join(outDir, filepath.FromSlash(n))))
			continue
		}
		if err := root.Remove(n); err != nil {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("cook: --prune: %s: %v", filepath.Join(outDir, filepath.FromSlash(n)), unwrapPathError(err)))
			continue
		}
		removed = append(removed, n)
		for d := path.Dir(n); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	// Deepest first, so a folder emptied by its subfolder's removal goes too.
	var ds []string
	for d := range dirs {
		ds = append(ds, d)
	}
	slices.SortFunc(ds, func(a, b string) int {
		if c := strings.Count(b, "/") - strings.Count(a, "/"); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, d := range ds {
		if ents, err := fsReadDir(root, d); err == nil && len(ents) == 0 {
			root.Remove(d)
		}
	}
	return removed
}

// fsReadDir lists the folder d below root.
func fsReadDir(root *os.Root, d string) ([]os.DirEntry, error) {
	f, err := root.Open(d)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}
