package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/meshcook/meshcook/formats/hmesh"
	gltfimport "github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/internal/geomerr"
	"github.com/meshcook/meshcook/mesh"
)

// This file holds the cook-path rows: what a user gets from
// `meshcook cook --lods 0.5,0.25,0.1` against what `gltfpack -si R` (npm,
// pinned) makes of the same source files, measured by two independent
// metrics (internal/geomerr and three-mesh-bvh in bvh.mjs).

// cookRatios are the levels both tools make.
var cookRatios = []float64{0.5, 0.25, 0.1}

// bvhSamples is how many area-weighted points per surface bvh.mjs adds to
// the vertices.
const bvhSamples = 60000

// cookSource is one source file both tools cook, written from a benchmark
// mesh into the temporary folder (never committed: they derive from the
// corpus).
type cookSource struct {
	name  string // mesh name and what the source carries
	attrs string // "none", "normals", "normals+uv"
	parts []*mesh.Submesh
}

// cookSources are the cook-path inputs: every benchmark mesh as a
// positions-only glTF (the cook generates normals; gltfpack simplifies
// positions only), the bunny with authored smooth normals, and
// FlightHelmet's submeshes as authored (normals and UVs).
func cookSources(cfg config, meshes []*benchMesh) ([]cookSource, error) {
	var out []cookSource
	for _, m := range meshes {
		out = append(out, cookSource{name: m.name, attrs: "none", parts: []*mesh.Submesh{benchSubmesh(m, false)}})
		if m.name == "bunny" {
			out = append(out, cookSource{name: m.name, attrs: "normals", parts: []*mesh.Submesh{benchSubmesh(m, true)}})
		}
		if m.name == "FlightHelmet" {
			scene, err := gltfimport.Load(filepath.Join(cfg.corpus, "gltf", "FlightHelmet", "FlightHelmet.gltf"), gltfimport.Options{})
			if err != nil {
				return nil, err
			}
			src := cookSource{name: m.name, attrs: "normals+uv"}
			for i := range scene.Submeshes {
				s := scene.Submeshes[i]
				src.parts = append(src.parts, &mesh.Submesh{Positions: s.Positions, Normals: s.Normals, UV0: s.UV0, Indices: s.Indices})
			}
			out = append(out, src)
		}
	}
	return out, nil
}

func benchSubmesh(m *benchMesh, normals bool) *mesh.Submesh {
	s := &mesh.Submesh{Positions: make([]mesh.Vec3, len(m.positions)), Indices: m.indices}
	for i, p := range m.positions {
		s.Positions[i] = p
	}
	if normals {
		for _, n := range m.normals() {
			s.Normals = append(s.Normals, n)
		}
	}
	return s
}

// writeGLB writes the parts as one glTF binary: a mesh, node and material
// per part (distinct base colours, so gltfpack keeps the parts apart as the
// cook does).
func writeGLB(path string, parts []*mesh.Submesh) error {
	doc := gltf.NewDocument()
	doc.Scene = gltf.Index(0)
	doc.Scenes = []*gltf.Scene{{}}
	for i, s := range parts {
		pos := make([][3]float32, len(s.Positions))
		for k, p := range s.Positions {
			pos[k] = p
		}
		attrs := gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, pos)}
		if s.Normals != nil {
			n := make([][3]float32, len(s.Normals))
			for k, v := range s.Normals {
				n[k] = v
			}
			attrs[gltf.NORMAL] = modeler.WriteNormal(doc, n)
		}
		if s.UV0 != nil {
			uv := make([][2]float32, len(s.UV0))
			for k, v := range s.UV0 {
				uv[k] = v
			}
			attrs[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, uv)
		}
		c := float64(i+1) / float64(len(parts)+1)
		doc.Materials = append(doc.Materials, &gltf.Material{Name: fmt.Sprintf("m%d", i),
			PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &[4]float64{c, c, c, 1}}})
		doc.Meshes = append(doc.Meshes, &gltf.Mesh{Name: fmt.Sprintf("part%d", i), Primitives: []*gltf.Primitive{{
			Attributes: attrs, Indices: gltf.Index(modeler.WriteIndices(doc, s.Indices)), Material: gltf.Index(i)}}})
		doc.Nodes = append(doc.Nodes, &gltf.Node{Name: fmt.Sprintf("part%d", i), Mesh: gltf.Index(i)})
		doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, i)
	}
	return gltf.SaveBinary(doc, path)
}

