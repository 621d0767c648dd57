// Package preview draws pictures of cooked meshes: it adapts each cooked
// format (.hmesh, MSH7, mesh_payload, mesh pack entries) to a Model of
// plain arrays and lays out panels (shaded, meshlets, LOD levels,
// normals, UVs, cone culling, a cluster-LOD cut coloured by level) drawn
// by internal/render. Pictures are
// deterministic: the same model and options give the same PNG bytes for
// any GOMAXPROCS (panels are drawn in parallel into disjoint regions and
// labelled in order afterwards).
package preview

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/meshcook/meshcook/internal/par"
	"github.com/meshcook/meshcook/internal/render"
)

// Defaults and limits.
const (
	// DefaultSize is a panel's side in pixels.
	DefaultSize = 384
	// MinSize keeps room for a label; MaxSize bounds one panel.
	MinSize = 64
	MaxSize = 4096
	// DefaultYaw and DefaultPitch give the 3/4 view: from the front right,
	// above the horizon.
	DefaultYaw   = 35
	DefaultPitch = 25
	// MaxPixels bounds a whole picture (a contact sheet of a large pack):
	// 64 Mpixel, 256 MiB of RGBA.
	MaxPixels = 64 << 20
	// maxColumns is how many panels a row holds before the next row.
	maxColumns = 4
)

// Colours.
var (
	Background = color.RGBA{34, 36, 42, 255}
	surface    = color.RGBA{206, 208, 214, 255}
	backface   = color.RGBA{214, 118, 112, 255} // back faces: a winding or open-surface hint
	labelInk   = color.RGBA{236, 236, 236, 255}
	labelBox   = color.RGBA{0, 0, 0, 150}
)

// View names a picture's panel set (Options.View).
type View string

// The views. ViewDefault is LOD0 shaded, LOD0 meshlets (when the model
// has meshlets) and one panel per LOD level.
const (
	ViewDefault  View = ""
	ViewShaded   View = "shaded"
	ViewMeshlets View = "meshlets"
	ViewLODs     View = "lods"
	ViewNormals  View = "normals"
	ViewUV       View = "uv"
	ViewCones    View = "cones"
	ViewCut      View = "cut"
)

// Views lists the views a user can name, in help order.
func Views() []View {
	return []View{ViewShaded, ViewMeshlets, ViewLODs, ViewNormals, ViewUV, ViewCones, ViewCut}
}

// ParseView returns the view with the given name ("" is the default).
func ParseView(s string) (View, error) {
	if s == "" {
		return ViewDefault, nil
	}
	for _, v := range Views() {
		if string(v) == s {
			return v, nil
		}
	}
	names := make([]string, 0, len(Views()))
	for _, v := range Views() {
		names = append(names, string(v))
	}
	return "", fmt.Errorf("unknown view %q (known: %s)", s, strings.Join(names, ", "))
}

// Model is one mesh to draw, as plain arrays.
type Model struct {
	Positions [][3]float32
	// Normals (unit, per vertex) and UVs are optional: nil when the format
	// has none; the normals view then uses face normals and the uv view
	// refuses.
	Normals [][3]float32
	UVs     [][2]float32
	// Triangles is LOD0's triangle list (3 indices per triangle).
	Triangles []uint32
	// Meshlets, when not empty, split Triangles into consecutive runs:
	// meshlet m holds Meshlets[m] triangles, and they add up to all of
	// Triangles.
	Meshlets []int
	// ConeCulls, when set, reports whether meshlet m's normal cone culls
	// it for a camera at eye (the format's own test).
	ConeCulls func(m int, eye [3]float64) bool
	// LODs are the reduced levels, LOD1 first.
	LODs []LOD
	// Cut, when set, is a cluster-LOD cut (the cut panel).
	Cut *ClusterCut
}

