package preview

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"math"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/meshcook/meshcook/formats/hmesh"
	"github.com/meshcook/meshcook/meshlet"
	"github.com/meshcook/meshcook/simplify"
)

// sphere returns a UV sphere of radius 1 at the origin: outward
// counter-clockwise triangles, unit normals, UVs (u around, v down), its
// meshlets (meshlet.Build) with their cone test, and LOD1 at half the
// triangles (simplify.Simplify).
func sphere(t testing.TB, rings, segments int) *Model {
	t.Helper()
	m := &Model{}
	for r := 0; r <= rings; r++ {
		phi := math.Pi * float64(r) / float64(rings)
		for s := 0; s <= segments; s++ {
			th := 2 * math.Pi * float64(s) / float64(segments)
			p := [3]float32{float32(math.Sin(phi) * math.Cos(th)), float32(math.Cos(phi)), float32(-math.Sin(phi) * math.Sin(th))}
			m.Positions = append(m.Positions, p)
			m.Normals = append(m.Normals, p)
			m.UVs = append(m.UVs, [2]float32{float32(s) / float32(segments), float32(r) / float32(rings)})
		}
	}
	at := func(r, s int) uint32 { return uint32(r*(segments+1) + s) }
	var idx []uint32
	for r := 0; r < rings; r++ {
		for s := 0; s < segments; s++ {
			a, b, c, d := at(r, s), at(r+1, s), at(r+1, s+1), at(r, s+1)
			if r > 0 {
				idx = append(idx, a, b, d)
			}
			if r < rings-1 {
				idx = append(idx, b, c, d)
			}
		}
	}
	withMeshlets(t, m, idx)
	s, err := simplify.Simplify(idx, m.Positions, simplify.Attributes{}, simplify.Options{TargetIndexCount: len(idx) / 6 * 3, TargetError: 0.05})
	require.NoError(t, err)
	m.LODs = []LOD{{Triangles: s.Indices, Error: float64(s.Error)}}
	return m
}

// withMeshlets sets m's LOD0 to idx grouped into meshlets with cones, as a
// .hmesh stores them.
func withMeshlets(t testing.TB, m *Model, idx []uint32) {
	t.Helper()
	o := meshlet.DefaultOptions()
	o.MaxTriangles = 32
	r, err := meshlet.Build(idx, m.Positions, o)
	require.NoError(t, err)
	bounds := meshlet.ComputeAllBounds(r, m.Positions)
	m.Triangles, m.Meshlets = nil, nil
	for _, ml := range r.Meshlets {
		verts := r.Vertices[ml.VertexOffset : ml.VertexOffset+ml.VertexCount]
		for _, l := range r.Triangles[3*ml.TriangleOffset : 3*(ml.TriangleOffset+ml.TriangleCount)] {
			m.Triangles = append(m.Triangles, verts[l])
		}
		m.Meshlets = append(m.Meshlets, int(ml.TriangleCount))
	}
	m.ConeCulls = func(i int, eye [3]float64) bool {
		b := bounds[i]
		return hmeshConeCulls(hmesh.MeshletBounds{Center: b.Center, Radius: b.Radius, ConeAxis: b.ConeAxis, ConeCutoff: b.ConeCutoff}, eye)
	}
}

// grid returns a flat n×n quad grid in the XZ plane facing +Y, with
// meshlets and cones.
func grid(t testing.TB, n int) *Model {
	m := &Model{}
	for z := 0; z <= n; z++ {
		for x := 0; x <= n; x++ {
			m.Positions = append(m.Positions, [3]float32{float32(x)/float32(n) - 0.5, 0, float32(z)/float32(n) - 0.5})
			m.Normals = append(m.Normals, [3]float32{0, 1, 0})
			m.UVs = append(m.UVs, [2]float32{float32(x) / float32(n), float32(z) / float32(n)})
		}
	}
	var idx []uint32
	at := func(x, z int) uint32 { return uint32(z*(n+1) + x) }
	for z := 0; z < n; z++ {
		for x := 0; x < n; x++ {
			// Counter-clockwise seen from +Y.
			idx = append(idx, at(x, z), at(x, z+1), at(x+1, z+1), at(x, z), at(x+1, z+1), at(x+1, z))
		}
	}
	withMeshlets(t, m, idx)
	return m
}

