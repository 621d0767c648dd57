package cook

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/meshcook/meshcook/formats/cnb"
	"github.com/meshcook/meshcook/formats/payload"
	"github.com/meshcook/meshcook/internal/budget"
)

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writePNG(t *testing.T, p string, img image.Image) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// cookWorldDir cooks every source under dir into a cnb world and returns
// the output folder and blob 0's metadata with every blob's payload
// section.
func cookWorldDir(t *testing.T, dir string, edit func(*Options)) (string, *cnb.BlobMeta, [][]byte) {
	t.Helper()
	jobs, err := Plan([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	opts := DefaultOptions()
	opts.OutDir = t.TempDir()
	opts.Targets = []string{TargetCNB}
	opts.Jobs = 2
	if edit != nil {
		edit(&opts)
	}
	rep, err := Run(context.Background(), jobs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Errors) > 0 {
		t.Fatalf("cook errors: %v", rep.Errors)
	}
	meta, sections := readWorld(t, opts.OutDir)
	return opts.OutDir, meta, sections
}

// readWorld loads a written world through its lock file and checks it.
func readWorld(t *testing.T, out string) (*cnb.BlobMeta, [][]byte) {
	t.Helper()
	lb, err := os.ReadFile(filepath.Join(out, WorldLockName))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := ParseWorldLock(lb)
	if err != nil {
		t.Fatal(err)
	}
	meta, err := CheckWorld(out, lock)
	if err != nil {
		t.Fatal(err)
	}
	var sections [][]byte
	for _, bl := range lock.Blobs {
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(bl.Path)))
		if err != nil {
			t.Fatal(err)
		}
		_, sec, err := cnb.ParseBlob(b)
		if err != nil {
			t.Fatal(err)
		}
		sections = append(sections, sec)
	}
	return meta, sections
}

func resourcePayload(meta *cnb.BlobMeta, sections [][]byte, kind cnb.ResourceKind, handle uint32) []byte {
	for _, r := range meta.Resources {
		if r.Kind == kind && r.Handle == handle && r.Payload != nil {
			l := r.Payload
			return sections[l.BlobIndex][l.Offset : l.Offset+l.Len]
		}
	}
	return nil
}

// A heightfield from an 8-bit PNG cooks into one Mesh whose vertices are
// the grid in row-major order (row along +Z, column along +X) at the
// sampled heights, with an HFLD trailer of the same heights, upward
// triangles, and one fixed body in the physics budget.
func TestHeightfieldRoundTrip(t *testing.T) {
	dir := t.TempDir()
	const rows, cols = 5, 7
	img := image.NewGray(image.Rect(0, 0, cols, rows))
	for y := 0; y < rows; y++ {
		for x := 0; x < cols; x++ {
			img.SetGray(x, y, color.Gray{Y: uint8((x*37 + y*91) % 256)})
		}
	}
	writePNG(t, filepath.Join(dir, "land.png"), img)
	writeFile(t, filepath.Join(dir, "land.heightfield.json"), []byte(`{"size": [12, 8], "elevation": [-1, 4], "image": "land.png"}`))

	_, meta, sections := cookWorldDir(t, dir, nil)
	if len(meta.Resources) != 1 || meta.Resources[0].Kind != cnb.Mesh {
		t.Fatalf("resources %+v, want one Mesh", meta.Resources)
	}
	if meta.PhysicsBudget == nil || *meta.PhysicsBudget != (cnb.PhysicsBudgetRecord{Fixed: 1}) {
		t.Errorf("physics budget %+v, want one fixed body", meta.PhysicsBudget)
	}
	b := resourcePayload(meta, sections, cnb.Mesh, 0)
	m, err := payload.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	hf := m.Heightfield
	if hf == nil || hf.Rows != rows || hf.Cols != cols {
		t.Fatalf("heightfield %+v, want %d×%d", hf, rows, cols)
	}
	if len(m.Vertices) != rows*cols {
		t.Fatalf("%d vertices, want %d", len(m.Vertices), rows*cols)
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			i := r*cols + c
			want := float32(-1 + float64(img.GrayAt(c, r).Y)/255*5)
			if hf.Heights[i] != want {
				t.Fatalf("height (%d, %d) = %g, want %g", r, c, hf.Heights[i], want)
			}
			p := m.Vertices[i].Position
			if p != [3]float32{float32(c) * float32(12.0/(cols-1)), want, float32(r) * float32(8.0/(rows-1))} {
				t.Fatalf("vertex (%d, %d) at %v", r, c, p)
			}
			if m.Vertices[i].Normal[1] <= 0 {
				t.Errorf("vertex (%d, %d): normal %v does not face +Y", r, c, m.Vertices[i].Normal)
			}
		}
	}
	if len(m.Indices) != 6*(rows-1)*(cols-1) {
		t.Errorf("%d indices, want %d", len(m.Indices), 6*(rows-1)*(cols-1))
	}
	for i := 0; i+2 < len(m.Indices); i += 3 {
		a, b, c := m.Vertices[m.Indices[i]].Position, m.Vertices[m.Indices[i+1]].Position, m.Vertices[m.Indices[i+2]].Position
		// y of (b−a)×(c−a): positive for a counter-clockwise triangle seen from +Y.
		if ny := (b[2]-a[2])*(c[0]-a[0]) - (b[0]-a[0])*(c[2]-a[2]); ny <= 0 {
			t.Fatalf("triangle %d faces down (%v %v %v)", i/3, a, b, c)
		}
	}
}