// LOD is one reduced level over the model's vertices.
type LOD struct {
	Triangles []uint32
	// Error is the measured error relative to the bounding-box diagonal;
	// negative when not measured.
	Error float64
	// Stalled marks a level that only repeats the one before (every
	// submesh's simplification stalled); its label says so instead of an
	// error.
	Stalled bool
}

// Options control a picture.
type Options struct {
	View       View
	Yaw, Pitch float64 // degrees; see render.Orbit
	Size       int     // a panel's side in pixels
	// Title, when set, is drawn in the first panel's label before its own
	// text (a file or entry name).
	Title string
	// CutError is the threshold a file's cluster hierarchy is cut at for
	// the cut panel (0: CutError).
	CutError float64
}

// DefaultOptions returns the default 3/4 view at DefaultSize.
func DefaultOptions() Options {
	return Options{Yaw: DefaultYaw, Pitch: DefaultPitch, Size: DefaultSize}
}

// Validate checks the options a user sets.
func (o Options) Validate() error {
	if _, err := ParseView(string(o.View)); err != nil {
		return err
	}
	if o.Size < MinSize || o.Size > MaxSize {
		return fmt.Errorf("size %d: want %d to %d pixels", o.Size, MinSize, MaxSize)
	}
	for _, a := range []float64{o.Yaw, o.Pitch} {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("angle %v: want a finite number of degrees", a)
		}
	}
	if !(o.CutError >= 0 && o.CutError <= math.MaxFloat64) {
		return fmt.Errorf("cut error %v: want a finite threshold >= 0", o.CutError)
	}
	if o.Pitch < -90 || o.Pitch > 90 {
		return fmt.Errorf("pitch %g: want -90 to 90 degrees", o.Pitch)
	}
	return nil
}

// ErrEmpty is returned for a model with no triangles to draw.
var ErrEmpty = errors.New("preview: mesh has no triangles to draw")

// shading is how a panel colours its covered pixels.
type shading int

const (
	shadeLit shading = iota
	shadeMeshlets
	shadeCones
	shadeNormals
	shadeUV
	shadeCut
)

// panel is one square of the picture.
type panel struct {
	level int // 0 = LOD0, l = LODs[l-1], len(LODs)+1 = Cut
	shade shading
	label string
}

// Check reports whether the model can be drawn with view v, and why not.
func (m *Model) Check(v View) error {
	if len(m.Triangles) < 3 {
		return ErrEmpty
	}
	for _, i := range m.Triangles {
		if int(i) >= len(m.Positions) {
			return fmt.Errorf("preview: index %d past %d vertices", i, len(m.Positions))
		}
	}
	n := 0
	for _, c := range m.Meshlets {
		n += c
	}
	if len(m.Meshlets) > 0 && 3*n != len(m.Triangles) {
		return fmt.Errorf("preview: meshlets hold %d triangles, LOD0 has %d", n, len(m.Triangles)/3)
	}
	switch v {
	case ViewMeshlets, ViewCones:
		if len(m.Meshlets) == 0 {
			return fmt.Errorf("preview: view %s: mesh has no meshlets", v)
		}
		if v == ViewCones && m.ConeCulls == nil {
			return fmt.Errorf("preview: view cones: mesh has no meshlet cones")
		}
	case ViewLODs:
		if len(m.LODs) == 0 {
			return fmt.Errorf("preview: view lods: mesh has no LOD levels")
		}
	case ViewUV:
		if m.UVs == nil {
			return fmt.Errorf("preview: view uv: mesh has no texture coordinates")
		}
	case ViewCut:
		if m.Cut == nil {
			return fmt.Errorf("preview: view cut: mesh has no cluster hierarchy")
		}
	}
	if m.Cut != nil {
		return m.Cut.check(len(m.Positions))
	}
	return nil
}

