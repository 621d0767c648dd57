package render

import (
	"image"
	"image/color"
	"image/draw"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Text metrics of the label font (basicfont.Face7x13, a fixed 7×13 bitmap
// face: no hinting or anti-aliasing, so labels are the same bytes
// everywhere).
const (
	GlyphWidth = 7
	LineHeight = 13
)

// Label draws s with its top-left corner at (x, y) in c, on a box of bg
// padded by 2 pixels when bg's alpha is not 0, clipped to dst. Runes the
// font lacks are drawn as its replacement glyph.
func Label(dst *image.RGBA, x, y int, s string, c, bg color.RGBA) {
	face := basicfont.Face7x13
	if bg.A != 0 {
		w := font.MeasureString(face, s).Ceil()
		box := image.Rect(x-2, y-1, x+w+2, y+LineHeight+1).Intersect(dst.Bounds())
		draw.Draw(dst, box, image.NewUniform(bg), image.Point{}, draw.Over)
	}
	d := font.Drawer{
		Dst:  dst,
		Src:  image.NewUniform(c),
		Face: face,
		Dot:  fixed.P(x, y+face.Ascent),
	}
	d.DrawString(s)
}

// TextWidth is the width in pixels of s in the label font.
func TextWidth(s string) int { return font.MeasureString(basicfont.Face7x13, s).Ceil() }
