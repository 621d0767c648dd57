package preview

import (
	"context"
	"image/color"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// cutSphere is the sphere with a hand-made cut over its LOD0: the
// triangles left of x = 0 are level-0 clusters of 16 triangles, those
// right of it level 3.
func cutSphere(t *testing.T) *Model {
	m := sphere(t, 24, 48)
	c := &ClusterCut{Error: CutError}
	for k := 0; k+2 < len(m.Triangles); k += 3 {
		a, b, d := m.Positions[m.Triangles[k]], m.Positions[m.Triangles[k+1]], m.Positions[m.Triangles[k+2]]
		level := 0
		if a[0]+b[0]+d[0] > 0 {
			level = 3
		}
		c.Triangles = append(c.Triangles, m.Triangles[k:k+3]...)
		c.Levels = append(c.Levels, level)
		c.Clusters = append(c.Clusters, k/3/16)
	}
	m.Cut = c
	return m
}

// The cut panel colours every pixel by its triangle's level: seen head-on
// (yaw 0: screen right is +x), the left half holds only level 0's shades,
// the right half only level 3's, and both show several clusters.
func TestCutColoursFollowLevels(t *testing.T) {
	m := cutSphere(t)
	o := DefaultOptions()
	o.View, o.Yaw, o.Pitch, o.Size = ViewCut, 0, 0, 128
	img, err := Render(context.Background(), m, o)
	require.NoError(t, err)
	shades := func(l int) map[color.RGBA]bool {
		s := map[color.RGBA]bool{}
		for c := range clusterShades {
			s[CutColor(l, c)] = true
		}
		return s
	}
	left, right := shades(0), shades(3)
	seen := map[color.RGBA]int{}
	for y := 20; y < o.Size; y++ { // below the label
		for x := range o.Size {
			c := img.RGBAAt(x, y)
			if c == Background || x > o.Size/2-4 && x < o.Size/2+4 {
				continue
			}
			want := left
			if x >= o.Size/2 {
				want = right
			}
			require.True(t, want[c], "pixel (%d, %d) is %v, not a shade of its side's level", x, y, c)
			seen[c]++
		}
	}
	require.Len(t, seen, 2*len(clusterShades), "every shade of both levels shows")
	require.NotEqual(t, LevelColor(0), LevelColor(3))
}

// The default picture adds the cut panel after the LODs, labelled with its
// threshold and levels (TestDeterministicAcrossGOMAXPROCS pins its bytes
// for any GOMAXPROCS); a model without a cut refuses the cut view, and a
// cut whose arrays disagree is an error.
func TestCutPanel(t *testing.T) {
	m := cutSphere(t)
	ps := m.panels(DefaultOptions())
	require.Len(t, ps, 4, "LOD0, meshlets, LOD1 and the cut")
	require.Equal(t, "cut 0.002: "+strconv.Itoa(len(m.Triangles)/3)+" tris, levels 0-3", ps[3].label)
	o := DefaultOptions()
	o.Size, o.View = 96, ViewCut
	m.Cut = nil
	_, err := Render(context.Background(), m, o)
	require.ErrorContains(t, err, "no cluster hierarchy")
	bad := cutSphere(t)
	bad.Cut.Levels = bad.Cut.Levels[1:]
	_, err = Render(context.Background(), bad, o)
	require.ErrorContains(t, err, "levels")
}
