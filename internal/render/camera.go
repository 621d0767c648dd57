// Package render is a small deterministic software rasterizer: it projects
// plain triangle lists through a perspective camera into a visibility
// buffer (nearest triangle and its depth per pixel) and resolves that
// buffer into pixels with a caller's shading function. It knows nothing of
// files: callers hand it positions and indices.
//
// Determinism: every output byte depends only on the inputs, never on
// GOMAXPROCS or the machine. Vertices are projected in float64 with every
// product rounded explicitly (Go may otherwise fuse a*b+c into one FMA on
// some CPUs), snapped to fixed point with SubpixelBits fractional bits,
// and covered pixels are decided by exact integer edge functions with the
// top-left fill rule, so two triangles sharing an edge never both cover,
// nor both miss, a pixel centre on it. The depth test is strict: on equal
// depth the triangle drawn first keeps the pixel.
//
// The approach is the classic half-space rasterizer (Pineda, "A Parallel
// Algorithm for Polygon Rasterization", SIGGRAPH 1988) with D3D's top-left
// rule and a visibility buffer (Burns and Hunt, "The Visibility Buffer",
// JCGT 2013): shading runs once per covered pixel, after depth is resolved.
package render

import "math"

// Camera constants.
const (
	// FieldOfView is the vertical (and, for square views, horizontal) field
	// of view in degrees: narrow enough that a preview looks close to an
	// orthographic drawing, wide enough for a visible perspective.
	FieldOfView = 30
	// frameMargin scales the framed sphere so the mesh does not touch the
	// panel border (and leaves room for a label).
	frameMargin = 1.18
)

// Camera is a perspective camera with a W×H pixel viewport. Screen x grows
// to the right and y downwards; pixel (x, y) has its centre at
// (x+0.5, y+0.5).
type Camera struct {
	W, H int
	// Eye is the camera position in the mesh's space.
	Eye [3]float64
	// Right, Up and Forward are an orthonormal basis: Forward looks from
	// the eye into the scene.
	Right, Up, Forward [3]float64
	// Focal is the distance in pixels from the eye to the image plane.
	Focal float64
	// Near is the smallest view depth drawn: triangles with a vertex
	// closer than it are skipped (the framing keeps every vertex past it).
	Near float64
}

// Orbit returns a camera that looks at a sphere (center, radius) from the
// direction given by yaw and pitch in degrees and frames it in a w×h
// viewport. Yaw turns the camera about +Y (0 looks along -Z from the +Z
// side, 90 looks along -X from the +X side); pitch raises it above the
// horizon (positive looks down). A radius <= 0 (a single point) is framed
// as radius 1.
func Orbit(center [3]float64, radius, yaw, pitch float64, w, h int) Camera {
	if !(radius > 0) {
		radius = 1
	}
	ya, pa := yaw*math.Pi/180, pitch*math.Pi/180
	cp, sp := math.Cos(pa), math.Sin(pa)
	cy, sy := math.Cos(ya), math.Sin(ya)
	// Direction from the centre to the eye.
	back := [3]float64{float64(cp * sy), sp, float64(cp * cy)}
	half := FieldOfView * math.Pi / 360
	dist := radius * frameMargin / math.Sin(half)
	eye := [3]float64{center[0] + float64(back[0]*dist), center[1] + float64(back[1]*dist), center[2] + float64(back[2]*dist)}
	fwd := [3]float64{-back[0], -back[1], -back[2]}
	// Right is horizontal: perpendicular to +Y and the view direction.
	right := [3]float64{cy, 0, -sy}
	up := cross(right, fwd)
	return Camera{
		W: w, H: h, Eye: eye, Right: right, Up: up, Forward: fwd,
		Focal: float64(min(w, h)) / 2 / math.Tan(half),
		Near:  math.Max(dist-radius*frameMargin, 0) / 2,
	}
}

// View returns p in camera coordinates: x right, y up, z the depth along
// Forward.
func (c *Camera) View(p [3]float64) [3]float64 {
	d := [3]float64{p[0] - c.Eye[0], p[1] - c.Eye[1], p[2] - c.Eye[2]}
	return [3]float64{dot(d, c.Right), dot(d, c.Up), dot(d, c.Forward)}
}

// Project returns p's screen position in pixels and its view depth; ok is
// false when p lies closer than Near (or behind the eye).
func (c *Camera) Project(p [3]float64) (x, y, depth float64, ok bool) {
	v := c.View(p)
	if !(v[2] >= c.Near) || v[2] <= 0 {
		return 0, 0, v[2], false
	}
	s := c.Focal / v[2]
	return float64(v[0]*s) + float64(c.W)/2, float64(c.H)/2 - float64(v[1]*s), v[2], true
}

// Ray returns the view-space direction through the screen point (x, y)
// scaled so its z is 1.
func (c *Camera) Ray(x, y float64) [3]float64 {
	return [3]float64{(x - float64(c.W)/2) / c.Focal, (float64(c.H)/2 - y) / c.Focal, 1}
}

// dot is a·b with each product rounded on its own (no FMA).
func dot(a, b [3]float64) float64 {
	return float64(a[0]*b[0]) + float64(a[1]*b[1]) + float64(a[2]*b[2])
}

// cross is a×b with each product rounded on its own (no FMA).
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{
		float64(a[1]*b[2]) - float64(a[2]*b[1]),
		float64(a[2]*b[0]) - float64(a[0]*b[2]),
		float64(a[0]*b[1]) - float64(a[1]*b[0]),
	}
}

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

func vec64(p [3]float32) [3]float64 { return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])} }

// Normalize returns a scaled to unit length, or the zero vector when a has
// no length.
func Normalize(a [3]float64) [3]float64 {
	l := math.Sqrt(dot(a, a))
	if !(l > 0) || math.IsInf(l, 0) {
		return [3]float64{}
	}
	return [3]float64{a[0] / l, a[1] / l, a[2] / l}
}
