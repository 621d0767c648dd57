package bake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"

	"github.com/meshcook/meshcook/formats/meshpack"
	"github.com/meshcook/meshcook/tessellate"
)

// CatalogVersion is the only catalog version this package reads.
const CatalogVersion = 1

// DefaultSegments is a part's requested segment count when the catalog
// gives none (the legacy engine's default for unit round primitives).
const DefaultSegments = 32

// Catalog limits: a catalog is authored text, so these are far above any
// real one and only stop a hostile file from asking for unbounded work.
const (
	MaxCatalogBytes = 64 << 20
	MaxParts        = 1 << 16 // parts in one state, after extends
	MaxMaterialID   = 1<<16 - 1
	MaxPaletteSlot  = 255
)

// Catalog is a parsed, validated primitive-part catalog (docs/catalog.md).
type Catalog struct {
	// Family is the pack the catalog bakes to: Static (buildings, the
	// default) or Rigged (equipment whose parts ride on bones).
	Family  meshpack.Family
	Entries []Entry
	// Path is the file the catalog was read from (LoadCatalog sets it;
	// ParseCatalog leaves it empty). Source parts resolve against its
	// folder, the current directory when empty, and errors name it.
	Path string
}

// Entry is one named building or piece of equipment.
type Entry struct {
	Name   string
	States []State
}

// State is one look of an entry; Parts are resolved (extends and drop
// already applied).
type State struct {
	Name  string
	Parts []Part
}

// Part is one placed primitive with its surface attributes.
type Part struct {
	Name     string
	Shape    tessellate.Part
	Color    [4]float32 // linear RGBA (static packs)
	Material int        // material id
	Palette  int        // palette slot (static packs)

	// Rigged packs only: up to four bone influences (weights sum to 1,
	// unused slots 0) and the colour role the engine tints by.
	Bones   [4]uint8
	Weights [4]float32
	Role    uint8

	// Source, when non-nil, makes this a source part (rigged catalogs
	// only): skinned meshes read from a glTF or FBX file instead of a
	// tessellated primitive. Shape, Bones and Weights are then unused: the
	// vertices carry the source's own joints and weights.
	Source *SourceRef
}

// CatalogError is a catalog that does not parse or validate: Where is a
// JSON path such as `entries[1] "roman_home" states[0] "intact" parts[2]`,
// or a byte offset for syntax errors.
type CatalogError struct {
	Where string
	Err   error
}

func (e *CatalogError) Error() string {
	if e.Where == "" {
		return "bake: catalog: " + e.Err.Error()
	}
	return "bake: catalog: " + e.Where + ": " + e.Err.Error()
}

func (e *CatalogError) Unwrap() error { return e.Err }

func catErr(where string, format string, args ...any) error {
	return &CatalogError{Where: where, Err: fmt.Errorf(format, args...)}
}

// The JSON shapes (docs/catalog.md). Pointers tell "absent" from zero.
type jsonCatalog struct {
	Version *int        `json:"version"`
	Family  string      `json:"family"`
	Entries []jsonEntry `json:"entries"`
}

type jsonEntry struct {
	Name   string      `json:"name"`
	States []jsonState `json:"states"`
}

type jsonState struct {
	Name    string     `json:"name"`
	Extends string     `json:"extends"`
	Drop    []string   `json:"drop"`
	Parts   []jsonPart `json:"parts"`
}

type jsonPart struct {
	Name      string       `json:"name"`
	Primitive string       `json:"primitive"`
	Translate *[3]float64  `json:"translate"`
	Rotate    *[3]float64  `json:"rotate"`
	Scale     *[3]float64  `json:"scale"`
	Matrix    *[12]float64 `json:"matrix"`
	Segments  *int         `json:"segments"`
	Color     []float64    `json:"color"`
	Material  *int         `json:"material"`
	Palette   *int         `json:"palette"`
	Timber    bool         `json:"timber"`
	Top       *float64     `json:"top"`
	Length    *float64     `json:"length"`
	Tube      *float64     `json:"tube"`
	Bone      *int         `json:"bone"`
	Bones     [][2]float64 `json:"bones"`
	Role      *int         `json:"role"`
	Source    *string      `json:"source"`
	Mesh      *string      `json:"mesh"`
}

