package render

import (
	"errors"
	"math"
)

// Rasterizer constants.
const (
	// SubpixelBits is the fixed-point precision of snapped screen
	// coordinates: 1/256 pixel.
	SubpixelBits = 8
	// MaxSize is the largest viewport side. With SubpixelBits it keeps
	// every edge-function product well inside int64, and a triangle far
	// outside the viewport is skipped rather than overflowing.
	MaxSize = 8192
	one     = 1 << SubpixelBits
	// guard is how far outside the viewport (in fixed point) a vertex may
	// lie; triangles with a vertex further out are skipped. The framing
	// keeps meshes inside the viewport, so this only guards bad input.
	guard = 4 * MaxSize * one
)

// Buffer is a visibility buffer: per pixel the nearest triangle drawn so
// far and its inverse view depth.
type Buffer struct {
	W, H int
	// ID is 0 where nothing was drawn, else 1 + the triangle's index in the
	// index list passed to Draw.
	ID []uint32
	// InvDepth is 1/depth of the pixel's nearest triangle (larger is
	// nearer), 0 where nothing was drawn.
	InvDepth []float32
}

// ErrSize is returned for a viewport side outside [1, MaxSize].
var ErrSize = errors.New("render: viewport size out of range")

// NewBuffer returns an empty w×h buffer.
func NewBuffer(w, h int) (*Buffer, error) {
	if w < 1 || h < 1 || w > MaxSize || h > MaxSize {
		return nil, ErrSize
	}
	return &Buffer{W: w, H: h, ID: make([]uint32, w*h), InvDepth: make([]float32, w*h)}, nil
}

// Covered returns the number of pixels some triangle covers.
func (b *Buffer) Covered() int {
	n := 0
	for _, id := range b.ID {
		if id != 0 {
			n++
		}
	}
	return n
}

// screenVertex is a projected vertex: fixed-point screen position and
// inverse depth; q == 0 marks a vertex that cannot be drawn. Kept to 12
// bytes: a large mesh's triangles fetch their vertices from all over the
// array, so the rasterizer is bound by cache misses.
type screenVertex struct {
	x, y int32
	q    float32
}

// Projected holds a camera's projection of every vertex of a mesh, so
// several index lists over the same vertices (LOD levels) project once.
type Projected struct {
	cam *Camera
	v   []screenVertex
}

// Project projects positions through cam for Draw.
func Project(cam *Camera, positions [][3]float32) *Projected {
	p := &Projected{cam: cam, v: make([]screenVertex, len(positions))}
	for i, pos := range positions {
		x, y, depth, ok := cam.Project(vec64(pos))
		if !ok {
			continue
		}
		fx, fy := math.Round(x*one), math.Round(y*one)
		if !(math.Abs(fx) < guard && math.Abs(fy) < guard) {
			continue
		}
		p.v[i] = screenVertex{x: int32(fx), y: int32(fy), q: float32(1 / depth)}
	}
	return p
}

// Draw rasterizes the triangle list indices (3 per triangle, into the
// projected vertices) into b with a strict depth test. Triangle t is
// recorded as ID t+1 plus idBase. Both windings are drawn. Triangles with
// an index out of range, a vertex that could not be projected, or no area
// on screen are skipped.
func (b *Buffer) Draw(p *Projected, indices []uint32, idBase uint32) {
	n := uint32(len(p.v))
	w, h := int64(b.W), int64(b.H)
	for t := 0; t+2 < len(indices); t += 3 {
		i0, i1, i2 := indices[t], indices[t+1], indices[t+2]
		if i0 >= n || i1 >= n || i2 >= n {
			continue
		}
		s0, s1, s2 := p.v[i0], p.v[i1], p.v[i2]
		if s0.q == 0 || s1.q == 0 || s2.q == 0 {
			continue
		}
		v0, v1, v2 := wide(s0), wide(s1), wide(s2)
		area := (v1.x-v0.x)*(v2.y-v0.y) - (v1.y-v0.y)*(v2.x-v0.x)
		if area == 0 {
			continue
		}
		if area < 0 {
			// Draw both windings: swap to the positive orientation.
			v1, v2 = v2, v1
			area = -area
		}
		// Pixel range whose centres (x·one + one/2) can lie inside.
		minX := max((min(v0.x, v1.x, v2.x)-one/2+one-1)>>SubpixelBits, 0)
		maxX := min((max(v0.x, v1.x, v2.x)-one/2)>>SubpixelBits, w-1)
		minY := max((min(v0.y, v1.y, v2.y)-one/2+one-1)>>SubpixelBits, 0)
		maxY := min((max(v0.y, v1.y, v2.y)-one/2)>>SubpixelBits, h-1)
		if minX > maxX || minY > maxY {
			continue
		}
		b.fill(v0, v1, v2, area, minX, maxX, minY, maxY, uint32(t/3)+1+idBase)
	}
}

// wideVertex is a screenVertex widened for exact edge arithmetic.
type wideVertex struct {
	x, y int64
	q    float64
}

func wide(v screenVertex) wideVertex { return wideVertex{int64(v.x), int64(v.y), float64(v.q)} }

// fill covers the pixels of one positively oriented triangle inside the
// given pixel box.
func (b *Buffer) fill(v0, v1, v2 wideVertex, area, minX, maxX, minY, maxY int64, id uint32) {
	// Edge functions at the first pixel centre; e0 is the edge opposite v0
	// (v1→v2), and so on. Each is twice the signed area of the sub-triangle
	// and is >= 0 inside. Edges that are not top or left edges exclude
	// their own pixels (bias 1), so a shared edge covers each centre once.
	px, py := minX<<SubpixelBits+one/2, minY<<SubpixelBits+one/2
	edge := func(a, c wideVertex) (e, bias, dx, dy int64) {
		ex, ey := c.x-a.x, c.y-a.y
		e = ex*(py-a.y) - ey*(px-a.x)
		if !(ey < 0 || (ey == 0 && ex > 0)) {
			bias = 1 // not top-left: the edge itself is outside
		}
		return e - bias, bias, -ey * one, ex * one
	}
	e0, b0, dx0, dy0 := edge(v1, v2)
	e1, b1, dx1, dy1 := edge(v2, v0)
	e2, b2, dx2, dy2 := edge(v0, v1)
	// Inverse depth is affine in screen space: the barycentric weights
	// (e0, e1, e2)/area blend the vertices' 1/depth. The biases only
	// decide coverage, so the depth adds them back.
	inv := 1 / float64(area)
	k0, k1, k2 := float64(v0.q*inv), float64(v1.q*inv), float64(v2.q*inv)
	c0 := float64(float64(b0)*k0) + float64(float64(b1)*k1) + float64(float64(b2)*k2)
	for y := minY; y <= maxY; y++ {
		r0, r1, r2 := e0, e1, e2
		row := int(y) * b.W
		for x := minX; x <= maxX; x++ {
			if r0|r1|r2 >= 0 {
				q := float32(float64(float64(r0)*k0) + float64(float64(r1)*k1) + float64(float64(r2)*k2) + c0)
				i := row + int(x)
				if q > b.InvDepth[i] {
					b.InvDepth[i] = q
					b.ID[i] = id
				}
			}
			r0 += dx0
			r1 += dx1
			r2 += dx2
		}
		e0 += dy0
		e1 += dy1
		e2 += dy2
	}
}