func draw(t testing.TB, m *Model, o Options) *image.RGBA {
	t.Helper()
	img, err := Render(context.Background(), m, o)
	require.NoError(t, err)
	return img
}

func opts(v View, size int) Options {
	o := DefaultOptions()
	o.View, o.Size = v, size
	return o
}

// labelRows is the top strip of a panel where its label may be drawn.
const labelRows = 20

// panelPixels returns the colours of panel i's pixels below the label
// strip.
func panelPixels(img *image.RGBA, size, i int) []color.RGBA {
	cols := img.Bounds().Dx() / size
	x0, y0 := i%cols*size, i/cols*size
	var out []color.RGBA
	for y := y0 + labelRows; y < y0+size; y++ {
		for x := x0; x < x0+size; x++ {
			out = append(out, img.RGBAAt(x, y))
		}
	}
	return out
}

func covered(px []color.RGBA) int {
	n := 0
	for _, c := range px {
		if c != Background {
			n++
		}
	}
	return n
}

func distinct(px []color.RGBA) map[color.RGBA]int {
	out := map[color.RGBA]int{}
	for _, c := range px {
		if c != Background {
			out[c]++
		}
	}
	return out
}

func TestMeshletViewShowsOneColourPerVisibleMeshlet(t *testing.T) {
	// Why: each visible meshlet must show in its own flat colour, so the
	// picture has as many colours as meshlets the camera sees (about half
	// of a sphere's).
	m := sphere(t, 24, 48)
	const size = 256
	img := draw(t, m, opts(ViewMeshlets, size))
	d, err := newDrawing(m, opts(ViewMeshlets, size))
	require.NoError(t, err)
	b, err := d.buffer(0)
	require.NoError(t, err)
	visible := map[uint32]bool{}
	for y := labelRows; y < size; y++ {
		for x := 0; x < size; x++ {
			if id := b.ID[y*size+x]; id != 0 {
				visible[d.meshlet[id-1]] = true
			}
		}
	}
	colours := distinct(panelPixels(img, size, 0))
	assert.InDelta(t, len(visible), len(colours), 2, "%d visible meshlets, %d colours", len(visible), len(colours))
	assert.Greater(t, len(visible), len(m.Meshlets)/3)
	assert.Less(t, len(visible), len(m.Meshlets)*3/4)
}

func TestLODPanelCoversLOD0Area(t *testing.T) {
	// Why: a LOD level drawn from the same camera must cover about the
	// same pixels as LOD0; a level with holes or a wrong vertex mapping
	// would not.
	m := sphere(t, 32, 64)
	const size = 256
	img := draw(t, m, opts(ViewLODs, size))
	require.Equal(t, 2*size, img.Bounds().Dx())
	a0, a1 := covered(panelPixels(img, size, 0)), covered(panelPixels(img, size, 1))
	require.Greater(t, a0, size*size/4)
	assert.InEpsilon(t, a0, a1, 0.03, "LOD0 covers %d pixels, LOD1 %d", a0, a1)

	// Dropping every other triangle of LOD1 must break the check.
	broken := *m
	var half []uint32
	for i := 0; i+5 < len(m.LODs[0].Triangles); i += 6 {
		half = append(half, m.LODs[0].Triangles[i:i+3]...)
	}
	broken.LODs = []LOD{{Triangles: half, Error: -1}}
	img = draw(t, &broken, opts(ViewLODs, size))
	b1 := covered(panelPixels(img, size, 1))
	assert.Less(t, float64(b1), 0.8*float64(a0))
}

func TestEmptyMeshIsAnError(t *testing.T) {
	// Why: nothing to draw must be a clear error, not a blank picture.
	_, err := Render(context.Background(), &Model{Positions: [][3]float32{{0, 0, 0}}}, DefaultOptions())
	require.ErrorIs(t, err, ErrEmpty)
	assert.Contains(t, err.Error(), "no triangles")
	// A contact sheet draws an empty entry as a labelled empty square.
	img, err := Sheet(context.Background(), []Entry{{"a", &Model{}}, {"b", sphere(t, 8, 16)}}, opts(ViewDefault, 96))
	require.NoError(t, err)
	assert.Zero(t, covered(panelPixels(img, 96, 0)))
	assert.NotZero(t, covered(panelPixels(img, 96, 1)))
}

