package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/cook"
	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/hanim"
	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/formats/msh7"
	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/internal/atomicfile"
	"github.com/meshcook/meshcook/internal/geomerr"
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
	o := preview.Options{View: v, Yaw: p.yaw, Pitch: p.pitch, Size: p.size}
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
		return err
	}
	only := func(flag, value, kinds string) error {
		if value != "" {
			return usageError("inspect: --%s is for %s, not a %s file", flag, kinds, k.name)
		}
		return nil
	}
	if err := errors.Join(
		only("resource", gate(k.name != "cnb", p.resource), ".cnb worlds"),
		only("entry", gate(k.name != "meshpack", p.entry), "mesh packs"),
		only("clip", gate(k.name != "hmesh", p.clip), "skinned .hmesh files"),
	); err != nil {
		return err
	}
	var img *image.RGBA
	switch k.name {
	case "hmesh":
		img, err = pngHMesh(ctx, path, b, p, o)
	case "msh7":
		img, err = pngMSH7(ctx, b, o)
	case "payload", "skmv":
		m, perr := payloadModel(b, k.name == "skmv")
		if perr != nil {
			return withCode(ExitBadInput, fmt.Errorf("inspect: %s: %w", path, perr))
		}
		img, err = preview.Render(ctx, m, o)
	case "cnb":
		img, err = pngWorld(ctx, path, b, p.resource, o)
	case "meshpack":
		img, err = pngPack(ctx, b, p.entry, o)
	default:
		return usageError("inspect: --png draws .hmesh, .msh7, .cnb worlds, mesh payloads and mesh packs, not a %s file", k.name)
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
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

// hmeshModel decodes a .hmesh into a model with its LOD errors measured
// as inspect reports them (summarizeLODs).
func hmeshModel(b []byte) (*hmesh.File, *preview.Model, error) {
	f, err := hmesh.Decode(b)
	if err != nil {
		return nil, nil, err
	}
	m, err := preview.FromHMesh(f)
	if err != nil {
		return nil, nil, err
	}
	for i, l := range summarizeLODs(f) {
		if i < len(m.LODs) {
			m.LODs[i].Error = l.Error
			m.LODs[i].Stalled = l.Stalled == len(f.Submeshes)
		}
	}
	return f, m, nil
}

func pngHMesh(ctx context.Context, path string, b []byte, p pngFlags, o preview.Options) (*image.RGBA, error) {
	f, m, err := hmeshModel(b)
	if err != nil {
		return nil, err
	}
	if p.clip != "" {
		clip, err := clipBeside(path, p.clip)
		if err != nil {
			return nil, err
		}
		if err := preview.Pose(m, f, clip, p.time); err != nil {
			return nil, err
		}
		o.Title = fmt.Sprintf("%s @ %gs", p.clip, p.time)
	}
	return preview.Render(ctx, m, o)
}

// clipBeside reads the .hanim with the same stem as the .hmesh at path
// (cook writes them together) and returns the clip named name.
func clipBeside(path, name string) (*hanim.Clip, error) {
	ap := strings.TrimSuffix(path, filepath.Ext(path)) + ".hanim"
	b, err := os.ReadFile(ap)
	if err != nil {
		return nil, withCode(ExitBadInput, fmt.Errorf("inspect: --clip: %s: %w", ap, unwrapPath(err)))
	}
	clips, err := hanim.Decode(b)
	if err != nil {
		return nil, withCode(ExitBadInput, fmt.Errorf("inspect: --clip: %s: %w", ap, err))
	}
	names := make([]string, 0, len(clips))
	for i := range clips {
		if clips[i].Name == name {
			return &clips[i], nil
		}
		names = append(names, strconv.Quote(clips[i].Name))
	}
	// "#N" names the N-th clip (for clips without a name).
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "#")); err == nil && strings.HasPrefix(name, "#") && n >= 0 && n < len(clips) {
		return &clips[n], nil
	}
	return nil, usageError("inspect: --clip %q: %s has no such clip (clips: %s; #0 to #%d pick by position)", name, ap, strings.Join(names, ", "), len(clips)-1)
}

func pngMSH7(ctx context.Context, b []byte, o preview.Options) (*image.RGBA, error) {
	f, err := msh7.Decode(b)
	if err != nil {
		return nil, err
	}
	m, err := preview.FromMSH7(f)
	if err != nil {
		return nil, err
	}
	return preview.Render(ctx, m, o)
}

// payloadModel decodes a static or skinned mesh_payload and measures its
// alternate levels' error as inspect does for .hmesh LODs.
func payloadModel(b []byte, skinned bool) (*preview.Model, error) {
	var m *preview.Model
	if skinned {
		p, err := payload.DecodeSkinnedWithLODs(b)
		if err != nil {
			return nil, err
		}
		m = preview.FromSkinnedPayload(p)
	} else {
		p, err := payload.Parse(b)
		if err != nil {
			return nil, err
		}
		m = preview.FromPayload(p)
	}
	if diag := geomerr.Extent(m.Positions, m.Triangles); diag > 0 {
		for i := range m.LODs {
			m.LODs[i].Error = lodError(m.Positions, m.Triangles, m.LODs[i].Triangles, diag)
		}
	}
	return m, nil
}

