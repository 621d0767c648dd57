package fbx

// Geometry: control points, polygons and layer elements.
//
// PolygonVertexIndex lists each polygon's control points; the last one of a
// polygon is stored bitwise-negated (-1 - i). Layer elements attach data
// through a mapping (which element a corner reads: ByPolygonVertex → the
// corner, ByVertex/ByVertice → its control point, ByPolygon → its polygon,
// AllSame → element 0, ByEdge → unsupported, warned and dropped) and a
// reference mode (Direct → the element itself, IndexToDirect/Index →
// through the element's index array).

import (
	"math"
	"strings"
)

type mapping uint8

const (
	byCorner mapping = iota
	byVertex
	byPolygon
	allSame
)

// layer is one decoded layer element.
type layer struct {
	data    []float64
	comps   int
	index   []int64 // nil for Direct
	mapping mapping
}

// element returns the data index of a corner, or -1 when out of range.
func (l *layer) element(corner, vertex, poly int) int {
	i := corner
	switch l.mapping {
	case byVertex:
		i = vertex
	case byPolygon:
		i = poly
	case allSame:
		i = 0
	}
	if l.index != nil {
		if i < 0 || i >= len(l.index) {
			return -1
		}
		i = int(l.index[i])
	}
	if i < 0 || i >= len(l.data)/l.comps {
		return -1
	}
	return i
}

// geom is a decoded Geometry (or 6.x mesh Model).
type geom struct {
	node      *Node
	pos       []float64 // xyz per control point
	corners   []int32   // control point per corner
	polyStart []int32   // first corner of each polygon, then len(corners)
	normal    *layer
	tangent   *layer
	binormal  *layer
	uv        *layer
	color     *layer
	material  *layer // data holds material slots
}

func (g *geom) polyCount() int { return len(g.polyStart) - 1 }

// readGeometry decodes a geometry node; cornerBudget is how many corners
// the scene may still hold.
func (s *scene) readGeometry(n *Node, cornerBudget int) (*geom, error) {
	g := &geom{node: n}
	vn := n.Child("Vertices")
	pos, ok := vn.Floats(3 * cornerBudget)
	if !ok {
		return nil, s.limitAt(vn, "geometry %q: more than %d control points", s.nameOf(n), cornerBudget)
	}
	if len(pos)%3 != 0 {
		s.warnf("geometry vertex array length not a multiple of 3 (extra values ignored)")
		pos = pos[:len(pos)/3*3]
	}
	g.pos = pos
	nv := len(pos) / 3
	idx, ok := n.Child("PolygonVertexIndex").Ints(cornerBudget)
	if !ok {
		return nil, s.limitAt(n, "geometry %q: more than %d polygon corners in the scene", s.nameOf(n), s.opts.MaxCorners)
	}
	g.corners = make([]int32, len(idx))
	g.polyStart = append(make([]int32, 0, len(idx)/3+2), 0)
	for i, v := range idx {
		end := v < 0
		if end {
			v = ^v
		}
		if v >= int64(nv) {
			return nil, s.errAt(n.Child("PolygonVertexIndex"), "geometry %q: polygon vertex index %d at corner %d out of range (%d vertices)", s.nameOf(n), v, i, nv)
		}
		g.corners[i] = int32(v)
		if end {
			g.polyStart = append(g.polyStart, int32(i+1))
		}
	}
	if last := g.polyStart[len(g.polyStart)-1]; int(last) != len(idx) {
		s.warnf("last polygon not terminated by a negative index (closed)")
		g.polyStart = append(g.polyStart, int32(len(idx)))
	}
	g.normal = s.readLayer(n, "LayerElementNormal", "Normals", "NormalsIndex", 3)
	g.tangent = s.readLayer(n, "LayerElementTangent", "Tangents", "TangentsIndex", 3)
	g.binormal = s.readLayer(n, "LayerElementBinormal", "Binormals", "BinormalsIndex", 3)
	g.uv = s.readLayer(n, "LayerElementUV", "UV", "UVIndex", 2)
	g.color = s.readLayer(n, "LayerElementColor", "Colors", "ColorIndex", 4)
	g.material = s.readLayer(n, "LayerElementMaterial", "Materials", "", 1)
	return g, nil
}

// nameOf names a geometry node for messages.
func (s *scene) nameOf(n *Node) string {
	if p := n.prop(0); p != nil && p.Type == TypeString {
		return splitName(p.Str)
	}
	return splitName(n.str(1))
}

// pickElement chooses the layer element of a type that layer 0 names (the
// first Layer node's LayerElement with that Type), else the one with the
// lowest index.
func pickElement(g *Node, elem string) *Node {
	want := int64(-1)
	for _, l := range g.Children {
		if l.Name != "Layer" {
			continue
		}
		for _, le := range l.Children {
			if le.Name == "LayerElement" && le.childStr("Type") == elem {
				want = le.childInt("TypedIndex", 0)
			}
		}
		break
	}
	var best *Node
	bestIdx := int64(math.MaxInt64)
	for _, c := range g.Children {
		if c.Name != elem {
			continue
		}
		i := int64(0)
		if p := c.prop(0); p != nil && p.IsNumber() {
			i = p.AsInt()
		}
		if i == want {
			return c
		}
		if i < bestIdx {
			best, bestIdx = c, i
		}
	}
	return best
}

// readLayer decodes one layer element, or returns nil (with a counted
// warning when it exists but cannot be used).
func (s *scene) readLayer(g *Node, elem, dataName, indexName string, comps int) *layer {
	e := pickElement(g, elem)
	if e == nil {
		return nil
	}
	short := strings.TrimPrefix(elem, "LayerElement")
	l := &layer{comps: comps}
	switch m := e.childStr("MappingInformationType"); m {
	case "ByPolygonVertex":
		l.mapping = byCorner
	case "ByVertex", "ByVertice":
		l.mapping = byVertex
	case "ByPolygon":
		l.mapping = byPolygon
	case "AllSame":
		l.mapping = allSame
	case "ByEdge":
		s.warnf("%s layer mapped ByEdge ignored", short)
		return nil
	default:
		s.warnf("%s layer with mapping %q ignored", short, clip(m))
		return nil
	}
	limit := s.opts.MaxCorners * 4
	data, ok := e.Child(dataName).Floats(limit)
	if !ok || len(data) == 0 {
		if !ok {
			s.warnf("%s layer too large, ignored", short)
		}
		return nil
	}
	// 7.x colors and some exporters' normals carry a 4th component.
	if comps == 3 && e.Child(dataName+"W") == nil && len(data)%3 != 0 && len(data)%4 == 0 {
		l.comps = 4
	}
	if comps == 4 && len(data)%4 != 0 && len(data)%3 == 0 {
		l.comps = 3
	}
	if len(data)%l.comps != 0 {
		s.warnf("%s layer length not a multiple of %d (extra values ignored)", short, l.comps)
		data = data[:len(data)/l.comps*l.comps]
	}
	l.data = data
	ref := e.childStr("ReferenceInformationType")
	if indexName != "" && (ref == "IndexToDirect" || ref == "Index") {
		ix, ok := e.Child(indexName).Ints(limit)
		if !ok {
			s.warnf("%s layer index too large, ignored", short)
			return nil
		}
		if e.Child(indexName) != nil {
			l.index = ix
		}
	}
	return l
}