func TestDefaultPanels(t *testing.T) {
	// Why: the default picture is LOD0 shaded, meshlets, then each LOD.
	m := sphere(t, 16, 32)
	img := draw(t, m, opts(ViewDefault, 128))
	assert.Equal(t, image.Rect(0, 0, 3*128, 128), img.Bounds())
	ps := m.panels(opts(ViewDefault, 128))
	require.Len(t, ps, 3)
	assert.Equal(t, "LOD0 "+strconv.Itoa(len(m.Triangles)/3)+" tris", ps[0].label)
	assert.Contains(t, ps[1].label, strconv.Itoa(len(m.Meshlets))+" meshlets")
	assert.Contains(t, ps[2].label, "LOD1 "+strconv.Itoa(len(m.LODs[0].Triangles)/3)+" tris err ")
	// Without meshlets or LODs, only the shaded panel.
	plain := &Model{Positions: m.Positions, Triangles: m.Triangles}
	assert.Equal(t, 128, draw(t, plain, opts(ViewDefault, 128)).Bounds().Dx())
}

func TestShadedView(t *testing.T) {
	// Why: Lambert shading makes a sphere brighter where it faces the
	// light (upper left) than at its lower right rim, and a closed mesh
	// shows no back faces.
	m := sphere(t, 32, 64)
	const size = 200
	img := draw(t, m, opts(ViewShaded, size))
	lum := func(x, y int) int { c := img.RGBAAt(x, y); return int(c.R) + int(c.G) + int(c.B) }
	cx, cy := size/2, size/2
	assert.Greater(t, lum(cx-30, cy-30), lum(cx+30, cy+30)+60)
	greys := distinct(panelPixels(img, size, 0))
	assert.Greater(t, len(greys), 20)
	for c := range greys {
		assert.True(t, int(c.R)-int(c.B) < 20, "colour %v looks like a back face", c)
	}
	// An open grid seen from below shows its back faces, tinted red.
	img = draw(t, grid(t, 8), Options{View: ViewShaded, Size: size, Yaw: 30, Pitch: -40})
	red := 0
	for c, n := range distinct(panelPixels(img, size, 0)) {
		if int(c.R) > int(c.B)+30 {
			red += n
		}
	}
	assert.Greater(t, red, 1000)
}

func TestNormalsView(t *testing.T) {
	// Why: the normals view colours each pixel with its interpolated
	// normal; the sphere's point nearest the eye faces the camera.
	m := sphere(t, 32, 64)
	const size = 200
	o := opts(ViewNormals, size)
	img := draw(t, m, o)
	d, err := newDrawing(m, o)
	require.NoError(t, err)
	n := [3]float64{-d.cam.Forward[0], -d.cam.Forward[1], -d.cam.Forward[2]}
	c := img.RGBAAt(size/2, size/2)
	for k, v := range []uint8{c.R, c.G, c.B} {
		assert.InDelta(t, 255*(n[k]*0.5+0.5), float64(v), 8, "channel %d", k)
	}
	// Without vertex normals it falls back to face normals: still a
	// picture, flat per triangle.
	flat := *m
	flat.Normals = nil
	assert.NotZero(t, covered(panelPixels(draw(t, &flat, o), size, 0)))
}

func TestUVView(t *testing.T) {
	// Why: the uv view shows u as red and v as green on a checkerboard;
	// on a grid seen from above, red grows along +X and green along +Z.
	m := grid(t, 4)
	const size = 200
	img := draw(t, m, Options{View: ViewUV, Size: size, Yaw: 0, Pitch: 89})
	// From straight above with yaw 0, +X is right and +Z is down.
	left, right := img.RGBAAt(size/2-50, size/2), img.RGBAAt(size/2+50, size/2)
	top, bottom := img.RGBAAt(size/2, size/2-50), img.RGBAAt(size/2, size/2+50)
	assert.Greater(t, int(right.R), int(left.R)+60, "left %v right %v", left, right)
	assert.Greater(t, int(bottom.G), int(top.G)+60, "top %v bottom %v", top, bottom)
	_, err := Render(context.Background(), &Model{Positions: m.Positions, Triangles: m.Triangles}, opts(ViewUV, size))
	assert.ErrorContains(t, err, "no texture coordinates")
}