// nameRE is what state and part names may be: stable lower-case keys that
// can never be confused with the "/" between name and state. Entry names
// (entryRE) may have several such segments joined by "/", as rigged keys
// do ("humanoid/0/3/troops/roman"); the state is always the last segment.
var (
	nameRE  = regexp.MustCompile(`^[a-z0-9_][a-z0-9_.-]*$`)
	entryRE = regexp.MustCompile(`^[a-z0-9_][a-z0-9_.-]*(/[a-z0-9_][a-z0-9_.-]*)*$`)
)

// ParseCatalog reads and validates a catalog (at most MaxCatalogBytes).
// Unknown fields are errors, so a typo never silently drops a setting.
func ParseCatalog(r io.Reader) (*Catalog, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxCatalogBytes+1))
	if err != nil {
		return nil, fmt.Errorf("bake: catalog: %w", err)
	}
	if len(b) > MaxCatalogBytes {
		return nil, catErr("", "larger than %d bytes", MaxCatalogBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var jc jsonCatalog
	if err := dec.Decode(&jc); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, catErr(fmt.Sprintf("byte %d", se.Offset), "%v", err)
		case errors.As(err, &te):
			return nil, catErr(fmt.Sprintf("byte %d, field %s", te.Offset, te.Field), "%v", err)
		}
		return nil, catErr("", "%v", err)
	}
	if dec.More() {
		return nil, catErr(fmt.Sprintf("byte %d", dec.InputOffset()), "data after the catalog object")
	}
	return jc.resolve()
}

func (jc *jsonCatalog) resolve() (*Catalog, error) {
	if jc.Version == nil || *jc.Version != CatalogVersion {
		v := "missing"
		if jc.Version != nil {
			v = fmt.Sprint(*jc.Version)
		}
		return nil, catErr("version", "%s, want %d", v, CatalogVersion)
	}
	c := &Catalog{Family: meshpack.Static}
	switch jc.Family {
	case "", "static":
	case "rigged":
		c.Family = meshpack.Rigged
	default:
		return nil, catErr("family", "%q, want \"static\" or \"rigged\"", jc.Family)
	}
	seen := map[string]int{}
	for i, je := range jc.Entries {
		where := fmt.Sprintf("entries[%d] %q", i, je.Name)
		if !entryRE.MatchString(je.Name) {
			return nil, catErr(where, "name must match %s", entryRE)
		}
		if j, dup := seen[je.Name]; dup {
			return nil, catErr(where, "duplicate of entries[%d]", j)
		}
		seen[je.Name] = i
		if len(je.States) == 0 {
			return nil, catErr(where, "no states")
		}
		e := Entry{Name: je.Name}
		states := map[string]int{}
		for si, js := range je.States {
			sw := fmt.Sprintf("%s states[%d] %q", where, si, js.Name)
			if !nameRE.MatchString(js.Name) {
				return nil, catErr(sw, "name must match %s", nameRE)
			}
			if _, dup := states[js.Name]; dup {
				return nil, catErr(sw, "duplicate state")
			}
			st, err := js.resolve(sw, c.Family, e.States, states)
			if err != nil {
				return nil, err
			}
			states[js.Name] = len(e.States)
			e.States = append(e.States, st)
		}
		c.Entries = append(c.Entries, e)
	}
	return c, nil
}

// resolve applies extends and drop, then appends the state's own parts.
func (js *jsonState) resolve(where string, family meshpack.Family, earlier []State, index map[string]int) (State, error) {
	st := State{Name: js.Name}
	if js.Extends != "" {
		k, ok := index[js.Extends]
		if !ok {
			return st, catErr(where, "extends %q, which is not an earlier state of this entry", js.Extends)
		}
		drop := map[string]bool{}
		for _, d := range js.Drop {
			drop[d] = true
		}
		found := map[string]bool{}
		for _, p := range earlier[k].Parts {
			if p.Name != "" && drop[p.Name] {
				found[p.Name] = true
				continue
			}
			st.Parts = append(st.Parts, p)
		}
		for _, d := range js.Drop {
			if !found[d] {
				return st, catErr(where, "drop %q: no part of that name in %q", d, js.Extends)
			}
		}
	} else if len(js.Drop) > 0 {
		return st, catErr(where, "drop without extends")
	}
	for pi := range js.Parts {
		jp := &js.Parts[pi]
		pw := fmt.Sprintf("%s parts[%d]", where, pi)
		if jp.Name != "" {
			pw += fmt.Sprintf(" %q", jp.Name)
		}
		p, err := jp.resolve(family)
		if err != nil {
			return st, &CatalogError{Where: pw, Err: err}
		}
		st.Parts = append(st.Parts, p)
	}
	names := map[string]bool{}
	for _, p := range st.Parts {
		if p.Name == "" {
			continue
		}
		if names[p.Name] {
			return st, catErr(where, "two parts named %q", p.Name)
		}
		names[p.Name] = true
	}
	if len(st.Parts) == 0 {
		return st, catErr(where, "no parts")
	}
	if len(st.Parts) > MaxParts {
		return st, catErr(where, "%d parts, at most %d", len(st.Parts), MaxParts)
	}
	return st, nil
}

