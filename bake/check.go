package bake

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/meshcook/meshcook/formats/meshpack"
)

// Diff is one entry that differs between a pack and a fresh bake.
type Diff struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// CheckResult is what Check found.
type CheckResult struct {
	// Diffs lists the differing entries in fresh-bake order, then entries
	// only the pack has; empty when the pack equals a fresh bake.
	Diffs []Diff `json:"diffs"`
	// Identical is true when the file bytes equal a fresh bake's.
	Identical bool   `json:"identical"`
	Report    Report `json:"report"`
}

// OK reports whether the pack holds exactly what a fresh bake would.
func (r *CheckResult) OK() bool { return len(r.Diffs) == 0 }

// Check bakes the catalog at catalogPath and compares the result with the
// pack at packPath, entry by entry. A missing pack file differs in every
// entry; a pack that does not decode is an error.
func Check(ctx context.Context, catalogPath, packPath string, opts Options) (CheckResult, error) {
	fresh, rep, err := Bake(ctx, catalogPath, opts)
	if err != nil {
		return CheckResult{}, err
	}
	old, err := os.ReadFile(packPath)
	if os.IsNotExist(err) {
		old = nil
	} else if err != nil {
		return CheckResult{}, fmt.Errorf("bake: %w", err)
	}
	res, err := ComparePacks(old, fresh)
	res.Report = rep
	if err != nil {
		return res, fmt.Errorf("bake: %s: %w", packPath, err)
	}
	return res, nil
}

// ComparePacks compares pack file bytes old (nil: no pack) with fresh.
func ComparePacks(old, fresh []byte) (CheckResult, error) {
	res := CheckResult{Identical: old != nil && bytes.Equal(old, fresh)}
	fp, err := meshpack.Decode(fresh)
	if err != nil {
		return res, err
	}
	op := &meshpack.Pack{Family: fp.Family}
	if old != nil {
		if op, err = meshpack.Decode(old); err != nil {
			return res, err
		}
	}
	if op.Family != fp.Family {
		res.Diffs = append(res.Diffs, Diff{"", fmt.Sprintf("the pack is %s, the catalog bakes a %s pack", op.Family, fp.Family)})
		return res, nil
	}
	oldAt := map[string]int{}
	for i, e := range op.Entries {
		oldAt[e.Name] = i
	}
	inFresh := map[string]bool{}
	for i := range fp.Entries {
		fe := &fp.Entries[i]
		inFresh[fe.Name] = true
		j, ok := oldAt[fe.Name]
		if !ok {
			res.Diffs = append(res.Diffs, Diff{fe.Name, "missing from the pack"})
			continue
		}
		if why := entryDiff(op.Family, &op.Entries[j], fe); why != "" {
			res.Diffs = append(res.Diffs, Diff{fe.Name, why})
		}
	}
	for _, e := range op.Entries {
		if !inFresh[e.Name] {
			res.Diffs = append(res.Diffs, Diff{e.Name, "in the pack but not in the catalog"})
		}
	}
	if len(res.Diffs) == 0 && old != nil {
		a, _ := meshpack.Decompress(old, 0)
		b, _ := meshpack.Decompress(fresh, 0)
		if !bytes.Equal(a, b) {
			res.Diffs = append(res.Diffs, Diff{"", "same entries in a different order"})
		}
	}
	return res, nil
}

// entryDiff says how a differs from b, or "" when they are equal.
func entryDiff(f meshpack.Family, a, b *meshpack.Entry) string {
	ea, err1 := meshpack.Encode(&meshpack.Pack{Family: f, Entries: []meshpack.Entry{*a}})
	eb, err2 := meshpack.Encode(&meshpack.Pack{Family: f, Entries: []meshpack.Entry{*b}})
	if err1 == nil && err2 == nil && bytes.Equal(ea, eb) {
		return ""
	}
	switch {
	case a.VertexCount() != b.VertexCount() || len(a.Indices) != len(b.Indices):
		return fmt.Sprintf("pack has %d vertices / %d triangles, fresh bake %d / %d",
			a.VertexCount(), len(a.Indices)/3, b.VertexCount(), len(b.Indices)/3)
	case len(a.Ranges) != len(b.Ranges):
		return fmt.Sprintf("pack has %d material ranges, fresh bake %d", len(a.Ranges), len(b.Ranges))
	case a.Bounds != b.Bounds:
		return "bounding sphere differs"
	}
	return "vertex or index data differs"
}
