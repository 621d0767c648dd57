package hanim

import (
	"bufio"
	"fmt"
	"io"
)

// Dump prints every clip, channel and key as stable text (floats in
// Go's shortest round-trip form).
func Dump(w io.Writer, clips []Clip) error {
	bw := bufio.NewWriter(w)
	paths := [...]string{"translation", "rotation", "scale", "weights"}
	interps := [...]string{"step", "linear"}
	fmt.Fprintf(bw, "hanim v%d clips %d\n", Version, len(clips))
	for ci, c := range clips {
		fmt.Fprintf(bw, "clip %d %q duration %v channels %d\n", ci, c.Name, c.Duration, len(c.Channels))
		for hi, h := range c.Channels {
			path, interp := fmt.Sprint(h.Path), fmt.Sprint(h.Interp)
			if int(h.Path) < len(paths) {
				path = paths[h.Path]
			}
			if int(h.Interp) < len(interps) {
				interp = interps[h.Interp]
			}
			fmt.Fprintf(bw, "  channel %d joint %d %s %s keys %d\n", hi, h.Joint, path, interp, len(h.Times))
			n := h.Components()
			for k, t := range h.Times {
				if (k+1)*n > len(h.Values) {
					break
				}
				fmt.Fprintf(bw, "    %v %v\n", t, h.Values[k*n:(k+1)*n])
			}
		}
	}
	return bw.Flush()
}
