package mesh

import "unsafe"

// The algorithm packages (simplify, meshlet, clusterlod) take vertex
// streams as plain arrays ([][3]float32 and the like) so that they do not
// depend on this package. Vec2, Vec3 and Vec4 are those arrays under a
// name, with the same size and layout, so a stream can be handed over as
// it is: a copy of one stream of a 1M-vertex mesh is 12-16 MiB, held as
// long as the algorithm runs.

// Floats2 returns s as [][2]float32, sharing s's memory (nil for nil).
func Floats2(s []Vec2) [][2]float32 {
	return unsafe.Slice((*[2]float32)(unsafe.SliceData(s)), len(s))
}

// Floats3 returns s as [][3]float32, sharing s's memory (nil for nil).
func Floats3(s []Vec3) [][3]float32 {
	return unsafe.Slice((*[3]float32)(unsafe.SliceData(s)), len(s))
}

// Floats4 returns s as [][4]float32, sharing s's memory (nil for nil).
func Floats4(s []Vec4) [][4]float32 {
	return unsafe.Slice((*[4]float32)(unsafe.SliceData(s)), len(s))
}
