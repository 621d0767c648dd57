package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gltfimport "github.com/meshcook/meshcook/importer/gltf"
	"github.com/meshcook/meshcook/mesh"
)

// benchMesh is one benchmark input: a welded triangle list.
type benchMesh struct {
	name      string
	positions [][3]float32
	indices   []uint32
	nrm       [][3]float32
}

// loadOBJ reads positions and faces (fan-triangulated, 1-based or negative
// indices, v/vt/vn forms) from a Wavefront OBJ.
func loadOBJ(path string) (*benchMesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &benchMesh{name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "v":
			if len(fields) < 4 {
				return nil, fmt.Errorf("%s:%d: short vertex", path, line)
			}
			var p [3]float32
			for k := 0; k < 3; k++ {
				v, err := strconv.ParseFloat(fields[1+k], 32)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", path, line, err)
				}
				p[k] = float32(v)
			}
			m.positions = append(m.positions, p)
		case "f":
			var poly []uint32
			for _, c := range fields[1:] {
				s, _, _ := strings.Cut(c, "/")
				i, err := strconv.Atoi(s)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", path, line, err)
				}
				if i < 0 {
					i += len(m.positions) + 1
				}
				if i < 1 || i > len(m.positions) {
					return nil, fmt.Errorf("%s:%d: index %d out of range", path, line, i)
				}
				poly = append(poly, uint32(i-1))
			}
			for k := 2; k < len(poly); k++ {
				m.indices = append(m.indices, poly[0], poly[k-1], poly[k])
			}
		}
	}
	return m, sc.Err()
}

// loadGLTF imports a glTF and merges every submesh into one welded mesh.
func loadGLTF(path string) (*benchMesh, error) {
	scene, err := gltfimport.Load(path, gltfimport.Options{})
	if err != nil {
		return nil, err
	}
	m := &benchMesh{name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	for i := range scene.Submeshes {
		s := &scene.Submeshes[i]
		if _, err := mesh.Canonicalize(s, mesh.CanonicalOptions{}); err != nil {
			return nil, err
		}
		base := uint32(len(m.positions))
		for _, p := range s.Positions {
			m.positions = append(m.positions, p)
		}
		for _, ix := range s.Indices {
			m.indices = append(m.indices, ix+base)
		}
	}
	return m, nil
}

// subdivideDisplaced splits every triangle into four (shared edge
// midpoints) `levels` times, then pushes each vertex along its smooth
// normal by a few octaves of deterministic sine noise: a dense, organic
// ~1M-triangle mesh from the small scanned bunny.
func subdivideDisplaced(src *benchMesh, levels int) *benchMesh {
	pos := append([][3]float32(nil), src.positions...)
	idx := append([]uint32(nil), src.indices...)
	for l := 0; l < levels; l++ {
		mid := map[[2]uint32]uint32{}
		edge := func(a, b uint32) uint32 {
			k := [2]uint32{min(a, b), max(a, b)}
			if v, ok := mid[k]; ok {
				return v
			}
			pa, pb := pos[a], pos[b]
			pos = append(pos, [3]float32{(pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2, (pa[2] + pb[2]) / 2})
			mid[k] = uint32(len(pos) - 1)
			return mid[k]
		}
		next := make([]uint32, 0, len(idx)*4)
		for t := 0; t+2 < len(idx); t += 3 {
			a, b, c := idx[t], idx[t+1], idx[t+2]
			ab, bc, ca := edge(a, b), edge(b, c), edge(c, a)
			next = append(next, a, ab, ca, ab, b, bc, ca, bc, c, ab, bc, ca)
		}
		idx = next
	}
	// Smooth normals for the displacement direction.
	nrm := make([][3]float64, len(pos))
	var lo, hi [3]float64
	for i, p := range pos {
		for k := 0; k < 3; k++ {
			if i == 0 || float64(p[k]) < lo[k] {
				lo[k] = float64(p[k])
			}
			if i == 0 || float64(p[k]) > hi[k] {
				hi[k] = float64(p[k])
			}
		}
	}
	for t := 0; t+2 < len(idx); t += 3 {
		p0, p1, p2 := pos[idx[t]], pos[idx[t+1]], pos[idx[t+2]]
		e1 := [3]float64{float64(p1[0] - p0[0]), float64(p1[1] - p0[1]), float64(p1[2] - p0[2])}
		e2 := [3]float64{float64(p2[0] - p0[0]), float64(p2[1] - p0[1]), float64(p2[2] - p0[2])}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		for _, v := range idx[t : t+3] {
			for k := 0; k < 3; k++ {
				nrm[v][k] += n[k]
			}
		}
	}
	size := math.Max(hi[0]-lo[0], math.Max(hi[1]-lo[1], hi[2]-lo[2]))
	amp := 0.004 * size
	for i, p := range pos {
		n := nrm[i]
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l == 0 {
			continue
		}
		x, y, z := float64(p[0])/size*40, float64(p[1])/size*40, float64(p[2])/size*40
		d := amp * (math.Sin(x)*math.Cos(y*1.3) + 0.5*math.Sin(2.1*y+z) + 0.25*math.Sin(4.3*z-x))
		for k := 0; k < 3; k++ {
			pos[i][k] += float32(d * n[k] / l)
		}
	}
	return &benchMesh{name: fmt.Sprintf("%s-sub%d", src.name, levels), positions: pos, indices: idx}
}

// writeMeshBin writes the mesh in meshopt.mjs's input form.
func writeMeshBin(path string, m *benchMesh) error {
	b := make([]byte, 0, 8+12*len(m.positions)+4*len(m.indices))
	b = appendU32(b, uint32(len(m.positions)))
	b = appendU32(b, uint32(len(m.indices)))
	for _, p := range m.positions {
		for _, v := range p {
			b = appendU32(b, math.Float32bits(v))
		}
	}
	for _, i := range m.indices {
		b = appendU32(b, i)
	}
	for _, n := range m.normals() {
		for _, v := range n {
			b = appendU32(b, math.Float32bits(v))
		}
	}
	return os.WriteFile(path, b, 0o644)
}

func appendU32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// normals are smooth area-weighted vertex normals (computed once).
func (m *benchMesh) normals() [][3]float32 {
	if m.nrm != nil {
		return m.nrm
	}
	acc := make([][3]float64, len(m.positions))
	for t := 0; t+2 < len(m.indices); t += 3 {
		p0, p1, p2 := m.positions[m.indices[t]], m.positions[m.indices[t+1]], m.positions[m.indices[t+2]]
		e1 := [3]float64{float64(p1[0] - p0[0]), float64(p1[1] - p0[1]), float64(p1[2] - p0[2])}
		e2 := [3]float64{float64(p2[0] - p0[0]), float64(p2[1] - p0[1]), float64(p2[2] - p0[2])}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		for _, v := range m.indices[t : t+3] {
			for k := 0; k < 3; k++ {
				acc[v][k] += n[k]
			}
		}
	}
	m.nrm = make([][3]float32, len(acc))
	for i, n := range acc {
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l > 0 {
			m.nrm[i] = [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
		} else {
			m.nrm[i] = [3]float32{0, 1, 0}
		}
	}
	return m.nrm
}
