package cook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/internal/budget"
	"github.com/meshcook/meshcook/internal/srcpath"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/simplify"
)

// HeightfieldExt is the suffix of a heightfield source: a small JSON file
// (docs/project.md) giving the grid's size and elevation range, with its
// samples from a grayscale PNG beside it or inline.
const HeightfieldExt = ".heightfield.json"

// Heightfield grid limits.
const (
	minHeightfieldSide = 2
	maxHeightfieldSide = 4097
	maxHeightfieldJSON = 64 << 20
	maxHeightfieldPNG  = 256 << 20
	// maxHeightfieldMetres bounds extents and elevations, and
	// minHeightfieldCell the spacing of samples, so every vertex is
	// finite and distinct in float32.
	maxHeightfieldMetres = 1e7
	minHeightfieldCell   = 1e-4
)

// HeightfieldSource is the JSON of a .heightfield.json source.
type HeightfieldSource struct {
	// Size is the grid's extent in metres: [along +X (columns), along +Z (rows)].
	Size [2]float64 `json:"size"`
	// Elevation maps samples to metres: sample 0 → [0], full scale → [1].
	Elevation [2]float64 `json:"elevation"`
	// Image is a grayscale 8- or 16-bit PNG in the same folder (or below
	// it): pixel (x, y) is the sample of column x, row y.
	Image string `json:"image,omitempty"`
	// Rows and Cols size a grid without an image: with Samples (row-major,
	// each in [0, 1]) or flat at Elevation[0] without.
	Rows    int       `json:"rows,omitempty"`
	Cols    int       `json:"cols,omitempty"`
	Samples []float64 `json:"samples,omitempty"`
}

// IsHeightfieldSource reports whether p names a heightfield source.
func IsHeightfieldSource(p string) bool {
	return strings.HasSuffix(strings.ToLower(p), HeightfieldExt)
}

// heightGrid is a heightfield's world-space heights, row-major: vertex
// (row r, column c) sits at (c·dx, heights[r·cols+c], r·dz).
type heightGrid struct {
	rows, cols int
	dx, dz     float32
	heights    []float32
}

func (g *heightGrid) position(r, c int) mesh.Vec3 {
	return mesh.Vec3{float32(c) * g.dx, g.heights[r*g.cols+c], float32(r) * g.dz}
}

// loadHeightGrid reads and checks a heightfield source and its image
// (strict: under strict paths, internal/srcpath).
func loadHeightGrid(p string, strict bool) (*heightGrid, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("heightfield: %s: %w", p, unwrapPathError(err))
	}
	if st.Size() > maxHeightfieldJSON {
		return nil, fmt.Errorf("heightfield: %s: %d bytes is larger than the %d-byte limit", p, st.Size(), maxHeightfieldJSON)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("heightfield: %s: %w", p, unwrapPathError(err))
	}
	var src HeightfieldSource
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&src); err != nil {
		return nil, fmt.Errorf("heightfield: %s: %w", p, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("heightfield: %s: data after the JSON object", p)
	}
	g, err := src.grid(filepath.Dir(p), strict)
	if err != nil {
		return nil, fmt.Errorf("heightfield: %s: %w", p, err)
	}
	return g, nil
}

// grid checks the source and samples it into world-space heights; dir is
// the source's folder (the image is read from there, under the path policy).
func (s *HeightfieldSource) grid(dir string, strict bool) (*heightGrid, error) {
	if !(s.Size[0] > 0 && s.Size[0] <= maxHeightfieldMetres && s.Size[1] > 0 && s.Size[1] <= maxHeightfieldMetres) {
		return nil, fmt.Errorf("size %v: want two positive extents in metres, at most %g", s.Size, float64(maxHeightfieldMetres))
	}
	lo, hi := s.Elevation[0], s.Elevation[1]
	if !(lo >= -maxHeightfieldMetres && hi <= maxHeightfieldMetres && lo <= hi) {
		return nil, fmt.Errorf("elevation %v: want [min, max] with min <= max, each within ±%g metres", s.Elevation, float64(maxHeightfieldMetres))
	}
	var samples []float64
	rows, cols := s.Rows, s.Cols
	if s.Image != "" {
		if rows != 0 || cols != 0 || s.Samples != nil {
			return nil, errors.New("give either image or rows/cols/samples, not both")
		}
		var err error
		samples, rows, cols, err = readGrayPNG(dir, s.Image, strict)
		if err != nil {
			return nil, err
		}
	} else {
		if err := checkSide("rows", rows); err != nil {
			return nil, err
		}
		if err := checkSide("cols", cols); err != nil {
			return nil, err
		}
		if s.Samples != nil {
			if len(s.Samples) != rows*cols {
				return nil, fmt.Errorf("samples: %d values, want rows·cols = %d", len(s.Samples), rows*cols)
			}
			for i, v := range s.Samples {
				if !(v >= 0 && v <= 1) {
					return nil, fmt.Errorf("samples[%d] = %g: want a value in [0, 1]", i, v)
				}
			}
			samples = s.Samples
		} else {
			samples = make([]float64, rows*cols)
		}
	}
	if s.Size[0]/float64(cols-1) < minHeightfieldCell || s.Size[1]/float64(rows-1) < minHeightfieldCell {
		return nil, fmt.Errorf("size %v over %d×%d samples: cells must be at least %g m", s.Size, rows, cols, minHeightfieldCell)
	}
	g := &heightGrid{rows: rows, cols: cols,
		dx: float32(s.Size[0] / float64(cols-1)), dz: float32(s.Size[1] / float64(rows-1)),
		heights: make([]float32, rows*cols)}
	for i, v := range samples {
		g.heights[i] = float32(lo + v*(hi-lo))
	}
	return g, nil
}

