package fbx

// The object graph: Objects, Connections, property templates and global
// settings, shared by 6.x (objects keyed by "Class::Name") and 7.x (keyed
// by int64 id) files.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/meshcook/meshcook/mesh"
)

// object is one entry of the Objects section.
type object struct {
	node  *Node
	class string // node name: Model, Geometry, Material, Deformer, Pose, Texture, Video, …
	sub   string // the subclass string: Mesh, LimbNode, Skin, Cluster, BindPose, …
	name  string // without the "Class::" prefix
	index int    // position in Objects

	props    map[string]*Node // own properties by name
	template map[string]*Node

	children []*object          // OO connections where this is the parent, in order
	propKids map[string]*object // OP connections: property name → first source
	parent   *object            // for Models: the parent Model (nil at the root)
	// animTarget and animProp: for an AnimationCurveNode, the object and
	// property it drives (its first OP connection).
	animTarget *object
	animProp   string

	worldM      mesh.Mat4
	worldDone   bool
	hiddenState uint8 // 0 unknown, 1 visible, 2 hidden
}

type scene struct {
	doc      *Document
	opts     Options
	objects  []*object
	byKey    map[string]*object
	root     *object
	settings map[string]*Node
	warns    map[string]int
	// earBudget is what is left of earClipBudget, animBudget of
	// maxAnimKeys.
	earBudget  int
	animBudget int
	// files are the external files read (mesh.Scene.Files); drops count
	// what is not carried, per kind (mesh.Scene.Drops).
	files []string
	drops map[string]int
	// size is the diagonal of the imported meshes' bounds in output space
	// (0 before they are emitted).
	size float64
}

func (s *scene) warnf(format string, args ...any) {
	s.warns[fmt.Sprintf(format, args...)]++
}

// warnings returns the counted warnings, one line each, sorted.
func (s *scene) warnings() []string {
	var out []string
	for w, n := range s.warns {
		if n == 1 {
			out = append(out, w)
		} else {
			out = append(out, fmt.Sprintf("%s (%d times)", w, n))
		}
	}
	slices.Sort(out)
	return out
}

// errAt is a scene error located at n.
func (s *scene) errAt(n *Node, format string, args ...any) error {
	e := &FormatError{Binary: s.doc.Binary, Msg: fmt.Sprintf(format, args...), Kind: ErrScene}
	if n != nil {
		if s.doc.Binary {
			e.Offset = n.Pos
		} else {
			e.Line = n.Pos
		}
	}
	return e
}

// limitAt is errAt for a limit.
func (s *scene) limitAt(n *Node, format string, args ...any) error {
	e := s.errAt(n, format, args...)
	e.(*FormatError).Kind = ErrLimit
	return e
}

// key is an object's identity as connections name it.
func key(p *Property) (string, bool) {
	switch {
	case p == nil:
		return "", false
	case p.Type == TypeString:
		return p.Str, true
	case p.IsNumber():
		return "#" + strconv.FormatInt(p.AsInt(), 10), true
	}
	return "", false
}

// splitName strips "Class::" from an object name.
func splitName(s string) string {
	if i := strings.Index(s, "::"); i >= 0 {
		return s[i+2:]
	}
	return s
}

func newScene(doc *Document, opts Options) *scene {
	s := &scene{doc: doc, opts: opts, byKey: map[string]*object{}, warns: map[string]int{}, drops: map[string]int{}, earBudget: earClipBudget, animBudget: maxAnimKeys}
	s.root = &object{class: "Model", name: "RootNode"}
	s.byKey["#0"] = s.root
	s.byKey["Model::Scene"] = s.root
	templates := s.readTemplates()
	for _, n := range doc.Root.Child("Objects").kids() {
		o := &object{node: n, class: n.Name, index: len(s.objects)}
		k, ok := key(n.prop(0))
		if !ok {
			if n.Name == "GlobalSettings" {
				s.settings = propMap(n)
			}
			continue
		}
		if p := n.prop(0); p.Type == TypeString {
			o.name = splitName(p.Str)
			o.sub = n.str(1)
		} else {
			o.name = splitName(n.str(1))
			o.sub = n.str(2)
		}
		o.props = propMap(n)
		o.template = pickTemplate(templates[o.class], o)
		if _, dup := s.byKey[k]; dup {
			s.warnf("duplicate object %q ignored", clip(k))
			continue
		}
		s.byKey[k] = o
		s.objects = append(s.objects, o)
		// 6.x keeps a mesh's geometry inside its Model node.
		if o.class == "Model" && n.Child("Vertices") != nil {
			g := &object{node: n, class: "Geometry", sub: "Mesh", name: o.name, index: o.index, props: o.props}
			o.children = append(o.children, g)
		}
	}
	if gs := doc.Root.Child("GlobalSettings"); gs != nil {
		s.settings = propMap(gs)
	}
	s.connect()
	// 6.x connects a mesh's deformers to its Model, which holds the
	// geometry: hand them to the geometry, as 7.x connects them.
	for _, o := range s.objects {
		if o.class != "Model" || len(o.children) == 0 || o.children[0].node != o.node || o.children[0].class != "Geometry" {
			continue
		}
		g := o.children[0]
		for _, c := range o.children[1:] {
			if c.class == "Deformer" {
				g.children = append(g.children, c)
			}
		}
	}
	return s
}

// readTemplates collects Definitions' PropertyTemplates: class → template
// name → properties.
func (s *scene) readTemplates() map[string]map[string]map[string]*Node {
	out := map[string]map[string]map[string]*Node{}
	for _, ot := range s.doc.Root.Child("Definitions").kids() {
		if ot.Name != "ObjectType" {
			continue
		}
		for _, pt := range ot.Children {
			if pt.Name != "PropertyTemplate" {
				continue
			}
			class := ot.str(0)
			if out[class] == nil {
				out[class] = map[string]map[string]*Node{}
			}
			out[class][pt.str(0)] = propMap(pt)
		}
	}
	return out
}

