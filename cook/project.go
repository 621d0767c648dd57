package cook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// ProjectFileName is the project file `meshcook cook` recognises as a PATH.
const ProjectFileName = "meshcook.json"

// maxProjectBytes bounds a project file read into memory.
const maxProjectBytes = 16 << 20

// Project is a meshcook.json project file (docs/project.md). Unknown
// fields are errors, so a typo never silently changes a cook.
type Project struct {
	// Dir is the folder holding the project file: source globs are
	// relative to it and stable names are derived from paths below it.
	Dir string `json:"-"`
	// Path is the project file as given.
	Path string `json:"-"`

	Sources []string        `json:"sources"`
	Targets []string        `json:"targets,omitempty"`
	Options *ProjectOptions `json:"options,omitempty"`
	Scenes  []SceneSpec     `json:"scenes,omitempty"`
	// RemoteCache is the default of `cook --remote-cache`: a shared cache
	// URL (Bazel's HTTP cache protocol). Headers (credentials) are flags
	// only, so they stay out of a committed file.
	RemoteCache string `json:"remoteCache,omitempty"`
}

// ProjectOptions are the cook options a project may set; nil fields keep
// the defaults (or the command line's flags).
type ProjectOptions struct {
	MeshletMaxVertices  *int        `json:"meshletMaxVertices,omitempty"`
	MeshletMaxTriangles *int        `json:"meshletMaxTriangles,omitempty"`
	ConeWeight          *float32    `json:"coneWeight,omitempty"`
	LODRatios           []float32   `json:"lodRatios,omitempty"` // [] = no LODs
	LODError            *float32    `json:"lodError,omitempty"`
	LODDistances        []float32   `json:"lodDistances,omitempty"`
	LODWeights          *LODWeights `json:"lodWeights,omitempty"`
	LODLockBorder       *bool       `json:"lodLockBorder,omitempty"`
	LODPermissive       *bool       `json:"lodPermissive,omitempty"`
	LODSloppy           *bool       `json:"lodSloppy,omitempty"`
	// LODBySource sets LOD options for the sources matching each entry's
	// globs, over the options above; later entries win.
	LODBySource []LODOverride    `json:"lodBySource,omitempty"`
	BlobCeiling *uint64          `json:"blobCeiling,omitempty"`
	StrictPaths *bool            `json:"strictPaths,omitempty"` // Options.StrictPaths
	ClusterLOD  *bool            `json:"clusterLod,omitempty"`  // Options.ClusterLOD
	Textures    *ProjectTextures `json:"textures,omitempty"`
}

// ProjectTextures are the texture options of a project file; each one
// given replaces the default (TextureOptions; docs/textures.md).
type ProjectTextures struct {
	Mode    *string           `json:"mode,omitempty"`    // rgba8, uastc, etc1s or auto
	Quality *int              `json:"quality,omitempty"` // 1..100
	MaxSize *int              `json:"maxSize,omitempty"` // 0 = no limit
	Slots   map[string]string `json:"slots,omitempty"`   // slot name → mode
}

// IsProjectFile reports whether p names a project file (by its base name).
func IsProjectFile(p string) bool { return filepath.Base(p) == ProjectFileName }

// LoadProject reads and checks a project file. Every error is an
// *InputError naming the file.
func LoadProject(p string) (*Project, error) {
	bad := func(err error) error { return &InputError{Path: p, Err: err} }
	st, err := os.Stat(p)
	if err != nil {
		return nil, bad(unwrapPathError(err))
	}
	if st.Size() > maxProjectBytes {
		return nil, bad(fmt.Errorf("%d bytes is larger than the %d-byte limit for a project file", st.Size(), maxProjectBytes))
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, bad(unwrapPathError(err))
	}
	pr, err := ParseProject(b)
	if err != nil {
		return nil, bad(err)
	}
	pr.Path, pr.Dir = p, filepath.Dir(p)
	return pr, nil
}

// ParseProject decodes and checks project JSON.
func ParseProject(b []byte) (*Project, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var pr Project
	if err := dec.Decode(&pr); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("project: byte %d: %w", se.Offset, err)
		}
		return nil, fmt.Errorf("project: %w", err)
	}
	if dec.More() {
		return nil, errors.New("project: data after the JSON object")
	}
	if len(pr.Sources) == 0 {
		return nil, errors.New("project: sources: name at least one glob")
	}
	for i, g := range pr.Sources {
		if err := checkGlob(g); err != nil {
			return nil, fmt.Errorf("project: sources[%d]: %w", i, err)
		}
	}
	if pr.RemoteCache != "" {
		if _, err := OpenRemote(RemoteOptions{URL: pr.RemoteCache}); err != nil {
			return nil, fmt.Errorf("project: remoteCache: %w", err)
		}
	}
	opts := DefaultOptions()
	if err := pr.Apply(&opts); err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("project: %w", err)
	}
	return &pr, nil
}

