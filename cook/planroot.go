package cook

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PlanRooted plans files as if their folder root had been cooked: each
// file's stable name comes from its path relative to root, so cooking
// root/models/chair.glb alone writes the same bytes under the same name
// (models/chair.hmesh) as cooking root. Build systems that run one cook per
// asset (meshcook plan --ninja) use it. Every file must lie inside root.
func PlanRooted(root string, files []string) ([]Job, error) {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, &InputError{Path: root, Err: err}
	}
	var jobs []Job
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			return nil, &InputError{Path: f, Err: fmt.Errorf("cannot read input: %w", unwrapPathError(err))}
		}
		if st.IsDir() || !IsSource(f) {
			return nil, &InputError{Path: f, Err: fmt.Errorf("not a source file (want %s)", SourceKindList)}
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, &InputError{Path: f, Err: err}
		}
		rel, err := filepath.Rel(absRoot, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, &InputError{Path: f, Err: fmt.Errorf("not inside the root %s", root)}
		}
		jobs = append(jobs, newJob(root, f, rel))
	}
	return SortJobs(jobs)
}
