package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/meshcook/meshcook/cook"
)

// lodFlags are the simplifier controls of `cook` beyond --lods and
// --lod-error. With a project file, a flag given overrides the project's
// option and every lodBySource entry's value of it.
type lodFlags struct {
	lockBorder bool
	weights    string
	permissive bool
	sloppy     bool
}

func (l *lodFlags) add(f *pflag.FlagSet, def cook.LODOptions) {
	f.BoolVar(&l.lockBorder, "lod-lock-border", def.LockBorder, "LODs keep every open-border vertex and edge (tiles and parts that must meet their neighbours)")
	l.weights = formatWeights(def)
	f.StringVar(&l.weights, "lod-weights", l.weights, "LOD attribute weights against geometric error, comma-separated key=value (keys normal, uv, color; unnamed keys keep their value); only the source's own normals count, never generated ones")
	f.BoolVar(&l.permissive, "lod-permissive", def.Permissive, "LOD collapses may cross UV (attribute) seams, trading texture stretch for fewer triangles")
	f.BoolVar(&l.sloppy, "lod-sloppy", def.Sloppy, "when edge collapse stalls above a level's target, fall back to vertex clustering (may fold the surface; its error is in the level's error and counted in --json lods[].sloppy)")
}

// apply copies the flags that set reports given into o.
func (l *lodFlags) apply(o *cook.LODOptions, set func(string) bool) error {
	if set("lod-weights") {
		if err := parseWeights(l.weights, o); err != nil {
			return fmt.Errorf("--lod-weights: %w", err)
		}
		for i := range o.BySource {
			o.BySource[i].Weights = nil
		}
	}
	if set("lod-lock-border") {
		o.LockBorder = l.lockBorder
		for i := range o.BySource {
			o.BySource[i].LockBorder = nil
		}
	}
	if set("lod-permissive") {
		o.Permissive = l.permissive
		for i := range o.BySource {
			o.BySource[i].Permissive = nil
		}
	}
	if set("lod-sloppy") {
		o.Sloppy = l.sloppy
		for i := range o.BySource {
			o.BySource[i].Sloppy = nil
		}
	}
	return nil
}

// parseWeights reads "normal=0.5,uv=0.5,color=1" into o; keys not named
// keep their value.
func parseWeights(s string, o *cook.LODOptions) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return fmt.Errorf("%q: want key=value (keys normal, uv, color)", kv)
		}
		w, err := strconv.ParseFloat(strings.TrimSpace(v), 32)
		if err != nil {
			return fmt.Errorf("%q: %q is not a number", kv, v)
		}
		switch strings.TrimSpace(k) {
		case "normal":
			o.NormalWeight = float32(w)
		case "uv":
			o.UVWeight = float32(w)
		case "color":
			o.ColorWeight = float32(w)
		default:
			return fmt.Errorf("%q: unknown key %q (keys normal, uv, color)", kv, k)
		}
	}
	return nil
}

func formatWeights(o cook.LODOptions) string {
	f := func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
	return "normal=" + f(o.NormalWeight) + ",uv=" + f(o.UVWeight) + ",color=" + f(o.ColorWeight)
}
