package render

import (
	"image"
	"image/color"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// screenCamera is a camera at the origin looking along +Z with a focal
// length of one pixel, so px can place vertices in pixels.
func screenCamera(w, h int) Camera {
	return Camera{W: w, H: h, Right: [3]float64{1, 0, 0}, Up: [3]float64{0, 1, 0}, Forward: [3]float64{0, 0, 1}, Focal: 1, Near: 0.001}
}

// px converts pixel coordinates to a world point that screenCamera
// projects onto them at depth z.
func px(w, h int, x, y, z float64) [3]float32 {
	return [3]float32{float32((x - float64(w)/2) * z), float32((float64(h)/2 - y) * z), float32(z)}
}

func TestSharedEdgeCoversEachPixelOnce(t *testing.T) {
	// Why: the top-left rule must give every pixel centre on a shared edge
	// to exactly one of the two triangles, for any edge direction.
	const w, h = 64, 64
	cam := screenCamera(w, h)
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 200; iter++ {
		// A fan of four triangles around the centre, each drawn into its
		// own buffer; count how many cover each pixel.
		var corners [4][3]float32
		for i := range corners {
			// Snap some corners to pixel centres so edges pass exactly
			// through centres.
			x, y := rng.Float64()*w, rng.Float64()*h
			if iter%2 == 0 {
				x, y = math.Floor(x)+0.5, math.Floor(y)+0.5
			}
			corners[i] = px(w, h, x, y, 1)
		}
		pos := append(corners[:], px(w, h, 32, 32, 1))
		tris := []uint32{4, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0}
		p := Project(&cam, pos)
		count := make([]int, w*h)
		for k := 0; k < 4; k++ {
			b, err := NewBuffer(w, h)
			require.NoError(t, err)
			b.Draw(p, tris[3*k:3*k+3], 0)
			for i, id := range b.ID {
				if id != 0 {
					count[i]++
				}
			}
		}
		// When the fan is star-shaped its triangles tile the polygon: no
		// pixel is covered twice, and the parts cover what the whole does.
		all, err := NewBuffer(w, h)
		require.NoError(t, err)
		all.Draw(p, tris, 0)
		if fanIsStar(p, tris) {
			for i, c := range count {
				require.LessOrEqual(t, c, 1, "iteration %d pixel %d covered twice", iter, i)
				require.Equal(t, c == 1, all.ID[i] != 0, "iteration %d pixel %d", iter, i)
			}
		}
	}
}

// fanIsStar reports whether the fan's triangles all have the same
// orientation on screen (then they tile the polygon without overlap).
func fanIsStar(p *Projected, tris []uint32) bool {
	sign := 0
	for t := 0; t < len(tris); t += 3 {
		a, b, c := wide(p.v[tris[t]]), wide(p.v[tris[t+1]]), wide(p.v[tris[t+2]])
		area := (b.x-a.x)*(c.y-a.y) - (b.y-a.y)*(c.x-a.x)
		s := 1
		if area < 0 {
			s = -1
		}
		if area == 0 || (sign != 0 && s != sign) {
			return false
		}
		sign = s
	}
	return true
}

func TestFullQuadCoversEveryPixel(t *testing.T) {
	// Why: two triangles over the whole viewport, edges on the viewport
	// border, cover each pixel exactly once (no gap on the diagonal).
	const w, h = 17, 11
	cam := screenCamera(w, h)
	pos := [][3]float32{px(w, h, 0, 0, 1), px(w, h, w, 0, 1), px(w, h, w, h, 1), px(w, h, 0, h, 1)}
	b, err := NewBuffer(w, h)
	require.NoError(t, err)
	b.Draw(Project(&cam, pos), []uint32{0, 1, 2, 0, 2, 3}, 0)
	assert.Equal(t, w*h, b.Covered())
	// The diagonal from (0,0) to (w,h) splits them: pixel (w-1, 0) is in
	// triangle 0, pixel (0, h-1) in triangle 1.
	assert.Equal(t, uint32(1), b.ID[w-1])
	assert.Equal(t, uint32(2), b.ID[(h-1)*w])
}

func TestDepthNearestWinsAndTiesKeepFirst(t *testing.T) {
	// Why: the z-buffer keeps the nearest triangle whatever the draw
	// order, and on equal depth the first one drawn.
	const w, h = 8, 8
	cam := screenCamera(w, h)
	quad := func(z float64) [][3]float32 {
		return [][3]float32{px(w, h, 0, 0, z), px(w, h, w, 0, z), px(w, h, w, h, z), px(w, h, 0, h, z)}
	}
	near, far := quad(2), quad(4)
	pos := append(append([][3]float32{}, far...), near...)
	idx := []uint32{0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7}
	b, _ := NewBuffer(w, h)
	b.Draw(Project(&cam, pos), idx, 0)
	for _, id := range b.ID {
		require.Contains(t, []uint32{3, 4}, id)
	}
	// Reverse order: still the near quad.
	b2, _ := NewBuffer(w, h)
	b2.Draw(Project(&cam, pos), append(append([]uint32{}, idx[6:]...), idx[:6]...), 0)
	for _, id := range b2.ID {
		require.Contains(t, []uint32{1, 2}, id)
	}
	// Same depth drawn twice: the first triangle keeps it.
	b3, _ := NewBuffer(w, h)
	p := Project(&cam, near)
	b3.Draw(p, []uint32{0, 1, 2, 0, 2, 3}, 0)
	b3.Draw(p, []uint32{0, 1, 2, 0, 2, 3}, 10)
	for _, id := range b3.ID {
		require.Contains(t, []uint32{1, 2}, id)
	}
}

func TestSkipsBadTriangles(t *testing.T) {
	// Why: indices out of range, vertices behind the camera and NaN
	// positions are skipped, never a panic.
	const w, h = 8, 8
	cam := screenCamera(w, h)
	nan := float32(math.NaN())
	pos := [][3]float32{px(w, h, 0, 0, 1), px(w, h, w, 0, 1), px(w, h, w, h, 1), {0, 0, -1}, {nan, 0, 1}}
	b, _ := NewBuffer(w, h)
	b.Draw(Project(&cam, pos), []uint32{0, 1, 9, 0, 1, 3, 0, 1, 4, 0, 0, 1, 0, 1}, 0)
	assert.Zero(t, b.Covered())
	_, err := NewBuffer(0, 4)
	assert.ErrorIs(t, err, ErrSize)
	_, err = NewBuffer(MaxSize+1, 4)
	assert.ErrorIs(t, err, ErrSize)
}

func TestOrbitFramesTheSphere(t *testing.T) {
	// Why: the default framing must keep the whole bounding sphere inside
	// the viewport for any yaw and pitch.
	for _, yp := range [][2]float64{{0, 0}, {35, 25}, {-120, 80}, {200, -60}} {
		cam := Orbit([3]float64{1, 2, 3}, 5, yp[0], yp[1], 100, 60)
		for i := 0; i < 500; i++ {
			a, b := float64(i)*0.731, float64(i)*1.377
			p := [3]float64{1 + 5*math.Cos(a)*math.Sin(b), 2 + 5*math.Sin(a)*math.Sin(b), 3 + 5*math.Cos(b)}
			x, y, _, ok := cam.Project(p)
			require.True(t, ok)
			assert.True(t, x >= 0 && x <= 100 && y >= 0 && y <= 60, "yaw %v pitch %v point %v at %v,%v", yp[0], yp[1], p, x, y)
		}
		// The basis is orthonormal and Forward points at the centre.
		assert.InDelta(t, 0, dot(cam.Right, cam.Up), 1e-12)
		assert.InDelta(t, 0, dot(cam.Right, cam.Forward), 1e-12)
		to := Normalize(sub([3]float64{1, 2, 3}, cam.Eye))
		assert.InDelta(t, 1, dot(to, cam.Forward), 1e-12)
	}
	// Yaw 0, pitch 0 looks along -Z with +X to the right.
	cam := Orbit([3]float64{}, 1, 0, 0, 10, 10)
	assert.Greater(t, cam.Eye[2], 0.0)
	assert.InDelta(t, 1, cam.Right[0], 1e-12)
}

func TestBarycentricMatchesVertices(t *testing.T) {
	// Why: attribute interpolation must hit each vertex's own value at
	// that vertex and be perspective-correct in between.
	cam := Orbit([3]float64{}, 1, 30, 20, 200, 200)
	a, b, c := [3]float32{-1, 0, 0}, [3]float32{1, 0, -0.5}, [3]float32{0, 1, 0.5}
	for i, p := range [][3]float32{a, b, c} {
		x, y, _, _ := cam.Project(vec64(p))
		// The pixel whose centre is nearest the vertex.
		w := cam.Barycentric(a, b, c, int(math.Floor(x)), int(math.Floor(y)))
		assert.InDelta(t, 1, w[i], 0.05)
		assert.InDelta(t, 1, w[0]+w[1]+w[2], 1e-9)
	}
	// The centroid of the 3D triangle projects to where the weights are
	// (1/3, 1/3, 1/3).
	g := [3]float64{(-1 + 1 + 0) / 3.0, 1 / 3.0, 0}
	x, y, _, _ := cam.Project(g)
	w := cam.Barycentric(a, b, c, int(math.Floor(x)), int(math.Floor(y)))
	for _, v := range w {
		assert.InDelta(t, 1.0/3, v, 0.02)
	}
}

func TestLightAndLabel(t *testing.T) {
	// Why: a face turned to the eye is brighter than one seen edge-on,
	// both sides of a face light the same, and labels put ink where asked.
	cam := Orbit([3]float64{}, 1, 0, 0, 64, 64)
	toward := sub(cam.Eye, [3]float64{})
	l := cam.Headlight()
	front := Light(l, [3]float64{0, 0, 1}, toward)
	back := Light(l, [3]float64{0, 0, -1}, toward)
	side := Light(l, [3]float64{1, 0, 0}, toward)
	assert.Equal(t, front, back)
	assert.Greater(t, front, side)
	assert.GreaterOrEqual(t, side, float64(Ambient))
	// LightFace is Light of the face normal, on the side the eye sees.
	a, b, c := [3]float32{0, 0, 0}, [3]float32{1, 0, 0.2}, [3]float32{0, 1, -0.3}
	k, isBack := cam.LightFace(l, a, b, c)
	assert.InDelta(t, Light(l, FaceNormal(a, b, c), toward), k, 1e-12)
	assert.False(t, isBack)
	k2, isBack := cam.LightFace(l, a, c, b)
	assert.InDelta(t, k, k2, 1e-12)
	assert.True(t, isBack)
	img := image.NewRGBA(image.Rect(0, 0, 64, 20))
	white := color.RGBA{255, 255, 255, 255}
	Label(img, 2, 2, "LOD1", white, color.RGBA{})
	ink := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i] == 255 {
			ink++
		}
	}
	assert.Greater(t, ink, 20)
	assert.Equal(t, 4*GlyphWidth, TextWidth("LOD1"))
}
