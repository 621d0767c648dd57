package fbx

// What the importer does not carry, counted per kind (mesh.Scene.Drops,
// which also become warnings): object classes, node and geometry kinds,
// geometry layers and user-defined properties. Objects whose content the
// import does carry or that hold nothing a mesh cook needs (display layers,
// scene info, poses, …) are not listed.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meshcook/meshcook/mesh"
)

// quietClasses hold nothing the cook's outputs could carry.
var quietClasses = map[string]bool{
	"Model": true, "Geometry": true, "Material": true, "Texture": true, "Video": true,
	"Deformer": true, "Pose": true, "NodeAttribute": true, "GlobalSettings": true,
	"AnimationStack": true, "AnimationLayer": true, "AnimationCurveNode": true, "AnimationCurve": true,
	"DisplayLayer": true, "CollectionExclusive": true, "SceneInfo": true, "Document": true,
	"SelectionNode": true, "SelectionSet": true,
}

// handledLayers are the geometry layer elements the importer reads.
var handledLayers = map[string]bool{
	"LayerElementNormal": true, "LayerElementTangent": true, "LayerElementBinormal": true,
	"LayerElementUV": true, "LayerElementColor": true, "LayerElementMaterial": true,
	// 6.x per-polygon texture assignment: materials carry the textures.
	"LayerElementTexture": true,
}

// dropf counts one item of a kind the cook does not carry.
func (s *scene) dropf(format string, args ...any) {
	s.drops[fmt.Sprintf(format, args...)]++
}

// countSkipped counts the objects, attributes and layers the import skips.
func (s *scene) countSkipped() {
	for _, o := range s.objects {
		switch {
		case o.class == "NodeAttribute" || (o.class == "Model" && s.doc.Version < 7000):
			switch o.sub {
			case "Light":
				s.dropf("lights")
			case "Camera", "CameraSwitcher":
				s.dropf("cameras")
			}
		case o.class == "Geometry" && o.sub != "Mesh" && o.sub != "Shape":
			s.dropf("geometry of type %q (only polygon meshes are imported)", clip(o.sub))
		case o.class == "Deformer" && o.sub == "BlendShape":
			s.dropf("blend shapes")
		case o.class == "Deformer" && o.sub != "Skin" && o.sub != "Cluster" && o.sub != "BlendShapeChannel":
			s.dropf("deformers of type %q", clip(o.sub))
		case strings.HasPrefix(o.class, "Constraint"):
			s.dropf("constraints")
		case !quietClasses[o.class]:
			s.dropf("FBX objects of class %q", clip(o.class))
		}
		for name, p := range o.props {
			if p.Name == "P" && strings.Contains(p.str(3), "U") {
				s.dropf("user-defined properties")
				_ = name
			}
		}
	}
	for _, o := range s.objects {
		if o.class != "Geometry" || o.sub != "Mesh" {
			continue
		}
		counts := map[string]int{}
		for _, c := range o.node.Children {
			if strings.HasPrefix(c.Name, "LayerElement") {
				counts[c.Name]++
			}
		}
		names := make([]string, 0, len(counts))
		for n := range counts {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			short := strings.TrimPrefix(n, "LayerElement")
			switch {
			case n == "LayerElementSmoothing" && counts["LayerElementNormal"] > 0:
				// normals already carry the shading
			case !handledLayers[n]:
				s.dropf("geometry layers %s", short)
			case counts[n] > 1 && (n == "LayerElementUV" || n == "LayerElementColor"):
				s.dropf("%s sets after the first", strings.ToLower(short))
			}
		}
	}
}

// recordDrops moves the counted drops into the scene, sorted.
func (s *scene) recordDrops(out *mesh.Scene) {
	names := make([]string, 0, len(s.drops))
	for n := range s.drops {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		out.Drop(s.drops[n], n)
	}
}