// pickTemplate chooses a class's template: the one named after the
// material's shading model (FbxSurfacePhong / FbxSurfaceLambert), else
// the only or alphabetically first one.
func pickTemplate(ts map[string]map[string]*Node, o *object) map[string]*Node {
	if len(ts) == 0 {
		return nil
	}
	if sm := strings.ToLower(o.node.childStr("ShadingModel")); sm != "" {
		for name, t := range ts {
			if strings.Contains(strings.ToLower(name), sm) {
				return t
			}
		}
	}
	names := make([]string, 0, len(ts))
	for n := range ts {
		names = append(names, n)
	}
	slices.Sort(names)
	return ts[names[0]]
}

// propMap indexes a node's Properties70 (P) or Properties60 (Property).
func propMap(n *Node) map[string]*Node {
	c := n.Child("Properties70")
	if c == nil {
		c = n.Child("Properties60")
	}
	if c == nil {
		return nil
	}
	m := make(map[string]*Node, len(c.Children))
	for _, p := range c.Children {
		if name := p.str(0); name != "" {
			if _, dup := m[name]; !dup {
				m[name] = p
			}
		}
	}
	return m
}

// propValues returns a property's value properties: after name, type,
// label and flags in 7.x (P), after name, type and flags in 6.x.
func propValues(p *Node) []Property {
	skip := 4
	if p.Name == "Property" {
		skip = 3
	}
	if len(p.Props) <= skip {
		return nil
	}
	return p.Props[skip:]
}

func (s *scene) lookup(o *object, name string) []Property {
	if o != nil {
		if p := o.props[name]; p != nil {
			return propValues(p)
		}
		if p := o.template[name]; p != nil {
			return propValues(p)
		}
	}
	return nil
}

func (s *scene) propVec3(o *object, name string, def [3]float64) [3]float64 {
	v := s.lookup(o, name)
	if len(v) < 3 || !v[0].IsNumber() || !v[1].IsNumber() || !v[2].IsNumber() {
		return def
	}
	return [3]float64{v[0].AsFloat(), v[1].AsFloat(), v[2].AsFloat()}
}

func (s *scene) propFloat(o *object, name string, def float64) float64 {
	v := s.lookup(o, name)
	if len(v) < 1 || !v[0].IsNumber() {
		return def
	}
	return v[0].AsFloat()
}

func (s *scene) propInt(o *object, name string, def int64) int64 {
	v := s.lookup(o, name)
	if len(v) < 1 || !v[0].IsNumber() {
		return def
	}
	return v[0].AsInt()
}

func (s *scene) propString(o *object, name string) string {
	v := s.lookup(o, name)
	if len(v) < 1 || v[0].Type != TypeString {
		return ""
	}
	return v[0].Str
}

func (s *scene) settingInt(name string, def int64) int64 {
	if p := s.settings[name]; p != nil {
		if v := propValues(p); len(v) > 0 && v[0].IsNumber() {
			return v[0].AsInt()
		}
	}
	return def
}

func (s *scene) settingFloat(name string, def float64) float64 {
	if p := s.settings[name]; p != nil {
		if v := propValues(p); len(v) > 0 && v[0].IsNumber() {
			return v[0].AsFloat()
		}
	}
	return def
}

// connect applies Connections: C (7.x) or Connect (6.x) "OO" child parent,
// or "OP" child parent "property".
func (s *scene) connect() {
	for _, c := range s.doc.Root.Child("Connections").kids() {
		if c.Name != "C" && c.Name != "Connect" {
			continue
		}
		kind := c.str(0)
		ck, ok1 := key(c.prop(1))
		pk, ok2 := key(c.prop(2))
		if !ok1 || !ok2 {
			s.warnf("malformed connection skipped")
			continue
		}
		child, parent := s.byKey[ck], s.byKey[pk]
		if child == nil || parent == nil || child == s.root {
			s.warnf("connection to a missing object skipped")
			continue
		}
		switch kind {
		case "OO":
			parent.children = append(parent.children, child)
			if child.class == "Model" && parent.class == "Model" && child.parent == nil && parent != s.root {
				child.parent = parent
			}
		case "OP":
			prop := c.str(3)
			if child.class == "AnimationCurveNode" && child.animTarget == nil {
				child.animTarget, child.animProp = parent, prop
			}
			if parent.propKids == nil {
				parent.propKids = map[string]*object{}
			}
			if _, dup := parent.propKids[prop]; !dup {
				parent.propKids[prop] = child
			}
		}
	}
}

// kids returns o's OO children of a class (and subclass, when sub != "").
func (o *object) kids(class, sub string) []*object {
	var out []*object
	for _, c := range o.children {
		if c.class == class && (sub == "" || c.sub == sub) {
			out = append(out, c)
		}
	}
	return out
}

// hidden reports whether a Model or one of its ancestors is invisible,
// memoised along the chain (a cycle counts as visible).
func (s *scene) hidden(o *object) bool {
	var chain []*object
	seen := map[*object]bool{}
	for p := o; p != nil && p != s.root && p.hiddenState == 0 && !seen[p]; p = p.parent {
		seen[p] = true
		chain = append(chain, p)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		c.hiddenState = 1
		if s.propFloat(c, "Visibility", 1) == 0 || s.propInt(c, "Show", 1) == 0 ||
			(c.parent != nil && c.parent.hiddenState == 2) {
			c.hiddenState = 2
		}
	}
	return o.hiddenState == 2
}