func (m *Model) panels(o Options) []panel {
	tris := func(idx []uint32) string { return fmt.Sprintf("%d tris", len(idx)/3) }
	lod0 := panel{0, shadeLit, "LOD0 " + tris(m.Triangles)}
	lods := func() []panel {
		var ps []panel
		for l, lv := range m.LODs {
			label := fmt.Sprintf("LOD%d %s", l+1, tris(lv.Triangles))
			switch {
			case lv.Stalled:
				label += " stalled"
			case lv.Error >= 0:
				label += fmt.Sprintf(" err %.5f", lv.Error)
			}
			ps = append(ps, panel{l + 1, shadeLit, label})
		}
		return ps
	}
	meshlets := panel{0, shadeMeshlets, fmt.Sprintf("%d meshlets", len(m.Meshlets))}
	var cut []panel
	if m.Cut != nil {
		cut = []panel{{len(m.LODs) + 1, shadeCut, m.Cut.label()}}
	}
	switch o.View {
	case ViewShaded:
		return []panel{lod0}
	case ViewMeshlets:
		return []panel{meshlets}
	case ViewLODs:
		return append([]panel{lod0}, lods()...)
	case ViewNormals:
		return []panel{{0, shadeNormals, "normals"}}
	case ViewUV:
		return []panel{{0, shadeUV, "uv"}}
	case ViewCones:
		return []panel{{0, shadeCones, "cones"}}
	case ViewCut:
		return cut
	}
	ps := []panel{lod0}
	if len(m.Meshlets) > 0 {
		ps = append(ps, meshlets)
	}
	return append(append(ps, lods()...), cut...)
}

// Render draws the model's picture for o: its panels side by side (up to
// four a row), each o.Size square, labelled.
func Render(ctx context.Context, m *Model, o Options) (*image.RGBA, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	if err := m.Check(o.View); err != nil {
		return nil, err
	}
	ps := m.panels(o)
	cols := min(len(ps), maxColumns)
	rows := (len(ps) + cols - 1) / cols
	if int64(cols*o.Size)*int64(rows*o.Size) > MaxPixels {
		return nil, fmt.Errorf("preview: %d panels of %d² pixels is more than %d pixels", len(ps), o.Size, MaxPixels)
	}
	img := image.NewRGBA(image.Rect(0, 0, cols*o.Size, rows*o.Size))
	d, err := newDrawing(m, o)
	if err != nil {
		return nil, err
	}
	for i := range ps {
		if ps[i].shade == shadeCones {
			n := 0
			for _, c := range d.culled {
				if c {
					n++
				}
			}
			ps[i].label = fmt.Sprintf("cones: %d/%d culled", n, len(d.culled))
		}
	}
	if o.Title != "" {
		ps[0].label = o.Title + "  " + ps[0].label
	}
	cells := make([]cell, len(ps))
	for i, p := range ps {
		cells[i] = cell{d: d, p: p, x: i % cols * o.Size, y: i / cols * o.Size}
	}
	if err := drawCells(ctx, img, cells, o.Size); err != nil {
		return nil, err
	}
	return img, nil
}

// Entry is one model of a contact sheet.
type Entry struct {
	Name  string
	Model *Model
}

// Sheet draws a contact sheet: every entry's LOD0 shaded in its own
// o.Size square, labelled with its name, in rows of ⌈√n⌉. o.View must be
// the default or shaded. Entries without triangles are drawn as an empty
// square labelled "(empty)".
func Sheet(ctx context.Context, entries []Entry, o Options) (*image.RGBA, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	if o.View != ViewDefault && o.View != ViewShaded {
		return nil, fmt.Errorf("preview: a contact sheet draws each entry shaded; view %s needs one entry", o.View)
	}
	if len(entries) == 0 {
		return nil, errors.New("preview: no entries to draw")
	}
	cols := int(math.Ceil(math.Sqrt(float64(len(entries)))))
	rows := (len(entries) + cols - 1) / cols
	if int64(cols*o.Size)*int64(rows*o.Size) > MaxPixels {
		return nil, fmt.Errorf("preview: %d entries of %d² pixels is more than %d pixels: pick one entry or a smaller size", len(entries), o.Size, MaxPixels)
	}
	img := image.NewRGBA(image.Rect(0, 0, cols*o.Size, rows*o.Size))
	var cells []cell
	for i, e := range entries {
		x, y := i%cols*o.Size, i/cols*o.Size
		if e.Model.Check(ViewShaded) != nil {
			cells = append(cells, cell{p: panel{label: e.Name + "  (empty)"}, x: x, y: y})
			continue
		}
		d, err := newDrawing(e.Model, o)
		if err != nil {
			return nil, err
		}
		cells = append(cells, cell{d: d, p: panel{0, shadeLit, fmt.Sprintf("%s  %d tris", e.Name, len(e.Model.Triangles)/3)}, x: x, y: y})
	}
	if err := drawCells(ctx, img, cells, o.Size); err != nil {
		return nil, err
	}
	return img, nil
}

