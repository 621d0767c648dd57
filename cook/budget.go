package cook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig of the kinds ktx2.FromImage reads
	_ "image/png"

	"github.com/meshcook/meshcook/importer/fbx"
	gltfimport "github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/internal/budget"
	"github.com/meshcook/meshcook/mesh"
)

// The resource budget (internal/budget, Options.Budget) is checked in three
// places: the importers get limits derived from it, so they refuse before
// allocating; the imported scene's triangles and every image's size (read
// from its header) are checked before any stage runs; and the job reserves
// its estimated peak from the cook's shared memory pool (budget.Pool in
// the context Run gives its jobs) for the stages that follow.

// gltfOptions are the glTF importer's limits under b: every triangle needs
// three indices, and no more vertices than corners are useful.
func gltfOptions(b budget.Budget, strict bool) gltfimport.Options {
	return gltfimport.Options{
		MaxIndices:  b.MaxCorners(),
		MaxVertices: b.MaxCorners(),
		StrictPaths: strict,
	}
}

// fbxOptions are the FBX reader's limits under b: decoded data (checked
// before each array is inflated) and polygon corners (before the meshes
// are built); strict is the path policy for its textures.
func fbxOptions(b budget.Budget, strict bool) fbx.Options {
	return fbx.Options{
		StrictPaths:        strict,
		MaxArrayBytes:      b.OrDefault().DecodedBytes,
		MaxTotalArrayBytes: b.OrDefault().DecodedBytes,
		MaxCorners:         b.MaxCorners(),
	}
}

// budgetHint adds, to an importer's limit error, which flag raises it.
func budgetHint(err error) error {
	var fe *fbx.FormatError
	if errors.As(err, &fe) && errors.Is(err, fbx.ErrLimit) {
		return fmt.Errorf("%w (the resource budget: raise it with %s or %s)", err, budget.FlagDecodedBytes, budget.FlagTriangles)
	}
	return err
}

// checkSceneBudget refuses a scene past the triangle budget or with an
// image past the pixel budget (read from the image's header, never
// decoded here), and returns the job's peak estimate for the pool.
func checkSceneBudget(job Job, scene *mesh.Scene, b budget.Budget) (estimate int64, err error) {
	var tris int64
	for i := range scene.Submeshes {
		tris += int64(scene.Submeshes[i].TriangleCount())
	}
	if err := b.CheckTriangles("", tris); err != nil {
		return 0, &InputError{Path: job.Source, Err: err}
	}
	var pixels int64
	for i, im := range scene.Images {
		if im.Data == nil {
			continue
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(im.Data))
		if err != nil {
			continue // not an image ktx2 reads: the texture stage warns about it
		}
		what := fmt.Sprintf("image %d (%q)", i, im.Name)
		if err := b.CheckImage("", what, cfg.Width, cfg.Height); err != nil {
			return 0, &InputError{Path: job.Source, Err: err}
		}
		pixels = max(pixels, int64(cfg.Width)*int64(cfg.Height))
	}
	return budget.JobEstimate(tris, pixels), nil
}

// reserve takes the job's estimate from the pool ctx carries.
func reserve(ctx context.Context, estimate int64) (func(), error) {
	return budget.PoolFrom(ctx).Acquire(ctx, estimate)
}