func TestConesView(t *testing.T) {
	// Why: meshlets whose cone test culls them from the camera are drawn
	// dimmed: none of a grid seen from above (all face the camera), all
	// of it seen from below.
	m := grid(t, 12)
	const size = 160
	above := draw(t, m, Options{View: ViewCones, Size: size, Yaw: 20, Pitch: 50})
	below := draw(t, m, Options{View: ViewCones, Size: size, Yaw: 20, Pitch: -50})
	dimmed := func(img *image.RGBA) (dim, all int) {
		for c, n := range distinct(panelPixels(img, size, 0)) {
			all += n
			if max(c.R, c.G, c.B) < 120 {
				dim += n
			}
		}
		return dim, all
	}
	dim, all := dimmed(above)
	assert.Zero(t, dim)
	assert.Greater(t, all, 1000)
	dim, all = dimmed(below)
	assert.Equal(t, all, dim)
	ps := m.panels(opts(ViewCones, size))
	require.Len(t, ps, 1)
	_, err := Render(context.Background(), &Model{Positions: m.Positions, Triangles: m.Triangles}, opts(ViewCones, size))
	assert.ErrorContains(t, err, "no meshlets")
}

func TestViewErrorsAndOptions(t *testing.T) {
	// Why: asking for what a mesh lacks, or options out of range, is a
	// clear error.
	plain := &Model{Positions: [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: []uint32{0, 1, 2}}
	for v, want := range map[View]string{ViewMeshlets: "no meshlets", ViewLODs: "no LOD levels", ViewUV: "no texture coordinates", ViewCones: "no meshlets", ViewCut: "no cluster hierarchy"} {
		_, err := Render(context.Background(), plain, opts(v, 64))
		assert.ErrorContains(t, err, want, "view %s", v)
	}
	_, err := ParseView("wire")
	assert.ErrorContains(t, err, `unknown view "wire" (known: shaded, meshlets, lods, normals, uv, cones, cut)`)
	for _, o := range []Options{{Size: 10}, {Size: 5000}, {Size: 64, Pitch: 91}, {Size: 64, Yaw: math.NaN()}} {
		assert.Error(t, o.Validate(), "%+v", o)
	}
	bad := &Model{Positions: [][3]float32{{0, 0, 0}}, Triangles: []uint32{0, 0, 7}}
	_, err = Render(context.Background(), bad, DefaultOptions())
	assert.ErrorContains(t, err, "index 7 past 1 vertices")
}

func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	// Why: the same model must give the same PNG bytes for any number of
	// threads (panels are drawn in parallel); the sphere has a cut, so
	// every view draws.
	m := cutSphere(t)
	want := map[View][]byte{}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, p := range []int{1, 2, 8, 1} {
		runtime.GOMAXPROCS(p)
		for _, v := range append([]View{ViewDefault}, Views()...) {
			var buf bytes.Buffer
			require.NoError(t, EncodePNG(&buf, draw(t, m, opts(v, 96))))
			if want[v] == nil {
				want[v] = buf.Bytes()
			}
			require.Equal(t, want[v], buf.Bytes(), "view %q at GOMAXPROCS %d", v, p)
		}
	}
}

func TestMeshletColours(t *testing.T) {
	// Why: colours must never match the background and rarely collide.
	seen := map[color.RGBA]bool{}
	for m := 0; m < 4096; m++ {
		c := MeshletColor(m)
		assert.NotEqual(t, Background, c)
		assert.GreaterOrEqual(t, min(c.R, c.G, c.B), uint8(64))
		seen[c] = true
	}
	assert.Greater(t, len(seen), 4090)
}

func TestBufferSizeErrorIsReturned(t *testing.T) {
	// Why: a camera whose size the rasterizer refuses must surface as an
	// error from the drawing, never as a panic in a worker goroutine.
	d := &drawing{buffers: map[int]*levelBuffer{}, lodLists: [][]uint32{nil}}
	d.cam.W, d.cam.H = 0, 0
	b, err := d.buffer(0)
	require.Error(t, err)
	assert.Nil(t, b)
	assert.Contains(t, err.Error(), "preview: 0x0 buffer")
}
