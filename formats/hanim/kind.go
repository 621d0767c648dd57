package hanim

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/meshcook/meshcook/formats/format"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/mesh"
)

// Format describes .hanim for formats/kinds. Validate also checks every
// channel's joint and morph target against the .hmesh with the same stem
// beside it, when there is one (cook writes them together).
func Format() format.Description {
	return format.Description{
		Name:   "hanim",
		Magic:  []byte("HANM"),
		Decode: func(b []byte) (any, error) { return Decode(b) }, // Decode validates
		Validate: func(path string, b []byte) error {
			clips, err := Decode(b)
			if err != nil {
				return err
			}
			return CheckBeside(path, clips)
		},
		Summarize: func(path string, b []byte) (format.Summary, error) {
			clips, err := Decode(b)
			if err != nil {
				return nil, err
			}
			return Summarize(path, clips), nil
		},
		Dump: func(w io.Writer, _ string, b []byte) error {
			clips, err := Decode(b)
			if err != nil {
				return err
			}
			return Dump(w, clips)
		},
	}
}

// Summary is `inspect` of a .hanim.
type Summary struct {
	File  string        `json:"file"`
	Kind  string        `json:"kind"`
	Clips []ClipSummary `json:"clips"`
}

// ClipSummary is one clip.
type ClipSummary struct {
	Name     string  `json:"name"`
	Duration float32 `json:"duration"` // seconds
	Channels int     `json:"channels"`
	Keys     int     `json:"keys"`   // over all channels
	Joints   int     `json:"joints"` // distinct joints animated
	// Translation, Rotation and Scale count channels by path; Step counts
	// step channels (the others are linear).
	Translation int `json:"translation"`
	Rotation    int `json:"rotation"`
	Scale       int `json:"scale"`
	// Weights counts morph-weight channels (path 3, one per submesh).
	Weights int `json:"weights"`
	Step    int `json:"step"`
}

// CheckBeside checks the clips against the skeleton of the sibling
// .hmesh (path with .hanim replaced by .hmesh), if that file exists.
func CheckBeside(path string, clips []Clip) error {
	sib := strings.TrimSuffix(path, ".hanim") + ".hmesh"
	if sib == path+".hmesh" {
		return nil // not named *.hanim: no sibling to check against
	}
	b, err := os.ReadFile(sib)
	if err != nil {
		return nil
	}
	f, err := hmesh.Decode(b)
	if err != nil {
		return fmt.Errorf("sibling %s: %w", sib, err)
	}
	if err := CheckJoints(clips, len(f.Joints)); err != nil {
		return fmt.Errorf("against %s: %w", sib, err)
	}
	targets := make([]int, len(f.Submeshes))
	if f.Morphs != nil {
		for i, r := range f.Morphs.Ranges {
			targets[i] = int(r.Count)
		}
	}
	if err := CheckTargets(clips, targets); err != nil {
		return fmt.Errorf("against %s: %w", sib, err)
	}
	return nil
}

// Summarize counts each clip's channels and keys.
func Summarize(path string, clips []Clip) *Summary {
	s := &Summary{File: path, Kind: "hanim", Clips: []ClipSummary{}}
	for _, c := range clips {
		cs := ClipSummary{Name: c.Name, Duration: c.Duration, Channels: len(c.Channels)}
		joints := map[uint32]bool{}
		for _, h := range c.Channels {
			cs.Keys += len(h.Times)
			if h.Path != mesh.PathWeights {
				joints[h.Joint] = true
			}
			switch h.Path {
			case mesh.PathWeights:
				cs.Weights++
			case mesh.PathTranslation:
				cs.Translation++
			case mesh.PathRotation:
				cs.Rotation++
			case mesh.PathScale:
				cs.Scale++
			}
			if h.Interp == InterpStep {
				cs.Step++
			}
		}
		cs.Joints = len(joints)
		s.Clips = append(s.Clips, cs)
	}
	return s
}

// WriteText prints the human summary.
func (s *Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s: hanim v1, %d clips\n", s.File, len(s.Clips))
	for i, c := range s.Clips {
		if _, err := fmt.Fprintf(w, "  [%d] %q %.4gs: %d channels (%d translation, %d rotation, %d scale, %d morph weights; %d step) on %d joints, %d keys\n",
			i, c.Name, c.Duration, c.Channels, c.Translation, c.Rotation, c.Scale, c.Weights, c.Step, c.Joints, c.Keys); err != nil {
			return err
		}
	}
	return nil
}
