// Package corpus holds only the MSH7 corpus test: every triangle submesh of
// the shared glTF and FBX corpus is imported, canonicalized, split by
// meshlet.Build at the 96/126 limits, built with msh7.Build and checked by
// tools/meshcheck.py. It is a separate package so that the importers are
// not dependencies of formats/msh7's own tests.
package corpus