// EncodePNG writes img as a PNG with fixed settings, so the bytes depend
// only on the pixels (and the Go release's image/png). BestSpeed: on a
// 3-Mpixel picture it took half the time of the default level (an eighth
// of BestCompression's) for a file a fifth larger than the default's.
func EncodePNG(w io.Writer, img image.Image) error {
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(w, img); err != nil {
		return fmt.Errorf("preview: png: %w", err)
	}
	return nil
}

// cell is one panel placed in the picture; d nil draws only the label.
type cell struct {
	d    *drawing
	p    panel
	x, y int
}

// drawCells rasterizes and resolves every cell on up to GOMAXPROCS
// goroutines (each writes only its own square), then draws the labels in
// order.
func drawCells(ctx context.Context, img *image.RGBA, cells []cell, size int) error {
	fillRect(img, img.Bounds(), Background)
	errs := make([]error, len(cells))
	par.Each(len(cells), func(i int) {
		if c := cells[i]; c.d != nil && ctx.Err() == nil {
			errs[i] = c.d.panel(img, c.p, c.x, c.y)
		}
	})
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("preview: %w", err)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	for _, c := range cells {
		// Clipped to the cell, so a long label never spills into the next.
		sub := img.SubImage(image.Rect(c.x, c.y, c.x+size, c.y+size)).(*image.RGBA)
		render.Label(sub, c.x+5, c.y+4, c.p.label, labelInk, labelBox)
	}
	return nil
}

// fillRect paints r (inside img) with c.
func fillRect(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	r = r.Intersect(img.Bounds())
	if r.Empty() {
		return
	}
	first := img.Pix[img.PixOffset(r.Min.X, r.Min.Y) : img.PixOffset(r.Max.X-1, r.Min.Y)+4]
	for i := 0; i < len(first); i += 4 {
		first[0+i], first[1+i], first[2+i], first[3+i] = c.R, c.G, c.B, c.A
	}
	for y := r.Min.Y + 1; y < r.Max.Y; y++ {
		copy(img.Pix[img.PixOffset(r.Min.X, y):], first)
	}
}

// drawing is one model framed by one camera; its visibility buffers are
// rasterized once per LOD level, on first use, and shared by the panels
// that show that level.
type drawing struct {
	m        *Model
	cam      render.Camera
	proj     *render.Projected
	meshlet  []uint32 // meshlet of each LOD0 triangle
	culled   []bool   // per meshlet, for the cone panel
	mu       sync.Mutex
	buffers  map[int]*levelBuffer
	lodLists [][]uint32 // level l's triangles: LOD0, then m.LODs
}

type levelBuffer struct {
	once sync.Once
	b    *render.Buffer
	err  error
}

