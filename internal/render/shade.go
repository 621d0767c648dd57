package render

import (
	"image"
	"image/color"
	"math"
)

// Shading constants.
const (
	// Ambient is the light a face gets whatever its angle, so faces turned
	// away from the light still read as shapes.
	Ambient = 0.22
)

// lightView is the direction towards the light in view space (x right,
// y up, z forward): from the upper left, behind the viewer, so the faces
// the camera sees are lit.
var lightView = [3]float64{-0.35, 0.45, -1}

// Resolve writes the buffer into dst with its top-left pixel at (ox, oy):
// bg where nothing was drawn, shade(t, x, y) where triangle t (ID − 1,
// without Draw's idBase) covers pixel (x, y) of the buffer. Pixels outside
// dst are skipped. Pixels are visited in row order.
func (b *Buffer) Resolve(dst *image.RGBA, ox, oy int, bg color.RGBA, shade func(t uint32, x, y int) color.RGBA) {
	r := dst.Bounds()
	x0, x1 := max(0, r.Min.X-ox), min(b.W, r.Max.X-ox)
	for y := max(0, r.Min.Y-oy); y < min(b.H, r.Max.Y-oy); y++ {
		ids := b.ID[y*b.W : (y+1)*b.W]
		o := dst.PixOffset(ox+x0, oy+y)
		for x := x0; x < x1; x++ {
			c := bg
			if id := ids[x]; id != 0 {
				c = shade(id-1, x, y)
			}
			p := dst.Pix[o : o+4 : o+4]
			p[0], p[1], p[2], p[3] = c.R, c.G, c.B, c.A
			o += 4
		}
	}
}

// FaceNormal returns the unit normal of triangle (a, b, c) for
// counter-clockwise front faces, or zero for a degenerate triangle.
func FaceNormal(a, b, c [3]float32) [3]float64 {
	p := vec64(a)
	return Normalize(cross(sub(vec64(b), p), sub(vec64(c), p)))
}

// Facing reports whether the triangle with unit normal n through point p
// faces the camera (its front side is towards the eye).
func (c *Camera) Facing(n [3]float64, p [3]float32) bool {
	return dot(n, sub(c.Eye, vec64(p))) > 0
}

// Light returns the Lambert intensity in [Ambient, 1] of a surface with
// unit normal n under light (the unit direction towards the light, see
// Headlight); n is flipped to the side that faces toward (the eye) when
// it points away (two-sided lighting), so back faces are lit as their
// visible side.
func Light(light, n, toward [3]float64) float64 {
	if dot(n, toward) < 0 {
		n = [3]float64{-n[0], -n[1], -n[2]}
	}
	return Ambient + float64((1-Ambient)*math.Max(0, dot(n, light)))
}

// LightFace is Light for triangle (a, b, cc) seen by the camera: its flat
// normal, lit on the side the eye sees. back reports that the eye sees its
// back face.
func (c *Camera) LightFace(light [3]float64, a, b, cc [3]float32) (intensity float64, back bool) {
	// The same as Light(light, FaceNormal(a, b, cc), toward) with one
	// square root: the hot loop of every shaded panel.
	p := vec64(a)
	n := cross(sub(vec64(b), p), sub(vec64(cc), p))
	toward := sub(c.Eye, p)
	back = dot(n, toward) < 0
	l := math.Sqrt(dot(n, n))
	if !(l > 0) || math.IsInf(l, 0) {
		return Ambient, back
	}
	d := dot(n, light) / l
	if back {
		d = -d
	}
	return Ambient + float64((1-Ambient)*math.Max(0, d)), back
}

// Headlight returns the unit direction towards the camera's light: fixed
// relative to the view, from the upper left behind the viewer.
func (c *Camera) Headlight() [3]float64 {
	l := Normalize(lightView)
	return Normalize([3]float64{
		float64(l[0]*c.Right[0]) + float64(l[1]*c.Up[0]) + float64(l[2]*c.Forward[0]),
		float64(l[0]*c.Right[1]) + float64(l[1]*c.Up[1]) + float64(l[2]*c.Forward[1]),
		float64(l[0]*c.Right[2]) + float64(l[1]*c.Up[2]) + float64(l[2]*c.Forward[2]),
	})
}

// Barycentric returns the perspective-correct barycentric weights of
// triangle (a, b, c) at the centre of pixel (x, y): the point where the
// pixel's ray meets the triangle's plane, as weights of a, b and c
// summing to 1. Weights may fall slightly outside [0, 1] at edges; a
// triangle edge-on to the ray gives (1/3, 1/3, 1/3).
func (c *Camera) Barycentric(a, b, cc [3]float32, x, y int) [3]float64 {
	va, vb, vc := c.View(vec64(a)), c.View(vec64(b)), c.View(vec64(cc))
	r := c.Ray(float64(x)+0.5, float64(y)+0.5)
	// Möller–Trumbore: solve o + t·r = va + u·(vb−va) + v·(vc−va), o = 0.
	e1, e2 := sub(vb, va), sub(vc, va)
	pv := cross(r, e2)
	det := dot(e1, pv)
	if math.Abs(det) < 1e-300 {
		return [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	}
	tv := [3]float64{-va[0], -va[1], -va[2]}
	u := dot(tv, pv) / det
	qv := cross(tv, e1)
	v := dot(r, qv) / det
	return [3]float64{1 - u - v, u, v}
}

// Scale returns c with its colour channels multiplied by k in [0, 1],
// rounded to the nearest value; alpha is kept.
func Scale(c color.RGBA, k float64) color.RGBA {
	s := func(v uint8) uint8 { return uint8(math.Min(255, math.Round(float64(float64(v)*k)))) }
	return color.RGBA{s(c.R), s(c.G), s(c.B), c.A}
}

// Unit maps a value in [0, 1] (clamped) to a byte.
func Unit(v float64) uint8 {
	return uint8(math.Round(float64(255 * math.Max(0, math.Min(1, v)))))
}