func (jp *jsonPart) resolve(family meshpack.Family) (Part, error) {
	p := Part{Name: jp.Name, Color: [4]float32{1, 1, 1, 1}}
	if jp.Name != "" && !nameRE.MatchString(jp.Name) {
		return p, fmt.Errorf("name must match %s", nameRE)
	}
	if jp.Source != nil {
		return jp.resolveSource(family, p)
	}
	if jp.Mesh != nil {
		return p, fmt.Errorf("mesh applies to source parts only")
	}
	kind, err := tessellate.ParseKind(jp.Primitive)
	if err != nil {
		return p, err
	}
	t, err := jp.transform()
	if err != nil {
		return p, err
	}
	p.Shape = tessellate.Part{Kind: kind, Transform: t, Segments: DefaultSegments, Timber: jp.Timber}
	if jp.Segments != nil {
		if *jp.Segments < tessellate.MinSegments || *jp.Segments > tessellate.MaxSegments {
			return p, fmt.Errorf("segments %d outside [%d, %d]", *jp.Segments, tessellate.MinSegments, tessellate.MaxSegments)
		}
		p.Shape.Segments = *jp.Segments
	}
	// Shape parameters belong to one primitive each.
	param := func(v *float64, name string, want tessellate.Kind, def float64) (float64, error) {
		if v == nil {
			return def, nil
		}
		if kind != want {
			return 0, fmt.Errorf("%q applies to %s only", name, want)
		}
		return *v, nil
	}
	if p.Shape.Top, err = param(jp.Top, "top", tessellate.TaperedCylinder, 0.5); err != nil {
		return p, err
	}
	if p.Shape.Length, err = param(jp.Length, "length", tessellate.Capsule, 1); err != nil {
		return p, err
	}
	if p.Shape.Tube, err = param(jp.Tube, "tube", tessellate.Torus, 0.125); err != nil {
		return p, err
	}
	if err := p.Shape.Validate(); err != nil {
		return p, err
	}
	switch len(jp.Color) {
	case 0:
	case 3, 4:
		for i, v := range jp.Color {
			if !(v >= 0 && v <= 64) {
				return p, fmt.Errorf("color[%d] = %v outside [0, 64]", i, v)
			}
			p.Color[i] = float32(v)
		}
	default:
		return p, fmt.Errorf("color has %d components, want 3 or 4", len(jp.Color))
	}
	if jp.Material != nil {
		if *jp.Material < 0 || *jp.Material > MaxMaterialID {
			return p, fmt.Errorf("material %d outside [0, %d]", *jp.Material, MaxMaterialID)
		}
		p.Material = *jp.Material
	}
	if jp.Palette != nil {
		if *jp.Palette < 0 || *jp.Palette > MaxPaletteSlot {
			return p, fmt.Errorf("palette %d outside [0, %d]", *jp.Palette, MaxPaletteSlot)
		}
		p.Palette = *jp.Palette
	}
	return p, jp.resolveRig(family, &p)
}

