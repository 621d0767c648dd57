package mesh

import "math"

// ReorderVerticesByFirstUse renumbers s's vertices in the order the index
// buffer first references them (the vertex-fetch order: index reads then
// walk the vertex buffer forwards), permuting every stream. Unreferenced
// vertices are dropped. s must be valid (see Validate).
func ReorderVerticesByFirstUse(s *Submesh) {
	newOf := make([]uint32, len(s.Positions))
	for i := range newOf {
		newOf[i] = math.MaxUint32
	}
	src := make([]uint32, 0, len(s.Positions))
	for c, v := range s.Indices {
		if newOf[v] == math.MaxUint32 {
			newOf[v] = uint32(len(src))
			src = append(src, v)
		}
		s.Indices[c] = newOf[v]
	}
	s.gather(src)
}