func checkSide(what string, n int) error {
	if n < minHeightfieldSide || n > maxHeightfieldSide {
		return fmt.Errorf("%s %d: want %d..%d", what, n, minHeightfieldSide, maxHeightfieldSide)
	}
	return nil
}

// readGrayPNG reads a grayscale 8- or 16-bit PNG below dir as samples in
// [0, 1] (value / 255 or / 65535), row-major from the top image row.
func readGrayPNG(dir, name string, strict bool) (samples []float64, rows, cols int, err error) {
	folder, err := srcpath.Open(dir, strict)
	if err != nil {
		return nil, 0, 0, err
	}
	defer folder.Close()
	p := filepath.Join(dir, filepath.FromSlash(name))
	b, err := folder.ReadFile(name, maxHeightfieldPNG)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("image %q: %w", name, unwrapPathError(err))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("image %s: %w", p, err)
	}
	if err := checkSide("image height", cfg.Height); err != nil {
		return nil, 0, 0, fmt.Errorf("image %s: %w", p, err)
	}
	if err := checkSide("image width", cfg.Width); err != nil {
		return nil, 0, 0, fmt.Errorf("image %s: %w", p, err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("image %s: %w", p, err)
	}
	rows, cols = cfg.Height, cfg.Width
	samples = make([]float64, 0, rows*cols)
	bnd := img.Bounds()
	switch im := img.(type) {
	case *image.Gray:
		for y := 0; y < rows; y++ {
			for x := 0; x < cols; x++ {
				samples = append(samples, float64(im.GrayAt(bnd.Min.X+x, bnd.Min.Y+y).Y)/255)
			}
		}
	case *image.Gray16:
		for y := 0; y < rows; y++ {
			for x := 0; x < cols; x++ {
				samples = append(samples, float64(im.Gray16At(bnd.Min.X+x, bnd.Min.Y+y).Y)/65535)
			}
		}
	default:
		return nil, 0, 0, fmt.Errorf("image %s: %T: want an 8- or 16-bit grayscale PNG", p, img)
	}
	return samples, rows, cols, nil
}

// loadHeightfield is the heightfield source kind's importer: one submesh,
// the grid's vertices row-major (row along +Z, column along +X), two
// counter-clockwise (seen from +Y) triangles per cell, UVs spanning [0, 1],
// no material. Normals and tangents are generated by canonicalization.
func loadHeightfield(p string, strict bool, b budget.Budget) (*mesh.Scene, error) {
	g, err := loadHeightGrid(p, strict)
	if err != nil {
		return nil, err
	}
	if err := b.CheckTriangles("", 2*int64(g.rows-1)*int64(g.cols-1)); err != nil {
		return nil, &InputError{Path: p, Err: err}
	}
	s := mesh.Submesh{Name: "heightfield", Material: -1,
		Positions: make([]mesh.Vec3, 0, g.rows*g.cols), UV0: make([]mesh.Vec2, 0, g.rows*g.cols),
		Indices: make([]uint32, 0, 6*(g.rows-1)*(g.cols-1))}
	for r := 0; r < g.rows; r++ {
		for c := 0; c < g.cols; c++ {
			s.Positions = append(s.Positions, g.position(r, c))
			s.UV0 = append(s.UV0, mesh.Vec2{float32(c) / float32(g.cols-1), float32(r) / float32(g.rows-1)})
		}
	}
	for r := 0; r+1 < g.rows; r++ {
		for c := 0; c+1 < g.cols; c++ {
			v00 := uint32(r*g.cols + c)
			v01, v10, v11 := v00+1, v00+uint32(g.cols), v00+uint32(g.cols)+1
			s.Indices = append(s.Indices, v00, v10, v01, v01, v10, v11)
		}
	}
	return &mesh.Scene{Submeshes: []mesh.Submesh{s}}, nil
}