// A 16-bit PNG keeps its precision, and inline samples work without one.
func TestHeightfieldSampleSources(t *testing.T) {
	dir := t.TempDir()
	img := image.NewGray16(image.Rect(0, 0, 2, 2))
	img.SetGray16(1, 0, color.Gray16{Y: 1})
	img.SetGray16(0, 1, color.Gray16{Y: 65535})
	writePNG(t, filepath.Join(dir, "g16.png"), img)
	writeFile(t, filepath.Join(dir, "a.heightfield.json"), []byte(`{"size": [1, 1], "elevation": [0, 65535], "image": "g16.png"}`))
	g, err := loadHeightGrid(filepath.Join(dir, "a.heightfield.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{0, 1, 65535, 0}; !equalF32(g.heights, want) {
		t.Errorf("16-bit heights %v, want %v", g.heights, want)
	}
	writeFile(t, filepath.Join(dir, "b.heightfield.json"), []byte(`{"size": [2, 1], "elevation": [10, 20], "rows": 2, "cols": 3, "samples": [0, 0.5, 1, 1, 0.5, 0]}`))
	g, err = loadHeightGrid(filepath.Join(dir, "b.heightfield.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float32{10, 15, 20, 20, 15, 10}; !equalF32(g.heights, want) || g.dx != 1 || g.dz != 1 {
		t.Errorf("inline heights %v (dx %g dz %g), want %v", g.heights, g.dx, g.dz, want)
	}
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Bad heightfield sources are refused with a message naming the file and
// the problem.
func TestHeightfieldBadSources(t *testing.T) {
	dir := t.TempDir()
	rgb := image.NewRGBA(image.Rect(0, 0, 2, 2))
	writePNG(t, filepath.Join(dir, "rgb.png"), rgb)
	writeFile(t, filepath.Join(dir, "notpng.png"), []byte("not a png"))
	cases := []struct{ json, want string }{
		{`{"size": [0, 1], "elevation": [0, 1], "rows": 2, "cols": 2}`, "size"},
		{`{"size": [1, 1], "elevation": [2, 1], "rows": 2, "cols": 2}`, "elevation"},
		{`{"size": [1, 1], "elevation": [0, 1], "rows": 1, "cols": 2}`, "rows 1"},
		{`{"size": [1, 1], "elevation": [0, 1], "rows": 2, "cols": 5000}`, "cols 5000"},
		{`{"size": [1, 1], "elevation": [0, 1], "rows": 2, "cols": 2, "samples": [0, 1]}`, "samples: 2 values"},
		{`{"size": [1, 1], "elevation": [0, 1], "rows": 2, "cols": 2, "samples": [0, 1, 2, 0]}`, "samples[2]"},
		{`{"size": [1, 1], "elevation": [0, 1], "image": "../up.png"}`, "leaves the source folder"},
		{`{"size": [1, 1], "elevation": [0, 1], "image": "rgb.png"}`, "grayscale"},
		{`{"size": [1, 1], "elevation": [0, 1], "image": "notpng.png"}`, "png"},
		{`{"size": [1, 1], "elevation": [0, 1], "image": "missing.png"}`, "missing.png"},
		{`{"size": [1, 1], "elevation": [0, 1], "image": "rgb.png", "rows": 2}`, "either image"},
		{`{"size": [1, 1], "elevation": [0, 1], "rows": 2, "cols": 2, "colour": 1}`, "unknown field"},
		{`{"size": [1, 1], `, "unexpected EOF"},
	}
	for i, c := range cases {
		p := filepath.Join(dir, "bad.heightfield.json")
		writeFile(t, p, []byte(c.json))
		_, err := loadHeightfield(p, false, budget.Default())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("case %d %s: error %v, want one naming the file and %q", i, c.json, err, c.want)
		}
	}
}

// A heightfield above 65,535 vertices is chunked in bands of whole rows
// (neighbours sharing their boundary row), each chunk's vertices its rows
// in grid order; chunk 0 carries the whole HFLD grid, the reduced levels
// are shared out, and the world counts one fixed body.
func TestHeightfieldChunkedInRowBands(t *testing.T) {
	dir := t.TempDir()
	const n = 260 // 67,600 vertices; bands of 65,536/260 = 252 rows
	var b strings.Builder
	fmt.Fprintf(&b, `{"size": [259, 259], "elevation": [0, 10], "rows": %d, "cols": %d, "samples": [`, n, n)
	for i := 0; i < n*n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%g", float64((i/n*7+i%n*3)%11)/10)
	}
	b.WriteString("]}")
	writeFile(t, filepath.Join(dir, "big.heightfield.json"), []byte(b.String()))

	out, meta, sections := cookWorldDir(t, dir, nil)
	if len(meta.Resources) != 2 || meta.PhysicsBudget == nil || meta.PhysicsBudget.Fixed != 1 {
		t.Fatalf("resources %d, physics %+v; want 2 chunks and one fixed body", len(meta.Resources), meta.PhysicsBudget)
	}
	lb, _ := os.ReadFile(filepath.Join(out, WorldLockName))
	lock, _ := ParseWorldLock(lb)
	for k, r := range lock.Resources {
		if r.Name != payload.ChunkName("big.heightfield", 0, k) {
			t.Errorf("resource %d named %q", k, r.Name)
		}
	}
	tris := 0
	for k, rows := range [][2]int{{0, 251}, {251, 259}} {
		m, err := payload.Parse(resourcePayload(meta, sections, cnb.Mesh, uint32(k)))
		if err != nil {
			t.Fatal(err)
		}
		tris += len(m.Indices) / 3
		if (k == 0) != (m.Heightfield != nil) {
			t.Errorf("chunk %d: heightfield %v, want it on chunk 0 only", k, m.Heightfield != nil)
		}
		if m.Heightfield != nil && (m.Heightfield.Rows != n || m.Heightfield.Cols != n) {
			t.Errorf("HFLD %d×%d, want the whole %d×%d grid", m.Heightfield.Rows, m.Heightfield.Cols, n, n)
		}
		if len(m.LODs) == 0 {
			t.Fatalf("chunk %d has no reduced levels", k)
		}
		// Chunks switch together: distances come from the whole mesh.
		if want := payload.DefaultSwitchDistance(payload.HalfDiagonal([3]float32{0, 0, 0}, [3]float32{259, 10, 259}), 1); m.LODs[0].SwitchDistance != want {
			t.Errorf("chunk %d LOD1 at %g, want the whole mesh's %g", k, m.LODs[0].SwitchDistance, want)
		}
		band := (rows[1] - rows[0] + 1) * n
		if len(m.Vertices) < band {
			t.Fatalf("chunk %d: %d vertices, want at least its %d grid vertices", k, len(m.Vertices), band)
		}
		for j := 0; j < band; j++ {
			r, c := rows[0]+j/n, j%n
			if p := m.Vertices[j].Position; p[0] != float32(c) || p[2] != float32(r) {
				t.Fatalf("chunk %d vertex %d at %v, want grid vertex (%d, %d)", k, j, p, r, c)
			}
		}
	}
	if tris != 2*(n-1)*(n-1) {
		t.Errorf("%d LOD0 triangles over the chunks, want %d", tris, 2*(n-1)*(n-1))
	}
}