// Apply copies the project's targets, options and scenes over opts.
func (pr *Project) Apply(opts *Options) error {
	if len(pr.Targets) > 0 {
		opts.Targets = append([]string(nil), pr.Targets...)
	}
	opts.Scenes = append([]SceneSpec(nil), pr.Scenes...)
	o := pr.Options
	if o == nil {
		return nil
	}
	if o.MeshletMaxVertices != nil {
		opts.Meshlet.MaxVertices = *o.MeshletMaxVertices
	}
	if o.MeshletMaxTriangles != nil {
		opts.Meshlet.MaxTriangles = *o.MeshletMaxTriangles
	}
	if o.ConeWeight != nil {
		opts.Meshlet.ConeWeight = *o.ConeWeight
	}
	if o.LODRatios != nil {
		opts.LOD.Ratios = append([]float32{}, o.LODRatios...)
	}
	if o.LODError != nil {
		opts.LOD.Error = *o.LODError
	}
	if o.LODDistances != nil {
		opts.LOD.Distances = append([]float32{}, o.LODDistances...)
	}
	opts.LOD.applyWeights(o.LODWeights)
	if o.LODLockBorder != nil {
		opts.LOD.LockBorder = *o.LODLockBorder
	}
	if o.LODPermissive != nil {
		opts.LOD.Permissive = *o.LODPermissive
	}
	if o.LODSloppy != nil {
		opts.LOD.Sloppy = *o.LODSloppy
	}
	if o.LODBySource != nil {
		opts.LOD.BySource = append([]LODOverride(nil), o.LODBySource...)
	}
	if o.BlobCeiling != nil {
		opts.BlobCeiling = *o.BlobCeiling
	}
	if o.ClusterLOD != nil {
		opts.ClusterLOD = *o.ClusterLOD
	}
	if o.StrictPaths != nil {
		opts.StrictPaths = *o.StrictPaths
	}
	if t := o.Textures; t != nil {
		if t.Mode != nil {
			opts.Textures.Mode = *t.Mode
		}
		if t.Quality != nil {
			opts.Textures.Quality = *t.Quality
		}
		if t.MaxSize != nil {
			opts.Textures.MaxSize = *t.MaxSize
		}
		if t.Slots != nil {
			opts.Textures.Slots = maps.Clone(t.Slots)
		}
	}
	return nil
}

// Plan walks the project folder (skipping folders whose name starts with
// a dot) and returns a job for every source file matching one of the
// source globs, named by its path below the folder,
// sorted by name. A glob that matches no source is an error (a typo
// would otherwise drop assets from the world), and so is a scene glob
// that matches no planned source.
func (pr *Project) Plan() ([]Job, error) {
	bad := func(err error) error { return &InputError{Path: pr.Path, Err: err} }
	var jobs []Job
	hits := make([]int, len(pr.Sources))
	err := filepath.WalkDir(pr.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &InputError{Path: p, Err: unwrapPathError(err)}
		}
		if d.IsDir() {
			if p != pr.Dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir // .git, .meshcook-cache, editor folders
			}
			return nil
		}
		if !IsSource(p) {
			return nil
		}
		rel, err := filepath.Rel(pr.Dir, p)
		if err != nil {
			return &InputError{Path: p, Err: err}
		}
		rel = filepath.ToSlash(rel)
		matched := false
		for i, g := range pr.Sources {
			if matchGlob(g, rel) {
				hits[i]++
				matched = true
			}
		}
		if matched {
			jobs = append(jobs, newJob(pr.Dir, p, rel))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i, n := range hits {
		if n == 0 {
			return nil, bad(fmt.Errorf("sources[%d] %q matches no source file under %s", i, pr.Sources[i], pr.Dir))
		}
	}
	for i, sc := range pr.Scenes {
		for _, g := range sc.Sources {
			found := false
			for _, j := range jobs {
				if matchGlob(g, j.Rel) {
					found = true
					break
				}
			}
			if !found {
				return nil, bad(fmt.Errorf("scenes[%d] (%s): %q matches none of the project's sources", i, sc.Name, g))
			}
		}
	}
	return SortJobs(jobs)
}

// SortJobs sorts jobs by output name (then source) and refuses two that
// would write the same output, names equal but for case (case-insensitive
// file systems): the one collision check of Plan, PlanRooted, projects
// and `meshcook plan`.
func SortJobs(jobs []Job) ([]Job, error) {
	sort.Slice(jobs, func(i, j int) bool { return lessJob(jobs[i], jobs[j]) })
	for i := 1; i < len(jobs); i++ {
		if strings.EqualFold(jobs[i].Name, jobs[i-1].Name) {
			return nil, &InputError{Path: jobs[i].Source, Err: fmt.Errorf("writes the same output %q as %s; rename one of them", jobs[i].Name, jobs[i-1].Source)}
		}
	}
	return jobs, nil
}

func lessJob(a, b Job) bool {
	if a.Name != b.Name {
		return a.Name < b.Name
	}
	return a.Source < b.Source
}

// checkGlob refuses a glob that is malformed or could leave the project
// folder: absolute, empty, or with a ".." element.
func checkGlob(g string) error {
	if g == "" {
		return errors.New("empty glob")
	}
	if strings.HasPrefix(g, "/") || filepath.IsAbs(g) || strings.Contains(g, `\`) {
		return fmt.Errorf("glob %q: want a '/'-separated path relative to the project folder", g)
	}
	for _, seg := range strings.Split(g, "/") {
		if seg == ".." || seg == "." || seg == "" {
			return fmt.Errorf("glob %q: empty, \".\" or \"..\" elements are not allowed", g)
		}
		if seg == "**" {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("glob %q: %w", g, err)
		}
	}
	return nil
}

// matchGlob matches a '/'-separated relative path against a glob: each
// element as path.Match does, and an element "**" matching zero or more
// whole elements. Matching is case-sensitive.
func matchGlob(g, name string) bool {
	return matchSegs(strings.Split(g, "/"), strings.Split(name, "/"))
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for k := 0; k <= len(name); k++ {
				if matchSegs(pat[1:], name[k:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// matchAny reports whether name matches one of the globs.
func matchAny(globs []string, name string) bool {
	for _, g := range globs {
		if matchGlob(g, name) {
			return true
		}
	}
	return false
}