func newDrawing(m *Model, o Options) (*drawing, error) {
	center, radius := frame(m.Positions, m.Triangles)
	cam := render.Orbit(center, radius, o.Yaw, o.Pitch, o.Size, o.Size)
	d := &drawing{m: m, cam: cam, proj: render.Project(&cam, m.Positions), buffers: map[int]*levelBuffer{}}
	d.lodLists = append(d.lodLists, m.Triangles)
	for _, l := range m.LODs {
		d.lodLists = append(d.lodLists, l.Triangles)
	}
	if m.Cut != nil {
		d.lodLists = append(d.lodLists, m.Cut.Triangles)
	}
	if len(m.Meshlets) > 0 {
		d.meshlet = make([]uint32, 0, len(m.Triangles)/3)
		for i, n := range m.Meshlets {
			for range n {
				d.meshlet = append(d.meshlet, uint32(i))
			}
		}
		if m.ConeCulls != nil {
			d.culled = make([]bool, len(m.Meshlets))
			for i := range m.Meshlets {
				d.culled[i] = m.ConeCulls(i, cam.Eye)
			}
		}
	}
	return d, nil
}

// buffer returns level l's visibility buffer, rasterizing it once.
func (d *drawing) buffer(l int) (*render.Buffer, error) {
	d.mu.Lock()
	lb := d.buffers[l]
	if lb == nil {
		lb = &levelBuffer{}
		d.buffers[l] = lb
	}
	d.mu.Unlock()
	lb.once.Do(func() {
		b, err := render.NewBuffer(d.cam.W, d.cam.H)
		if err != nil {
			lb.err = fmt.Errorf("preview: %dx%d buffer: %w", d.cam.W, d.cam.H, err)
			return
		}
		b.Draw(d.proj, d.lodLists[l], 0)
		lb.b = b
	})
	return lb.b, lb.err
}

// frame returns the sphere around the bounding box of the vertices the
// triangles use (finite ones only): the camera frames exactly what is
// drawn, whatever bounds a file claims.
func frame(pos [][3]float32, tris []uint32) ([3]float64, float64) {
	used := make([]bool, len(pos))
	for _, i := range tris {
		used[i] = true
	}
	finite := func(p [3]float32) bool {
		for _, v := range p {
			if v != v || v > math.MaxFloat32 || v < -math.MaxFloat32 {
				return false
			}
		}
		return true
	}
	var lo, hi [3]float32
	first := true
	for i, p := range pos {
		if !used[i] || !finite(p) {
			used[i] = false
			continue
		}
		if first {
			lo, hi, first = p, p, false
		}
		for k := range 3 {
			if p[k] < lo[k] {
				lo[k] = p[k]
			}
			if p[k] > hi[k] {
				hi[k] = p[k]
			}
		}
	}
	if first {
		return [3]float64{}, 1
	}
	c := [3]float64{(float64(lo[0]) + float64(hi[0])) / 2, (float64(lo[1]) + float64(hi[1])) / 2, (float64(lo[2]) + float64(hi[2])) / 2}
	var r2 float64
	for i, p := range pos {
		if !used[i] {
			continue
		}
		dx, dy, dz := float64(p[0])-c[0], float64(p[1])-c[1], float64(p[2])-c[2]
		if d := float64(dx*dx) + float64(dy*dy) + float64(dz*dz); d > r2 {
			r2 = d
		}
	}
	r := math.Sqrt(r2)
	if !(r > 0) {
		r = 1
	}
	return c, r
}

