// Package bake turns a primitive-part catalog (docs/catalog.md) into a
// static mesh pack: every entry's every state is tessellated at one chord
// tolerance (package tessellate), merged into one mesh named
// "<entry>/<state>" with index ranges per material and a bounding sphere,
// and written as a .smpk (formats/meshpack). The bake reports triangles
// before (at the authors' segment counts) and after, per entry and in
// total. Check compares an existing pack with a fresh bake: the seed's
// "pack equals fresh merge" CI lane.
//
// The same catalog and options always give the same bytes.
package bake

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/mesh"
	"github.com/meshcook/meshcook/tessellate"
)

// Options are the bake settings; DefaultOptions is the one place their
// defaults live.
type Options struct {
	// Tolerance is the chord tolerance in metres (tessellate.DefaultTolerance).
	Tolerance float64
	// StrictPaths refuses a source part whose real path (or that of a file
	// it refers to) leaves the catalog's folder through a symbolic link
	// (internal/srcpath); by default links are followed.
	StrictPaths bool
}

// DefaultOptions returns the defaults: 1.5 mm tolerance.
func DefaultOptions() Options { return Options{Tolerance: tessellate.DefaultTolerance} }

// Validate rejects a tolerance that is not a positive length up to 1 m.
func (o Options) Validate() error {
	if !(o.Tolerance > 0 && o.Tolerance <= 1) {
		return fmt.Errorf("bake: tolerance %v m outside (0, 1]", o.Tolerance)
	}
	return nil
}

// EntryReport is one baked mesh's line of the report.
type EntryReport struct {
	Name            string `json:"name"`
	Parts           int    `json:"parts"`
	Vertices        int    `json:"vertices"`
	TrianglesBefore int    `json:"triangles_before"`
	TrianglesAfter  int    `json:"triangles_after"`
	// LimitedParts counts parts whose requested segments were too few for
	// the tolerance (they keep the request).
	LimitedParts int `json:"limited_parts"`
	// SourceMeshes counts the source submeshes merged in (rigged catalogs'
	// source parts) and SourceTriangles their triangles, which are in
	// both TrianglesBefore and TrianglesAfter (a source mesh is not
	// re-tessellated).
	SourceMeshes    int `json:"source_meshes"`
	SourceTriangles int `json:"source_triangles"`
}

// PackExt is the extension a pack of the report's family is named with:
// .rmpk for a rigged pack, .smpk otherwise.
func (r Report) PackExt() string {
	if r.Family == meshpack.Rigged.String() {
		return meshpack.Rigged.Ext()
	}
	return meshpack.Static.Ext()
}

// Report is what a bake did.
type Report struct {
	// Family is the pack written: "static" (.smpk) or "rigged" (.rmpk).
	Family          string        `json:"family"`
	Tolerance       float64       `json:"tolerance"`
	Entries         []EntryReport `json:"entries"`
	TrianglesBefore int           `json:"triangles_before"`
	TrianglesAfter  int           `json:"triangles_after"`
	// Reduction is TrianglesBefore / TrianglesAfter (2 means half as many).
	Reduction float64 `json:"reduction"`
	// MaxBound is the largest error bound of any part, in metres; above
	// Tolerance only when some part was limited by its request.
	MaxBound        float64 `json:"max_bound"`
	LimitedParts    int     `json:"limited_parts"`
	SourceTriangles int     `json:"source_triangles"`
	// Sources lists the files source parts read, '/'-separated and
	// relative to the catalog's folder, each once, in the order first
	// read (a glTF's external buffers included): with the catalog, what
	// the pack depends on.
	Sources []string `json:"sources"`
}

// Bake reads the catalog at path and returns the pack file bytes (one zstd
// frame) and the report. The bytes have been decoded back and validated by
// formats/meshpack before they are returned.
func Bake(ctx context.Context, catalogPath string, opts Options) ([]byte, Report, error) {
	c, err := LoadCatalog(catalogPath)
	if err != nil {
		return nil, Report{}, err
	}
	p, rep, err := BakeCatalog(ctx, c, opts)
	if err != nil {
		return nil, rep, err
	}
	b, err := meshpack.Marshal(p)
	if err != nil {
		return nil, rep, fmt.Errorf("bake: %s: %w", catalogPath, err)
	}
	// Payload validation: read every byte back before anyone writes it.
	if _, err := meshpack.Decode(b); err != nil {
		return nil, rep, fmt.Errorf("bake: %s: written pack does not read back: %w", catalogPath, err)
	}
	return b, rep, nil
}

