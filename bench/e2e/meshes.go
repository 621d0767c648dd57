package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// triMesh is a welded triangle list with smooth normals, written as a GLB.
type triMesh struct {
	pos [][3]float32
	nrm [][3]float32
	idx []uint32
}

// loadOBJ reads positions and faces (fan-triangulated, 1-based or negative
// indices, v/vt/vn forms) from a Wavefront OBJ.
func loadOBJ(path string) (*triMesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := &triMesh{}
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
			for k := range 3 {
				v, err := strconv.ParseFloat(fields[1+k], 32)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", path, line, err)
				}
				p[k] = float32(v)
			}
			m.pos = append(m.pos, p)
		case "f":
			var poly []uint32
			for _, c := range fields[1:] {
				s, _, _ := strings.Cut(c, "/")
				i, err := strconv.Atoi(s)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", path, line, err)
				}
				if i < 0 {
					i += len(m.pos) + 1
				}
				if i < 1 || i > len(m.pos) {
					return nil, fmt.Errorf("%s:%d: index %d out of range", path, line, i)
				}
				poly = append(poly, uint32(i-1))
			}
			for k := 2; k < len(poly); k++ {
				m.idx = append(m.idx, poly[0], poly[k-1], poly[k])
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	m.nrm = smoothNormals(m.pos, m.idx)
	return m, nil
}

// subdivide splits every triangle into n×n triangles on a barycentric grid
// (edge points shared between neighbours, so the result stays welded and
// closed), then pushes each vertex along its smooth normal by a few
// octaves of deterministic sine noise: a dense, organic mesh from a small
// scan (n = 18 turns the 3.7k-triangle bunny into 1.19M triangles).
func subdivide(src *triMesh, n int) *triMesh {
	pos := append([][3]float32(nil), src.pos...)
	edges := map[[2]uint32]uint32{} // (lo, hi) -> first of its n-1 inner points
	lerp := func(a, b [3]float32, t float32) [3]float32 {
		return [3]float32{a[0] + (b[0]-a[0])*t, a[1] + (b[1]-a[1])*t, a[2] + (b[2]-a[2])*t}
	}
	edge := func(u, v uint32, k int) uint32 {
		if u > v {
			u, v, k = v, u, n-k
		}
		first, ok := edges[[2]uint32{u, v}]
		if !ok {
			first = uint32(len(pos))
			for s := 1; s < n; s++ {
				pos = append(pos, lerp(pos[u], pos[v], float32(s)/float32(n)))
			}
			edges[[2]uint32{u, v}] = first
		}
		return first + uint32(k-1)
	}
	idx := make([]uint32, 0, len(src.idx)*n*n)
	pts := make([]uint32, (n+1)*(n+1))
	for t := 0; t+2 < len(src.idx); t += 3 {
		a, b, c := src.idx[t], src.idx[t+1], src.idx[t+2]
		at := func(i, j int) *uint32 { return &pts[i*(n+1)+j] }
		for i := 0; i <= n; i++ {
			for j := 0; i+j <= n; j++ {
				w := n - i - j
				var v uint32
				switch {
				case i == 0 && j == 0:
					v = a
				case w == 0 && j == 0:
					v = b
				case w == 0 && i == 0:
					v = c
				case j == 0:
					v = edge(a, b, i)
				case i == 0:
					v = edge(a, c, j)
				case w == 0:
					v = edge(b, c, j)
				default:
					pa, pb, pc := pos[a], pos[b], pos[c]
					fi, fj := float32(i)/float32(n), float32(j)/float32(n)
					var p [3]float32
					for k := range 3 {
						p[k] = pa[k] + (pb[k]-pa[k])*fi + (pc[k]-pa[k])*fj
					}
					v = uint32(len(pos))
					pos = append(pos, p)
				}
				*at(i, j) = v
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; i+j < n; j++ {
				idx = append(idx, *at(i, j), *at(i+1, j), *at(i, j+1))
				if i+j < n-1 {
					idx = append(idx, *at(i+1, j), *at(i+1, j+1), *at(i, j+1))
				}
			}
		}
	}
	nrm := smoothNormals(pos, idx)
	var lo, hi [3]float64
	for i, p := range pos {
		for k := range 3 {
			if i == 0 || float64(p[k]) < lo[k] {
				lo[k] = float64(p[k])
			}
			if i == 0 || float64(p[k]) > hi[k] {
				hi[k] = float64(p[k])
			}
		}
	}
	size := math.Max(hi[0]-lo[0], math.Max(hi[1]-lo[1], hi[2]-lo[2]))
	amp := 0.004 * size
	for i, p := range pos {
		x, y, z := float64(p[0])/size*40, float64(p[1])/size*40, float64(p[2])/size*40
		d := amp * (math.Sin(x)*math.Cos(y*1.3) + 0.5*math.Sin(2.1*y+z) + 0.25*math.Sin(4.3*z-x))
		for k := range 3 {
			pos[i][k] += float32(d * float64(nrm[i][k]))
		}
	}
	return &triMesh{pos: pos, nrm: smoothNormals(pos, idx), idx: idx}
}

// fan is n triangles around one centre vertex: a flat disc whose centre
// has valence n, the vertex-cache worst case.
func fan(n int) *triMesh {
	m := &triMesh{pos: [][3]float32{{0, 0, 0}}}
	for k := range n {
		a := 2 * math.Pi * float64(k) / float64(n)
		m.pos = append(m.pos, [3]float32{float32(math.Cos(a)), float32(math.Sin(a)), 0})
	}
	for k := range n {
		m.idx = append(m.idx, 0, uint32(1+k), uint32(1+(k+1)%n))
	}
	m.nrm = flatNormals(len(m.pos))
	return m
}

// grid is a flat side×side quad grid (2·side² triangles).
func grid(side int) *triMesh {
	m := &triMesh{}
	for y := 0; y <= side; y++ {
		for x := 0; x <= side; x++ {
			m.pos = append(m.pos, [3]float32{float32(x) / float32(side), float32(y) / float32(side), 0})
		}
	}
	at := func(x, y int) uint32 { return uint32(y*(side+1) + x) }
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			m.idx = append(m.idx, at(x, y), at(x+1, y), at(x+1, y+1), at(x, y), at(x+1, y+1), at(x, y+1))
		}
	}
	m.nrm = flatNormals(len(m.pos))
	return m
}

