package geomerr

// LODSamples is how many area-weighted points per surface LODError adds to
// the vertices (what `meshcook inspect` reports).
const LODSamples = 2000

// LODError is a reduced level's error as inspect reports it: the sampled
// symmetric Hausdorff distance between lod0 and lvl (triangle lists over
// pos), divided by diag (the bounding-box diagonal, > 0).
func LODError(pos [][3]float32, lod0, lvl []uint32, diag float64) float64 {
	return Hausdorff(pos, lod0, pos, lvl, LODSamples) / diag
}
