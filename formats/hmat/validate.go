package hmat

import (
	"fmt"
	"math"
)

// Validate checks every material: the twelve float factors are finite and
// flags use only bit 0 (double-sided) and bits 1-2 (alpha mode 0, 1 or 2).
func Validate(ms []Material) error { return validate(ms, false) }

func validate(ms []Material, withOffsets bool) error {
	for i, m := range ms {
		off := func(rel int64) int64 {
			if !withOffsets {
				return -1
			}
			return HeaderSize + MaterialSize*int64(i) + rel
		}
		for k, f := range m.floats() {
			if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
				return &FormatError{Offset: off(4 * int64(k)), Msg: fmt.Sprintf("material %d: non-finite factor %g", i, f)}
			}
		}
		if m.Flags&^knownFlags != 0 || m.AlphaMode() == 3 {
			return &FormatError{Offset: off(48), Msg: fmt.Sprintf("material %d: bad flags %#x", i, m.Flags)}
		}
	}
	return nil
}