// worldMesh is one mesh resource of a world, named as the lock names it.
type worldMesh struct {
	name    string
	skinned bool
	body    []byte
}

// pngWorld draws one mesh resource of a .cnb world (--resource), or a
// contact sheet of every mesh resource.
func pngWorld(ctx context.Context, path string, b []byte, resource string, o preview.Options) (*image.RGBA, error) {
	meshes, err := worldMeshes(path, b)
	if err != nil {
		return nil, err
	}
	if len(meshes) == 0 {
		return nil, errors.New("world has no mesh resources to draw")
	}
	if resource == "" {
		var entries []preview.Entry
		for _, wm := range meshes {
			m, err := payloadModel(wm.body, wm.skinned)
			if err != nil {
				return nil, fmt.Errorf("resource %s: %w", wm.name, err)
			}
			entries = append(entries, preview.Entry{Name: wm.name, Model: m})
		}
		return preview.Sheet(ctx, entries, o)
	}
	names := make([]string, 0, len(meshes))
	for _, wm := range meshes {
		if wm.name == resource {
			m, err := payloadModel(wm.body, wm.skinned)
			if err != nil {
				return nil, fmt.Errorf("resource %s: %w", wm.name, err)
			}
			o.Title = wm.name
			return preview.Render(ctx, m, o)
		}
		names = append(names, wm.name)
	}
	return nil, usageError("inspect: --resource %q: no such mesh resource in %s (meshes: %s)", resource, path, strings.Join(names, ", "))
}

// worldMeshes returns the Mesh and SkinnedMesh resources of the world whose
// blob 0 is b, sorted by name: names come from the world-lock.json beside
// the blobs, or are "Mesh:<handle>" without one.
func worldMeshes(path string, b []byte) ([]worldMesh, error) {
	meta, err := checkWorldBlob(path, b)
	if err != nil {
		return nil, err
	}
	if meta.IsEmpty() && filepath.Base(path) != "0" {
		return nil, errors.New("an overflow blob holds no resource table: name the world's blob 0")
	}
	sections := [][]byte{}
	dir := filepath.Dir(path)
	for i := 0; i <= int(meta.Manifest.MaxBlobIndex); i++ {
		img := b
		if i > 0 {
			if img, err = os.ReadFile(filepath.Join(dir, strconv.Itoa(i))); err != nil {
				return nil, fmt.Errorf("overflow blob %d: %w", i, unwrapPath(err))
			}
		}
		_, sec, err := cnb.ParseBlob(img)
		if err != nil {
			return nil, fmt.Errorf("blob %d: %w", i, err)
		}
		sections = append(sections, sec)
	}
	names := map[[2]uint32]string{}
	if l := lockBeside(path); l != nil {
		for _, r := range l.Resources {
			k, _ := cnb.ParseResourceKind(r.Kind)
			names[[2]uint32{uint32(k), r.Handle}] = r.Name
		}
	}
	var out []worldMesh
	for _, r := range meta.Resources {
		if (r.Kind != cnb.Mesh && r.Kind != cnb.SkinnedMesh) || r.Payload == nil {
			continue
		}
		name := names[[2]uint32{uint32(r.Kind), r.Handle}]
		if name == "" {
			name = fmt.Sprintf("%s:%d", r.Kind, r.Handle)
		}
		loc := r.Payload // checkWorldBlob validated every locator
		out = append(out, worldMesh{name: name, skinned: r.Kind == cnb.SkinnedMesh, body: sections[loc.BlobIndex][loc.Offset : loc.Offset+loc.Len]})
	}
	slices.SortStableFunc(out, func(a, b worldMesh) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// pngPack draws one entry of a mesh pack (--entry), or a contact sheet of
// every entry.
func pngPack(ctx context.Context, b []byte, entry string, o preview.Options) (*image.RGBA, error) {
	p, err := meshpack.DecodeLimit(b, maxPackBytes)
	if err != nil {
		return nil, err
	}
	if entry == "" {
		entries := make([]preview.Entry, 0, len(p.Entries))
		for i := range p.Entries {
			entries = append(entries, preview.Entry{Name: p.Entries[i].Name, Model: preview.FromPackEntry(&p.Entries[i])})
		}
		return preview.Sheet(ctx, entries, o)
	}
	names := make([]string, 0, len(p.Entries))
	for i := range p.Entries {
		if p.Entries[i].Name == entry {
			o.Title = entry
			return preview.Render(ctx, preview.FromPackEntry(&p.Entries[i]), o)
		}
		names = append(names, p.Entries[i].Name)
	}
	return nil, usageError("inspect: --entry %q: no such entry (entries: %s)", entry, strings.Join(names, ", "))
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
		var img *image.RGBA
		if out.Kind == "hmesh" {
			var m *preview.Model
			if _, m, err = hmeshModel(b); err == nil {
				img, err = preview.Render(ctx, m, o)
			}
		} else {
			img, err = pngMSH7(ctx, b, o)
		}
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