func flatNormals(n int) [][3]float32 {
	out := make([][3]float32, n)
	for i := range out {
		out[i] = [3]float32{0, 0, 1}
	}
	return out
}

// smoothNormals are area-weighted vertex normals ((0,0,1) where they vanish).
func smoothNormals(pos [][3]float32, idx []uint32) [][3]float32 {
	acc := make([][3]float64, len(pos))
	for t := 0; t+2 < len(idx); t += 3 {
		p0, p1, p2 := pos[idx[t]], pos[idx[t+1]], pos[idx[t+2]]
		e1 := [3]float64{float64(p1[0] - p0[0]), float64(p1[1] - p0[1]), float64(p1[2] - p0[2])}
		e2 := [3]float64{float64(p2[0] - p0[0]), float64(p2[1] - p0[1]), float64(p2[2] - p0[2])}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		for _, v := range idx[t : t+3] {
			for k := range 3 {
				acc[v][k] += n[k]
			}
		}
	}
	out := make([][3]float32, len(pos))
	for i, n := range acc {
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l == 0 {
			out[i] = [3]float32{0, 0, 1}
			continue
		}
		out[i] = [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
	}
	return out
}

// writeGLB writes m as a one-mesh binary glTF: POSITION, NORMAL, uint32
// indices.
func writeGLB(path string, m *triMesh) error {
	var bin []byte
	put := func(v uint32) { bin = binary.LittleEndian.AppendUint32(bin, v) }
	var lo, hi [3]float32
	for i, p := range m.pos {
		for k := range 3 {
			if i == 0 || p[k] < lo[k] {
				lo[k] = p[k]
			}
			if i == 0 || p[k] > hi[k] {
				hi[k] = p[k]
			}
		}
		for _, v := range p {
			put(math.Float32bits(v))
		}
	}
	nrmOff := len(bin)
	for _, n := range m.nrm {
		for _, v := range n {
			put(math.Float32bits(v))
		}
	}
	idxOff := len(bin)
	for _, i := range m.idx {
		put(i)
	}
	nv := len(m.pos)
	doc := map[string]any{
		"asset":   map[string]any{"version": "2.0", "generator": "meshcook bench/e2e"},
		"scene":   0,
		"scenes":  []any{map[string]any{"nodes": []int{0}}},
		"nodes":   []any{map[string]any{"mesh": 0}},
		"buffers": []any{map[string]any{"byteLength": len(bin)}},
		"bufferViews": []any{
			map[string]any{"buffer": 0, "byteOffset": 0, "byteLength": nrmOff, "target": 34962},
			map[string]any{"buffer": 0, "byteOffset": nrmOff, "byteLength": idxOff - nrmOff, "target": 34962},
			map[string]any{"buffer": 0, "byteOffset": idxOff, "byteLength": len(bin) - idxOff, "target": 34963},
		},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": nv, "type": "VEC3", "min": lo, "max": hi},
			map[string]any{"bufferView": 1, "componentType": 5126, "count": nv, "type": "VEC3"},
			map[string]any{"bufferView": 2, "componentType": 5125, "count": len(m.idx), "type": "SCALAR"},
		},
		"meshes": []any{map[string]any{"primitives": []any{map[string]any{
			"attributes": map[string]int{"POSITION": 0, "NORMAL": 1}, "indices": 2,
		}}}},
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	out := make([]byte, 0, 28+len(js)+len(bin))
	le := binary.LittleEndian
	out = le.AppendUint32(out, 0x46546C67) // "glTF"
	out = le.AppendUint32(out, 2)
	out = le.AppendUint32(out, uint32(28+len(js)+len(bin)))
	out = le.AppendUint32(out, uint32(len(js)))
	out = le.AppendUint32(out, 0x4E4F534A) // "JSON"
	out = append(out, js...)
	out = le.AppendUint32(out, uint32(len(bin)))
	out = le.AppendUint32(out, 0x004E4942) // "BIN\0"
	out = append(out, bin...)
	return os.WriteFile(path, out, 0o644)
}

// generate writes the inputs the benches want into work, with their
// triangle counts in counts.json (run in a child process; see run).
func generate(cfg config, work string, want func(string) bool, stdout io.Writer) error {
	counts := map[string]int{}
	bunny, err := loadOBJ(filepath.Join(cfg.corpus, "large", "bunny_npm", "bunny.obj"))
	if err != nil {
		return err
	}
	write := func(name string, m *triMesh) error {
		counts[name] = len(m.idx) / 3
		return writeGLB(filepath.Join(work, name+".glb"), m)
	}
	if want("big") {
		fmt.Fprintf(stdout, "generating the big mesh (bunny, each triangle split %d×%d) ...\n", cfg.sub, cfg.sub)
		if err := write(fmt.Sprintf("bunny-sub%d", cfg.sub), subdivide(bunny, cfg.sub)); err != nil {
			return err
		}
	}
	if want("bunny") {
		if err := write("bunny", bunny); err != nil {
			return err
		}
	}
	if want("FlightHelmet") {
		counts["FlightHelmet"] = flightHelmetTris
	}
	if want("fan") {
		side := 1
		for 2*(side+1)*(side+1) <= cfg.fanTris {
			side++
		}
		if err := write("fan", fan(cfg.fanTris)); err != nil {
			return err
		}
		if err := write("grid", grid(side)); err != nil {
			return err
		}
	}
	b, err := json.Marshal(counts)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(work, "counts.json"), b, 0o644)
}

// flightHelmetTris is the corpus FlightHelmet's triangle count (all
// primitives, as meshcook cooks it), for the table heading.
const flightHelmetTris = 94722

func readCounts(work string) (map[string]int, error) {
	b, err := os.ReadFile(filepath.Join(work, "counts.json"))
	if err != nil {
		return nil, err
	}
	var m map[string]int
	return m, json.Unmarshal(b, &m)
}