// gridVertices maps each grid index to the cooked submesh vertex at its
// position: cooking reorders vertices but keeps every grid vertex once.
func gridVertices(s *mesh.Submesh, g *heightGrid) ([]uint32, error) {
	n := g.rows * g.cols
	if len(s.Positions) != n {
		return nil, fmt.Errorf("heightfield: %d cooked vertices, want the grid's %d", len(s.Positions), n)
	}
	at := make(map[mesh.Vec3]int, n)
	for r := 0; r < g.rows; r++ {
		for c := 0; c < g.cols; c++ {
			at[g.position(r, c)] = r*g.cols + c
		}
	}
	out := make([]uint32, n)
	filled := make([]bool, n)
	for v, p := range s.Positions {
		gi, ok := at[p]
		if !ok || filled[gi] {
			return nil, fmt.Errorf("heightfield: cooked vertex %d at %v is not a distinct grid vertex", v, p)
		}
		filled[gi] = true
		out[gi] = uint32(v)
	}
	return out, nil
}

// splitGrid chunks a heightfield above 65,535 vertices in bands of whole
// rows, neighbouring bands sharing their boundary row, so each chunk's
// vertices are its rows in grid order (row-major, as in HFLD) and chunk k
// starts at row k·(band−1), band = ⌊65,536 / cols⌋ rows. Each LOD0
// triangle (a half cell) goes to the band holding both of its rows;
// chunkLevels shares out the reduced levels (vertices a chunk gains for
// them follow its grid vertices).
func splitGrid(name string, prim int, s *mesh.Submesh, g *heightGrid, levels []simplify.Level) ([]meshPiece, error) {
	toV, err := gridVertices(s, g)
	if err != nil {
		return nil, err
	}
	band := payload.MaxChunkVertices / g.cols // ≥ 15 rows: cols ≤ 4097
	step := band - 1
	count := (g.rows - 2 + step) / step // bands covering rows 0..rows-1
	pieces := make([]meshPiece, count)
	for k := range pieces {
		r0 := k * step
		r1 := min(r0+band-1, g.rows-1)
		p := meshPiece{name: payload.ChunkName(name, prim, k)}
		for gi := r0 * g.cols; gi < (r1+1)*g.cols; gi++ {
			p.verts = append(p.verts, toV[gi])
		}
		pieces[k] = p
	}
	gridOf := make([]int, len(s.Positions)) // cooked vertex → grid index
	for gi, v := range toV {
		gridOf[v] = gi
	}
	for t := 0; t+2 < len(s.Indices); t += 3 {
		tri := s.Indices[t : t+3]
		r := [3]int{gridOf[tri[0]] / g.cols, gridOf[tri[1]] / g.cols, gridOf[tri[2]] / g.cols}
		lo, hi := min(r[0], r[1], r[2]), max(r[0], r[1], r[2])
		k := min(lo/step, count-1)
		r0 := k * step
		if hi > r0+band-1 {
			return nil, fmt.Errorf("heightfield: triangle %d spans rows %d..%d, more than one band", t/3, lo, hi)
		}
		for _, v := range tri {
			pieces[k].lod0 = append(pieces[k].lod0, uint16(gridOf[v]-r0*g.cols))
		}
	}
	chunkLevels(pieces, levels)
	return pieces, nil
}

// toGridOrder puts a heightfield piece's vertices back in grid order
// (cooking reorders them for the vertex cache), so payload vertex
// r·cols + c is grid vertex (r, c), as the HFLD trailer requires. The
// piece must be the whole submesh (verts the identity).
func (p *meshPiece) toGridOrder(s *mesh.Submesh, g *heightGrid) error {
	toV, err := gridVertices(s, g)
	if err != nil {
		return err
	}
	newIndex := make([]uint16, len(toV)) // cooked vertex → grid index
	for gi, v := range toV {
		newIndex[v] = uint16(gi)
	}
	p.verts = toV
	remap := func(idx []uint16) {
		for i, j := range idx {
			idx[i] = newIndex[j]
		}
	}
	remap(p.lod0)
	for _, l := range p.lods {
		remap(l)
	}
	return nil
}