// merged joins the parts into one triangle list (no welding).
func merged(parts []*mesh.Submesh) *benchMesh {
	m := &benchMesh{}
	for _, s := range parts {
		base := uint32(len(m.positions))
		for _, p := range s.Positions {
			m.positions = append(m.positions, p)
		}
		for _, ix := range s.Indices {
			m.indices = append(m.indices, ix+base)
		}
	}
	return m
}

// cookReport is the part of `meshcook cook --json` the rows use.
type cookReport struct {
	Stages []struct {
		Name string  `json:"name"`
		MS   float64 `json:"ms"`
	} `json:"stages"`
	Meshes []struct {
		Lods []struct {
			Triangles int     `json:"triangles"`
			Error     float32 `json:"error"`
			Stalled   int     `json:"stalled"`
			Sloppy    int     `json:"sloppy"`
		} `json:"lods"`
	} `json:"meshes"`
}

// cookLevels runs the meshcook binary on src and returns each level as one
// triangle list over the .hmesh's vertices (a stalled submesh level draws
// its previous level, as an engine would), the report and the LOD stage's
// wall time.
func cookLevels(exe, src, out string, lodError string, extra []string) ([]*benchMesh, cookReport, error) {
	args := append([]string{"cook", src, "-o", out, "--no-cache", "--quiet", "--json", "--lods", "0.5,0.25,0.1", "--lod-error", lodError}, extra...)
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	var rep cookReport
	if err != nil {
		return nil, rep, fmt.Errorf("meshcook %s: %w", strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, rep, fmt.Errorf("meshcook --json: %w", err)
	}
	name := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
	hb, err := os.ReadFile(filepath.Join(out, name+".hmesh"))
	if err != nil {
		return nil, rep, err
	}
	f, err := hmesh.Decode(hb)
	if err != nil {
		return nil, rep, err
	}
	pos := make([][3]float32, len(f.Vertices))
	for i, v := range f.Vertices {
		pos[i] = v.Position
	}
	levels := make([]*benchMesh, f.LodCount)
	for l := range levels {
		levels[l] = &benchMesh{positions: pos}
	}
	for s, sm := range f.Submeshes {
		prev := f.Indices[sm.FirstIndex : sm.FirstIndex+sm.IndexCount]
		for l := range levels {
			row := f.Lods[s*int(f.LodCount)+l]
			if row.IndexCount > 0 {
				prev = f.LodIndices[row.FirstIndex : row.FirstIndex+row.IndexCount]
			}
			levels[l].indices = append(levels[l].indices, prev...)
		}
	}
	return levels, rep, nil
}

// gltfpackLevel runs gltfpack -si ratio (unquantized, so positions stay
// the source's floats) and loads its output as one triangle list.
func gltfpackLevel(cfg config, src, out string, ratio float64, lodError string) (*benchMesh, error) {
	args := []string{filepath.Join(cfg.dir, "node_modules", "gltfpack", "cli.js"), "-i", src, "-o", out, "-noq", "-si", fmt.Sprint(ratio), "-se", lodError}
	cmd := exec.Command("node", args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("gltfpack %s: %w", strings.Join(args[1:], " "), err)
	}
	scene, err := gltfimport.Load(out, gltfimport.Options{})
	if err != nil {
		return nil, err
	}
	parts := make([]*mesh.Submesh, len(scene.Submeshes))
	for i := range scene.Submeshes {
		parts[i] = &scene.Submeshes[i]
	}
	return merged(parts), nil
}

// bvhErrors runs bvh.mjs on the reference and candidates (written as
// meshopt.mjs's mesh form) and returns each candidate's relative
// Hausdorff distance.
func bvhErrors(cfg config, tmp string, ref *benchMesh, cands []*benchMesh) ([]float64, error) {
	job := struct {
		Ref        string   `json:"ref"`
		Candidates []string `json:"candidates"`
		Samples    int      `json:"samples"`
	}{Ref: filepath.Join(tmp, "bvh-ref.bin"), Samples: bvhSamples}
	if err := writeMeshBin(job.Ref, &benchMesh{positions: ref.positions, indices: ref.indices, nrm: [][3]float32{}}); err != nil {
		return nil, err
	}
	for i, c := range cands {
		p := filepath.Join(tmp, fmt.Sprintf("bvh-%d.bin", i))
		if err := writeMeshBin(p, &benchMesh{positions: c.positions, indices: c.indices, nrm: [][3]float32{}}); err != nil {
			return nil, err
		}
		job.Candidates = append(job.Candidates, p)
	}
	jb, err := json.Marshal(job)
	if err != nil {
		return nil, err
	}
	jobPath := filepath.Join(tmp, "bvh-job.json")
	if err := os.WriteFile(jobPath, jb, 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("node", filepath.Join(cfg.dir, "bvh.mjs"), jobPath)
	cmd.Stderr = os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("node bvh.mjs: %w", err)
	}
	var res []struct {
		Hausdorff *float64 `json:"hausdorff"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("node bvh.mjs: %w: %s", err, b)
	}
	out := make([]float64, len(res))
	for i, r := range res {
		if r.Hausdorff != nil {
			out[i] = *r.Hausdorff
		}
	}
	return out, nil
}

func compareCook(cfg config, meshes []*benchMesh, tmp string, w io.Writer) error {
	fmt.Fprintf(w, "\n## Cook path (meshcook cook --lods 0.5,0.25,0.1 --lod-error %s vs gltfpack -noq -si R -se %s on the same source; error = symmetric Hausdorff distance to the source / bbox diagonal: geomerr (vertices + %d samples) and three-mesh-bvh (vertices + %d samples))\n\n",
		cfg.lodError, cfg.lodError, hausdorffSamples, bvhSamples)
	exe := cfg.cookExe
	if exe == "" {
		exe = filepath.Join(tmp, "meshcook")
		build := exec.Command("go", "build", "-o", exe, "./cmd/meshcook")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build ./cmd/meshcook: %w", err)
		}
	}
	sources, err := cookSources(cfg, meshes)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "mesh\tsource attrs\tratio\ttool\ttris\tgeomerr\tbvh\treported\tstalled\tlods ms\t")
	for _, src := range sources {
		if cfg.attrs != "" && cfg.attrs != src.attrs {
			continue
		}
		dir := filepath.Join(tmp, "cook-"+src.name+"-"+strings.ReplaceAll(src.attrs, "+", "-"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		srcPath := filepath.Join(dir, src.name+".glb")
		if err := writeGLB(srcPath, src.parts); err != nil {
			return err
		}
		ref := merged(src.parts)
		diag := geomerr.Extent(ref.positions, ref.indices)
		ours, rep, err := cookLevels(exe, srcPath, filepath.Join(dir, "out"), cfg.lodError, cfg.cookFlags)
		if err != nil {
			return err
		}
		lodMS := 0.0
		for _, s := range rep.Stages {
			if s.Name == "lods" {
				lodMS = s.MS
			}
		}
		var theirs []*benchMesh
		for _, r := range cookRatios {
			m, err := gltfpackLevel(cfg, srcPath, filepath.Join(dir, fmt.Sprintf("gltfpack-%v.glb", r)), r, cfg.lodError)
			if err != nil {
				return err
			}
			theirs = append(theirs, m)
		}
		bvh, err := bvhErrors(cfg, dir, ref, append(append([]*benchMesh{}, ours...), theirs...))
		if err != nil {
			return err
		}
		for l, r := range cookRatios {
			o, t := ours[l], theirs[l]
			eo := geomerr.Hausdorff(ref.positions, ref.indices, o.positions, o.indices, hausdorffSamples) / diag
			et := geomerr.Hausdorff(ref.positions, ref.indices, t.positions, t.indices, hausdorffSamples) / diag
			bo, bt := bvh[l], bvh[len(ours)+l]
			reported, stalled := "-", "-"
			if len(rep.Meshes) == 1 && l < len(rep.Meshes[0].Lods) {
				lr := rep.Meshes[0].Lods[l]
				reported = fmt.Sprintf("%.5f", lr.Error)
				stalled = fmt.Sprint(lr.Stalled)
			}
			fmt.Fprintf(tw, "%s\t%s\t%.2f\tmeshcook\t%d\t%.5f\t%.5f\t%s\t%s\t%.1f\t\n", src.name, src.attrs, r, len(o.indices)/3, eo, bo, reported, stalled, lodMS)
			fmt.Fprintf(tw, "%s\t%s\t%.2f\tgltfpack\t%d\t%.5f\t%.5f\t\t\t\t\n", src.name, src.attrs, r, len(t.indices)/3, et, bt)
			fmt.Fprintf(tw, "%s\t%s\t%.2f\tratio\t%s\t%s\t%s\t\t\t\t\n", src.name, src.attrs, r,
				ratio(float64(len(o.indices)/3), float64(len(t.indices)/3)), ratio(eo, et), ratio(bo, bt))
		}
	}
	return tw.Flush()
}
