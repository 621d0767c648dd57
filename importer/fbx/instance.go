package fbx

import "github.com/meshcook/meshcook/mesh"

// Instance describes one mesh Model × Geometry pair that ConvertInstances
// imported: where its submeshes are and what an importer front end needs to
// select meshes and check skins (nwb.md §3), which the Scene alone does not
// say.
type Instance struct {
	// Model and Geometry are the node's and the mesh's names.
	Model, Geometry string
	// First and Count locate the instance's submeshes (one per material
	// slot used) in Scene.Submeshes; Count may be 0 (no polygons).
	First, Count int
	// Hidden: the model or an ancestor has Visibility 0 or Show false
	// (only reported with Options.IncludeHidden; otherwise hidden models
	// are not imported).
	Hidden bool
	// SkinDeformers counts the geometry's Skin deformers (the import uses
	// the first).
	SkinDeformers int
	// Joints are the Scene.Skeleton joints the used skin's clusters name.
	Joints []int
	// Unweighted counts the control points that polygons use but that no
	// cluster weights positively; Convert binds them to joint 0.
	Unweighted int
}

// instance records one imported Model × Geometry pair.
func (s *scene) instance(m, gobj *object, first int, subs []mesh.Submesh, sd *skinData) Instance {
	in := Instance{
		Model:         m.name,
		Geometry:      gobj.name,
		First:         first,
		Count:         len(subs),
		Hidden:        s.hidden(m),
		SkinDeformers: len(gobj.kids("Deformer", "Skin")),
	}
	if sd != nil {
		in.Joints = sd.used
		in.Unweighted = sd.unweighted
	}
	return in
}