// LoadCatalog reads and validates the catalog file at path.
func LoadCatalog(path string) (*Catalog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("bake: %w", err)
	}
	defer f.Close()
	c, err := ParseCatalog(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.Path = path
	return c, nil
}

// BakeCatalog tessellates and merges every entry and state of c, in
// catalog order. Source parts are read relative to c.Path's folder, each
// file once.
func BakeCatalog(ctx context.Context, c *Catalog, opts Options) (*meshpack.Pack, Report, error) {
	if err := opts.Validate(); err != nil {
		return nil, Report{}, err
	}
	rep := Report{Family: c.Family.String(), Tolerance: opts.Tolerance}
	p := &meshpack.Pack{Family: c.Family}
	src := newSources(c.Path, opts.StrictPaths)
	defer src.close()
	for _, e := range c.Entries {
		for _, s := range e.States {
			if err := ctx.Err(); err != nil {
				return nil, rep, fmt.Errorf("bake: %w", err)
			}
			name := e.Name + "/" + s.Name
			entry, er, err := merge(c.Family, name, s.Parts, opts, src)
			if err != nil {
				if c.Path != "" {
					err = fmt.Errorf("%s: %w", c.Path, err)
				}
				return nil, rep, fmt.Errorf("bake: %w", err)
			}
			p.Entries = append(p.Entries, entry)
			rep.Entries = append(rep.Entries, er.EntryReport)
			rep.TrianglesBefore += er.TrianglesBefore
			rep.TrianglesAfter += er.TrianglesAfter
			rep.LimitedParts += er.LimitedParts
			rep.SourceTriangles += er.SourceTriangles
			rep.MaxBound = math.Max(rep.MaxBound, er.maxBound)
		}
	}
	rep.Sources = append([]string{}, src.files...)
	if rep.TrianglesAfter > 0 {
		rep.Reduction = float64(rep.TrianglesBefore) / float64(rep.TrianglesAfter)
	}
	return p, rep, nil
}

type mergeReport struct {
	EntryReport
	maxBound float64
}

// merge tessellates parts and merges them into one pack entry: vertices in
// part order, triangles grouped by material id (ascending), one range per
// material present, and a bounding sphere holding every vertex. A static
// vertex's material is (material id, palette slot, timber 0/1, 0); a rigged
// vertex carries the part's bones, weights and colour role, or a source
// part's own joints and weights. Errors start with the mesh's name (the
// caller adds "bake: " and the catalog path).
func merge(family meshpack.Family, name string, parts []Part, opts Options, srcs *sources) (meshpack.Entry, mergeReport, error) {
	m := &merger{
		rep:        mergeReport{EntryReport: EntryReport{Name: name, Parts: len(parts)}},
		e:          meshpack.Entry{Name: name},
		byMaterial: map[int][]uint32{},
		srcs:       srcs,
	}
	rep, e, byMaterial := &m.rep, &m.e, m.byMaterial
	for i, part := range parts {
		if part.Source != nil {
			if err := m.addSource(&part); err != nil {
				return *e, *rep, fmt.Errorf("%s: %s: source %q: %w", name, partLabel(i, part.Name), part.Source.Path, err)
			}
			continue
		}
		res, err := tessellate.Tessellate(part.Shape, tessellate.Options{Tolerance: opts.Tolerance})
		if err != nil {
			return *e, *rep, fmt.Errorf("%s: %s: %w", name, partLabel(i, part.Name), err)
		}
		before, err := tessellate.TessellateAt(part.Shape, part.Shape.Segments)
		if err != nil {
			return *e, *rep, fmt.Errorf("%s: %s: %w", name, partLabel(i, part.Name), err)
		}
		rep.TrianglesBefore += before.TriangleCount()
		rep.TrianglesAfter += res.TriangleCount()
		rep.maxBound = math.Max(rep.maxBound, res.Bound)
		if res.Limited {
			rep.LimitedParts++
		}
		base := uint32(len(m.positions))
		if uint64(base)+uint64(len(res.Positions)) > math.MaxUint32 {
			return *e, *rep, fmt.Errorf("%s: more than 2^32 vertices", name)
		}
		timber := float32(0)
		if part.Shape.Timber {
			timber = 1
		}
		for k := range res.Positions {
			if family == meshpack.Rigged {
				e.Rigged = append(e.Rigged, meshpack.RiggedVertex{
					Position:    res.Positions[k],
					Normal:      res.Normals[k],
					TexCoord:    res.UVs[k],
					BoneIndices: part.Bones,
					BoneWeights: part.Weights,
					ColorRole:   part.Role,
				})
				continue
			}
			e.Static = append(e.Static, meshpack.StaticVertex{
				Position: res.Positions[k],
				Normal:   res.Normals[k],
				TexCoord: res.UVs[k],
				Color:    part.Color,
				Material: [4]float32{float32(part.Material), float32(part.Palette), timber, 0},
			})
		}
		m.positions = append(m.positions, res.Positions...)
		idx := byMaterial[part.Material]
		for _, x := range res.Indices {
			idx = append(idx, base+x)
		}
		byMaterial[part.Material] = idx
	}
	if m.skeleton != nil {
		for i, part := range parts {
			for j, b := range part.Bones {
				if part.Source == nil && part.Weights[j] > 0 && int(b) >= len(m.skeleton) {
					return *e, *rep, fmt.Errorf("%s: %s: bone %d, but the skeleton of %q has %d joints", name, partLabel(i, part.Name), b, m.skeletonFrom, len(m.skeleton))
				}
			}
		}
	}
	ids := make([]int, 0, len(byMaterial))
	for id := range byMaterial {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		idx := byMaterial[id]
		if len(idx) == 0 {
			continue
		}
		e.Ranges = append(e.Ranges, meshpack.Range{FirstIndex: uint32(len(e.Indices)), IndexCount: uint32(len(idx))})
		e.Indices = append(e.Indices, idx...)
	}
	c, r := mesh.BoundingSphere(m.positions, nil)
	e.Bounds = meshpack.Sphere{Center: c, Radius: r}
	rep.Vertices = len(m.positions)
	return *e, *rep, nil
}

