package cook

import (
	"context"
	"fmt"

	"github.com/meshcook/meshcook/formats/msh7"
	"github.com/meshcook/meshcook/meshlet"
)

// This file adapts a cooked scene to MSH7 meshlet payloads, one per
// submesh (MSH7 has no submesh or material table): <name>.<i>.msh7, where i
// is the submesh's index in the .hmesh SUBM table. Submeshes without
// triangles write nothing.

// MSH7 meshlet limits (formats.md §4), tighter than the engine's 96/126
// would not help: meshcook's builder already fills to them.
const (
	msh7MaxVertices  = 96
	msh7MaxTriangles = 126
)

func packMSH7(ctx context.Context, job Job, c *cooked, opts Options) ([]outputFile, error) {
	mopts := opts.Meshlet
	mopts.MaxVertices, mopts.MaxTriangles = msh7MaxVertices, msh7MaxTriangles
	var out []outputFile
	for i := range c.scene.Submeshes {
		s := &c.scene.Submeshes[i]
		if len(s.Indices) == 0 {
			continue
		}
		pos := c.positions[i]
		r, err := meshlet.BuildContext(ctx, s.Indices, pos, mopts)
		if err != nil {
			return nil, ctxOr(ctx, fmt.Errorf("submesh %d: meshlets: %w", i, err))
		}
		bounds, err := meshlet.ComputeAllBoundsContext(ctx, r, pos)
		if err != nil {
			return nil, err // only a done ctx stops it
		}
		in := msh7.SubmeshInput(s, c.scene.Skeleton)
		for k, m := range r.Meshlets {
			b := bounds[k]
			in.Meshlets = append(in.Meshlets, msh7.InputMeshlet{
				Vertices:  r.Vertices[m.VertexOffset : m.VertexOffset+m.VertexCount],
				Triangles: r.Triangles[3*m.TriangleOffset : 3*(m.TriangleOffset+m.TriangleCount)],
				Bounds:    &msh7.SourceBounds{Center: b.Center, Radius: b.Radius, ConeAxis: b.ConeAxis, ConeCutoff: b.ConeCutoff},
			})
		}
		f, err := msh7.Build(in)
		if err != nil {
			return nil, fmt.Errorf("submesh %d: %w", i, err)
		}
		data, err := msh7.Encode(f)
		if err != nil {
			return nil, fmt.Errorf("submesh %d: %w", i, err)
		}
		out = append(out, outputFile{
			name:     fmt.Sprintf("%s.%d.msh7", job.Name, i),
			kind:     "msh7",
			data:     data,
			validate: readBack("msh7", data),
		})
	}
	return out, nil
}
