package clusterlod

import "math"

// Camera is a view for choosing a cut. Projected error (meshoptimizer's
// clusterlod convention, a fraction of the screen height):
//
//	error / max(|center - Position| - radius, ZNear) * Proj / 2
//
// with Proj = cot(fovy/2); a terminal (+Inf) error projects to +Inf.
type Camera struct {
	Position [3]float32
	Proj     float32 // cot(fovy/2)
	ZNear    float32 // > 0
}

// NewCamera returns a camera at pos with vertical field of view fovy
// (radians) and near distance znear.
func NewCamera(pos [3]float32, fovy, znear float32) Camera {
	return Camera{Position: pos, Proj: float32(1 / math.Tan(float64(fovy)/2)), ZNear: znear}
}

// Projected is the projected error of a sphere carrying error e.
func (c Camera) Projected(center [3]float32, radius, e float32) float64 {
	if math.IsInf(float64(e), 1) {
		return math.Inf(1)
	}
	d := math.Sqrt(dist2(to64(center), to64(c.Position))) - float64(radius)
	d = math.Max(d, float64(c.ZNear))
	return float64(e) / d * float64(c.Proj) * 0.5
}

// Cut returns the clusters a renderer draws for camera cam at threshold
// tau: cluster c of group g when g's projected error is above tau and c is
// level 0 or the group it was simplified from projects at or below tau.
// The result is in cluster order.
func Cut(clusters []Cluster, groups []Group, cam Camera, tau float64) []int {
	proj := make([]float64, len(groups))
	for i, g := range groups {
		proj[i] = cam.Projected(g.Center, g.Radius, g.Error)
	}
	var out []int
	for i, c := range clusters {
		if int(c.Group) >= len(groups) || proj[c.Group] <= tau {
			continue
		}
		if c.Refined == NoGroup || (int(c.Refined) < len(groups) && proj[c.Refined] <= tau) {
			out = append(out, i)
		}
	}
	return out
}

// CornerCamera is the fixed view inspect and the benchmark measure cuts
// from, as meshoptimizer's demo/nanite.cpp measures its cut (issue #25):
// at twice the mesh's AABB max corner (each coordinate at least 0),
// vertical field of view 60°, near distance 0.01.
func CornerCamera(aabbMax [3]float32) Camera {
	var p [3]float32
	for k, v := range aabbMax {
		p[k] = max(0, 2*v)
	}
	return NewCamera(p, math.Pi/3, 0.01)
}
