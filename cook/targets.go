package cook

// Target names, as `cook --target` takes them.
const (
	// TargetHMesh writes <name>.hmesh + <name>.hmat per source.
	TargetHMesh = "hmesh"
	// TargetCNB writes one world for the whole cook: OUT/data/0, 1, … and
	// OUT/world-lock.json (docs/project.md).
	TargetCNB = "cnb"
	// TargetMSH7 writes one MSH7 meshlet payload per submesh,
	// <name>.<submesh>.msh7 (docs/formats/msh7.md).
	TargetMSH7 = "msh7"
)

// KnownTargets lists every target cook can write, in documentation order.
func KnownTargets() []string { return []string{TargetHMesh, TargetCNB, TargetMSH7} }

// targets returns the targets to write, sorted and deduplicated in
// KnownTargets order (so -target order never changes outputs).
func (o Options) targets() []string {
	if len(o.Targets) == 0 {
		return []string{TargetHMesh}
	}
	var out []string
	for _, t := range KnownTargets() {
		for _, want := range o.Targets {
			if want == t {
				out = append(out, t)
				break
			}
		}
	}
	return out
}
