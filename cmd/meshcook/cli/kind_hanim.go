package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/mesh"
)

// hanimSummary is `inspect --json` for a .hanim.
type hanimSummary struct {
	File  string        `json:"file"`
	Kind  string        `json:"kind"`
	Clips []clipSummary `json:"clips"`
}

type clipSummary struct {
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

// hanimKind reads .hanim clips. validate also checks every channel's joint
// against the SKEL of the .hmesh with the same stem beside it, when there
// is one (cook writes them together).
func hanimKind() fileKind {
	return fileKind{
		name:  "hanim",
		magic: []byte("HANM"),
		validate: func(path string, b []byte) error {
			clips, err := hanim.Decode(b) // Decode validates
			if err != nil {
				return err
			}
			return checkClipJoints(path, clips)
		},
		inspect: func(w io.Writer, path string, b []byte, mode inspectMode) error {
			clips, err := hanim.Decode(b)
			if err != nil {
				return err
			}
			switch mode {
			case inspectDump:
				return dumpHAnim(w, clips)
			case inspectJSON:
				return writeJSON(w, summarizeHAnim(path, clips))
			}
			s := summarizeHAnim(path, clips)
			fmt.Fprintf(w, "%s: hanim v1, %d clips\n", path, len(s.Clips))
			for i, c := range s.Clips {
				fmt.Fprintf(w, "  [%d] %q %.4gs: %d channels (%d translation, %d rotation, %d scale, %d morph weights; %d step) on %d joints, %d keys\n",
					i, c.Name, c.Duration, c.Channels, c.Translation, c.Rotation, c.Scale, c.Weights, c.Step, c.Joints, c.Keys)
			}
			return nil
		},
	}
}

// checkClipJoints checks the clips against the skeleton of the sibling
// .hmesh (path with .hanim replaced by .hmesh), if that file exists.
func checkClipJoints(path string, clips []hanim.Clip) error {
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
	if err := hanim.CheckJoints(clips, len(f.Joints)); err != nil {
		return fmt.Errorf("against %s: %w", sib, err)
	}
	targets := make([]int, len(f.Submeshes))
	if f.Morphs != nil {
		for i, r := range f.Morphs.Ranges {
			targets[i] = int(r.Count)
		}
	}
	if err := hanim.CheckTargets(clips, targets); err != nil {
		return fmt.Errorf("against %s: %w", sib, err)
	}
	return nil
}

func summarizeHAnim(path string, clips []hanim.Clip) hanimSummary {
	s := hanimSummary{File: path, Kind: "hanim", Clips: []clipSummary{}}
	for _, c := range clips {
		cs := clipSummary{Name: c.Name, Duration: c.Duration, Channels: len(c.Channels)}
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
			if h.Interp == hanim.InterpStep {
				cs.Step++
			}
		}
		cs.Joints = len(joints)
		s.Clips = append(s.Clips, cs)
	}
	return s
}

// dumpHAnim prints every clip, channel and key as stable text (floats in
// Go's shortest round-trip form).
func dumpHAnim(w io.Writer, clips []hanim.Clip) error {
	bw := bufio.NewWriter(w)
	paths := [...]string{"translation", "rotation", "scale", "weights"}
	interps := [...]string{"step", "linear"}
	fmt.Fprintf(bw, "hanim v%d clips %d\n", hanim.Version, len(clips))
	for ci, c := range clips {
		fmt.Fprintf(bw, "clip %d %q duration %v channels %d\n", ci, c.Name, c.Duration, len(c.Channels))
		for hi, h := range c.Channels {
			path, interp := fmt.Sprint(h.Path), fmt.Sprint(h.Interp)
			if int(h.Path) < len(paths) {
				path = paths[h.Path]
			}
			if int(h.Interp) < len(interps) {
				interp = interps[h.Interp]
			}
			fmt.Fprintf(bw, "  channel %d joint %d %s %s keys %d\n", hi, h.Joint, path, interp, len(h.Times))
			n := h.Components()
			for k, t := range h.Times {
				if (k+1)*n > len(h.Values) {
					break
				}
				fmt.Fprintf(bw, "    %v %v\n", t, h.Values[k*n:(k+1)*n])
			}
		}
	}
	return bw.Flush()
}
