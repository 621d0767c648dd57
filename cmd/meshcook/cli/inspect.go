package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/meshcook/meshcook/formats/kinds"
	"github.com/meshcook/meshcook/internal/preview"
)

func newInspectCmd(stdout io.Writer) *cobra.Command {
	var asJSON, dump bool
	var cutErrors []float64
	pf := pngFlags{yaw: preview.DefaultYaw, pitch: preview.DefaultPitch, size: preview.DefaultSize}
	cmd := &cobra.Command{
		Use:   "inspect FILE",
		Short: "Summarise what a cooked file holds",
		Long: `Inspect prints a human summary of a cooked .hmesh or .hmat: counts, limits,
bounds, submeshes and materials. --json prints the same as one object;
--dump prints every field of the file as stable text (used for golden files).
For each reduced LOD level it shows the triangles drawn and the error
measured from the file: the sampled symmetric Hausdorff distance between
LOD0 and the level, relative to the mesh's bounding-box diagonal.
A cluster hierarchy (cook --cluster-lod) shows its levels, clusters and
triangles per level, the DAG's size, and the triangles of the cut at each
--error from a fixed camera at twice the bounding box's max corner (fovy
60°, near 0.01; as meshoptimizer's demo measures its cuts).
A skinned .hmesh shows its skeleton (joint count, root joints); a .hmat
every texture ref; a .hanim each clip's name, duration and channels; a
.ktx2 its format (sRGB or UNORM), size and mip levels. A source (.gltf,
.glb, .fbx) is imported as a cook would import it and summarized: draws
before and after merging, triangles, materials, skin, morph targets,
clips, and what the cook would drop.

--png OUT.png draws a picture instead (docs/preview.md) of a .hmesh, a
.msh7, a mesh payload (.payload, .skmv), a mesh resource of a .cnb world
(name blob 0 with --resource NAME as world-lock.json names it; without it,
a contact sheet of every mesh) or a mesh pack entry (--entry NAME; without
it, a contact sheet of every entry). The default picture has one --size
square panel each for LOD0 shaded (back faces tinted red), LOD0 with each
meshlet in its own colour, and each LOD level labelled with its triangle
count and measured error, and with a cluster hierarchy its cut (at
--error, one threshold, default 0.002, from the corner camera above) with
each cluster in its level's colour, seen from a 3/4 view framed on the
mesh (--yaw/--pitch in degrees). --view draws one panel set instead:
shaded, meshlets, lods (LOD0 and every level), normals (as RGB), uv
(red/green on a checkerboard), cones (meshlets the cone test culls from
this view drawn dark grey) or cut. A skinned .hmesh is drawn in bind pose; --clip NAME
(or #N, the N-th clip) --time T poses it with that clip of the .hanim
beside it. The same file and flags always give the same PNG bytes.`,
		Example: `  meshcook inspect out/models/chair.hmesh
  meshcook inspect out/models/chair.hmat --json
  meshcook inspect out/box.hmesh --dump > box.golden.txt
  meshcook inspect out/Fox.hanim
  meshcook inspect out/Fox/image_0.ktx2 --json

  # pictures: LODs and meshlets side by side, or one view from behind
  meshcook inspect out/models/chair.hmesh --png chair.png
  meshcook inspect out/models/chair.hmesh --png cones.png --view cones --yaw 215 --size 512
  meshcook inspect out/scan.hmesh --png cut.png --view cut --error 0.004
  meshcook inspect out/Fox.hmesh --png fox.png --clip Run --time 0.4
  meshcook inspect out/world/data/0 --png hills.png --resource terrain/hills.heightfield/0
  meshcook inspect out/buildings.smpk --png sheet.png --size 192`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("inspect: name exactly one file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if pf.out != "" {
				pf.timeSet = cmd.Flags().Changed("time")
				if asJSON || dump {
					return usageError("inspect: --png writes a picture; drop --json/--dump")
				}
				if cmd.Flags().Changed("error") {
					if len(cutErrors) != 1 || !(cutErrors[0] > 0) {
						return usageError("inspect: --png draws one cut: give --error one threshold > 0")
					}
					pf.cutError = cutErrors[0]
				}
				return runInspectPNG(cmd.Context(), stdout, args[0], pf)
			}
			if err := pngOnlyFlags(cmd); err != nil {
				return err
			}
			if cmd.Flags().Changed("error") {
				return runInspectCuts(stdout, args[0], cutErrors, asJSON, dump)
			}
			return runInspect(stdout, args[0], asJSON, dump)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as one JSON object")
	cmd.Flags().BoolVar(&dump, "dump", false, "print every field as stable text")
	cmd.Flags().Float64SliceVar(&cutErrors, "error", nil, "a .hmesh cluster hierarchy: cut it at these projected errors (fractions of the screen height; default 0.0005,0.001,0.002,0.004,0.008)")
	addPNGFlags(cmd, &pf)
	return cmd
}

func runInspect(stdout io.Writer, path string, asJSON, dump bool) error {
	b, k, err := readKind(path)
	if err == nil {
		err = inspectAs(stdout, k, path, b, asJSON, dump)
	}
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return withCode(ExitBadInput, fmt.Errorf("inspect: %s: %w", path, err))
	}
	return nil
}

// inspectAs prints the file as its kind: its dump, or its summary as JSON
// or text.
func inspectAs(w io.Writer, k kinds.Description, path string, b []byte, asJSON, dump bool) error {
	if dump {
		return k.Dump(w, path, b)
	}
	s, err := k.Summarize(path, b)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(w, s)
	}
	return s.WriteText(w)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return withCode(ExitOutput, err)
	}
	return nil
}
