package cook

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/meshcook/meshcook/formats/format"
	"github.com/meshcook/meshcook/formats/kinds"
	"github.com/meshcook/meshcook/mesh"
)

// SourceInfo is what a cook would see of one source, for `meshcook
// validate` and `inspect` on sources (before canonicalization: triangles
// as imported). The JSON field names are a contract, like the cook report's.
type SourceInfo struct {
	Source string `json:"file"` // "file" as in every inspect summary
	Kind   string `json:"kind"` // "gltf", "fbx", "nwb", "heightfield"
	// DrawsBefore is the imported submesh count (one per primitive
	// instance), Draws what draw merging leaves (mesh.MergeDraws).
	DrawsBefore int `json:"drawsBefore"`
	Draws       int `json:"draws"`
	Vertices    int `json:"vertices"`
	Triangles   int `json:"triangles"`
	Materials   int `json:"materials"`
	Images      int `json:"images"`
	Joints      int `json:"joints"`
	// MorphTargets sums the submeshes' targets; Skinned counts submeshes
	// with influences.
	MorphTargets int `json:"morphTargets"`
	Skinned      int `json:"skinned"`
	// Clips is the animation count, EmptyClips those without a channel,
	// Channels their channels (joint and morph-weight).
	Clips      int          `json:"clips"`
	EmptyClips int          `json:"emptyClips"`
	Channels   int          `json:"channels"`
	Warnings   []string     `json:"warnings"`
	Dropped    []DropReport `json:"dropped"`
}

// InspectSource imports path with the importer a cook would use (Options'
// StrictPaths applies) and summarizes the scene. The error is the one the
// cook would report for the source (an InputError case: exit 3).
func InspectSource(path string, opts Options) (*SourceInfo, error) {
	job := Job{Source: path, Root: filepath.Dir(path), Rel: filepath.Base(path)}
	scene, err := importSource(job, opts)
	if err != nil {
		return nil, err
	}
	kind := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	switch {
	case IsHeightfieldSource(path):
		kind = "heightfield"
	case kind == "glb":
		kind = "gltf"
	}
	info := &SourceInfo{Source: path, Kind: kind, Materials: len(scene.Materials), Images: len(scene.Images),
		Warnings: append([]string{}, scene.Warnings...), Dropped: dropReports(job, scene.Drops), Clips: len(scene.Animations)}
	if info.Dropped == nil {
		info.Dropped = []DropReport{}
	}
	if scene.Skeleton != nil {
		info.Joints = len(scene.Skeleton.Joints)
	}
	info.DrawsBefore = len(scene.Submeshes)
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		info.Vertices += len(s.Positions)
		info.Triangles += s.TriangleCount()
		info.MorphTargets += len(s.Morphs)
		if s.Joints != nil {
			info.Skinned++
		}
	}
	// Canonicalization drops degenerate triangles: a source left with
	// none writes no mesh, as the cook says in its drop (cookJob).
	kept := 0
	for i := range scene.Submeshes {
		s := scene.Submeshes[i] // a shallow copy: DropDegenerate replaces Indices only
		mesh.DropDegenerate(&s)
		kept += s.TriangleCount()
	}
	if kept == 0 {
		d := DropReport{Source: job.Rel, What: EmptyDrop, Count: 1}
		info.Dropped = append(info.Dropped, d)
		info.Warnings = append(info.Warnings, fmt.Sprintf("dropped %d %s", d.Count, d.What))
	}
	for _, a := range scene.Animations {
		info.Channels += len(a.Channels)
		if len(a.Channels) == 0 {
			info.EmptyClips++
		}
	}
	mesh.MergeDraws(scene)
	info.Draws = len(scene.Submeshes)
	return info, nil
}

// SourceImporter is how validate and inspect read glTF and FBX sources
// (formats/kinds): InspectSource with opts.
func SourceImporter(opts Options) kinds.Importer {
	return func(path string) (format.Summary, error) {
		info, err := InspectSource(path, opts)
		if err != nil {
			return nil, err
		}
		return info, nil
	}
}

// WriteText prints String.
func (s *SourceInfo) WriteText(w io.Writer) error {
	_, err := io.WriteString(w, s.String())
	return err
}

// String is the one-paragraph summary `inspect` prints.
func (s *SourceInfo) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s source: %d draws (%d submeshes before merging), %d vertices, %d triangles, %d materials, %d images\n",
		s.Source, s.Kind, s.Draws, s.DrawsBefore, s.Vertices, s.Triangles, s.Materials, s.Images)
	fmt.Fprintf(&b, "  skin: %d joints, %d skinned submeshes; morphs: %d targets; clips: %d (%d empty), %d channels\n",
		s.Joints, s.Skinned, s.MorphTargets, s.Clips, s.EmptyClips, s.Channels)
	for _, d := range s.Dropped {
		fmt.Fprintf(&b, "  dropped: %d %s (%s)\n", d.Count, d.What, d.Source)
	}
	for _, w := range s.Warnings {
		if !strings.HasPrefix(w, "dropped ") {
			fmt.Fprintf(&b, "  warning: %s\n", w)
		}
	}
	return b.String()
}