// resolveRig fills a rigged part's influences and colour role; a static
// catalog refuses them, as a rigged one refuses colour and palette (its
// vertex has no room for them).
func (jp *jsonPart) resolveRig(family meshpack.Family, p *Part) error {
	if family != meshpack.Rigged {
		if jp.Bone != nil || jp.Bones != nil || jp.Role != nil {
			return fmt.Errorf("bone, bones and role need \"family\": \"rigged\"")
		}
		return nil
	}
	if jp.Color != nil || jp.Palette != nil {
		return fmt.Errorf("color and palette do not exist in a rigged pack (use role)")
	}
	if jp.Role != nil {
		if *jp.Role < 0 || *jp.Role > 255 {
			return fmt.Errorf("role %d outside [0, 255]", *jp.Role)
		}
		p.Role = uint8(*jp.Role)
	}
	switch {
	case jp.Bone != nil && jp.Bones != nil:
		return fmt.Errorf("bone and bones are exclusive")
	case jp.Bone != nil:
		if *jp.Bone < 0 || *jp.Bone > 255 {
			return fmt.Errorf("bone %d outside [0, 255]", *jp.Bone)
		}
		p.Bones[0], p.Weights[0] = uint8(*jp.Bone), 1
	case jp.Bones != nil:
		if len(jp.Bones) == 0 || len(jp.Bones) > 4 {
			return fmt.Errorf("%d bone influences, want 1 to 4", len(jp.Bones))
		}
		var sum float64
		for i, bw := range jp.Bones {
			if bw[0] != math.Trunc(bw[0]) || bw[0] < 0 || bw[0] > 255 {
				return fmt.Errorf("bones[%d]: bone %v is not an integer in [0, 255]", i, bw[0])
			}
			if !(bw[1] > 0 && bw[1] <= 1) {
				return fmt.Errorf("bones[%d]: weight %v outside (0, 1]", i, bw[1])
			}
			sum += bw[1]
		}
		if math.Abs(sum-1) > 1e-3 {
			return fmt.Errorf("bone weights sum to %v, want 1", sum)
		}
		for i, bw := range jp.Bones {
			p.Bones[i], p.Weights[i] = uint8(bw[0]), float32(bw[1]/sum)
		}
	default:
		return fmt.Errorf("a rigged part needs bone or bones")
	}
	return nil
}

// transform builds translate·rotate·scale, or takes matrix (3×4 row-major)
// as given; the two forms do not mix.
func (jp *jsonPart) transform() (tessellate.Transform, error) {
	if jp.Matrix != nil {
		if jp.Translate != nil || jp.Rotate != nil || jp.Scale != nil {
			return tessellate.Transform{}, fmt.Errorf("matrix and translate/rotate/scale are exclusive")
		}
		var t tessellate.Transform
		for i, v := range jp.Matrix {
			t[i/4][i%4] = v
		}
		return t, finiteT(t)
	}
	tr, rot, sc := [3]float64{}, [3]float64{}, [3]float64{1, 1, 1}
	if jp.Translate != nil {
		tr = *jp.Translate
	}
	if jp.Rotate != nil {
		rot = *jp.Rotate
	}
	if jp.Scale != nil {
		sc = *jp.Scale
	}
	// R = Rz·Ry·Rx (degrees about X first, then Y, then Z). Products are
	// converted explicitly so no architecture fuses them (same bytes
	// everywhere).
	cx, sx := sinCosDeg(rot[0])
	cy, sy := sinCosDeg(rot[1])
	cz, sz := sinCosDeg(rot[2])
	r := [3][3]float64{
		{cz * cy, float64(cz*sy*sx) - float64(sz*cx), float64(cz*sy*cx) + float64(sz*sx)},
		{sz * cy, float64(sz*sy*sx) + float64(cz*cx), float64(sz*sy*cx) - float64(cz*sx)},
		{-sy, cy * sx, cy * cx},
	}
	var t tessellate.Transform
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			t[i][j] = r[i][j] * sc[j]
		}
		t[i][3] = tr[i]
	}
	return t, finiteT(t)
}

func finiteT(t tessellate.Transform) error {
	if !t.IsFinite() {
		return fmt.Errorf("transform is not finite")
	}
	for _, row := range t {
		for _, v := range row {
			if math.Abs(v) > 1e6 {
				return fmt.Errorf("transform entry %v beyond ±1e6 m", v)
			}
		}
	}
	return nil
}

// sinCosDeg returns cos and sin of deg degrees, exact at multiples of 90
// (so right-angle rotations keep extents exact).
func sinCosDeg(deg float64) (c, s float64) {
	if q := deg / 90; q == math.Trunc(q) && math.Abs(q) < 1e9 {
		switch ((int64(q) % 4) + 4) % 4 {
		case 0:
			return 1, 0
		case 1:
			return 0, 1
		case 2:
			return -1, 0
		default:
			return 0, -1
		}
	}
	rad := deg * math.Pi / 180
	return math.Cos(rad), math.Sin(rad)
}