// panel resolves panel p into img at (x, y).
func (d *drawing) panel(img *image.RGBA, p panel, x, y int) error {
	b, err := d.buffer(p.level)
	if err != nil {
		return err
	}
	tris := d.lodLists[p.level]
	pos := d.m.Positions
	cam := &d.cam
	corner := func(t uint32) (a, b, c [3]float32) {
		return pos[tris[3*t]], pos[tris[3*t+1]], pos[tris[3*t+2]]
	}
	var shade func(t uint32, px, py int) color.RGBA
	switch p.shade {
	case shadeLit:
		light := cam.Headlight()
		shade = func(t uint32, _, _ int) color.RGBA {
			a, b, c := corner(t)
			k, back := cam.LightFace(light, a, b, c)
			if back {
				return render.Scale(backface, k)
			}
			return render.Scale(surface, k)
		}
	case shadeMeshlets:
		shade = func(t uint32, _, _ int) color.RGBA { return MeshletColor(int(d.meshlet[t])) }
	case shadeCut:
		c := d.m.Cut
		shade = func(t uint32, _, _ int) color.RGBA { return CutColor(c.Levels[t], c.Clusters[t]) }
	case shadeCones:
		shade = func(t uint32, _, _ int) color.RGBA {
			m := int(d.meshlet[t])
			c := MeshletColor(m)
			if d.culled[m] {
				return dim(c)
			}
			return c
		}
	case shadeNormals:
		shade = func(t uint32, px, py int) color.RGBA {
			a, b, c := corner(t)
			n := render.FaceNormal(a, b, c)
			if ns := d.m.Normals; ns != nil {
				w := cam.Barycentric(a, b, c, px, py)
				n = blend3(w, ns[tris[3*t]], ns[tris[3*t+1]], ns[tris[3*t+2]])
				n = render.Normalize(n)
			}
			return color.RGBA{render.Unit(n[0]*0.5 + 0.5), render.Unit(n[1]*0.5 + 0.5), render.Unit(n[2]*0.5 + 0.5), 255}
		}
	case shadeUV:
		shade = func(t uint32, px, py int) color.RGBA {
			a, b, c := corner(t)
			w := cam.Barycentric(a, b, c, px, py)
			uv := d.m.UVs
			u0, u1, u2 := uv[tris[3*t]], uv[tris[3*t+1]], uv[tris[3*t+2]]
			u := float64(w[0]*float64(u0[0])) + float64(w[1]*float64(u1[0])) + float64(w[2]*float64(u2[0]))
			v := float64(w[0]*float64(u0[1])) + float64(w[1]*float64(u1[1])) + float64(w[2]*float64(u2[1]))
			return uvColor(u, v)
		}
	}
	b.Resolve(img, x, y, Background, shade)
	return nil
}

func blend3(w [3]float64, a, b, c [3]float32) [3]float64 {
	var out [3]float64
	for k := range 3 {
		out[k] = float64(w[0]*float64(a[k])) + float64(w[1]*float64(b[k])) + float64(w[2]*float64(c[k]))
	}
	return out
}

// uvCheckers is how many checker squares span one unit of UV.
const uvCheckers = 8

// uvColor shows (u, v) as red and green of their fractional parts, on a
// checkerboard so seams and stretching show.
func uvColor(u, v float64) color.RGBA {
	if math.IsNaN(u) || math.IsNaN(v) || math.IsInf(u, 0) || math.IsInf(v, 0) {
		return color.RGBA{255, 0, 255, 255}
	}
	fu, fv := u-math.Floor(u), v-math.Floor(v)
	k := 1.0
	if (int64(math.Floor(u*uvCheckers))+int64(math.Floor(v*uvCheckers)))&1 != 0 {
		k = 0.72
	}
	return color.RGBA{render.Unit(fu * k), render.Unit(fv * k), render.Unit(0.35 * k), 255}
}

// MeshletColor is meshlet m's colour in the meshlet panels: a hash of m,
// each channel in [64, 255], so neighbours rarely look alike and no
// meshlet matches the background.
func MeshletColor(m int) color.RGBA {
	h := uint64(m)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	h ^= h >> 31
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 29
	ch := func(s uint) uint8 { return uint8(64 + (h>>s&0xFFFF)*192>>16) }
	return color.RGBA{ch(0), ch(16), ch(32), 255}
}

// dim is a culled meshlet's colour in the cone panel: a dark grey that
// keeps a trace of its hue.
func dim(c color.RGBA) color.RGBA {
	g := (uint32(c.R) + uint32(c.G) + uint32(c.B)) / 3
	mix := func(v uint8) uint8 { return uint8((uint32(v) + 3*g) / 4 * 45 / 100) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}