// merger is one mesh being merged.
type merger struct {
	rep        mergeReport
	e          meshpack.Entry
	positions  []mesh.Vec3
	byMaterial map[int][]uint32 // material id → its triangles' merged indices
	srcs       *sources
	// skeleton is the joint names of the first source part and
	// skeletonFrom its file: every source in one mesh must share it, and
	// primitive parts' bones must index it.
	skeleton     []string
	skeletonFrom string
}

// addSource appends a source part's selected submeshes: their vertices
// with their own joints and weights, their triangles to their material's.
func (m *merger) addSource(part *Part) error {
	ref := part.Source
	src, err := m.srcs.get(ref)
	if err != nil {
		return err
	}
	if m.skeleton == nil {
		m.skeleton, m.skeletonFrom = src.joints, ref.Path
	} else if !slices.Equal(m.skeleton, src.joints) {
		return fmt.Errorf("its skeleton (%d joints) is not the one of %q (%d joints): one mesh rides on one skeleton",
			len(src.joints), m.skeletonFrom, len(m.skeleton))
	}
	subs, err := src.selected(ref)
	if err != nil {
		return err
	}
	for _, sub := range subs {
		id, err := sourceMaterial(ref, part, sub)
		if err != nil {
			return err
		}
		vs, err := riggedVertices(sub, part.Role)
		if err != nil {
			return err
		}
		base := uint32(len(m.positions))
		if uint64(base)+uint64(len(vs)) > math.MaxUint32 {
			return fmt.Errorf("more than 2^32 vertices")
		}
		m.e.Rigged = append(m.e.Rigged, vs...)
		m.positions = append(m.positions, sub.Positions...)
		idx := m.byMaterial[id]
		for _, x := range sub.Indices {
			idx = append(idx, base+x)
		}
		m.byMaterial[id] = idx
		n := sub.TriangleCount()
		m.rep.TrianglesBefore += n
		m.rep.TrianglesAfter += n
		m.rep.SourceTriangles += n
		m.rep.SourceMeshes++
	}
	return nil
}

// partLabel names part i of a state in errors: `part 3 "roof"`, or
// `part 3` when it has no name.
func partLabel(i int, name string) string {
	if name == "" {
		return fmt.Sprintf("part %d", i)
	}
	return fmt.Sprintf("part %d %q", i, name)
}
