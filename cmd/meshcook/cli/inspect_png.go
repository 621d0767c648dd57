package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/internal/atomicfile"
	"github.com/meshcook/meshcook/internal/preview"
)

// pngFlags are inspect's picture flags.
type pngFlags struct {
	out        string
	view       string
	yaw, pitch float64
	size       int
	resource   string
	entry      string
	clip       string
	time       float64
	timeSet    bool
	cutError   float64 // --error with --png: the cut panel's threshold
}

func addPNGFlags(cmd *cobra.Command, p *pngFlags) {
	views := make([]string, 0, len(preview.Views()))
	for _, v := range preview.Views() {
		views = append(views, string(v))
	}
	fl := cmd.Flags()
	fl.StringVar(&p.out, "png", "", "draw a picture of the mesh into this PNG file")
	fl.StringVar(&p.view, "view", "", "with --png: draw one panel set: "+strings.Join(views, "|")+" (default LOD0, meshlets and LODs)")
	fl.Float64Var(&p.yaw, "yaw", p.yaw, "with --png: camera turn about +Y in degrees")
	fl.Float64Var(&p.pitch, "pitch", p.pitch, "with --png: camera height above the horizon in degrees (-90 to 90)")
	fl.IntVar(&p.size, "size", p.size, fmt.Sprintf("with --png: panel side in pixels (%d to %d)", preview.MinSize, preview.MaxSize))
	fl.StringVar(&p.resource, "resource", "", "with --png on a .cnb world: the mesh resource to draw (default: a sheet of all)")
	fl.StringVar(&p.entry, "entry", "", "with --png on a mesh pack: the entry to draw (default: a sheet of all)")
	fl.StringVar(&p.clip, "clip", "", "with --png on a skinned .hmesh: pose it with this clip of the .hanim beside it")
	fl.Float64Var(&p.time, "time", 0, "with --clip: the clip time in seconds")
}

// pngOnlyFlags refuses picture flags given without --png.
func pngOnlyFlags(cmd *cobra.Command) error {
	for _, name := range []string{"view", "yaw", "pitch", "size", "resource", "entry", "clip", "time"} {
		if cmd.Flags().Changed(name) {
			return usageError("inspect: --%s needs --png OUT.png", name)
		}
	}
	return nil
}

// options checks the flags that do not depend on the file and returns the
// picture options.
func (p pngFlags) options() (preview.Options, error) {
	v, err := preview.ParseView(p.view)
	if err != nil {
		return preview.Options{}, usageError("inspect: --view: %v", err)
	}
	o := preview.Options{View: v, Yaw: p.yaw, Pitch: p.pitch, Size: p.size, CutError: p.cutError}
	if err := o.Validate(); err != nil {
		return preview.Options{}, usageError("inspect: %v", err)
	}
	if p.timeSet && p.clip == "" {
		return preview.Options{}, usageError("inspect: --time needs --clip NAME")
	}
	if !(p.time >= 0) {
		return preview.Options{}, usageError("inspect: --time %v: want seconds >= 0", p.time)
	}
	return o, nil
}

// runInspectPNG draws the file named by path into p.out and prints one
// line naming the picture and its size.
func runInspectPNG(ctx context.Context, stdout io.Writer, path string, p pngFlags) error {
	o, err := p.options()
	if err != nil {
		return err
	}
	b, k, err := readKind(path)
	if err != nil {
		return withCode(ExitBadInput, fmt.Errorf("inspect: %s: %w", path, err))
	}
	only := func(flag, value, kinds string) error {
		if value != "" {
			return usageError("inspect: --%s is for %s, not a %s file", flag, kinds, k.Name)
		}
		return nil
	}
	if err := errors.Join(
		only("resource", gate(k.Name != "cnb", p.resource), ".cnb worlds"),
		only("entry", gate(k.Name != "meshpack", p.entry), "mesh packs"),
		only("clip", gate(k.Name != "hmesh", p.clip), "skinned .hmesh files"),
	); err != nil {
		return err
	}
	img, err := preview.DrawFile(ctx, k.Name, path, b, preview.Pick{Resource: p.resource, Entry: p.entry, Clip: p.clip, Time: p.time}, o)
	var pe *preview.PickError
	switch {
	case errors.Is(err, preview.ErrKind):
		return usageError("inspect: --png draws .hmesh, .msh7, .cnb worlds, mesh payloads and mesh packs, not a %s file", k.Name)
	case errors.As(err, &pe):
		return usageError("inspect: %v", pe)
	case err != nil:
		return withCode(ExitBadInput, fmt.Errorf("inspect: %s: %w", path, err))
	}
	var buf bytes.Buffer
	if err := preview.EncodePNG(&buf, img); err != nil {
		return withCode(ExitOutput, fmt.Errorf("inspect: %s: %w", p.out, err))
	}
	if err := atomicfile.Write(p.out, buf.Bytes()); err != nil {
		return withCode(ExitOutput, fmt.Errorf("inspect: %s: %w", p.out, unwrapPath(err)))
	}
	fmt.Fprintf(stdout, "%s: %d×%d pixels, %d bytes\n", p.out, img.Bounds().Dx(), img.Bounds().Dy(), buf.Len())
	return nil
}

// gate returns value when cond holds, else "".
func gate(cond bool, value string) string {
	if cond {
		return value
	}
	return ""
}

// writePreviews draws inspect --png's default picture of every .hmesh and
// .msh7 output in rep (written or unchanged) into dir/<output name>.png,
// after the cook and from the files it wrote, so previews never enter a
// cache key or change a cooked byte. A picture whose bytes did not change
// is not rewritten. An output that cannot be drawn (no triangles) is a
// warning; a picture that cannot be written is an output error.
func writePreviews(ctx context.Context, rep *cook.Report, dir string, stderr io.Writer) error {
	o := preview.DefaultOptions()
	drawn, changed := 0, 0
	defer func() {
		if drawn > 0 {
			fmt.Fprintf(stderr, "previews: %d pictures (%d changed) in %s\n", drawn, changed, dir)
		}
	}()
	for _, out := range rep.Outputs {
		if out.Kind != "hmesh" && out.Kind != "msh7" {
			continue
		}
		b, err := os.ReadFile(out.Path)
		if err != nil {
			return withCode(ExitOutput, fmt.Errorf("cook: --png-dir: %s: %w", out.Path, unwrapPath(err)))
		}
		img, err := preview.DrawFile(ctx, out.Kind, out.Path, b, preview.Pick{}, o)
		if err != nil {
			fmt.Fprintf(stderr, "warning: %s: no preview: %v\n", out.Name, err)
			continue
		}
		var buf bytes.Buffer
		if err := preview.EncodePNG(&buf, img); err != nil {
			return withCode(ExitOutput, err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(out.Name)+".png")
		ch, err := atomicfile.WriteIfChanged(dst, buf.Bytes())
		if err != nil {
			return withCode(ExitOutput, fmt.Errorf("cook: --png-dir: %s: %w", dst, unwrapPath(err)))
		}
		drawn++
		if ch {
			changed++
		}
	}
	return nil
}
